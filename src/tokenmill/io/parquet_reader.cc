#include "tokenmill/io/parquet_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "tokenmill/base/utf8.h"
#include "tokenmill/io/jsonl_text.h"
#include "tokenmill/io/parquet_codec.h"
#include "tokenmill/io/parquet_column.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/string_stream.h"

namespace tokenmill {
namespace {

using parquet::ColumnChunk;
using parquet::FileMetaData;
using parquet::LeafColumn;
using parquet::RowGroup;

// A footer larger than this is refused (real ones are kilobytes to a few megabytes).
constexpr uint64_t kMaxFooterBytes = uint64_t{256} << 20;

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) out += '.';
    out += path[i];
  }
  return out;
}

uint32_t Le32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Finds the leaf column `path`; the errors list the file's columns.
StatusOr<LeafColumn> ResolveColumn(const FileMetaData& meta, const std::vector<std::string>& path,
                                   std::string_view url, std::string_view text_field) {
  const std::vector<LeafColumn> leaves = parquet::LeafColumns(meta);
  const std::string columns = parquet::DescribeColumns(meta);
  for (const LeafColumn& leaf : leaves) {
    if (leaf.path != path) continue;
    if (leaf.max_repetition_level > 0) {
      return Status::InvalidArgument(
          std::string(url) + ": column \"" + std::string(text_field) +
          "\" is repeated (a list), not one string per row; the file's columns: " + columns);
    }
    if (leaf.type != parquet::kByteArray || !leaf.is_string) {
      return Status::InvalidArgument(std::string(url) + ": column \"" + std::string(text_field) +
                                     "\" is " + parquet::PhysicalTypeName(leaf.type) +
                                     (leaf.type == parquet::kByteArray ? " (not text)" : "") +
                                     ", not a string; set text_field to a string column; the "
                                     "file's columns: " +
                                     columns);
    }
    return leaf;
  }
  for (const LeafColumn& leaf : leaves) {
    if (leaf.path.size() > path.size() && std::equal(path.begin(), path.end(), leaf.path.begin())) {
      return Status::InvalidArgument(std::string(url) + ": column \"" + std::string(text_field) +
                                     "\" is a group (struct); name one of its string fields "
                                     "(\"" +
                                     JoinPath(leaf.path) +
                                     "\", ...); the file's columns: " + columns);
    }
  }
  return Status::InvalidArgument(std::string(url) + ": no column \"" + std::string(text_field) +
                                 "\"; set [input] text_field to the column that holds the text "
                                 "(a dotted path reaches a field of a struct); the file's "
                                 "columns: " +
                                 columns);
}

class ParquetReader final : public StickyErrorReader {
 public:
  ParquetReader(Storage& storage, std::string url, ParquetFooter footer, LeafColumn column,
                std::vector<size_t> row_groups, const ReaderOptions& options)
      : storage_(storage),
        url_(std::move(url)),
        footer_(std::move(footer)),
        column_(std::move(column)),
        row_groups_(std::move(row_groups)),
        options_(options) {
    stats_.bytes_in = footer_.bytes_read;
    // Rows before each row group, for 1-based row numbers in the file.
    first_row_.resize(footer_.meta.row_groups.size() + 1);
    for (size_t i = 0; i < footer_.meta.row_groups.size(); ++i) {
      first_row_[i + 1] = first_row_[i] + static_cast<uint64_t>(std::max<int64_t>(
                                              0, footer_.meta.row_groups[i].num_rows));
    }
  }

  const ReaderStats& stats() const override {
    stats_.bytes_in = footer_.bytes_read + done_bytes_in_ +
                      (chunk_ && !chunk_from_tail_ ? chunk_->bytes_in() : 0);
    stats_.bytes_decoded = done_bytes_decoded_ + (chunk_ ? chunk_->bytes_decoded() : 0);
    return stats_;
  }

 private:
  std::string Where() const {
    return url_ + " row group " + std::to_string(current_) + " column " + JoinPath(column_.path);
  }

