#include "tokenmill/storage/object_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <tuple>

#include "tokenmill/base/log.h"
#include "tokenmill/base/sha256.h"
#include "tokenmill/storage/xml.h"

namespace tokenmill {
namespace {

// Bodies up to this size are hashed into x-amz-content-sha256 (integrity checked by the server).
constexpr size_t kHashedBodyLimit = 1 << 20;
constexpr uint64_t kMaxParts = 10000;

std::string RangeHeader(uint64_t offset, uint64_t length) {
  std::string h = "Range: bytes=" + std::to_string(offset) + "-";
  if (length != kToEnd && offset + length > offset) h += std::to_string(offset + length - 1);
  return h;
}

}  // namespace

std::optional<uint64_t> ContentRangeTotal(std::string_view cr) {
  size_t slash = cr.rfind('/');
  if (slash == std::string_view::npos) return std::nullopt;
  bool ok;
  uint64_t total = ParseU64(cr.substr(slash + 1), &ok);
  if (!ok) return std::nullopt;
  return total;
}

std::string_view UnquoteEtag(std::string_view etag) {
  if (etag.starts_with("W/")) etag.remove_prefix(2);
  if (etag.size() >= 2 && etag.front() == '"' && etag.back() == '"') {
    etag = etag.substr(1, etag.size() - 2);
  }
  return etag;
}

ObjectStore::ObjectStore(std::string scheme, std::string service, ObjectStoreOptions options)
    : scheme_(std::move(scheme)),
      service_(std::move(service)),
      options_(options),
      http_(options.http) {}

StatusOr<ObjectStore::Location> ObjectStore::Parse(std::string_view url,
                                                   bool allow_empty_key) const {
  if (!url.starts_with(scheme_)) {
    return Status::InvalidArgument("not a " + scheme_ + " location: " + std::string(url));
  }
  std::string_view rest = url.substr(scheme_.size());
  size_t slash = rest.find('/');
  Location loc;
  loc.bucket = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) loc.key = std::string(rest.substr(slash + 1));
  if (loc.bucket.empty()) {
    return Status::InvalidArgument("no bucket in " + std::string(url) + ": use " + scheme_ +
                                   "BUCKET/KEY");
  }
  for (char c : loc.bucket) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
              c == '_' || (c >= 'A' && c <= 'Z');
    if (!ok) {
      return Status::InvalidArgument("invalid bucket name '" + loc.bucket + "' in " +
                                     std::string(url));
    }
  }
  if (loc.key.empty() && !allow_empty_key) {
    return Status::InvalidArgument("no object key in " + std::string(url) + ": use " + scheme_ +
                                   "BUCKET/KEY");
  }
  return loc;
}

StatusOr<HttpRequest> ObjectStore::NewRequest(
    const std::string& method, const Location& loc,
    std::vector<std::pair<std::string, std::string>> query, std::vector<std::string> headers,
    std::string_view body, bool has_body, bool hash_body) {
  HttpRequest r;
  r.method = method;
  r.url = RequestUrl(loc, CanonicalQuery(std::move(query)));
  r.headers = std::move(headers);
  r.body = body;
  r.has_body = has_body;
  std::string hash;
  if (!has_body) {
    hash = Sha256Hex("");
  } else if (hash_body && body.size() <= kHashedBodyLimit) {
    hash = Sha256Hex(body);
  }
  TM_RETURN_IF_ERROR(Authorize(&r, hash));
  return r;
}

StatusOr<HttpResponse> ObjectStore::SendRetrying(HttpRequest request) {
  StatusOr<HttpResponse> r = http_.Send(request, &counts_.retries);
  if (r.ok() && r->status == 401 && RefreshAuthorization(&request)) {
    CountRetry();
    r = http_.Send(request, &counts_.retries);
  }
  return r;
}

StatusOr<HttpResponse> ObjectStore::SendOnce(HttpRequest request, TransportError* transport_error) {
  StatusOr<HttpResponse> r = http_.SendOnce(request, transport_error);
  if (r.ok() && r->status == 401 && RefreshAuthorization(&request)) {
    CountRetry();
    r = http_.SendOnce(request, transport_error);
  }
  return r;
}

