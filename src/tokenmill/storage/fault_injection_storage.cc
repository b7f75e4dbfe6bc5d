#include "tokenmill/storage/fault_injection_storage.h"

#include <atomic>
#include <charconv>
#include <cstdlib>
#include <utility>

#include "tokenmill/base/log.h"

namespace tokenmill {
namespace {

std::atomic<uint64_t> g_injected{0};

bool IsWrite(StorageOp op) {
  return op == StorageOp::kWrite || op == StorageOp::kWriteFile ||
         op == StorageOp::kCreateIfAbsent || op == StorageOp::kCompareAndSwap ||
         op == StorageOp::kDelete;
}

bool IsConditional(StorageOp op) {
  return op == StorageOp::kCreateIfAbsent || op == StorageOp::kCompareAndSwap;
}

}  // namespace

std::string_view TransientFaultName(TransientFault kind) {
  switch (kind) {
    case TransientFault::kServerError:
      return "HTTP 500 InternalError";
    case TransientFault::kSlowDown:
      return "HTTP 503 SlowDown (please reduce your request rate)";
    case TransientFault::kTimeout:
      return "timed out waiting for the reply";
    case TransientFault::kLostReply:
      return "connection reset before the reply (the request took effect)";
    case TransientFault::kPartialRead:
      return "connection reset in the middle of the body";
  }
  return "?";
}

StatusOr<InjectFaultsSetting> ParseInjectFaults(std::string_view value) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("TOKENMILL_INJECT_FAULTS='" + std::string(value) + "': " + why +
                                   "; use RATE or RATE:SEED, e.g. 0.1 or 0.1:7 (RATE from 0 to 1)");
  };
  InjectFaultsSetting setting;
  const size_t colon = value.find(':');
  const std::string rate(value.substr(0, colon));
  char* end = nullptr;
  setting.rate = std::strtod(rate.c_str(), &end);
  if (rate.empty() || end != rate.c_str() + rate.size() || !(setting.rate >= 0) ||
      setting.rate > 1) {
    return bad("the rate is not a number from 0 to 1");
  }
  if (colon != std::string_view::npos) {
    const std::string_view seed = value.substr(colon + 1);
    const auto [ptr, ec] = std::from_chars(seed.data(), seed.data() + seed.size(), setting.seed);
    if (seed.empty() || ec != std::errc() || ptr != seed.data() + seed.size()) {
      return bad("the seed is not a non-negative integer");
    }
  }
  return setting;
}

uint64_t InjectedFaultCount() { return g_injected.load(std::memory_order_relaxed); }

std::string_view StorageOpName(StorageOp op) {
  switch (op) {
    case StorageOp::kRead:
      return "Read";
    case StorageOp::kReadVersioned:
      return "ReadVersioned";
    case StorageOp::kOpenRead:
      return "OpenRead";
    case StorageOp::kStreamRead:
      return "ReadStream::Read";
    case StorageOp::kStat:
      return "Stat";
    case StorageOp::kWrite:
      return "Write";
    case StorageOp::kWriteFile:
      return "WriteFile";
    case StorageOp::kCreateIfAbsent:
      return "CreateIfAbsent";
    case StorageOp::kCompareAndSwap:
      return "CompareAndSwap";
    case StorageOp::kList:
      return "List";
    case StorageOp::kDelete:
      return "Delete";
  }
  return "?";
}

class FaultInjectionStorage::FaultyStream : public ReadStream {
 public:
  FaultyStream(FaultInjectionStorage* owner, std::unique_ptr<ReadStream> base, std::string url)
      : owner_(owner), base_(std::move(base)), url_(std::move(url)) {}

  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (broken_) {
      return Status::Unavailable("injected fault: the connection of the stream of " + url_ +
                                 " was reset");
    }
    Decision d = owner_->Check(StorageOp::kStreamRead, url_);
    if (d.fire && d.partial) {
      // Part of what was read arrives, then the connection is gone.
      StatusOr<size_t> r = base_->Read(buf, n);
      broken_ = true;
      if (r.ok() && *r > 1) return *r / 2;
      return Fire(d, StorageOp::kStreamRead, url_);
    }
    if (d.fire && !d.after) return Fire(d, StorageOp::kStreamRead, url_);
    StatusOr<size_t> r = base_->Read(buf, n);
    if (d.fire) return Fire(d, StorageOp::kStreamRead, url_);
    return r;
  }

 private:
  FaultInjectionStorage* owner_;
  std::unique_ptr<ReadStream> base_;
  std::string url_;
  bool broken_ = false;
};

