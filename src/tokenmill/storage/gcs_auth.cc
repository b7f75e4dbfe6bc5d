#include "tokenmill/storage/gcs_auth.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tokenmill/base/log.h"

namespace tokenmill {

StatusOr<OAuthToken> ParseTokenResponse(std::string_view json) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(std::string("the metadata server's token answer is not JSON (") +
                                   e.what() + ")");
  }
  if (!j.is_object()) return Status::InvalidArgument("the token answer is not a JSON object");
  auto token = j.find("access_token");
  if (token == j.end() || !token->is_string() || token->get<std::string>().empty()) {
    return Status::InvalidArgument("the token answer has no access_token string");
  }
  auto type = j.find("token_type");
  if (type != j.end() && (!type->is_string() || type->get<std::string>() != "Bearer")) {
    return Status::InvalidArgument("the token answer has token_type other than \"Bearer\"");
  }
  auto expires = j.find("expires_in");
  if (expires == j.end() || !expires->is_number_integer() || expires->get<int64_t>() <= 0) {
    return Status::InvalidArgument("the token answer has no positive integer expires_in");
  }
  return OAuthToken{token->get<std::string>(), expires->get<int64_t>()};
}

GcsTokenSource::GcsTokenSource(HttpClient* http, std::string metadata_host, Clock clock)
    : http_(http), metadata_host_(std::move(metadata_host)), clock_(std::move(clock)) {}

std::string GcsTokenSource::TokenUrl() const {
  std::string base = metadata_host_;
  if (!base.starts_with("http://") && !base.starts_with("https://")) base = "http://" + base;
  return base + "/computeMetadata/v1/instance/service-accounts/default/token";
}

StatusOr<std::string> GcsTokenSource::Token() {
  std::lock_guard<std::mutex> lock(mu_);
  auto now = clock_();
  if (!token_.empty() && now < refresh_at_) return token_;
  HttpRequest req;
  req.url = TokenUrl();
  req.headers = {"Metadata-Flavor: Google"};
  req.max_response_bytes = 1 << 20;
  ++fetches_;
  StatusOr<HttpResponse> r = http_->Send(req);
  const std::string hint =
      "; on Google Cloud the instance needs a service account with storage scope; elsewhere set "
      "GCS_HMAC_ACCESS_ID and GCS_HMAC_SECRET (or GCE_METADATA_HOST)";
  if (!r.ok()) {
    return Status::PermissionDenied("no GCS credentials: the metadata server at " + req.url +
                                    " did not answer (" + r.status().message() + ")" + hint);
  }
  if (r->status != 200) {
    return Status::PermissionDenied("no GCS credentials: the metadata server at " + req.url +
                                    " answered HTTP " + std::to_string(r->status) + hint);
  }
  StatusOr<OAuthToken> t = ParseTokenResponse(r->body);
  if (!t.ok()) {
    return Status::PermissionDenied("no GCS credentials from " + req.url + ": " +
                                    t.status().message());
  }
  RegisterSecret(t->access_token);
  token_ = t->access_token;
  int64_t margin = std::min<int64_t>(300, t->expires_in_s / 2);
  refresh_at_ = now + std::chrono::seconds(t->expires_in_s - margin);
  return token_;
}

void GcsTokenSource::Invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  token_.clear();
}

int GcsTokenSource::fetches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fetches_;
}

}  // namespace tokenmill
