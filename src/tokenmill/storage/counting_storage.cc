#include "tokenmill/storage/counting_storage.h"

#include <sys/stat.h>

#include <utility>

namespace tokenmill {

class CountingStorage::CountingStream : public ReadStream {
 public:
  CountingStream(std::unique_ptr<ReadStream> base, std::atomic<uint64_t>* bytes)
      : base_(std::move(base)), bytes_(bytes) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    StatusOr<size_t> r = base_->Read(buf, n);
    if (r.ok()) bytes_->fetch_add(*r, std::memory_order_relaxed);
    return r;
  }

 private:
  std::unique_ptr<ReadStream> base_;
  std::atomic<uint64_t>* bytes_;
};

void CountingStorage::AddRetries(uint64_t before) {
  uint64_t after = base_->counters().retries;
  if (after > before) counts_.retries.fetch_add(after - before, std::memory_order_relaxed);
}

StatusOr<std::string> CountingStorage::Read(std::string_view url, uint64_t offset,
                                            uint64_t length) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<std::string> r = base_->Read(url, offset, length);
  AddRetries(before);
  if (r.ok()) counts_.bytes_read.fetch_add(r->size(), std::memory_order_relaxed);
  return r;
}

StatusOr<VersionedData> CountingStorage::ReadVersioned(std::string_view url) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<VersionedData> r = base_->ReadVersioned(url);
  AddRetries(before);
  if (r.ok()) counts_.bytes_read.fetch_add(r->data.size(), std::memory_order_relaxed);
  return r;
}

StatusOr<std::unique_ptr<ReadStream>> CountingStorage::OpenRead(std::string_view url,
                                                                uint64_t offset, uint64_t length) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<std::unique_ptr<ReadStream>> r = base_->OpenRead(url, offset, length);
  AddRetries(before);
  if (!r.ok()) return r.status();
  return std::unique_ptr<ReadStream>(new CountingStream(std::move(r).value(), &counts_.bytes_read));
}

StatusOr<ObjectInfo> CountingStorage::Stat(std::string_view url) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<ObjectInfo> r = base_->Stat(url);
  AddRetries(before);
  return r;
}

Status CountingStorage::Write(std::string_view url, std::string_view data) {
  counts_.writes.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  Status s = base_->Write(url, data);
  AddRetries(before);
  if (s.ok()) counts_.bytes_written.fetch_add(data.size(), std::memory_order_relaxed);
  return s;
}

Status CountingStorage::WriteFile(std::string_view url, const std::string& local_path) {
  return CountFileWrite(local_path, [&] { return base_->WriteFile(url, local_path); });
}

Status CountingStorage::WriteFinishedFile(std::string_view url, const std::string& local_path) {
  return CountFileWrite(local_path, [&] { return base_->WriteFinishedFile(url, local_path); });
}

Status CountingStorage::CountFileWrite(const std::string& local_path,
                                       const std::function<Status()>& write) {
  counts_.writes.fetch_add(1, std::memory_order_relaxed);
  struct stat st;
  uint64_t size = ::stat(local_path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  uint64_t before = base_->counters().retries;
  Status s = write();
  AddRetries(before);
  if (s.ok()) counts_.bytes_written.fetch_add(size, std::memory_order_relaxed);
  return s;
}

StatusOr<std::string> CountingStorage::CreateIfAbsent(std::string_view url, std::string_view data) {
  counts_.creates.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<std::string> r = base_->CreateIfAbsent(url, data);
  AddRetries(before);
  if (r.ok()) counts_.bytes_written.fetch_add(data.size(), std::memory_order_relaxed);
  return r;
}

StatusOr<std::string> CountingStorage::CompareAndSwap(std::string_view url, std::string_view data,
                                                      std::string_view expected_generation) {
  counts_.cas.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<std::string> r = base_->CompareAndSwap(url, data, expected_generation);
  AddRetries(before);
  if (r.ok()) counts_.bytes_written.fetch_add(data.size(), std::memory_order_relaxed);
  return r;
}

StatusOr<std::vector<ObjectInfo>> CountingStorage::List(std::string_view prefix) {
  counts_.lists.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  StatusOr<std::vector<ObjectInfo>> r = base_->List(prefix);
  AddRetries(before);
  return r;
}

StatusOr<std::vector<IncompleteWrite>> CountingStorage::ListIncomplete(std::string_view folder) {
  counts_.lists.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  auto r = base_->ListIncomplete(folder);
  AddRetries(before);
  return r;
}

Status CountingStorage::RemoveIncomplete(const IncompleteWrite& write) {
  counts_.deletes.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  Status s = base_->RemoveIncomplete(write);
  AddRetries(before);
  return s;
}

Status CountingStorage::Delete(std::string_view url) {
  counts_.deletes.fetch_add(1, std::memory_order_relaxed);
  uint64_t before = base_->counters().retries;
  Status s = base_->Delete(url);
  AddRetries(before);
  return s;
}

StorageCounters CountingStorage::counters() const { return counts_.Snapshot(); }

void CountingStorage::ResetCounters() { counts_.Reset(); }

std::unique_ptr<ChangeWatch> CountingStorage::Watch(std::string_view prefix) {
  return base_->Watch(prefix);
}

}  // namespace tokenmill
