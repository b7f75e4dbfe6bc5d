// Fuzz target: the in-place scan of huge JSON records (io/json_scan.h) against simdjson, on
// arbitrary records. The first byte chooses the field path ("text" or "meta.text") and
// strict_utf8; the rest, made valid UTF-8 as the readers do, is the record. Aborts if the two
// parsers disagree on whether the record is accepted, on the error's kind, on the text or on the
// surrogates replaced (but for numbers no double holds, which only simdjson rejects, so that
// where it stops at one the scan may accept the record or refuse it for a later reason).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "tokenmill/base/utf8.h"
#include "tokenmill/io/json_record.h"

namespace tokenmill {
namespace {

struct Outcome {
  Status status;
  std::string text;
  uint64_t replaced = 0;
};

Outcome Parse(const std::string& record, const ReaderOptions& options, bool in_place) {
  auto parser = JsonRecordParser::Create(options);
  if (!parser.ok()) std::abort();
  if (in_place) parser->set_in_place_from_for_testing(0);
  Outcome out;
  std::string buffer = record;
  ReaderStats stats;
  out.status = parser->ParseInPlace(&buffer, &stats);
  if (out.status.ok()) out.text = buffer;
  out.replaced = stats.invalid_utf8_bytes;
  return out;
}

int FuzzJsonScan(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  ReaderOptions options;
  options.text_field = (data[0] & 1) ? "meta.text" : "text";
  options.strict_utf8 = (data[0] & 2) != 0;
  std::string record;
  AppendValidUtf8(std::string_view(reinterpret_cast<const char*>(data + 1), size - 1),
                  InvalidUtf8::kDrop, &record);
  const Outcome dom = Parse(record, options, false);
  const Outcome scan = Parse(record, options, true);
  const std::string m(dom.status.message());
  const bool number = !dom.status.ok() && (m.find("number") != std::string::npos ||
                                           m.find("NUMBER") != std::string::npos ||
                                           m.find("integer") != std::string::npos);
  if (dom.status.ok() != scan.status.ok()) {
    if (!(scan.status.ok() && number)) std::abort();
    return 0;
  }
  // Both refuse the record. The scan does not look at numbers, so where simdjson stopped at one
  // the scan may stop at a later fault (a lone surrogate under strict_utf8, a missing field).
  if (dom.status.code() != scan.status.code() && !number) {
    std::fprintf(stderr, "simdjson: %s\nscan: %s\n", dom.status.ToString().c_str(),
                 scan.status.ToString().c_str());
    std::abort();
  }
  if (dom.status.ok() && (dom.text != scan.text || dom.replaced != scan.replaced)) std::abort();
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzJsonScan(data, size);
}
