#include "tokenmill/storage/fault_injection_storage.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tokenmill/storage/local_storage.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

class FaultInjectionStorageTest : public ::testing::Test {
 protected:
  std::string P(const std::string& name) const { return dir_ + "/" + name; }

  LocalStorage local_;
  testing::TempDir tmp_{"tm_faults"};
  const std::string dir_ = tmp_.path();
};

TEST_F(FaultInjectionStorageTest, FailsTheNthCallOnly) {
  FaultInjectionStorage faulty(&local_);
  int id = faulty.AddFault({.op = StorageOp::kWrite, .nth = 2});
  EXPECT_TRUE(faulty.Write(P("a"), "1").ok());
  Status s = faulty.Write(P("b"), "2");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("Write"), std::string::npos);
  EXPECT_NE(s.message().find(P("b")), std::string::npos);
  EXPECT_FALSE(local_.Stat(P("b")).ok()) << "a fault before the call must not write";
  EXPECT_TRUE(faulty.Write(P("c"), "3").ok());
  EXPECT_EQ(faulty.fired(id), 1u);
  EXPECT_EQ(faulty.calls(StorageOp::kWrite), 3u);
  EXPECT_EQ(faulty.calls(StorageOp::kRead), 0u);
}

TEST_F(FaultInjectionStorageTest, TimesAndUrlFilterAndCustomStatus) {
  FaultInjectionStorage faulty(&local_);
  ASSERT_TRUE(local_.Write(P("leases/1"), "x").ok());
  ASSERT_TRUE(local_.Write(P("tasks/1"), "y").ok());
  faulty.AddFault({.op = StorageOp::kRead,
                   .url_contains = "leases/",
                   .nth = 1,
                   .times = 2,
                   .status = Status::PermissionDenied("denied by test")});
  EXPECT_TRUE(faulty.Read(P("tasks/1")).ok());
  EXPECT_EQ(faulty.Read(P("leases/1")).status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(faulty.Read(P("tasks/1")).ok());
  EXPECT_EQ(faulty.Read(P("leases/1")).status().message(), "denied by test");
  EXPECT_EQ(*faulty.Read(P("leases/1")), "x");
}

TEST_F(FaultInjectionStorageTest, TimesZeroFailsForever) {
  FaultInjectionStorage faulty(&local_);
  int id = faulty.AddFault({.op = StorageOp::kList, .times = 0});
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(faulty.List(P("")).ok());
  faulty.RemoveFault(id);
  EXPECT_TRUE(faulty.List(P("")).ok());
  EXPECT_EQ(faulty.fired(id), 5u);
}

TEST_F(FaultInjectionStorageTest, LostReplyAppliesTheWriteButReportsAnError) {
  FaultInjectionStorage faulty(&local_);
  std::vector<std::string> fired_urls;
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent,
                   .status = Status::UnknownOutcome("reply lost"),
                   .after = true,
                   .on_fire = [&](StorageOp op, std::string_view url) {
                     EXPECT_EQ(op, StorageOp::kCreateIfAbsent);
                     fired_urls.emplace_back(url);
                   }});
  StatusOr<std::string> g = faulty.CreateIfAbsent(P("done/7"), "holder h1 attempt 1");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kUnknownOutcome);
  EXPECT_EQ(fired_urls, std::vector<std::string>{P("done/7")});
  // The write took effect: a re-read shows our content, so the caller knows it won.
  EXPECT_EQ(faulty.ReadVersioned(P("done/7"))->data, "holder h1 attempt 1");
  EXPECT_EQ(faulty.CreateIfAbsent(P("done/7"), "other").status().code(),
            StatusCode::kAlreadyExists);
}

TEST_F(FaultInjectionStorageTest, LostReplyOnCompareAndSwap) {
  FaultInjectionStorage faulty(&local_);
  std::string g1 = *faulty.CreateIfAbsent(P("lease"), "a");
  faulty.AddFault({.op = StorageOp::kCompareAndSwap, .after = true});
  EXPECT_FALSE(faulty.CompareAndSwap(P("lease"), "b", g1).ok());
  VersionedData v = *faulty.ReadVersioned(P("lease"));
  EXPECT_EQ(v.data, "b");
  EXPECT_NE(v.generation, g1);
}

TEST_F(FaultInjectionStorageTest, StreamsFailMidway) {
  FaultInjectionStorage faulty(&local_);
  ASSERT_TRUE(local_.Write(P("big"), std::string(100, 'z')).ok());
  faulty.AddFault({.op = StorageOp::kStreamRead, .nth = 3, .status = Status::DataLoss("cut")});
  auto stream = faulty.OpenRead(P("big"));
  ASSERT_TRUE(stream.ok());
  char buf[10];
  EXPECT_EQ(*(*stream)->Read(buf, 10), 10u);
  EXPECT_EQ(*(*stream)->Read(buf, 10), 10u);
  EXPECT_EQ((*stream)->Read(buf, 10).status().code(), StatusCode::kDataLoss);
}

