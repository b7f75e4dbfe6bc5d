#include "tokenmill/storage/gcs_storage.h"

#include <utility>

#include "tokenmill/base/log.h"
#include "tokenmill/storage/xml.h"

namespace tokenmill {
namespace {

std::optional<std::string> NonEmpty(const EnvLookup& env, const std::string& name) {
  std::optional<std::string> v = env(name);
  if (v && v->empty()) return std::nullopt;
  return v;
}

}  // namespace

StatusOr<GcsConfig> LoadGcsConfig(const EnvLookup& env) {
  GcsConfig c;
  for (const char* name : {"GCS_ENDPOINT_URL", "TOKENMILL_GCS_ENDPOINT"}) {
    if (auto e = NonEmpty(env, name)) {
      c.endpoint = *e;
      while (c.endpoint.ends_with('/')) c.endpoint.pop_back();
      if (!c.endpoint.starts_with("http://") && !c.endpoint.starts_with("https://")) {
        return Status::InvalidArgument(std::string(name) + "=" + *e +
                                       " must start with http:// or https://");
      }
      break;
    }
  }
  std::optional<std::string> id = NonEmpty(env, "GCS_HMAC_ACCESS_ID");
  std::optional<std::string> secret = NonEmpty(env, "GCS_HMAC_SECRET");
  if (id.has_value() != secret.has_value()) {
    return Status::InvalidArgument(
        "only one of GCS_HMAC_ACCESS_ID and GCS_HMAC_SECRET is set: set both, or neither to use "
        "the metadata server's token");
  }
  if (id) {
    c.hmac_access_id = *id;
    c.hmac_secret = *secret;
    RegisterSecret(c.hmac_secret);
  }
  if (auto p = NonEmpty(env, "TOKENMILL_GCS_SIGV4")) c.sigv4_provider = *p;
  if (auto h = NonEmpty(env, "GCE_METADATA_HOST")) c.metadata_host = *h;
  return c;
}

GcsStorage::GcsStorage(GcsConfig config, ObjectStoreOptions options, GcsTokenSource::Clock clock)
    : ObjectStore("gs://", "GCS", options),
      config_(std::move(config)),
      metadata_http_([&] {
        HttpOptions o = options.http;
        o.connect_timeout_ms = std::min(o.connect_timeout_ms, 2000);
        o.max_attempts = std::min(o.max_attempts, 3);
        return o;
      }()),
      tokens_(&metadata_http_, config_.metadata_host, std::move(clock)) {}

StatusOr<std::unique_ptr<GcsStorage>> GcsStorage::FromEnvironment(ObjectStoreOptions options) {
  TM_ASSIGN_OR_RETURN(GcsConfig config, LoadGcsConfig());
  return std::make_unique<GcsStorage>(std::move(config), options);
}

std::string GcsStorage::RequestUrl(const Location& loc, const std::string& query) const {
  std::string url = config_.endpoint + "/" + loc.bucket;
  if (!loc.key.empty()) url += "/" + UriEncode(loc.key, true);
  return url + query;
}

Status GcsStorage::Authorize(HttpRequest* request, std::string_view payload_sha256) {
  if (use_hmac()) {
    // libcurl signs "x-<provider>-content-sha256" as the payload hash.
    std::string prefix = config_.sigv4_provider.starts_with("aws") ? "x-amz" : "x-goog";
    request->headers.push_back(
        prefix + "-content-sha256: " +
        (payload_sha256.empty() ? std::string("UNSIGNED-PAYLOAD") : std::string(payload_sha256)));
    request->sigv4 = config_.sigv4_provider;
    request->sigv4_userpwd = config_.hmac_access_id + ":" + config_.hmac_secret;
    return Status::Ok();
  }
  TM_ASSIGN_OR_RETURN(std::string token, tokens_.Token());
  request->headers.push_back("Authorization: Bearer " + token);
  return Status::Ok();
}

bool GcsStorage::RefreshAuthorization(HttpRequest* request) {
  if (use_hmac()) return false;
  tokens_.Invalidate();
  StatusOr<std::string> token = tokens_.Token();
  if (!token.ok()) return false;
  for (std::string& h : request->headers) {
    if (h.starts_with("Authorization: Bearer ")) h = "Authorization: Bearer " + *token;
  }
  return true;
}

std::string GcsStorage::GenerationOf(const HttpResponse& response) const {
  return response.Header("x-goog-generation");
}

std::string GcsStorage::ListedGeneration(std::string_view contents_xml) const {
  return XmlText(contents_xml, "Generation");
}

std::string GcsStorage::CredentialsHint() const {
  if (use_hmac()) {
    return "check GCS_HMAC_ACCESS_ID / GCS_HMAC_SECRET and the bucket's permissions";
  }
  return "the token came from the metadata server at " + config_.metadata_host +
         "; check the service account's storage permissions, or set GCS_HMAC_ACCESS_ID / "
         "GCS_HMAC_SECRET";
}

std::string GcsStorage::PinHeader(const std::string& generation) const {
  return "x-goog-if-generation-match: " + generation;
}

StatusOr<std::string> GcsStorage::ConditionalWrite(std::string_view op, std::string_view url,
                                                   std::string_view data,
                                                   const std::string& match) {
  const bool create = match == "0";
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  for (int attempt = 0;; ++attempt) {
    bool ambiguous;
    StatusOr<HttpResponse> r =
        ConditionalPut(loc, data, {"x-goog-if-generation-match: " + match}, &ambiguous);
    if (r.ok() && r->status == 200) {
      CountBytesWritten(data.size());
      return GenerationOf(*r);
    }
    if (r.ok() && (r->status == 412 || (!create && r->status == 404))) {
      if (create) return Status::AlreadyExists(std::string(url) + " already exists");
      return Status::FailedPrecondition(std::string(url) +
                                        " changed or is missing (expected "
                                        "generation " +
                                        match + ")");
    }
    if (!ambiguous) return r.ok() ? ErrorFor(op, url, *r) : r.status();
    TM_ASSIGN_OR_RETURN(std::optional<VersionedData> now, ReadBack(loc, op));
    if (now.has_value() && now->data == data) {
      CountBytesWritten(data.size());
      return now->generation;  // ours: the reply was lost
    }
    if (create && now.has_value()) {
      return Status::AlreadyExists(std::string(url) + " already exists");
    }
    if (!create && (!now.has_value() || now->generation != match)) {
      return Status::FailedPrecondition(std::string(url) +
                                        " changed or is missing (expected "
                                        "generation " +
                                        match + ")");
    }
    // Not written; the precondition protects a new attempt.
    if (attempt + 1 >= http().options().max_attempts) {
      return r.ok() ? ErrorFor(op, url, *r) : r.status();
    }
    CountRetry();
    http().Backoff(attempt);
  }
}

StatusOr<std::string> GcsStorage::CreateIfAbsent(std::string_view url, std::string_view data) {
  counts_.creates.fetch_add(1, std::memory_order_relaxed);
  return ConditionalWrite("PUT x-goog-if-generation-match: 0", url, data, "0");
}

StatusOr<std::string> GcsStorage::CompareAndSwap(std::string_view url, std::string_view data,
                                                 std::string_view expected_generation) {
  counts_.cas.fetch_add(1, std::memory_order_relaxed);
  std::string match(expected_generation);
  if (match.empty() || match == "0" || match.find_first_not_of("0123456789") != std::string::npos) {
    return Status::FailedPrecondition("CompareAndSwap " + std::string(url) + ": '" + match +
                                      "' is not a GCS generation");
  }
  return ConditionalWrite("PUT x-goog-if-generation-match", url, data, match);
}

}  // namespace tokenmill
