// The Parquet file format's metadata (apache/parquet-format, parquet.thrift): the footer's
// FileMetaData with its schema, row groups and column chunks, and page headers, decoded from the
// Thrift compact protocol. Only the fields a reader of one BYTE_ARRAY column needs are kept;
// every other field, known or not, is skipped as the Thrift specification requires.
//
// Errors are InvalidArgument or DataLoss with a plain description ("thrift: field 4 of
// RowGroup: ..."); callers add the file and place.
// Thread-safety: plain functions and values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill::parquet {

// parquet.thrift enums (the values the format assigns).
enum PhysicalType : int32_t {
  kBoolean = 0,
  kInt32 = 1,
  kInt64 = 2,
  kInt96 = 3,
  kFloat = 4,
  kDouble = 5,
  kByteArray = 6,
  kFixedLenByteArray = 7,
};
enum Repetition : int32_t { kRequired = 0, kOptional = 1, kRepeated = 2 };
enum Codec : int32_t {
  kUncompressed = 0,
  kSnappy = 1,
  kGzip = 2,
  kLzo = 3,
  kBrotli = 4,
  kLz4Hadoop = 5,
  kZstd = 6,
  kLz4Raw = 7,
};
enum Encoding : int32_t {
  kPlain = 0,
  kPlainDictionary = 2,
  kRle = 3,
  kBitPacked = 4,
  kDeltaBinaryPacked = 5,
  kDeltaLengthByteArray = 6,
  kDeltaByteArray = 7,
  kRleDictionary = 8,
  kByteStreamSplit = 9,
};
enum PageType : int32_t { kDataPage = 0, kIndexPage = 1, kDictionaryPage = 2, kDataPageV2 = 3 };

std::string CodecName(int32_t codec);        // "SNAPPY", or "codec 42"
std::string EncodingName(int32_t encoding);  // "PLAIN", or "encoding 42"
std::string PhysicalTypeName(int32_t type);  // "BYTE_ARRAY", or "type 42"

struct SchemaElement {
  std::optional<int32_t> type;  // absent for groups
  int32_t repetition = kRequired;
  std::string name;
  int32_t num_children = 0;
  std::optional<int32_t> converted_type;
  // The LogicalType union's field id (1 STRING, 4 ENUM, 12 JSON, ...), if any.
  std::optional<int16_t> logical_type;
};

struct ColumnChunk {
  std::string file_path;  // non-empty: the chunk lives in another file (not supported)
  bool has_meta_data = false;
  bool encrypted = false;
  int32_t type = 0;
  std::vector<std::string> path_in_schema;
  int32_t codec = kUncompressed;
  int64_t num_values = 0;
  int64_t total_uncompressed_size = 0;
  int64_t total_compressed_size = 0;
  int64_t data_page_offset = 0;
  std::optional<int64_t> dictionary_page_offset;

  // Where the chunk's pages start: the dictionary page when there is one, else the first data
  // page.
  int64_t Start() const;
};

struct RowGroup {
  std::vector<ColumnChunk> columns;
  int64_t total_byte_size = 0;
  int64_t num_rows = 0;
  // The first byte of any of its column chunks (how a planner places the row group in the file).
  int64_t Start() const;
};

struct FileMetaData {
  int32_t version = 0;
  std::vector<SchemaElement> schema;  // depth-first, the root first
  int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::string created_by;
  bool encrypted_footer_algorithm = false;
};

struct DataPageHeader {
  int32_t num_values = 0;
  int32_t encoding = kPlain;
  int32_t definition_level_encoding = kRle;
  int32_t repetition_level_encoding = kRle;
};

struct DictionaryPageHeader {
  int32_t num_values = 0;
  int32_t encoding = kPlain;
};

struct DataPageHeaderV2 {
  int32_t num_values = 0;
  int32_t num_nulls = 0;
  int32_t num_rows = 0;
  int32_t encoding = kPlain;
  int32_t definition_levels_byte_length = 0;
  int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct PageHeader {
  int32_t type = 0;
  int32_t uncompressed_page_size = 0;
  int32_t compressed_page_size = 0;
  std::optional<DataPageHeader> data_page;
  std::optional<DictionaryPageHeader> dictionary_page;
  std::optional<DataPageHeaderV2> data_page_v2;
};

// Decodes a serialized FileMetaData (the bytes before the footer's length and "PAR1").
StatusOr<FileMetaData> ParseFileMetaData(std::string_view bytes);

// Decodes the PageHeader at the start of `bytes` and sets *header_size to its length. On a
// DataLoss error, *truncated tells whether `bytes` merely ended inside the header (the caller
// may read more and retry).
StatusOr<PageHeader> ParsePageHeader(std::string_view bytes, size_t* header_size, bool* truncated);

// One leaf column of the schema, resolved from a dotted path.
struct LeafColumn {
  size_t leaf_index = 0;  // index among the leaves = index of its ColumnChunk in a row group
  std::vector<std::string> path;
  int32_t type = 0;
  int16_t max_definition_level = 0;
  int16_t max_repetition_level = 0;
  bool is_string = false;  // BYTE_ARRAY with no annotation or STRING / UTF8 / ENUM / JSON
};

// Every leaf column, in order, with its dotted path.
std::vector<LeafColumn> LeafColumns(const FileMetaData& meta);

// Checks the schema tree (child counts that add up); InvalidArgument naming the fault.
Status ValidateSchema(const FileMetaData& meta);

// "text (BYTE_ARRAY STRING), id (BYTE_ARRAY STRING), score (DOUBLE)": the columns for messages.
std::string DescribeColumns(const FileMetaData& meta);

}  // namespace tokenmill::parquet
