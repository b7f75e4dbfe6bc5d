#include "tokenmill/io/parquet_column.h"

#include <algorithm>
#include <cstring>

#include "tokenmill/io/parquet_codec.h"

namespace tokenmill::parquet {
namespace {

// Bytes read ahead from the chunk's stream at a time.
constexpr size_t kReadAhead = size_t{64} << 10;
// A page header larger than this is corrupt (statistics of long strings stay far below).
constexpr size_t kMaxPageHeaderBytes = size_t{16} << 20;

bool ReadUleb(const uint8_t* p, size_t n, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= n) return false;
    const uint8_t b = p[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

// `bits` (<= 64) bits starting at bit `bit` of p[0, n), LSB first. False if they run past n.
bool ReadBits(const uint8_t* p, size_t n, uint64_t bit, int bits, uint64_t* out) {
  if (bits == 0) {
    *out = 0;
    return true;
  }
  const uint64_t end_bit = bit + static_cast<uint64_t>(bits);
  if ((end_bit + 7) / 8 > n) return false;
  uint64_t v = 0;
  int got = 0;
  size_t byte = bit / 8;
  int shift = static_cast<int>(bit % 8);
  while (got < bits) {
    const uint64_t b = p[byte] >> shift;
    v |= b << got;
    got += 8 - shift;
    shift = 0;
    ++byte;
  }
  if (bits < 64) v &= (uint64_t{1} << bits) - 1;
  *out = v;
  return true;
}

uint32_t Le32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // little-endian hosts only (as the rest of tokenmill)
}

int BitWidth(uint32_t max_value) {
  int w = 0;
  while (max_value > 0) {
    ++w;
    max_value >>= 1;
  }
  return w;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// RleDecoder

bool RleDecoder::ReadHeader() {
  uint64_t header = 0;
  if (!ReadUleb(data_, size_, &pos_, &header)) {
    if (pos_ < size_) corrupt_ = true;
    return false;
  }
  if (header & 1) {
    const uint64_t groups = header >> 1;
    const uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    if (groups > (uint64_t{1} << 40)) {
      corrupt_ = true;
      return false;
    }
    packed_left_ = groups * 8;
    packed_begin_ = pos_;
    packed_bit_ = 0;
    // The last run may be cut short: values past the data are an error only when read.
    packed_end_ = static_cast<size_t>(std::min<uint64_t>(size_ - pos_, bytes)) + pos_;
    pos_ = packed_end_;
  } else {
    rle_left_ = header >> 1;
    const int bytes = (bit_width_ + 7) / 8;
    if (static_cast<size_t>(bytes) > size_ - pos_) {
      corrupt_ = true;
      return false;
    }
    uint32_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
    pos_ += bytes;
    if (bit_width_ < 32 && (v >> bit_width_) != 0) {
      corrupt_ = true;
      return false;
    }
    rle_value_ = v;
  }
  return true;
}

bool RleDecoder::Next(uint32_t* value) {
  if (bit_width_ < 0 || bit_width_ > 32) {
    corrupt_ = true;
    return false;
  }
  while (rle_left_ == 0 && packed_left_ == 0) {
    if (corrupt_ || pos_ >= size_) return false;
    if (!ReadHeader()) return false;
  }
  if (rle_left_ > 0) {
    --rle_left_;
    *value = rle_value_;
    return true;
  }
  uint64_t v = 0;
  if (!ReadBits(data_ + packed_begin_, packed_end_ - packed_begin_, packed_bit_, bit_width_, &v)) {
    corrupt_ = true;
    return false;
  }
  packed_bit_ += static_cast<uint64_t>(bit_width_);
  --packed_left_;
  *value = static_cast<uint32_t>(v);
  return true;
}

// ---------------------------------------------------------------------------------------------
// DELTA_BINARY_PACKED

Status DecodeDeltaBinaryPacked(std::string_view data, size_t count, std::vector<int64_t>* out,
                               size_t* consumed) {
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  const size_t n = data.size();
  size_t pos = 0;
  uint64_t block_size = 0, miniblocks = 0, total = 0, first = 0;
  if (!ReadUleb(p, n, &pos, &block_size) || !ReadUleb(p, n, &pos, &miniblocks) ||
      !ReadUleb(p, n, &pos, &total) || !ReadUleb(p, n, &pos, &first)) {
    return Status::DataLoss("DELTA_BINARY_PACKED header cut short");
  }
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1u << 20) || miniblocks == 0 ||
      block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    return Status::DataLoss("DELTA_BINARY_PACKED header invalid (block size " +
                            std::to_string(block_size) + ", " + std::to_string(miniblocks) +
                            " miniblocks)");
  }
  if (total != count) {
    return Status::DataLoss("DELTA_BINARY_PACKED holds " + std::to_string(total) +
                            " values where the page needs " + std::to_string(count));
  }
  out->clear();
  if (total == 0) {
    *consumed = pos;
    return Status::Ok();
  }
  out->reserve(count);
  uint64_t last = (first >> 1) ^ (~(first & 1) + 1);  // zigzag, two's complement wrap
  out->push_back(static_cast<int64_t>(last));
  const uint64_t per_mini = block_size / miniblocks;
  while (out->size() < total) {
    uint64_t min_delta_zz = 0;
    if (!ReadUleb(p, n, &pos, &min_delta_zz)) {
      return Status::DataLoss("DELTA_BINARY_PACKED block header cut short");
    }
    const uint64_t min_delta = (min_delta_zz >> 1) ^ (~(min_delta_zz & 1) + 1);
    if (miniblocks > n - pos) return Status::DataLoss("DELTA_BINARY_PACKED bit widths cut short");
    const uint8_t* widths = p + pos;
    pos += miniblocks;
    for (uint64_t m = 0; m < miniblocks && out->size() < total; ++m) {
      const int w = widths[m];
      if (w > 64) return Status::DataLoss("DELTA_BINARY_PACKED bit width above 64");
      const uint64_t bytes = per_mini * static_cast<uint64_t>(w) / 8;
      if (bytes > n - pos) return Status::DataLoss("DELTA_BINARY_PACKED miniblock cut short");
      for (uint64_t i = 0; i < per_mini && out->size() < total; ++i) {
        uint64_t delta = 0;
        ReadBits(p + pos, bytes, i * static_cast<uint64_t>(w), w, &delta);
        last = last + min_delta + delta;
        out->push_back(static_cast<int64_t>(last));
      }
      pos += bytes;
    }
  }
  *consumed = pos;
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// ColumnChunkReader

ColumnChunkReader::ColumnChunkReader(std::unique_ptr<ReadStream> stream,
                                     const ColumnChunkOptions& options)
    : stream_(std::move(stream)), options_(options) {}

std::string ColumnChunkReader::Where() const {
  return "page at byte " + std::to_string(options_.chunk_offset + page_offset_);
}

Status ColumnChunkReader::Fill(size_t need) {
  if (buf_.size() - buf_pos_ >= need || stream_done_) return Status::Ok();
  // Move the unconsumed tail to the front, then read until `need` bytes are buffered.
  if (buf_pos_ > 0) {
    buf_.erase(0, buf_pos_);
    consumed_ += buf_pos_;
    buf_pos_ = 0;
  }
  const uint64_t left_in_chunk = options_.chunk_size - consumed_ - buf_.size();
  const size_t want = static_cast<size_t>(
      std::min<uint64_t>(std::max(need, kReadAhead), buf_.size() + left_in_chunk));
  size_t have = buf_.size();
  buf_.resize(want);
  while (have < want) {
    TM_ASSIGN_OR_RETURN(const size_t got, stream_->Read(buf_.data() + have, want - have));
    if (got == 0) {
      stream_done_ = true;
      break;
    }
    have += got;
    bytes_in_ += got;
  }
  buf_.resize(have);
  if (have == buf_.size() && consumed_ + have >= options_.chunk_size) stream_done_ = true;
  return Status::Ok();
}

StatusOr<bool> ColumnChunkReader::Next(bool* is_null, std::string_view* value) {
  if (!status_.ok()) return status_;
  StatusOr<bool> r = NextImpl(is_null, value);
  if (!r.ok()) status_ = r.status();
  return r;
}

StatusOr<bool> ColumnChunkReader::NextImpl(bool* is_null, std::string_view* value) {
  while (slots_left_ == 0) {
    TM_ASSIGN_OR_RETURN(const bool more, ReadPage());
    if (!more) return false;
  }
  const bool null = !defs_.empty() && defs_[slot_] < options_.max_definition_level;
  ++slot_;
  --slots_left_;
  ++values_read_;
  *is_null = null;
  if (null) return true;
  Status s = DecodeValue(value);
  if (s.ok()) return true;
  if (!options_.skip_bad_pages || s.Is(StatusCode::kUnimplemented)) {
    return s.WithContext(Where());
  }
  // Skip the rest of the page: this value and the ones after it.
  skipped_values_ += slots_left_ + 1;
  --values_read_;
  slots_left_ = 0;
  return NextImpl(is_null, value);
}

StatusOr<bool> ColumnChunkReader::ReadPage() {
  for (;;) {
    // The header.
    TM_RETURN_IF_ERROR(Fill(1));
    if (buf_pos_ >= buf_.size()) {
      if (consumed_ + buf_pos_ < options_.chunk_size) {
        return Status::DataLoss("the column chunk ends at byte " +
                                std::to_string(options_.chunk_offset + consumed_ + buf_pos_) +
                                ", before its " + std::to_string(options_.chunk_size) +
                                " bytes (truncated file?)");
      }
      return false;
    }
    page_offset_ = consumed_ + buf_pos_;
    size_t header_size = 0;
    bool truncated = false;
    StatusOr<PageHeader> header = Status::Internal("no page header");
    for (size_t need = 256;; need *= 4) {
      TM_RETURN_IF_ERROR(Fill(need));
      header = ParsePageHeader(std::string_view(buf_).substr(buf_pos_), &header_size, &truncated);
      if (header.ok() || !truncated) break;
      if (stream_done_ || need >= kMaxPageHeaderBytes) break;
    }
    if (!header.ok()) {
      if (truncated && stream_done_) {
        return Status::DataLoss("the column chunk ends inside a page header (truncated file?)")
            .WithContext(Where());
      }
      return header.status().WithContext(Where());
    }
    header_ = *std::move(header);
    buf_pos_ += header_size;
    const uint64_t csize = static_cast<uint64_t>(header_.compressed_page_size);
    const uint64_t usize = static_cast<uint64_t>(header_.uncompressed_page_size);
    if (csize > options_.max_page_bytes || usize > options_.max_page_bytes) {
      return Status::InvalidArgument("a page of " + std::to_string(std::max(csize, usize)) +
                                     " bytes is larger than the limit of " +
                                     std::to_string(options_.max_page_bytes) +
                                     " (raise max_document_bytes if the file is right)")
          .WithContext(Where());
    }
    if (csize > options_.chunk_size - (consumed_ + buf_pos_)) {
      return Status::DataLoss("the page's " + std::to_string(csize) +
                              " bytes run past the end of the column chunk")
          .WithContext(Where());
    }
    TM_RETURN_IF_ERROR(Fill(static_cast<size_t>(csize)));
    if (buf_.size() - buf_pos_ < csize) {
      return Status::DataLoss("the column chunk ends inside a page (truncated file?)")
          .WithContext(Where());
    }
    const std::string_view body(buf_.data() + buf_pos_, static_cast<size_t>(csize));
    buf_pos_ += static_cast<size_t>(csize);

    Status s;
    switch (header_.type) {
      case kDictionaryPage:
        if (!header_.dictionary_page.has_value()) {
          return Status::DataLoss("a dictionary page without its header").WithContext(Where());
        }
        s = LoadDictionary(body);
        if (!s.ok()) {
          if (!options_.skip_bad_pages || s.Is(StatusCode::kUnimplemented)) {
            return s.WithContext(Where());
          }
          has_dictionary_ = false;  // its pages fail (and are skipped) in turn
        }
        continue;
      case kDataPage:
      case kDataPageV2: {
        const bool v2 = header_.type == kDataPageV2;
        if ((v2 && !header_.data_page_v2.has_value()) || (!v2 && !header_.data_page.has_value())) {
          return Status::DataLoss("a data page without its header").WithContext(Where());
        }
        const int32_t n = v2 ? header_.data_page_v2->num_values : header_.data_page->num_values;
        if (n < 0) return Status::DataLoss("a negative value count").WithContext(Where());
        s = SetUpDataPage(body, v2);
        if (s.ok()) {
          if (slots_left_ == 0) continue;
          return true;
        }
        if (!options_.skip_bad_pages || s.Is(StatusCode::kUnimplemented)) {
          return s.WithContext(Where());
        }
        skipped_values_ += static_cast<uint64_t>(n);
        slots_left_ = 0;
        continue;
      }
      default:
        continue;  // INDEX_PAGE or a page type from a later format: skipped
    }
  }
}

Status ColumnChunkReader::LoadDictionary(std::string_view body) {
  const int32_t enc = header_.dictionary_page->encoding;
  if (enc != kPlain && enc != kPlainDictionary) {
    return Status::Unimplemented("dictionary page encoding " + EncodingName(enc) +
                                 " is not supported (PLAIN or PLAIN_DICTIONARY)");
  }
  has_dictionary_ = false;
  dict_.clear();
  TM_RETURN_IF_ERROR(DecompressPage(
      options_.codec, body, static_cast<size_t>(header_.uncompressed_page_size), &dict_page_));
  bytes_decoded_ += dict_page_.size();
  const int32_t n = header_.dictionary_page->num_values;
  if (n < 0 || static_cast<uint64_t>(n) > dict_page_.size() / 4 + 1) {
    return Status::DataLoss("dictionary page claims " + std::to_string(n) + " values");
  }
  dict_.reserve(static_cast<size_t>(n));
  size_t pos = 0;
  for (int32_t i = 0; i < n; ++i) {
    if (dict_page_.size() - pos < 4) {
      return Status::DataLoss("dictionary page ends after " + std::to_string(i) + " of " +
                              std::to_string(n) + " values");
    }
    const uint32_t len = Le32(dict_page_.data() + pos);
    pos += 4;
    if (len > dict_page_.size() - pos) {
      return Status::DataLoss("dictionary value " + std::to_string(i) + " runs past the page");
    }
    dict_.emplace_back(dict_page_.data() + pos, len);
    pos += len;
  }
  has_dictionary_ = true;
  return Status::Ok();
}

Status ColumnChunkReader::SetUpDataPage(std::string_view body, bool v2) {
  slots_left_ = 0;
  slot_ = 0;
  defs_.clear();
  const int16_t max_def = options_.max_definition_level;
  const int def_width = BitWidth(static_cast<uint32_t>(max_def));
  uint64_t num_values = 0;
  std::string_view values;

  if (v2) {
    const DataPageHeaderV2& h = *header_.data_page_v2;
    num_values = static_cast<uint64_t>(h.num_values);
    encoding_ = h.encoding;
    if (h.definition_levels_byte_length < 0 || h.repetition_levels_byte_length < 0 ||
        static_cast<uint64_t>(h.definition_levels_byte_length) +
                static_cast<uint64_t>(h.repetition_levels_byte_length) >
            body.size()) {
      return Status::DataLoss("DATA_PAGE_V2 level lengths exceed the page");
    }
    const size_t rep_len = static_cast<size_t>(h.repetition_levels_byte_length);
    const size_t def_len = static_cast<size_t>(h.definition_levels_byte_length);
    // Levels are never compressed in v2; keep them before the body is decompressed over.
    levels_scratch_.assign(body.substr(rep_len, def_len));
    const std::string_view rest = body.substr(rep_len + def_len);
    const size_t usize = static_cast<size_t>(header_.uncompressed_page_size);
    if (usize < rep_len + def_len) return Status::DataLoss("DATA_PAGE_V2 sizes inconsistent");
    if (h.is_compressed && options_.codec != kUncompressed) {
      TM_RETURN_IF_ERROR(DecompressPage(options_.codec, rest, usize - rep_len - def_len, &page_));
    } else {
      page_.assign(rest);
    }
    bytes_decoded_ += page_.size() + rep_len + def_len;
    if (max_def > 0) {
      RleDecoder levels(reinterpret_cast<const uint8_t*>(levels_scratch_.data()),
                        levels_scratch_.size(), def_width);
      defs_.resize(static_cast<size_t>(num_values));
      for (uint64_t i = 0; i < num_values; ++i) {
        uint32_t v = 0;
        if (!levels.Next(&v) || v > static_cast<uint32_t>(max_def)) {
          return Status::DataLoss("definition levels corrupt or short (" + std::to_string(i) +
                                  " of " + std::to_string(num_values) + ")");
        }
        defs_[i] = static_cast<uint16_t>(v);
      }
    }
    values = page_;
  } else {
    const DataPageHeader& h = *header_.data_page;
    num_values = static_cast<uint64_t>(h.num_values);
    encoding_ = h.encoding;
    TM_RETURN_IF_ERROR(DecompressPage(options_.codec, body,
                                      static_cast<size_t>(header_.uncompressed_page_size), &page_));
    bytes_decoded_ += page_.size();
    values = page_;
    if (max_def > 0) {
      if (num_values > values.size() * 8 + 1024 * 1024) {
        return Status::DataLoss("page claims " + std::to_string(num_values) + " values");
      }
      defs_.resize(static_cast<size_t>(num_values));
      if (h.definition_level_encoding == kRle) {
        if (values.size() < 4) return Status::DataLoss("definition levels cut short");
        const uint32_t len = Le32(values.data());
        if (len > values.size() - 4) return Status::DataLoss("definition levels exceed the page");
        RleDecoder levels(reinterpret_cast<const uint8_t*>(values.data() + 4), len, def_width);
        for (uint64_t i = 0; i < num_values; ++i) {
          uint32_t v = 0;
          if (!levels.Next(&v) || v > static_cast<uint32_t>(max_def)) {
            return Status::DataLoss("definition levels corrupt or short (" + std::to_string(i) +
                                    " of " + std::to_string(num_values) + ")");
          }
          defs_[i] = static_cast<uint16_t>(v);
        }
        values.remove_prefix(4 + len);
      } else if (h.definition_level_encoding == kBitPacked) {
        // Deprecated BIT_PACKED levels: MSB first, no length prefix.
        const uint64_t bytes = (num_values * static_cast<uint64_t>(def_width) + 7) / 8;
        if (bytes > values.size()) return Status::DataLoss("definition levels exceed the page");
        const auto* p = reinterpret_cast<const uint8_t*>(values.data());
        for (uint64_t i = 0; i < num_values; ++i) {
          uint32_t v = 0;
          for (int b = 0; b < def_width; ++b) {
            const uint64_t bit = i * static_cast<uint64_t>(def_width) + static_cast<uint64_t>(b);
            v = (v << 1) | ((p[bit / 8] >> (7 - bit % 8)) & 1);
          }
          if (v > static_cast<uint32_t>(max_def)) {
            return Status::DataLoss("definition level above the maximum");
          }
          defs_[i] = static_cast<uint16_t>(v);
        }
        values.remove_prefix(static_cast<size_t>(bytes));
      } else {
        return Status::Unimplemented("definition level encoding " +
                                     EncodingName(h.definition_level_encoding) +
                                     " is not supported (RLE or BIT_PACKED)");
      }
    }
  }

  uint64_t non_null = num_values;
  if (max_def > 0) {
    non_null = 0;
    for (uint16_t d : defs_) non_null += d == max_def;
  }
  vals_ = values.data();
  vals_size_ = values.size();
  vals_pos_ = 0;
  value_index_ = 0;
  switch (encoding_) {
    case kPlain:
      break;
    case kPlainDictionary:
    case kRleDictionary: {
      if (!has_dictionary_) {
        return Status::DataLoss("a dictionary-encoded page but no (valid) dictionary page");
      }
      if (non_null > 0) {
        if (values.empty()) return Status::DataLoss("dictionary indices missing");
        const int width = static_cast<uint8_t>(values[0]);
        if (width > 32) return Status::DataLoss("dictionary index bit width above 32");
        indices_ = RleDecoder(reinterpret_cast<const uint8_t*>(values.data() + 1),
                              values.size() - 1, width);
      }
      break;
    }
    case kDeltaLengthByteArray: {
      size_t used = 0;
      TM_RETURN_IF_ERROR(
          DecodeDeltaBinaryPacked(values, static_cast<size_t>(non_null), &lengths_, &used));
      vals_pos_ = used;
      break;
    }
    case kDeltaByteArray: {
      size_t used = 0;
      TM_RETURN_IF_ERROR(
          DecodeDeltaBinaryPacked(values, static_cast<size_t>(non_null), &prefixes_, &used));
      size_t used2 = 0;
      TM_RETURN_IF_ERROR(DecodeDeltaBinaryPacked(values.substr(used), static_cast<size_t>(non_null),
                                                 &lengths_, &used2));
      vals_pos_ = used + used2;
      // prev_ carries over from the previous page: old parquet-mr writers did not restart the
      // prefixes at a page boundary (PARQUET-246); newer ones start with a zero prefix.
      break;
    }
    default:
      return Status::Unimplemented("value encoding " + EncodingName(encoding_) +
                                   " is not supported for a string column (supported: PLAIN, "
                                   "PLAIN_DICTIONARY, RLE_DICTIONARY, DELTA_LENGTH_BYTE_ARRAY, "
                                   "DELTA_BYTE_ARRAY)");
  }
  slots_left_ = num_values;
  return Status::Ok();
}

Status ColumnChunkReader::DecodeValue(std::string_view* value) {
  switch (encoding_) {
    case kPlain: {
      if (vals_size_ - vals_pos_ < 4) return Status::DataLoss("PLAIN values end early");
      const uint32_t len = Le32(vals_ + vals_pos_);
      vals_pos_ += 4;
      if (len > vals_size_ - vals_pos_) {
        return Status::DataLoss("a PLAIN value of " + std::to_string(len) +
                                " bytes runs past the page");
      }
      *value = std::string_view(vals_ + vals_pos_, len);
      vals_pos_ += len;
      return Status::Ok();
    }
    case kPlainDictionary:
    case kRleDictionary: {
      uint32_t index = 0;
      if (!indices_.Next(&index)) return Status::DataLoss("dictionary indices end early");
      if (index >= dict_.size()) {
        return Status::DataLoss("dictionary index " + std::to_string(index) +
                                " of a dictionary of " + std::to_string(dict_.size()));
      }
      *value = dict_[index];
      return Status::Ok();
    }
    case kDeltaLengthByteArray: {
      if (value_index_ >= lengths_.size()) return Status::DataLoss("more values than lengths");
      const int64_t len = lengths_[value_index_++];
      if (len < 0 || static_cast<uint64_t>(len) > vals_size_ - vals_pos_) {
        return Status::DataLoss("a DELTA_LENGTH_BYTE_ARRAY length runs past the page");
      }
      *value = std::string_view(vals_ + vals_pos_, static_cast<size_t>(len));
      vals_pos_ += static_cast<size_t>(len);
      return Status::Ok();
    }
    case kDeltaByteArray: {
      if (value_index_ >= lengths_.size()) return Status::DataLoss("more values than lengths");
      const int64_t prefix = prefixes_[value_index_];
      const int64_t len = lengths_[value_index_++];
      if (prefix < 0 || static_cast<uint64_t>(prefix) > prev_.size()) {
        return Status::DataLoss("a DELTA_BYTE_ARRAY prefix longer than the previous value");
      }
      if (len < 0 || static_cast<uint64_t>(len) > vals_size_ - vals_pos_) {
        return Status::DataLoss("a DELTA_BYTE_ARRAY suffix runs past the page");
      }
      cur_.assign(prev_, 0, static_cast<size_t>(prefix));
      cur_.append(vals_ + vals_pos_, static_cast<size_t>(len));
      vals_pos_ += static_cast<size_t>(len);
      prev_.swap(cur_);
      *value = prev_;
      return Status::Ok();
    }
    default:
      return Status::Internal("unreachable encoding");
  }
}

}  // namespace tokenmill::parquet
