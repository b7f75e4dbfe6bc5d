#include "tokenmill/storage/http_client.h"

#include <gtest/gtest.h>

#include <atomic>

#include "tokenmill/storage/test_http_server.h"

namespace tokenmill {
namespace {

TEST(UriEncodeTest, KeepsUnreservedAndOptionallySlash) {
  EXPECT_EQ(UriEncode("a-b_c.d~e/f g+h", true), "a-b_c.d~e/f%20g%2Bh");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("\xC3\xA9", true), "%C3%A9");
}

TEST(CanonicalQueryTest, SortedAndEncoded) {
  EXPECT_EQ(CanonicalQuery({}), "");
  EXPECT_EQ(CanonicalQuery({{"prefix", "a/b c"}, {"list-type", "2"}, {"uploads", ""}}),
            "?list-type=2&prefix=a%2Fb%20c&uploads=");
}

TEST(ParseU64Test, DigitsOnly) {
  bool ok = false;
  EXPECT_EQ(ParseU64("8388608", &ok), 8388608u);
  EXPECT_TRUE(ok);
  EXPECT_EQ(ParseU64("0", &ok), 0u);
  EXPECT_TRUE(ok);
  for (const char* bad : {"", " 12", "12 ", "-1", "1e3", "0x10"}) {
    EXPECT_EQ(ParseU64(bad, &ok), 0u) << bad;
    EXPECT_FALSE(ok) << bad;
  }
}

TEST(ParseHttpDateTest, ImfFixdatesAndNothingElse) {
  EXPECT_EQ(ParseHttpDate("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), int64_t{784111777} * 1000);
  EXPECT_EQ(ParseHttpDate("Tue, 29 Feb 2028 23:59:59 GMT"), int64_t{1835481599} * 1000);
  EXPECT_EQ(ParseHttpDate("Mon, 07 Dec 2026 03:30:00 GMT"), int64_t{1796614200} * 1000);
  for (const char* bad : {"", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT",
                          "Sun Nov  6 08:49:37 1994", "Sun, 06 Xyz 1994 08:49:37 GMT",
                          "Sun, 06 Nov 1994 24:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT ",
                          "Sun, 06 ovN 1994 08:49:37 GMT"}) {
    EXPECT_EQ(ParseHttpDate(bad), 0) << bad;
  }
}

HttpOptions FastRetries(int attempts) {
  HttpOptions o;
  o.max_attempts = attempts;
  o.initial_backoff_ms = 1;
  o.max_backoff_ms = 5;
  return o;
}

TEST(HttpClientTest, SendsMethodHeadersAndBody) {
  TestHttpRequest seen;
  TestHttpServer server([&](const TestHttpRequest& r) {
    seen = r;
    return MakeHttpResponse(200, {"ETag: \"e1\"", "X-Custom: yes"}, "response body");
  });
  HttpClient client(FastRetries(1));
  HttpRequest req;
  req.method = "PUT";
  req.url = server.url() + "/path/x?a=1";
  req.headers = {"Content-Type: application/octet-stream", "If-None-Match: *"};
  req.body = "payload";
  req.has_body = true;
  StatusOr<HttpResponse> r = client.SendOnce(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, "response body");
  EXPECT_EQ(r->Header("etag"), "\"e1\"");
  EXPECT_EQ(r->Header("x-custom"), "yes");
  EXPECT_EQ(seen.method, "PUT");
  EXPECT_EQ(seen.target, "/path/x?a=1");
  EXPECT_EQ(seen.body, "payload");
  EXPECT_EQ(seen.Header("if-none-match"), "*");
  EXPECT_EQ(seen.Header("content-type"), "application/octet-stream");
}

TEST(HttpClientTest, RetriesRetryableStatusesThenSucceeds) {
  std::atomic<int> n{0};
  TestHttpServer server([&](const TestHttpRequest&) {
    int i = n++;
    if (i == 0) return MakeHttpResponse(503);
    if (i == 1) return MakeHttpResponse(429);
    return MakeHttpResponse(200, {}, "ok");
  });
  HttpClient client(FastRetries(5));
  std::atomic<uint64_t> retries{0};
  HttpRequest req;
  req.url = server.url() + "/x";
  StatusOr<HttpResponse> r = client.Send(req, &retries);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(retries.load(), 2u);
}

TEST(HttpClientTest, DoesNotRetryClientErrors) {
  std::atomic<int> n{0};
  TestHttpServer server([&](const TestHttpRequest&) {
    ++n;
    return MakeHttpResponse(404);
  });
  HttpClient client(FastRetries(5));
  HttpRequest req;
  req.url = server.url() + "/x";
  StatusOr<HttpResponse> r = client.Send(req);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(n.load(), 1);
}

TEST(HttpClientTest, DroppedConnectionsAreTransportErrorsAndRetried) {
  std::atomic<int> n{0};
  TestHttpServer server([&](const TestHttpRequest&) -> std::optional<std::string> {
    if (n++ < 2) return std::nullopt;
    return MakeHttpResponse(200, {}, "third time");
  });
  HttpClient client(FastRetries(5));
  HttpRequest req;
  req.url = server.url() + "/x";
  TransportError te;
  StatusOr<HttpResponse> once = client.SendOnce(req, &te);
  EXPECT_FALSE(once.ok());
  EXPECT_EQ(once.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(te, TransportError::kNetwork);
  std::atomic<uint64_t> retries{0};
  StatusOr<HttpResponse> r = client.Send(req, &retries);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->body, "third time");
  EXPECT_EQ(retries.load(), 1u);
}

TEST(HttpClientTest, ARefusedOptionFailsTheRequestBeforeItIsSent) {
  std::atomic<int> n{0};
  TestHttpServer server([&](const TestHttpRequest&) {
    ++n;
    return MakeHttpResponse(200);
  });
  HttpClient client(FastRetries(3));
  HttpRequest req;
  // libcurl refuses option strings longer than 8,000,000 bytes (CURL_MAX_INPUT_LENGTH).
  req.url = server.url() + "/" + std::string(8'000'001, 'a');
  std::atomic<uint64_t> retries{0};
  StatusOr<HttpResponse> r = client.Send(req, &retries);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("libcurl refused CURLOPT_URL"), std::string::npos)
      << r.status().message().substr(0, 300);
  EXPECT_LT(r.status().message().size(), 1000u);  // the URL is not in it
  EXPECT_EQ(retries.load(), 0u);
  EXPECT_EQ(n.load(), 0);
  // The handle went back to the pool clean: the next request goes through.
  req.url = server.url() + "/x";
  StatusOr<HttpResponse> next = client.Send(req);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(n.load(), 1);
}

TEST(HttpClientTest, ConnectionRefusedIsAConnectError) {
  int port;
  {
    TestHttpServer tmp([](const TestHttpRequest&) { return std::nullopt; });
    port = tmp.port();
  }
  HttpClient client(FastRetries(3));
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/x";
  TransportError te;
  StatusOr<HttpResponse> r = client.SendOnce(req, &te);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(te, TransportError::kConnect);
  EXPECT_NE(r.status().message().find(req.url), std::string::npos);
  std::atomic<uint64_t> retries{0};
  EXPECT_FALSE(client.Send(req, &retries).ok());
  EXPECT_EQ(retries.load(), 2u);
}

TEST(HttpClientTest, UploadsAFileRange) {
  std::string path = testing::TempDir() + "/tm_http_upload.bin";
  {
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fputs("0123456789", f);
    std::fclose(f);
  }
  std::string got;
  TestHttpServer server([&](const TestHttpRequest& r) {
    got = r.body;
    return MakeHttpResponse(200);
  });
  HttpClient client(FastRetries(1));
  HttpRequest req;
  req.method = "PUT";
  req.url = server.url() + "/f";
  req.has_body = true;
  req.body_file = path;
  req.body_offset = 3;
  req.body_length = 5;
  ASSERT_TRUE(client.SendOnce(req).ok());
  EXPECT_EQ(got, "34567");
  std::remove(path.c_str());
}

TEST(HttpClientTest, ErrorsDoNotLeakSignedQueryParameters) {
  HttpClient client(FastRetries(1));
  HttpRequest req;
  req.url = "http://127.0.0.1:1/x?X-Amz-Signature=deadbeefsecret&X-Amz-Credential=AKIA";
  StatusOr<HttpResponse> r = client.SendOnce(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("deadbeefsecret"), std::string::npos) << r.status().message();
}

TEST(HttpClientTest, ResponseSizeLimit) {
  TestHttpServer server(
      [](const TestHttpRequest&) { return MakeHttpResponse(200, {}, std::string(10000, 'x')); });
  HttpClient client(FastRetries(1));
  HttpRequest req;
  req.url = server.url() + "/big";
  req.max_response_bytes = 100;
  StatusOr<HttpResponse> r = client.SendOnce(req);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace tokenmill
