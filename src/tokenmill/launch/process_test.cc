#include "tokenmill/launch/process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include "tokenmill/launch/test_util.h"

namespace tokenmill::launch {
namespace {

using testing::TempDir;

TEST(RunProcessTest, CollectsOutputAndExitCode) {
  auto r = RunProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->out, "out\n");
  EXPECT_EQ(r->err, "err\n");
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(r->Describe(), "exit code 3");
}

TEST(RunProcessTest, FeedsStdinLargerThanAPipe) {
  std::string input(1 << 20, 'x');
  input += "\nend\n";
  RunOptions options;
  options.stdin_data = input;
  auto r = RunProcess({"cat"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->out, input);
}

TEST(RunProcessTest, SurvivesAProgramThatIgnoresItsInput) {
  RunOptions options;
  options.stdin_data = std::string(4 << 20, 'y');
  auto r = RunProcess({"true"}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
}

TEST(RunProcessTest, EnvironmentOverridesAndWorkingDir) {
  TempDir dir;
  RunOptions options;
  options.env_overrides = {"TM_LAUNCH_TEST_VALUE=hello world"};
  options.working_dir = dir.path();
  auto r = RunProcess({"sh", "-c", "printf '%s|%s' \"$TM_LAUNCH_TEST_VALUE\" \"$(pwd)\""}, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, "hello world|" + dir.path());
}

TEST(RunProcessTest, ReportsASignal) {
  auto r = RunProcess({"sh", "-c", "kill -TERM $$"});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_EQ(r->term_signal, SIGTERM);
  EXPECT_EQ(r->Describe(), "killed by SIGTERM");
}

TEST(RunProcessTest, MissingProgramIsNotFound) {
  auto r = RunProcess({"tokenmill-no-such-program-xyz"});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().Is(StatusCode::kNotFound));
  EXPECT_NE(r.status().message().find("tokenmill-no-such-program-xyz"), std::string::npos);
}

TEST(FindExecutableTest, FindsOnPathAndByPath) {
  std::string sh = FindExecutable("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_EQ(sh[0], '/');
  EXPECT_EQ(FindExecutable(sh), sh);
  EXPECT_EQ(FindExecutable("tokenmill-no-such-program-xyz"), "");
  EXPECT_EQ(FindExecutable("/etc/hostname-does-not-exist"), "");
}

TEST(SelfExecutablePathTest, IsAbsolute) {
  auto p = SelfExecutablePath();
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0], '/');
  EXPECT_NE(p->find("launch_test"), std::string::npos);
}

TEST(ShellQuoteTest, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(ShellQuote("gs://bucket/job-1"), "gs://bucket/job-1");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$HOME"), "'$HOME'");
  EXPECT_EQ(ShellCommandLine({"gcloud", "x y", "--a=b"}), "gcloud 'x y' --a=b");
}

TEST(ShellQuoteTest, RoundTripsThroughAShell) {
  const std::string nasty = "a 'b' \"c\" $d `e` \\f\n!g *";
  auto r = RunProcess({"sh", "-c", "printf '%s' " + ShellQuote(nasty)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out, nasty);
}

}  // namespace
}  // namespace tokenmill::launch