Status ObjectStore::ErrorFor(std::string_view op, std::string_view url,
                             const HttpResponse& r) const {
  std::string code = XmlText(r.body, "Code");
  std::string detail = XmlText(r.body, "Message");
  std::string m = service_ + " " + std::string(op) + " " + std::string(url) + ": HTTP " +
                  std::to_string(r.status);
  if (!code.empty()) m += " " + code;
  if (!detail.empty() && detail.size() < 300) m += " (" + detail + ")";
  Status s;
  switch (r.status) {
    case 400:
      s = Status::InvalidArgument(m);
      break;
    case 401:
    case 403:
      s = Status::PermissionDenied(m + "; " + CredentialsHint());
      break;
    case 404:
      if (code == "NoSuchBucket") {
        m += "; check the bucket name, or create the bucket";
      }
      s = Status::NotFound(m);
      break;
    case 301:
    case 307:
      s = Status::InvalidArgument(m +
                                  "; the bucket is in another region or needs another "
                                  "endpoint (set AWS_REGION / the endpoint)");
      break;
    case 409:
      s = Status::FailedPrecondition(m);
      break;
    case 412:
      s = Status::FailedPrecondition(m);
      break;
    default:
      s = HttpClient::IsRetryableStatus(r.status) ? Status::Unavailable(m) : Status::Internal(m);
  }
  return Status(s.code(), RedactSecrets(s.message()));
}

StatusOr<ObjectStore::Chunk> ObjectStore::GetRange(const Location& loc, uint64_t offset,
                                                   uint64_t length, const std::string& generation) {
  std::vector<std::string> headers;
  if (offset > 0 || length != kToEnd) headers.push_back(RangeHeader(offset, length));
  if (!generation.empty()) headers.push_back(PinHeader(generation));
  TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("GET", loc, {}, std::move(headers)));
  TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
  Chunk chunk;
  chunk.generation = GenerationOf(r);
  if (r.status == 416) {
    chunk.total = ContentRangeTotal(r.Header("content-range")).value_or(offset);
    return chunk;
  }
  if (r.status == 412 && !generation.empty()) {
    return Status::DataLoss(service_ + " object " + UrlOf(loc) +
                            " changed while it was being read (it is no longer generation " +
                            generation + "); read it again");
  }
  if (r.status == 206) {
    chunk.total = ContentRangeTotal(r.Header("content-range")).value_or(offset + r.body.size());
    chunk.data = std::move(r.body);
  } else if (r.status == 200) {
    // The whole object (the server ignored the range, or none was asked).
    chunk.total = r.body.size();
    if (offset >= r.body.size()) {
      chunk.data.clear();
    } else {
      chunk.data = r.body.substr(offset, length);
    }
  } else {
    return ErrorFor("GET", UrlOf(loc), r);
  }
  counts_.bytes_read.fetch_add(chunk.data.size(), std::memory_order_relaxed);
  return chunk;
}

StatusOr<std::string> ObjectStore::Read(std::string_view url, uint64_t offset, uint64_t length) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  if (length == 0) return std::string();
  TM_ASSIGN_OR_RETURN(Chunk chunk, GetRange(loc, offset, length, ""));
  return std::move(chunk.data);
}

StatusOr<VersionedData> ObjectStore::ReadVersioned(std::string_view url) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("GET", loc, {}, {}));
  TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
  if (r.status != 200) return ErrorFor("GET", url, r);
  counts_.bytes_read.fetch_add(r.body.size(), std::memory_order_relaxed);
  VersionedData out;
  out.generation = GenerationOf(r);
  out.data = std::move(r.body);
  return out;
}

StatusOr<ObjectInfo> ObjectStore::Stat(std::string_view url) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("HEAD", loc, {}, {}));
  TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
  if (r.status != 200) return ErrorFor("HEAD", url, r);
  bool ok;
  uint64_t size = ParseU64(r.Header("content-length"), &ok);
  if (!ok) {
    return Status::Internal(service_ + " HEAD " + std::string(url) +
                            ": the answer has no valid Content-Length");
  }
  return ObjectInfo{std::string(url), size, GenerationOf(r),
                    ParseHttpDate(r.Header("last-modified"))};
}

