// RetryingStorage: forwards every call to another Storage and retries transient failures
// (Unavailable) with bounded exponential backoff and full jitter. It is the retry layer that
// StorageFor puts above every backend: above the folder store always, above the object stores
// when faults are injected (TOKENMILL_INJECT_FAULTS; their HTTP client retries each request
// itself, docs/storage.md "Retries").
//
// * Reads, listings, plain writes and deletes are idempotent: they are sent again.
// * Conditional writes are never repeated blindly. After an Unavailable or UnknownOutcome the
//   object is read back (itself with retries): our bytes there mean the write took effect (its
//   generation is returned); CreateIfAbsent: other bytes are AlreadyExists, no object means it
//   did not happen and it is sent again; CompareAndSwap: another generation is
//   FailedPrecondition, the expected one means it did not happen and it is sent again. If the
//   read-back keeps failing the result is UnknownOutcome (callers settle it later).
// * Streams from OpenRead resume after a failed Read: the object is opened again at the byte
//   where the failed stream stopped (the bytes already returned are never returned twice).
//
// Thread-safety: thread-safe; the wrapped backend must be thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/storage/storage.h"

namespace tokenmill {

struct RetryOptions {
  // Attempts per call, the first included. Default: 8.
  int max_attempts = 8;
  // Backoff before retry n (from 0): uniform in [0, min(max_delay_ms, base_delay_ms * 2^n)].
  // Default: 10 ms, 500 ms.
  int64_t base_delay_ms = 10;
  int64_t max_delay_ms = 500;
};

class RetryingStorage : public Storage {
 public:
  // REQUIRES: `base` outlives this object.
  explicit RetryingStorage(Storage* base, RetryOptions options = {});

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
  // The wrapped backend's counters, with this layer's retries added to `retries`.
  StorageCounters counters() const override;

  Storage* base() const { return base_; }

 private:
  class RetryingStream;

  // True for the failures worth another attempt.
  static bool Transient(const Status& s);
  // Sleeps before retry `n` (0-based), counts it and logs it (info) with `why`.
  void Backoff(int n, const Status& why);

  Storage* const base_;
  const RetryOptions options_;
  std::atomic<uint64_t> retries_{0};
};

}  // namespace tokenmill
