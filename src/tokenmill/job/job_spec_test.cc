#include "tokenmill/job/job_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenmill/io/document_reader.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill {
namespace {

using ::testing::HasSubstr;

constexpr char kMinimal[] = R"(
[input]
paths = ["corpus/*.txt"]
[tokenizer]
path = "vocab.txt"
[output]
path = "out"
)";

// Parses `toml` as /jobs/x/job.toml.
StatusOr<JobSpec> Parse(const std::string& toml) { return ParseJobSpec(toml, "/jobs/x/job.toml"); }

// The error message of parsing `toml` as "job.toml" (relative: resolved against the cwd).
std::string Error(const std::string& toml) {
  auto spec = ParseJobSpec(toml, "job.toml");
  EXPECT_FALSE(spec.ok()) << toml;
  if (spec.ok()) return "";
  EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
  return spec.status().message();
}

// kMinimal with `extra` appended inside table `table` (added at the end as a new table header
// if the table is not in kMinimal).
std::string With(const std::string& table, const std::string& extra) {
  std::string base = kMinimal;
  const std::string header = "[" + table + "]\n";
  const size_t at = base.find(header);
  if (at == std::string::npos) return base + header + extra + "\n";
  base.insert(at + header.size(), extra + "\n");
  return base;
}

TEST(JobSpec, MinimalFileTakesTheDefaults) {
  auto spec = Parse(kMinimal);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->input_paths, std::vector<std::string>{"/jobs/x/corpus/*.txt"});
  EXPECT_EQ(spec->reader.format, InputFormat::kText);
  EXPECT_EQ(spec->reader.text_field, "text");
  EXPECT_FALSE(spec->reader.strict_utf8);
  EXPECT_FALSE(spec->reader.skip_bad_records);
  EXPECT_EQ(spec->reader.invalid_utf8, InvalidUtf8::kDrop);
  EXPECT_EQ(spec->tokenizer.path, "/jobs/x/vocab.txt");
  EXPECT_FALSE(spec->tokenizer.merges.has_value());
  EXPECT_FALSE(spec->tokenizer.encoding.has_value());
  EXPECT_FALSE(spec->tokenizer.lowercase.has_value());
  EXPECT_FALSE(spec->tokenizer.strip_accents.has_value());
  EXPECT_FALSE(spec->tokenizer.handle_chinese_chars.has_value());
  EXPECT_FALSE(spec->tokenizer.clean_text.has_value());
  EXPECT_FALSE(spec->tokenizer.max_input_chars_per_word.has_value());
  EXPECT_TRUE(spec->tokenizer.split_special_tokens);
  EXPECT_EQ(spec->tokenizer.compat, CompatMode::kHuggingFace);
  EXPECT_EQ(spec->examples.kind, ExampleKind::kElectra);
  EXPECT_EQ(spec->examples.max_seq_length, 128u);
  EXPECT_EQ(spec->examples.seed, 12345u);
  EXPECT_TRUE(spec->examples.append_eod);
  EXPECT_FALSE(spec->examples.eod_first);
  EXPECT_FALSE(spec->examples.eod_token.has_value());
  EXPECT_EQ(spec->output.path, "/jobs/x/out");
  EXPECT_EQ(spec->output.format, OutputFormat::kTfRecord);
  EXPECT_EQ(spec->output.shard_size, 256ull << 20);
  EXPECT_EQ(spec->job.task_size, 64ull << 20);
  EXPECT_EQ(spec->job.store, "/jobs/x/out/_job");
  EXPECT_EQ(spec->job.lease_seconds, 60u);
  EXPECT_EQ(spec->job.max_attempts, 3u);
  EXPECT_EQ(spec->job.max_expiries, 10u);
}