// Streams a range of an object as a sequence of ranged GETs, `read_ahead` of them in flight.
class ObjectStore::ChunkedReadStream : public ReadStream {
 public:
  ChunkedReadStream(ObjectStore* store, Location loc, Chunk first, uint64_t begin, uint64_t end)
      : store_(store),
        loc_(std::move(loc)),
        generation_(first.generation),
        current_(std::move(first.data)),
        next_offset_(begin + current_.size()),
        end_(end) {
    Refill();
  }

  ~ChunkedReadStream() override {
    for (auto& f : pending_) f.wait();
  }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    while (pos_ == current_.size()) {
      if (pending_.empty()) return size_t{0};
      StatusOr<Chunk> chunk = pending_.front().get();
      pending_.pop_front();
      if (!chunk.ok()) {
        for (auto& f : pending_) f.wait();
        pending_.clear();
        next_offset_ = end_;
        return chunk.status();
      }
      if (chunk->data.empty()) {
        return Status::DataLoss(store_->service() + " object " + store_->UrlOf(loc_) +
                                " ended early while being read");
      }
      current_ = std::move(chunk->data);
      pos_ = 0;
      Refill();
    }
    size_t k = std::min(n, current_.size() - pos_);
    std::memcpy(buf, current_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  void Refill() {
    const ObjectStoreOptions& o = store_->options();
    while (static_cast<int>(pending_.size()) < std::max(1, o.read_ahead) && next_offset_ < end_) {
      uint64_t off = next_offset_;
      uint64_t len = std::min(o.read_chunk, end_ - off);
      next_offset_ += len;
      pending_.push_back(std::async(std::launch::async, [this, off, len] {
        return store_->GetRange(loc_, off, len, generation_);
      }));
    }
  }

  ObjectStore* store_;
  Location loc_;
  std::string generation_;
  std::string current_;
  size_t pos_ = 0;
  uint64_t next_offset_;
  uint64_t end_;
  std::deque<std::future<StatusOr<Chunk>>> pending_;
};

StatusOr<std::unique_ptr<ReadStream>> ObjectStore::OpenRead(std::string_view url, uint64_t offset,
                                                            uint64_t length) {
  counts_.reads.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  uint64_t first_len = std::min(length, options_.read_chunk);
  Chunk first;
  if (first_len > 0) {
    TM_ASSIGN_OR_RETURN(first, GetRange(loc, offset, first_len, ""));
  }
  uint64_t end = first.total;
  if (length != kToEnd && offset + length < end) end = offset + length;
  if (offset >= end) first.data.clear();
  uint64_t begin = std::min(offset, end);
  return std::unique_ptr<ReadStream>(
      new ChunkedReadStream(this, std::move(loc), std::move(first), begin, end));
}

StatusOr<HttpResponse> ObjectStore::PutOnce(const Location& loc, std::string_view data,
                                            std::vector<std::string> headers,
                                            TransportError* transport_error) {
  headers.push_back("Content-Type: application/octet-stream");
  TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("PUT", loc, {}, std::move(headers), data, true));
  return SendOnce(std::move(req), transport_error);
}

StatusOr<std::optional<VersionedData>> ObjectStore::ReadBack(const Location& loc,
                                                             std::string_view op) {
  StatusOr<HttpRequest> req = NewRequest("GET", loc, {}, {});
  StatusOr<HttpResponse> r = req.ok() ? SendRetrying(*req) : StatusOr<HttpResponse>(req.status());
  if (!r.ok() || (r->status != 200 && r->status != 404)) {
    Status why = r.ok() ? ErrorFor("GET", UrlOf(loc), *r) : r.status();
    return Status::UnknownOutcome(service_ + " " + std::string(op) + " " + UrlOf(loc) +
                                  ": the outcome is unknown and reading the object back failed (" +
                                  why.message() + "); read it again later and compare");
  }
  if (r->status == 404) return std::optional<VersionedData>();
  VersionedData v;
  v.generation = GenerationOf(*r);
  v.data = std::move(r->body);
  return std::optional<VersionedData>(std::move(v));
}

