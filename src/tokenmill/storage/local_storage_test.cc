#include "tokenmill/storage/local_storage.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tokenmill/storage/retrying_storage.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

namespace fs = std::filesystem;

class LocalStorageTest : public ::testing::Test {
 protected:
  std::string P(const std::string& name) const { return dir_ + "/" + name; }

  std::vector<std::string> FilesIn(const std::string& dir) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  LocalStorage storage_;
  testing::TempDir tmp_{"tm_local_storage"};
  const std::string dir_ = tmp_.path();
};

TEST_F(LocalStorageTest, WriteThenReadWholeAndRanges) {
  ASSERT_TRUE(storage_.Write(P("a.txt"), "0123456789").ok());
  EXPECT_EQ(*storage_.Read(P("a.txt")), "0123456789");
  EXPECT_EQ(*storage_.Read(P("a.txt"), 2, 4), "2345");
  EXPECT_EQ(*storage_.Read(P("a.txt"), 8, 100), "89");
  EXPECT_EQ(*storage_.Read(P("a.txt"), 10), "");
  EXPECT_EQ(*storage_.Read(P("a.txt"), 50, 3), "");
  StorageCounters c = storage_.counters();
  EXPECT_EQ(c.writes, 1u);
  EXPECT_EQ(c.reads, 5u);
  EXPECT_EQ(c.bytes_written, 10u);
  EXPECT_EQ(c.bytes_read, 16u);
}

