// Tests of S3Storage against a real S3 server (scripts/ceph-rgw.sh starts Ceph RGW; source its
// env.sh). Without S3_ENDPOINT they skip, unless TOKENMILL_REQUIRE_S3=1 makes that a failure.
#include "tokenmill/storage/s3_storage.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "tokenmill/storage/test_http_server.h"

namespace tokenmill {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string RandomHex(int n) {
  static std::mt19937_64 gen(std::random_device{}());
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::string s;
  for (int i = 0; i < n; ++i) s += "0123456789abcdef"[gen() % 16];
  return s;
}

int PortOf(const std::string& endpoint) {
  size_t colon = endpoint.rfind(':');
  return std::stoi(endpoint.substr(colon + 1));
}

class S3StorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    endpoint_ = Env("S3_ENDPOINT");
    if (endpoint_.empty()) endpoint_ = Env("AWS_ENDPOINT_URL");
    bucket_ = Env("S3_BUCKET");
    if (endpoint_.empty() || bucket_.empty() || Env("AWS_ACCESS_KEY_ID").empty() ||
        Env("AWS_SECRET_ACCESS_KEY").empty()) {
      if (Env("TOKENMILL_REQUIRE_S3") == "1") {
        FAIL() << "TOKENMILL_REQUIRE_S3=1 but S3_ENDPOINT (or AWS_ENDPOINT_URL), S3_BUCKET, "
                  "AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not set; run "
                  "scripts/ceph-rgw.sh and source /tmp/tokenmill-rgw/env.sh";
      }
      GTEST_SKIP() << "no S3 server: run scripts/ceph-rgw.sh and source "
                      "/tmp/tokenmill-rgw/env.sh (S3_ENDPOINT, S3_BUCKET, AWS_ACCESS_KEY_ID, "
                      "AWS_SECRET_ACCESS_KEY)";
    }
    prefix_ = "s3://" + bucket_ + "/tm-test/" + RandomHex(12) + "/";
  }

  void TearDown() override {
    if (prefix_.empty()) return;
    auto s = Make();
    auto list = s->List(prefix_);
    if (list.ok()) {
      for (const auto& o : *list) (void)s->Delete(o.url);
    }
  }

  S3Config Config() const {
    S3Config c;
    c.endpoint = endpoint_;
    c.region = Env("AWS_REGION").empty() ? "us-east-1" : Env("AWS_REGION");
    c.access_key_id = Env("AWS_ACCESS_KEY_ID");
    c.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
    c.credentials_source = "environment";
    return c;
  }

  static ObjectStoreOptions SmallOptions() {
    ObjectStoreOptions o;
    o.read_chunk = 256 * 1024;
    o.read_ahead = 3;
    o.multipart_threshold = 6 << 20;
    o.part_size = 5 << 20;  // the S3 minimum
    o.http.initial_backoff_ms = 10;
    o.http.max_backoff_ms = 100;
    return o;
  }

  std::unique_ptr<S3Storage> Make(S3Config c, ObjectStoreOptions o = SmallOptions()) const {
    return std::make_unique<S3Storage>(std::move(c), o);
  }
  std::unique_ptr<S3Storage> Make() const { return Make(Config()); }

  std::string U(const std::string& name) const { return prefix_ + name; }

  std::string endpoint_;
  std::string bucket_;
  std::string prefix_;
};

