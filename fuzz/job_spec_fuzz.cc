// Fuzz target: the job file (TOML parsing and every validation rule) and the canonical JSON form
// the job store keeps.
//
// Flag byte (the input's first byte): bit 0 clear: the rest is a TOML job file parsed as
// "/jobs/fuzz.toml"; set: the rest is canonical JSON for JobSpec::FromJson.
// Checks: no crash; a TOML error names the file; an accepted spec survives its canonical JSON
// (FromJson(ToJson(x)).ToJson() == ToJson(x)).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tokenmill/job/job_spec.h"

namespace {

int FuzzJobSpec(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool json = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  tokenmill::StatusOr<tokenmill::JobSpec> spec =
      json ? tokenmill::JobSpec::FromJson(text) : tokenmill::ParseJobSpec(text, "/jobs/fuzz.toml");
  if (!spec.ok()) {
    if (!json && spec.status().message().find("fuzz.toml") == std::string::npos) std::abort();
    return 0;
  }
  const std::string canonical = spec->ToJson();
  tokenmill::StatusOr<tokenmill::JobSpec> again = tokenmill::JobSpec::FromJson(canonical);
  if (!again.ok() || again->ToJson() != canonical) std::abort();
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzJobSpec(data, size);
}
