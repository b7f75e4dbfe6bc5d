#include "tokenmill/base/allocator.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <barrier>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

namespace tokenmill {
namespace {

TEST(Allocator, NameSaysWhatServesAllocations) {
#ifdef TOKENMILL_MIMALLOC
  EXPECT_EQ(AllocatorName().rfind("mimalloc 2.", 0), 0u) << AllocatorName();
#else
  EXPECT_EQ(AllocatorName(), "the C library's malloc");
#endif
}

#ifdef TOKENMILL_MIMALLOC
long ThreadMinorFaults() {
  rusage usage{};
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_minflt;
}
#endif

// The page faults a thread takes to write 2 MiB again where it freed two buffers of 1 MiB, as a
// task thread takes a file's read buffer or a shard's again for its next task. Both threads run
// at once, so that neither takes over the other's memory when it ends.
TEST(Allocator, AThreadThatKeepsItsMemoryTakesNoFaultsForBuffersItFreed) {
#ifndef TOKENMILL_MIMALLOC
  GTEST_SKIP() << "built without mimalloc (sanitizer builds): the C library's malloc";
#else
  if (AllocatorName().find("large OS pages") == std::string::npos) {
    GTEST_SKIP() << "large OS pages turned off (MIMALLOC_LARGE_OS_PAGES)";
  }
  constexpr size_t kBuffer = size_t{1} << 20;
  long faults[2] = {0, 0};
  std::barrier both(2);
  auto task_thread = [&](bool keep, long* again) {
    if (keep) KeepThisThreadsMemory();
    // A task's buffers: one freed early (a vector that grew), one at its end.
    auto first = std::make_unique<char[]>(kBuffer);
    auto second = std::make_unique<char[]>(kBuffer);
    std::memset(first.get(), 1, kBuffer);
    std::memset(second.get(), 1, kBuffer);
    first.reset();
    // Longer than mimalloc's delay before it gives free memory back (decommit_delay, 25 ms),
    // which it does when it next frees in the same place.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    second.reset();
    const long before = ThreadMinorFaults();
    {  // the next task's buffer, where the two were
      auto buffer = std::make_unique<char[]>(2 * kBuffer);
      std::memset(buffer.get(), 2, 2 * kBuffer);
    }
    *again = ThreadMinorFaults() - before;
    both.arrive_and_wait();  // neither ends while the other measures
  };
  std::thread lazy(task_thread, false, &faults[0]);
  std::thread kept(task_thread, true, &faults[1]);
  lazy.join();
  kept.join();
  RecordProperty("faults_default", std::to_string(faults[0]));
  RecordProperty("faults_kept", std::to_string(faults[1]));
  // 512 pages of 4 KiB make the 2 MiB; a few page-table pages aside, none are taken again.
  EXPECT_LT(faults[1], 16) << "default thread: " << faults[0] << " faults";
  // And the default does take them again, or this test shows nothing.
  // (The first buffer's 256 pages at least: decommitted after the delay.)
  EXPECT_GE(faults[0], 128) << "kept thread: " << faults[1] << " faults";
#endif
}

}  // namespace
}  // namespace tokenmill
