// Fuzz target: the "jsonl" reader (simdjson, surrogate repair, the gzip / zstd decoders) on
// arbitrary bytes. Checks that every document is non-empty valid UTF-8 and that the stats agree
// with what was returned.

#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"

namespace tokenmill {
namespace {

int FuzzJsonlReader(const uint8_t* data, size_t size) {
  fuzz::ReaderSetup s = fuzz::DecodeSetup(data, size, InputFormat::kJsonl);
  auto reader = OpenDocumentReaderOnStream(
      std::make_unique<StringReadStream>(std::move(s.content), s.read_chunk), "fuzz.jsonl",
      s.range_begin, s.compression, s.options);
  if (!reader.ok()) return 0;
  uint64_t last_line = 0;
  fuzz::DrainRecordReader(**reader, "fuzz.jsonl", [&](const Document& doc) {
    if (doc.line_number <= last_line) std::abort();
    last_line = doc.line_number;
  });
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzJsonlReader(data, size);
}
