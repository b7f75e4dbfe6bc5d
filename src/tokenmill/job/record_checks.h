// Checks that what a job store's records name stays inside the job: a worker reads only the
// job's declared inputs and writes only into its declared output folder, whatever a corrupt or
// hand-edited record says. The job's declaration is the spec in job.json, itself checked against
// its digest.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/protocol.h"

namespace tokenmill {

// job.json: its spec matches its spec_digest, and every tokenizer file name is a plain file
// name (no '/', not "." or ".."). DataLoss naming `where` otherwise.
Status CheckJobRecord(const JobRecord& job, std::string_view where);

// A task of tasks.jsonl reads one of the job's inputs: its url matches one of the spec's input
// patterns (or equals a literal one), has no ".", ".." or empty path component, and its range
// is inside the object. DataLoss naming `where` and the task otherwise.
Status CheckTaskInJob(const JobSpec& spec, const TaskDef& task, std::string_view where);

// A done record of task `task` names only the task's own shards (part-<task:06d>-<n:03d>.<ext>,
// a plain file name), so that finalize and readers never look outside the output folder.
Status CheckDoneRecordInJob(const DoneRecord& done, uint64_t task, std::string_view where);

}  // namespace tokenmill
