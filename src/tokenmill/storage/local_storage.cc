#include "tokenmill/storage/local_storage.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "tokenmill/base/rng.h"

namespace tokenmill {
namespace {

constexpr std::string_view kVersionSuffix = ".v";
constexpr std::string_view kSupersededTarget = "superseded";
constexpr std::string_view kTombstoneTarget = "deleted";
constexpr int kGenerationDigits = 10;
constexpr int kOpenRetries = 1000;
constexpr size_t kCopyBufferSize = 1 << 20;

Status ErrnoStatus(std::string_view op, const std::string& path, int err) {
  std::string m = std::string(op) + " " + path + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
      return Status::NotFound(m);
    case EACCES:
    case EPERM:
    case EROFS:
      return Status::PermissionDenied(m + " (check the folder's permissions)");
    case ENOSPC:
    case EDQUOT:
      return Status::IoError(m + " (free some space or choose another folder)");
    default:
      return Status::IoError(m);
  }
}

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }
  int get() const { return fd_; }
  void Reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

std::string RandomSuffix() {
  thread_local Rng rng(std::random_device{}() ^ (static_cast<uint64_t>(::getpid()) << 32),
                       std::hash<std::thread::id>{}(std::this_thread::get_id()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(16, '0');
  uint64_t v = rng.Next();
  for (char& c : s) {
    c = kHex[v & 15];
    v >>= 4;
  }
  return s;
}

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string NameOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool IsTempName(std::string_view name) {
  return name.starts_with('.') && name.find(".tmp.") != std::string_view::npos;
}

Status MakeDirs(const std::string& dir) {
  if (dir.empty() || dir == "/" || dir == ".") return Status::Ok();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::Ok();
    return Status::InvalidArgument("cannot create folder " + dir + ": a file has that name");
  }
  TM_RETURN_IF_ERROR(MakeDirs(ParentOf(dir)));
  if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) {
    return ErrnoStatus("cannot create folder", dir, errno);
  }
  return Status::Ok();
}

Status FsyncDir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus("cannot open folder", dir, errno);
  if (::fsync(fd.get()) != 0 && errno != EINVAL) return ErrnoStatus("cannot fsync", dir, errno);
  return Status::Ok();
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// The name ".<name>.tmp.<pid>.<random>" in `dir` (ListIncomplete knows it).
std::string TempNameIn(const std::string& dir, const std::string& name) {
  return (dir == "/" ? "" : dir) + "/." + name + ".tmp." + std::to_string(::getpid()) + "." +
         RandomSuffix();
}

// Creates ".<name>.tmp.<pid>.<random>" in `dir` holding `data`, fsynced (unless `sync` is false:
// the caller writes more and fsyncs itself). Returns its path. `fd_out` (optional) keeps the file
// open.
StatusOr<std::string> WriteTemp(const std::string& dir, const std::string& name,
                                std::string_view data, Fd* fd_out = nullptr, bool sync = true) {
  std::string tmp = TempNameIn(dir, name);
  Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (fd.get() < 0) return ErrnoStatus("cannot create", tmp, errno);
  Status s = WriteAll(fd.get(), data, tmp);
  if (s.ok() && sync && ::fsync(fd.get()) != 0) s = ErrnoStatus("cannot fsync", tmp, errno);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  if (fd_out != nullptr) *fd_out = std::move(fd);
  return tmp;
}

std::string PlainGeneration(const struct stat& st) {
  uint64_t mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ull +
                      static_cast<uint64_t>(st.st_mtim.tv_nsec);
  return std::to_string(mtime_ns) + "-" + std::to_string(st.st_size) + "-" +
         std::to_string(st.st_ino);
}

// ---- Versioned objects: "<path>.v/g0000000001"... ----

std::string VersionDir(const std::string& path) { return path + std::string(kVersionSuffix); }

std::string GenerationName(uint64_t n) {
  std::string digits = std::to_string(n);
  return "g" +
         std::string(kGenerationDigits - std::min<size_t>(digits.size(), kGenerationDigits), '0') +
         digits;
}

