// FreeTasks: the tasks a worker's ledger believes free, and which one it tries to claim next:
// the largest first, by size class (docs/protocol.md, "Finding work"). A job whose tasks differ
// in size (a large compressed file beside small ones, the short last range of each file) then
// ends on small tasks instead of one worker finishing a large task while the others have
// nothing left. Within a class the pick is at random, so that workers spread over the job
// instead of colliding on the same task.
//
// Thread-safety: none; the ledger guards it with its mutex.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "tokenmill/job/protocol.h"

namespace tokenmill {

// The work of a task for FreeTasks: its input bytes, a compressed object's counted four times
// (about what gzip and zstd give on text).
uint64_t TaskWork(const TaskDef& task);

class FreeTasks {
 public:
  // `work` by task id (TaskWork); tasks beyond it, or all when it is empty, are alike.
  explicit FreeTasks(const std::vector<uint64_t>& work = {});

  void Add(uint64_t task);  // REQUIRES: not already free
  void Clear();
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // Removes and returns a free task picked at random: with `largest_first`, among those of the
  // largest size class that has any (work within the same power of two); else among all.
  // REQUIRES: !empty().
  uint64_t Take(std::mt19937_64& rng, bool largest_first = true);

 private:
  // 0 for no work, else 1 + floor(log2(work)).
  static int ClassOf(uint64_t work);
  int ClassOfTask(uint64_t task) const;

  std::vector<uint8_t> class_of_;                   // by task id
  std::array<std::vector<uint64_t>, 65> by_class_;  // free tasks by class
  size_t size_ = 0;
};

}  // namespace tokenmill
