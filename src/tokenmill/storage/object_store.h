// ObjectStore: the part of the S3 and GCS backends they share. Both speak the S3-style XML API
// over HTTP (GET with Range, HEAD, PUT, DELETE, ListObjects, multipart uploads); they differ in
// authentication, in the conditional-write headers and in what a generation is. The subclasses
// (S3Storage, GcsStorage) supply those through the hooks below and implement CreateIfAbsent and
// CompareAndSwap.
//
// Reads: Read/ReadVersioned/Stat are single requests, retried on transient failures. OpenRead
// fetches `read_chunk` ranges with up to `read_ahead` requests in flight on background threads,
// each pinned to the generation the first range saw (a change mid-stream is DataLoss, never a
// mix of two versions).
// Writes: a single PUT up to `multipart_threshold`, a multipart upload above it (parts in
// parallel, the upload aborted on failure).
//
// Thread-safety: thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/storage/http_client.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

struct ObjectStoreOptions {
  // Objects larger than this are uploaded in parts. Default: 64 MiB.
  uint64_t multipart_threshold = 64ull << 20;
  // Size of each part (raised if an object would need more than 10000 parts). Default: 16 MiB.
  uint64_t part_size = 16ull << 20;
  // Parts uploaded at once. Default: 4.
  int upload_parallelism = 4;
  // OpenRead: size of each ranged GET, and how many are in flight. Default: 8 MiB, 3.
  uint64_t read_chunk = 8ull << 20;
  int read_ahead = 3;
  // Keys per listing request (max-keys). Default: 1000.
  int list_page_size = 1000;
  HttpOptions http;
};

