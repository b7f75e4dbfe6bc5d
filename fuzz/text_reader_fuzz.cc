// Fuzz target: the "text" reader (and the gzip / zstd decoders under it) on arbitrary bytes.
// Checks that every document is non-empty valid UTF-8 without blank lines, and that the stats
// agree with what was returned.

#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"

namespace tokenmill {
namespace {

int FuzzTextReader(const uint8_t* data, size_t size) {
  fuzz::ReaderSetup s = fuzz::DecodeSetup(data, size, InputFormat::kText);
  const size_t content_size = s.content.size();
  auto reader = OpenDocumentReaderOnStream(
      std::make_unique<StringReadStream>(std::move(s.content), s.read_chunk), "fuzz.txt",
      s.range_begin, s.compression, s.options);
  if (!reader.ok()) return 0;
  Document doc;
  uint64_t docs = 0;
  uint64_t last_offset = 0;
  while (true) {
    StatusOr<bool> r = (*reader)->Next(&doc);
    if (!r.ok()) {
      if (r.status().message().find("fuzz.txt") == std::string::npos) std::abort();
      break;
    }
    if (!*r) break;
    ++docs;
    if (doc.text.empty() || FindInvalidUtf8(doc.text) != std::string_view::npos) std::abort();
    if (doc.offset < s.range_begin || doc.offset < last_offset || doc.line_number == 0) {
      std::abort();
    }
    last_offset = doc.offset;
    size_t start = 0;
    while (true) {
      const size_t nl = doc.text.find('\n', start);
      const std::string_view line(doc.text.data() + start,
                                  (nl == std::string::npos ? doc.text.size() : nl) - start);
      if (IsBlankLine(line)) std::abort();
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  const ReaderStats& stats = (*reader)->stats();
  if (stats.documents != docs) std::abort();
  if (s.compression == Compression::kNone && stats.bytes_in != stats.bytes_decoded) std::abort();
  if (stats.bytes_in > content_size) std::abort();
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzTextReader(data, size);
}
