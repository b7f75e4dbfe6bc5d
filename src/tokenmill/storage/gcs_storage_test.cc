// GCS backend tests against local stand-ins: a GCE metadata server and a minimal GCS XML
// endpoint (both TestHttpServer), checking the request shapes (preconditions, bearer and HMAC
// authorization), the token cache and refresh, and a create / CAS / read / list round trip.
#include "tokenmill/storage/gcs_storage.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "tokenmill/base/log.h"
#include "tokenmill/storage/test_http_server.h"
#include "tokenmill/storage/xml.h"

namespace tokenmill {
namespace {

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> ParseQuery(std::string_view q) {
  std::map<std::string, std::string> out;
  while (!q.empty()) {
    size_t amp = q.find('&');
    std::string_view kv = q.substr(0, amp);
    size_t eq = kv.find('=');
    out[PercentDecode(kv.substr(0, eq))] =
        eq == std::string_view::npos ? "" : PercentDecode(kv.substr(eq + 1));
    q.remove_prefix(amp == std::string_view::npos ? q.size() : amp + 1);
  }
  return out;
}

// A metadata server handing out "token-1", "token-2"... that expire after `expires_in` seconds.
class FakeMetadataServer {
 public:
  explicit FakeMetadataServer(int expires_in = 3599)
      : expires_in_(expires_in), server_([this](const TestHttpRequest& r) { return Handle(r); }) {}
  std::string host() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  int served() const { return served_.load(); }
  std::string last_flavor() {
    std::lock_guard<std::mutex> lock(mu_);
    return flavor_;
  }
  std::string last_target() {
    std::lock_guard<std::mutex> lock(mu_);
    return target_;
  }

 private:
  std::optional<std::string> Handle(const TestHttpRequest& r) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      flavor_ = r.Header("metadata-flavor");
      target_ = r.target;
    }
    if (r.Header("metadata-flavor") != "Google") return MakeHttpResponse(403, {}, "no flavor");
    if (r.target != "/computeMetadata/v1/instance/service-accounts/default/token") {
      return MakeHttpResponse(404);
    }
    int n = ++served_;
    return MakeHttpResponse(200, {"Content-Type: application/json", "Metadata-Flavor: Google"},
                            "{\"access_token\":\"token-" + std::to_string(n) +
                                "\",\"expires_in\":" + std::to_string(expires_in_) +
                                ",\"token_type\":\"Bearer\"}");
  }

  int expires_in_;
  std::atomic<int> served_{0};
  std::mutex mu_;
  std::string flavor_;
  std::string target_;
  TestHttpServer server_;
};

// Enough of the GCS XML API for the backend: objects with generations, preconditions, ranges,
// ListObjectsV2 pages, XML multipart uploads (start, parts, complete, abort, and their listing in
// pages of one upload); plus switches to answer 401 to a revoked token, 503 after applying a PUT,
// and to fail every multipart completion and abort (a writer that dies mid-upload).
class FakeGcs {
 public:
  FakeGcs() : server_([this](const TestHttpRequest& r) { return Handle(r); }) {}
  std::string url() const { return server_.url(); }

  std::vector<TestHttpRequest> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  void Revoke(const std::string& token) {
    std::lock_guard<std::mutex> lock(mu_);
    revoked_.insert(token);
  }
  void ApplyThen503(int n) {
    std::lock_guard<std::mutex> lock(mu_);
    apply_then_503_ = n;
  }
  void Forbid(bool f) {
    std::lock_guard<std::mutex> lock(mu_);
    forbid_ = f;
  }
  void BreakUploads(bool b) {
    std::lock_guard<std::mutex> lock(mu_);
    break_uploads_ = b;
  }
  // Keys of the multipart uploads in progress.
  std::vector<std::string> uploads() {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::string> out;
    for (const auto& [id, u] : uploads_) out.push_back(u.key);
    return out;
  }

 private:
  struct Object {
    std::string data;
    int64_t generation;
  };

  static std::string Error(int status, const std::string& code) {
    return MakeHttpResponse(status, {"Content-Type: application/xml"},
                            "<?xml version='1.0' encoding='UTF-8'?><Error><Code>" + code +
                                "</Code><Message>fake</Message></Error>");
  }

