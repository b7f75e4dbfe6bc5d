// Fuzz target: the TFRecord reader and the tf.train.Example decoder on arbitrary bytes.
// Input: a flag byte, then the content. Bit 0 set: the content is framed as one valid record (so
// the fuzzer reaches the protobuf decoder past the CRCs); clear: the content is the whole file.
// The content is also decoded directly as an Example payload. Checks: errors are DataLoss naming
// the file; counts agree with the records returned; a decoded Example re-encodes to bytes that
// decode to the same Example.

#include <cstdlib>
#include <string>

#include "tokenmill/formats/shard_reader.h"
#include "tokenmill/formats/tf_example.h"
#include "tokenmill/formats/tfrecord.h"

namespace {

bool SameExample(const tokenmill::Example& a, const tokenmill::Example& b) {
  return a.tokens == b.tokens && a.input_mask == b.input_mask && a.segment_ids == b.segment_ids &&
         a.num_real_tokens == b.num_real_tokens;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokenmill;
  const uint8_t flags = size > 0 ? data[0] : 0;
  const std::string content =
      size > 0 ? std::string(reinterpret_cast<const char*>(data) + 1, size - 1) : std::string();

  // The decoder alone.
  Example direct;
  if (DecodeTfExample(content, &direct).ok()) {
    std::string again;
    EncodeTfExample(direct, &again);
    Example back;
    if (!DecodeTfExample(again, &back).ok() || !SameExample(direct, back)) std::abort();
  }

  // The reader over a file.
  std::string file;
  if (flags & 1) {
    AppendTfRecord(content, &file);
  } else {
    file = content;
  }
  ShardReaderOptions options;
  options.vocab_size = (flags & 2) ? 1000 : 0;
  auto reader = OpenTfRecordShard(MemorySource("fuzz.tfrecord", file), options);
  if (!reader.ok()) std::abort();  // opening reads nothing
  Example e;
  uint64_t records = 0;
  uint64_t tokens = 0;
  while (true) {
    StatusOr<bool> got = (*reader)->Next(&e);
    if (!got.ok()) {
      if (!got.status().Is(StatusCode::kDataLoss)) std::abort();
      if (got.status().message().find("fuzz.tfrecord") == std::string::npos) std::abort();
      break;
    }
    if (!*got) break;
    ++records;
    tokens += e.tokens.size();
    if (e.num_real_tokens > e.tokens.size()) std::abort();
    if ((flags & 1) && !SameExample(e, direct)) std::abort();
  }
  if ((*reader)->counts().records != records || (*reader)->counts().tokens != tokens) std::abort();
  return 0;
}