  Status OpenChunk(size_t rg_index) {
    const RowGroup& rg = footer_.meta.row_groups[rg_index];
    current_ = rg_index;
    row_in_group_ = 0;
    if (column_.leaf_index >= rg.columns.size()) {
      return Status::DataLoss(Where() + ": the row group has " + std::to_string(rg.columns.size()) +
                              " column chunks, fewer than the schema's columns");
    }
    const ColumnChunk& cc = rg.columns[column_.leaf_index];
    if (cc.encrypted) {
      return Status::Unimplemented(Where() + ": the column is encrypted (not supported)");
    }
    if (!cc.file_path.empty()) {
      return Status::Unimplemented(Where() + ": the column chunk is in another file (\"" +
                                   cc.file_path + "\"), which is not supported");
    }
    if (!cc.has_meta_data) return Status::DataLoss(Where() + ": the column chunk has no metadata");
    if (!cc.path_in_schema.empty() && cc.path_in_schema != column_.path) {
      return Status::DataLoss(Where() + ": the column chunk is for \"" +
                              JoinPath(cc.path_in_schema) + "\", not for this column");
    }
    if (cc.type != parquet::kByteArray) {
      return Status::DataLoss(Where() + ": the column chunk holds " +
                              parquet::PhysicalTypeName(cc.type) + ", not BYTE_ARRAY");
    }
    if (!parquet::IsSupportedCodec(cc.codec)) {
      return Status::Unimplemented(Where() + ": compression codec " + parquet::CodecName(cc.codec) +
                                   " is not supported (supported: UNCOMPRESSED, SNAPPY, GZIP, "
                                   "BROTLI, ZSTD, LZ4_RAW, LZ4); rewrite the file with one of "
                                   "these");
    }
    const int64_t start = cc.Start();
    if (start < 4 || cc.total_compressed_size < 0 ||
        static_cast<uint64_t>(start) > footer_.footer_offset ||
        static_cast<uint64_t>(cc.total_compressed_size) >
            footer_.footer_offset - static_cast<uint64_t>(start)) {
      return Status::DataLoss(
          Where() + ": the column chunk's bytes [" + std::to_string(start) + ", +" +
          std::to_string(cc.total_compressed_size) + ") are not inside the file's data (" +
          std::to_string(footer_.footer_offset) + " bytes before the footer); the file is corrupt");
    }
    parquet::ColumnChunkOptions o;
    o.codec = cc.codec;
    o.max_definition_level = column_.max_definition_level;
    o.chunk_offset = static_cast<uint64_t>(start);
    o.chunk_size = static_cast<uint64_t>(cc.total_compressed_size);
    o.max_page_bytes = options_.max_document_bytes + (uint64_t{64} << 20);
    o.skip_bad_pages = options_.skip_bad_records;
    expected_values_ = static_cast<uint64_t>(std::max<int64_t>(0, rg.num_rows));
    std::unique_ptr<ReadStream> stream;
    chunk_from_tail_ = o.chunk_offset >= footer_.tail_offset &&
                       o.chunk_offset + o.chunk_size <= footer_.tail_offset + footer_.tail.size();
    if (chunk_from_tail_) {
      stream = std::make_unique<StringReadStream>(
          footer_.tail.substr(o.chunk_offset - footer_.tail_offset, o.chunk_size));
    } else {
      TM_ASSIGN_OR_RETURN(stream, storage_.OpenRead(url_, o.chunk_offset, o.chunk_size));
    }
    chunk_ = std::make_unique<parquet::ColumnChunkReader>(std::move(stream), o);
    return Status::Ok();
  }

  Status CloseChunk() {
    const uint64_t got = chunk_->values_read() + chunk_->skipped_values();
    if (got != expected_values_) {
      return Status::DataLoss(Where() + ": the column chunk holds " + std::to_string(got) +
                              " values but the row group has " + std::to_string(expected_values_) +
                              " rows; the file is corrupt");
    }
    stats_.skipped_records += chunk_->skipped_values();
    if (!chunk_from_tail_) done_bytes_in_ += chunk_->bytes_in();
    done_bytes_decoded_ += chunk_->bytes_decoded();
    chunk_.reset();
    return Status::Ok();
  }