  std::optional<std::string> Handle(const TestHttpRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back(r);
    std::string auth = r.Header("authorization");
    if (auth.starts_with("Bearer ") && revoked_.contains(auth.substr(7))) {
      return Error(401, "AuthenticationRequired");
    }
    if (forbid_) return Error(403, "AccessDenied");
    std::string path = r.target.substr(0, r.target.find('?'));
    std::string query =
        r.target.find('?') == std::string::npos ? "" : r.target.substr(r.target.find('?') + 1);
    std::string name = PercentDecode(path.substr(1));  // "bucket/key"
    size_t slash = name.find('/');
    std::map<std::string, std::string> q = ParseQuery(query);
    if (slash == std::string::npos) {
      return q.contains("uploads") ? ListUploads(name, q) : List(name, q);
    }
    if (q.contains("uploads") || q.contains("uploadId")) return Multipart(r, name, q);
    std::string match = r.Header("x-goog-if-generation-match");
    auto it = objects_.find(name);
    if (r.method == "PUT") {
      if (!match.empty()) {
        int64_t want = std::stoll(match);
        int64_t have = it == objects_.end() ? 0 : it->second.generation;
        if (want != have) return Error(412, "PreconditionFailed");
      }
      int64_t gen = ++next_generation_;
      objects_[name] = Object{r.body, gen};
      if (apply_then_503_ > 0) {
        --apply_then_503_;
        return Error(503, "ServiceUnavailable");
      }
      return MakeHttpResponse(200, {"x-goog-generation: " + std::to_string(gen),
                                    "ETag: \"etag" + std::to_string(gen) + "\""});
    }
    if (r.method == "DELETE") {
      objects_.erase(name);
      return MakeHttpResponse(204);
    }
    if (it == objects_.end()) return Error(404, "NoSuchKey");
    const Object& o = it->second;
    if (!match.empty() && std::stoll(match) != o.generation) {
      return Error(412, "PreconditionFailed");
    }
    std::vector<std::string> headers = {"x-goog-generation: " + std::to_string(o.generation),
                                        "ETag: \"etag" + std::to_string(o.generation) + "\""};
    if (r.method == "HEAD") {
      return "HTTP/1.1 200 OK\r\nx-goog-generation: " + std::to_string(o.generation) +
             "\r\nContent-Length: " + std::to_string(o.data.size()) +
             "\r\nConnection: close\r\n\r\n";
    }
    std::string range = r.Header("range");
    if (range.empty()) return MakeHttpResponse(200, headers, o.data);
    size_t dash = range.find('-');
    uint64_t a = std::stoull(range.substr(6, dash - 6));
    uint64_t b = dash + 1 < range.size() ? std::stoull(range.substr(dash + 1)) : o.data.size() - 1;
    if (a >= o.data.size()) {
      headers.push_back("Content-Range: bytes */" + std::to_string(o.data.size()));
      return MakeHttpResponse(416, headers);
    }
    b = std::min<uint64_t>(b, o.data.size() - 1);
    headers.push_back("Content-Range: bytes " + std::to_string(a) + "-" + std::to_string(b) + "/" +
                      std::to_string(o.data.size()));
    return MakeHttpResponse(206, headers, o.data.substr(a, b - a + 1));
  }

  std::optional<std::string> Multipart(const TestHttpRequest& r, const std::string& name,
                                       std::map<std::string, std::string>& q) {
    const std::string key = name.substr(name.find('/') + 1);
    if (r.method == "POST" && q.contains("uploads")) {
      const std::string id = "upload-" + std::to_string(++next_upload_);
      uploads_[id] = Upload{key, {}};
      return MakeHttpResponse(
          200, {"Content-Type: application/xml"},
          "<?xml version='1.0' encoding='UTF-8'?><InitiateMultipartUploadResult>"
          "<Bucket>b</Bucket><Key>" +
              XmlEscape(key) + "</Key><UploadId>" + id +
              "</UploadId></InitiateMultipartUploadResult>");
    }
    auto it = uploads_.find(q["uploadId"]);
    if (it == uploads_.end() || it->second.key != key) return Error(404, "NoSuchUpload");
    if (r.method == "PUT" && q.contains("partNumber")) {
      const int part = std::stoi(q["partNumber"]);
      it->second.parts[part] = r.body;
      return MakeHttpResponse(200, {"ETag: \"part" + std::to_string(part) + "\""});
    }
    if (break_uploads_) return Error(503, "ServiceUnavailable");
    if (r.method == "DELETE") {
      uploads_.erase(it);
      return MakeHttpResponse(204);
    }
    if (r.method == "POST") {
      std::string data;
      for (const auto& [n, part] : it->second.parts) data += part;
      const int64_t gen = ++next_generation_;
      objects_[name] = Object{data, gen};
      uploads_.erase(it);
      return MakeHttpResponse(
          200, {"Content-Type: application/xml"},
          "<?xml version='1.0' encoding='UTF-8'?><CompleteMultipartUploadResult>"
          "<Key>" +
              XmlEscape(key) + "</Key></CompleteMultipartUploadResult>");
    }
    return Error(400, "InvalidArgument");
  }

