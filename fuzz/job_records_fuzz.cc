// Fuzz target: the records of the job store (job.json, tasks.jsonl lines, leases, done records,
// error records, worker heartbeats) and the checks that keep a worker inside its job.
//
// Flag byte (the input's first byte) mod 6 chooses the record: 0 task, 1 job, 2 lease, 3 done,
// 4 error, 5 heartbeat. The rest is the record's JSON.
// Checks: no crash; an accepted record survives its JSON form (parse(ToJson(x)) has the same
// ToJson); the containment checks never crash and accept only shard names inside the output.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tokenmill/job/protocol.h"
#include "tokenmill/job/record_checks.h"

namespace {

using namespace tokenmill;

template <typename Parse>
void RoundTrip(std::string_view json, Parse parse) {
  auto rec = parse(json);
  if (!rec.ok()) return;
  const std::string once = ToJson(*rec);
  auto again = parse(once);
  if (!again.ok() || ToJson(*again) != once) std::abort();
}

int FuzzRecords(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view json(reinterpret_cast<const char*>(data) + 1, size - 1);
  JobSpec spec;
  spec.input_paths = {"/data/in/*.txt", "s3://bucket/x/part-??.jsonl"};
  switch (data[0] % 6) {
    case 0: {
      RoundTrip(json, TaskDefFromJson);
      auto t = TaskDefFromJson(json);
      if (t.ok() && CheckTaskInJob(spec, *t, "tasks.jsonl").ok()) {
        if (t->url.find("/../") != std::string::npos || t->url.find("/./") != std::string::npos ||
            t->begin > t->end || t->end > t->size) {
          std::abort();
        }
      }
      break;
    }
    case 1: {
      RoundTrip(json, JobRecordFromJson);
      auto j = JobRecordFromJson(json);
      if (j.ok() && CheckJobRecord(*j, "job.json").ok()) {
        for (const auto& f : j->tokenizer_files) {
          if (f.name.find('/') != std::string::npos || f.name == "..") std::abort();
        }
        for (const int64_t id : {j->bos_id, j->eod_id}) {
          if (j->special_ids_known && (id < -1 || id > int64_t{UINT32_MAX})) std::abort();
        }
      }
      break;
    }
    case 2:
      RoundTrip(json, LeaseRecordFromJson);
      break;
    case 3: {
      RoundTrip(json, DoneRecordFromJson);
      auto d = DoneRecordFromJson(json);
      if (d.ok() && CheckDoneRecordInJob(*d, d->task, "done.json").ok()) {
        for (const auto& s : d->shards) {
          if (s.name.find('/') != std::string::npos || !s.name.starts_with("part-")) std::abort();
        }
      }
      break;
    }
    case 4:
      RoundTrip(json, ErrorRecordFromJson);
      break;
    case 5:
      RoundTrip(json, WorkerHeartbeatFromJson);
      break;
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzRecords(data, size);
}