StatusOr<HttpResponse> ObjectStore::ConditionalPut(const Location& loc, std::string_view data,
                                                   std::vector<std::string> headers,
                                                   bool* ambiguous) {
  *ambiguous = false;
  for (int attempt = 0;; ++attempt) {
    TransportError te;
    StatusOr<HttpResponse> r = PutOnce(loc, data, headers, &te);
    bool last = attempt + 1 >= http_.options().max_attempts;
    if (!r.ok()) {
      if (te == TransportError::kConnect && !last) {
        // Never reached the server: safe to send again.
        CountRetry();
        http_.Backoff(attempt);
        continue;
      }
      *ambiguous = te != TransportError::kConnect && te != TransportError::kOther;
      return r;
    }
    // 409 ConditionalRequestConflict (AWS), 5xx (RGW answers 500 to some lost races), 408, 429:
    // the write may or may not have happened.
    *ambiguous = r->status == 409 || HttpClient::IsRetryableStatus(r->status);
    return r;
  }
}

Status ObjectStore::Upload(const Location& loc, std::string_view data, const std::string& file,
                           uint64_t size) {
  if (size > options_.multipart_threshold) return MultipartUpload(loc, data, file, size);
  TM_ASSIGN_OR_RETURN(HttpRequest req,
                      NewRequest("PUT", loc, {}, {"Content-Type: application/octet-stream"}, data,
                                 true, /*hash_body=*/file.empty()));
  if (!file.empty()) {
    req.body_file = file;
    req.body_offset = 0;
    req.body_length = size;
  }
  TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
  if (r.status != 200) return ErrorFor("PUT", UrlOf(loc), r);
  counts_.bytes_written.fetch_add(size, std::memory_order_relaxed);
  return Status::Ok();
}

