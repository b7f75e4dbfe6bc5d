// Fuzz target: the "json" reader (one JSON array of records, streamed) on arbitrary bytes, with
// the gzip / zstd decoders under it. Checks that every document is non-empty valid UTF-8, that
// errors name the file, and that the stats agree with what was returned.

#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"

namespace tokenmill {
namespace {

int FuzzJsonArrayReader(const uint8_t* data, size_t size) {
  fuzz::ReaderSetup s = fuzz::DecodeSetup(data, size, InputFormat::kJson);
  auto reader = OpenDocumentReaderOnStream(
      std::make_unique<StringReadStream>(std::move(s.content), s.read_chunk), "fuzz.json",
      s.range_begin, s.compression, s.options);
  if (!reader.ok()) {
    // Only a range that does not start at 0 is refused up front.
    if (s.range_begin == 0) std::abort();
    return 0;
  }
  fuzz::DrainRecordReader(**reader, "fuzz.json", [](const Document&) {});
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzJsonArrayReader(data, size);
}
