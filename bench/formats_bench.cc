// Shard writer and reader throughput: formats_bench [--benchmark_filter=...]
// Writers include the final fsync; files go to $TMPDIR (default /tmp).

#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tokenmill/formats/shard_reader.h"
#include "tokenmill/formats/shard_writer.h"
#include "tokenmill/formats/tf_example.h"

namespace tokenmill {
namespace {

std::string ScratchDir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/tm-formats-bench-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  return ::mkdtemp(buf.data());
}

// ELECTRA-like examples: 128 ids, about 3/4 real, ids spread over a 30522 vocabulary.
std::vector<Example> ElectraExamples(size_t n) {
  std::vector<Example> out(n);
  uint32_t x = 1;
  for (size_t i = 0; i < n; ++i) {
    Example& e = out[i];
    const size_t real = 64 + i % 64;
    e.tokens.assign(128, 0);
    e.input_mask.assign(128, 0);
    e.segment_ids.assign(128, 0);
    for (size_t j = 0; j < real; ++j) {
      x = x * 1103515245u + 12345u;
      e.tokens[j] = 999 + (x >> 8) % 29000;
      e.input_mask[j] = 1;
      e.segment_ids[j] = j > real / 2 ? 1 : 0;
    }
    e.num_real_tokens = static_cast<uint32_t>(real);
  }
  return out;
}

// BERT-like examples: ELECTRA's ids, masks and segments, and 20 masked positions.
std::vector<Example> BertExamples(size_t n) {
  std::vector<Example> out = ElectraExamples(n);
  for (size_t i = 0; i < n; ++i) {
    Example& e = out[i];
    e.bert = true;
    const size_t predictions = 1 + e.num_real_tokens * 15 / 100;
    e.masked_lm_positions.assign(20, 0);
    e.masked_lm_ids.assign(20, 0);
    e.masked_lm_weights.assign(20, 0.0f);
    for (size_t k = 0; k < predictions && k < 20; ++k) {
      e.masked_lm_positions[k] = static_cast<uint32_t>(1 + 6 * k);
      e.masked_lm_ids[k] = e.tokens[1 + 6 * k];
      e.masked_lm_weights[k] = 1.0f;
    }
    e.next_sentence_label = i % 2;
  }
  return out;
}

// GPT documents of 1000 ids in a 50257 vocabulary.
std::vector<Example> GptDocuments(size_t n) {
  std::vector<Example> out(n);
  uint32_t x = 7;
  for (Example& e : out) {
    e.tokens.resize(1000);
    e.tokens[0] = 50256;
    for (size_t j = 1; j < e.tokens.size(); ++j) {
      x = x * 1103515245u + 12345u;
      e.tokens[j] = (x >> 8) % 50256;
    }
    e.num_real_tokens = 1000;
  }
  return out;
}

void WriteShards(benchmark::State& state, OutputFormat format, const std::vector<Example>& in) {
  const std::string dir = ScratchDir();
  uint64_t bytes = 0;
  for (auto _ : state) {
    ShardWriterOptions o;
    o.format = format;
    o.scratch_dir = dir;
    o.vocab_size = format == OutputFormat::kTfRecord ? 30522 : 50257;
    auto writer = CreateShardWriter(o);
    for (const Example& e : in) {
      if (!(*writer)->Add(e).ok()) state.SkipWithError("Add failed");
    }
    auto files = (*writer)->Finish();
    if (!files.ok()) state.SkipWithError(files.status().ToString().c_str());
    for (const ShardFile& f : *files) bytes += f.bytes;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * in.size()));
  std::filesystem::remove_all(dir);
}

void BM_TfRecordWrite(benchmark::State& state) {
  static const std::vector<Example> examples = ElectraExamples(100000);
  WriteShards(state, OutputFormat::kTfRecord, examples);
}
BENCHMARK(BM_TfRecordWrite)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MegatronWrite(benchmark::State& state) {
  static const std::vector<Example> docs = GptDocuments(20000);
  WriteShards(state, OutputFormat::kMegatron, docs);
}
BENCHMARK(BM_MegatronWrite)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LlmcWrite(benchmark::State& state) {
  static const std::vector<Example> docs = GptDocuments(20000);
  WriteShards(state, OutputFormat::kLlmc, docs);
}
BENCHMARK(BM_LlmcWrite)->Unit(benchmark::kMillisecond)->UseRealTime();

// Encodes `examples` as tf.train.Example messages, again and again.
void EncodeExamples(benchmark::State& state, const std::vector<Example>& examples) {
  std::string out;
  uint64_t bytes = 0;
  for (auto _ : state) {
    for (const Example& e : examples) {
      out.clear();
      EncodeTfExample(e, &out);
      bytes += out.size();
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * examples.size()));
}

void BM_TfExampleEncode(benchmark::State& state) {
  static const std::vector<Example> examples = ElectraExamples(1000);
  EncodeExamples(state, examples);
}
BENCHMARK(BM_TfExampleEncode);

void BM_TfExampleEncodeBert(benchmark::State& state) {
  static const std::vector<Example> examples = BertExamples(1000);
  EncodeExamples(state, examples);
}
BENCHMARK(BM_TfExampleEncodeBert);

// Reads back (CRCs, decoding) the shard written from 100000 ELECTRA examples.
void BM_TfRecordRead(benchmark::State& state) {
  const std::string dir = ScratchDir();
  ShardWriterOptions o;
  o.scratch_dir = dir;
  auto writer = CreateShardWriter(o);
  for (const Example& e : ElectraExamples(100000)) (void)(*writer)->Add(e);
  auto files = (*writer)->Finish();
  const std::string path = (*files)[0].local_path;
  uint64_t bytes = 0, records = 0;
  for (auto _ : state) {
    auto reader = OpenLocalShard(path);
    Example e;
    while (true) {
      StatusOr<bool> got = (*reader)->Next(&e);
      if (!got.ok()) state.SkipWithError(got.status().ToString().c_str());
      if (!got.ok() || !*got) break;
    }
    bytes += (*reader)->info().bytes;
    records += (*reader)->counts().records;
  }
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(static_cast<int64_t>(records));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_TfRecordRead)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace tokenmill

BENCHMARK_MAIN();