Status ObjectStore::MultipartUpload(const Location& loc, std::string_view data,
                                    const std::string& file, uint64_t size) {
  const std::string url = UrlOf(loc);
  uint64_t part_size = std::max(options_.part_size, (size + kMaxParts - 1) / kMaxParts);
  uint64_t parts = (size + part_size - 1) / part_size;

  TM_ASSIGN_OR_RETURN(HttpRequest init,
                      NewRequest("POST", loc, {{"uploads", ""}},
                                 {"Content-Type: application/octet-stream"}, "", true));
  TM_ASSIGN_OR_RETURN(HttpResponse ir, SendRetrying(init));
  if (ir.status != 200) return ErrorFor("POST (start multipart upload)", url, ir);
  std::string upload_id = XmlText(ir.body, "UploadId");
  if (upload_id.empty()) {
    return Status::Internal(service_ + " " + url +
                            ": no UploadId in the answer to a multipart "
                            "upload start");
  }

  std::vector<std::string> etags(parts);
  std::atomic<uint64_t> next{0};
  std::mutex mu;
  Status first_error;
  auto worker = [&] {
    while (true) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!first_error.ok()) return;
      }
      uint64_t i = next.fetch_add(1);
      if (i >= parts) return;
      uint64_t off = i * part_size;
      uint64_t len = std::min(part_size, size - off);
      std::vector<std::pair<std::string, std::string>> q = {{"partNumber", std::to_string(i + 1)},
                                                            {"uploadId", upload_id}};
      StatusOr<HttpRequest> req = NewRequest(
          "PUT", loc, q, {}, file.empty() ? data.substr(off, len) : std::string_view(), true,
          /*hash_body=*/file.empty());
      Status s = req.status();
      if (s.ok() && !file.empty()) {
        req->body_file = file;
        req->body_offset = off;
        req->body_length = len;
      }
      if (s.ok()) {
        StatusOr<HttpResponse> r = SendRetrying(*req);
        if (!r.ok()) {
          s = r.status();
        } else if (r->status != 200) {
          s = ErrorFor("PUT (part " + std::to_string(i + 1) + ")", url, *r);
        } else if (r->Header("etag").empty()) {
          s = Status::Internal(service_ + " " + url + ": part " + std::to_string(i + 1) +
                               " upload answered without an ETag");
        } else {
          etags[i] = r->Header("etag");
          counts_.bytes_written.fetch_add(len, std::memory_order_relaxed);
        }
      }
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.ok()) first_error = s;
        return;
      }
    }
  };
  int nthreads =
      static_cast<int>(std::min<uint64_t>(std::max(1, options_.upload_parallelism), parts));
  std::vector<std::thread> threads;
  for (int t = 0; t < nthreads; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  Status result = first_error;
  if (result.ok()) {
    std::string xml = "<CompleteMultipartUpload>";
    for (uint64_t i = 0; i < parts; ++i) {
      xml += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
             XmlEscape(etags[i]) + "</ETag></Part>";
    }
    xml += "</CompleteMultipartUpload>";
    StatusOr<HttpRequest> done = NewRequest("POST", loc, {{"uploadId", upload_id}},
                                            {"Content-Type: application/xml"}, xml, true);
    StatusOr<HttpResponse> r = done.ok() ? SendRetrying(*done) : done.status();
    if (!r.ok()) {
      result = r.status();
    } else if (r->status == 404 && XmlText(r->body, "Code") == "NoSuchUpload") {
      // A retried completion whose first attempt succeeded: check the object is there.
      StatusOr<ObjectInfo> st = Stat(url);
      if (!st.ok() || st->size != size) result = ErrorFor("POST (complete upload)", url, *r);
    } else if (r->status != 200 || r->body.find("<Error>") != std::string::npos) {
      // S3 may answer 200 with an <Error> body when the completion fails late.
      result = ErrorFor("POST (complete upload)", url, *r);
      if (result.ok() || r->status == 200) {
        result = Status::Unavailable(service_ + " " + url +
                                     ": multipart completion failed: " + XmlText(r->body, "Code"));
      }
    }
  }
  if (!result.ok()) {
    StatusOr<HttpRequest> abort = NewRequest("DELETE", loc, {{"uploadId", upload_id}}, {});
    if (abort.ok()) {
      StatusOr<HttpResponse> ar = SendRetrying(*abort);
      if (!ar.ok() || (ar->status != 204 && ar->status != 200 && ar->status != 404)) {
        LogWarning(service_ + " " + url + ": could not abort multipart upload " + upload_id +
                   "; a lifecycle rule for incomplete uploads will remove its parts");
      }
    }
    return result;
  }
  return Status::Ok();
}

Status ObjectStore::Write(std::string_view url, std::string_view data) {
  counts_.writes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  return Upload(loc, data, "", data.size());
}

Status ObjectStore::WriteFile(std::string_view url, const std::string& local_path) {
  counts_.writes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  struct stat st;
  if (::stat(local_path.c_str(), &st) != 0) {
    std::string m = "cannot read " + local_path + " to upload it to " + std::string(url) + ": " +
                    std::strerror(errno);
    return errno == ENOENT ? Status::NotFound(m) : Status::IoError(m);
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(local_path + " is not a regular file");
  }
  return Upload(loc, "", local_path, static_cast<uint64_t>(st.st_size));
}