TEST_F(LocalStorageTest, FileUrlsAndPlainPathsNameTheSameFile) {
  ASSERT_TRUE(storage_.Write("file://" + P("u.txt"), "via url").ok());
  EXPECT_EQ(*storage_.Read(P("u.txt")), "via url");
  EXPECT_EQ(*storage_.Read("file://" + P("u.txt")), "via url");
  StatusOr<std::string> bad = storage_.Read("file://host/x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST_F(LocalStorageTest, MissingObjectsAreNotFoundAndNameThePath) {
  StatusOr<std::string> r = storage_.Read(P("nope"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(P("nope")), std::string::npos);
  EXPECT_EQ(storage_.Stat(P("nope")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(storage_.ReadVersioned(P("nope")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(storage_.OpenRead(P("nope")).status().code(), StatusCode::kNotFound);
}

TEST_F(LocalStorageTest, ReadingAFolderIsAnError) {
  fs::create_directories(P("folder"));
  StatusOr<std::string> r = storage_.Read(P("folder"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(storage_.Write(P("folder/"), "x").code(), StatusCode::kInvalidArgument);
}

TEST_F(LocalStorageTest, WriteCreatesParentsReplacesAtomicallyAndLeavesNoTemp) {
  ASSERT_TRUE(storage_.Write(P("x/y/z.bin"), "first").ok());
  ASSERT_TRUE(storage_.Write(P("x/y/z.bin"), "second, longer").ok());
  EXPECT_EQ(*storage_.Read(P("x/y/z.bin")), "second, longer");
  EXPECT_EQ(FilesIn(P("x/y")), std::vector<std::string>{"z.bin"});
}

TEST_F(LocalStorageTest, WriteIntoAFileThatIsNotAFolderFails) {
  ASSERT_TRUE(storage_.Write(P("f"), "x").ok());
  Status s = storage_.Write(P("f/child"), "y");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(P("f")), std::string::npos);
}

TEST_F(LocalStorageTest, WriteFileCopiesAndKeepsTheSource) {
  std::string src = P("src.bin");
  std::string payload(3 * 1024 * 1024 + 17, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 31 + 7);
  std::ofstream(src, std::ios::binary) << payload;
  ASSERT_TRUE(storage_.WriteFile(P("out/shard.bin"), src).ok());
  EXPECT_EQ(*storage_.Read(P("out/shard.bin")), payload);
  EXPECT_TRUE(fs::exists(src));
  EXPECT_EQ(FilesIn(P("out")), std::vector<std::string>{"shard.bin"});
  Status missing = storage_.WriteFile(P("out/other.bin"), P("does-not-exist"));
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("does-not-exist"), std::string::npos);
  EXPECT_EQ(FilesIn(P("out")), std::vector<std::string>{"shard.bin"});
}

TEST_F(LocalStorageTest, WriteFinishedFilePublishesTheFileItself) {
  const std::string src = P("scratch/shard.bin");
  fs::create_directories(P("scratch"));
  std::string payload(1024 * 1024 + 5, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 13 + 1);
  std::ofstream(src, std::ios::binary) << payload;
  ASSERT_TRUE(storage_.Write(P("out/shard.bin"), "an older object").ok());
  ASSERT_TRUE(storage_.WriteFinishedFile(P("out/shard.bin"), src).ok());
  EXPECT_EQ(*storage_.Read(P("out/shard.bin")), payload);
  // The same file, not a copy of its bytes; no temporary file left behind.
  struct stat published, scratch;
  ASSERT_EQ(::stat(P("out/shard.bin").c_str(), &published), 0);
  ASSERT_EQ(::stat(src.c_str(), &scratch), 0);
  EXPECT_EQ(published.st_ino, scratch.st_ino);
  EXPECT_EQ(FilesIn(P("out")), std::vector<std::string>{"shard.bin"});
  EXPECT_EQ(storage_.counters().bytes_written, 15u + payload.size());
  // The caller may delete its file; the object stays. Publishing again is harmless.
  ASSERT_TRUE(storage_.WriteFinishedFile(P("out/shard.bin"), src).ok());
  fs::remove_all(P("scratch"));
  EXPECT_EQ(*storage_.Read(P("out/shard.bin")), payload);
  Status missing = storage_.WriteFinishedFile(P("out/other.bin"), P("does-not-exist"));
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("does-not-exist"), std::string::npos);
  EXPECT_EQ(FilesIn(P("out")), std::vector<std::string>{"shard.bin"});
  EXPECT_FALSE(storage_.WriteFinishedFile(P("out/"), src).ok());
}

// A file on another file system (a scratch folder on tmpfs) cannot be linked: it is copied.
TEST_F(LocalStorageTest, WriteFinishedFileCopiesFromAnotherFileSystem) {
  struct stat shm, here;
  if (::stat("/dev/shm", &shm) != 0 || ::stat(dir_.c_str(), &here) != 0 ||
      shm.st_dev == here.st_dev || ::access("/dev/shm", W_OK) != 0) {
    GTEST_SKIP() << "needs a writable /dev/shm on another file system than " << dir_;
  }
  testing::TempDir other("tm_finished_file", "/dev/shm");
  const std::string src = other.path() + "/shard.bin";
  std::ofstream(src, std::ios::binary) << "bytes from tmpfs";
  ASSERT_TRUE(storage_.WriteFinishedFile(P("out/shard.bin"), src).ok());
  EXPECT_EQ(*storage_.Read(P("out/shard.bin")), "bytes from tmpfs");
  EXPECT_TRUE(fs::exists(src));
  EXPECT_EQ(FilesIn(P("out")), std::vector<std::string>{"shard.bin"});
}

TEST_F(LocalStorageTest, OpenReadStreamsARange) {
  std::string payload;
  for (int i = 0; i < 100000; ++i) payload += static_cast<char>('a' + i % 26);
  ASSERT_TRUE(storage_.Write(P("big"), payload).ok());
  auto stream = storage_.OpenRead(P("big"), 1000, 50000);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  std::string got;
  char buf[4096];
  while (true) {
    StatusOr<size_t> n = (*stream)->Read(buf, sizeof(buf));
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    got.append(buf, *n);
  }
  EXPECT_EQ(got, payload.substr(1000, 50000));
  auto tail = storage_.OpenRead(P("big"), 99990);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(*(*tail)->Read(buf, sizeof(buf)), 10u);
  EXPECT_EQ(*(*tail)->Read(buf, sizeof(buf)), 0u);
}

TEST_F(LocalStorageTest, StatOfAPlainFileChangesGenerationOnRewrite) {
  auto now_ms = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before_ms = now_ms();
  ASSERT_TRUE(storage_.Write(P("s"), "abc").ok());
  const int64_t after_ms = now_ms();
  StatusOr<ObjectInfo> a = storage_.Stat(P("s"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->size, 3u);
  // The file's modification time (the kernel's coarse clock may lag by a tick).
  EXPECT_GE(a->modified_ms, before_ms - 100);
  EXPECT_LE(a->modified_ms, after_ms);
  EXPECT_EQ(a->url, P("s"));
  EXPECT_FALSE(a->generation.empty());
  ASSERT_TRUE(storage_.Write(P("s"), "abcd").ok());
  StatusOr<ObjectInfo> b = storage_.Stat(P("s"));
  EXPECT_EQ(b->size, 4u);
  EXPECT_NE(a->generation, b->generation);
}

TEST_F(LocalStorageTest, CreateIfAbsentHasOneWinner) {
  StatusOr<std::string> g = storage_.CreateIfAbsent(P("lease/1"), "holder A");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(*g, "1");
  StatusOr<std::string> again = storage_.CreateIfAbsent(P("lease/1"), "holder B");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kAlreadyExists);
  StatusOr<VersionedData> v = storage_.ReadVersioned(P("lease/1"));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->data, "holder A");
  EXPECT_EQ(v->generation, "1");
  StatusOr<ObjectInfo> st = storage_.Stat(P("lease/1"));
  EXPECT_EQ(st->size, 8u);
  EXPECT_EQ(st->generation, "1");
  EXPECT_GT(st->modified_ms, 0);  // a versioned object's too
  EXPECT_EQ(*storage_.Read(P("lease/1"), 7), "A");
}

TEST_F(LocalStorageTest, CreateIfAbsentOverAPlainFileIsAlreadyExists) {
  ASSERT_TRUE(storage_.Write(P("plain"), "x").ok());
  EXPECT_EQ(storage_.CreateIfAbsent(P("plain"), "y").status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(*storage_.Read(P("plain")), "x");
}

TEST_F(LocalStorageTest, CompareAndSwapFollowsGenerations) {
  std::string g1 = *storage_.CreateIfAbsent(P("k"), "v1");
  StatusOr<std::string> g2 = storage_.CompareAndSwap(P("k"), "v2", g1);
  ASSERT_TRUE(g2.ok()) << g2.status().ToString();
  EXPECT_NE(*g2, g1);
  // Stale generation: lost.
  StatusOr<std::string> stale = storage_.CompareAndSwap(P("k"), "v2'", g1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition);
  // Garbage generation strings lose too.
  EXPECT_EQ(storage_.CompareAndSwap(P("k"), "x", "").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(storage_.CompareAndSwap(P("k"), "x", "12-34-56").status().code(),
            StatusCode::kFailedPrecondition);
  StatusOr<VersionedData> v = storage_.ReadVersioned(P("k"));
  EXPECT_EQ(v->data, "v2");
  EXPECT_EQ(v->generation, *g2);
  // Missing object.
  EXPECT_EQ(storage_.CompareAndSwap(P("missing"), "x", "1").status().code(),
            StatusCode::kFailedPrecondition);
}

TEST_F(LocalStorageTest, StaleGenerationsNeverWinAfterManyRounds) {
  std::string first = *storage_.CreateIfAbsent(P("k"), "round 0");
  std::vector<std::string> gens = {first};
  for (int i = 1; i <= 20; ++i) {
    StatusOr<std::string> g =
        storage_.CompareAndSwap(P("k"), "round " + std::to_string(i), gens.back());
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    gens.push_back(*g);
  }
  for (size_t i = 0; i + 1 < gens.size(); ++i) {
    EXPECT_EQ(storage_.CompareAndSwap(P("k"), "stale", gens[i]).status().code(),
              StatusCode::kFailedPrecondition)
        << "generation " << gens[i];
  }
  EXPECT_EQ(*storage_.Read(P("k")), "round 20");
  // Old data is released: only the newest two generations are regular files.
  int regular = 0;
  for (const auto& e : fs::directory_iterator(P("k.v"))) {
    if (fs::is_regular_file(fs::symlink_status(e.path()))) ++regular;
  }
  EXPECT_EQ(regular, 2);
}

TEST_F(LocalStorageTest, PlainWriteAndConditionalWritesDoNotMix) {
  ASSERT_TRUE(storage_.CreateIfAbsent(P("cond"), "c").ok());
  Status w = storage_.Write(P("cond"), "plain");
  EXPECT_EQ(w.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(w.message().find("CompareAndSwap"), std::string::npos);
  ASSERT_TRUE(storage_.Write(P("plain"), "p").ok());
  StatusOr<ObjectInfo> st = storage_.Stat(P("plain"));
  EXPECT_EQ(storage_.CompareAndSwap(P("plain"), "c", st->generation).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(LocalStorageTest, DeleteThenRecreateNeverReusesAGeneration) {
  std::string g1 = *storage_.CreateIfAbsent(P("k"), "one");
  ASSERT_TRUE(storage_.Delete(P("k")).ok());
  EXPECT_EQ(storage_.Read(P("k")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(storage_.CompareAndSwap(P("k"), "x", g1).status().code(),
            StatusCode::kFailedPrecondition);
  ASSERT_TRUE(storage_.Delete(P("k")).ok());  // deleting a missing object is OK
  StatusOr<std::string> g = storage_.CreateIfAbsent(P("k"), "two");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_NE(*g, g1);
  EXPECT_EQ(storage_.CompareAndSwap(P("k"), "x", g1).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(*storage_.Read(P("k")), "two");
  // After a Delete, a plain Write is allowed again.
  ASSERT_TRUE(storage_.Delete(P("k")).ok());
  EXPECT_TRUE(storage_.Write(P("k"), "plain").ok());
  EXPECT_EQ(*storage_.Read(P("k")), "plain");
}

TEST_F(LocalStorageTest, DeletePlainAndMissing) {
  ASSERT_TRUE(storage_.Write(P("d"), "x").ok());
  ASSERT_TRUE(storage_.Delete(P("d")).ok());
  EXPECT_EQ(storage_.Read(P("d")).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(storage_.Delete(P("d")).ok());
  EXPECT_TRUE(storage_.Delete(P("never/was")).ok());
  EXPECT_EQ(storage_.counters().deletes, 3u);
}

TEST_F(LocalStorageTest, ListIsRecursiveSortedAndFiltered) {
  ASSERT_TRUE(storage_.Write(P("job/done/000002.json"), "2").ok());
  ASSERT_TRUE(storage_.Write(P("job/done/000001.json"), "11").ok());
  ASSERT_TRUE(storage_.Write(P("job/done/sub/x"), "x").ok());
  ASSERT_TRUE(storage_.Write(P("job/donestuff"), "d").ok());
  ASSERT_TRUE(storage_.Write(P("job/tasks/000001.json"), "t").ok());
  ASSERT_TRUE(storage_.CreateIfAbsent(P("job/done/000003.json"), "3a").ok());
  std::string g = *storage_.CreateIfAbsent(P("job/done/000004.json"), "4");
  ASSERT_TRUE(storage_.CompareAndSwap(P("job/done/000004.json"), "4bb", g).ok());
  ASSERT_TRUE(storage_.CreateIfAbsent(P("job/done/000005.json"), "5").ok());
  ASSERT_TRUE(storage_.Delete(P("job/done/000005.json")).ok());
  // A leftover temp file from a crashed writer is not an object.
  std::ofstream(P("job/done/.000009.json.tmp.1.abc")) << "partial";

  StatusOr<std::vector<ObjectInfo>> l = storage_.List(P("job/done/"));
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  std::vector<std::string> urls;
  for (const auto& o : *l) urls.push_back(o.url);
  EXPECT_EQ(urls, (std::vector<std::string>{P("job/done/000001.json"), P("job/done/000002.json"),
                                            P("job/done/000003.json"), P("job/done/000004.json"),
                                            P("job/done/sub/x")}));
  EXPECT_EQ((*l)[0].size, 2u);
  EXPECT_EQ((*l)[3].size, 3u);
  EXPECT_EQ((*l)[3].generation, "2");

  // A prefix that is not a folder boundary.
  l = storage_.List(P("job/done"));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->size(), 6u);
  EXPECT_EQ(l->back().url, P("job/donestuff"));

  l = storage_.List("file://" + P("job/tasks/"));
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].url, "file://" + P("job/tasks/000001.json"));

  l = storage_.List(P("absent/"));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l->empty());
  EXPECT_EQ(storage_.counters().lists, 4u);
}

TEST_F(LocalStorageTest, ListSurvivesSymbolicLinkCycles) {
  ASSERT_TRUE(storage_.Write(P("tree/a/file"), "x").ok());
  fs::create_directory_symlink(P("tree"), P("tree/a/loop"));
  StatusOr<std::vector<ObjectInfo>> l = storage_.List(P("tree/"));
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  ASSERT_EQ(l->size(), 1u);
  EXPECT_EQ((*l)[0].url, P("tree/a/file"));
}

// Runs `racers` child processes that wait on a pipe, then call `op`; returns each child's result
// code: 0 won, 1 lost as expected, 2 unexpected error.
template <typename Op>
std::vector<int> RaceProcesses(int racers, Op op) {
  int start[2];
  EXPECT_EQ(::pipe(start), 0);
  std::vector<pid_t> pids;
  for (int i = 0; i < racers; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(start[1]);
      char c;
      while (::read(start[0], &c, 1) < 0) {
      }
      ::_exit(op(i));
    }
    pids.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);  // releases every child at once
  std::vector<int> results;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    results.push_back(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
  }
  return results;
}

TEST_F(LocalStorageTest, CreateIfAbsentRaceAcrossProcessesHasExactlyOneWinner) {
  constexpr int kRacers = 16;
  constexpr int kRounds = 50;
  for (int round = 0; round < kRounds; ++round) {
    std::string key = P("race/create/" + std::to_string(round));
    std::vector<int> results = RaceProcesses(kRacers, [&](int i) {
      LocalStorage s;  // a fresh backend per process, as on separate hosts
      StatusOr<std::string> g = s.CreateIfAbsent(key, "holder " + std::to_string(i));
      if (g.ok()) return 0;
      return g.status().code() == StatusCode::kAlreadyExists ? 1 : 2;
    });
    int winners = 0;
    int winner = -1;
    for (int i = 0; i < kRacers; ++i) {
      ASSERT_NE(results[i], 2) << "round " << round;
      ASSERT_NE(results[i], 3) << "round " << round;
      if (results[i] == 0) {
        ++winners;
        winner = i;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(*storage_.Read(key), "holder " + std::to_string(winner));
  }
}

TEST_F(LocalStorageTest, CompareAndSwapRaceAcrossProcessesHasExactlyOneWinner) {
  constexpr int kRacers = 16;
  constexpr int kRounds = 50;
  std::string key = P("race/cas");
  std::string gen = *storage_.CreateIfAbsent(key, "initial");
  for (int round = 0; round < kRounds; ++round) {
    std::vector<int> results = RaceProcesses(kRacers, [&](int i) {
      LocalStorage s;
      StatusOr<std::string> g =
          s.CompareAndSwap(key, "round " + std::to_string(round) + " by " + std::to_string(i), gen);
      if (g.ok()) return 0;
      return g.status().code() == StatusCode::kFailedPrecondition ? 1 : 2;
    });
    int winners = 0;
    int winner = -1;
    for (int i = 0; i < kRacers; ++i) {
      ASSERT_LT(results[i], 2) << "round " << round << " racer " << i;
      if (results[i] == 0) {
        ++winners;
        winner = i;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    StatusOr<VersionedData> v = storage_.ReadVersioned(key);
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->data, "round " + std::to_string(round) + " by " + std::to_string(winner));
    EXPECT_NE(v->generation, gen);
    gen = v->generation;
  }
}

TEST_F(LocalStorageTest, ReadersSeeWholeValuesWhileGenerationsChurn) {
  std::string key = P("churn");
  std::string gen = *storage_.CreateIfAbsent(key, std::string(1000, 'a'));
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        StatusOr<VersionedData> v = storage_.ReadVersioned(key);
        if (!v.ok() || v->data.size() != 1000 ||
            v->data.find_first_not_of(v->data[0]) != std::string::npos) {
          ++bad;
        }
      }
    });
  }
  for (int i = 0; i < 100; ++i) {
    StatusOr<std::string> g =
        storage_.CompareAndSwap(key, std::string(1000, static_cast<char>('a' + i % 26)), gen);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    gen = *g;
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace tokenmill

namespace tokenmill {
namespace {

class LocalStorageWatchTest : public LocalStorageTest {};

TEST_F(LocalStorageWatchTest, SeesObjectsCreatedInItsFolderOnly) {
  auto watch = storage_.Watch(P("done/"));  // the folder is missing: created
  ASSERT_NE(watch, nullptr);
  EXPECT_TRUE(fs::is_directory(P("done")));
  EXPECT_FALSE(watch->Wait(std::chrono::milliseconds(10)));
  ASSERT_TRUE(storage_.Write(P("elsewhere.json"), "x").ok());
  ASSERT_TRUE(storage_.CreateIfAbsent(P("other/000001.json"), "x").ok());
  EXPECT_FALSE(watch->Wait(std::chrono::milliseconds(10)));
  // Versioned objects (the ledger's records) and plain ones.
  ASSERT_TRUE(storage_.CreateIfAbsent(P("done/000001.json"), "{}").ok());
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
  EXPECT_FALSE(watch->Wait(std::chrono::milliseconds(10)));  // drained
  ASSERT_TRUE(storage_.Write(P("done/plain.json"), "{}").ok());
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
}

TEST_F(LocalStorageWatchTest, AWaiterWakesWhenAnotherThreadCreatesAnObject) {
  auto watch = storage_.Watch(P("done/"));
  ASSERT_NE(watch, nullptr);
  for (int i = 0; i < 100; ++i) {  // a backlog of records written while nobody waited
    ASSERT_TRUE(storage_.CreateIfAbsent(P("done/" + std::to_string(i) + ".json"), "{}").ok());
  }
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
  EXPECT_FALSE(watch->Wait(std::chrono::milliseconds(10)));
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(storage_.CreateIfAbsent(P("done/last.json"), "{}").ok());
  });
  const auto start = std::chrono::steady_clock::now();
  // Without the watch this would wait out the whole minute.
  EXPECT_TRUE(watch->Wait(std::chrono::minutes(1)));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  writer.join();
  // The first generation of a record whose folder the waiter saw first also wakes it.
  fs::create_directories(P("done/late.json.v"));
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
  ASSERT_TRUE(storage_.CreateIfAbsent(P("done/late.json"), "{}").ok());
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
  // A write's temporary file in the object's folder comes first; its generation still wakes the
  // waiter afterwards.
  fs::create_directories(P("done/slow.json.v"));
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
  std::ofstream(P("done/slow.json.v/.c.tmp.1.aa")) << "{}";
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
  EXPECT_FALSE(watch->Wait(std::chrono::milliseconds(10)));
  fs::rename(P("done/slow.json.v/.c.tmp.1.aa"), P("done/slow.json.v/g0000000001"));
  EXPECT_TRUE(watch->Wait(std::chrono::milliseconds(0)));
}

TEST_F(LocalStorageWatchTest, WrappersPassTheWatchOnAndAnUnwatchableFolderHasNone) {
  RetryingStorage retrying(&storage_);
  EXPECT_NE(retrying.Watch(P("done/")), nullptr);
  EXPECT_EQ(storage_.Watch("/proc/no/such/place/"), nullptr);  // callers poll instead
}

}  // namespace
}  // namespace tokenmill