TEST_F(FaultInjectionStorageTest, ProbabilisticFaultsAreSeeded) {
  auto run = [&](uint64_t seed) {
    FaultInjectionStorage faulty(&local_, seed);
    faulty.AddFault({.op = StorageOp::kStat, .probability = 0.3});
    std::string pattern;
    for (int i = 0; i < 200; ++i) {
      pattern += faulty.Stat(P("missing")).status().code() == StatusCode::kUnavailable ? 'F' : '.';
    }
    return pattern;
  };
  std::string a = run(7);
  EXPECT_EQ(a, run(7));
  size_t failures = std::count(a.begin(), a.end(), 'F');
  EXPECT_GT(failures, 20u);
  EXPECT_LT(failures, 120u);
}

TEST_F(FaultInjectionStorageTest, ForwardsEverythingWithoutFaults) {
  FaultInjectionStorage faulty(&local_);
  ASSERT_TRUE(faulty.Write(P("w"), "abc").ok());
  EXPECT_EQ(*faulty.Read(P("w"), 1), "bc");
  EXPECT_EQ(faulty.Stat(P("w"))->size, 3u);
  EXPECT_EQ(faulty.List(P(""))->size(), 1u);
  ASSERT_TRUE(faulty.WriteFile(P("w2"), P("w")).ok());
  EXPECT_EQ(*faulty.Read(P("w2")), "abc");
  ASSERT_TRUE(faulty.WriteFinishedFile(P("w3"), P("w")).ok());
  EXPECT_EQ(*faulty.Read(P("w3")), "abc");
  ASSERT_TRUE(faulty.Delete(P("w")).ok());
  EXPECT_EQ(faulty.Read(P("w")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(faulty.counters().writes, local_.counters().writes);
}

// The resolving conditional writes of storage.h, through faults: a lost reply is ours, a write
// that did not happen is tried again, another writer's object is a loss.
TEST_F(FaultInjectionStorageTest, ResolvedConditionalWritesSettleUnknownOutcomes) {
  FaultInjectionStorage faulty(&local_);
  const Status unknown = Status::UnknownOutcome("timeout (test)");
  uint64_t read_backs = 0;
  faulty.AddFault({.op = StorageOp::kCreateIfAbsent, .status = unknown, .after = true});
  StatusOr<std::string> g1 = CreateIfAbsentResolved(faulty, P("k"), "mine 1", 5, &read_backs);
  ASSERT_TRUE(g1.ok()) << g1.status().ToString();
  EXPECT_EQ(read_backs, 1u);

  faulty.AddFault({.op = StorageOp::kCreateIfAbsent, .times = 2, .status = unknown});
  StatusOr<std::string> g2 = CreateIfAbsentResolved(faulty, P("k2"), "mine 2", 5, &read_backs);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_EQ(read_backs, 3u);
  EXPECT_EQ(faulty.calls(StorageOp::kCreateIfAbsent), 4u);
  EXPECT_EQ(*local_.Read(P("k2")), "mine 2");

  faulty.AddFault({.op = StorageOp::kCreateIfAbsent, .times = 0, .status = unknown});
  EXPECT_EQ(CreateIfAbsentResolved(faulty, P("k3"), "never", 3).status().code(),
            StatusCode::kUnknownOutcome);
  EXPECT_EQ(CreateIfAbsentResolved(faulty, P("k"), "theirs", 3).status().code(),
            StatusCode::kAlreadyExists);
  faulty.ClearFaults();

  faulty.AddFault({.op = StorageOp::kCompareAndSwap, .status = unknown, .after = true});
  StatusOr<std::string> g3 = CompareAndSwapResolved(faulty, P("k"), "mine 3", *g1);
  ASSERT_TRUE(g3.ok()) << g3.status().ToString();
  EXPECT_EQ(*local_.Read(P("k")), "mine 3");
  faulty.AddFault({.op = StorageOp::kCompareAndSwap, .status = unknown});
  StatusOr<std::string> g4 = CompareAndSwapResolved(faulty, P("k"), "mine 4", *g3);
  ASSERT_TRUE(g4.ok()) << g4.status().ToString();
  faulty.AddFault({.op = StorageOp::kCompareAndSwap, .status = unknown});
  EXPECT_EQ(CompareAndSwapResolved(faulty, P("k"), "stale", *g3).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(*local_.Read(P("k")), "mine 4");
}

}  // namespace
}  // namespace tokenmill