StatusOr<std::vector<ObjectInfo>> ObjectStore::List(std::string_view prefix) {
  TM_ASSIGN_OR_RETURN(Location loc, Parse(prefix, true));
  std::vector<ObjectInfo> out;
  std::string token;
  Location bucket{loc.bucket, ""};
  while (true) {
    counts_.lists.fetch_add(1, std::memory_order_relaxed);
    std::vector<std::pair<std::string, std::string>> q = {
        {"max-keys", std::to_string(options_.list_page_size)}, {"prefix", loc.key}};
    if (UseListV2()) {
      q.emplace_back("list-type", "2");
      if (!token.empty()) q.emplace_back("continuation-token", token);
    } else if (!token.empty()) {
      q.emplace_back("marker", token);
    }
    TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("GET", bucket, std::move(q), {}));
    TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
    if (r.status != 200) return ErrorFor("LIST", prefix, r);
    std::string last_key;
    for (std::string_view c : XmlElements(r.body, "Contents")) {
      ObjectInfo info;
      last_key = XmlText(c, "Key");
      info.url = scheme_ + loc.bucket + "/" + last_key;
      bool ok;
      info.size = ParseU64(XmlText(c, "Size"), &ok);
      info.generation = ListedGeneration(c);
      out.push_back(std::move(info));
    }
    if (XmlText(r.body, "IsTruncated") != "true") break;
    std::string next =
        UseListV2() ? XmlText(r.body, "NextContinuationToken") : XmlText(r.body, "NextMarker");
    if (next.empty()) next = last_key;
    if (next.empty() || next == token) {
      return Status::Internal(service_ + " LIST " + std::string(prefix) +
                              ": a truncated page without a continuation; cannot go on");
    }
    token = std::move(next);
  }
  std::sort(out.begin(), out.end(),
            [](const ObjectInfo& a, const ObjectInfo& b) { return a.url < b.url; });
  return out;
}

Status ObjectStore::Delete(std::string_view url) {
  counts_.deletes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("DELETE", loc, {}, {}));
  TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
  if (r.status == 204 || r.status == 200 || r.status == 404) return Status::Ok();
  return ErrorFor("DELETE", url, r);
}

StatusOr<std::vector<IncompleteWrite>> ObjectStore::ListIncomplete(std::string_view folder) {
  TM_ASSIGN_OR_RETURN(Location loc, Parse(folder, true));
  std::string prefix = loc.key;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  std::vector<IncompleteWrite> out;
  std::string key_marker, upload_marker;
  Location bucket{loc.bucket, ""};
  while (true) {
    counts_.lists.fetch_add(1, std::memory_order_relaxed);
    std::vector<std::pair<std::string, std::string>> q = {
        {"uploads", ""}, {"prefix", prefix}, {"delimiter", "/"}};
    if (!key_marker.empty()) q.emplace_back("key-marker", key_marker);
    if (!upload_marker.empty()) q.emplace_back("upload-id-marker", upload_marker);
    TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("GET", bucket, std::move(q), {}));
    TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
    if (r.status != 200) return ErrorFor("LIST (multipart uploads)", folder, r);
    for (std::string_view u : XmlElements(r.body, "Upload")) {
      const std::string key = XmlText(u, "Key");
      if (!key.starts_with(prefix) || key.find('/', prefix.size()) != std::string::npos) continue;
      out.push_back({scheme_ + loc.bucket + "/" + key, XmlText(u, "UploadId"), 0});
    }
    if (XmlText(r.body, "IsTruncated") != "true") break;
    std::string next_key = XmlText(r.body, "NextKeyMarker");
    std::string next_upload = XmlText(r.body, "NextUploadIdMarker");
    if (next_key.empty() || (next_key == key_marker && next_upload == upload_marker)) {
      return Status::Internal(service_ + " LIST (multipart uploads) " + std::string(folder) +
                              ": a truncated page without a marker; cannot go on");
    }
    key_marker = std::move(next_key);
    upload_marker = std::move(next_upload);
  }
  std::sort(out.begin(), out.end(), [](const IncompleteWrite& a, const IncompleteWrite& b) {
    return std::tie(a.url, a.handle) < std::tie(b.url, b.handle);
  });
  return out;
}

Status ObjectStore::RemoveIncomplete(const IncompleteWrite& write) {
  counts_.deletes.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(write.url, false));
  if (write.handle.empty()) {
    return Status::InvalidArgument("no upload id for the incomplete upload of " + write.url);
  }
  TM_ASSIGN_OR_RETURN(HttpRequest req, NewRequest("DELETE", loc, {{"uploadId", write.handle}}, {}));
  TM_ASSIGN_OR_RETURN(HttpResponse r, SendRetrying(req));
  if (r.status == 204 || r.status == 200 || r.status == 404) return Status::Ok();
  return ErrorFor("DELETE (abort multipart upload " + write.handle + ")", write.url, r);
}

StorageCounters ObjectStore::counters() const { return counts_.Snapshot(); }

}  // namespace tokenmill
