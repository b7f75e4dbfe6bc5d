#include "tokenmill/storage/fault_injection_storage.h"

#include <utility>

namespace tokenmill {

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
    Decision d = owner_->Check(StorageOp::kStreamRead, url_);
    if (d.fire && !d.after) return Fire(d, StorageOp::kStreamRead, url_);
    StatusOr<size_t> r = base_->Read(buf, n);
    if (d.fire) return Fire(d, StorageOp::kStreamRead, url_);
    return r;
  }

 private:
  FaultInjectionStorage* owner_;
  std::unique_ptr<ReadStream> base_;
  std::string url_;
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
  TM_FAULTY_CALL(StorageOp::kStat, url, base_->Stat(url));
}

Status FaultInjectionStorage::Write(std::string_view url, std::string_view data) {
  TM_FAULTY_CALL(StorageOp::kWrite, url, base_->Write(url, data));
}

Status FaultInjectionStorage::WriteFile(std::string_view url, const std::string& local_path) {
  TM_FAULTY_CALL(StorageOp::kWriteFile, url, base_->WriteFile(url, local_path));
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

#undef TM_FAULTY_CALL

StorageCounters FaultInjectionStorage::counters() const { return base_->counters(); }

}  // namespace tokenmill