TEST_F(S3StorageTest, WriteReadStatDelete) {
  auto s = Make();
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before_ms = now_ms();
  ASSERT_TRUE(s->Write(U("a.txt"), "hello, object").ok());
  const int64_t after_ms = now_ms();
  StatusOr<std::string> r = s->Read(U("a.txt"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "hello, object");
  StatusOr<ObjectInfo> st = s->Stat(U("a.txt"));
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->size, 13u);
  EXPECT_FALSE(st->generation.empty());
  // Last-Modified, in whole seconds, by the server's clock (the same machine's here).
  EXPECT_EQ(st->modified_ms % 1000, 0);
  EXPECT_GE(st->modified_ms, before_ms - 1000);
  EXPECT_LE(st->modified_ms, after_ms + 1000);
  StatusOr<VersionedData> v = s->ReadVersioned(U("a.txt"));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->data, "hello, object");
  EXPECT_EQ(v->generation, st->generation);
  ASSERT_TRUE(s->Delete(U("a.txt")).ok());
  EXPECT_EQ(s->Read(U("a.txt")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s->Stat(U("a.txt")).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(s->Delete(U("a.txt")).ok()) << "deleting a missing object is OK";
  StorageCounters c = s->counters();
  EXPECT_EQ(c.writes, 1u);
  EXPECT_EQ(c.deletes, 2u);
  EXPECT_GE(c.reads, 4u);
}

TEST_F(S3StorageTest, MissingObjectErrorNamesUrlStatusAndCode) {
  auto s = Make();
  StatusOr<std::string> r = s->Read(U("missing"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(U("missing")), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("404"), std::string::npos);
  EXPECT_NE(r.status().message().find("NoSuchKey"), std::string::npos);
  StatusOr<std::string> nb = s->Read("s3://no-such-bucket-" + RandomHex(6) + "/k");
  ASSERT_FALSE(nb.ok());
  EXPECT_NE(nb.status().message().find("NoSuchBucket"), std::string::npos);
}

TEST_F(S3StorageTest, KeysNeedingEncodingRoundTripAndList) {
  auto s = Make();
  std::vector<std::string> names = {"sp ace",   "plus+sign", "amp&lt<gt>",
                                    "ünï/cødé", "q?x=1#f",   "percent%20"};
  for (const auto& n : names) {
    ASSERT_TRUE(s->Write(U(n), n).ok()) << n;
  }
  for (const auto& n : names) {
    StatusOr<std::string> r = s->Read(U(n));
    ASSERT_TRUE(r.ok()) << n << ": " << r.status().ToString();
    EXPECT_EQ(*r, n);
  }
  StatusOr<std::vector<ObjectInfo>> l = s->List(prefix_);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  std::set<std::string> got;
  for (const auto& o : *l) got.insert(o.url);
  for (const auto& n : names) EXPECT_TRUE(got.contains(U(n))) << n;
}

TEST_F(S3StorageTest, Ranges) {
  auto s = Make();
  ASSERT_TRUE(s->Write(U("r"), "0123456789abcdef").ok());
  EXPECT_EQ(*s->Read(U("r"), 2, 4), "2345");
  EXPECT_EQ(*s->Read(U("r"), 10), "abcdef");
  EXPECT_EQ(*s->Read(U("r"), 14, 100), "ef");
  EXPECT_EQ(*s->Read(U("r"), 16), "");
  EXPECT_EQ(*s->Read(U("r"), 100, 5), "");
  EXPECT_EQ(*s->Read(U("r"), 3, 0), "");
  ASSERT_TRUE(s->Write(U("empty"), "").ok());
  EXPECT_EQ(*s->Read(U("empty")), "");
  EXPECT_EQ(s->Stat(U("empty"))->size, 0u);
}

std::string Pattern(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  uint32_t x = seed;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s[i] = static_cast<char>(x >> 24);
  }
  return s;
}

std::string Drain(ReadStream* stream, size_t buf_size = 100000) {
  std::string out;
  std::vector<char> buf(buf_size);
  while (true) {
    StatusOr<size_t> n = stream->Read(buf.data(), buf.size());
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    if (!n.ok() || *n == 0) break;
    out.append(buf.data(), *n);
  }
  return out;
}

TEST_F(S3StorageTest, StreamsLargeObjectsInRanges) {
  auto s = Make();
  std::string data = Pattern(3 * 1024 * 1024 + 12345, 1);
  ASSERT_TRUE(s->Write(U("big"), data).ok());
  auto stream = s->OpenRead(U("big"));
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  EXPECT_EQ(Drain(stream->get()), data);
  auto part = s->OpenRead(U("big"), 1000000, 700001);
  ASSERT_TRUE(part.ok());
  EXPECT_EQ(Drain(part->get(), 4096), data.substr(1000000, 700001));
  auto tail = s->OpenRead(U("big"), data.size() - 10);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(Drain(tail->get()), data.substr(data.size() - 10));
  auto past = s->OpenRead(U("big"), data.size() + 5);
  ASSERT_TRUE(past.ok());
  EXPECT_EQ(Drain(past->get()), "");
  EXPECT_EQ(s->OpenRead(U("nope")).status().code(), StatusCode::kNotFound);
}

TEST_F(S3StorageTest, StreamDetectsAnObjectReplacedMidway) {
  auto s = Make();
  ASSERT_TRUE(s->Write(U("moving"), Pattern(2 * 1024 * 1024, 2)).ok());
  ObjectStoreOptions o = SmallOptions();
  o.read_ahead = 1;
  auto reader = Make(Config(), o);
  auto stream = reader->OpenRead(U("moving"));
  ASSERT_TRUE(stream.ok());
  ASSERT_TRUE(s->Write(U("moving"), Pattern(2 * 1024 * 1024, 3)).ok());
  std::vector<char> buf(64 * 1024);
  Status error;
  std::string got;
  while (true) {
    StatusOr<size_t> n = (*stream)->Read(buf.data(), buf.size());
    if (!n.ok()) {
      error = n.status();
      break;
    }
    if (*n == 0) break;
    got.append(buf.data(), *n);
  }
  EXPECT_EQ(error.code(), StatusCode::kDataLoss) << error.ToString();
  EXPECT_NE(error.message().find("changed while it was being read"), std::string::npos);
}

TEST_F(S3StorageTest, MultipartUploadFromFileAndMemory) {
  auto s = Make();
  std::string data = Pattern(13 * 1024 * 1024 + 7, 4);  // 3 parts of 5 MiB
  std::string tmpl = (std::filesystem::temp_directory_path() / "tm_s3_mp_XXXXXX").string();
  int fd = ::mkstemp(tmpl.data());
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::write(fd, data.data(), data.size()), static_cast<ssize_t>(data.size()));
  ::close(fd);
  Status w = s->WriteFile(U("mp-file"), tmpl);
  std::filesystem::remove(tmpl);
  ASSERT_TRUE(w.ok()) << w.ToString();
  StatusOr<ObjectInfo> st = s->Stat(U("mp-file"));
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->size, data.size());
  EXPECT_TRUE(st->generation.ends_with("-3\"")) << "multipart ETag: " << st->generation;
  EXPECT_EQ(*s->Read(U("mp-file")), data);

  ASSERT_TRUE(s->Write(U("mp-mem"), data).ok());
  EXPECT_EQ(*s->Read(U("mp-mem"), 5 << 20, 10), data.substr(5 << 20, 10));
  EXPECT_EQ(s->counters().bytes_written, 2 * data.size());

  // A small file goes in one PUT.
  std::string small_path = tmpl + ".small";
  std::ofstream(small_path) << "small file";
  ASSERT_TRUE(s->WriteFile(U("small-file"), small_path).ok());
  std::filesystem::remove(small_path);
  EXPECT_EQ(*s->Read(U("small-file")), "small file");
  EXPECT_EQ(s->WriteFile(U("x"), "/nonexistent/file").code(), StatusCode::kNotFound);
}

