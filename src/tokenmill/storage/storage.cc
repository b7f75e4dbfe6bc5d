#include "tokenmill/storage/storage.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

#include "tokenmill/storage/fault_injection_storage.h"
#include "tokenmill/storage/gcs_storage.h"
#include "tokenmill/storage/local_storage.h"
#include "tokenmill/storage/retrying_storage.h"
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

// TOKENMILL_INJECT_FAULTS, read once per process.
const StatusOr<InjectFaultsSetting>& InjectFaults() {
  static const StatusOr<InjectFaultsSetting> setting = []() -> StatusOr<InjectFaultsSetting> {
    const char* v = std::getenv("TOKENMILL_INJECT_FAULTS");
    if (v == nullptr || *v == '\0') return InjectFaultsSetting{};
    return ParseInjectFaults(v);
  }();
  return setting;
}

// The layers above a backend: injected faults (if asked for) below the retry layer. The folder
// store always gets the retry layer; the object stores' HTTP client retries each request itself,
// so they get it only together with injected faults. `stream` separates the generators of the
// backends, so that each backend's faults depend only on the seed and its own calls.
StatusOr<Storage*> Layered(Storage* backend, bool always_retry, uint64_t stream) {
  const StatusOr<InjectFaultsSetting>& inject = InjectFaults();
  if (!inject.ok()) return inject.status();
  Storage* top = backend;
  if (inject->rate > 0) {
    auto* faulty =
        new FaultInjectionStorage(backend, inject->seed * 0x9e3779b97f4a7c15ull + stream);
    faulty->SetTransientFaults(inject->rate);
    top = faulty;
  }
  if (always_retry || inject->rate > 0) top = new RetryingStorage(top);
  return top;
}

}  // namespace

bool FaultsInjected() {
  const StatusOr<InjectFaultsSetting>& inject = InjectFaults();
  return inject.ok() && inject->rate > 0;
}

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

std::unique_ptr<ChangeWatch> Storage::Watch(std::string_view) { return nullptr; }

StatusOr<std::vector<IncompleteWrite>> Storage::ListIncomplete(std::string_view) {
  return std::vector<IncompleteWrite>{};
}

Status Storage::RemoveIncomplete(const IncompleteWrite& write) {
  return Status::Unimplemented("this store cannot remove the incomplete write of " + write.url);
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
    static Storage* s3 = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (s3 == nullptr) {
      StatusOr<std::unique_ptr<S3Storage>> made = S3Storage::FromEnvironment();
      if (!made.ok()) return made.status().WithContext("cannot set up S3 access");
      TM_ASSIGN_OR_RETURN(s3, Layered(made->release(), false, 2));
    }
    return s3;
  }
  if (location.starts_with("gs://")) {
    static std::mutex mu;
    static Storage* gcs = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (gcs == nullptr) {
      StatusOr<std::unique_ptr<GcsStorage>> made = GcsStorage::FromEnvironment();
      if (!made.ok()) return made.status().WithContext("cannot set up GCS access");
      TM_ASSIGN_OR_RETURN(gcs, Layered(made->release(), false, 3));
    }
    return gcs;
  }
  if (location.find("://") != std::string_view::npos && !location.starts_with("file://")) {
    return Status::InvalidArgument("unsupported location " + std::string(location) +
                                   ": use a local path, file://, s3:// or gs://");
  }
  if (location.empty()) return Status::InvalidArgument("empty location");
  static const StatusOr<Storage*> local = Layered(new LocalStorage(), true, 1);
  return local;
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
