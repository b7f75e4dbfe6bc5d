// LocalStorage: the Storage backend for local folders, including folders shared over NFS.
//
// Locations are paths ("/data/x.txt", also relative ones) or "file:///data/x.txt" URLs; List
// reports urls in the form of its prefix.
//
// Plain objects (Write, WriteFile, WriteFinishedFile) are ordinary files, published atomically:
// the bytes go to a temporary file ".<name>.tmp.<pid>.<random>" in the same folder (for
// WriteFinishedFile, a second link of the caller's file), which is fsynced and renamed over the
// final name, then the folder is fsynced. Their generation is informative only:
// "<mtime_ns>-<size>-<inode>".
//
// Conditional objects (CreateIfAbsent, CompareAndSwap) live in a folder "<path>.v/" of immutable
// generation files "g0000000001", "g0000000002"..., each published with link(2), which fails with
// EEXIST if the name is taken: atomic across processes and NFS clients, with no lock. Their
// generation is the decimal counter ("1", "2"...). A name, once used, is never freed: an old
// generation's data is released by replacing its file with a symbolic link (so that a stale
// CompareAndSwap can never fill the slot again), and Delete appends a tombstone (a symbolic link)
// as the next generation, so a generation string never denotes two different objects.
// docs/storage.md specifies the layout.
//
// Thread-safety: thread-safe; every operation is independent (no in-process locks are needed for
// correctness, even between processes and hosts).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/storage/storage.h"

namespace tokenmill {

class LocalStorage : public Storage {
 public:
  LocalStorage() = default;

  StatusOr<std::string> Read(std::string_view url, uint64_t offset = 0,
                             uint64_t length = kToEnd) override;
  StatusOr<VersionedData> ReadVersioned(std::string_view url) override;
  StatusOr<std::unique_ptr<ReadStream>> OpenRead(std::string_view url, uint64_t offset = 0,
                                                 uint64_t length = kToEnd) override;
  StatusOr<ObjectInfo> Stat(std::string_view url) override;
  Status Write(std::string_view url, std::string_view data) override;
  Status WriteFile(std::string_view url, const std::string& local_path) override;
  // The file, fsynced, is linked under a temporary name and renamed over the final one; a copy
  // (WriteFile) where it cannot be linked (another file system).
  Status WriteFinishedFile(std::string_view url, const std::string& local_path) override;
  StatusOr<std::string> CreateIfAbsent(std::string_view url, std::string_view data) override;
  StatusOr<std::string> CompareAndSwap(std::string_view url, std::string_view data,
                                       std::string_view expected_generation) override;
  StatusOr<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view url) override;
  StatusOr<std::vector<IncompleteWrite>> ListIncomplete(std::string_view folder) override;
  Status RemoveIncomplete(const IncompleteWrite& write) override;
  // inotify (objects created by this machine's processes; not those of other NFS clients).
  // Creates the folder if it is missing.
  std::unique_ptr<ChangeWatch> Watch(std::string_view prefix) override;
  StorageCounters counters() const override;

 private:
  // WriteFile (a copy), or WriteFinishedFile (`by_link`).
  Status PublishFile(std::string_view url, const std::string& local_path, bool by_link);

  AtomicStorageCounters counters_;
};

// The local path of a location: "file:///a/b" -> "/a/b"; plain paths are returned unchanged.
// InvalidArgument for other schemes, "file://host/..." and empty paths.
StatusOr<std::string> LocalPathOf(std::string_view location);

}  // namespace tokenmill
