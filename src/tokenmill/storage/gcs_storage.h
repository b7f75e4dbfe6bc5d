// GcsStorage: the Storage backend for gs://bucket/key, over the Cloud Storage XML API
// (https://storage.googleapis.com, path-style URLs), which speaks the S3 dialect for reads,
// writes, ListObjectsV2 listings (list-type=2, continuation-token) and multipart uploads.
//
// Authentication, in order:
//   1. HMAC keys GCS_HMAC_ACCESS_ID + GCS_HMAC_SECRET: every request is signed by libcurl with
//      Google's V4 signature (GOOG4-HMAC-SHA256, x-goog-date, x-goog-content-sha256, scope
//      <date>/auto/storage/goog4_request). TOKENMILL_GCS_SIGV4 overrides the libcurl provider
//      string (default "goog:goog:auto:storage"; "aws:amz:auto:s3" uses the S3-interoperable
//      form instead).
//   2. Otherwise an OAuth token from the GCE metadata server (gcs_auth.h), sent as
//      "Authorization: Bearer"; a 401 refreshes it once.
// Endpoint: GCS_ENDPOINT_URL or TOKENMILL_GCS_ENDPOINT (for tests and emulators).
//
// Generations are GCS object generations (x-goog-generation). CreateIfAbsent sends
// x-goog-if-generation-match: 0 and CompareAndSwap x-goog-if-generation-match: <generation>;
// 412 means lost. As on S3, an ambiguous outcome (409, 5xx, lost reply) is settled by reading the
// object back and comparing its content with ours.
//
// Thread-safety: thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/storage/aws_config.h"
#include "tokenmill/storage/gcs_auth.h"
#include "tokenmill/storage/object_store.h"

namespace tokenmill {

struct GcsConfig {
  std::string endpoint = "https://storage.googleapis.com";  // no trailing '/'
  std::string hmac_access_id;                               // empty: use the metadata server
  std::string hmac_secret;
  std::string sigv4_provider = "goog:goog:auto:storage";
  std::string metadata_host = "metadata.google.internal";  // host[:port]
};

// From GCS_ENDPOINT_URL / TOKENMILL_GCS_ENDPOINT, GCS_HMAC_ACCESS_ID / GCS_HMAC_SECRET,
// TOKENMILL_GCS_SIGV4 and GCE_METADATA_HOST. Registers the HMAC secret with RegisterSecret().
StatusOr<GcsConfig> LoadGcsConfig(const EnvLookup& env = ProcessEnv());

class GcsStorage : public ObjectStore {
 public:
  GcsStorage(GcsConfig config, ObjectStoreOptions options = {},
             GcsTokenSource::Clock clock = std::chrono::steady_clock::now);

  static StatusOr<std::unique_ptr<GcsStorage>> FromEnvironment(ObjectStoreOptions options = {});

  StatusOr<std::string> CreateIfAbsent(std::string_view url, std::string_view data) override;
  StatusOr<std::string> CompareAndSwap(std::string_view url, std::string_view data,
                                       std::string_view expected_generation) override;

  const GcsConfig& config() const { return config_; }
  const GcsTokenSource& token_source() const { return tokens_; }

 protected:
  std::string RequestUrl(const Location& loc, const std::string& query) const override;
  Status Authorize(HttpRequest* request, std::string_view payload_sha256) override;
  std::string GenerationOf(const HttpResponse& response) const override;
  std::string ListedGeneration(std::string_view contents_xml) const override;
  std::string CredentialsHint() const override;
  std::string PinHeader(const std::string& generation) const override;
  bool RefreshAuthorization(HttpRequest* request) override;

 private:
  bool use_hmac() const { return !config_.hmac_access_id.empty(); }
  // A conditional PUT with "x-goog-if-generation-match: <match>"; see s3_storage.cc.
  StatusOr<std::string> ConditionalWrite(std::string_view op, std::string_view url,
                                         std::string_view data, const std::string& match);

  const GcsConfig config_;
  HttpClient metadata_http_;
  GcsTokenSource tokens_;
};

}  // namespace tokenmill