std::optional<uint64_t> ParseGenerationName(std::string_view name) {
  if (name.size() != 1 + kGenerationDigits || name[0] != 'g') return std::nullopt;
  uint64_t n = 0;
  for (char c : name.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

std::optional<uint64_t> ParseGenerationString(std::string_view g) {
  if (g.empty() || g.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : g) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n == 0 ? std::nullopt : std::optional<uint64_t>(n);
}

struct Newest {
  uint64_t n = 0;          // 0: no generation at all
  bool tombstone = false;  // the newest generation records a Delete
  bool live() const { return n > 0 && !tombstone; }
};

// The newest generation in `vdir`; n == 0 if the folder is missing or empty.
StatusOr<Newest> FindNewest(const std::string& vdir) {
  for (int attempt = 0; attempt < kOpenRetries; ++attempt) {
    DIR* d = ::opendir(vdir.c_str());
    if (d == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) return Newest{};
      return ErrnoStatus("cannot list", vdir, errno);
    }
    Newest newest;
    while (struct dirent* e = ::readdir(d)) {
      if (auto n = ParseGenerationName(e->d_name); n && *n > newest.n) newest.n = *n;
    }
    ::closedir(d);
    if (newest.n == 0) return newest;
    std::string g = vdir + "/" + GenerationName(newest.n);
    struct stat st;
    if (::lstat(g.c_str(), &st) != 0) return ErrnoStatus("cannot stat", g, errno);
    if (!S_ISLNK(st.st_mode)) return newest;
    char target[64];
    ssize_t len = ::readlink(g.c_str(), target, sizeof(target));
    if (len < 0) return ErrnoStatus("cannot read link", g, errno);
    if (std::string_view(target, static_cast<size_t>(len)) == kTombstoneTarget) {
      newest.tombstone = true;
      return newest;
    }
    // Superseded since the listing: newer generations exist; list again.
  }
  return Status::Unavailable("cannot find the newest generation in " + vdir +
                             ": it changed too often");
}

bool VersionDirExists(const std::string& path) {
  struct stat st;
  std::string first = VersionDir(path) + "/" + GenerationName(1);
  return ::lstat(first.c_str(), &st) == 0;
}

// Releases the data of generation n (which must not be the newest) by replacing its file with a
// symbolic link. The name stays taken, so a stale CompareAndSwap can never publish into it.
void Supersede(const std::string& vdir, uint64_t n) {
  if (n == 0) return;
  std::string g = vdir + "/" + GenerationName(n);
  struct stat st;
  if (::lstat(g.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) return;
  std::string tmp = vdir + "/.s.tmp." + std::to_string(::getpid()) + "." + RandomSuffix();
  if (::symlink(std::string(kSupersededTarget).c_str(), tmp.c_str()) != 0) return;
  if (::rename(tmp.c_str(), g.c_str()) != 0) ::unlink(tmp.c_str());
}

// Publishes the fsynced temp file `tmp` (open as `tmp_fd`) as `target` with link(2). Returns
// true if it won, false if the name was taken. On NFS a retransmitted LINK can report EEXIST
// although it succeeded, so EEXIST is confirmed by the temp file's link count (as open(2)
// advises for lock files).
StatusOr<bool> LinkExclusive(const std::string& tmp, int tmp_fd, const std::string& target) {
  if (::link(tmp.c_str(), target.c_str()) == 0) return true;
  int err = errno;
  if (err != EEXIST) return ErrnoStatus("cannot link " + tmp + " to", target, err);
  struct stat st;
  if (::fstat(tmp_fd, &st) == 0 && st.st_nlink == 2) return true;
  return false;
}

// An open object: a plain file, or the newest generation of a versioned object.
struct OpenObject {
  Fd fd;
  uint64_t size = 0;
  std::string generation;
  int64_t modified_ms = 0;
};

int64_t ModifiedMs(const struct stat& st) {
  return int64_t{st.st_mtim.tv_sec} * 1000 + st.st_mtim.tv_nsec / 1000000;
}

StatusOr<OpenObject> OpenForRead(const std::string& path) {
  OpenObject obj;
  obj.fd = Fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (obj.fd.get() >= 0) {
    struct stat st;
    if (::fstat(obj.fd.get(), &st) != 0) return ErrnoStatus("cannot stat", path, errno);
    if (S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(path + " is a folder, not a file");
    }
    obj.size = static_cast<uint64_t>(st.st_size);
    obj.generation = PlainGeneration(st);
    obj.modified_ms = ModifiedMs(st);
    return obj;
  }
  if (errno != ENOENT) return ErrnoStatus("cannot open", path, errno);
  std::string vdir = VersionDir(path);
  for (int attempt = 0; attempt < kOpenRetries; ++attempt) {
    TM_ASSIGN_OR_RETURN(Newest newest, FindNewest(vdir));
    if (!newest.live()) return Status::NotFound("no such file: " + path);
    std::string g = vdir + "/" + GenerationName(newest.n);
    obj.fd = Fd(::open(g.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (obj.fd.get() < 0) {
      // Superseded (now a symbolic link) between listing and opening: look again.
      if (errno == ELOOP || errno == ENOENT) continue;
      return ErrnoStatus("cannot open", g, errno);
    }
    struct stat st;
    if (::fstat(obj.fd.get(), &st) != 0) return ErrnoStatus("cannot stat", g, errno);
    obj.size = static_cast<uint64_t>(st.st_size);
    obj.generation = std::to_string(newest.n);
    obj.modified_ms = ModifiedMs(st);
    return obj;
  }
  return Status::Unavailable("cannot read " + path + ": it changed too often while reading");
}

StatusOr<std::string> PreadRange(int fd, uint64_t size, uint64_t offset, uint64_t length,
                                 const std::string& path) {
  if (offset >= size) return std::string();
  uint64_t n = std::min(length, size - offset);
  std::string out(n, '\0');
  uint64_t done = 0;
  while (done < n) {
    ssize_t r = ::pread(fd, out.data() + done, n - done, static_cast<off_t>(offset + done));
    if (r < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("cannot read", path, errno);
    }
    if (r == 0) break;  // truncated under us: return what is there
    done += static_cast<uint64_t>(r);
  }
  out.resize(done);
  return out;
}

class FileReadStream : public ReadStream {
 public:
  FileReadStream(OpenObject obj, uint64_t offset, uint64_t end, std::string path,
                 std::atomic<uint64_t>* bytes_read)
      : obj_(std::move(obj)),
        pos_(offset),
        end_(end),
        path_(std::move(path)),
        bytes_read_(bytes_read) {}

  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ >= end_ || n == 0) return size_t{0};
    size_t want = static_cast<size_t>(std::min<uint64_t>(n, end_ - pos_));
    while (true) {
      ssize_t r = ::pread(obj_.fd.get(), buf, want, static_cast<off_t>(pos_));
      if (r < 0) {
        if (errno == EINTR) continue;
        return ErrnoStatus("cannot read", path_, errno);
      }
      if (r == 0) {
        return Status::DataLoss(path_ + " was truncated while being read, at byte " +
                                std::to_string(pos_));
      }
      pos_ += static_cast<uint64_t>(r);
      bytes_read_->fetch_add(static_cast<uint64_t>(r), std::memory_order_relaxed);
      return static_cast<size_t>(r);
    }
  }

 private:
  OpenObject obj_;
  uint64_t pos_;
  uint64_t end_;
  std::string path_;
  std::atomic<uint64_t>* bytes_read_;
};

bool IsVersionedLive(const std::string& path) {
  if (!VersionDirExists(path)) return false;
  auto newest = FindNewest(VersionDir(path));
  return !newest.ok() || newest->live();
}

Status CheckNotVersioned(const std::string& path) {
  if (IsVersionedLive(path)) {
    return Status::InvalidArgument(
        "cannot Write " + path +
        ": it is a conditional object (written by CreateIfAbsent/CompareAndSwap); use "
        "CompareAndSwap, or Delete it first");
  }
  return Status::Ok();
}

Status CheckObjectPath(const std::string& path) {
  if (path.back() == '/') {
    return Status::InvalidArgument(path + " names a folder; give a file name");
  }
  return Status::Ok();
}

// Links `src`, fsynced, under a temporary name in `dir`; returns that name, or nothing where it
// cannot be linked (another file system, such as a scratch folder on tmpfs, or one without hard
// links), for the caller to copy it (CopyToTemp).
StatusOr<std::optional<std::string>> LinkToTemp(const std::string& src, const std::string& dir,
                                                const std::string& name, uint64_t* bytes) {
  Fd in(::open(src.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return ErrnoStatus("cannot open", src, errno);
  struct stat st;
  if (::fstat(in.get(), &st) != 0) return ErrnoStatus("cannot stat", src, errno);
  std::string tmp = TempNameIn(dir, name);
  if (!S_ISREG(st.st_mode) || ::link(src.c_str(), tmp.c_str()) != 0) {
    return std::optional<std::string>();
  }
  if (::fsync(in.get()) != 0) {
    Status s = ErrnoStatus("cannot fsync", src, errno);
    ::unlink(tmp.c_str());
    return s;
  }
  *bytes = static_cast<uint64_t>(st.st_size);
  return std::optional<std::string>(std::move(tmp));
}

// Copies `src` to an fsynced temp file in `dir`. Returns the temp path.
StatusOr<std::string> CopyToTemp(const std::string& src, const std::string& dir,
                                 const std::string& name, uint64_t* bytes) {
  Fd in(::open(src.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) return ErrnoStatus("cannot open", src, errno);
  Fd out;
  TM_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, name, "", &out, /*sync=*/false));
  Status s;
  *bytes = 0;
  // A reflink where the filesystem can (XFS, btrfs: instant, copy-on-write, so the object never
  // shares blocks that a later rewrite of `src` could change), else an in-kernel copy, else
  // read/write.
  bool done = ::ioctl(out.get(), FICLONE, in.get()) == 0;
  if (done) {
    struct stat st;
    if (::fstat(out.get(), &st) == 0) *bytes = static_cast<uint64_t>(st.st_size);
  }
  while (!done && s.ok()) {
    ssize_t n = ::copy_file_range(in.get(), nullptr, out.get(), nullptr, kCopyBufferSize * 64, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (*bytes == 0 &&
          (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
        break;  // not supported here: plain copy below
      }
      s = ErrnoStatus("cannot copy " + src + " to", tmp, errno);
      break;
    }
    if (n == 0) done = true;
    *bytes += static_cast<uint64_t>(n);
  }
  std::unique_ptr<char[]> buf(done ? nullptr : new char[kCopyBufferSize]);
  while (!done && s.ok()) {
    ssize_t n = ::read(in.get(), buf.get(), kCopyBufferSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      s = ErrnoStatus("cannot read", src, errno);
      break;
    }
    if (n == 0) break;
    s = WriteAll(out.get(), std::string_view(buf.get(), static_cast<size_t>(n)), tmp);
    *bytes += static_cast<uint64_t>(n);
  }
  if (s.ok() && ::fsync(out.get()) != 0) s = ErrnoStatus("cannot fsync", tmp, errno);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return tmp;
}

}  // namespace

StatusOr<std::string> LocalPathOf(std::string_view location) {
  std::string_view p = location;
  if (p.starts_with("file://")) {
    p.remove_prefix(7);
    if (!p.starts_with('/')) {
      return Status::InvalidArgument("unsupported file URL " + std::string(location) +
                                     ": use file:///absolute/path");
    }
  } else if (p.find("://") != std::string_view::npos) {
    return Status::InvalidArgument("not a local location: " + std::string(location));
  }
  if (p.empty()) return Status::InvalidArgument("empty path");
  return std::string(p);
}

StatusOr<std::string> LocalStorage::Read(std::string_view url, uint64_t offset, uint64_t length) {
  counters_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_ASSIGN_OR_RETURN(OpenObject obj, OpenForRead(path));
  TM_ASSIGN_OR_RETURN(std::string data, PreadRange(obj.fd.get(), obj.size, offset, length, path));
  counters_.bytes_read.fetch_add(data.size(), std::memory_order_relaxed);
  return data;
}

StatusOr<VersionedData> LocalStorage::ReadVersioned(std::string_view url) {
  counters_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_ASSIGN_OR_RETURN(OpenObject obj, OpenForRead(path));
  VersionedData out;
  TM_ASSIGN_OR_RETURN(out.data, PreadRange(obj.fd.get(), obj.size, 0, kToEnd, path));
  out.generation = std::move(obj.generation);
  counters_.bytes_read.fetch_add(out.data.size(), std::memory_order_relaxed);
  return out;
}

StatusOr<std::unique_ptr<ReadStream>> LocalStorage::OpenRead(std::string_view url, uint64_t offset,
                                                             uint64_t length) {
  counters_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_ASSIGN_OR_RETURN(OpenObject obj, OpenForRead(path));
  uint64_t begin = std::min(offset, obj.size);
  uint64_t end = begin + std::min(length, obj.size - begin);
  return std::unique_ptr<ReadStream>(
      new FileReadStream(std::move(obj), begin, end, path, &counters_.bytes_read));
}

StatusOr<ObjectInfo> LocalStorage::Stat(std::string_view url) {
  counters_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_ASSIGN_OR_RETURN(OpenObject obj, OpenForRead(path));
  return ObjectInfo{std::string(url), obj.size, std::move(obj.generation), obj.modified_ms};
}

Status LocalStorage::Write(std::string_view url, std::string_view data) {
  counters_.writes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_RETURN_IF_ERROR(CheckObjectPath(path));
  TM_RETURN_IF_ERROR(CheckNotVersioned(path));
  std::string dir = ParentOf(path);
  TM_RETURN_IF_ERROR(MakeDirs(dir));
  TM_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(dir, NameOf(path), data));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = ErrnoStatus("cannot rename " + tmp + " to", path, errno);
    ::unlink(tmp.c_str());
    return s;
  }
  TM_RETURN_IF_ERROR(FsyncDir(dir));
  counters_.bytes_written.fetch_add(data.size(), std::memory_order_relaxed);
  return Status::Ok();
}

Status LocalStorage::WriteFile(std::string_view url, const std::string& local_path) {
  return PublishFile(url, local_path, /*by_link=*/false);
}

Status LocalStorage::WriteFinishedFile(std::string_view url, const std::string& local_path) {
  return PublishFile(url, local_path, /*by_link=*/true);
}

Status LocalStorage::PublishFile(std::string_view url, const std::string& local_path,
                                 bool by_link) {
  counters_.writes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_RETURN_IF_ERROR(CheckObjectPath(path));
  TM_RETURN_IF_ERROR(CheckNotVersioned(path));
  std::string dir = ParentOf(path);
  TM_RETURN_IF_ERROR(MakeDirs(dir));
  uint64_t bytes = 0;
  std::optional<std::string> linked;
  if (by_link) {
    TM_ASSIGN_OR_RETURN(linked, LinkToTemp(local_path, dir, NameOf(path), &bytes));
  }
  std::string tmp;
  if (linked) {
    tmp = *linked;
  } else {
    TM_ASSIGN_OR_RETURN(tmp, CopyToTemp(local_path, dir, NameOf(path), &bytes));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status s = ErrnoStatus("cannot rename " + tmp + " to", path, errno);
    ::unlink(tmp.c_str());
    return s;
  }
  // A rename between two links of one file does nothing (the file was published already, as
  // when a publication is retried): the temporary name is still there.
  if (linked) ::unlink(tmp.c_str());
  TM_RETURN_IF_ERROR(FsyncDir(dir));
  counters_.bytes_written.fetch_add(bytes, std::memory_order_relaxed);
  return Status::Ok();
}

StatusOr<std::string> LocalStorage::CreateIfAbsent(std::string_view url, std::string_view data) {
  counters_.creates.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_RETURN_IF_ERROR(CheckObjectPath(path));
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    return Status::AlreadyExists(path + " already exists");
  }
  std::string vdir = VersionDir(path);
  TM_ASSIGN_OR_RETURN(Newest newest, FindNewest(vdir));
  if (newest.live()) return Status::AlreadyExists(path + " already exists");
  TM_RETURN_IF_ERROR(MakeDirs(vdir));
  Fd tmp_fd;
  TM_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(vdir, "c", data, &tmp_fd));
  uint64_t n = newest.n + 1;
  StatusOr<bool> won = LinkExclusive(tmp, tmp_fd.get(), vdir + "/" + GenerationName(n));
  ::unlink(tmp.c_str());
  if (!won.ok()) return won.status();
  if (!*won) return Status::AlreadyExists(path + " already exists (created concurrently)");
  TM_RETURN_IF_ERROR(FsyncDir(vdir));
  if (n >= 3) Supersede(vdir, n - 2);  // n - 1 is a tombstone or absent
  counters_.bytes_written.fetch_add(data.size(), std::memory_order_relaxed);
  return std::to_string(n);
}

