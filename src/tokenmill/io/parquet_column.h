// Decoding one BYTE_ARRAY column chunk of a Parquet file, page by page.
//
// ColumnChunkReader streams the chunk's bytes (a ranged read of just that chunk), decodes each
// page header, decompresses one page at a time and yields the column's values in order, nulls
// included. Pages: DICTIONARY_PAGE, DATA_PAGE (v1), DATA_PAGE_V2; INDEX_PAGE and unknown page
// types are skipped by their size. Value encodings: PLAIN, PLAIN_DICTIONARY / RLE_DICTIONARY,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY; a chunk may change encoding from page to page (the
// dictionary fallback to PLAIN). Definition levels: RLE/bit-packed hybrid, or the deprecated
// BIT_PACKED in v1 pages. Memory: one compressed and one decompressed page, plus the dictionary.
// Thread-safety: a reader is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/io/parquet_format.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill::parquet {

// The RLE / bit-packed hybrid encoding (Encodings.md "RLE"), without a length prefix.
class RleDecoder {
 public:
  RleDecoder() = default;
  RleDecoder(const uint8_t* data, size_t size, int bit_width)
      : data_(data), size_(size), bit_width_(bit_width) {}
  // Next value; false if the data ends or is corrupt (then `corrupt()` says which).
  bool Next(uint32_t* value);
  bool corrupt() const { return corrupt_; }

 private:
  bool ReadHeader();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  int bit_width_ = 0;
  uint64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  uint64_t packed_left_ = 0;
  uint64_t packed_bit_ = 0;  // bit offset of the next packed value, from packed_begin_
  size_t packed_begin_ = 0;
  size_t packed_end_ = 0;
  bool corrupt_ = false;
};

// Decodes a DELTA_BINARY_PACKED run of exactly `count` values from the start of `data`; sets
// *consumed to its length in bytes. DataLoss if corrupt or if it holds another count.
Status DecodeDeltaBinaryPacked(std::string_view data, size_t count, std::vector<int64_t>* out,
                               size_t* consumed);

struct ColumnChunkOptions {
  int32_t codec = kUncompressed;
  int16_t max_definition_level = 0;
  uint64_t chunk_offset = 0;  // the chunk's first byte in the file (for messages)
  uint64_t chunk_size = 0;    // total_compressed_size
  // Largest page accepted (compressed or not); a larger page is an error.
  uint64_t max_page_bytes = uint64_t{512} << 20;
  // If true, a page whose data cannot be decoded is skipped, its values counted in
  // skipped_values(); otherwise it is an error.
  bool skip_bad_pages = false;
};

class ColumnChunkReader {
 public:
  ColumnChunkReader(std::unique_ptr<ReadStream> stream, const ColumnChunkOptions& options);

  // The next value of the chunk: returns true and sets *is_null / *value (valid until the next
  // call), or returns false at the end of the chunk. Errors describe the page ("page at byte
  // N: ..."). An error sticks.
  StatusOr<bool> Next(bool* is_null, std::string_view* value);

  uint64_t values_read() const { return values_read_; }  // nulls included, skipped excluded
  uint64_t skipped_values() const { return skipped_values_; }
  uint64_t bytes_in() const { return bytes_in_; }
  uint64_t bytes_decoded() const { return bytes_decoded_; }

 private:
  StatusOr<bool> NextImpl(bool* is_null, std::string_view* value);
  Status Fill(size_t need);   // buffers `need` bytes from buf_pos_ (or to the end)
  StatusOr<bool> ReadPage();  // false at the end of the chunk
  Status SetUpDataPage(std::string_view body, bool v2);
  Status LoadDictionary(std::string_view body);
  Status DecodeValue(std::string_view* value);
  std::string Where() const;

  std::unique_ptr<ReadStream> stream_;
  ColumnChunkOptions options_;
  Status status_;

  // Raw chunk bytes: buf_[buf_pos_, buf_.size()) is read but not consumed.
  std::string buf_;
  size_t buf_pos_ = 0;
  uint64_t consumed_ = 0;  // chunk bytes consumed before buf_pos_ (= offset of buf_pos_)
  bool stream_done_ = false;
  uint64_t page_offset_ = 0;  // chunk offset of the current page's header

  PageHeader header_;
  std::string page_;  // the decompressed page (v1: levels + values; v2: values)
  std::string levels_scratch_;

  // Dictionary.
  bool has_dictionary_ = false;
  std::string dict_page_;
  std::vector<std::string_view> dict_;

  // Current data page.
  int32_t encoding_ = kPlain;
  uint64_t slots_left_ = 0;  // values (nulls included) left in the page
  uint64_t slot_ = 0;
  std::vector<uint16_t> defs_;
  const char* vals_ = nullptr;  // value section
  size_t vals_size_ = 0;
  size_t vals_pos_ = 0;
  RleDecoder indices_;
  std::vector<int64_t> lengths_;
  std::vector<int64_t> prefixes_;
  size_t value_index_ = 0;
  std::string prev_, cur_;

  uint64_t values_read_ = 0;
  uint64_t skipped_values_ = 0;
  uint64_t bytes_in_ = 0;
  uint64_t bytes_decoded_ = 0;
};

}  // namespace tokenmill::parquet
