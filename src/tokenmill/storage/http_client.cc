#include "tokenmill/storage/http_client.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>

#include "tokenmill/base/log.h"
#include "tokenmill/storage/curl_library.h"

namespace tokenmill {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

struct TransferState {
  HttpResponse* response = nullptr;
  uint64_t max_response_bytes = UINT64_MAX;
  bool too_big = false;
  // Request body source.
  std::string_view full_body;
  std::string_view body;
  uint64_t file_start = 0;
  uint64_t file_length = 0;
  int fd = -1;
  uint64_t file_pos = 0;
  uint64_t remaining = 0;
  int read_errno = 0;
};

// Room for the whole body before its first bytes, as its Content-Length announces (up to
// kMaxReserveBytes and max_response_bytes: a larger body grows as it comes): an 8 MiB range is then
// written once, not copied at each doubling of the string into fresh pages.
void ReserveBody(TransferState& st) {
  constexpr uint64_t kMaxReserveBytes = uint64_t{64} << 20;
  bool ok = false;
  const uint64_t length = ParseU64(st.response->Header("content-length"), &ok);
  if (!ok) return;
  st.response->body.reserve(std::min({length, st.max_response_bytes, kMaxReserveBytes}));
}

size_t OnWrite(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<TransferState*>(user);
  size_t bytes = size * n;
  if (st->response->body.size() + bytes > st->max_response_bytes) {
    st->too_big = true;
    return 0;
  }
  if (st->response->body.empty()) ReserveBody(*st);
  st->response->body.append(data, bytes);
  return bytes;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<TransferState*>(user);
  size_t bytes = size * n;
  std::string_view line(data, bytes);
  if (line.starts_with("HTTP/")) {
    st->response->headers.clear();  // a new response (after 100-continue or a redirect)
    return bytes;
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    st->response->headers[Lower(Trim(line.substr(0, colon)))] =
        std::string(Trim(line.substr(colon + 1)));
  }
  return bytes;
}

size_t OnRead(char* buf, size_t size, size_t n, void* user) {
  auto* st = static_cast<TransferState*>(user);
  size_t want = size * n;
  if (st->fd < 0) {
    size_t k = std::min(want, st->body.size());
    std::memcpy(buf, st->body.data(), k);
    st->body.remove_prefix(k);
    return k;
  }
  want = static_cast<size_t>(std::min<uint64_t>(want, st->remaining));
  if (want == 0) return 0;
  while (true) {
    ssize_t r = ::pread(st->fd, buf, want, static_cast<off_t>(st->file_pos));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      st->read_errno = r < 0 ? errno : EIO;
      return CURL_READFUNC_ABORT;
    }
    st->file_pos += static_cast<uint64_t>(r);
    st->remaining -= static_cast<uint64_t>(r);
    return static_cast<size_t>(r);
  }
}

// Rewinds the body when libcurl must send it again within one transfer.
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* st = static_cast<TransferState*>(user);
  if (origin != SEEK_SET || offset < 0) return CURL_SEEKFUNC_CANTSEEK;
  uint64_t off = static_cast<uint64_t>(offset);
  if (st->fd < 0) {
    if (off > st->full_body.size()) return CURL_SEEKFUNC_FAIL;
    st->body = st->full_body.substr(off);
  } else {
    if (off > st->file_length) return CURL_SEEKFUNC_FAIL;
    st->file_pos = st->file_start + off;
    st->remaining = st->file_length - off;
  }
  return CURL_SEEKFUNC_OK;
}

TransportError Classify(CURLcode code) {
  switch (code) {
    case CURLE_OK:
      return TransportError::kNone;
    case CURLE_OPERATION_TIMEDOUT:
      return TransportError::kTimeout;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransportError::kConnect;
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return TransportError::kNetwork;
    default:
      return TransportError::kOther;
  }
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x <= 0 || x > 1000) return fallback;
  return static_cast<int>(x);
}

}  // namespace

std::string HttpResponse::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? std::string() : it->second;
}

HttpClient::HttpClient(HttpOptions options) : options_(options) {
  options_.max_attempts = EnvInt("TOKENMILL_HTTP_MAX_ATTEMPTS", options_.max_attempts);
}

HttpClient::~HttpClient() {
  if (idle_.empty()) return;
  const CurlLibrary* curl = *Curl();  // loaded: the handles came from it
  for (void* h : idle_) curl->easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::Acquire(const CurlLibrary& curl) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl.easy_init();
}

void HttpClient::Release(void* handle) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(handle);
}