StatusOr<std::string> LocalStorage::CompareAndSwap(std::string_view url, std::string_view data,
                                                   std::string_view expected_generation) {
  counters_.cas.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_RETURN_IF_ERROR(CheckObjectPath(path));
  std::string vdir = VersionDir(path);
  TM_ASSIGN_OR_RETURN(Newest newest, FindNewest(vdir));
  if (!newest.live()) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) {
      return Status::InvalidArgument(
          "cannot CompareAndSwap " + path +
          ": it was written by Write, not by CreateIfAbsent; conditional objects must be created "
          "with CreateIfAbsent");
    }
    return Status::FailedPrecondition("cannot CompareAndSwap " + path + ": it does not exist");
  }
  std::optional<uint64_t> expected = ParseGenerationString(expected_generation);
  if (!expected || *expected != newest.n) {
    return Status::FailedPrecondition(path + " changed: generation " + std::to_string(newest.n) +
                                      ", expected " + std::string(expected_generation));
  }
  Fd tmp_fd;
  TM_ASSIGN_OR_RETURN(std::string tmp, WriteTemp(vdir, "c", data, &tmp_fd));
  uint64_t n = *expected + 1;
  StatusOr<bool> won = LinkExclusive(tmp, tmp_fd.get(), vdir + "/" + GenerationName(n));
  ::unlink(tmp.c_str());
  if (!won.ok()) return won.status();
  if (!*won) {
    return Status::FailedPrecondition(path + " changed concurrently from generation " +
                                      std::string(expected_generation));
  }
  TM_RETURN_IF_ERROR(FsyncDir(vdir));
  if (n >= 3) Supersede(vdir, n - 2);  // keep the newest two: a reader may hold n - 1
  counters_.bytes_written.fetch_add(data.size(), std::memory_order_relaxed);
  return std::to_string(n);
}