  // ListMultipartUploads, one upload a page, markers as the XML API gives them.
  std::optional<std::string> ListUploads(const std::string& bucket,
                                         std::map<std::string, std::string> q) {
    const std::string& prefix = q["prefix"];
    const std::string& delimiter = q["delimiter"];
    const std::pair<std::string, std::string> after{q["key-marker"], q["upload-id-marker"]};
    std::vector<std::pair<std::string, std::string>> listed;  // (key, id), sorted
    std::set<std::string> common;
    for (const auto& [id, u] : uploads_) {
      if (!u.key.starts_with(prefix)) continue;
      const size_t d = delimiter.empty() ? std::string::npos : u.key.find(delimiter, prefix.size());
      if (d != std::string::npos) {
        common.insert(u.key.substr(0, d + 1));
        continue;
      }
      if (!after.first.empty() && std::make_pair(u.key, id) <= after) continue;
      listed.emplace_back(u.key, id);
    }
    std::sort(listed.begin(), listed.end());
    std::string xml = "<?xml version='1.0' encoding='UTF-8'?><ListMultipartUploadsResult><Bucket>" +
                      bucket + "</Bucket>";
    const bool truncated = listed.size() > 1;
    xml += std::string("<IsTruncated>") + (truncated ? "true" : "false") + "</IsTruncated>";
    if (!listed.empty()) {
      if (truncated) {
        xml += "<NextKeyMarker>" + XmlEscape(listed[0].first) +
               "</NextKeyMarker><NextUploadIdMarker>" + listed[0].second + "</NextUploadIdMarker>";
      }
      xml += "<Upload><Key>" + XmlEscape(listed[0].first) + "</Key><UploadId>" + listed[0].second +
             "</UploadId><Initiated>2026-12-01T12:00:00.000Z</Initiated></Upload>";
    }
    for (const std::string& p : common) {
      xml += "<CommonPrefixes><Prefix>" + XmlEscape(p) + "</Prefix></CommonPrefixes>";
    }
    xml += "</ListMultipartUploadsResult>";
    return MakeHttpResponse(200, {"Content-Type: application/xml"}, xml);
  }

  std::optional<std::string> List(const std::string& bucket, std::map<std::string, std::string> q) {
    if (q["list-type"] != "2") return Error(400, "InvalidArgument");
    size_t max_keys = q.contains("max-keys") ? std::stoul(q["max-keys"]) : 1000;
    std::string prefix = bucket + "/" + q["prefix"];
    std::string after =
        q.contains("continuation-token") ? bucket + "/" + q["continuation-token"] : "";
    std::string xml = "<?xml version='1.0' encoding='UTF-8'?><ListBucketResult>";
    std::string body;
    size_t n = 0;
    bool truncated = false;
    std::string last;
    for (const auto& [name, o] : objects_) {
      if (!name.starts_with(prefix) || (!after.empty() && name <= after)) continue;
      if (n == max_keys) {
        truncated = true;
        break;
      }
      last = name.substr(bucket.size() + 1);
      body += "<Contents><Key>" + XmlEscape(last) + "</Key><Generation>" +
              std::to_string(o.generation) + "</Generation><MetaGeneration>1</MetaGeneration>" +
              "<Size>" + std::to_string(o.data.size()) + "</Size></Contents>";
      ++n;
    }
    xml += std::string("<IsTruncated>") + (truncated ? "true" : "false") + "</IsTruncated>" + body;
    if (truncated) xml += "<NextContinuationToken>" + XmlEscape(last) + "</NextContinuationToken>";
    xml += "</ListBucketResult>";
    return MakeHttpResponse(200, {"Content-Type: application/xml"}, xml);
  }

