#include "tokenmill/storage/test_http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace tokenmill {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool WriteAllFd(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// Reads one request (head + Content-Length body). False on EOF or error.
bool ReadRequest(int fd, TestHttpRequest* req) {
  std::string buf;
  char tmp[65536];
  size_t head_end;
  while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
    ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buf.append(tmp, static_cast<size_t>(n));
  }
  std::string head = buf.substr(0, head_end);
  size_t line_end = head.find("\r\n");
  std::string line = head.substr(0, line_end);
  size_t sp1 = line.find(' ');
  size_t sp2 = line.find(' ', sp1 + 1);
  req->method = line.substr(0, sp1);
  req->target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
  while (pos < head.size()) {
    size_t e = head.find("\r\n", pos);
    if (e == std::string::npos) e = head.size();
    std::string h = head.substr(pos, e - pos);
    size_t colon = h.find(':');
    if (colon != std::string::npos) {
      std::string v = h.substr(colon + 1);
      while (!v.empty() && v.front() == ' ') v.erase(0, 1);
      req->headers[Lower(h.substr(0, colon))] = v;
    }
    pos = e + 2;
  }
  size_t length = 0;
  if (auto it = req->headers.find("content-length"); it != req->headers.end()) {
    length = std::stoul(it->second);
  }
  if (req->Header("expect") == "100-continue") {
    WriteAllFd(fd, "HTTP/1.1 100 Continue\r\n\r\n");
  }
  std::string body = buf.substr(head_end + 4);
  while (body.size() < length) {
    ssize_t n = ::recv(fd, tmp, sizeof(tmp), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    body.append(tmp, static_cast<size_t>(n));
  }
  req->body = body.substr(0, length);
  req->raw = head + "\r\n\r\n" + req->body;
  return true;
}

}  // namespace

std::string TestHttpRequest::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string() : it->second;
}

TestHttpServer::TestHttpServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  ::listen(listen_fd_, 64);
  socklen_t len = sizeof(addr);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

TestHttpServer::~TestHttpServer() {
  stop_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
    workers.swap(workers_);
  }
  for (auto& t : workers) t.join();
}

void TestHttpServer::AcceptLoop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.push_back(fd);
    workers_.emplace_back([this, fd] { Serve(fd); });
  }
}

void TestHttpServer::Serve(int fd) {
  TestHttpRequest req;
  if (ReadRequest(fd, &req)) {
    ++requests_;
    std::optional<std::string> response = handler_(req);
    if (response) WriteAllFd(fd, *response);
  }
  std::lock_guard<std::mutex> lock(mu_);
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  std::erase(open_fds_, fd);
}

std::string MakeHttpResponse(int status, std::vector<std::string> headers, std::string_view body) {
  std::string r = "HTTP/1.1 " + std::to_string(status) + " Status\r\n";
  for (const auto& h : headers) r += h + "\r\n";
  r += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  r += body;
  return r;
}

std::optional<std::string> ForwardHttp(int port, const TestHttpRequest& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ::close(fd);
    return std::nullopt;
  }
  // Re-emit the request with "Connection: close" so the upstream ends the response with EOF.
  std::string raw = request.raw;
  size_t line_end = raw.find("\r\n");
  raw.insert(line_end + 2, "Connection: close\r\n");
  size_t expect = raw.find("Expect: 100-continue\r\n");
  if (expect != std::string::npos) raw.erase(expect, 22);
  if (!WriteAllFd(fd, raw)) {
    ::close(fd);
    return std::nullopt;
  }
  std::string response;
  char buf[65536];
  while (true) {
    ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    response.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (response.empty()) return std::nullopt;
  return response;
}

}  // namespace tokenmill