StatusOr<std::vector<IncompleteWrite>> LocalStorage::ListIncomplete(std::string_view folder) {
  counters_.lists.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string dir, LocalPathOf(folder));
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const std::string url_prefix = folder.starts_with("file://") ? "file://" : "";
  std::vector<IncompleteWrite> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT || errno == ENOTDIR) return out;
    return ErrnoStatus("cannot list", dir, errno);
  }
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (IsTempName(name)) names.emplace_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    // ".<name>.tmp.<pid>.<random>" (WriteTemp) is a write of <name>.
    const std::string full = (dir == "/" ? "" : dir) + "/" + name;
    struct stat st;
    if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const std::string target = name.substr(1, name.rfind(".tmp.") - 1);
    out.push_back({url_prefix + (dir == "/" ? "" : dir) + "/" + target, full,
                   static_cast<uint64_t>(st.st_size)});
  }
  return out;
}

Status LocalStorage::RemoveIncomplete(const IncompleteWrite& write) {
  counters_.deletes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string target, LocalPathOf(write.url));
  // Only a temporary file of that object, in its folder, is ever removed.
  const std::string name = NameOf(write.handle);
  if (ParentOf(write.handle) != ParentOf(target) || !IsTempName(name) ||
      !name.starts_with("." + NameOf(target) + ".tmp.")) {
    return Status::InvalidArgument(write.handle + " is not a temporary file of " + write.url);
  }
  if (::unlink(write.handle.c_str()) != 0 && errno != ENOENT) {
    return ErrnoStatus("cannot remove", write.handle, errno);
  }
  return Status::Ok();
}