  StatusOr<bool> ReadDocument(Document* doc) override {
    for (;;) {
      if (!chunk_) {
        if (next_ >= row_groups_.size()) return false;
        TM_RETURN_IF_ERROR(OpenChunk(row_groups_[next_++]));
      }
      bool is_null = false;
      std::string_view value;
      StatusOr<bool> got = chunk_->Next(&is_null, &value);
      if (!got.ok()) return got.status().WithContext(Where());
      if (!*got) {
        TM_RETURN_IF_ERROR(CloseChunk());
        continue;
      }
      const uint64_t row = first_row_[current_] + row_in_group_ + 1;
      ++row_in_group_;
      ++stats_.lines;
      if (is_null || value.empty()) {
        ++stats_.empty_documents;
        continue;
      }
      if (value.size() > options_.max_document_bytes) {
        if (options_.skip_bad_records) {
          ++stats_.skipped_records;
          continue;
        }
        return Status::InvalidArgument(Where() + " row " + std::to_string(row) + ": a text of " +
                                       std::to_string(value.size()) +
                                       " bytes is longer than max_document_bytes (" +
                                       std::to_string(options_.max_document_bytes) +
                                       "); set on_bad_record = \"skip\" to skip such rows");
      }
      const size_t bad = FindInvalidUtf8(value);
      if (bad == std::string_view::npos) {
        doc->text.assign(value);
      } else {
        if (options_.strict_utf8) {
          return Status::DataLoss(
              Where() + " row " + std::to_string(row) + ": invalid UTF-8 at byte " +
              std::to_string(bad + 1) +
              " of the text; fix the input, or set strict_utf8 = false to " +
              (options_.invalid_utf8 == InvalidUtf8::kDrop ? "drop" : "replace") +
              " invalid bytes");
        }
        doc->text.clear();
        stats_.invalid_utf8_bytes += AppendValidUtf8(value, options_.invalid_utf8, &doc->text);
        if (doc->text.empty()) {
          ++stats_.empty_documents;
          continue;
        }
      }
      doc->line_number = row;
      doc->offset = static_cast<uint64_t>(footer_.meta.row_groups[current_].Start());
      ++stats_.documents;
      return true;
    }
  }

  Storage& storage_;
  std::string url_;
  ParquetFooter footer_;
  LeafColumn column_;
  std::vector<size_t> row_groups_;
  ReaderOptions options_;
  std::vector<uint64_t> first_row_;
  size_t next_ = 0;
  size_t current_ = 0;
  uint64_t row_in_group_ = 0;
  uint64_t expected_values_ = 0;
  std::unique_ptr<parquet::ColumnChunkReader> chunk_;
  bool chunk_from_tail_ = false;
  uint64_t done_bytes_in_ = 0;
  uint64_t done_bytes_decoded_ = 0;
  mutable ReaderStats stats_;
};

}  // namespace

StatusOr<ParquetFooter> ReadParquetFooter(Storage& storage, std::string_view url, uint64_t size) {
  const std::string name(url);
  if (size < 12) {
    return Status::DataLoss(name + ": " + std::to_string(size) +
                            " bytes is too small for a Parquet file (truncated, or not Parquet)");
  }
  ParquetFooter f;
  f.file_size = size;
  const uint64_t tail_len = std::min(size, kParquetTailRead);
  TM_ASSIGN_OR_RETURN(std::string tail, storage.Read(url, size - tail_len, tail_len));
  f.bytes_read += tail.size();
  if (tail.size() != tail_len) {
    return Status::DataLoss(name + ": read " + std::to_string(tail.size()) + " bytes of its last " +
                            std::to_string(tail_len) + "; the file changed while being read?");
  }
  const std::string_view magic(tail.data() + tail.size() - 4, 4);
  if (magic == "PARE") {
    return Status::Unimplemented(name + ": the file is an encrypted Parquet file (not supported)");
  }
  if (magic != "PAR1") {
    return Status::DataLoss(name + ": not a Parquet file (it does not end with \"PAR1\"; " +
                            "truncated, or another format: check [input] format)");
  }
  const uint64_t footer_len = Le32(tail.data() + tail.size() - 8);
  if (footer_len + 12 > size || footer_len > kMaxFooterBytes) {
    return Status::DataLoss(name + ": corrupt Parquet footer length " + std::to_string(footer_len) +
                            " in a file of " + std::to_string(size) + " bytes");
  }
  f.footer_offset = size - 8 - footer_len;
  f.tail_offset = size - tail_len;
  std::string footer;
  if (footer_len + 8 <= tail.size()) {
    footer = tail.substr(tail.size() - 8 - footer_len, footer_len);
  } else {
    TM_ASSIGN_OR_RETURN(footer, storage.Read(url, f.footer_offset, footer_len));
    f.bytes_read += footer.size();
    if (footer.size() != footer_len) {
      return Status::DataLoss(name + ": the footer read came back short");
    }
  }
  if (tail_len == size && tail.compare(0, 4, "PAR1") != 0) {
    return Status::DataLoss(name + ": not a Parquet file (it does not start with \"PAR1\")");
  }
  auto meta = parquet::ParseFileMetaData(footer);
  if (!meta.ok()) {
    return meta.status().WithContext(name + " (footer at byte " + std::to_string(f.footer_offset) +
                                     ")");
  }
  f.meta = *std::move(meta);
  f.tail = std::move(tail);
  if (f.meta.encrypted_footer_algorithm) {
    return Status::Unimplemented(name + ": the file has encrypted columns (not supported)");
  }
  Status s = parquet::ValidateSchema(f.meta);
  if (!s.ok()) return s.WithContext(name);
  for (size_t i = 0; i < f.meta.row_groups.size(); ++i) {
    if (f.meta.row_groups[i].num_rows < 0) {
      return Status::DataLoss(name + " row group " + std::to_string(i) + ": negative row count");
    }
  }
  return f;
}

