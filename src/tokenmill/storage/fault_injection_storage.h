// FaultInjectionStorage: forwards every call to another Storage, failing chosen calls, for tests
// of the code above storage (retries, the job-store protocol, crash recovery).
//
// A Fault names an operation, which of its calls fail (the Nth matching call, then `times` calls
// in a row; or each call with a probability, from a seeded generator), the Status to return, and
// when: before the call reaches the backend (nothing happened), or after it took effect (the
// write is applied but the reply is "lost": the caller sees an error although the object
// changed, as after a timeout or a crash right after the request). `on_fire` runs when a fault
// fires (e.g. to stop a worker thread at that exact point).
//
//   FaultInjectionStorage faulty(&local);
//   faulty.AddFault({.op = StorageOp::kCreateIfAbsent, .nth = 2,
//                    .status = Status::Unavailable("lost reply"), .after = true});
//
// SetTransientFaults(rate) adds the random mix that `TOKENMILL_INJECT_FAULTS=RATE[:SEED]` turns on
// for a whole process (StorageFor, docs/storage.md "Injected faults"): every call fails with that
// probability, in one of the ways a real store fails transiently (TransientFault below), chosen by
// the seeded generator, so a seed replays the same faults for the same sequence of calls.
//
// Thread-safety: thread-safe; the wrapped backend must be thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/rng.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

enum class StorageOp {
  kRead,
  kReadVersioned,
  kOpenRead,
  kStreamRead,  // ReadStream::Read on a stream from OpenRead
  kStat,
  kWrite,
  kWriteFile,
  kCreateIfAbsent,
  kCompareAndSwap,
  kList,
  kDelete,
};

std::string_view StorageOpName(StorageOp op);

// The transient faults of SetTransientFaults. Each is what a caller sees from a real store:
enum class TransientFault {
  kServerError,  // HTTP 500 InternalError; nothing happened
  kSlowDown,     // HTTP 503 SlowDown (throttling); nothing happened
  kTimeout,      // no reply in time; a write may or may not have happened (here: it did not)
  kLostReply,    // writes: the request took effect, the reply was lost (connection reset)
  kPartialRead,  // reads: the connection broke after part of the body (a stream returns a prefix,
                 // then fails; Read fails after reading)
};
std::string_view TransientFaultName(TransientFault kind);

// Parses TOKENMILL_INJECT_FAULTS: "RATE" or "RATE:SEED", RATE in [0, 1], SEED a non-negative
// integer (default 1). InvalidArgument naming the variable otherwise.
struct InjectFaultsSetting {
  double rate = 0;
  uint64_t seed = 1;
};
StatusOr<InjectFaultsSetting> ParseInjectFaults(std::string_view value);

// Faults injected so far by every FaultInjectionStorage of this process (AddFault and
// SetTransientFaults alike).
uint64_t InjectedFaultCount();

struct Fault {
  StorageOp op = StorageOp::kRead;
  // Only calls whose url (or listing prefix) contains this string match. Default: "" (all).
  std::string url_contains = {};
  // The first matching call that fails, counted from 1 since the fault was added. Default: 1.
  uint64_t nth = 1;
  // How many matching calls in a row fail from the nth on; 0 means every one. Default: 1.
  uint64_t times = 1;
  // If > 0, `nth` and `times` are ignored and each matching call fails with this probability.
  // Default: 0.
  double probability = 0;
  // What the failing call returns. Default: Unavailable naming the operation and url.
  Status status = Status::Ok();
  // False: fail before the backend sees the call. True: make the call, discard its result and
  // return `status` (a lost reply; for reads it only hides the result). Default: false.
  bool after = false;
  // Called (outside the wrapper's lock) each time this fault fires. Default: none.
  std::function<void(StorageOp op, std::string_view url)> on_fire = nullptr;
};