  std::mutex mu_;
  std::map<std::string, Object> objects_;
  int64_t next_generation_ = 1700000000000000;
  std::vector<TestHttpRequest> log_;
  std::set<std::string> revoked_;
  int apply_then_503_ = 0;
  bool forbid_ = false;
  struct Upload {
    std::string key;
    std::map<int, std::string> parts;
  };
  std::map<std::string, Upload> uploads_;
  int next_upload_ = 0;
  bool break_uploads_ = false;
  TestHttpServer server_;
};

ObjectStoreOptions FastOptions() {
  ObjectStoreOptions o;
  o.http.initial_backoff_ms = 1;
  o.http.max_backoff_ms = 5;
  o.http.max_attempts = 3;
  o.read_chunk = 1000;
  o.read_ahead = 2;
  o.list_page_size = 2;
  return o;
}

TEST(ParseTokenResponseTest, AcceptsTheDocumentedShape) {
  StatusOr<OAuthToken> t =
      ParseTokenResponse(R"({"access_token":"ya29.abc","expires_in":3599,"token_type":"Bearer"})");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->access_token, "ya29.abc");
  EXPECT_EQ(t->expires_in_s, 3599);
}

TEST(ParseTokenResponseTest, RejectsBadAnswersWithoutEchoingThem) {
  for (const char* bad :
       {"", "not json", "[]", R"({"expires_in":10})", R"({"access_token":"","expires_in":10})",
        R"({"access_token":"secret-tok","expires_in":"10"})",
        R"({"access_token":"secret-tok","expires_in":0})",
        R"({"access_token":"secret-tok","expires_in":10,"token_type":"MAC"})"}) {
    StatusOr<OAuthToken> t = ParseTokenResponse(bad);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(t.status().message().find("secret-tok"), std::string::npos);
  }
}

TEST(GcsTokenSourceTest, CachesAndRefreshesFiveMinutesEarly) {
  FakeMetadataServer metadata(3599);
  HttpClient http;
  auto now = std::chrono::steady_clock::now();
  GcsTokenSource tokens(&http, metadata.host(), [&] { return now; });
  EXPECT_EQ(*tokens.Token(), "token-1");
  EXPECT_EQ(*tokens.Token(), "token-1");
  EXPECT_EQ(metadata.served(), 1);
  EXPECT_EQ(metadata.last_flavor(), "Google");
  EXPECT_EQ(metadata.last_target(), "/computeMetadata/v1/instance/service-accounts/default/token");
  now += std::chrono::seconds(3599 - 300 - 1);
  EXPECT_EQ(*tokens.Token(), "token-1");
  now += std::chrono::seconds(2);
  EXPECT_EQ(*tokens.Token(), "token-2");
  EXPECT_EQ(tokens.fetches(), 2);
  tokens.Invalidate();
  EXPECT_EQ(*tokens.Token(), "token-3");
  // Tokens are secrets: logs never show them.
  EXPECT_EQ(RedactSecrets("Bearer token-3"), "Bearer [REDACTED]");
}

TEST(GcsTokenSourceTest, ShortLivedTokensRefreshAtHalfLife) {
  FakeMetadataServer metadata(60);
  HttpClient http;
  auto now = std::chrono::steady_clock::now();
  GcsTokenSource tokens(&http, metadata.host(), [&] { return now; });
  EXPECT_EQ(*tokens.Token(), "token-1");
  now += std::chrono::seconds(29);
  EXPECT_EQ(*tokens.Token(), "token-1");
  now += std::chrono::seconds(2);
  EXPECT_EQ(*tokens.Token(), "token-2");
}

TEST(GcsTokenSourceTest, NoMetadataServerIsAClearPermissionError) {
  int port;
  {
    TestHttpServer tmp([](const TestHttpRequest&) { return std::nullopt; });
    port = tmp.port();
  }
  HttpOptions o;
  o.max_attempts = 2;
  o.initial_backoff_ms = 1;
  HttpClient http(o);
  GcsTokenSource tokens(&http, "127.0.0.1:" + std::to_string(port));
  StatusOr<std::string> t = tokens.Token();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(t.status().message().find("GCS_HMAC_ACCESS_ID"), std::string::npos);
  EXPECT_NE(t.status().message().find("metadata server"), std::string::npos);
}

