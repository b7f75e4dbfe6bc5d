// S3Storage: the Storage backend for s3://bucket/key, over libcurl with its built-in AWS SigV4
// signing. Works with AWS S3 and S3-compatible servers (Ceph RGW, MinIO...); settings and
// credentials come from aws_config.h.
//
// Generations are ETags, as the server returns them (quoted). Conditional writes:
//   CreateIfAbsent = PUT with If-None-Match: * (412: AlreadyExists).
//   CompareAndSwap = PUT with If-Match: <etag>. AWS documents the quoted ETag; Ceph RGW 16
//     compares the raw stored value and accepts only the unquoted form (a quoted one always gets
//     412). TOKENMILL_S3_IF_MATCH_QUOTES=quoted|unquoted picks one; auto (the default) sends the
//     unquoted form first and, on a 412, reads the object back: if its ETag still equals the
//     expected one the server refused the form, so it retries once quoted, and it remembers the
//     form the endpoint accepted.
//   Neither is retried blindly: after a 409, a 5xx or a lost reply the object is read back and the
//   write counts as ours only if the stored content equals what we wrote (conditional bodies are
//   unique by contract). Requests that never reached the server (connection refused) are retried.
//   Conditional writes are always single PUTs: multipart completion ignores If-None-Match on RGW.
//
// Thread-safety: thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/storage/aws_config.h"
#include "tokenmill/storage/object_store.h"

namespace tokenmill {

class S3Storage : public ObjectStore {
 public:
  S3Storage(S3Config config, ObjectStoreOptions options = {});

  // Settings from the environment and ~/.aws (LoadS3Config).
  static StatusOr<std::unique_ptr<S3Storage>> FromEnvironment(ObjectStoreOptions options = {});

  StatusOr<std::string> CreateIfAbsent(std::string_view url, std::string_view data) override;
  StatusOr<std::string> CompareAndSwap(std::string_view url, std::string_view data,
                                       std::string_view expected_generation) override;

  const S3Config& config() const { return config_; }
  // The If-Match form in use: the configured one, or in auto mode what the endpoint was seen to
  // accept (kAuto until a CompareAndSwap succeeded).
  IfMatchQuotes if_match_quotes() const;

  // The request URL for `key` in `bucket` (virtual-host or path style), for tests and messages.
  std::string ObjectRequestUrl(const std::string& bucket, const std::string& key) const;

 protected:
  std::string RequestUrl(const Location& loc, const std::string& query) const override;
  Status Authorize(HttpRequest* request, std::string_view payload_sha256) override;
  std::string GenerationOf(const HttpResponse& response) const override;
  std::string ListedGeneration(std::string_view contents_xml) const override;
  std::string CredentialsHint() const override;
  std::string PinHeader(const std::string& generation) const override;

 private:
  bool UsePathStyle(const std::string& bucket) const;

  const S3Config config_;
  std::string endpoint_scheme_;  // of the endpoint: "http" or "https"
  std::string endpoint_host_;    // of the endpoint, with its port
  std::atomic<int> learned_quotes_{static_cast<int>(IfMatchQuotes::kAuto)};
};

}  // namespace tokenmill