TEST_F(S3StorageTest, ListsAcrossPagesSorted) {
  ObjectStoreOptions o = SmallOptions();
  o.list_page_size = 2;
  auto s = Make(Config(), o);
  std::vector<std::string> keys = {"l/e", "l/a", "l/c&d", "l/b", "l/sub/x", "l/d", "l2/other"};
  for (const auto& k : keys) ASSERT_TRUE(s->Write(U(k), k).ok());
  StatusOr<std::vector<ObjectInfo>> l = s->List(U("l/"));
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  std::vector<std::string> urls;
  for (const auto& i : *l) urls.push_back(i.url);
  EXPECT_EQ(urls, (std::vector<std::string>{U("l/a"), U("l/b"), U("l/c&d"), U("l/d"), U("l/e"),
                                            U("l/sub/x")}));
  EXPECT_EQ((*l)[2].size, 5u);
  EXPECT_FALSE((*l)[0].generation.empty());
  EXPECT_EQ(s->counters().lists, 3u) << "6 keys in pages of 2";
  l = s->List(U("l"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->size(), 7u);
  l = s->List(U("none/"));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->empty());
}

TEST_F(S3StorageTest, CreateIfAbsentAndCompareAndSwap) {
  auto s = Make();
  StatusOr<std::string> g1 = s->CreateIfAbsent(U("lease"), "holder a, attempt 1");
  ASSERT_TRUE(g1.ok()) << g1.status().ToString();
  StatusOr<std::string> again = s->CreateIfAbsent(U("lease"), "holder b, attempt 1");
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*s->Read(U("lease")), "holder a, attempt 1");

  StatusOr<std::string> g2 = s->CompareAndSwap(U("lease"), "holder a, renewal 2", *g1);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_NE(*g2, *g1);
  StatusOr<std::string> stale = s->CompareAndSwap(U("lease"), "holder b, takeover", *g1);
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(*s->Read(U("lease")), "holder a, renewal 2");
  EXPECT_EQ(s->ReadVersioned(U("lease"))->generation, *g2);
  EXPECT_EQ(s->CompareAndSwap(U("no-lease"), "x", *g2).status().code(),
            StatusCode::kFailedPrecondition);
  StorageCounters c = s->counters();
  EXPECT_EQ(c.creates, 2u);
  EXPECT_EQ(c.cas, 3u);
}

