#include "tokenmill/storage/retrying_storage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tokenmill/storage/fault_injection_storage.h"
#include "tokenmill/storage/local_storage.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

constexpr RetryOptions kFast{.max_attempts = 8, .base_delay_ms = 0, .max_delay_ms = 0};

class RetryingStorageTest : public ::testing::Test {
 protected:
  std::string P(const std::string& name) const { return dir_ + "/" + name; }

  LocalStorage local_;
  testing::TempDir tmp_{"tm_retry"};
  const std::string dir_ = tmp_.path();
};

TEST_F(RetryingStorageTest, RetriesTransientFailuresOfPlainCalls) {
  FaultInjectionStorage faulty(&local_);
  faulty.AddFault({.op = StorageOp::kWrite, .nth = 1, .times = 3});
  faulty.AddFault({.op = StorageOp::kRead, .nth = 1, .times = 2});
  faulty.AddFault({.op = StorageOp::kList, .nth = 1, .times = 1});
  RetryingStorage store(&faulty, kFast);
  ASSERT_TRUE(store.Write(P("a"), "hello").ok());
  EXPECT_EQ(*store.Read(P("a")), "hello");
  auto listed = store.List(P(""));
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 1u);
  EXPECT_EQ(store.counters().retries, 6u);
}

TEST_F(RetryingStorageTest, GivesUpAfterMaxAttemptsAndNeverRetriesOtherErrors) {
  FaultInjectionStorage faulty(&local_);
  faulty.AddFault({.op = StorageOp::kRead, .nth = 1, .times = 0});
  RetryingStorage store(&faulty, {.max_attempts = 3, .base_delay_ms = 0, .max_delay_ms = 0});
  ASSERT_TRUE(local_.Write(P("a"), "x").ok());
  EXPECT_EQ(store.Read(P("a")).status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(faulty.calls(StorageOp::kRead), 3u);
  EXPECT_EQ(store.Stat(P("missing")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(faulty.calls(StorageOp::kStat), 1u);
}

TEST_F(RetryingStorageTest, CreateIfAbsentSettlesLostRepliesByReadingBack) {
  FaultInjectionStorage faulty(&local_);
  // The create happens, its reply is lost.
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                   .nth = 1,
                   .status = Status::UnknownOutcome("lost"),
                   .after = true});
  RetryingStorage store(&faulty, kFast);
  auto gen = store.CreateIfAbsent(P("c"), "mine");
  ASSERT_TRUE(gen.ok()) << gen.status().ToString();
  EXPECT_EQ(faulty.calls(StorageOp::kCreateIfAbsent), 1u) << "no blind second create";
  EXPECT_EQ(local_.ReadVersioned(P("c"))->generation, *gen);
  // Another writer's object: AlreadyExists, even after an unknown outcome.
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent, .nth = 1, .status = Status::Unavailable("x")});
  EXPECT_EQ(store.CreateIfAbsent(P("c"), "theirs").status().code(), StatusCode::kAlreadyExists);
}

TEST_F(RetryingStorageTest, CreateIfAbsentThatDidNotHappenIsSentAgain) {
  FaultInjectionStorage faulty(&local_);
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                   .nth = 1,
                   .times = 2,
                   .status = Status::UnknownOutcome("timeout")});
  RetryingStorage store(&faulty, kFast);
  ASSERT_TRUE(store.CreateIfAbsent(P("c"), "mine").ok());
  EXPECT_EQ(faulty.calls(StorageOp::kCreateIfAbsent), 3u);
  EXPECT_EQ(*local_.Read(P("c")), "mine");
}

