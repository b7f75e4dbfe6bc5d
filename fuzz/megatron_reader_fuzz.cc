// Fuzz target: the Megatron index parser and reader on arbitrary bytes.
// Input: two bytes (little endian) giving the .idx length n, then the .idx (the next n bytes, or
// fewer if the input ends), then the .bin (the rest). Checks: errors are DataLoss or
// InvalidArgument naming a file; a reader that opens returns exactly the sequences, documents and
// tokens its index announces.

#include <algorithm>
#include <cstdlib>
#include <string>

#include "tokenmill/formats/megatron.h"
#include "tokenmill/formats/shard_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokenmill;
  const char* p = reinterpret_cast<const char*>(data);
  size_t idx_len =
      size >= 2 ? (static_cast<size_t>(data[0]) | (static_cast<size_t>(data[1]) << 8)) : 0;
  const size_t body = size >= 2 ? size - 2 : 0;
  idx_len = std::min(idx_len, body);
  const std::string idx = size >= 2 ? std::string(p + 2, idx_len) : std::string();
  const std::string bin = size >= 2 ? std::string(p + 2 + idx_len, body - idx_len) : std::string();

  auto parsed = ParseMegatronIndex(idx, "fuzz.idx", bin.size());
  auto reader = OpenMegatronShard(MemorySource("fuzz.idx", idx), MemorySource("fuzz.bin", bin));
  if (parsed.ok() != reader.ok() && !reader.status().Is(StatusCode::kInvalidArgument)) {
    std::abort();  // only a non-integer dtype may parse and still not open
  }
  if (!reader.ok()) {
    const Status& s = reader.status();
    if (!s.Is(StatusCode::kDataLoss) && !s.Is(StatusCode::kInvalidArgument)) std::abort();
    if (s.message().find("fuzz.") == std::string::npos) std::abort();
    return 0;
  }
  const ShardInfo& info = (*reader)->info();
  if (info.sequences < 0 || info.documents < 0 || info.tokens < 0) std::abort();
  Example e;
  uint64_t records = 0;
  uint64_t tokens = 0;
  while (true) {
    StatusOr<bool> got = (*reader)->Next(&e);
    if (!got.ok()) {
      if (!got.status().Is(StatusCode::kDataLoss)) std::abort();
      if (got.status().message().find("fuzz.") == std::string::npos) std::abort();
      return 0;
    }
    if (!*got) break;
    if (e.tokens.size() != static_cast<size_t>(parsed->sequence_lengths[records])) std::abort();
    ++records;
    tokens += e.tokens.size();
  }
  if (records != static_cast<uint64_t>(info.sequences)) std::abort();
  if (tokens != static_cast<uint64_t>(info.tokens)) std::abort();
  return 0;
}
