#include "tokenmill/launch/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace tokenmill::launch {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

// Closes a file descriptor once.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// The environment for a child: this process's, with `overrides` added or replaced.
std::vector<std::string> ChildEnvironment(const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> by_name;
  std::vector<std::string> order;
  auto put = [&](const std::string& entry) {
    std::string name = entry.substr(0, entry.find('='));
    if (by_name.find(name) == by_name.end()) order.push_back(name);
    by_name[name] = entry;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) put(*e);
  for (const std::string& entry : overrides) put(entry);
  std::vector<std::string> env;
  env.reserve(order.size());
  for (const std::string& name : order) env.push_back(by_name[name]);
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& words) {
  std::vector<char*> out;
  out.reserve(words.size() + 1);
  for (std::string& w : words) out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

// Writes to a pipe whose reader may have gone: EPIPE instead of a SIGPIPE that kills us.
ssize_t WriteNoSigpipe(int fd, const char* data, size_t n) {
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  ssize_t written = ::write(fd, data, n);
  int saved_errno = errno;
  if (written < 0 && saved_errno == EPIPE) {
    struct timespec zero = {0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);  // consume the pending SIGPIPE
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
  errno = saved_errno;
  return written;
}

}  // namespace

std::string ProcessResult::Describe() const {
  if (term_signal != 0) return "killed by " + SignalName(term_signal);
  return "exit code " + std::to_string(exit_code);
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGKILL:
      return "SIGKILL";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    default:
      return "signal " + std::to_string(sig);
  }
}

std::string FindExecutable(std::string_view name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string_view::npos) {
    std::string path(name);
    if (!IsExecutableFile(path)) return "";
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + std::string(name);
    if (IsExecutableFile(candidate)) {
      std::error_code ec;
      std::filesystem::path abs = std::filesystem::absolute(candidate, ec);
      return ec ? candidate : abs.lexically_normal().string();
    }
    start = end + 1;
  }
  return "";
}

StatusOr<std::string> SelfExecutablePath() {
  std::error_code ec;
  std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) {
    return Status::IoError("cannot read /proc/self/exe to find the tokenmill binary (" +
                           ec.message() + "): pass the binary's path with --binary");
  }
  return path.string();
}

std::string ShellQuote(std::string_view word) {
  if (word.empty()) return "''";
  bool safe = true;
  for (char c : word) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              std::strchr("_@%+=:,./-", c) != nullptr;
    if (!ok) {
      safe = false;
      break;
    }
  }
  if (safe) return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

std::string ShellCommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) line += ' ';
    line += ShellQuote(argv[i]);
  }
  return line;
}

StatusOr<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                   const RunOptions& options) {
  if (argv.empty() || argv[0].empty()) {
    return Status::InvalidArgument("RunProcess: no program given");
  }
  std::string program = FindExecutable(argv[0]);
  if (program.empty()) {
    return Status::NotFound("'" + argv[0] + "' was not found on PATH");
  }

  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return Status::IoError("pipe: " + ErrnoText(errno));
  Fd in_read(in_pipe[0]), in_write(in_pipe[1]);
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Status::IoError("pipe: " + ErrnoText(errno));
  Fd out_read(out_pipe[0]), out_write(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Status::IoError("pipe: " + ErrnoText(errno));
  Fd err_read(err_pipe[0]), err_write(err_pipe[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_write.get(), 2);
  if (!options.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t default_signals, empty_mask;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  sigemptyset(&empty_mask);
  posix_spawnattr_setsigdefault(&attr, &default_signals);
  posix_spawnattr_setsigmask(&attr, &empty_mask);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> args = argv;
  args[0] = program;
  std::vector<char*> c_args = CStrings(args);
  std::vector<std::string> env = ChildEnvironment(options.env_overrides);
  std::vector<char*> c_env = CStrings(env);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, c_args.data(), c_env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    return Status::IoError("cannot start " + program + ": " + ErrnoText(rc));
  }
  in_read.Close();
  out_write.Close();
  err_write.Close();

  ProcessResult result;
  size_t in_offset = 0;
  const std::string& input = options.stdin_data;
  if (input.empty()) in_write.Close();
  if (in_write.get() >= 0) ::fcntl(in_write.get(), F_SETFL, O_NONBLOCK);
  char buf[65536];
  while (out_read.get() >= 0 || err_read.get() >= 0 || in_write.get() >= 0) {
    struct pollfd fds[3];
    int n = 0;
    int out_idx = -1, err_idx = -1, in_idx = -1;
    if (out_read.get() >= 0) {
      out_idx = n;
      fds[n++] = {out_read.get(), POLLIN, 0};
    }
    if (err_read.get() >= 0) {
      err_idx = n;
      fds[n++] = {err_read.get(), POLLIN, 0};
    }
    if (in_write.get() >= 0) {
      in_idx = n;
      fds[n++] = {in_write.get(), POLLOUT, 0};
    }
    int ready = ::poll(fds, n, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      break;
    }
    auto drain = [&](int idx, Fd& fd, std::string& sink) {
      if (idx < 0 || fds[idx].revents == 0) return;
      ssize_t got = ::read(fd.get(), buf, sizeof(buf));
      if (got > 0) {
        sink.append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        fd.Close();
      }
    };
    drain(out_idx, out_read, result.out);
    drain(err_idx, err_read, result.err);
    if (in_idx >= 0 && fds[in_idx].revents != 0) {
      ssize_t put =
          WriteNoSigpipe(in_write.get(), input.data() + in_offset, input.size() - in_offset);
      if (put > 0) {
        in_offset += static_cast<size_t>(put);
        if (in_offset == input.size()) in_write.Close();
      } else if (put < 0 && errno != EINTR && errno != EAGAIN) {
        in_write.Close();  // the program stopped reading; its exit code tells the rest
      }
    }
  }

  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) return Status::IoError("waitpid: " + ErrnoText(errno));
  }
  if (WIFEXITED(wstatus)) {
    result.exit_code = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    result.term_signal = WTERMSIG(wstatus);
  }
  return result;
}

}  // namespace tokenmill::launch