TEST_F(RetryingStorageTest, CompareAndSwapSettlesByReadingBack) {
  RetryingStorage plain(&local_, kFast);
  auto g1 = plain.CreateIfAbsent(P("l"), "v1");
  ASSERT_TRUE(g1.ok());
  FaultInjectionStorage faulty(&local_);
  RetryingStorage store(&faulty, kFast);
  // Lost reply of a swap that happened: success with the new generation.
  faulty.AddFault({.op = StorageOp::kCompareAndSwap,
                   .nth = 1,
                   .status = Status::UnknownOutcome("lost"),
                   .after = true});
  auto g2 = store.CompareAndSwap(P("l"), "v2", *g1);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_EQ(*local_.Read(P("l")), "v2");
  // A swap that did not happen is sent again.
  faulty.AddFault({.op = StorageOp::kCompareAndSwap, .nth = 1, .status = Status::Unavailable("x")});
  auto g3 = store.CompareAndSwap(P("l"), "v3", *g2);
  ASSERT_TRUE(g3.ok()) << g3.status().ToString();
  EXPECT_EQ(*local_.Read(P("l")), "v3");
  // From a stale generation: FailedPrecondition, also after an unknown outcome.
  faulty.AddFault({.op = StorageOp::kCompareAndSwap, .nth = 1, .status = Status::Unavailable("y")});
  EXPECT_EQ(store.CompareAndSwap(P("l"), "v4", *g1).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(RetryingStorageTest, StreamsResumeWhereTheyBroke) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data += static_cast<char>('a' + i % 26);
  ASSERT_TRUE(local_.Write(P("big"), data).ok());
  FaultInjectionStorage faulty(&local_, 7);
  faulty.SetTransientFaults(0.3);
  RetryingStorage store(&faulty, kFast);
  auto stream = store.OpenRead(P("big"), 10, 90000);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::string got;
  char buf[997];
  for (;;) {
    auto n = (*stream)->Read(buf, sizeof(buf));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    got.append(buf, *n);
  }
  EXPECT_EQ(got, data.substr(10, 90000));
  EXPECT_GT(faulty.injected(), 10u);
  EXPECT_GT(store.counters().retries, 10u);
}

// Every kind of transient fault, at a high rate, on every operation: the retry layer hides them
// all, and conditional writes keep exactly-once semantics.
TEST_F(RetryingStorageTest, TransientFaultsAreInvisibleAboveTheRetryLayer) {
  FaultInjectionStorage faulty(&local_, 3);
  faulty.SetTransientFaults(0.3);
  RetryingStorage store(&faulty, {.max_attempts = 30, .base_delay_ms = 0, .max_delay_ms = 0});
  const std::string file = P("src.bin");
  {
    std::ofstream f(file, std::ios::binary);
    f << std::string(5000, 'z');
  }
  for (int i = 0; i < 60; ++i) {
    const std::string k = P("k" + std::to_string(i));
    ASSERT_TRUE(store.Write(k, "w" + std::to_string(i)).ok());
    EXPECT_EQ(*store.Read(k), "w" + std::to_string(i));
    ASSERT_TRUE(store.WriteFile(k + ".f", file).ok());
    EXPECT_EQ(store.Stat(k + ".f")->size, 5000u);
    auto g = store.CreateIfAbsent(k + ".c", "create " + std::to_string(i));
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(store.CreateIfAbsent(k + ".c", "again").status().code(), StatusCode::kAlreadyExists);
    auto g2 = store.CompareAndSwap(k + ".c", "swap " + std::to_string(i), *g);
    ASSERT_TRUE(g2.ok()) << g2.status().ToString();
    EXPECT_EQ(store.ReadVersioned(k + ".c")->data, "swap " + std::to_string(i));
    EXPECT_EQ(store.CompareAndSwap(k + ".c", "stale", *g).status().code(),
              StatusCode::kFailedPrecondition);
    ASSERT_TRUE(store.Delete(k).ok());
    EXPECT_EQ(local_.Stat(k).status().code(), StatusCode::kNotFound);
  }
  EXPECT_GT(faulty.injected(), 100u);
}

TEST(InjectFaultsSettingTest, Parses) {
  auto a = ParseInjectFaults("0.1");
  ASSERT_TRUE(a.ok());
  EXPECT_DOUBLE_EQ(a->rate, 0.1);
  EXPECT_EQ(a->seed, 1u);
  auto b = ParseInjectFaults("0.25:7");
  ASSERT_TRUE(b.ok());
  EXPECT_DOUBLE_EQ(b->rate, 0.25);
  EXPECT_EQ(b->seed, 7u);
  for (const char* bad : {"", "x", "1.5", "-0.1", "0.1:", "0.1:x", "0.1:-3", "0.1:7:8"}) {
    auto s = ParseInjectFaults(bad);
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.status().message().find("TOKENMILL_INJECT_FAULTS"), std::string::npos) << bad;
  }
}

TEST(InjectFaultsSettingTest, SameSeedSameFaults) {
  auto run = [](uint64_t seed) {
    LocalStorage local;
    FaultInjectionStorage faulty(&local, seed);
    faulty.SetTransientFaults(0.2);
    std::string pattern;
    for (int i = 0; i < 200; ++i) {
      pattern += faulty.Stat("/nonexistent-tm-" + std::to_string(i)).status().code() ==
                         StatusCode::kUnavailable
                     ? 'F'
                     : '.';
    }
    return pattern;
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7), run(8));
  const std::string p = run(7);
  const auto faults = std::count(p.begin(), p.end(), 'F');
  EXPECT_GT(faults, 15);
  EXPECT_LT(faults, 70);
}

}  // namespace
}  // namespace tokenmill
