// A small ELECTRA job (SmallElectraJob) planned in its own store, for tests of workers.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tokenmill/job/job_spec.h"
#include "tokenmill/job/planner.h"
#include "tokenmill/testing/small_job.h"

namespace tokenmill::testing {

// Plans a job of `files` small files in `dir`, one task each; returns its store ("" on failure,
// which the test is told of).
inline std::string PlanSmallJob(const std::string& dir, int files) {
  const std::string toml = SmallElectraJob(dir, files, 300);
  auto spec = ParseJobSpec(toml, "job.toml");
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  if (!spec.ok()) return "";
  auto plan = PlanJob(*spec, {});
  EXPECT_TRUE(plan.ok()) << plan.status().ToString();
  return plan.ok() ? plan->store : "";
}

}  // namespace tokenmill::testing
