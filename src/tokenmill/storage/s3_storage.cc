#include "tokenmill/storage/s3_storage.h"

#include <utility>

#include "tokenmill/base/log.h"
#include "tokenmill/storage/xml.h"

namespace tokenmill {
namespace {

std::string HostOnly(std::string_view host_port) {
  if (host_port.starts_with('[')) {
    size_t end = host_port.find(']');
    return std::string(host_port.substr(0, end == std::string_view::npos ? end : end + 1));
  }
  return std::string(host_port.substr(0, host_port.find(':')));
}

}  // namespace

S3Storage::S3Storage(S3Config config, ObjectStoreOptions options)
    : ObjectStore("s3://", "S3", options), config_(std::move(config)) {
  size_t sep = config_.endpoint.find("://");
  endpoint_scheme_ = config_.endpoint.substr(0, sep);
  endpoint_host_ = config_.endpoint.substr(sep + 3);
  if (config_.if_match_quotes != IfMatchQuotes::kAuto) {
    learned_quotes_ = static_cast<int>(config_.if_match_quotes);
  }
}

StatusOr<std::unique_ptr<S3Storage>> S3Storage::FromEnvironment(ObjectStoreOptions options) {
  TM_ASSIGN_OR_RETURN(S3Config config, LoadS3Config());
  return std::make_unique<S3Storage>(std::move(config), options);
}

IfMatchQuotes S3Storage::if_match_quotes() const {
  return static_cast<IfMatchQuotes>(learned_quotes_.load());
}

bool S3Storage::UsePathStyle(const std::string& bucket) const {
  switch (config_.addressing) {
    case AddressingStyle::kPath:
      return true;
    case AddressingStyle::kVirtual:
      return false;
    case AddressingStyle::kAuto:
      break;
  }
  if (IsIpOrLocalhost(HostOnly(endpoint_host_))) return true;
  // A dotted bucket name breaks the TLS certificate of *.s3.amazonaws.com.
  return endpoint_scheme_ == "https" && bucket.find('.') != std::string::npos;
}

std::string S3Storage::ObjectRequestUrl(const std::string& bucket, const std::string& key) const {
  return RequestUrl(Location{bucket, key}, "");
}

std::string S3Storage::RequestUrl(const Location& loc, const std::string& query) const {
  std::string url;
  if (UsePathStyle(loc.bucket)) {
    url = config_.endpoint + "/" + loc.bucket;
    if (!loc.key.empty()) url += "/" + UriEncode(loc.key, true);
  } else {
    url = endpoint_scheme_ + "://" + loc.bucket + "." + endpoint_host_ + "/" +
          UriEncode(loc.key, true);
  }
  return url + query;
}

Status S3Storage::Authorize(HttpRequest* request, std::string_view payload_sha256) {
  request->headers.push_back("x-amz-content-sha256: " + (payload_sha256.empty()
                                                             ? std::string("UNSIGNED-PAYLOAD")
                                                             : std::string(payload_sha256)));
  if (config_.access_key_id.empty()) return Status::Ok();  // anonymous
  if (!config_.session_token.empty()) {
    request->headers.push_back("x-amz-security-token: " + config_.session_token);
  }
  request->sigv4 = "aws:amz:" + config_.region + ":s3";
  request->sigv4_userpwd = config_.access_key_id + ":" + config_.secret_access_key;
  return Status::Ok();
}

std::string S3Storage::GenerationOf(const HttpResponse& response) const {
  return response.Header("etag");
}

std::string S3Storage::ListedGeneration(std::string_view contents_xml) const {
  return XmlText(contents_xml, "ETag");
}

std::string S3Storage::CredentialsHint() const {
  return "credentials from " + config_.credentials_source +
         "; check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE), the bucket's "
         "permissions and the endpoint " +
         config_.endpoint;
}

std::string S3Storage::PinHeader(const std::string& generation) const {
  return "If-Match: " + generation;  // GET accepts the quoted ETag, RGW included
}

StatusOr<std::string> S3Storage::CreateIfAbsent(std::string_view url, std::string_view data) {
  counts_.creates.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  for (int attempt = 0;; ++attempt) {
    bool ambiguous;
    StatusOr<HttpResponse> r = ConditionalPut(loc, data, {"If-None-Match: *"}, &ambiguous);
    if (r.ok() && r->status == 200) {
      CountBytesWritten(data.size());
      return GenerationOf(*r);
    }
    if (r.ok() && r->status == 412) {
      return Status::AlreadyExists(std::string(url) + " already exists");
    }
    if (!ambiguous) return r.ok() ? ErrorFor("PUT If-None-Match", url, *r) : r.status();
    TM_ASSIGN_OR_RETURN(std::optional<VersionedData> now, ReadBack(loc, "CreateIfAbsent"));
    if (now.has_value()) {
      if (now->data == data) {
        CountBytesWritten(data.size());
        return now->generation;  // our write landed; the reply was lost
      }
      return Status::AlreadyExists(std::string(url) + " already exists");
    }
    // Not written: the condition still protects a new attempt.
    if (attempt + 1 >= http().options().max_attempts) {
      return r.ok() ? ErrorFor("PUT If-None-Match", url, *r) : r.status();
    }
    CountRetry();
    http().Backoff(attempt);
  }
}

StatusOr<std::string> S3Storage::CompareAndSwap(std::string_view url, std::string_view data,
                                                std::string_view expected_generation) {
  counts_.cas.fetch_add(1, std::memory_order_relaxed);
  TM_ASSIGN_OR_RETURN(Location loc, Parse(url, false));
  const std::string expected(UnquoteEtag(expected_generation));
  if (expected.empty()) {
    return Status::FailedPrecondition("CompareAndSwap " + std::string(url) +
                                      ": empty expected generation");
  }
  IfMatchQuotes form = if_match_quotes();
  const bool probing = form == IfMatchQuotes::kAuto;
  // In auto mode, a form that once succeeded here is trusted; a configured one is checked on
  // every 412 so that a wrong setting is reported, not mistaken for lost races.
  const bool form_verified = config_.if_match_quotes == IfMatchQuotes::kAuto && !probing;
  if (probing) form = IfMatchQuotes::kUnquoted;
  bool switched_form = false;
  for (int attempt = 0;; ++attempt) {
    std::string value = form == IfMatchQuotes::kQuoted ? "\"" + expected + "\"" : expected;
    bool ambiguous;
    StatusOr<HttpResponse> r = ConditionalPut(loc, data, {"If-Match: " + value}, &ambiguous);
    if (r.ok() && r->status == 200) {
      if (probing) learned_quotes_ = static_cast<int>(form);
      CountBytesWritten(data.size());
      return GenerationOf(*r);
    }
    bool lost = r.ok() && (r->status == 412 || r->status == 404);
    if (!lost && !ambiguous) return r.ok() ? ErrorFor("PUT If-Match", url, *r) : r.status();
    if (lost && (r->status == 404 || form_verified)) {
      // The form was seen to work on this endpoint: a 412 is a plain loss (no read-back).
      return Status::FailedPrecondition(
          std::string(url) + (r->status == 404 ? " is missing"
                                               : " changed (it no longer has ETag " +
                                                     std::string(expected_generation) + ")"));
    }
    TM_ASSIGN_OR_RETURN(std::optional<VersionedData> now, ReadBack(loc, "CompareAndSwap"));
    if (!now.has_value()) {
      return Status::FailedPrecondition("CompareAndSwap " + std::string(url) +
                                        ": the object does not exist");
    }
    if (ambiguous && now->data == data) {
      CountBytesWritten(data.size());
      return now->generation;  // ours: the reply was lost
    }
    if (UnquoteEtag(now->generation) != expected) {
      return Status::FailedPrecondition(std::string(url) + " changed: ETag " + now->generation +
                                        ", expected " + std::string(expected_generation));
    }
    if (lost) {
      // Refused although the ETag still matches: the endpoint wants the other form.
      if (!probing || switched_form) {
        return Status::FailedPrecondition(
            "CompareAndSwap " + std::string(url) + ": the server refused If-Match with ETag " +
            now->generation + " although it is current; set TOKENMILL_S3_IF_MATCH_QUOTES to " +
            (form == IfMatchQuotes::kQuoted ? "unquoted" : "quoted") + " for this endpoint");
      }
      form = form == IfMatchQuotes::kQuoted ? IfMatchQuotes::kUnquoted : IfMatchQuotes::kQuoted;
      switched_form = true;
      LogDebug("S3 endpoint refused If-Match in one form; trying the other");
      continue;
    }
    // Ambiguous and unchanged: the write did not happen; the condition protects a new attempt.
    if (attempt + 1 >= http().options().max_attempts) {
      return r.ok() ? ErrorFor("PUT If-Match", url, *r) : r.status();
    }
    CountRetry();
    http().Backoff(attempt);
  }
}

}  // namespace tokenmill
