// TestHttpServer: a tiny HTTP/1.1 server on 127.0.0.1 for the storage tests: it plays a GCE
// metadata server, a minimal GCS XML endpoint, or a fault-injecting proxy in front of a real S3
// server. One request per connection (every answer should carry "Connection: close").
// Test-only code. Thread-safety: the handler runs on one thread per connection.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace tokenmill {

struct TestHttpRequest {
  std::string method;
  std::string target;                          // path and query as sent
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string raw;  // the whole request as received

  std::string Header(const std::string& lower_name) const;
};

class TestHttpServer {
 public:
  // Returns the raw response to send, or nullopt to close the connection without an answer.
  using Handler = std::function<std::optional<std::string>(const TestHttpRequest&)>;

  explicit TestHttpServer(Handler handler);
  ~TestHttpServer();
  TestHttpServer(const TestHttpServer&) = delete;
  TestHttpServer& operator=(const TestHttpServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_.load(); }

 private:
  void AcceptLoop();
  void Serve(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::thread> workers_;  // guarded by mu_
  std::vector<int> open_fds_;         // guarded by mu_
};

// "HTTP/1.1 <status> <reason>" with the headers, Content-Length, Connection: close and the body.
std::string MakeHttpResponse(int status, std::vector<std::string> headers = {},
                             std::string_view body = "");

// Sends `request` to 127.0.0.1:`port` with "Connection: close" and returns the raw response, or
// nullopt if the upstream failed.
std::optional<std::string> ForwardHttp(int port, const TestHttpRequest& request);

}  // namespace tokenmill