FaultInjectionStorage::FaultInjectionStorage(Storage* base, uint64_t seed)
    : base_(base), rng_(seed, 0x5eed) {}

int FaultInjectionStorage::AddFault(Fault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  int id = next_id_++;
  entries_.push_back(Entry{id, std::move(fault)});
  return id;
}

void FaultInjectionStorage::RemoveFault(int id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->id == id) {
      removed_fired_.emplace_back(id, it->fired);
      entries_.erase(it);
      return;
    }
  }
}

void FaultInjectionStorage::ClearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_) removed_fired_.emplace_back(e.id, e.fired);
  entries_.clear();
}

uint64_t FaultInjectionStorage::fired(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const Entry& e : entries_) {
    if (e.id == id) return e.fired;
  }
  for (const auto& [rid, n] : removed_fired_) {
    if (rid == id) return n;
  }
  return 0;
}

void FaultInjectionStorage::SetTransientFaults(double rate) {
  std::lock_guard<std::mutex> lock(mu_);
  transient_rate_ = rate;
}

uint64_t FaultInjectionStorage::injected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

uint64_t FaultInjectionStorage::calls(StorageOp op) const {
  std::lock_guard<std::mutex> lock(mu_);
  return calls_[static_cast<int>(op)];
}

FaultInjectionStorage::Decision FaultInjectionStorage::Check(StorageOp op, std::string_view url) {
  std::lock_guard<std::mutex> lock(mu_);
  ++calls_[static_cast<int>(op)];
  Decision d;
  for (Entry& e : entries_) {
    const Fault& f = e.fault;
    if (f.op != op) continue;
    if (!f.url_contains.empty() && url.find(f.url_contains) == std::string_view::npos) continue;
    ++e.seen;
    bool fire;
    if (f.probability > 0) {
      fire = rng_.Uniform01() < f.probability;
    } else {
      fire = e.seen >= f.nth && (f.times == 0 || e.seen < f.nth + f.times);
    }
    if (fire && !d.fire) {
      ++e.fired;
      d.fire = true;
      d.after = f.after;
      d.status = f.status.ok()
                     ? Status::Unavailable("injected fault in " + std::string(StorageOpName(op)) +
                                           " of " + std::string(url))
                     : f.status;
      d.on_fire = f.on_fire;
    }
  }
  if (!d.fire && transient_rate_ > 0 && rng_.Uniform01() < transient_rate_) {
    // Choose among the kinds that apply: lost replies only for writes, partial reads only for
    // reads of bytes.
    std::vector<TransientFault> kinds = {TransientFault::kServerError, TransientFault::kSlowDown,
                                         TransientFault::kTimeout};
    if (IsWrite(op)) kinds.push_back(TransientFault::kLostReply);
    if (op == StorageOp::kRead || op == StorageOp::kStreamRead) {
      kinds.push_back(TransientFault::kPartialRead);
    }
    const TransientFault kind =
        kinds[static_cast<size_t>(rng_.RandInt(0, static_cast<int64_t>(kinds.size()) - 1))];
    d.fire = true;
    d.after = kind == TransientFault::kLostReply || kind == TransientFault::kPartialRead;
    d.partial = kind == TransientFault::kPartialRead && op == StorageOp::kStreamRead;
    const std::string what =
        "injected fault (TOKENMILL_INJECT_FAULTS): " + std::string(TransientFaultName(kind)) +
        " in " + std::string(StorageOpName(op)) + " of " + std::string(url);
    d.status = IsConditional(op) ? Status::UnknownOutcome(what + "; the outcome is unknown")
                                 : Status::Unavailable(what);
    LogInfo(what);
  }
  if (d.fire) {
    ++injected_;
    g_injected.fetch_add(1, std::memory_order_relaxed);
  }
  return d;
}

Status FaultInjectionStorage::Fire(const Decision& d, StorageOp op, std::string_view url) {
  if (d.on_fire) d.on_fire(op, url);
  return d.status;
}