// Pins Ceph RGW 16's If-Match behaviour: a quoted ETag is refused even when it matches, the
// unquoted form works, and auto mode learns that.
TEST_F(S3StorageTest, IfMatchQuotingPerEndpoint) {
  auto s = Make();
  std::string g = *s->CreateIfAbsent(U("q"), "v1");
  ASSERT_TRUE(g.starts_with('"')) << "ETags come quoted: " << g;

  S3Config quoted = Config();
  quoted.if_match_quotes = IfMatchQuotes::kQuoted;
  StatusOr<std::string> q = Make(quoted)->CompareAndSwap(U("q"), "v2-quoted", g);
  if (q.ok()) {
    GTEST_SKIP() << "this endpoint accepts quoted If-Match (not RGW 16); nothing to pin";
  }
  EXPECT_EQ(q.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(q.status().message().find("TOKENMILL_S3_IF_MATCH_QUOTES"), std::string::npos)
      << q.status().message();
  EXPECT_EQ(*s->Read(U("q")), "v1");

  S3Config unquoted = Config();
  unquoted.if_match_quotes = IfMatchQuotes::kUnquoted;
  StatusOr<std::string> u = Make(unquoted)->CompareAndSwap(U("q"), "v2-unquoted", g);
  ASSERT_TRUE(u.ok()) << u.status().ToString();

  auto autos = Make();  // auto
  EXPECT_EQ(autos->if_match_quotes(), IfMatchQuotes::kAuto);
  StatusOr<std::string> a = autos->CompareAndSwap(U("q"), "v3-auto", *u);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(autos->if_match_quotes(), IfMatchQuotes::kUnquoted);
  EXPECT_EQ(*s->Read(U("q")), "v3-auto");
}

TEST_F(S3StorageTest, CreateIfAbsentRaceHasExactlyOneWinner) {
  constexpr int kRacers = 16;
  constexpr int kRounds = 8;
  std::vector<std::unique_ptr<S3Storage>> clients;
  for (int i = 0; i < kRacers; ++i) clients.push_back(Make());
  for (int round = 0; round < kRounds; ++round) {
    std::string key = U("race-create-" + std::to_string(round));
    std::atomic<int> ready{0};
    std::vector<int> result(kRacers, -1);
    std::vector<std::string> errors(kRacers);
    std::vector<std::thread> threads;
    for (int i = 0; i < kRacers; ++i) {
      threads.emplace_back([&, i] {
        ++ready;
        while (ready.load() < kRacers) {
        }
        StatusOr<std::string> g = clients[i]->CreateIfAbsent(
            key, "racer " + std::to_string(i) + " round " + std::to_string(round));
        result[i] = g.ok() ? 0 : g.status().code() == StatusCode::kAlreadyExists ? 1 : 2;
        if (!g.ok()) errors[i] = g.status().ToString();
      });
    }
    for (auto& t : threads) t.join();
    int winners = 0, winner = -1;
    for (int i = 0; i < kRacers; ++i) {
      ASSERT_NE(result[i], 2) << errors[i];
      if (result[i] == 0) {
        ++winners;
        winner = i;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(*clients[0]->Read(key),
              "racer " + std::to_string(winner) + " round " + std::to_string(round));
  }
}

TEST_F(S3StorageTest, CompareAndSwapRaceHasExactlyOneWinner) {
  constexpr int kRacers = 16;
  constexpr int kRounds = 8;
  std::vector<std::unique_ptr<S3Storage>> clients;
  for (int i = 0; i < kRacers; ++i) clients.push_back(Make());
  std::string key = U("race-cas");
  std::string gen = *clients[0]->CreateIfAbsent(key, "initial");
  for (int round = 0; round < kRounds; ++round) {
    std::atomic<int> ready{0};
    std::vector<int> result(kRacers, -1);
    std::vector<std::string> errors(kRacers);
    std::vector<std::thread> threads;
    for (int i = 0; i < kRacers; ++i) {
      threads.emplace_back([&, i] {
        ++ready;
        while (ready.load() < kRacers) {
        }
        StatusOr<std::string> g = clients[i]->CompareAndSwap(
            key, "racer " + std::to_string(i) + " round " + std::to_string(round), gen);
        result[i] = g.ok() ? 0 : g.status().code() == StatusCode::kFailedPrecondition ? 1 : 2;
        if (!g.ok()) errors[i] = g.status().ToString();
      });
    }
    for (auto& t : threads) t.join();
    int winners = 0, winner = -1;
    for (int i = 0; i < kRacers; ++i) {
      ASSERT_NE(result[i], 2) << errors[i];
      if (result[i] == 0) {
        ++winners;
        winner = i;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    VersionedData v = *clients[0]->ReadVersioned(key);
    EXPECT_EQ(v.data, "racer " + std::to_string(winner) + " round " + std::to_string(round));
    gen = v.generation;
  }
}

TEST_F(S3StorageTest, VirtualHostAddressing) {
  S3Config c = Config();
  c.endpoint = "http://localhost:" + std::to_string(PortOf(endpoint_));
  c.addressing = AddressingStyle::kVirtual;
  auto s = Make(c);
  EXPECT_EQ(s->ObjectRequestUrl(bucket_, "a b"),
            "http://" + bucket_ + ".localhost:" + std::to_string(PortOf(endpoint_)) + "/a%20b");
  ASSERT_TRUE(s->Write(U("vhost"), "virtual").ok());
  EXPECT_EQ(*Make()->Read(U("vhost")), "virtual");
  StatusOr<std::vector<ObjectInfo>> l = s->List(prefix_);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->size(), 1u);
  c.addressing = AddressingStyle::kAuto;
  EXPECT_EQ(Make(c)->ObjectRequestUrl(bucket_, "k"),
            "http://localhost:" + std::to_string(PortOf(endpoint_)) + "/" + bucket_ + "/k");
}

TEST_F(S3StorageTest, WrongSecretIsPermissionDeniedWithoutSecrets) {
  S3Config c = Config();
  c.secret_access_key = "wrongsecret-" + RandomHex(20);
  c.session_token = "sessiontoken-" + RandomHex(20);
  auto s = Make(c);
  StatusOr<std::string> r = s->Read(U("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied) << r.status().ToString();
  const std::string& m = r.status().message();
  EXPECT_NE(m.find("403"), std::string::npos) << m;
  EXPECT_NE(m.find(U("x")), std::string::npos) << m;
  EXPECT_EQ(m.find(c.secret_access_key), std::string::npos) << m;
  EXPECT_EQ(m.find(c.session_token), std::string::npos) << m;
  EXPECT_EQ(m.find("Signature="), std::string::npos) << m;
  Status w = s->Write(U("x"), "data");
  EXPECT_EQ(w.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(w.message().find(c.secret_access_key), std::string::npos);
}

TEST_F(S3StorageTest, ConnectionRefusedIsRetriedThenUnavailable) {
  S3Config c = Config();
  // A port nobody listens on: bind one, then close it.
  int port;
  {
    TestHttpServer tmp([](const TestHttpRequest&) { return std::nullopt; });
    port = tmp.port();
  }
  c.endpoint = "http://127.0.0.1:" + std::to_string(port);
  ObjectStoreOptions o = SmallOptions();
  o.http.max_attempts = 3;
  auto s = Make(c, o);
  StatusOr<std::string> r = s->Read("s3://" + bucket_ + "/k");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
  EXPECT_EQ(s->counters().retries, 2u);
  // A conditional write that never reached the server is retried too, then reported.
  StatusOr<std::string> cr = s->CreateIfAbsent("s3://" + bucket_ + "/k", "x");
  EXPECT_FALSE(cr.ok());
  EXPECT_EQ(s->counters().retries, 4u);
}

// A proxy in front of RGW that misbehaves on request: 503 SlowDown, no answer (lost reply after
// the write happened), 500 after the write happened, or a hang (timeout).
class FaultProxy {
 public:
  enum class Action { kForward, kSlowDown, kBadRequest, kForwardThenDrop, kForwardThen500, kHang };
  explicit FaultProxy(int upstream_port)
      : upstream_(upstream_port), server_([this](const TestHttpRequest& r) { return Handle(r); }) {}

  void Push(Action a) {
    std::lock_guard<std::mutex> lock(mu_);
    actions_.push_back(a);
  }
  std::string endpoint() const { return server_.url(); }
  int requests() const { return server_.requests(); }

 private:
  std::optional<std::string> Handle(const TestHttpRequest& r) {
    Action a = Action::kForward;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!actions_.empty()) {
        a = actions_.front();
        actions_.pop_front();
      }
    }
    switch (a) {
      case Action::kForward:
        return ForwardHttp(upstream_, r);
      case Action::kSlowDown:
        return MakeHttpResponse(503, {"Content-Type: application/xml"},
                                "<Error><Code>SlowDown</Code><Message>Reduce your request "
                                "rate</Message></Error>");
      case Action::kBadRequest:
        return MakeHttpResponse(400, {"Content-Type: application/xml"},
                                "<Error><Code>InvalidPart</Code></Error>");
      case Action::kForwardThenDrop:
        ForwardHttp(upstream_, r);
        return std::nullopt;
      case Action::kForwardThen500:
        ForwardHttp(upstream_, r);
        return MakeHttpResponse(500, {"Content-Type: application/xml"},
                                "<Error><Code>InternalError</Code></Error>");
      case Action::kHang:
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        return std::nullopt;
    }
    return std::nullopt;
  }

  int upstream_;
  std::mutex mu_;
  std::deque<Action> actions_;
  TestHttpServer server_;
};

TEST_F(S3StorageTest, RetriesSlowDownAndServerErrorsForPlainRequests) {
  FaultProxy proxy(PortOf(endpoint_));
  S3Config c = Config();
  c.endpoint = proxy.endpoint();
  auto s = Make(c);
  proxy.Push(FaultProxy::Action::kSlowDown);
  proxy.Push(FaultProxy::Action::kSlowDown);
  ASSERT_TRUE(s->Write(U("retried"), "after two 503s").ok());
  EXPECT_EQ(s->counters().retries, 2u);
  proxy.Push(FaultProxy::Action::kSlowDown);
  EXPECT_EQ(*s->Read(U("retried")), "after two 503s");
  proxy.Push(FaultProxy::Action::kSlowDown);
  StatusOr<std::vector<ObjectInfo>> l = s->List(prefix_);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->size(), 1u);
  EXPECT_EQ(s->counters().retries, 4u);
}

TEST_F(S3StorageTest, PersistentSlowDownGivesUpWithTheCode) {
  FaultProxy proxy(PortOf(endpoint_));
  S3Config c = Config();
  c.endpoint = proxy.endpoint();
  ObjectStoreOptions o = SmallOptions();
  o.http.max_attempts = 3;
  auto s = Make(c, o);
  for (int i = 0; i < 3; ++i) proxy.Push(FaultProxy::Action::kSlowDown);
  StatusOr<std::string> r = s->Read(U("x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("SlowDown"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("503"), std::string::npos);
}

TEST_F(S3StorageTest, TimeoutsAreRetried) {
  FaultProxy proxy(PortOf(endpoint_));
  S3Config c = Config();
  c.endpoint = proxy.endpoint();
  ObjectStoreOptions o = SmallOptions();
  o.http.request_timeout_ms = 300;
  auto s = Make(c, o);
  ASSERT_TRUE(Make()->Write(U("t"), "slow").ok());
  proxy.Push(FaultProxy::Action::kHang);
  StatusOr<std::string> r = s->Read(U("t"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, "slow");
  EXPECT_EQ(s->counters().retries, 1u);
}

TEST_F(S3StorageTest, LostReplyOnCreateIsResolvedByReadingBack) {
  FaultProxy proxy(PortOf(endpoint_));
  S3Config c = Config();
  c.endpoint = proxy.endpoint();
  auto s = Make(c);
  proxy.Push(FaultProxy::Action::kForwardThenDrop);
  StatusOr<std::string> g = s->CreateIfAbsent(U("lost"), "holder h attempt 1 counter 1");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(*g, Make()->Stat(U("lost"))->generation);
  // The same after a 500 (as RGW answers some lost races), for a write that did land:
  proxy.Push(FaultProxy::Action::kForwardThen500);
  StatusOr<std::string> g2 = s->CompareAndSwap(U("lost"), "holder h attempt 1 counter 2", *g);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_EQ(*Make()->Read(U("lost")), "holder h attempt 1 counter 2");
  // ... and for a create that lost to another writer: AlreadyExists, not success.
  proxy.Push(FaultProxy::Action::kForwardThen500);
  StatusOr<std::string> g3 = s->CreateIfAbsent(U("lost"), "holder z attempt 1 counter 1");
  EXPECT_EQ(g3.status().code(), StatusCode::kAlreadyExists) << g3.status().ToString();
  // A 503 that did not apply the write: read back, absent, sent again.
  proxy.Push(FaultProxy::Action::kSlowDown);
  StatusOr<std::string> g4 = s->CreateIfAbsent(U("lost-2"), "holder y attempt 1 counter 1");
  ASSERT_TRUE(g4.ok()) << g4.status().ToString();
  EXPECT_GE(s->counters().retries, 1u);
}

TEST_F(S3StorageTest, FailedMultipartUploadIsAborted) {
  FaultProxy proxy(PortOf(endpoint_));
  S3Config c = Config();
  c.endpoint = proxy.endpoint();
  ObjectStoreOptions o = SmallOptions();
  o.upload_parallelism = 1;  // requests in order: start, part 1, part 2, ...
  auto s = Make(c, o);
  std::string data = Pattern(13 * 1024 * 1024, 5);
  proxy.Push(FaultProxy::Action::kForward);     // start
  proxy.Push(FaultProxy::Action::kForward);     // part 1
  proxy.Push(FaultProxy::Action::kBadRequest);  // part 2: refused, not retryable
  Status w = s->Write(U("aborted"), data);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.code(), StatusCode::kInvalidArgument) << w.ToString();
  EXPECT_NE(w.message().find("part 2"), std::string::npos) << w.message();
  EXPECT_EQ(Make()->Stat(U("aborted")).status().code(), StatusCode::kNotFound);

  // No upload is left behind (ListMultipartUploads on the key's prefix).
  HttpClient http;
  HttpRequest req;
  std::string key = U("aborted").substr(5 + bucket_.size() + 1);
  req.url = endpoint_ + "/" + bucket_ + CanonicalQuery({{"prefix", key}, {"uploads", ""}});
  req.headers = {"x-amz-content-sha256: UNSIGNED-PAYLOAD"};
  req.sigv4 = "aws:amz:us-east-1:s3";
  req.sigv4_userpwd = Env("AWS_ACCESS_KEY_ID") + ":" + Env("AWS_SECRET_ACCESS_KEY");
  StatusOr<HttpResponse> r = http.SendOnce(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body.find("<Upload>"), std::string::npos) << r->body;
}

// The protocol counts requests: a lost race must cost one request, no read-back.
TEST_F(S3StorageTest, LostConditionalWritesCostOneRequest) {
  FaultProxy proxy(PortOf(endpoint_));
  S3Config c = Config();
  c.endpoint = proxy.endpoint();
  auto s = Make(c);
  std::string g1 = *s->CreateIfAbsent(U("cost"), "a");
  ASSERT_TRUE(s->CompareAndSwap(U("cost"), "b", g1).ok());  // auto mode learns the form
  int before = proxy.requests();
  EXPECT_EQ(s->CompareAndSwap(U("cost"), "c", g1).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(proxy.requests() - before, 1);
  before = proxy.requests();
  EXPECT_EQ(s->CreateIfAbsent(U("cost"), "d").status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(proxy.requests() - before, 1);
  EXPECT_EQ(*s->Read(U("cost")), "b");
}

TEST_F(S3StorageTest, StorageForUsesTheEnvironment) {
  if (Env("AWS_ENDPOINT_URL").empty() && Env("AWS_ENDPOINT_URL_S3").empty()) {
    GTEST_SKIP() << "AWS_ENDPOINT_URL is not set (env.sh from scripts/ceph-rgw.sh sets it)";
  }
  StatusOr<Storage*> s = StorageFor(prefix_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE((*s)->Write(U("via-storage-for"), "env").ok());
  EXPECT_EQ(*(*s)->Read(U("via-storage-for")), "env");
}

}  // namespace
}  // namespace tokenmill
