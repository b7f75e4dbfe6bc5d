// CountingStorage: forwards every call to another Storage and counts the requests made through
// it, so a caller (a worker, a benchmark, a test) can measure its own requests per task apart from
// other users of the shared backend.
//
// Thread-safety: thread-safe (atomic counters); the wrapped backend must be thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/storage/storage.h"

namespace tokenmill {

class CountingStorage : public Storage {
 public:
  // REQUIRES: `base` outlives this object.
  explicit CountingStorage(Storage* base) : base_(base) {}

  StatusOr<std::string> Read(std::string_view url, uint64_t offset = 0,
                             uint64_t length = kToEnd) override;
  StatusOr<VersionedData> ReadVersioned(std::string_view url) override;
  StatusOr<std::unique_ptr<ReadStream>> OpenRead(std::string_view url, uint64_t offset = 0,
                                                 uint64_t length = kToEnd) override;
  StatusOr<ObjectInfo> Stat(std::string_view url) override;
  Status Write(std::string_view url, std::string_view data) override;
  Status WriteFile(std::string_view url, const std::string& local_path) override;
  Status WriteFinishedFile(std::string_view url, const std::string& local_path) override;
  StatusOr<std::string> CreateIfAbsent(std::string_view url, std::string_view data) override;
  StatusOr<std::string> CompareAndSwap(std::string_view url, std::string_view data,
                                       std::string_view expected_generation) override;
  StatusOr<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view url) override;

  StatusOr<std::vector<IncompleteWrite>> ListIncomplete(std::string_view folder) override;
  Status RemoveIncomplete(const IncompleteWrite& write) override;
  std::unique_ptr<ChangeWatch> Watch(std::string_view prefix) override;
  // Requests made through this wrapper (every call counts, failed ones too). `retries` is the
  // growth of the wrapped backend's retry counter while calls were made through this wrapper
  // (exact when this wrapper is the backend's only user).
  StorageCounters counters() const override;

  // Sets every counter back to zero.
  void ResetCounters();

 private:
  class CountingStream;
  void AddRetries(uint64_t before);
  // Counts a write of the file at local_path, made by `write`.
  Status CountFileWrite(const std::string& local_path, const std::function<Status()>& write);

  Storage* const base_;
  AtomicStorageCounters counts_;
};

}  // namespace tokenmill
