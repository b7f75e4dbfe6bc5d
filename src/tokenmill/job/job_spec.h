// JobSpec: a job file (TOML), parsed and validated.
//
// Tables: [input] [tokenizer] [examples] [output] [job]; see docs/job-file.md. Unknown keys and
// wrong types are errors naming the key, the file and the line. Relative paths are resolved
// against the job file's folder. The spec is serialised canonically (ToJson) into the job store,
// so that every worker runs exactly the same job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/formats/shard_writer.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// [job] task_size of an [examples] compat = "google" job: every input is one task.
inline constexpr uint64_t kGoogleCompatTaskSize = 1ull << 50;

struct JobSettings {
  // Plain inputs are cut into ranges of about this. Default 64MiB.
  uint64_t task_size = 64ull << 20;
  std::string store;            // Default: <output.path>/_job
  uint32_t lease_seconds = 60;  // Default: 60
  uint32_t max_attempts = 3;    // failed attempts before a task fails for good. Default: 3
  uint32_t max_expiries = 10;   // expired leases before a task fails for good. Default: 10
};

struct OutputSpec {
  std::string path;  // folder (local, s3:// or gs://)
  OutputFormat format = OutputFormat::kTfRecord;
  uint64_t shard_size = 256ull << 20;  // Default: 256MiB
};

struct JobSpec {
  std::vector<std::string> input_paths;  // absolute paths or URLs, globs allowed
  ReaderOptions reader;                  // [input] format, text_field, strict_utf8, on_bad_record
  TokenizerOptions tokenizer;            // [tokenizer]
  ExampleOptions examples;               // [examples]
  OutputSpec output;                     // [output]
  JobSettings job;                       // [job]

  // Canonical JSON (sorted keys, every default spelled out): equal specs give equal bytes.
  std::string ToJson() const;
  static StatusOr<JobSpec> FromJson(std::string_view json);
};

// Parses a TOML job file. `file_name` is used in messages and to resolve relative paths.
StatusOr<JobSpec> ParseJobSpec(std::string_view toml_text, std::string_view file_name);

// Reads and parses a job file from disk.
StatusOr<JobSpec> LoadJobSpec(const std::string& path);

}  // namespace tokenmill