bool HttpClient::IsRetryableStatus(long status) {
  return status == 408 || status == 429 || (status >= 500 && status <= 599);
}

void HttpClient::Backoff(int attempt) const {
  thread_local std::mt19937_64 gen(std::random_device{}());
  double cap = std::min<double>(options_.max_backoff_ms,
                                options_.initial_backoff_ms * std::pow(2.0, attempt));
  std::uniform_real_distribution<double> dist(0, cap);
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(dist(gen) * 1000)));
}

StatusOr<HttpResponse> HttpClient::SendOnce(const HttpRequest& request,
                                            TransportError* transport_error) {
  if (transport_error != nullptr) *transport_error = TransportError::kNone;
  TM_ASSIGN_OR_RETURN(const CurlLibrary* lib, Curl());
  CURL* curl = static_cast<CURL*>(Acquire(*lib));
  if (curl == nullptr) return Status::Internal("libcurl could not create a handle");
  lib->easy_reset(curl);

  HttpResponse response;
  TransferState st;
  st.response = &response;
  st.max_response_bytes = request.max_response_bytes;
  int fd = -1;
  if (request.has_body && !request.body_file.empty()) {
    fd = ::open(request.body_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      Release(curl);
      std::string m = "cannot open " + request.body_file + ": " + std::strerror(errno);
      return errno == ENOENT ? Status::NotFound(m) : Status::IoError(m);
    }
    st.fd = fd;
    st.file_start = st.file_pos = request.body_offset;
    st.file_length = st.remaining = request.body_length;
  } else {
    st.full_body = st.body = request.body;
  }

  char errbuf[CURL_ERROR_SIZE] = {0};
  // Every option is checked: a request is never sent without one that libcurl refused (say,
  // unsigned, or without its timeouts). The first refusal is reported.
  CURLoption refused = CURLOPT_URL;
  CURLcode refused_code = CURLE_OK;
  auto set = [&](CURLoption option, auto value) {
    const CURLcode code = lib->easy_setopt(curl, option, value);
    if (code != CURLE_OK && refused_code == CURLE_OK) {
      refused = option;
      refused_code = code;
    }
  };
  set(CURLOPT_URL, request.url.c_str());
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_ERRORBUFFER, errbuf);
  set(CURLOPT_TCP_KEEPALIVE, 1L);
  set(CURLOPT_TCP_NODELAY, 1L);
  set(CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout_ms));
  set(CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(options_.low_speed_bytes));
  set(CURLOPT_LOW_SPEED_TIME, static_cast<long>(options_.low_speed_time_s));
  if (options_.request_timeout_ms > 0) {
    set(CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout_ms));
  }
  set(CURLOPT_WRITEFUNCTION, OnWrite);
  set(CURLOPT_WRITEDATA, &st);
  set(CURLOPT_HEADERFUNCTION, OnHeader);
  set(CURLOPT_HEADERDATA, &st);

  const std::string& m = request.method;
  if (m == "HEAD") {
    set(CURLOPT_NOBODY, 1L);
  } else if (request.has_body || m == "PUT" || m == "POST") {
    uint64_t size = fd >= 0 ? request.body_length : request.body.size();
    set(CURLOPT_UPLOAD, 1L);
    set(CURLOPT_READFUNCTION, OnRead);
    set(CURLOPT_READDATA, &st);
    set(CURLOPT_SEEKFUNCTION, OnSeek);
    set(CURLOPT_SEEKDATA, &st);
    set(CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(size));
    if (m != "PUT") set(CURLOPT_CUSTOMREQUEST, m.c_str());
  } else if (m != "GET") {
    set(CURLOPT_CUSTOMREQUEST, m.c_str());
  }

  struct curl_slist* headers = nullptr;
  for (const std::string& h : request.headers) headers = lib->slist_append(headers, h.c_str());
  if (headers != nullptr) set(CURLOPT_HTTPHEADER, headers);
  if (!request.sigv4.empty()) {
    set(CURLOPT_AWS_SIGV4, request.sigv4.c_str());
    set(CURLOPT_USERPWD, request.sigv4_userpwd.c_str());
  }
  if (refused_code != CURLE_OK) {
    lib->easy_setopt(curl, CURLOPT_USERPWD, static_cast<const char*>(nullptr));
    lib->slist_free_all(headers);
    if (fd >= 0) ::close(fd);
    Release(curl);
    return CurlOptionError(*lib, refused, refused_code);
  }

  auto start = std::chrono::steady_clock::now();
  CURLcode code = lib->easy_perform(curl);
  long status = 0;
  lib->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  // Forget the credentials before the handle goes back to the pool.
  lib->easy_setopt(curl, CURLOPT_USERPWD, static_cast<const char*>(nullptr));
  lib->slist_free_all(headers);
  if (fd >= 0) ::close(fd);
  Release(curl);

  if (GetLogLevel() <= LogLevel::kDebug) {
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    LogDebug(m + " " + request.url + " -> " +
             (code == CURLE_OK ? std::to_string(status) : std::string(lib->easy_strerror(code))) +
             " in " + std::to_string(static_cast<int>(ms)) + " ms");
  }

  if (code != CURLE_OK) {
    if (st.too_big) {
      return Status::DataLoss(m + " " + RedactSecrets(request.url) + ": response larger than " +
                              std::to_string(request.max_response_bytes) + " bytes");
    }
    if (st.read_errno != 0) {
      return Status::IoError("cannot read " + request.body_file +
                             " while uploading it: " + std::strerror(st.read_errno));
    }
    if (transport_error != nullptr) *transport_error = Classify(code);
    std::string reason = errbuf[0] != '\0' ? errbuf : lib->easy_strerror(code);
    return Status::Unavailable(RedactSecrets(m + " " + request.url + ": " + reason));
  }
  response.status = status;
  return response;
}

