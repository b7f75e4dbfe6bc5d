#include "tokenmill/storage/storage.h"

#include <memory>
#include <mutex>
#include <string>

#include "tokenmill/storage/gcs_storage.h"
#include "tokenmill/storage/local_storage.h"
#include "tokenmill/storage/s3_storage.h"

namespace tokenmill {
namespace {

// Length of the "scheme://authority" part that Dirname never removes: "s3://bucket" and
// "gs://bucket" (the bucket is not a folder), "file://" for file URLs, 0 for plain paths.
size_t RootLength(std::string_view location) {
  for (std::string_view scheme : {"s3://", "gs://"}) {
    if (location.starts_with(scheme)) {
      size_t slash = location.find('/', scheme.size());
      return slash == std::string_view::npos ? location.size() : slash;
    }
  }
  if (location.starts_with("file://")) return 7;
  return 0;
}

std::string_view StripTrailingSlashes(std::string_view location) {
  size_t root = RootLength(location);
  while (location.size() > root + 1 && location.back() == '/') location.remove_suffix(1);
  return location;
}

}  // namespace

StorageCounters AtomicStorageCounters::Snapshot() const {
  StorageCounters c;
  c.reads = reads.load(std::memory_order_relaxed);
  c.writes = writes.load(std::memory_order_relaxed);
  c.creates = creates.load(std::memory_order_relaxed);
  c.cas = cas.load(std::memory_order_relaxed);
  c.lists = lists.load(std::memory_order_relaxed);
  c.deletes = deletes.load(std::memory_order_relaxed);
  c.retries = retries.load(std::memory_order_relaxed);
  c.bytes_read = bytes_read.load(std::memory_order_relaxed);
  c.bytes_written = bytes_written.load(std::memory_order_relaxed);
  return c;
}

void AtomicStorageCounters::Reset() {
  for (std::atomic<uint64_t>* a :
       {&reads, &writes, &creates, &cas, &lists, &deletes, &retries, &bytes_read, &bytes_written}) {
    a->store(0, std::memory_order_relaxed);
  }
}

bool IsUrl(std::string_view location) {
  return location.starts_with("s3://") || location.starts_with("gs://") ||
         location.starts_with("file://");
}

std::string JoinPath(std::string_view base, std::string_view name) {
  if (base.empty()) return std::string(name);
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  std::string out(base);
  if (out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string Dirname(std::string_view location) {
  std::string_view s = StripTrailingSlashes(location);
  size_t root = RootLength(s);
  size_t slash = s.rfind('/');
  if (slash == std::string_view::npos || slash < root) {
    // "x" -> "."; "s3://bucket" -> "s3://bucket".
    return root > 0 ? std::string(s.substr(0, root)) : std::string(".");
  }
  if (slash == root) {
    // "/x" -> "/"; "file:///x" -> "file:///"; "s3://b/x" -> "s3://b".
    return std::string(s.substr(0, root == 0 || s.starts_with("file://") ? slash + 1 : slash));
  }
  return std::string(s.substr(0, slash));
}

std::string Basename(std::string_view location) {
  std::string_view s = StripTrailingSlashes(location);
  size_t root = RootLength(s);
  size_t slash = s.rfind('/');
  if (slash == std::string_view::npos || slash < root) return std::string(s.substr(root));
  return std::string(s.substr(slash + 1));
}

StatusOr<Storage*> StorageFor(std::string_view location) {
  if (location.starts_with("s3://")) {
    static std::mutex mu;
    static S3Storage* s3 = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (s3 == nullptr) {
      StatusOr<std::unique_ptr<S3Storage>> made = S3Storage::FromEnvironment();
      if (!made.ok()) return made.status().WithContext("cannot set up S3 access");
      s3 = made->release();
    }
    return static_cast<Storage*>(s3);
  }
  if (location.starts_with("gs://")) {
    static std::mutex mu;
    static GcsStorage* gcs = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (gcs == nullptr) {
      StatusOr<std::unique_ptr<GcsStorage>> made = GcsStorage::FromEnvironment();
      if (!made.ok()) return made.status().WithContext("cannot set up GCS access");
      gcs = made->release();
    }
    return static_cast<Storage*>(gcs);
  }
  if (location.find("://") != std::string_view::npos && !location.starts_with("file://")) {
    return Status::InvalidArgument("unsupported location " + std::string(location) +
                                   ": use a local path, file://, s3:// or gs://");
  }
  if (location.empty()) return Status::InvalidArgument("empty location");
  static LocalStorage* local = new LocalStorage();
  return static_cast<Storage*>(local);
}

StatusOr<std::string> CreateIfAbsentResolved(Storage& store, std::string_view url,
                                             std::string_view data, int attempts,
                                             uint64_t* read_backs) {
  for (int attempt = 1;; ++attempt) {
    StatusOr<std::string> created = store.CreateIfAbsent(url, data);
    if (created.ok() || !created.status().Is(StatusCode::kUnknownOutcome)) return created;
    if (read_backs) ++*read_backs;
    StatusOr<VersionedData> current = store.ReadVersioned(url);
    if (current.ok()) {
      if (current->data == data) return current->generation;  // our write took effect
      return Status::AlreadyExists(std::string(url) + " was created by another writer");
    }
    if (!current.status().Is(StatusCode::kNotFound)) return current.status();
    if (attempt >= attempts) return created.status();
  }
}

StatusOr<std::string> CompareAndSwapResolved(Storage& store, std::string_view url,
                                             std::string_view data,
                                             std::string_view expected_generation, int attempts,
                                             uint64_t* read_backs) {
  for (int attempt = 1;; ++attempt) {
    StatusOr<std::string> swapped = store.CompareAndSwap(url, data, expected_generation);
    if (swapped.ok() || !swapped.status().Is(StatusCode::kUnknownOutcome)) return swapped;
    if (read_backs) ++*read_backs;
    StatusOr<VersionedData> current = store.ReadVersioned(url);
    if (!current.ok()) return current.status();
    if (current->data == data) return current->generation;  // our write took effect
    if (current->generation != expected_generation) {
      return Status::FailedPrecondition(std::string(url) + " changed");
    }
    if (attempt >= attempts) return swapped.status();
  }
}

}  // namespace tokenmill