class GcsStorageTest : public ::testing::Test {
 protected:
  std::unique_ptr<GcsStorage> Bearer(ObjectStoreOptions o = FastOptions()) {
    GcsConfig c;
    c.endpoint = gcs_.url();
    c.metadata_host = metadata_.host();
    return std::make_unique<GcsStorage>(c, o);
  }
  FakeMetadataServer metadata_;
  FakeGcs gcs_;
};

TEST_F(GcsStorageTest, CreateCasReadListRoundTripWithBearerToken) {
  auto s = Bearer();
  StatusOr<std::string> g1 = s->CreateIfAbsent("gs://b/job/leases/1", "holder a 1");
  ASSERT_TRUE(g1.ok()) << g1.status().ToString();
  TestHttpRequest put = gcs_.requests().back();
  EXPECT_EQ(put.method, "PUT");
  EXPECT_EQ(put.target, "/b/job/leases/1");
  EXPECT_EQ(put.Header("x-goog-if-generation-match"), "0");
  EXPECT_EQ(put.Header("authorization"), "Bearer token-1");
  EXPECT_EQ(put.body, "holder a 1");

  EXPECT_EQ(s->CreateIfAbsent("gs://b/job/leases/1", "holder b 1").status().code(),
            StatusCode::kAlreadyExists);
  StatusOr<VersionedData> v = s->ReadVersioned("gs://b/job/leases/1");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->data, "holder a 1");
  EXPECT_EQ(v->generation, *g1);

  StatusOr<std::string> g2 = s->CompareAndSwap("gs://b/job/leases/1", "holder a 2", *g1);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_EQ(gcs_.requests().back().Header("x-goog-if-generation-match"), *g1);
  EXPECT_NE(*g2, *g1);
  EXPECT_EQ(s->CompareAndSwap("gs://b/job/leases/1", "holder c", *g1).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(s->CompareAndSwap("gs://b/job/leases/1", "holder c", "\"etag\"").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(s->CompareAndSwap("gs://b/job/leases/2", "x", *g2).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(*s->Read("gs://b/job/leases/1"), "holder a 2");

  ASSERT_TRUE(s->Write("gs://b/job/tasks/1", "0123456789").ok());
  EXPECT_TRUE(gcs_.requests().back().Header("x-goog-if-generation-match").empty());
  EXPECT_EQ(*s->Read("gs://b/job/tasks/1", 3, 4), "3456");
  EXPECT_EQ(gcs_.requests().back().Header("range"), "bytes=3-6");
  EXPECT_EQ(s->Stat("gs://b/job/tasks/1")->size, 10u);
  ASSERT_TRUE(s->Write("gs://b/job/tasks/2", "x").ok());
  ASSERT_TRUE(s->Write("gs://b/job/tasks/3", "y").ok());

  StatusOr<std::vector<ObjectInfo>> l = s->List("gs://b/job/");
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->size(), 4u);
  EXPECT_EQ((*l)[0].url, "gs://b/job/leases/1");
  EXPECT_EQ((*l)[0].generation, *g2);
  EXPECT_EQ((*l)[3].url, "gs://b/job/tasks/3");
  EXPECT_EQ(s->counters().lists, 2u) << "4 objects in pages of 2";
  for (const auto& r : gcs_.requests()) {
    if (r.target.starts_with("/b?")) {
      EXPECT_NE(r.target.find("list-type=2"), std::string::npos);
    }
  }

  ASSERT_TRUE(s->Delete("gs://b/job/tasks/1").ok());
  EXPECT_EQ(s->Read("gs://b/job/tasks/1").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(metadata_.served(), 1) << "one token for the whole session";
}

TEST_F(GcsStorageTest, StreamsArePinnedToOneGeneration) {
  auto s = Bearer();
  std::string data(3500, 'q');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 26);
  ASSERT_TRUE(s->Write("gs://b/big", data).ok());
  std::string gen = s->Stat("gs://b/big")->generation;
  auto stream = s->OpenRead("gs://b/big");
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::string got;
  char buf[300];
  while (true) {
    StatusOr<size_t> n = (*stream)->Read(buf, sizeof(buf));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    got.append(buf, *n);
  }
  EXPECT_EQ(got, data);
  int pinned = 0;
  for (const auto& r : gcs_.requests()) {
    if (r.method == "GET" && r.Header("x-goog-if-generation-match") == gen) ++pinned;
  }
  EXPECT_EQ(pinned, 3) << "ranges 2..4 of 1000 bytes are pinned to the first one's generation";
}

TEST_F(GcsStorageTest, ExpiredTokenGets401ThenOneRefresh) {
  auto s = Bearer();
  ASSERT_TRUE(s->Write("gs://b/k", "v").ok());
  gcs_.Revoke("token-1");
  StatusOr<std::string> r = s->Read("gs://b/k");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "v");
  EXPECT_EQ(metadata_.served(), 2);
  EXPECT_EQ(gcs_.requests().back().Header("authorization"), "Bearer token-2");
  // Conditional writes refresh too.
  gcs_.Revoke("token-2");
  EXPECT_TRUE(s->CreateIfAbsent("gs://b/new", "n").ok());
  EXPECT_EQ(metadata_.served(), 3);
}

