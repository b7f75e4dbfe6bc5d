// The report of a job (`tokenmill report`, and `finalize`): reads the job store (any store:
// folder, s3://, gs://), loads the job's tokenizer to decode the top tokens, and writes one
// self-contained HTML page (report_html.h) into the store or wherever asked. docs/report.md.
// Thread-safety: functions.
#pragma once

#include <string>

#include "tokenmill/base/status.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/report_html.h"

namespace tokenmill {

// Where the report goes by default: <store>/report.html, inside the job store (never the
// output folder, which holds only the manifest and the shards).
std::string DefaultReportLocation(const std::string& store_location);

// Reads everything the page shows from the store. A tokenizer that cannot be loaded is not an
// error: the top tokens are then shown by id, with the reason. `reader` (optional): a reader of
// this store that has read it before, whose done records are then not read again.
StatusOr<ReportData> ReadReportData(const std::string& store_location,
                                    StatusReader* reader = nullptr);

// Writes the page to `out` (a path or URL; empty: DefaultReportLocation). Returns the location.
StatusOr<std::string> WriteReport(const std::string& store_location, const std::string& out = "",
                                  StatusReader* reader = nullptr);

}  // namespace tokenmill
