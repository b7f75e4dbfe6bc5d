#include "tokenmill/job/free_tasks.h"

#include <bit>

namespace tokenmill {

uint64_t TaskWork(const TaskDef& task) {
  constexpr uint64_t kCompressedRatio = 4;
  const uint64_t bytes = task.InputBytes();
  if (!task.compressed) return bytes;
  return bytes <= UINT64_MAX / kCompressedRatio ? bytes * kCompressedRatio : UINT64_MAX;
}

FreeTasks::FreeTasks(const std::vector<uint64_t>& work) {
  class_of_.reserve(work.size());
  for (const uint64_t w : work) class_of_.push_back(static_cast<uint8_t>(ClassOf(w)));
}

int FreeTasks::ClassOf(uint64_t work) { return work == 0 ? 0 : 64 - std::countl_zero(work); }

int FreeTasks::ClassOfTask(uint64_t task) const {
  return task < class_of_.size() ? class_of_[task] : 0;
}

void FreeTasks::Add(uint64_t task) {
  by_class_[ClassOfTask(task)].push_back(task);
  ++size_;
}

void FreeTasks::Clear() {
  for (auto& tasks : by_class_) tasks.clear();
  size_ = 0;
}

uint64_t FreeTasks::Take(std::mt19937_64& rng, bool largest_first) {
  size_t c = by_class_.size() - 1;
  size_t i = 0;
  if (largest_first) {
    while (by_class_[c].empty()) --c;  // !empty(): some class has a task
    std::uniform_int_distribution<size_t> pick(0, by_class_[c].size() - 1);
    i = pick(rng);
  } else {  // the i-th of all free tasks, the classes in turn from the largest
    std::uniform_int_distribution<size_t> pick(0, size_ - 1);
    i = pick(rng);
    while (i >= by_class_[c].size()) i -= by_class_[c--].size();
  }
  std::vector<uint64_t>& tasks = by_class_[c];
  const uint64_t task = tasks[i];
  tasks[i] = tasks.back();
  tasks.pop_back();
  --size_;
  return task;
}

}  // namespace tokenmill
