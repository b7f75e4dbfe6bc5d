// Storage: the only door to bytes. Local folders (also on NFS), s3:// and gs://.
//
// Every operation takes a full location: an absolute local path ("/data/x.txt"), "file:///...",
// "s3://bucket/key" or "gs://bucket/key". StorageFor() returns the backend for a location; one
// backend instance serves every location of its scheme. The primitives are those the job-store
// protocol (docs/protocol.md) needs:
//   Read (a byte range), OpenRead (a stream), Write and WriteFile (atomic publish),
//   CreateIfAbsent, CompareAndSwap (by generation), List (by prefix), Delete.
// A "generation" is an opaque string that changes on every write of an object: a generation
// counter for local folders, the ETag on S3, x-goog-generation on GCS. Objects written by the
// conditional operations must carry unique content (e.g. a holder id and a counter), because an
// S3 ETag is a content hash.
// Thread-safety: every backend is thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill {

inline constexpr uint64_t kToEnd = UINT64_MAX;

struct ObjectInfo {
  std::string url;  // full location, same scheme as the listing prefix
  uint64_t size = 0;
  std::string generation;  // empty if the backend did not report one
  // When it was last written, by the store's clock (ms since the Unix epoch; object stores give
  // whole seconds); 0 if the backend did not report it. Set by Stat.
  int64_t modified_ms = 0;
};

struct VersionedData {
  std::string data;
  std::string generation;
};

// A write that never completed (its writer crashed or gave up): a temporary file of a folder
// store, an incomplete multipart upload of an object store. Never visible as an object.
struct IncompleteWrite {
  std::string url;     // the object it would have become
  std::string handle;  // the temporary file's path, or the upload id
  uint64_t size = 0;   // bytes it holds, when known
};

// A sequential reader over (a range of) one object. Not thread-safe.
class ReadStream {
 public:
  virtual ~ReadStream() = default;
  // Reads up to n bytes into buf. Returns 0 at the end of the object or range.
  virtual StatusOr<size_t> Read(char* buf, size_t n) = 0;
};

// Counters of requests made, for `status` and benchmarks. Coordination requests are the
// conditional writes, the reads of small records and the listings; bulk data is counted apart.
struct StorageCounters {
  uint64_t reads = 0;
  uint64_t writes = 0;
  uint64_t creates = 0;
  uint64_t cas = 0;
  uint64_t lists = 0;
  uint64_t deletes = 0;
  uint64_t retries = 0;
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;
};

// The counters a backend keeps, updated from any thread with relaxed atomics; a backend's
// counters() returns Snapshot().
struct AtomicStorageCounters {
  std::atomic<uint64_t> reads{0}, writes{0}, creates{0}, cas{0}, lists{0}, deletes{0}, retries{0},
      bytes_read{0}, bytes_written{0};
  StorageCounters Snapshot() const;
  void Reset();
};

// Tells a waiting caller that objects were created under a prefix (a hint, to wake up and look:
// it may wake for nothing, and never says what changed). Thread-safety: one thread at a time.
class ChangeWatch {
 public:
  virtual ~ChangeWatch() = default;
  // Waits up to `timeout` for objects created under the prefix since the watch began or the last
  // Wait; true if some were (or may have been).
  virtual bool Wait(std::chrono::milliseconds timeout) = 0;
};

class Storage {
 public:
  virtual ~Storage() = default;

  // Returns [offset, offset + length) of the object, shorter at its end. NotFound if missing.
  virtual StatusOr<std::string> Read(std::string_view url, uint64_t offset = 0,
                                     uint64_t length = kToEnd) = 0;

  // Returns the whole object with its current generation (for a later CompareAndSwap).
  virtual StatusOr<VersionedData> ReadVersioned(std::string_view url) = 0;

  // Streams [offset, offset + length) of the object with bounded memory.
  virtual StatusOr<std::unique_ptr<ReadStream>> OpenRead(std::string_view url, uint64_t offset = 0,
                                                         uint64_t length = kToEnd) = 0;

  // Size and generation of one object. NotFound if missing.
  virtual StatusOr<ObjectInfo> Stat(std::string_view url) = 0;

  // Writes the whole object; readers see the old object or the new one, never a part of either
  // (temporary name + rename locally, a single PUT or a completed multipart upload remotely).
  virtual Status Write(std::string_view url, std::string_view data) = 0;

  // As Write, from a local file (large shards: streamed, multipart on object stores).
  virtual Status WriteFile(std::string_view url, const std::string& local_path) = 0;

