// formats_sample_writer OUT_DIR: writes sample shards of every format with the real writers, for
// the independent readers in tests/tools (check_formats.py). Test tool, not installed.
//
// OUT_DIR/<set>/ holds the shards of one writer (several shards each: small shard sizes), and
// OUT_DIR/manifest.json describes, per set, the format, vocab_size, eod id, the examples given
// to the writer and the ShardFiles it returned. Megatron sets also get a merged prefix
// OUT_DIR/<set>/merged made by MergeMegatron from all their shards.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenmill/formats/megatron_merge.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {
namespace {

struct Set {
  std::string name;
  OutputFormat format;
  uint32_t vocab_size;
  uint32_t eod;
  uint64_t shard_size;
  std::vector<Example> examples;
};

// Deterministic ids in [0, vocab) avoiding `eod`.
class Ids {
 public:
  explicit Ids(uint64_t seed) : x_(seed * 0x9e3779b97f4a7c15ull + 1) {}
  uint32_t Next(uint32_t vocab, uint32_t eod) {
    x_ ^= x_ << 13;
    x_ ^= x_ >> 7;
    x_ ^= x_ << 17;
    uint32_t t = static_cast<uint32_t>(x_ % vocab);
    return t == eod ? (t + 1) % vocab : t;
  }

 private:
  uint64_t x_;
};

std::vector<Example> GptDocs(size_t count, uint32_t vocab, uint32_t eod, uint64_t seed) {
  Ids ids(seed);
  std::vector<Example> docs;
  for (size_t d = 0; d < count; ++d) {
    Example e;
    e.tokens.push_back(eod);
    size_t len = 1 + (d * 7 + seed) % 37;
    for (size_t i = 0; i < len; ++i) e.tokens.push_back(ids.Next(vocab, eod));
    e.num_real_tokens = static_cast<uint32_t>(e.tokens.size());
    docs.push_back(std::move(e));
  }
  return docs;
}

std::vector<Example> ElectraExamples(size_t count, size_t max_seq_length, uint64_t seed) {
  Ids ids(seed);
  std::vector<Example> out;
  // The tiny example of docs/formats/tfrecord.md first.
  Example tiny;
  tiny.tokens = {7, 300};
  tiny.input_mask = {1, 0};
  tiny.segment_ids = {0, 0};
  tiny.num_real_tokens = 1;
  out.push_back(tiny);
  for (size_t n = 0; n < count; ++n) {
    size_t real = 3 + n % (max_seq_length - 2);
    size_t split = 1 + real / 2;
    Example e;
    e.tokens.assign(max_seq_length, 0);
    e.input_mask.assign(max_seq_length, 0);
    e.segment_ids.assign(max_seq_length, 0);
    e.tokens[0] = 101;
    for (size_t i = 1; i + 1 < real; ++i) e.tokens[i] = 999 + ids.Next(29000, 0);
    e.tokens[split - 1] = 102;
    e.tokens[real - 1] = 102;
    for (size_t i = 0; i < real; ++i) {
      e.input_mask[i] = 1;
      e.segment_ids[i] = i >= split ? 1 : 0;
    }
    e.num_real_tokens = static_cast<uint32_t>(real);
    out.push_back(std::move(e));
  }
  return out;
}

nlohmann::json ToJson(const Example& e) {
  return {{"tokens", e.tokens},
          {"input_mask", e.input_mask},
          {"segment_ids", e.segment_ids},
          {"num_real_tokens", e.num_real_tokens}};
}

nlohmann::json ToJson(const ShardFile& f) {
  return {{"name", f.name},     {"local_path", f.local_path}, {"bytes", f.bytes},
          {"sha256", f.sha256}, {"examples", f.examples},     {"tokens", f.tokens}};
}

Status Run(const std::string& out_dir) {
  std::vector<Set> sets = {
      {"tfrecord", OutputFormat::kTfRecord, 30522, 0, 1500, ElectraExamples(40, 16, 1)},
      {"tfrecord-gpt", OutputFormat::kTfRecord, 50257, 50256, 1 << 20, GptDocs(5, 50257, 50256, 2)},
      {"megatron", OutputFormat::kMegatron, 50257, 50256, 700, GptDocs(60, 50257, 50256, 3)},
      {"megatron-int32", OutputFormat::kMegatron, 100277, 100257, 900,
       GptDocs(30, 100277, 100257, 4)},
      {"llmc", OutputFormat::kLlmc, 50257, 50256, 1024 + 600, GptDocs(60, 50257, 50256, 5)},
      {"llmc-uint32", OutputFormat::kLlmc, 128256, 128001, 1024 + 900,
       GptDocs(30, 128256, 128001, 6)},
  };
  nlohmann::json manifest = nlohmann::json::object();
  for (const Set& set : sets) {
    ShardWriterOptions o;
    o.format = set.format;
    o.scratch_dir = out_dir + "/" + set.name;
    o.shard_size = set.shard_size;
    o.task_id = 5;
    o.vocab_size = set.vocab_size;
    o.eod_id = set.eod;
    TM_ASSIGN_OR_RETURN(std::unique_ptr<ShardWriter> writer, CreateShardWriter(o));
    nlohmann::json examples = nlohmann::json::array();
    for (const Example& e : set.examples) {
      TM_RETURN_IF_ERROR(writer->Add(e));
      examples.push_back(ToJson(e));
    }
    TM_ASSIGN_OR_RETURN(std::vector<ShardFile> files, writer->Finish());
    nlohmann::json file_list = nlohmann::json::array();
    std::vector<std::string> prefixes;
    for (const ShardFile& f : files) {
      file_list.push_back(ToJson(f));
      if (set.format == OutputFormat::kMegatron && f.name.ends_with(".bin")) {
        prefixes.push_back(o.scratch_dir + "/" + f.name.substr(0, f.name.size() - 4));
      }
    }
    nlohmann::json entry = {{"format", std::string(OutputFormatName(set.format))},
                            {"vocab_size", set.vocab_size},
                            {"eod", set.eod},
                            {"shard_size", set.shard_size},
                            {"examples", examples},
                            {"files", file_list}};
    if (!prefixes.empty()) {
      TM_ASSIGN_OR_RETURN(std::vector<ShardFile> merged,
                          MergeMegatron(prefixes, o.scratch_dir + "/merged"));
      entry["merged"] = {ToJson(merged[0]), ToJson(merged[1])};
    }
    manifest[set.name] = entry;
  }
  std::ofstream out(out_dir + "/manifest.json");
  out << manifest.dump(1) << "\n";
  if (!out) return Status::IoError(out_dir + "/manifest.json: cannot write");
  return Status::Ok();
}

}  // namespace
}  // namespace tokenmill

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: formats_sample_writer OUT_DIR\n");
    return 2;
  }
  tokenmill::Status s = tokenmill::Run(argv[1]);
  if (!s.ok()) {
    std::fprintf(stderr, "formats_sample_writer: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