TEST_F(GcsStorageTest, AmbiguousConditionalWritesAreSettledByReadingBack) {
  auto s = Bearer();
  gcs_.ApplyThen503(1);
  StatusOr<std::string> g = s->CreateIfAbsent("gs://b/done/7", "holder h attempt 1");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(*g, s->Stat("gs://b/done/7")->generation);
  gcs_.ApplyThen503(1);
  StatusOr<std::string> g2 = s->CompareAndSwap("gs://b/done/7", "holder h attempt 2", *g);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_EQ(*s->Read("gs://b/done/7"), "holder h attempt 2");
}

TEST_F(GcsStorageTest, MultipartUploadsAndTheirCleanUp) {
  ObjectStoreOptions o = FastOptions();
  o.multipart_threshold = 1000;
  o.part_size = 400;
  auto s = Bearer(o);
  std::string data(2500, 'x');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>('a' + i % 23);
  // A large write is an XML multipart upload: start, parts, completion.
  ASSERT_TRUE(s->Write("gs://b/out/part-000000-000.tfrecord", data).ok());
  EXPECT_EQ(*s->Read("gs://b/out/part-000000-000.tfrecord"), data);
  EXPECT_TRUE(gcs_.uploads().empty());
  int starts = 0, parts = 0;
  for (const auto& r : gcs_.requests()) {
    starts += r.method == "POST" && r.target.find("?uploads") != std::string::npos;
    parts += r.method == "PUT" && r.target.find("partNumber=") != std::string::npos;
  }
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(parts, 7);

  // Writers that die before completing (completion and abort fail) leave incomplete uploads,
  // never an object under the final name.
  gcs_.BreakUploads(true);
  EXPECT_FALSE(s->Write("gs://b/out/part-000001-000.tfrecord", data).ok());
  EXPECT_FALSE(s->Write("gs://b/out/part-000002-000.tfrecord", data).ok());
  EXPECT_FALSE(s->Write("gs://b/out/sub/part-000003-000.tfrecord", data).ok());
  EXPECT_FALSE(s->Write("gs://b/other/part-000004-000.tfrecord", data).ok());
  gcs_.BreakUploads(false);
  EXPECT_EQ(s->Stat("gs://b/out/part-000001-000.tfrecord").status().code(), StatusCode::kNotFound);
  ASSERT_EQ(gcs_.uploads().size(), 4u);

  // Listed directly in the folder only (not its sub-folders, not elsewhere), across pages.
  StatusOr<std::vector<IncompleteWrite>> incomplete = s->ListIncomplete("gs://b/out");
  ASSERT_TRUE(incomplete.ok()) << incomplete.status().ToString();
  ASSERT_EQ(incomplete->size(), 2u);
  EXPECT_EQ((*incomplete)[0].url, "gs://b/out/part-000001-000.tfrecord");
  EXPECT_EQ((*incomplete)[1].url, "gs://b/out/part-000002-000.tfrecord");
  bool delimited = false;
  for (const auto& r : gcs_.requests()) {
    if (r.method == "GET" && r.target.starts_with("/b?")) {
      delimited = delimited || (r.target.find("uploads") != std::string::npos &&
                                r.target.find("delimiter=%2F") != std::string::npos);
    }
  }
  EXPECT_TRUE(delimited);
  for (const IncompleteWrite& w : *incomplete) ASSERT_TRUE(s->RemoveIncomplete(w).ok());
  EXPECT_EQ(gcs_.uploads(), (std::vector<std::string>{"out/sub/part-000003-000.tfrecord",
                                                      "other/part-000004-000.tfrecord"}))
      << "the other uploads are left alone";
  EXPECT_TRUE(s->ListIncomplete("gs://b/out/")->empty());
  // Aborting an upload already gone is not an error (a retried abort).
  EXPECT_TRUE(s->RemoveIncomplete((*incomplete)[0]).ok());
}

