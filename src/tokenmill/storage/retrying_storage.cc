#include "tokenmill/storage/retrying_storage.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <type_traits>
#include <utility>

#include "tokenmill/base/log.h"

namespace tokenmill {
namespace {

// Runs `call` until it succeeds, fails for good or the attempts are used up.
template <typename Call>
auto WithRetries(int max_attempts, Call call, auto backoff) -> decltype(call()) {
  for (int attempt = 1;; ++attempt) {
    auto result = call();
    if (result.ok() || attempt >= max_attempts) return result;
    const Status& s = [&]() -> const Status& {
      if constexpr (std::is_same_v<decltype(result), Status>) {
        return result;
      } else {
        return result.status();
      }
    }();
    if (!s.Is(StatusCode::kUnavailable)) return result;
    backoff(attempt - 1, s);
  }
}

}  // namespace

// A stream that opens the object again at the next byte when a Read fails transiently.
class RetryingStorage::RetryingStream : public ReadStream {
 public:
  RetryingStream(RetryingStorage* owner, std::unique_ptr<ReadStream> base, std::string url,
                 uint64_t offset, uint64_t length)
      : owner_(owner),
        base_(std::move(base)),
        url_(std::move(url)),
        offset_(offset),
        length_(length) {}

  StatusOr<size_t> Read(char* buf, size_t n) override {
    for (int attempt = 1;; ++attempt) {
      if (base_ == nullptr) {
        const uint64_t remaining = length_ == kToEnd ? kToEnd : length_ - done_;
        StatusOr<std::unique_ptr<ReadStream>> reopened =
            owner_->base_->OpenRead(url_, offset_ + done_, remaining);
        if (reopened.ok()) {
          base_ = std::move(reopened).value();
        } else if (!Transient(reopened.status()) || attempt >= owner_->options_.max_attempts) {
          return reopened.status();
        } else {
          owner_->Backoff(attempt - 1, reopened.status());
          continue;
        }
      }
      StatusOr<size_t> r = base_->Read(buf, n);
      if (r.ok()) {
        done_ += *r;
        return r;
      }
      if (!Transient(r.status()) || attempt >= owner_->options_.max_attempts) return r;
      base_.reset();  // a broken stream is not read again: open a new one where it stopped
      owner_->Backoff(attempt - 1, r.status());
    }
  }