TEST(JobSpec, EveryKey) {
  auto spec = Parse(R"(
[input]
paths = ["data/sample-jsonl/*.jsonl", "s3://bucket/corpus/*.jsonl.gz"]
format = "jsonl"
text_field = "body.text"
strict_utf8 = true
on_bad_record = "skip"
[tokenizer]
path = "gpt2/encoder.json"
merges = "gpt2/vocab.bpe"
encoding = "gpt2"
lowercase = false
strip_accents = true
handle_chinese_chars = false
clean_text = false
max_input_chars_per_word = 200
split_special_tokens = false
compat = "google-electra"
[examples]
kind = "gpt"
seed = 7
append_eod = false
eod_token = "<|endoftext|>"
prepend_bos = true
bos_token = "<s>"
[output]
path = "gs://b/out/"
format = "llmc"
shard_size = "1.5 GB"
[job]
task_size = 1048576
store = "file:///shared/store"
lease_seconds = 3
max_attempts = 1
max_expiries = 1
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->input_paths, (std::vector<std::string>{"/jobs/x/data/sample-jsonl/*.jsonl",
                                                         "s3://bucket/corpus/*.jsonl.gz"}));
  EXPECT_EQ(spec->reader.format, InputFormat::kJsonl);
  EXPECT_EQ(spec->reader.text_field, "body.text");
  EXPECT_TRUE(spec->reader.strict_utf8);
  EXPECT_TRUE(spec->reader.skip_bad_records);
  EXPECT_EQ(spec->tokenizer.path, "/jobs/x/gpt2/encoder.json");
  EXPECT_EQ(spec->tokenizer.merges, "/jobs/x/gpt2/vocab.bpe");
  EXPECT_EQ(spec->tokenizer.encoding, "gpt2");
  EXPECT_EQ(spec->tokenizer.lowercase, false);
  EXPECT_EQ(spec->tokenizer.strip_accents, true);
  EXPECT_EQ(spec->tokenizer.handle_chinese_chars, false);
  EXPECT_EQ(spec->tokenizer.clean_text, false);
  EXPECT_EQ(spec->tokenizer.max_input_chars_per_word, 200);
  EXPECT_FALSE(spec->tokenizer.split_special_tokens);
  EXPECT_EQ(spec->tokenizer.compat, CompatMode::kGoogleElectra);
  EXPECT_EQ(spec->examples.kind, ExampleKind::kGpt);
  EXPECT_EQ(spec->examples.seed, 7u);
  EXPECT_FALSE(spec->examples.append_eod);
  EXPECT_EQ(spec->examples.eod_token, "<|endoftext|>");
  EXPECT_TRUE(spec->examples.prepend_bos);
  EXPECT_EQ(spec->examples.bos_token, "<s>");
  EXPECT_TRUE(spec->examples.eod_first);  // llm.c puts <|endoftext|> before each document
  EXPECT_EQ(spec->output.path, "gs://b/out/");
  EXPECT_EQ(spec->output.format, OutputFormat::kLlmc);
  EXPECT_EQ(spec->output.shard_size, 1500000000u);
  EXPECT_EQ(spec->job.task_size, 1048576u);
  EXPECT_EQ(spec->job.store, "file:///shared/store");
  EXPECT_EQ(spec->job.lease_seconds, 3u);
  EXPECT_EQ(spec->job.max_attempts, 1u);
  EXPECT_EQ(spec->job.max_expiries, 1u);
}

TEST(JobSpec, GptDefaultsToMegatron) {
  auto spec = Parse(With("examples", "kind = \"gpt\""));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->output.format, OutputFormat::kMegatron);
  EXPECT_FALSE(spec->examples.eod_first);
  EXPECT_TRUE(spec->examples.append_eod);
}

