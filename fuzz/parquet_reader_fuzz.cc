// Fuzz target: the "parquet" reader - the Thrift compact footer and page-header decoders, the
// codecs, levels and value encodings - on arbitrary bytes served by an in-memory storage.
// Flag byte: bit 0 replace (else drop) invalid UTF-8; bit 1 strict_utf8; bit 2 a small
// max_document_bytes (64); bit 3 skip_bad_records; bit 4 the dotted text_field "meta.body";
// bit 5 read the file as the ranges ParquetTaskRanges cuts (task size 1) instead of whole.
// Checks that every document is non-empty valid UTF-8, that errors name the file and that the
// stats agree with what was returned.

#include <cstdlib>
#include <cstring>

#include "tokenmill/base/utf8.h"
#include "tokenmill/io/parquet_reader.h"

namespace tokenmill {
namespace {

// A read-only storage of one object, "mem://fuzz.parquet".
class OneObjectStorage final : public Storage {
 public:
  explicit OneObjectStorage(std::string data) : data_(std::move(data)) {}

  StatusOr<std::string> Read(std::string_view, uint64_t offset, uint64_t length) override {
    if (offset > data_.size()) return std::string();
    return data_.substr(offset, std::min<uint64_t>(length, data_.size() - offset));
  }
  StatusOr<VersionedData> ReadVersioned(std::string_view) override {
    return VersionedData{data_, "1"};
  }
  StatusOr<std::unique_ptr<ReadStream>> OpenRead(std::string_view url, uint64_t offset,
                                                 uint64_t length) override {
    TM_ASSIGN_OR_RETURN(std::string bytes, Read(url, offset, length));
    return std::unique_ptr<ReadStream>(std::make_unique<Stream>(std::move(bytes)));
  }
  StatusOr<ObjectInfo> Stat(std::string_view url) override {
    return ObjectInfo{std::string(url), data_.size(), "1"};
  }
  Status Write(std::string_view, std::string_view) override { return Denied(); }
  Status WriteFile(std::string_view, const std::string&) override { return Denied(); }
  StatusOr<std::string> CreateIfAbsent(std::string_view, std::string_view) override {
    return Denied();
  }
  StatusOr<std::string> CompareAndSwap(std::string_view, std::string_view,
                                       std::string_view) override {
    return Denied();
  }
  StatusOr<std::vector<ObjectInfo>> List(std::string_view) override {
    return std::vector<ObjectInfo>{};
  }
  Status Delete(std::string_view) override { return Denied(); }
  StorageCounters counters() const override { return {}; }

 private:
  class Stream final : public ReadStream {
   public:
    explicit Stream(std::string d) : d_(std::move(d)) {}
    StatusOr<size_t> Read(char* buf, size_t n) override {
      const size_t k = std::min(n, d_.size() - pos_);
      if (k > 0) std::memcpy(buf, d_.data() + pos_, k);
      pos_ += k;
      return k;
    }

   private:
    std::string d_;
    size_t pos_ = 0;
  };
  static Status Denied() { return Status::PermissionDenied("read-only"); }
  std::string data_;
};

constexpr char kName[] = "mem://fuzz.parquet";

void ReadRange(Storage& storage, uint64_t begin, uint64_t end, const ReaderOptions& o) {
  auto reader = OpenParquetReader(storage, InputRange{kName, begin, end}, o);
  if (!reader.ok()) {
    if (reader.status().message().find(kName) == std::string::npos) std::abort();
    return;
  }
  Document doc;
  uint64_t docs = 0;
  for (;;) {
    StatusOr<bool> r = (*reader)->Next(&doc);
    if (!r.ok()) {
      if (r.status().message().find(kName) == std::string::npos) std::abort();
      break;
    }
    if (!*r) break;
    ++docs;
    if (doc.text.empty() || FindInvalidUtf8(doc.text) != std::string_view::npos) std::abort();
    if (doc.text.size() > o.max_document_bytes) std::abort();
  }
  const ReaderStats& stats = (*reader)->stats();
  if (stats.documents != docs) std::abort();
  if (stats.documents + stats.empty_documents > stats.lines) std::abort();
}

int FuzzParquetReader(const uint8_t* data, size_t size) {
  const uint8_t flags = size > 0 ? data[0] : 0;
  std::string content;
  if (size > 0) content.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  ReaderOptions o;
  o.format = InputFormat::kParquet;
  o.invalid_utf8 = (flags & 1) ? InvalidUtf8::kReplace : InvalidUtf8::kDrop;
  o.strict_utf8 = (flags & 2) != 0;
  o.max_document_bytes = (flags & 4) ? 64 : (1 << 20);
  o.skip_bad_records = (flags & 8) != 0;
  o.text_field = (flags & 16) ? "meta.body" : "text";
  OneObjectStorage storage(std::move(content));
  if (flags & 32) {
    auto footer = ReadParquetFooter(storage, kName, storage.Stat(kName)->size);
    if (!footer.ok()) return 0;
    for (const auto& [begin, end] : ParquetTaskRanges(*footer, 1)) {
      if (begin >= end && end != 0) std::abort();
      ReadRange(storage, begin, end, o);
    }
  } else {
    ReadRange(storage, 0, kToEnd, o);
  }
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzParquetReader(data, size);
}
