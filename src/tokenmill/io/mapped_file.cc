#include "tokenmill/io/mapped_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace tokenmill {
namespace {

// The guarded mapping, read by the signal handler (lock-free atomics and a fixed buffer: a
// handler may not allocate or lock).
std::atomic<const char*> guarded_begin{nullptr};
std::atomic<size_t> guarded_size{0};
char guarded_message[4096];
std::atomic<size_t> guarded_message_size{0};

void OnSigbus(int sig, siginfo_t* info, void*) {
  const char* begin = guarded_begin.load();
  const auto* at = static_cast<const char*>(info->si_addr);
  // si_code > 0: a fault of the kernel's (not a signal sent by kill or raise), at si_addr.
  if (info->si_code > 0 && begin != nullptr && at >= begin && at < begin + guarded_size.load()) {
    const ssize_t ignored = ::write(STDERR_FILENO, guarded_message, guarded_message_size.load());
    (void)ignored;
    ::_exit(1);
  }
  // Not ours: the default action. A fault happens again when the handler returns; a signal
  // that was sent is raised again (blocked until then).
  ::signal(sig, SIG_DFL);
  if (info->si_code <= 0) ::raise(sig);
}

void Guard(const char* data, size_t size, const std::string& path) {
  static const bool installed = [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = OnSigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, nullptr) == 0;
  }();
  (void)installed;
  const std::string message = "tokenmill: " + path +
                              " became shorter while it was read (truncated or rewritten by "
                              "another process); run the command again once the file is "
                              "complete\n";
  guarded_begin.store(nullptr);
  const size_t n = std::min(message.size(), sizeof(guarded_message));
  std::memcpy(guarded_message, message.data(), n);
  guarded_message_size.store(n);
  guarded_size.store(size);
  guarded_begin.store(data);
}

}  // namespace

std::unique_ptr<MappedFile> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat st;
  void* p = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  const auto size = static_cast<size_t>(st.st_size);
  ::madvise(p, size, MADV_SEQUENTIAL);
  Guard(static_cast<const char*>(p), size, path);
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(p), size));
}

MappedFile::~MappedFile() {
  if (guarded_begin.load() == data_) guarded_begin.store(nullptr);
  ::munmap(const_cast<char*>(data_), size_);
}

size_t MappedFile::Populate(size_t pos) const {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t from = pos / page * page;
  const size_t to = std::min(size_, from + kPopulateBytes);
#ifdef MADV_POPULATE_READ
  ::madvise(const_cast<char*>(data_) + from, to - from, MADV_POPULATE_READ);
#endif
  return to;
}

size_t MappedFile::Release(size_t pos) const {
  const auto page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t upto = pos / page * page;
  if (upto > 0) ::madvise(const_cast<char*>(data_), upto, MADV_DONTNEED);
  return upto;
}

}  // namespace tokenmill