TEST(JobSpec, PathsAreResolvedAndNormalised) {
  auto spec = Parse(R"(
input.paths = "../data/./sample/*.txt"
tokenizer = { path = "./vocab//bert/../bert/vocab.txt" }
[output]
path = "/abs/out/../out2/"
[job]
store = "store/"
)");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->input_paths, std::vector<std::string>{"/jobs/data/sample/*.txt"});
  EXPECT_EQ(spec->tokenizer.path, "/jobs/x/vocab/bert/vocab.txt");
  EXPECT_EQ(spec->output.path, "/abs/out2");
  EXPECT_EQ(spec->job.store, "/jobs/x/store");

  // A relative job file name: against the current folder.
  auto rel = ParseJobSpec(kMinimal, "sub/job.toml");
  ASSERT_TRUE(rel.ok()) << rel.status().ToString();
  const std::string cwd = std::filesystem::current_path().lexically_normal().generic_string();
  EXPECT_EQ(rel->tokenizer.path, cwd + "/sub/vocab.txt");
  EXPECT_EQ(rel->job.store, cwd + "/sub/out/_job");

  // A job file read from a bucket: relative paths stay in the bucket.
  auto url = ParseJobSpec(R"(
[input]
paths = ["../data/*.txt", "gs://other/x.txt"]
[tokenizer]
path = "vocab.txt"
[output]
path = "../../../out"
)",
                          "s3://bucket/jobs/a/job.toml");
  ASSERT_TRUE(url.ok()) << url.status().ToString();
  EXPECT_EQ(url->input_paths,
            (std::vector<std::string>{"s3://bucket/jobs/data/*.txt", "gs://other/x.txt"}));
  EXPECT_EQ(url->tokenizer.path, "s3://bucket/jobs/a/vocab.txt");
  EXPECT_EQ(url->output.path, "s3://bucket/out");
  EXPECT_EQ(url->job.store, "s3://bucket/out/_job");
}

TEST(JobSpec, UnsupportedUrlScheme) {
  EXPECT_EQ(Error("[input]\npaths = [\"a\"]\n[tokenizer]\npath = \"v\"\n[output]\n"
                  "path = \"http://host/out\"\n"),
            "job.toml:6: [output] path: unsupported URL scheme 'http' in \"http://host/out\"; "
            "use a local path, s3://, gs:// or file://");
}

TEST(JobSpec, SyntaxErrorNamesFileLineAndColumn) {
  const std::string e = Error("[input]\npaths = [\"a\"]\nformat = text\n");
  EXPECT_THAT(e, HasSubstr("job.toml:3:"));
  EXPECT_THAT(e, HasSubstr("TOML syntax error"));
  EXPECT_THAT(Error("[input]\npaths = [\"a\"]\npaths = [\"b\"]\n"), HasSubstr("job.toml:3:"));
}

TEST(JobSpec, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(Error(R"(
[input]
paths = ["a"]
[tokenizer]
path = "v"
[examples]
max_seq_len = 128
[output]
path = "o"
)"),
            "job.toml:7: unknown key 'max_seq_len' in [examples]; did you mean 'max_seq_length'?");
  EXPECT_EQ(Error(With("input", "pahts = [\"b\"]")),
            "job.toml:3: unknown key 'pahts' in [input]; did you mean 'paths'?");
  EXPECT_EQ(Error(With("tokenizer", "Lowercase = true")),
            "job.toml:5: unknown key 'Lowercase' in [tokenizer]; did you mean 'lowercase'?");
  EXPECT_EQ(Error(With("job", "seed = 1")),
            "job.toml:9: unknown key 'seed' in [job]; it belongs in [examples]");
  EXPECT_EQ(Error(With("output", "compression = \"zstd\"")),
            "job.toml:7: unknown key 'compression' in [output]; the keys of [output] are path, "
            "format, shard_size");
  // A nested table is an unknown key too.
  EXPECT_EQ(Error(std::string(kMinimal) + "[input.extra]\nx = 1\n"),
            "job.toml:8: unknown key 'extra' in [input]; the keys of [input] are paths, format, "
            "text_field, strict_utf8, on_bad_record, sentences");
}

TEST(JobSpec, UnknownTablesAndTopLevelKeys) {
  EXPECT_EQ(Error(std::string(kMinimal) + "[exmaples]\nseed = 1\n"),
            "job.toml:8: unknown table [exmaples]; did you mean [examples]?");
  EXPECT_EQ(Error(std::string(kMinimal) + "[server]\nport = 1\n"),
            "job.toml:8: unknown table [server]; the tables are [input], [tokenizer], "
            "[examples], [output], [job]");
  EXPECT_EQ(Error("seed = 3\n" + std::string(kMinimal)),
            "job.toml:1: unknown key 'seed' at the top level; it belongs in [examples]");
  EXPECT_THAT(Error("verbose = true\n" + std::string(kMinimal)),
              HasSubstr("job.toml:1: unknown key 'verbose' at the top level; keys belong in one "
                        "of the tables"));
  EXPECT_THAT(Error("[[input]]\npaths = [\"a\"]\n"),
              HasSubstr("job.toml:1: [input] must be a table, not an array"));
  EXPECT_THAT(Error("input = \"a\"\n"),
              HasSubstr("job.toml:1: [input] must be a table, not a string"));
}

TEST(JobSpec, WrongTypesNameKeyAndLine) {
  EXPECT_EQ(Error(With("examples", "max_seq_length = \"128\"")),
            "job.toml:9: [examples] max_seq_length must be an integer, not a string");
  EXPECT_EQ(Error(With("examples", "seed = 1.5")),
            "job.toml:9: [examples] seed must be an integer, not a floating-point number");
  EXPECT_EQ(Error(With("tokenizer", "lowercase = \"yes\"")),
            "job.toml:5: [tokenizer] lowercase must be true or false, not a string");
  EXPECT_EQ(Error(With("input", "strict_utf8 = 1")),
            "job.toml:3: [input] strict_utf8 must be true or false, not an integer");
  EXPECT_EQ(Error(With("output", "shard_size = true")),
            "job.toml:7: [output] shard_size must be a size (bytes, or a string such as "
            "\"64MiB\"), not a boolean");
  EXPECT_EQ(Error(With("job", "store = 1979-05-27")),
            "job.toml:9: [job] store must be a string, not a date");
  EXPECT_EQ(Error("[input]\npaths = 3\n[tokenizer]\npath = \"v\"\n[output]\npath = \"o\"\n"),
            "job.toml:2: [input] paths must be an array of strings or a string, not an integer");
  EXPECT_EQ(Error("[input]\npaths = [\"a\",\n  2]\n[tokenizer]\npath = \"v\"\n"
                  "[output]\npath = \"o\"\n"),
            "job.toml:3: [input] paths[1] must be a string, not an integer");
  EXPECT_EQ(Error("[input]\npaths = [\"a\"]\n[tokenizer]\npath = [\"v\"]\n"
                  "[output]\npath = \"o\"\n"),
            "job.toml:4: [tokenizer] path must be a string, not an array");
}

TEST(JobSpec, RequiredKeys) {
  EXPECT_EQ(Error("[tokenizer]\npath = \"v\"\n[output]\npath = \"o\"\n"),
            "job.toml: missing table [input]; add it with its required key: [input] paths = "
            "[\"corpus/*.txt\"]");
  EXPECT_EQ(Error("[input]\nformat = \"text\"\n[tokenizer]\npath = \"v\"\n[output]\npath = "
                  "\"o\"\n"),
            "job.toml:1: [input] has no paths, which is required; add paths = "
            "[\"corpus/*.txt\"]");
  EXPECT_EQ(Error("[input]\npaths = [\"a\"]\n[tokenizer]\nlowercase = true\n[output]\npath = "
                  "\"o\"\n"),
            "job.toml:3: [tokenizer] has no path, which is required; add path = "
            "\"vocab/vocab.txt\"");
  EXPECT_EQ(Error("[input]\npaths = [\"a\"]\n[tokenizer]\npath = \"v\"\n"),
            "job.toml: missing table [output]; add it with its required key: [output] path = "
            "\"out/my-dataset\"");
  EXPECT_EQ(Error("[input]\npaths = []\n[tokenizer]\npath = \"v\"\n[output]\npath = \"o\"\n"),
            "job.toml:2: [input] paths must list at least one input path or pattern");
  EXPECT_EQ(Error("[input]\npaths = [\"\"]\n[tokenizer]\npath = \"v\"\n[output]\npath = "
                  "\"o\"\n"),
            "job.toml:2: [input] paths must not be empty");
  EXPECT_EQ(Error("[input]\npaths = [\"a\"]\n[tokenizer]\npath = \"\"\n[output]\npath = \"o\"\n"),
            "job.toml:4: [tokenizer] path must not be empty");
  EXPECT_THAT(Error(""), HasSubstr("missing table [input]"));
}

TEST(JobSpec, BadValues) {
  EXPECT_EQ(Error(With("input", "format = \"csv\"")),
            "job.toml:3: [input] format must be \"text\", \"jsonl\", \"json\" or \"parquet\", not "
            "\"csv\"");
  EXPECT_EQ(Error(With("input", "format = \"jsonl\"\non_bad_record = \"ignore\"")),
            "job.toml:4: [input] on_bad_record must be \"error\" or \"skip\", not \"ignore\"");
  EXPECT_EQ(Error(With("input", "format = \"jsonl\"\ntext_field = \"\"")),
            "job.toml:4: [input] text_field must not be empty");
  EXPECT_EQ(Error(With("tokenizer", "compat = \"hf\"")),
            "job.toml:5: [tokenizer] compat must be \"huggingface\", \"google-bert\" or "
            "\"google-electra\", not \"hf\"");
  EXPECT_EQ(Error(With("tokenizer", "max_input_chars_per_word = 0")),
            "job.toml:5: [tokenizer] max_input_chars_per_word must be between 1 and 2147483647, "
            "not 0");
  EXPECT_EQ(Error(With("examples", "kind = \"bart\"")),
            "job.toml:9: [examples] kind must be \"electra\", \"bert\" or \"gpt\", not \"bart\"");
  EXPECT_EQ(Error(With("examples", "max_seq_length = 4")),
            "job.toml:9: [examples] max_seq_length must be between 5 and 1048576, not 4");
  EXPECT_EQ(Error(With("examples", "max_seq_length = 1048577")),
            "job.toml:9: [examples] max_seq_length must be between 5 and 1048576, not 1048577");
  EXPECT_EQ(Error(With("examples", "seed = -1")),
            "job.toml:9: [examples] seed must be at least 0, not -1");
  EXPECT_EQ(Error(With("examples", "kind = \"gpt\"\neod_token = \"\"")),
            "job.toml:10: [examples] eod_token must not be empty");
  EXPECT_EQ(Error(With("output", "format = \"parquet\"")),
            "job.toml:7: [output] format must be \"tfrecord\", \"megatron\" or \"llmc\", not "
            "\"parquet\"");
  EXPECT_EQ(Error(With("output", "shard_size = 0")),
            "job.toml:7: [output] shard_size must be greater than 0, not 0");
  EXPECT_EQ(Error(With("output", "shard_size = -5")),
            "job.toml:7: [output] shard_size must be greater than 0, not -5");
  EXPECT_EQ(Error(With("output", "shard_size = \"0MiB\"")),
            "job.toml:7: [output] shard_size must be greater than 0");
  EXPECT_THAT(Error(With("job", "task_size = \"64 parsecs\"")),
              HasSubstr("job.toml:9: [job] task_size: unknown size unit in '64 parsecs'"));
  EXPECT_THAT(Error(With("job", "task_size = \"lots\"")),
              HasSubstr("job.toml:9: [job] task_size: 'lots' is not a size"));
  EXPECT_EQ(Error(With("job", "lease_seconds = 2")),
            "job.toml:9: [job] lease_seconds must be between 3 and 4294967295, not 2");
  EXPECT_EQ(Error(With("job", "max_attempts = 0")),
            "job.toml:9: [job] max_attempts must be between 1 and 4294967295, not 0");
  EXPECT_EQ(Error(With("job", "max_expiries = 0")),
            "job.toml:9: [job] max_expiries must be between 1 and 4294967295, not 0");
  EXPECT_EQ(Error(With("job", "max_attempts = 4294967296")),
            "job.toml:9: [job] max_attempts must be between 1 and 4294967295, not 4294967296");
}

TEST(JobSpec, KindAndFormatMustMatch) {
  EXPECT_EQ(Error(With("output", "format = \"megatron\"")),
            "job.toml:7: [output] format \"megatron\" cannot hold electra examples; use "
            "\"tfrecord\" (or set [examples] kind = \"gpt\")");
  EXPECT_EQ(Error(With("output", "format = \"llmc\"")),
            "job.toml:7: [output] format \"llmc\" cannot hold electra examples; use \"tfrecord\" "
            "(or set [examples] kind = \"gpt\")");
  EXPECT_EQ(Error(With("output", "format = \"tfrecord\"") + "[examples]\nkind = \"gpt\"\n"),
            "job.toml:7: [output] format \"tfrecord\" cannot hold gpt examples; use \"megatron\" "
            "or \"llmc\" (or set [examples] kind = \"electra\")");
  EXPECT_TRUE(Parse(With("output", "format = \"tfrecord\"")).ok());
  EXPECT_TRUE(Parse(With("output", "format = \"megatron\"") + "[examples]\nkind = \"gpt\"\n").ok());
}

TEST(JobSpec, KeysOfTheOtherKindAreErrors) {
  EXPECT_EQ(Error(With("examples", "append_eod = false")),
            "job.toml:9: [examples] append_eod applies only to kind = \"gpt\"; remove it");
  EXPECT_EQ(Error(With("examples", "eod_token = \"[SEP]\"")),
            "job.toml:9: [examples] eod_token applies only to kind = \"gpt\"; remove it");
  EXPECT_EQ(Error(With("examples", "kind = \"gpt\"\nmax_seq_length = 1024")),
            "job.toml:10: [examples] max_seq_length applies only to kind = \"electra\" or "
            "\"bert\"; remove it");
  EXPECT_EQ(Error(With("input", "text_field = \"body\"")),
            "job.toml:3: [input] text_field applies only to format = \"jsonl\", \"json\" or "
            "\"parquet\"; remove it");
  EXPECT_EQ(Error(With("input", "on_bad_record = \"skip\"")),
            "job.toml:3: [input] on_bad_record applies only to format = \"jsonl\", \"json\" or "
            "\"parquet\"; remove it");
}

constexpr char kCanonicalMinimal[] =
    R"({"examples":{"append_eod":true,"eod_first":false,"eod_token":null,"kind":"electra",)"
    R"("max_seq_length":128,"seed":12345},"input":{"format":"text","invalid_utf8":"drop",)"
    R"("on_bad_record":"error","paths":["/jobs/x/corpus/*.txt"],"strict_utf8":false,)"
    R"("text_field":"text"},"job":{"lease_seconds":60,"max_attempts":3,"max_expiries":10,)"
    R"("store":"/jobs/x/out/_job","task_size":67108864},"output":{"format":"tfrecord",)"
    R"("path":"/jobs/x/out","shard_size":268435456},"tokenizer":{"clean_text":null,)"
    R"("compat":"huggingface","encoding":null,"handle_chinese_chars":null,"lowercase":null,)"
    R"("max_input_chars_per_word":null,"merges":null,"path":"/jobs/x/vocab.txt",)"
    R"("split_special_tokens":true,"strip_accents":null}})";

TEST(JobSpecJson, CanonicalForm) {
  auto spec = Parse(kMinimal);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->ToJson(), kCanonicalMinimal);
  // The same job written differently gives the same bytes.
  auto same = Parse(R"(
[output]
shard_size = "256MiB"
path = "./out/"
[tokenizer]
compat = "huggingface"
path = "vocab.txt"
[input]
paths = "corpus/*.txt"
format = "text"
[job]
task_size = 67108864
)");
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(same->ToJson(), kCanonicalMinimal);
}

TEST(JobSpecJson, RoundTrip) {
  for (const std::string& toml :
       {std::string(kMinimal), With("examples", "kind = \"gpt\"\neod_token = \"[SEP]\""),
        With("tokenizer",
             "lowercase = true\nstrip_accents = false\nhandle_chinese_chars = true\n"
             "clean_text = false\nmax_input_chars_per_word = 100\nmerges = \"m.bpe\"\n"
             "encoding = \"cl100k_base\"\nsplit_special_tokens = false\ncompat = \"google-bert\""),
        std::string(R"(
[input]
paths = ["a.jsonl"]
format = "jsonl"
text_field = "a.b"
on_bad_record = "skip"
strict_utf8 = true
[tokenizer]
path = "cl100k_base.tiktoken"
[examples]
kind = "gpt"
seed = 9223372036854775807
append_eod = false
[output]
path = "out"
format = "llmc"
shard_size = 1
[job]
task_size = "1KiB"
store = "s3://bucket/store"
lease_seconds = 3600
max_attempts = 10
max_expiries = 100
)")}) {
    auto spec = Parse(toml);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString() << "\n" << toml;
    const std::string json = spec->ToJson();
    auto back = JobSpec::FromJson(json);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->ToJson(), json);
  }
  // Fields the job layer sets survive too.
  auto spec = Parse(kMinimal);
  ASSERT_TRUE(spec.ok());
  spec->reader.invalid_utf8 = InvalidUtf8::kReplace;
  spec->examples.seed = UINT64_MAX;
  auto back = JobSpec::FromJson(spec->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->reader.invalid_utf8, InvalidUtf8::kReplace);
  EXPECT_EQ(back->examples.seed, UINT64_MAX);
  EXPECT_EQ(back->ToJson(), spec->ToJson());
}

TEST(JobSpecJson, Errors) {
  auto fails = [](const std::string& json, const std::string& what) {
    auto spec = JobSpec::FromJson(json);
    ASSERT_FALSE(spec.ok()) << json;
    EXPECT_EQ(spec.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(spec.status().message(), HasSubstr(what)) << json;
  };
  auto edit = [](const std::function<void(nlohmann::json&)>& f) {
    nlohmann::json j = nlohmann::json::parse(kCanonicalMinimal);
    f(j);
    return j.dump();
  };
  fails("{", "job spec JSON: not valid JSON");
  fails("[]", "not a JSON object");
  fails(edit([](auto& j) { j.erase("job"); }), "missing table \"job\"");
  fails(edit([](auto& j) { j["extra"] = nlohmann::json::object(); }), "unknown table \"extra\"");
  fails(edit([](auto& j) { j["input"] = 3; }), "\"input\" is not an object");
  fails(edit([](auto& j) { j["input"].erase("paths"); }), "missing key \"input.paths\"");
  fails(edit([](auto& j) { j["output"]["zip"] = true; }), "unknown key \"output.zip\"");
  fails(edit([](auto& j) { j["input"]["paths"] = "a"; }),
        "\"input.paths\" must be an array of strings");
  fails(edit([](auto& j) { j["examples"]["seed"] = -1; }),
        "\"examples.seed\" must be a non-negative integer");
  fails(edit([](auto& j) { j["examples"]["max_seq_length"] = 1.5; }),
        "\"examples.max_seq_length\" must be a non-negative integer");
  fails(edit([](auto& j) { j["job"]["lease_seconds"] = 1ull << 40; }),
        "\"job.lease_seconds\" must be at most 4294967295");
  fails(edit([](auto& j) { j["tokenizer"]["lowercase"] = "yes"; }),
        "\"tokenizer.lowercase\" must be true, false or null");
  fails(edit([](auto& j) { j["tokenizer"]["merges"] = 1; }),
        "\"tokenizer.merges\" must be a string or null");
  fails(edit([](auto& j) { j["input"]["invalid_utf8"] = "keep"; }),
        "\"input.invalid_utf8\" has the unknown value \"keep\"");
  fails(edit([](auto& j) { j["output"]["format"] = "megatron"; }),
        "job spec JSON: [output] format \"megatron\" cannot hold electra examples");
  fails(edit([](auto& j) { j["job"]["lease_seconds"] = 2; }),
        "job spec JSON: [job] lease_seconds must be at least 3, not 2");
  fails(edit([](auto& j) { j["input"]["paths"] = nlohmann::json::array(); }),
        "[input] paths must list at least one input path");
}

using testing::TempDir;

TEST(LoadJobSpec, ReadsAFile) {
  TempDir dir;
  const std::string file = dir.path() + "/job.toml";
  std::ofstream(file) << kMinimal;
  auto spec = LoadJobSpec(file);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->tokenizer.path, dir.path() + "/vocab.txt");
  EXPECT_EQ(spec->input_paths, std::vector<std::string>{dir.path() + "/corpus/*.txt"});

  std::ofstream(file) << kMinimal << "[examples]\nmax_seq_len = 64\n";
  spec = LoadJobSpec(file);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(),
            file + ":9: unknown key 'max_seq_len' in [examples]; did you mean 'max_seq_length'?");
}

TEST(LoadJobSpec, MissingFileAndFolder) {
  TempDir dir;
  auto spec = LoadJobSpec(dir.path() + "/nope.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(spec.status().message(), HasSubstr(dir.path() + "/nope.toml not found"));
  spec = LoadJobSpec(dir.path());
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.status().message(), HasSubstr("is a folder"));
}

TEST(LoadJobSpec, ExampleJobFiles) {
  const std::string root = TOKENMILL_SOURCE_DIR;
  const std::filesystem::path repo = std::filesystem::path(root).lexically_normal();
  auto electra = LoadJobSpec(root + "/examples/electra-zh-en.toml");
  ASSERT_TRUE(electra.ok()) << electra.status().ToString();
  EXPECT_EQ(electra->examples.kind, ExampleKind::kElectra);
  EXPECT_EQ(electra->output.format, OutputFormat::kTfRecord);
  EXPECT_EQ(electra->tokenizer.path,
            (repo / "data/vocab/bert-base-chinese/vocab.txt").generic_string());
  EXPECT_EQ(electra->tokenizer.lowercase, true);
  EXPECT_EQ(electra->input_paths,
            (std::vector<std::string>{(repo / "data/sample/*.txt").generic_string(),
                                      (repo / "data/sample/*.txt.gz").generic_string()}));

  auto gpt = LoadJobSpec(root + "/examples/gpt-megatron.toml");
  ASSERT_TRUE(gpt.ok()) << gpt.status().ToString();
  EXPECT_EQ(gpt->examples.kind, ExampleKind::kGpt);
  EXPECT_EQ(gpt->output.format, OutputFormat::kMegatron);
  EXPECT_EQ(gpt->reader.format, InputFormat::kJsonl);
  EXPECT_EQ(gpt->tokenizer.path,
            (repo / "data/vocab/tiktoken/cl100k_base.tiktoken").generic_string());

  auto bert = LoadJobSpec(root + "/examples/bert-zh.toml");
  ASSERT_TRUE(bert.ok()) << bert.status().ToString();
  EXPECT_EQ(bert->examples.kind, ExampleKind::kBert);
  EXPECT_TRUE(bert->examples.chinese_whole_word);
  EXPECT_TRUE(bert->reader.split_sentences);
  EXPECT_EQ(bert->output.format, OutputFormat::kTfRecord);

  for (const JobSpec* spec : {&*electra, &*gpt, &*bert}) {
    auto back = JobSpec::FromJson(spec->ToJson());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->ToJson(), spec->ToJson());
    // The inputs they name exist in the repo.
    auto objects = ExpandGlobs(spec->input_paths);
    ASSERT_TRUE(objects.ok()) << objects.status().ToString();
    EXPECT_FALSE(objects->empty());
  }
}

// A bert job over one file.
constexpr char kBert[] = R"(
[input]
paths = ["corpus.txt"]
[tokenizer]
path = "vocab.txt"
[examples]
kind = "bert"
[output]
path = "out"
)";

std::string Bert(const std::string& extra) {
  std::string base = kBert;
  base.insert(base.find("kind = \"bert\"\n") + 14, extra + "\n");
  return base;
}

TEST(JobSpecBert, DefaultsAreThoseOfTheScript) {
  auto spec = Parse(kBert);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const ExampleOptions& ex = spec->examples;
  EXPECT_EQ(ex.kind, ExampleKind::kBert);
  EXPECT_EQ(ex.max_seq_length, 128u);
  EXPECT_EQ(ex.max_predictions_per_seq, 20u);
  EXPECT_EQ(ex.masked_lm_prob, 0.15);
  EXPECT_EQ(ex.short_seq_prob, 0.1);
  EXPECT_EQ(ex.dupe_factor, 10u);
  EXPECT_FALSE(ex.do_whole_word_mask);
  EXPECT_EQ(ex.seed, 12345u);
  EXPECT_EQ(ex.random_next_window, 1000u);
  EXPECT_FALSE(ex.google_compat);
  EXPECT_EQ(spec->output.format, OutputFormat::kTfRecord);
  EXPECT_EQ(spec->tokenizer.compat, CompatMode::kHuggingFace);
  EXPECT_EQ(spec->job.task_size, 64ull << 20);
}

TEST(JobSpecBert, EveryKey) {
  auto spec =
      Parse(Bert("max_seq_length = 64\nmax_predictions_per_seq = 10\nmasked_lm_prob = 0.2\n"
                 "short_seq_prob = 0\ndupe_factor = 2\ndo_whole_word_mask = true\nseed = 7\n"
                 "random_next_window = 50\nchinese_whole_word = true"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  const ExampleOptions& ex = spec->examples;
  EXPECT_EQ(ex.max_seq_length, 64u);
  EXPECT_EQ(ex.max_predictions_per_seq, 10u);
  EXPECT_EQ(ex.masked_lm_prob, 0.2);
  EXPECT_EQ(ex.short_seq_prob, 0.0);
  EXPECT_EQ(ex.dupe_factor, 2u);
  EXPECT_TRUE(ex.do_whole_word_mask);
  EXPECT_EQ(ex.seed, 7u);
  EXPECT_EQ(ex.random_next_window, 50u);
  EXPECT_TRUE(ex.chinese_whole_word);
}

TEST(JobSpecBert, GoogleCompatImpliesGoogleTokenizerAndOneTask) {
  auto spec = Parse(Bert("compat = \"google\"\ndupe_factor = 2"));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_TRUE(spec->examples.google_compat);
  EXPECT_EQ(spec->tokenizer.compat, CompatMode::kGoogleBert);
  EXPECT_EQ(spec->job.task_size, kGoogleCompatTaskSize);
  std::string explicit_compat = Bert("compat = \"google\"");
  explicit_compat.insert(explicit_compat.find("[examples]"), "compat = \"google-bert\"\n");
  EXPECT_TRUE(Parse(explicit_compat).ok());
}

TEST(JobSpecBert, BadValuesNameTheKey) {
  auto error = [](const std::string& toml) {
    auto spec = ParseJobSpec(toml, "job.toml");
    EXPECT_FALSE(spec.ok()) << toml;
    return spec.ok() ? std::string() : spec.status().message();
  };
  EXPECT_EQ(error(Bert("max_predictions_per_seq = 129")),
            "job.toml:8: [examples] max_predictions_per_seq must not be larger than "
            "max_seq_length (128), not 129");
  EXPECT_THAT(error(Bert("max_seq_length = 16")),
              HasSubstr("[examples] max_predictions_per_seq (default 20) must not be larger than "
                        "max_seq_length (16), not 20; set max_predictions_per_seq"));
  EXPECT_EQ(error(Bert("max_predictions_per_seq = 0")),
            "job.toml:8: [examples] max_predictions_per_seq must be between 1 and 4294967295, "
            "not 0");
  EXPECT_EQ(error(Bert("masked_lm_prob = 1.0")),
            "job.toml:8: [examples] masked_lm_prob must be greater than 0 and less than 1, not "
            "1.000000 (Google's default: 0.15)");
  EXPECT_THAT(error(Bert("masked_lm_prob = 0")), HasSubstr("[examples] masked_lm_prob must be"));
  EXPECT_THAT(error(Bert("masked_lm_prob = \"0.15\"")),
              HasSubstr("[examples] masked_lm_prob must be a number, not a string"));
  EXPECT_THAT(error(Bert("short_seq_prob = 1.5")),
              HasSubstr("[examples] short_seq_prob must be from 0 to 1, not 1.5"));
  EXPECT_THAT(error(Bert("dupe_factor = 0")),
              HasSubstr("[examples] dupe_factor must be between 1"));
  EXPECT_THAT(error(Bert("random_next_window = 0")),
              HasSubstr("[examples] random_next_window must be between 1"));
  EXPECT_EQ(error(Bert("compat = \"gogle\"")),
            "job.toml:8: [examples] compat must be \"google\" (or unset, for the default mode), "
            "not \"gogle\"");
  std::string hf = Bert("compat = \"google\"");
  hf.insert(hf.find("[examples]"), "compat = \"huggingface\"\n");
  EXPECT_EQ(error(hf),
            "job.toml:6: [tokenizer] compat must be \"google-bert\" (or unset) when [examples] "
            "compat = \"google\" (job.toml:9): the script tokenizes with Google's "
            "tokenization.py");
  // Patterns and several paths are accepted: the planner makes one task of every file.
  std::string glob = Bert("compat = \"google\"");
  glob.replace(glob.find("\"corpus.txt\""), 12, "\"corpus/*.txt\", \"more.txt\"");
  auto globbed = ParseJobSpec(glob, "job.toml");
  ASSERT_TRUE(globbed.ok()) << globbed.status().ToString();
  EXPECT_EQ(globbed->input_paths.size(), 2u);
  EXPECT_THAT(error(Bert("compat = \"google\"\nchinese_whole_word = true")),
              HasSubstr("[examples] chinese_whole_word is not part of create_pretraining_data.py"));
  EXPECT_THAT(error(Bert("compat = \"google\"\nrandom_next_window = 5")),
              HasSubstr("[examples] random_next_window applies only to the default mode"));
  EXPECT_THAT(error(Bert("compat = \"google\"") + "[job]\ntask_size = \"1MiB\"\n"),
              HasSubstr("[job] task_size applies only to jobs without [examples] compat"));
  EXPECT_THAT(error(Bert("") + "format = \"megatron\"\n"),
              HasSubstr("[output] format \"megatron\" cannot hold bert examples"));
  EXPECT_EQ(error(With("examples", "dupe_factor = 2")),
            "job.toml:9: [examples] dupe_factor applies only to kind = \"bert\"; remove it");
  EXPECT_EQ(error(With("examples", "compat = \"google\"")),
            "job.toml:9: [examples] compat applies only to kind = \"bert\"; remove it");
}

TEST(JobSpecBert, JsonRoundTrip) {
  for (const std::string& toml :
       {std::string(kBert),
        Bert("compat = \"google\"\ndo_whole_word_mask = true\n"
             "masked_lm_prob = 0.125\nshort_seq_prob = 0.3"),
        Bert("random_next_window = 7\ndupe_factor = 3\nmax_predictions_per_seq = 5\n"
             "chinese_whole_word = true")}) {
    auto spec = Parse(toml);
    ASSERT_TRUE(spec.ok()) << spec.status().ToString() << "\n" << toml;
    const std::string json = spec->ToJson();
    EXPECT_THAT(json, HasSubstr("\"masked_lm_prob\":"));
    auto back = JobSpec::FromJson(json);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->ToJson(), json);
    EXPECT_EQ(back->examples.masked_lm_prob, spec->examples.masked_lm_prob);
    EXPECT_EQ(back->examples.google_compat, spec->examples.google_compat);
    EXPECT_EQ(back->examples.random_next_window, spec->examples.random_next_window);
  }
  // Electra and gpt specs carry no bert keys.
  auto electra = Parse(kMinimal);
  ASSERT_TRUE(electra.ok());
  EXPECT_THAT(electra->ToJson(), ::testing::Not(HasSubstr("dupe_factor")));
}

TEST(JobSpec, Sentences) {
  auto lines = Parse(With("input", "sentences = \"lines\""));
  ASSERT_TRUE(lines.ok()) << lines.status().ToString();
  EXPECT_FALSE(lines->reader.split_sentences);
  EXPECT_EQ(lines->ToJson(), kCanonicalMinimal);
  auto split = Parse(With("input", "sentences = \"split\""));
  ASSERT_TRUE(split.ok());
  EXPECT_TRUE(split->reader.split_sentences);
  auto back = JobSpec::FromJson(split->ToJson());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->reader.split_sentences);
  EXPECT_TRUE(Parse(Bert("")).ok());
  std::string bert = Bert("");
  bert.insert(bert.find("[tokenizer]"), "sentences = \"split\"\n");
  EXPECT_TRUE(Parse(bert).ok());
  EXPECT_EQ(Error(With("input", "sentences = \"words\"")),
            "job.toml:3: [input] sentences must be \"lines\" or \"split\", not \"words\"");
  EXPECT_EQ(Error(With("input", "sentences = \"split\"") + "[examples]\nkind = \"gpt\"\n"),
            "job.toml:3: [input] sentences = \"split\" applies only to bert and electra jobs "
            "(gpt examples are whole documents); remove it");
}

}  // namespace
}  // namespace tokenmill

namespace tokenmill {
namespace {

TEST(JobSpec, ParquetAndJsonInputsTakeTextFieldAndOnBadRecord) {
  for (const auto& [name, format] :
       {std::pair<std::string, InputFormat>{"parquet", InputFormat::kParquet},
        {"json", InputFormat::kJson}}) {
    SCOPED_TRACE(name);
    auto spec =
        Parse(With("input", "format = \"" + name +
                                "\"\ntext_field = \"meta.body\"\non_bad_record = \"skip\""));
    ASSERT_TRUE(spec.ok()) << spec.status().ToString();
    EXPECT_EQ(spec->reader.format, format);
    EXPECT_EQ(spec->reader.text_field, "meta.body");
    EXPECT_TRUE(spec->reader.skip_bad_records);
    auto back = JobSpec::FromJson(spec->ToJson());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->reader.format, format);
    EXPECT_EQ(back->ToJson(), spec->ToJson());
  }
}

}  // namespace
}  // namespace tokenmill
