// DocumentReader: turns (a byte range of) one input object into documents.
//
// Formats:
//  - "text": the BERT/ELECTRA corpus format. UTF-8 lines split on '\n' only; blank lines (empty
//    after Python-style str.strip(), see IsBlankLine) separate documents; the end of the input
//    ends a document. A run of several blank lines is one separator.
//  - "jsonl": one JSON object per line; the document text is the string at `text_field` (dotted
//    paths reach into nested objects). Empty texts are skipped and counted.
//  - "json": one JSON array of objects (WuDao-style), read element by element; the text as in
//    "jsonl". Read whole (never split into ranges).
//  - "parquet": the string column `text_field` (a dotted path reaches a field of a struct) of a
//    Parquet file; see parquet_reader.h. Ranges are sets of row groups; null and empty values
//    are skipped and counted.
// ".gz" and ".zst" inputs are decompressed by extension. A plain input may be read as a byte
// range [begin, end) whose ends are document boundaries (see NextDocumentBoundary).
// Memory is bounded by the longest document, never the file.
// Thread-safety: a reader is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/base/utf8.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

enum class InputFormat { kText, kJsonl, kJson, kParquet };

struct ReaderOptions {
  InputFormat format = InputFormat::kText;
  // jsonl, json, parquet: the field (column) holding the text; "a.b" reaches into nested
  // objects (struct columns). Default: "text".
  std::string text_field = "text";
  // What to do with invalid UTF-8. Default: drop (the BERT pipelines); BPE jobs use kReplace.
  InvalidUtf8 invalid_utf8 = InvalidUtf8::kDrop;
  // If true, invalid UTF-8 is an error naming the file and byte offset. Default: false.
  bool strict_utf8 = false;
  // jsonl, json: if true, malformed records and missing / non-string fields are skipped and
  // counted; otherwise they are an error naming the file and line. parquet: pages whose data
  // cannot be decoded and over-long texts are skipped, their rows counted. Default: false.
  bool skip_bad_records = false;
  // The longest line and the longest document accepted, in bytes; longer is an error (the input
  // is probably not in the declared format). Bounds the reader's memory. Default: 256 MiB.
  uint64_t max_document_bytes = uint64_t{256} << 20;
  // [input] sentences = "split": each line of a document is cut into sentences, one a line
  // (io/sentence_splitter.h). Default: false ("lines": lines are kept as they are).
  bool split_sentences = false;
};

// One piece of work for a reader: a whole object, or a document-aligned byte range of a plain one.
struct InputRange {
  std::string url;
  uint64_t begin = 0;
  uint64_t end = kToEnd;  // kToEnd: to the end of the object
};

struct Document {
  std::string text;  // lines joined with '\n', no trailing newline; valid UTF-8
  // 1-based line of its first line in the (decompressed) input. In a byte range that starts
  // after byte 0, lines are counted from the start of the range (the line number of the range's
  // first line is unknown without reading from byte 0).
  uint64_t line_number = 0;
  uint64_t offset = 0;  // byte offset of its first line in the (decompressed) object
};

struct ReaderStats {
  uint64_t bytes_in = 0;            // raw (compressed) bytes read from storage
  uint64_t bytes_decoded = 0;       // decompressed bytes
  uint64_t lines = 0;               // lines read, separators included (json: elements,
                                    // parquet: rows)
  uint64_t documents = 0;           // documents returned
  uint64_t invalid_utf8_bytes = 0;  // bytes dropped or replaced
  uint64_t skipped_records = 0;     // jsonl, json, parquet: bad records skipped (skip_bad_records)
  uint64_t empty_documents = 0;     // jsonl, json, parquet: empty (parquet: or null) texts skipped
};

class DocumentReader {
 public:
  virtual ~DocumentReader() = default;
  // Fills *doc with the next document and returns true, or returns false at the end.
  // Errors name the file and the line or byte offset ("/x.txt:12 (byte 3456)", or inside a
  // range "/x.txt byte 3456 (line 2 of the range starting at byte 3000)"). An error sticks:
  // every later call returns it again.
  virtual StatusOr<bool> Next(Document* doc) = 0;
  virtual const ReaderStats& stats() const = 0;
};

StatusOr<std::unique_ptr<DocumentReader>> OpenDocumentReader(Storage& storage,
                                                             const InputRange& range,
                                                             const ReaderOptions& options);

// True if `line` is empty after stripping whitespace as Python's str.strip() does
// (Unicode White_Space, U+3000 included).
bool IsBlankLine(std::string_view line);

// True if the input is compressed (".gz", ".zst") and so can only be read whole.
bool IsCompressed(std::string_view url);

// The first document boundary at or after `offset` in a plain text input of `size` bytes:
// the start of the first non-blank line that follows a blank line beginning at or after
// `offset`. Returns `size` if there is none. Reads only as much as it needs. A planner cuts plain
// inputs at these boundaries, so each document belongs to exactly one range.
StatusOr<uint64_t> NextDocumentBoundary(Storage& storage, std::string_view url, uint64_t offset,
                                        uint64_t size, InputFormat format);

// Expands input patterns into sorted object lists. `*` and `?` match within one path component
// (never '/'); "**" is not supported (see io/glob.h for `[...]` sets and `\` escapes). Matches
// are sorted bytewise and de-duplicated. A pattern that matches nothing is an error naming it.
// Relative local paths are made absolute (from the current folder).
StatusOr<std::vector<ObjectInfo>> ExpandGlobs(const std::vector<std::string>& patterns);

}  // namespace tokenmill
