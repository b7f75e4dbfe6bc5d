#include "tokenmill/job/record_checks.h"

#include <gtest/gtest.h>

#include "tokenmill/base/sha256.h"

namespace tokenmill {
namespace {

JobSpec Spec() {
  JobSpec spec;
  spec.input_paths = {"/data/in/*.txt", "/data/extra/one.jsonl", "s3://corpus/web/part-??.txt"};
  return spec;
}

TaskDef Task(std::string url, uint64_t begin = 0, uint64_t end = 10, uint64_t size = 10) {
  TaskDef t;
  t.id = 3;
  t.url = std::move(url);
  t.begin = begin;
  t.end = end;
  t.size = size;
  return t;
}

TEST(RecordChecks, TasksOfTheDeclaredInputsPass) {
  const JobSpec spec = Spec();
  for (const char* url :
       {"/data/in/a.txt", "/data/extra/one.jsonl", "s3://corpus/web/part-07.txt"}) {
    EXPECT_TRUE(CheckTaskInJob(spec, Task(url), "tasks.jsonl").ok()) << url;
  }
  EXPECT_TRUE(CheckTaskInJob(spec, Task("/data/in/a.txt", 4, 8, 8), "t").ok());
}

TEST(RecordChecks, TasksOutsideTheJobAreRefused) {
  const JobSpec spec = Spec();
  for (const char* url :
       {"/etc/passwd", "/data/in/../../etc/passwd.txt", "/data/in/./a.txt", "/data/in//a.txt",
        "/data/in/sub/a.txt", "s3://other-bucket/web/part-07.txt",
        "s3://corpus/web/../x/part-07.txt", "gs://corpus/web/part-07.txt", "relative/a.txt",
        "/data/extra/one.jsonl.bak", "s3://corpus"}) {
    Status s = CheckTaskInJob(spec, Task(url), "/store/tasks.jsonl");
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << url;
    EXPECT_NE(s.message().find("/store/tasks.jsonl: task 3"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("edited by hand"), std::string::npos) << s.message();
  }
  EXPECT_EQ(CheckTaskInJob(spec, Task("/data/in/a.txt", 8, 4, 10), "t").code(),
            StatusCode::kDataLoss);
  EXPECT_EQ(CheckTaskInJob(spec, Task("/data/in/a.txt", 0, 11, 10), "t").code(),
            StatusCode::kDataLoss);
}

TEST(RecordChecks, FollowingInputsAreCheckedLikeTheFirst) {
  JobSpec spec = Spec();
  TaskDef task = Task("/data/in/a.txt");
  task.following = {{"/data/in/b.txt", 5, false}, {"s3://corpus/web/part-01.txt", 9, false}};
  // Only the single task of a compat = "google" job reads several inputs.
  Status s = CheckTaskInJob(spec, task, "t");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("only the task of an [examples] compat = \"google\" job"),
            std::string::npos)
      << s.message();
  spec.examples.google_compat = true;
  EXPECT_TRUE(CheckTaskInJob(spec, task, "t").ok());
  for (const char* url : {"/etc/passwd", "/data/in/../x.txt", "s3://other/web/part-01.txt"}) {
    TaskDef bad = task;
    bad.following[1].url = url;
    s = CheckTaskInJob(spec, bad, "/store/tasks.jsonl");
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << url;
    EXPECT_NE(s.message().find(std::string("following input ") + url), std::string::npos)
        << s.message();
  }
}

TEST(RecordChecks, JobRecordDigestAndTokenizerNames) {
  JobRecord job;
  job.spec_json = "{\"x\":1}";
  job.spec_digest = Sha256Hex(job.spec_json);
  job.tokenizer_files = {TokenizerFileRecord{"vocab", "vocab.txt", 10, "ab"}};
  EXPECT_TRUE(CheckJobRecord(job, "job.json").ok());
  JobRecord edited = job;
  edited.spec_json = "{\"x\":2}";
  EXPECT_EQ(CheckJobRecord(edited, "job.json").code(), StatusCode::kDataLoss);
  for (const char* name : {"../../etc/passwd", "a/b", "..", ".", ""}) {
    JobRecord bad = job;
    bad.tokenizer_files[0].name = name;
    Status s = CheckJobRecord(bad, "/store/job.json");
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << name;
    EXPECT_NE(s.message().find("/store/job.json"), std::string::npos);
  }
  JobRecord bad_role = job;
  bad_role.tokenizer_files[0].role = "../x";
  EXPECT_EQ(CheckJobRecord(bad_role, "job.json").code(), StatusCode::kDataLoss);
  JobRecord gpt = job;
  gpt.special_ids_known = true;
  gpt.bos_id = -1;
  gpt.eod_id = 100257;
  EXPECT_TRUE(CheckJobRecord(gpt, "job.json").ok());
  for (const int64_t id : {int64_t{-2}, int64_t{1} << 32}) {
    JobRecord bad_id = gpt;
    bad_id.eod_id = id;
    Status s = CheckJobRecord(bad_id, "/store/job.json");
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << id;
    EXPECT_NE(s.message().find("special id"), std::string::npos);
  }
}

ShardEntry Shard(const char* name) {
  ShardEntry s;
  s.name = name;
  return s;
}

TEST(RecordChecks, DoneRecordsNameOnlyTheirTasksShards) {
  DoneRecord done;
  done.task = 12;
  done.shards = {Shard("part-000012-000.tfrecord"), Shard("part-000012-001.bin"),
                 Shard("part-000012-001.idx")};
  EXPECT_TRUE(CheckDoneRecordInJob(done, 12, "done/000012.json").ok());
  DoneRecord big;
  big.shards = {Shard("part-1234567-002.bin")};
  EXPECT_TRUE(CheckDoneRecordInJob(big, 1234567, "d").ok());
  for (const char* name : {"part-000013-000.tfrecord", "../part-000012-000.tfrecord", "/etc/passwd",
                           "sub/part-000012-000.bin", "part-000012-000", "part-000012-0000.bin",
                           "manifest.json", "part-000012-00x.bin", ""}) {
    DoneRecord bad;
    bad.shards = {Shard(name)};
    Status s = CheckDoneRecordInJob(bad, 12, "/store/done/000012.json");
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << name;
    EXPECT_NE(s.message().find("/store/done/000012.json"), std::string::npos) << s.message();
  }
}

// Found by job_records_fuzz: a number beyond an integer's range was converted from a double
// (undefined behaviour). Every number of a record must be an integer.
TEST(RecordChecks, NonIntegerNumbersInRecordsAreRefused) {
  for (
      const char* json :
      {R"({"id":3,"url":"/data/in/a.txt","begin":0,"end":77777777777777777777777777777,"size":10})",
       R"({"id":3.5,"url":"/data/in/a.txt","begin":0,"end":1,"size":10})",
       R"({"id":3,"url":"/data/in/a.txt","begin":1e3,"end":1,"size":10})"}) {
    auto t = TaskDefFromJson(json);
    EXPECT_EQ(t.status().code(), StatusCode::kDataLoss) << json;
    EXPECT_NE(t.status().message().find("not an integer"), std::string::npos) << json;
  }
  auto lease = LeaseRecordFromJson(R"({"task":1,"expires_at_ms":1.7e300})");
  EXPECT_EQ(lease.status().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(TaskDefFromJson(R"({"id":3,"url":"/d/a.txt","begin":0,"end":1,"size":10})").ok());
}

}  // namespace
}  // namespace tokenmill