StatusOr<std::vector<ObjectInfo>> LocalStorage::List(std::string_view prefix) {
  counters_.lists.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string p, LocalPathOf(prefix));
  const std::string url_prefix = prefix.starts_with("file://") ? "file://" : "";
  std::string root;
  if (p.back() == '/') {
    root = p.size() == 1 ? "/" : p.substr(0, p.size() - 1);
  } else {
    root = ParentOf(p);
  }
  std::map<std::string, ObjectInfo> found;  // by path; sorted bytewise
  std::vector<std::string> pending = {root};
  std::set<std::pair<dev_t, ino_t>> visited;  // folders seen, against symbolic-link cycles
  if (struct stat rs; ::stat(root.c_str(), &rs) == 0) visited.insert({rs.st_dev, rs.st_ino});
  while (!pending.empty()) {
    std::string dir = std::move(pending.back());
    pending.pop_back();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) continue;  // vanished, or not a folder
      return ErrnoStatus("cannot list", dir, errno);
    }
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name == "." || name == ".." || IsTempName(name)) continue;
      names.emplace_back(name);
    }
    ::closedir(d);
    for (const std::string& name : names) {
      std::string full = (dir == "/" ? "" : dir) + "/" + name;
      struct stat st;
      if (::stat(full.c_str(), &st) != 0) continue;  // vanished or dangling
      if (S_ISDIR(st.st_mode)) {
        if (name.ends_with(kVersionSuffix)) {
          std::string key = full.substr(0, full.size() - kVersionSuffix.size());
          if (VersionDirExists(key)) {
            if (key.starts_with(p) && !found.contains(key)) {
              StatusOr<OpenObject> obj = OpenForRead(key);
              if (obj.ok()) {
                found[key] = ObjectInfo{url_prefix + key, obj->size, obj->generation};
              } else if (!obj.status().Is(StatusCode::kNotFound)) {
                return obj.status();
              }
            }
            continue;
          }
        }
        std::string sub = full + "/";
        if ((sub.starts_with(p) || p.starts_with(sub)) &&
            visited.insert({st.st_dev, st.st_ino}).second) {
          pending.push_back(full);
        }
      } else if (S_ISREG(st.st_mode) && full.starts_with(p)) {
        found[full] =
            ObjectInfo{url_prefix + full, static_cast<uint64_t>(st.st_size), PlainGeneration(st)};
      }
    }
  }
  std::vector<ObjectInfo> out;
  out.reserve(found.size());
  for (auto& [key, info] : found) out.push_back(std::move(info));
  return out;
}

