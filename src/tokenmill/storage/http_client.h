// HttpClient: a small libcurl wrapper for the object-store backends (S3, GCS, the GCE metadata
// server). It reuses connections (a pool of easy handles: curl_easy_reset keeps each handle's
// connection cache), signs requests with libcurl's AWS SigV4 when asked, streams request bodies
// from memory or from a file range, retries transient failures with exponential backoff and full
// jitter, and never lets a secret reach a log or an error message (RedactSecrets).
//
// Thread-safety: thread-safe; concurrent requests use different handles.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill {

struct CurlLibrary;  // curl_library.h

struct HttpRequest {
  std::string method = "GET";        // GET, HEAD, PUT, POST, DELETE
  std::string url;                   // fully encoded
  std::vector<std::string> headers;  // "Name: value"
  // Request body: `body`, or `body_file` bytes [body_offset, body_offset + body_length).
  std::string_view body = {};
  std::string body_file = {};
  uint64_t body_offset = 0;
  uint64_t body_length = 0;
  bool has_body = false;  // send a body (PUT/POST), even an empty one
  // "aws:amz:<region>:s3" style provider string for CURLOPT_AWS_SIGV4; empty: no signing.
  std::string sigv4 = {};
  std::string sigv4_userpwd = {};  // "key:secret"
  // Fails the transfer if the response body grows beyond this many bytes. Default: no limit.
  uint64_t max_response_bytes = UINT64_MAX;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names; the last value wins
  std::string body;

  // The header's value or "" if absent. `name` must be lower-case.
  std::string Header(const std::string& name) const;
};

struct HttpOptions {
  // Attempts per request for retryable failures (transport errors, 408, 429, 5xx), including
  // the first. Default: 6 (TOKENMILL_HTTP_MAX_ATTEMPTS overrides).
  int max_attempts = 6;
  // Backoff before attempt n+1: uniform in [0, min(max_backoff, initial_backoff * 2^n)].
  // Default: 100 ms and 10 s.
  int initial_backoff_ms = 100;
  int max_backoff_ms = 10000;
  // TCP connect timeout. Default: 10 s.
  int connect_timeout_ms = 10000;
  // A transfer slower than low_speed_bytes per second for low_speed_time_s is a timeout.
  // Default: 1 byte/s for 60 s.
  int low_speed_bytes = 1;
  int low_speed_time_s = 60;
  // Whole-request timeout; 0 = none. Default: 0.
  int request_timeout_ms = 0;
};

// The outcome of a transfer that did not produce an HTTP status.
enum class TransportError { kNone, kTimeout, kConnect, kNetwork, kOther };

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // One attempt, no retry. A response of any HTTP status is OK; a transport failure (connection
  // refused, reset, timeout) is Unavailable with the URL and libcurl's reason, and
  // `transport_error` (optional) says which.
  StatusOr<HttpResponse> SendOnce(const HttpRequest& request,
                                  TransportError* transport_error = nullptr);

  // SendOnce with retries of transport failures and of 408, 429 and 5xx answers, with backoff.
  // Only for idempotent requests. Returns the last response (which may be a 5xx after the last
  // attempt) or the last transport error. Each retry increments `retries` (optional).
  StatusOr<HttpResponse> Send(const HttpRequest& request, std::atomic<uint64_t>* retries = nullptr);

  // Sleeps the backoff before retry number `attempt` (0-based).
  void Backoff(int attempt) const;

  const HttpOptions& options() const { return options_; }

  // True for 408, 429 and 5xx.
  static bool IsRetryableStatus(long status);

 private:
  // A pooled handle, or a new one from `curl`.
  void* Acquire(const CurlLibrary& curl);
  void Release(void* handle);

  HttpOptions options_;
  std::mutex mu_;
  std::vector<void*> idle_;  // CURL* handles; guarded by mu_
};

// Percent-encodes `s` as RFC 3986 (unreserved characters kept); '/' is kept if keep_slash.
std::string UriEncode(std::string_view s, bool keep_slash);

// A decimal number of digits only, as Content-Length and Content-Range carry; *ok is false (and
// the result 0) for anything else, the empty text included.
uint64_t ParseU64(std::string_view s, bool* ok);

// An HTTP date (RFC 9110's IMF-fixdate, "Sun, 06 Nov 1994 08:49:37 GMT", as S3 and GCS send in
// Date and Last-Modified) in ms since the Unix epoch; 0 if `text` is not one.
int64_t ParseHttpDate(std::string_view text);

// Builds "?a=1&b=2" from the parameters sorted by name, values encoded (SigV4 canonical form).
// Parameters with an empty value are written "name=". Empty input gives "".
std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> params);

}  // namespace tokenmill
