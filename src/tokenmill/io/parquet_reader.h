// The "parquet" input format: the documents are the values of one string column.
//
// Only the footer and the text column's chunks are read: the footer with one read of the file's
// last 64 KiB (a second read only when the footer is larger), then each row group's column chunk
// with one ranged, streamed read (none for chunks inside those last 64 KiB). Pages are decompressed
// one at a time (parquet_column.h), so memory stays at about one page and the chunk's dictionary
// whatever the size of the file.
//
// Row groups are the unit of splitting: a byte range [begin, end) of a Parquet file means the
// row groups whose first byte (RowGroup::Start) lies in it, in file order. ParquetTaskRanges
// cuts a file into such ranges, so each row group is read by exactly one range.
//
// Documents: null and empty values are skipped and counted in ReaderStats::empty_documents.
// Document::line_number is the 1-based row in the file, Document::offset the first byte of the
// row's row group. Errors name the file, the row group and the column ("/d/x.parquet row group 3
// column text: page at byte 123: ...").
// Thread-safety: a reader is used by one thread; the functions are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/io/parquet_format.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

// Bytes read from the end of a file to find its footer in one request.
inline constexpr uint64_t kParquetTailRead = uint64_t{64} << 10;

struct ParquetFooter {
  parquet::FileMetaData meta;
  uint64_t file_size = 0;
  uint64_t footer_offset = 0;  // first byte of the serialized FileMetaData
  uint64_t bytes_read = 0;     // bytes fetched to get it
  // The file's last bytes, as fetched (up to kParquetTailRead): column chunks inside them are
  // read from here instead of fetched again (a whole small file costs one read).
  std::string tail;
  uint64_t tail_offset = 0;
};

// Reads and decodes the footer of the Parquet file `url` of `size` bytes. DataLoss naming the
// file for a file that is not Parquet (bad magic), truncated or with a corrupt footer;
// Unimplemented for an encrypted one.
StatusOr<ParquetFooter> ReadParquetFooter(Storage& storage, std::string_view url, uint64_t size);

// ReadParquetFooter for many objects at once, `threads` requests in flight (object stores answer
// each in tens of milliseconds; a dataset has thousands of files). The results are in the order
// of `objects`, without their `tail` (to keep memory small); each object's storage comes from
// StorageFor.
std::vector<StatusOr<ParquetFooter>> ReadParquetFooters(const std::vector<ObjectInfo>& objects,
                                                        int threads = 16);

// Cuts a Parquet file into byte ranges of whole row groups, packed in file order up to
// `task_size` bytes each (a larger row group is a range of its own). The first range starts at
// 0 and the last ends at the file's size. A file whose row groups are not in increasing byte
// order is one range.
std::vector<std::pair<uint64_t, uint64_t>> ParquetTaskRanges(const ParquetFooter& footer,
                                                             uint64_t task_size);

// Checks that the file's schema has the string column `text_field` (a dotted path), as the
// reader will; InvalidArgument naming the file and listing its columns otherwise.
Status CheckParquetColumn(const ParquetFooter& footer, std::string_view url,
                          std::string_view text_field);

// A reader of the row groups of `range` (see above). The file's size is asked of storage.
StatusOr<std::unique_ptr<DocumentReader>> OpenParquetReader(Storage& storage,
                                                            const InputRange& range,
                                                            const ReaderOptions& options);

}  // namespace tokenmill
