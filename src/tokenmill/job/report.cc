#include "tokenmill/job/report.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/job_status.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

// The tokenizer the job was planned with, from the copies in its store (verified by sha256).
StatusOr<std::shared_ptr<const Tokenizer>> LoadStoreTokenizer(Storage& store,
                                                              const StorePaths& paths,
                                                              const JobRecord& job) {
  TM_ASSIGN_OR_RETURN(JobSpec spec, JobSpec::FromJson(job.spec_json));
  return LoadJobTokenizer(store, paths, job, spec.tokenizer);
}

std::string Text(const nlohmann::json& j, const char* table, const char* key) {
  if (!j.contains(table) || !j[table].contains(key)) return "";
  const auto& v = j[table][key];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

std::string DefaultReportLocation(const std::string& store_location) {
  return JoinPath(store_location, "report.html");
}

StatusOr<ReportData> ReadReportData(const std::string& store_location, StatusReader* reader) {
  TM_ASSIGN_OR_RETURN(Storage * store, StorageFor(store_location));
  std::optional<StatusReader> own;
  if (reader == nullptr) reader = &own.emplace(store, store_location);
  ReportData d;
  TM_ASSIGN_OR_RETURN(d.status, reader->Read());
  d.generated_at_ms = NowMs();
  const JobRecord& job = d.status.job;

  nlohmann::json spec = nlohmann::json::object();
  try {
    spec = nlohmann::json::parse(job.spec_json);
  } catch (const std::exception& e) {
    return Status::DataLoss(StorePaths(store_location).Job() + ": malformed job spec: " + e.what());
  }
  const std::string output = Text(spec, "output", "path");
  d.title = output.empty() ? "tokenmill job" : Basename(output);
  const std::string kind = Text(spec, "examples", "kind");
  d.facts.push_back({"example kind", kind});
  if (kind != "gpt")
    d.facts.push_back({"max_seq_length", Text(spec, "examples", "max_seq_length")});
  d.facts.push_back({"output format", Text(spec, "output", "format")});
  d.facts.push_back({"input format", Text(spec, "input", "format")});
  std::string tokenizer;
  for (const auto& f : job.tokenizer_files) {
    tokenizer += (tokenizer.empty() ? "" : " + ") + f.name;
  }
  d.facts.push_back({"tokenizer", tokenizer});
  d.facts.push_back({"tasks", std::to_string(job.task_count)});
  d.facts.push_back({"input", GroupDigits(job.input_bytes) + " bytes"});
  d.facts.push_back({"tokenmill", job.tokenmill_version});

  // The workers wrote the top tokens' text into their done records; the tokenizer (which can
  // take seconds and hundreds of MB to load) only labels what records of older workers lack.
  d.token_label = d.status.token_labels;
  bool all_labelled = true;
  for (const auto& t : d.status.content.top_tokens) all_labelled &= d.token_label.count(t.id) > 0;
  if (!all_labelled) {
    auto tokenizer_or = LoadStoreTokenizer(*store, StorePaths(store_location), job);
    if (tokenizer_or.ok()) {
      for (const auto& t : d.status.content.top_tokens) {
        d.token_label.try_emplace(t.id, VisibleToken((*tokenizer_or)->IdToToken(t.id)));
      }
    } else {
      d.tokenizer_note =
          "Tokens without a label are shown by id: the tokenizer could not be "
          "loaded (" +
          tokenizer_or.status().message() + ").";
    }
  }
  return d;
}

StatusOr<std::string> WriteReport(const std::string& store_location, const std::string& out,
                                  StatusReader* reader) {
  TM_ASSIGN_OR_RETURN(ReportData data, ReadReportData(store_location, reader));
  const std::string location = out.empty() ? DefaultReportLocation(store_location) : out;
  TM_ASSIGN_OR_RETURN(Storage * target, StorageFor(location));
  TM_RETURN_IF_ERROR(target->Write(location, RenderReportHtml(data)));
  return location;
}

}  // namespace tokenmill