class ObjectStore : public Storage {
 public:
  StatusOr<std::string> Read(std::string_view url, uint64_t offset = 0,
                             uint64_t length = kToEnd) override;
  StatusOr<VersionedData> ReadVersioned(std::string_view url) override;
  StatusOr<std::unique_ptr<ReadStream>> OpenRead(std::string_view url, uint64_t offset = 0,
                                                 uint64_t length = kToEnd) override;
  StatusOr<ObjectInfo> Stat(std::string_view url) override;
  Status Write(std::string_view url, std::string_view data) override;
  Status WriteFile(std::string_view url, const std::string& local_path) override;
  StatusOr<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view url) override;
  StatusOr<std::vector<IncompleteWrite>> ListIncomplete(std::string_view folder) override;
  Status RemoveIncomplete(const IncompleteWrite& write) override;
  StorageCounters counters() const override;

  const ObjectStoreOptions& options() const { return options_; }

 protected:
  // `scheme` is "s3://" or "gs://"; `service` names the store in messages ("S3", "GCS").
  ObjectStore(std::string scheme, std::string service, ObjectStoreOptions options);

  struct Location {
    std::string bucket;
    std::string key;
  };

  // ---- Hooks ----
  // The request URL for an object (or the bucket when key is empty) plus an encoded query.
  virtual std::string RequestUrl(const Location& loc, const std::string& query) const = 0;
  // Adds authentication to a request. `payload_sha256` is the body's hex SHA-256, or "" when the
  // body is not hashed (large uploads).
  virtual Status Authorize(HttpRequest* request, std::string_view payload_sha256) = 0;
  // The generation in a response to GET, HEAD or PUT.
  virtual std::string GenerationOf(const HttpResponse& response) const = 0;
  // The generation of one <Contents> element of a listing.
  virtual std::string ListedGeneration(std::string_view contents_xml) const = 0;
  // True: ListObjectsV2 (list-type=2, continuation-token). False: V1 (marker).
  virtual bool UseListV2() const { return true; }
  // Advice appended to 401/403 errors (where the credentials came from, what to set).
  virtual std::string CredentialsHint() const = 0;
  // The header that makes a GET fail with 412 unless the object still has `generation` (used to
  // keep the ranges of one OpenRead stream on one version of the object).
  virtual std::string PinHeader(const std::string& generation) const = 0;
  // Called after a 401: refreshes short-lived credentials and re-authorizes `request`. Returns
  // false if there is nothing to refresh (the 401 is then reported). Default: false.
  virtual bool RefreshAuthorization(HttpRequest* request) { return false; }

  // ---- Helpers for the subclasses ----
  StatusOr<Location> Parse(std::string_view url, bool allow_empty_key) const;
  std::string UrlOf(const Location& loc) const { return scheme_ + loc.bucket + "/" + loc.key; }

  // A request for `loc` with the body `body` and `headers`. The body's SHA-256 goes into the
  // signature when it is small and `hash_body` (set it false when the body will come from a
  // file: HttpRequest::body_file).
  StatusOr<HttpRequest> NewRequest(const std::string& method, const Location& loc,
                                   std::vector<std::pair<std::string, std::string>> query,
                                   std::vector<std::string> headers, std::string_view body = {},
                                   bool has_body = false, bool hash_body = true);

  // Sends with retries of transient failures (for idempotent requests).
  StatusOr<HttpResponse> SendRetrying(HttpRequest request);
  // Sends once (conditional writes); a 401 still gets one re-authorized attempt.
  StatusOr<HttpResponse> SendOnce(HttpRequest request, TransportError* transport_error);

  // The Status for a failed response: names the operation, url, HTTP status and the server's
  // error code; never a secret.
  Status ErrorFor(std::string_view op, std::string_view url, const HttpResponse& response) const;

  // After a conditional write whose outcome is unknown: reads the object back. nullopt if it is
  // missing; UnknownOutcome if it cannot be read.
  StatusOr<std::optional<VersionedData>> ReadBack(const Location& loc, std::string_view op);

  // Single-attempt PUT of `data` with extra headers (for conditional writes: never retried
  // blindly). `transport_error` says how a transport failure happened.
  StatusOr<HttpResponse> PutOnce(const Location& loc, std::string_view data,
                                 std::vector<std::string> headers, TransportError* transport_error);

  // A conditional PUT: sent again only if it never reached the server (connection refused).
  // `ambiguous` is set when the outcome is unknown: a lost reply, a timeout, 409, 408, 429 or
  // 5xx; the caller must then read the object back.
  StatusOr<HttpResponse> ConditionalPut(const Location& loc, std::string_view data,
                                        std::vector<std::string> headers, bool* ambiguous);

  void CountRetry() { counts_.retries.fetch_add(1, std::memory_order_relaxed); }
  void CountBytesWritten(uint64_t n) {
    counts_.bytes_written.fetch_add(n, std::memory_order_relaxed);
  }

  HttpClient& http() { return http_; }
  const std::string& service() const { return service_; }

  AtomicStorageCounters counts_;

 private:
  class ChunkedReadStream;
  struct Chunk {
    std::string data;
    uint64_t total = 0;  // object size from Content-Range
    std::string generation;
  };
  // GET [offset, offset + length) of loc, pinned to `generation` when not empty. A 416 gives an
  // empty chunk with total = the object size when known.
  StatusOr<Chunk> GetRange(const Location& loc, uint64_t offset, uint64_t length,
                           const std::string& generation);
  // Uploads bytes from memory (`data`) or from `file` as one PUT or a multipart upload.
  Status Upload(const Location& loc, std::string_view data, const std::string& file, uint64_t size);
  Status MultipartUpload(const Location& loc, std::string_view data, const std::string& file,
                         uint64_t size);

  const std::string scheme_;
  const std::string service_;
  const ObjectStoreOptions options_;
  HttpClient http_;
};

// Parses "bytes a-b/total" or "bytes */total"; nullopt if malformed or the total is "*".
std::optional<uint64_t> ContentRangeTotal(std::string_view content_range);

// An ETag without its surrounding quotes (and without a weak "W/" prefix).
std::string_view UnquoteEtag(std::string_view etag);

}  // namespace tokenmill