TEST_F(GcsStorageTest, PermissionErrorsCarryNoToken) {
  auto s = Bearer();
  gcs_.Forbid(true);
  StatusOr<std::string> r = s->Read("gs://b/k");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("gs://b/k"), std::string::npos);
  EXPECT_NE(r.status().message().find("403"), std::string::npos);
  EXPECT_NE(r.status().message().find("AccessDenied"), std::string::npos);
  EXPECT_EQ(r.status().message().find("token-1"), std::string::npos);
}

TEST_F(GcsStorageTest, HmacRequestsAreSignedWithGoogleV4) {
  GcsConfig c;
  c.endpoint = gcs_.url();
  c.metadata_host = metadata_.host();
  c.hmac_access_id = "GOOGTS7C7FUP3AIRVJTE2BCD";
  c.hmac_secret = "bGoa+V7g/yqDXvKRqq+JTFn4uQZbPiQJo4pf9RzJ";
  GcsStorage s(c, FastOptions());
  ASSERT_TRUE(s.CreateIfAbsent("gs://b/h", "hmac").ok());
  TestHttpRequest put = gcs_.requests().back();
  std::string auth = put.Header("authorization");
  EXPECT_TRUE(auth.starts_with("GOOG4-HMAC-SHA256 Credential=GOOGTS7C7FUP3AIRVJTE2BCD/")) << auth;
  EXPECT_NE(auth.find("/auto/storage/goog4_request"), std::string::npos) << auth;
  EXPECT_NE(auth.find("x-goog-if-generation-match"), std::string::npos) << "signed: " << auth;
  EXPECT_FALSE(put.Header("x-goog-date").empty());
  EXPECT_EQ(put.Header("x-goog-content-sha256").size(), 64u);
  EXPECT_EQ(put.Header("x-goog-if-generation-match"), "0");
  EXPECT_EQ(auth.find(c.hmac_secret), std::string::npos);
  EXPECT_EQ(metadata_.served(), 0);

  c.sigv4_provider = "aws:amz:auto:s3";
  GcsStorage aws(c, FastOptions());
  ASSERT_TRUE(aws.Read("gs://b/h").ok());
  TestHttpRequest get = gcs_.requests().back();
  EXPECT_TRUE(get.Header("authorization").starts_with("AWS4-HMAC-SHA256 Credential="));
  EXPECT_FALSE(get.Header("x-amz-content-sha256").empty());
}

TEST(LoadGcsConfigTest, FromEnvironment) {
  std::map<std::string, std::string> vars;
  EnvLookup env = [&](const std::string& n) -> std::optional<std::string> {
    auto it = vars.find(n);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
  StatusOr<GcsConfig> c = LoadGcsConfig(env);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->endpoint, "https://storage.googleapis.com");
  EXPECT_EQ(c->metadata_host, "metadata.google.internal");
  EXPECT_TRUE(c->hmac_access_id.empty());
  vars["TOKENMILL_GCS_ENDPOINT"] = "http://127.0.0.1:4443/";
  vars["GCE_METADATA_HOST"] = "127.0.0.1:8080";
  vars["GCS_HMAC_ACCESS_ID"] = "GOOG1";
  vars["GCS_HMAC_SECRET"] = "gcs-hmac-secret-value";
  c = LoadGcsConfig(env);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->endpoint, "http://127.0.0.1:4443");
  EXPECT_EQ(c->metadata_host, "127.0.0.1:8080");
  EXPECT_EQ(c->hmac_access_id, "GOOG1");
  EXPECT_EQ(RedactSecrets("gcs-hmac-secret-value"), "[REDACTED]");
  vars["GCS_ENDPOINT_URL"] = "http://other:1";
  EXPECT_EQ(LoadGcsConfig(env)->endpoint, "http://other:1");
  vars.erase("GCS_HMAC_SECRET");
  EXPECT_EQ(LoadGcsConfig(env).status().code(), StatusCode::kInvalidArgument);
  vars["GCS_HMAC_SECRET"] = "x";
  vars["GCS_ENDPOINT_URL"] = "ftp://x";
  EXPECT_FALSE(LoadGcsConfig(env).ok());
}

}  // namespace
}  // namespace tokenmill