  // As WriteFile, for a file that nobody will change again (its caller may delete it): a local
  // store on the same file system publishes the file itself, a hard link instead of a copy of
  // its bytes. A worker publishes its shards so. By default, WriteFile.
  virtual Status WriteFinishedFile(std::string_view url, const std::string& local_path) {
    return WriteFile(url, local_path);
  }

  // Creates the object only if no object exists under that name. Returns the new generation;
  // AlreadyExists if it was taken; UnknownOutcome only if the backend cannot tell (callers
  // re-read and compare the content).
  virtual StatusOr<std::string> CreateIfAbsent(std::string_view url, std::string_view data) = 0;

  // Replaces the object only if its generation is still `expected_generation`. Returns the new
  // generation; FailedPrecondition if the object changed or is missing.
  virtual StatusOr<std::string> CompareAndSwap(std::string_view url, std::string_view data,
                                               std::string_view expected_generation) = 0;

  // All objects whose location starts with `prefix`, sorted bytewise by url. For local folders
  // the prefix is a path prefix ("/x/job/done/" lists that folder recursively).
  virtual StatusOr<std::vector<ObjectInfo>> List(std::string_view prefix) = 0;

  // Deletes the object. Deleting a missing object is OK.
  virtual Status Delete(std::string_view url) = 0;

  // Snapshot of this backend's request counters.
  virtual StorageCounters counters() const = 0;

  // The incomplete writes of objects directly in `folder` (not in its sub-folders): temporary
  // files of unfinished writes on a folder store, incomplete multipart uploads
  // (ListMultipartUploads with delimiter "/") on S3 and GCS. Live writers' ones are included: a
  // caller removes only what it knows to be orphaned. Default: none (a store without them).
  virtual StatusOr<std::vector<IncompleteWrite>> ListIncomplete(std::string_view folder);

  // Removes one incomplete write (deletes the temporary file, aborts the upload). Removing one
  // that is already gone is OK. Default: Unimplemented.
  virtual Status RemoveIncomplete(const IncompleteWrite& write);

  // A watch of the objects created under the folder `prefix` ("/x/job/done/"), or null where
  // the backend cannot tell (object stores: callers poll). Changes made through other machines
  // (a shared file system) may go unseen: a watch only shortens a caller's polling. Default: null.
  virtual std::unique_ptr<ChangeWatch> Watch(std::string_view prefix);
};

// The conditional writes, with an UnknownOutcome settled the way storage.h asks callers to:
// read the object back and compare. Our `data` there is success (its generation); other data is
// AlreadyExists (create) or FailedPrecondition (swap); an unchanged object means the write did
// not happen, and it is tried again (the condition protects the retry), `attempts` times in all,
// after which the UnknownOutcome is returned. `read_backs`, if not null, counts the reads made.
StatusOr<std::string> CreateIfAbsentResolved(Storage& store, std::string_view url,
                                             std::string_view data, int attempts = 5,
                                             uint64_t* read_backs = nullptr);
StatusOr<std::string> CompareAndSwapResolved(Storage& store, std::string_view url,
                                             std::string_view data,
                                             std::string_view expected_generation, int attempts = 5,
                                             uint64_t* read_backs = nullptr);

// True for "s3://", "gs://" and "file://" locations; false for plain paths.
bool IsUrl(std::string_view location);

// Joins a location and a relative name with exactly one '/'.
std::string JoinPath(std::string_view base, std::string_view name);

// The parent "folder" of a location ("s3://b/x/y" -> "s3://b/x").
std::string Dirname(std::string_view location);

// The last component ("s3://b/x/y" -> "y").
std::string Basename(std::string_view location);

// Returns the backend serving `location` (created on first use from the environment: AWS_*
// variables for s3://, GCS_HMAC_* or the metadata server for gs://). Never null on success.
// The folder store comes behind a RetryingStorage (retrying_storage.h); with
// TOKENMILL_INJECT_FAULTS=RATE[:SEED] every backend comes as RetryingStorage over a
// FaultInjectionStorage injecting transient faults at that rate (docs/storage.md, "Injected
// faults"). An invalid TOKENMILL_INJECT_FAULTS makes every call InvalidArgument.
StatusOr<Storage*> StorageFor(std::string_view location);

// True when TOKENMILL_INJECT_FAULTS asks for faults in this process.
bool FaultsInjected();

}  // namespace tokenmill