std::vector<StatusOr<ParquetFooter>> ReadParquetFooters(const std::vector<ObjectInfo>& objects,
                                                        int threads) {
  std::vector<StatusOr<ParquetFooter>> out(objects.size(), Status::Internal("not read"));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < objects.size(); i = next++) {
      auto storage = StorageFor(objects[i].url);
      if (!storage.ok()) {
        out[i] = storage.status();
        continue;
      }
      out[i] = ReadParquetFooter(**storage, objects[i].url, objects[i].size);
      if (out[i].ok()) {
        out[i]->tail.clear();
        out[i]->tail.shrink_to_fit();
      }
    }
  };
  const size_t n = std::min<size_t>(static_cast<size_t>(std::max(threads, 1)), objects.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < n; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

Status CheckParquetColumn(const ParquetFooter& footer, std::string_view url,
                          std::string_view text_field) {
  TM_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitFieldPath(text_field));
  return ResolveColumn(footer.meta, path, url, text_field).status();
}

std::vector<std::pair<uint64_t, uint64_t>> ParquetTaskRanges(const ParquetFooter& footer,
                                                             uint64_t task_size) {
  const auto& groups = footer.meta.row_groups;
  std::vector<uint64_t> starts;
  bool ordered = true;
  for (const RowGroup& rg : groups) {
    if (rg.num_rows == 0) continue;  // empty row groups hold nothing to read
    const int64_t s = rg.Start();
    if (s < 0 || static_cast<uint64_t>(s) >= footer.footer_offset ||
        (!starts.empty() && static_cast<uint64_t>(s) <= starts.back())) {
      ordered = false;
      break;
    }
    starts.push_back(static_cast<uint64_t>(s));
  }
  if (!ordered || starts.size() <= 1) return {{0, footer.file_size}};
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t begin = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const uint64_t next = i + 1 < starts.size() ? starts[i + 1] : footer.file_size;
    // Close the range before row group i+1 when adding it would exceed task_size.
    if (i + 1 < starts.size()) {
      const uint64_t after = i + 2 < starts.size() ? starts[i + 2] : footer.file_size;
      if (after - begin > task_size) {
        ranges.emplace_back(begin, next);
        begin = next;
      }
    } else {
      ranges.emplace_back(begin, next);
    }
  }
  return ranges;
}

StatusOr<std::unique_ptr<DocumentReader>> OpenParquetReader(Storage& storage,
                                                            const InputRange& range,
                                                            const ReaderOptions& options) {
  if (range.end < range.begin) {
    return Status::InvalidArgument(range.url + ": invalid byte range");
  }
  if (options.max_document_bytes == 0) {
    return Status::InvalidArgument(range.url + ": max_document_bytes must be positive");
  }
  TM_ASSIGN_OR_RETURN(std::vector<std::string> path, SplitFieldPath(options.text_field));
  TM_ASSIGN_OR_RETURN(ObjectInfo info, storage.Stat(range.url));
  TM_ASSIGN_OR_RETURN(ParquetFooter footer, ReadParquetFooter(storage, range.url, info.size));
  TM_ASSIGN_OR_RETURN(LeafColumn column,
                      ResolveColumn(footer.meta, path, range.url, options.text_field));
  std::vector<size_t> groups;
  for (size_t i = 0; i < footer.meta.row_groups.size(); ++i) {
    const RowGroup& rg = footer.meta.row_groups[i];
    if (rg.num_rows == 0) continue;
    const uint64_t start = static_cast<uint64_t>(std::max<int64_t>(0, rg.Start()));
    if (start >= range.begin && start < range.end) groups.push_back(i);
  }
  // A whole-file range also reads row groups placed oddly (a start of 0 or past the end).
  if (range.begin == 0 && range.end >= info.size) {
    groups.clear();
    for (size_t i = 0; i < footer.meta.row_groups.size(); ++i) {
      if (footer.meta.row_groups[i].num_rows > 0) groups.push_back(i);
    }
  }
  return std::unique_ptr<DocumentReader>(std::make_unique<ParquetReader>(
      storage, range.url, std::move(footer), std::move(column), std::move(groups), options));
}

}  // namespace tokenmill
