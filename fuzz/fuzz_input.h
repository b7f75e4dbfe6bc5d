// Shared decoding of a fuzz input into reader settings: the first byte chooses the options, the
// rest is the file's content.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tokenmill/base/utf8.h"
#include "tokenmill/io/decompress.h"
#include "tokenmill/io/document_reader.h"

namespace tokenmill::fuzz {

struct ReaderSetup {
  ReaderOptions options;
  Compression compression = Compression::kNone;
  uint64_t range_begin = 0;
  size_t read_chunk = 1;
  std::string content;
};

// Flag byte: bit 0 replace (else drop) invalid UTF-8; bit 1 strict_utf8; bit 2 a small
// max_document_bytes (64); bits 3-4 compression (0, 3: none, 1: gzip, 2: zstd); bit 5
// skip_bad_records / a dotted text_field; bit 6 short reads; bit 7 a range that starts at byte
// 100.
inline ReaderSetup DecodeSetup(const uint8_t* data, size_t size, InputFormat format) {
  ReaderSetup s;
  const uint8_t flags = size > 0 ? data[0] : 0;
  if (size > 0) s.content.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  s.options.format = format;
  s.options.invalid_utf8 = (flags & 1) ? InvalidUtf8::kReplace : InvalidUtf8::kDrop;
  s.options.strict_utf8 = (flags & 2) != 0;
  s.options.max_document_bytes = (flags & 4) ? 64 : (1 << 20);
  const int c = (flags >> 3) & 3;
  s.compression = c == 1 ? Compression::kGzip : c == 2 ? Compression::kZstd : Compression::kNone;
  if (flags & 32) {
    s.options.skip_bad_records = true;
    if (format == InputFormat::kJsonl) s.options.text_field = "meta.text";
  }
  s.read_chunk = (flags & 64) ? 3 : SIZE_MAX;
  if ((flags & 128) && s.compression == Compression::kNone) s.range_begin = 100;
  return s;
}

// Reads a record reader (jsonl, json) to its end or first error, aborting unless: errors name
// `name`; every document is non-empty valid UTF-8 and passes `check`; the stats count the
// documents returned, and documents, skipped and empty records never exceed the records read.
template <typename Check>
void DrainRecordReader(DocumentReader& reader, std::string_view name, Check check) {
  Document doc;
  uint64_t docs = 0;
  while (true) {
    StatusOr<bool> r = reader.Next(&doc);
    if (!r.ok()) {
      if (r.status().message().find(name) == std::string::npos) std::abort();
      break;
    }
    if (!*r) break;
    ++docs;
    if (doc.text.empty() || FindInvalidUtf8(doc.text) != std::string_view::npos) std::abort();
    check(doc);
  }
  const ReaderStats& stats = reader.stats();
  if (stats.documents != docs) std::abort();
  if (stats.documents + stats.skipped_records + stats.empty_documents > stats.lines) std::abort();
}

}  // namespace tokenmill::fuzz