Status LocalStorage::Delete(std::string_view url) {
  counters_.deletes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(std::string path, LocalPathOf(url));
  TM_RETURN_IF_ERROR(CheckObjectPath(path));
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    if (errno == EISDIR || errno == EPERM) {
      struct stat st;
      if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        return Status::InvalidArgument("cannot Delete " + path + ": it is a folder");
      }
    }
    return ErrnoStatus("cannot delete", path, errno);
  }
  std::string vdir = VersionDir(path);
  if (!VersionDirExists(path)) return Status::Ok();
  // A tombstone becomes the next generation, so generation numbers are never reused.
  for (int attempt = 0; attempt < kOpenRetries; ++attempt) {
    TM_ASSIGN_OR_RETURN(Newest newest, FindNewest(vdir));
    if (!newest.live()) return Status::Ok();
    std::string g = vdir + "/" + GenerationName(newest.n + 1);
    if (::symlink(std::string(kTombstoneTarget).c_str(), g.c_str()) == 0) {
      TM_RETURN_IF_ERROR(FsyncDir(vdir));
      Supersede(vdir, newest.n);
      if (newest.n >= 2) Supersede(vdir, newest.n - 1);
      return Status::Ok();
    }
    if (errno != EEXIST) return ErrnoStatus("cannot delete", path, errno);
  }
  return Status::Unavailable("cannot delete " + path + ": it changed too often");
}