class FaultInjectionStorage : public Storage {
 public:
  // REQUIRES: `base` outlives this object. `seed` drives the probabilistic faults.
  explicit FaultInjectionStorage(Storage* base, uint64_t seed = 1);

  // Adds a fault; returns its id. Faults are checked in the order they were added; the first
  // that fires decides.
  int AddFault(Fault fault);
  void RemoveFault(int id);
  void ClearFaults();

  // Every call (after the faults added with AddFault have been checked) fails with probability
  // `rate` with a TransientFault chosen at random among those that apply to its operation.
  // Conditional writes then return UnknownOutcome (as the object stores do after a 5xx, a timeout
  // or a lost reply: the caller reads back); other calls return Unavailable. 0 turns it off.
  void SetTransientFaults(double rate);

  // Stat reports modification times `ms` later than the store's (earlier if negative): a store
  // whose clock is that far ahead of this machine's, or a machine whose clock is that far behind.
  void SetClockOffset(int64_t ms) { clock_offset_ms_.store(ms); }

  // Faults this wrapper injected (all kinds).
  uint64_t injected() const;

  // How many times fault `id` fired, and how many calls of `op` were made (all urls).
  uint64_t fired(int id) const;
  uint64_t calls(StorageOp op) const;

  StatusOr<std::string> Read(std::string_view url, uint64_t offset = 0,
                             uint64_t length = kToEnd) override;
  StatusOr<VersionedData> ReadVersioned(std::string_view url) override;
  StatusOr<std::unique_ptr<ReadStream>> OpenRead(std::string_view url, uint64_t offset = 0,
                                                 uint64_t length = kToEnd) override;
  StatusOr<ObjectInfo> Stat(std::string_view url) override;
  Status Write(std::string_view url, std::string_view data) override;
  Status WriteFile(std::string_view url, const std::string& local_path) override;
  // Faults as WriteFile's (StorageOp::kWriteFile).
  Status WriteFinishedFile(std::string_view url, const std::string& local_path) override;
  StatusOr<std::string> CreateIfAbsent(std::string_view url, std::string_view data) override;
  StatusOr<std::string> CompareAndSwap(std::string_view url, std::string_view data,
                                       std::string_view expected_generation) override;
  StatusOr<std::vector<ObjectInfo>> List(std::string_view prefix) override;
  Status Delete(std::string_view url) override;
  StatusOr<std::vector<IncompleteWrite>> ListIncomplete(std::string_view folder) override;
  Status RemoveIncomplete(const IncompleteWrite& write) override;
  std::unique_ptr<ChangeWatch> Watch(std::string_view prefix) override;
  // The wrapped backend's counters.
  StorageCounters counters() const override;

 private:
  class FaultyStream;
  struct Entry {
    int id;
    Fault fault;
    uint64_t seen = 0;   // matching calls so far
    uint64_t fired = 0;  // times it fired
  };
  struct Decision {
    bool fire = false;
    bool after = false;
    bool partial = false;  // a stream returns a prefix of its read, then stays broken
    Status status;
    std::function<void(StorageOp, std::string_view)> on_fire;
  };

  // Counts the call and decides whether a fault fires for it.
  Decision Check(StorageOp op, std::string_view url);
  // Runs the decision's callback and returns its status.
  static Status Fire(const Decision& d, StorageOp op, std::string_view url);

  Storage* const base_;
  mutable std::mutex mu_;
  Rng rng_;                                                        // guarded by mu_
  std::vector<Entry> entries_;                                     // guarded by mu_
  std::vector<std::pair<int, uint64_t>> removed_fired_;            // guarded by mu_
  uint64_t calls_[static_cast<int>(StorageOp::kDelete) + 1] = {};  // guarded by mu_
  int next_id_ = 1;                                                // guarded by mu_
  double transient_rate_ = 0;                                      // guarded by mu_
  uint64_t injected_ = 0;                                          // guarded by mu_
  std::atomic<int64_t> clock_offset_ms_{0};
};

}  // namespace tokenmill