// Applies decision `d` around `call` (which returns a Status or a StatusOr).
#define TM_FAULTY_CALL(op, url, call)    \
  do {                                   \
    Decision d = Check(op, url);         \
    if (d.fire && !d.after) {            \
      return Fire(d, op, url);           \
    }                                    \
    auto result = call;                  \
    if (d.fire) return Fire(d, op, url); \
    return result;                       \
  } while (0)

StatusOr<std::string> FaultInjectionStorage::Read(std::string_view url, uint64_t offset,
                                                  uint64_t length) {
  TM_FAULTY_CALL(StorageOp::kRead, url, base_->Read(url, offset, length));
}

StatusOr<VersionedData> FaultInjectionStorage::ReadVersioned(std::string_view url) {
  TM_FAULTY_CALL(StorageOp::kReadVersioned, url, base_->ReadVersioned(url));
}

StatusOr<std::unique_ptr<ReadStream>> FaultInjectionStorage::OpenRead(std::string_view url,
                                                                      uint64_t offset,
                                                                      uint64_t length) {
  Decision d = Check(StorageOp::kOpenRead, url);
  if (d.fire && !d.after) return Fire(d, StorageOp::kOpenRead, url);
  StatusOr<std::unique_ptr<ReadStream>> r = base_->OpenRead(url, offset, length);
  if (d.fire) return Fire(d, StorageOp::kOpenRead, url);
  if (!r.ok()) return r.status();
  return std::unique_ptr<ReadStream>(
      new FaultyStream(this, std::move(r).value(), std::string(url)));
}

StatusOr<ObjectInfo> FaultInjectionStorage::Stat(std::string_view url) {
  auto shifted = [&]() -> StatusOr<ObjectInfo> {
    StatusOr<ObjectInfo> info = base_->Stat(url);
    if (info.ok() && info->modified_ms != 0) info->modified_ms += clock_offset_ms_.load();
    return info;
  };
  TM_FAULTY_CALL(StorageOp::kStat, url, shifted());
}

Status FaultInjectionStorage::Write(std::string_view url, std::string_view data) {
  TM_FAULTY_CALL(StorageOp::kWrite, url, base_->Write(url, data));
}

Status FaultInjectionStorage::WriteFile(std::string_view url, const std::string& local_path) {
  TM_FAULTY_CALL(StorageOp::kWriteFile, url, base_->WriteFile(url, local_path));
}

Status FaultInjectionStorage::WriteFinishedFile(std::string_view url,
                                                const std::string& local_path) {
  TM_FAULTY_CALL(StorageOp::kWriteFile, url, base_->WriteFinishedFile(url, local_path));
}

StatusOr<std::string> FaultInjectionStorage::CreateIfAbsent(std::string_view url,
                                                            std::string_view data) {
  TM_FAULTY_CALL(StorageOp::kCreateIfAbsent, url, base_->CreateIfAbsent(url, data));
}

StatusOr<std::string> FaultInjectionStorage::CompareAndSwap(std::string_view url,
                                                            std::string_view data,
                                                            std::string_view expected_generation) {
  TM_FAULTY_CALL(StorageOp::kCompareAndSwap, url,
                 base_->CompareAndSwap(url, data, expected_generation));
}

StatusOr<std::vector<ObjectInfo>> FaultInjectionStorage::List(std::string_view prefix) {
  TM_FAULTY_CALL(StorageOp::kList, prefix, base_->List(prefix));
}

Status FaultInjectionStorage::Delete(std::string_view url) {
  TM_FAULTY_CALL(StorageOp::kDelete, url, base_->Delete(url));
}

// Listing and removing incomplete writes fail like a listing and a delete.
StatusOr<std::vector<IncompleteWrite>> FaultInjectionStorage::ListIncomplete(
    std::string_view folder) {
  TM_FAULTY_CALL(StorageOp::kList, folder, base_->ListIncomplete(folder));
}

Status FaultInjectionStorage::RemoveIncomplete(const IncompleteWrite& write) {
  TM_FAULTY_CALL(StorageOp::kDelete, write.url, base_->RemoveIncomplete(write));
}

#undef TM_FAULTY_CALL

StorageCounters FaultInjectionStorage::counters() const { return base_->counters(); }

std::unique_ptr<ChangeWatch> FaultInjectionStorage::Watch(std::string_view prefix) {
  return base_->Watch(prefix);
}

}  // namespace tokenmill