StorageCounters LocalStorage::counters() const { return counters_.Snapshot(); }

namespace {

// inotify on the folder, and on each versioned object's folder created in it (whose generations
// are the objects' contents): a new object first shows as its ".v" folder, then as a temporary
// file in it, then as its first generation. Each object's folder is watched until a generation is
// there, so the watches do not pile up with the objects (a one-shot watch would end at the
// temporary file and miss the generation).
class FolderWatch : public ChangeWatch {
 public:
  FolderWatch(int fd, int root_wd, std::string folder)
      : fd_(fd), root_wd_(root_wd), folder_(std::move(folder)) {}
  ~FolderWatch() override { ::close(fd_); }

  bool Wait(std::chrono::milliseconds timeout) override {
    struct pollfd p = {fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, timeout.count())));
    if (ready <= 0) return false;
    bool seen = false;
    alignas(struct inotify_event) char buf[8192];
    for (;;) {
      const ssize_t n = ::read(fd_, buf, sizeof(buf));
      if (n <= 0) break;  // EAGAIN: drained
      for (ssize_t at = 0; at < n;) {
        const auto* e = reinterpret_cast<const struct inotify_event*>(buf + at);
        at += static_cast<ssize_t>(sizeof(struct inotify_event) + e->len);
        seen = true;
        const std::string_view name(e->len > 0 ? e->name : "");
        if (e->wd != root_wd_ && ParseGenerationName(name)) {
          ::inotify_rm_watch(fd_, e->wd);  // the object is there
        } else if (e->wd == root_wd_ && (e->mask & IN_ISDIR) && name.ends_with(kVersionSuffix)) {
          // The caller looks now in any case; the watch is for a first generation still to come
          // (dropped at once if it is there: the watches stay as few as the writes in flight).
          const std::string vdir = folder_ + "/" + std::string(name);
          const int wd =
              ::inotify_add_watch(fd_, vdir.c_str(), IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
          struct stat st;
          if (wd >= 0 && ::lstat((vdir + "/" + GenerationName(1)).c_str(), &st) == 0) {
            ::inotify_rm_watch(fd_, wd);
          }
        }
      }
    }
    return seen;
  }

 private:
  const int fd_;
  const int root_wd_;
  const std::string folder_;
};

}  // namespace

std::unique_ptr<ChangeWatch> LocalStorage::Watch(std::string_view prefix) {
  auto path = LocalPathOf(prefix);
  if (!path.ok() || path->empty()) return nullptr;
  std::string folder = *path;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  if (!MakeDirs(folder).ok()) return nullptr;  // an empty folder is no object: harmless
  const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd < 0) return nullptr;  // e.g. the limit of inotify instances: the caller polls
  const int wd = ::inotify_add_watch(fd, folder.c_str(), IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
  if (wd < 0) {
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<FolderWatch>(fd, wd, std::move(folder));
}

}  // namespace tokenmill
