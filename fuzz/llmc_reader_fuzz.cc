// Fuzz target: the llm.c header parser and reader on arbitrary bytes.
// Input: a flag byte, then the file. Flag bit 0: split records at end-of-text id (the flag byte
// itself); bit 1: chunks of 3 tokens; bit 2: check ids against a vocabulary of 50000. Checks:
// errors are DataLoss naming the file; a reader that opens returns exactly the tokens its header
// announces, in order.

#include <cstdlib>
#include <string>
#include <vector>

#include "tokenmill/formats/llmc.h"
#include "tokenmill/formats/shard_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokenmill;
  const uint8_t flags = size > 0 ? data[0] : 0;
  const std::string file =
      size > 0 ? std::string(reinterpret_cast<const char*>(data) + 1, size - 1) : std::string();
  ShardReaderOptions options;
  if (flags & 1) options.eod_id = flags;
  if (flags & 2) options.llmc_chunk_tokens = 3;
  if (flags & 4) options.vocab_size = 50000;
  auto reader = OpenLlmcShard(MemorySource("fuzz.bin", file), options);
  if (!reader.ok()) {
    if (!reader.status().Is(StatusCode::kDataLoss)) std::abort();
    if (reader.status().message().find("fuzz.bin") == std::string::npos) std::abort();
    return 0;
  }
  const ShardInfo& info = (*reader)->info();
  const size_t width = info.token_bytes;
  if (width != 2 && width != 4) std::abort();
  if (file.size() != kLlmcHeaderBytes + static_cast<uint64_t>(info.tokens) * width) std::abort();
  Example e;
  uint64_t tokens = 0;
  while (true) {
    StatusOr<bool> got = (*reader)->Next(&e);
    if (!got.ok()) {
      if (!got.status().Is(StatusCode::kDataLoss) || !(flags & 4)) std::abort();
      return 0;
    }
    if (!*got) break;
    if (e.tokens.empty()) std::abort();
    if (options.eod_id.has_value()) {
      for (size_t i = 1; i < e.tokens.size(); ++i) {
        if (e.tokens[i] == *options.eod_id) std::abort();  // split before every eod
      }
    }
    for (uint32_t t : e.tokens) {
      uint32_t want = 0;
      const unsigned char* b =
          reinterpret_cast<const unsigned char*>(file.data()) + kLlmcHeaderBytes + tokens * width;
      for (size_t k = 0; k < width; ++k) want |= static_cast<uint32_t>(b[k]) << (8 * k);
      if (t != want) std::abort();
      ++tokens;
    }
  }
  if (tokens != static_cast<uint64_t>(info.tokens)) std::abort();
  return 0;
}