 private:
  RetryingStorage* owner_;
  std::unique_ptr<ReadStream> base_;
  std::string url_;
  uint64_t offset_;
  uint64_t length_;
  uint64_t done_ = 0;  // bytes returned so far
};

RetryingStorage::RetryingStorage(Storage* base, RetryOptions options)
    : base_(base), options_(options) {}

bool RetryingStorage::Transient(const Status& s) { return s.Is(StatusCode::kUnavailable); }

void RetryingStorage::Backoff(int n, const Status& why) {
  retries_.fetch_add(1, std::memory_order_relaxed);
  LogInfo("storage: retry " + std::to_string(n + 1) + " after: " + why.ToString());
  const int64_t cap = std::min(options_.max_delay_ms, options_.base_delay_ms << std::min(n, 20));
  if (cap <= 0) return;
  thread_local std::minstd_rand rng(std::random_device{}());
  const int64_t ms = std::uniform_int_distribution<int64_t>(0, cap)(rng);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

#define TM_RETRYING(call)                          \
  WithRetries(                                     \
      options_.max_attempts, [&] { return call; }, \
      [this](int n, const Status& why) { Backoff(n, why); })

StatusOr<std::string> RetryingStorage::Read(std::string_view url, uint64_t offset,
                                            uint64_t length) {
  return TM_RETRYING(base_->Read(url, offset, length));
}

StatusOr<VersionedData> RetryingStorage::ReadVersioned(std::string_view url) {
  return TM_RETRYING(base_->ReadVersioned(url));
}

StatusOr<std::unique_ptr<ReadStream>> RetryingStorage::OpenRead(std::string_view url,
                                                                uint64_t offset, uint64_t length) {
  StatusOr<std::unique_ptr<ReadStream>> opened = TM_RETRYING(base_->OpenRead(url, offset, length));
  if (!opened.ok()) return opened.status();
  return std::unique_ptr<ReadStream>(
      new RetryingStream(this, std::move(opened).value(), std::string(url), offset, length));
}

StatusOr<ObjectInfo> RetryingStorage::Stat(std::string_view url) {
  return TM_RETRYING(base_->Stat(url));
}

Status RetryingStorage::Write(std::string_view url, std::string_view data) {
  return TM_RETRYING(base_->Write(url, data));
}

Status RetryingStorage::WriteFile(std::string_view url, const std::string& local_path) {
  return TM_RETRYING(base_->WriteFile(url, local_path));
}

Status RetryingStorage::WriteFinishedFile(std::string_view url, const std::string& local_path) {
  return TM_RETRYING(base_->WriteFinishedFile(url, local_path));
}

StatusOr<std::vector<ObjectInfo>> RetryingStorage::List(std::string_view prefix) {
  return TM_RETRYING(base_->List(prefix));
}

Status RetryingStorage::Delete(std::string_view url) { return TM_RETRYING(base_->Delete(url)); }

StatusOr<std::vector<IncompleteWrite>> RetryingStorage::ListIncomplete(std::string_view folder) {
  return TM_RETRYING(base_->ListIncomplete(folder));
}

Status RetryingStorage::RemoveIncomplete(const IncompleteWrite& write) {
  return TM_RETRYING(base_->RemoveIncomplete(write));
}

#undef TM_RETRYING

StatusOr<std::string> RetryingStorage::CreateIfAbsent(std::string_view url, std::string_view data) {
  Status last;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) Backoff(attempt - 2, last);
    StatusOr<std::string> created = base_->CreateIfAbsent(url, data);
    if (created.ok()) return created;
    const Status& s = created.status();
    if (!s.Is(StatusCode::kUnavailable) && !s.Is(StatusCode::kUnknownOutcome)) return created;
    last = s;
    // Did it happen? Read back (with retries).
    StatusOr<VersionedData> current = ReadVersioned(url);
    if (current.ok()) {
      if (current->data == data) return current->generation;  // our write took effect
      return Status::AlreadyExists(std::string(url) + " was created by another writer");
    }
    if (!current.status().Is(StatusCode::kNotFound)) {
      return Status::UnknownOutcome("create of " + std::string(url) + ": " + s.message() +
                                    "; reading it back failed: " + current.status().message());
    }
    // Not there: the create did not happen; the condition protects another try.
  }
  return Status::UnknownOutcome("create of " + std::string(url) + " failed " +
                                std::to_string(options_.max_attempts) +
                                " times: " + last.message());
}

StatusOr<std::string> RetryingStorage::CompareAndSwap(std::string_view url, std::string_view data,
                                                      std::string_view expected_generation) {
  Status last;
  for (int attempt = 1; attempt <= options_.max_attempts; ++attempt) {
    if (attempt > 1) Backoff(attempt - 2, last);
    StatusOr<std::string> swapped = base_->CompareAndSwap(url, data, expected_generation);
    if (swapped.ok()) return swapped;
    const Status& s = swapped.status();
    if (!s.Is(StatusCode::kUnavailable) && !s.Is(StatusCode::kUnknownOutcome)) return swapped;
    last = s;
    StatusOr<VersionedData> current = ReadVersioned(url);
    if (current.ok()) {
      if (current->data == data) return current->generation;  // our write took effect
      if (current->generation != expected_generation) {
        return Status::FailedPrecondition(std::string(url) + " changed");
      }
      continue;  // unchanged: the swap did not happen
    }
    if (current.status().Is(StatusCode::kNotFound)) {
      return Status::FailedPrecondition(std::string(url) + " is missing");
    }
    return Status::UnknownOutcome("compare-and-swap of " + std::string(url) + ": " + s.message() +
                                  "; reading it back failed: " + current.status().message());
  }
  return Status::UnknownOutcome("compare-and-swap of " + std::string(url) + " failed " +
                                std::to_string(options_.max_attempts) +
                                " times: " + last.message());
}

StorageCounters RetryingStorage::counters() const {
  StorageCounters c = base_->counters();
  c.retries += retries_.load(std::memory_order_relaxed);
  return c;
}

std::unique_ptr<ChangeWatch> RetryingStorage::Watch(std::string_view prefix) {
  return base_->Watch(prefix);
}

}  // namespace tokenmill
