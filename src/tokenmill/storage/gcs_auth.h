// GcsTokenSource: OAuth access tokens from the GCE metadata server, for gs:// on Google Cloud
// (Compute Engine, GKE, Cloud Run...): GET
//   http://<host>/computeMetadata/v1/instance/service-accounts/default/token
// with "Metadata-Flavor: Google", answered by {"access_token": ..., "expires_in": <seconds>,
// "token_type": "Bearer"}. <host> is GCE_METADATA_HOST if set (as in Google's client libraries),
// else metadata.google.internal. The token is cached and fetched again 5 minutes before it
// expires (or after half its life if that is shorter), or at once after Invalidate().
// Tokens are registered with RegisterSecret() so they never reach a log.
//
// Thread-safety: thread-safe; one fetch at a time.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/storage/http_client.h"

namespace tokenmill {

struct OAuthToken {
  std::string access_token;
  int64_t expires_in_s = 0;
};

// Parses the metadata server's JSON answer. InvalidArgument naming what is wrong (never the
// token itself).
StatusOr<OAuthToken> ParseTokenResponse(std::string_view json);

class GcsTokenSource {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `metadata_host` is host[:port]. `http` must outlive this object. `clock` is for tests.
  GcsTokenSource(HttpClient* http, std::string metadata_host,
                 Clock clock = std::chrono::steady_clock::now);

  // A valid token, fetched if needed. PermissionDenied if the metadata server cannot give one.
  StatusOr<std::string> Token();

  // Forgets the cached token (after a 401).
  void Invalidate();

  // Number of fetches made (for tests and counters).
  int fetches() const;

  std::string TokenUrl() const;

 private:
  HttpClient* http_;
  const std::string metadata_host_;
  Clock clock_;
  mutable std::mutex mu_;
  std::string token_;                                 // guarded by mu_
  std::chrono::steady_clock::time_point refresh_at_;  // guarded by mu_
  int fetches_ = 0;                                   // guarded by mu_
};

}  // namespace tokenmill
