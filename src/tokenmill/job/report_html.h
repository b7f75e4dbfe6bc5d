// The report page: one self-contained HTML file (inline CSS and SVG that this file draws, no
// script, no request to any server) showing a job's totals, content statistics and fleet
// statistics (docs/report.md). RenderReportHtml is a pure function of ReportData, so the page
// of a job is the same whatever the number of workers except inside <section id="fleet">.
// Thread-safety: functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/job/job_status.h"

namespace tokenmill {

struct ReportData {
  JobStatus status;
  std::string title;  // the job's name (its output folder's base name)
  // Deterministic facts about the job, shown under the title: ("example kind", "electra"), ...
  std::vector<std::pair<std::string, std::string>> facts;
  // The top tokens' text as shown (VisibleToken); ids missing here are shown by id only.
  std::map<uint32_t, std::string> token_label;
  std::string tokenizer_note;  // why tokens are not decoded, if they are not
  int64_t generated_at_ms = 0;
};

std::string RenderReportHtml(const ReportData& data);

// Helpers, exposed for tests.
std::string HtmlEscape(std::string_view text);
// "1,234,567".
std::string GroupDigits(uint64_t v);

}  // namespace tokenmill