StatusOr<HttpResponse> HttpClient::Send(const HttpRequest& request,
                                        std::atomic<uint64_t>* retries) {
  for (int attempt = 0;; ++attempt) {
    TransportError te;
    StatusOr<HttpResponse> r = SendOnce(request, &te);
    bool last = attempt + 1 >= options_.max_attempts;
    bool retry = false;
    int retry_after_ms = 0;
    if (!r.ok()) {
      retry = te != TransportError::kNone && te != TransportError::kOther;
    } else if (IsRetryableStatus(r->status)) {
      retry = true;
      std::string ra = r->Header("retry-after");
      if (!ra.empty() &&
          std::all_of(ra.begin(), ra.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
          ra.size() < 6) {
        retry_after_ms = std::min(std::stoi(ra) * 1000, options_.max_backoff_ms);
      }
    }
    if (!retry || last) return r;
    if (retries != nullptr) retries->fetch_add(1, std::memory_order_relaxed);
    LogDebug("retrying " + request.method + " " + RedactSecrets(request.url) + " (attempt " +
             std::to_string(attempt + 2) + ")");
    if (retry_after_ms > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(retry_after_ms));
    } else {
      Backoff(attempt);
    }
  }
}

uint64_t ParseU64(std::string_view s, bool* ok) {
  uint64_t v = 0;
  *ok = !s.empty();
  for (char c : s) {
    if (c < '0' || c > '9') {
      *ok = false;
      return 0;
    }
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

int64_t ParseHttpDate(std::string_view text) {
  // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes, fixed positions.
  static constexpr std::string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
  if (text.size() != 29 || text[3] != ',' || text[4] != ' ' || text[7] != ' ' || text[11] != ' ' ||
      text[16] != ' ' || text[19] != ':' || text[22] != ':' || text.substr(25) != " GMT") {
    return 0;
  }
  auto number = [&](size_t at, size_t n, int* out) {
    int v = 0;
    for (size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') return false;
      v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return true;
  };
  int day, year, hour, minute, second;
  const size_t month = kMonths.find(text.substr(8, 3));
  if (month == std::string_view::npos || month % 3 != 0 || !number(5, 2, &day) ||
      !number(12, 4, &year) || !number(17, 2, &hour) || !number(20, 2, &minute) ||
      !number(23, 2, &second) || day < 1 || day > 31 || year < 1970 || hour > 23 || minute > 59 ||
      second > 60) {
    return 0;
  }
  // Days since the epoch of a proleptic Gregorian date (no time zone, no leap seconds).
  const int m = static_cast<int>(month / 3) + 1;
  const int y = year - (m <= 2);
  const int era = y / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = int64_t{era} * 146097 + doe - 719468;
  return ((days * 24 + hour) * 60 + minute) * 60000 + int64_t{second} * 1000;
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string CanonicalQuery(std::vector<std::pair<std::string, std::string>> params) {
  if (params.empty()) return "";
  for (auto& [k, v] : params) {
    k = UriEncode(k, false);
    v = UriEncode(v, false);
  }
  std::sort(params.begin(), params.end());
  std::string out = "?";
  for (size_t i = 0; i < params.size(); ++i) {
    if (i > 0) out += '&';
    out += params[i].first;
    out += '=';
    out += params[i].second;
  }
  return out;
}

}  // namespace tokenmill
