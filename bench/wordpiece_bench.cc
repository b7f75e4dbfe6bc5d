// WordPiece throughput on one thread, and an id dump to compare with the references.
//
//   wordpiece_bench [FILES...]
//       bert-base-uncased and bert-base-chinese (data/vocab/*/tokenizer.json, HF compat, special
//       tokens matched as HF does) over FILES, by default the shared corpus
//       (../shared/data/corpus/part-*; .gz files are decompressed before the clock starts).
//   wordpiece_bench --tokenizer PATH [--compat MODE] [--lowercase B] [--strip-accents B]
//                   [--clean-text B] [--handle-chinese-chars B] [--split-special-tokens B]
//                   [--slow] [--repeat N] [--json] [--dump-ids OUT | --dump-words OUT] FILES...
//       one tokenizer (B: true or false); instead of timing, --dump-ids writes one JSON array of
//       ids per input line (as the reference encode.js does), --dump-words the normalized words
//       of each line, each as hex code points joined by '.', separated by spaces (for
//       src/tokenmill/tokenizer/normalizers/bert_unicode_gen/verify_code_points.sh).
// As the HF reference bench (shared/ref/bench.js): the text is read and split on '\n' before the
// clock starts, every line is encoded (empty ones too), the first 2000 lines are encoded once as
// warm-up, MB = 10^6 bytes of input. The median of --repeat runs (default 3) is printed, by wall
// clock and by the thread's CPU time.
#include <time.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/models/wordpiece.h"

namespace {

using tokenmill::CompatMode;
using tokenmill::Tokenizer;
using tokenmill::TokenizerOptions;
using tokenmill::WordPieceTokenizer;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "wordpiece_bench: " << message << "\n";
  std::exit(1);
}

std::string ReadFile(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) Die("cannot open " + path);
  std::string out;
  std::vector<char> buf(1 << 20);
  int n;
  while ((n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()))) > 0) {
    out.append(buf.data(), static_cast<size_t>(n));
  }
  gzclose(f);
  if (n < 0) Die("cannot read " + path);
  return out;
}

bool ParseBool(const std::string& flag, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  Die(flag + " takes true or false, not '" + v + "'");
}

std::unique_ptr<Tokenizer> Load(const TokenizerOptions& options) {
  const std::string data = ReadFile(options.path);
  auto t = options.path.ends_with(".json")
               ? tokenmill::LoadWordPieceTokenizerJson(options, data, options.path)
               : tokenmill::LoadWordPieceVocab(options, data, options.path);
  if (!t.ok()) Die(t.status().ToString());
  return std::move(t).value();
}

struct Corpus {
  std::vector<std::string> texts;
  std::vector<std::string_view> lines;
  size_t bytes = 0;
};

Corpus ReadCorpus(const std::vector<std::string>& files) {
  Corpus c;
  c.texts.reserve(files.size());
  for (const auto& f : files) {
    c.texts.push_back(ReadFile(f));
    const std::string_view t = c.texts.back();
    c.bytes += t.size();
    size_t start = 0;
    while (start < t.size()) {
      size_t end = t.find('\n', start);
      if (end == std::string_view::npos) end = t.size();
      c.lines.push_back(t.substr(start, end - start));
      start = end + 1;
    }
  }
  return c;
}

struct Run {
  double seconds;      // wall clock
  double cpu_seconds;  // this thread's CPU time (steadier on a busy machine)
  size_t tokens;
};

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Run TimeOnce(const Tokenizer& t, const Corpus& c, bool slow) {
  const auto* wp = dynamic_cast<const WordPieceTokenizer*>(&t);
  std::vector<uint32_t> ids;
  ids.reserve(1 << 16);
  for (size_t i = 0; i < std::min<size_t>(2000, c.lines.size()); ++i) {  // warm-up
    ids.clear();
    t.Encode(c.lines[i], &ids);
  }
  size_t tokens = 0;
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  for (std::string_view line : c.lines) {
    ids.clear();
    if (slow) {
      wp->EncodeSlowly(line, &ids);
    } else {
      t.Encode(line, &ids);
    }
    tokens += ids.size();
  }
  const auto stop = std::chrono::steady_clock::now();
  return Run{std::chrono::duration<double>(stop - start).count(), ThreadCpuSeconds() - cpu_start,
             tokens};
}

void Bench(const std::string& name, const TokenizerOptions& options, const Corpus& c, int repeat,
           bool slow, bool json) {
  auto t = Load(options);
  std::vector<Run> runs;
  for (int r = 0; r < repeat; ++r) runs.push_back(TimeOnce(*t, c, slow));
  std::sort(runs.begin(), runs.end(),
            [](const Run& a, const Run& b) { return a.seconds < b.seconds; });
  const Run& median = runs[runs.size() / 2];
  const double mbps = static_cast<double>(c.bytes) / 1e6 / median.seconds;
  const double mtps = static_cast<double>(median.tokens) / 1e6 / median.seconds;
  std::sort(runs.begin(), runs.end(),
            [](const Run& a, const Run& b) { return a.cpu_seconds < b.cpu_seconds; });
  const double cpu_mbps = static_cast<double>(c.bytes) / 1e6 / runs[runs.size() / 2].cpu_seconds;
  char line[512];
  if (json) {
    std::snprintf(line, sizeof(line),
                  "{\"tokenizer\":\"%s\",\"compat\":\"%s\",\"lines\":%zu,\"bytes\":%zu,"
                  "\"tokens\":%zu,\"seconds\":%.3f,\"MB_per_s\":%.3f,\"Mtok_per_s\":%.4f,"
                  "\"cpu_MB_per_s\":%.3f}",
                  name.c_str(), std::string(tokenmill::CompatModeName(options.compat)).c_str(),
                  c.lines.size(), c.bytes, median.tokens, median.seconds, mbps, mtps, cpu_mbps);
  } else {
    std::snprintf(line, sizeof(line),
                  "%-20s %-14s %9zu lines %11zu bytes %9zu tokens %7.3f s %7.2f MB/s %6.3f "
                  "Mtok/s (CPU time: %7.2f MB/s)%s",
                  name.c_str(), std::string(tokenmill::CompatModeName(options.compat)).c_str(),
                  c.lines.size(), c.bytes, median.tokens, median.seconds, mbps, mtps, cpu_mbps,
                  slow ? " (slow path)" : "");
  }
  std::cout << line << std::endl;
}

void DumpIds(const TokenizerOptions& options, const Corpus& c, const std::string& out_path) {
  auto t = Load(options);
  std::ofstream out(out_path, std::ios::binary);
  if (!out) Die("cannot write " + out_path);
  std::vector<uint32_t> ids;
  std::string line;
  for (std::string_view text : c.lines) {
    ids.clear();
    t->Encode(text, &ids);
    line.clear();
    line.push_back('[');
    char num[16];
    for (size_t i = 0; i < ids.size(); ++i) {
      const int n = std::snprintf(num, sizeof(num), i > 0 ? ",%u" : "%u", ids[i]);
      line.append(num, static_cast<size_t>(n));
    }
    line.push_back(']');
    line.push_back('\n');
    out << line;
  }
  if (!out.flush()) Die("cannot write " + out_path);
}

struct HexWordSink {
  std::string* out;
  size_t line_start;
  void Word(std::string_view w, size_t) {
    if (out->size() > line_start) out->push_back(' ');
    char buf[16];
    bool first = true;
    for (size_t i = 0; i < w.size();) {
      const auto b = static_cast<unsigned char>(w[i]);
      const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      uint32_t cp = n == 1 ? b : b & (0x7F >> n);
      for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(w[i + k]) & 0x3F);
      i += static_cast<size_t>(n);
      const int len = std::snprintf(buf, sizeof(buf), first ? "%x" : ".%x", cp);
      out->append(buf, static_cast<size_t>(len));
      first = false;
    }
  }
  void Char(char32_t, std::string_view w) { Word(w, 1); }
  size_t Mark() const { return out->size(); }
  void Rollback(size_t mark) { out->resize(mark); }
};

void DumpWords(const TokenizerOptions& options, const Corpus& c, const std::string& out_path) {
  auto t = Load(options);
  const auto* wp = dynamic_cast<const WordPieceTokenizer*>(t.get());
  auto pre = tokenmill::BertPreTokenizer::Get(wp->config().normalizer);
  std::ofstream out(out_path, std::ios::binary);
  if (!out) Die("cannot write " + out_path);
  std::string line;
  for (std::string_view text : c.lines) {
    line.clear();
    HexWordSink sink{&line, 0};
    pre->Split(text, sink);
    line.push_back('\n');
    out << line;
  }
  if (!out.flush()) Die("cannot write " + out_path);
}

}  // namespace

int main(int argc, char** argv) {
  TokenizerOptions options;
  options.split_special_tokens = false;  // as HF by default, for comparisons with it
  std::vector<std::string> files;
  std::string dump;
  std::string dump_words;
  int repeat = 3;
  bool slow = false;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    if (a == "--tokenizer") {
      options.path = value();
    } else if (a == "--compat") {
      auto m = tokenmill::ParseCompatMode(value());
      if (!m.ok()) Die(m.status().message());
      options.compat = *m;
    } else if (a == "--lowercase") {
      options.lowercase = ParseBool(a, value());
    } else if (a == "--strip-accents") {
      options.strip_accents = ParseBool(a, value());
    } else if (a == "--clean-text") {
      options.clean_text = ParseBool(a, value());
    } else if (a == "--handle-chinese-chars") {
      options.handle_chinese_chars = ParseBool(a, value());
    } else if (a == "--dump-words") {
      dump_words = value();
    } else if (a == "--split-special-tokens") {
      options.split_special_tokens = ParseBool(a, value());
    } else if (a == "--dump-ids") {
      dump = value();
    } else if (a == "--repeat") {
      repeat = std::max(1, std::atoi(value().c_str()));
    } else if (a == "--slow") {
      slow = true;
    } else if (a == "--json") {
      json = true;
    } else if (a.starts_with("--")) {
      Die("unknown flag " + a);
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    const std::filesystem::path dir = TOKENMILL_SOURCE_DIR "/../shared/data/corpus";
    if (!std::filesystem::is_directory(dir)) {
      std::cerr << "wordpiece_bench: no input files and no shared corpus at " << dir
                << "; skipping\n";
      return 0;
    }
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().filename().string().starts_with("part-")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
  }
  const Corpus corpus = ReadCorpus(files);
  if (!options.path.empty()) {
    if (!dump.empty()) {
      DumpIds(options, corpus, dump);
    } else if (!dump_words.empty()) {
      DumpWords(options, corpus, dump_words);
    } else {
      Bench(options.path, options, corpus, repeat, slow, json);
    }
    return 0;
  }
  for (const char* model : {"bert-base-uncased", "bert-base-chinese"}) {
    TokenizerOptions o = options;
    o.path = std::string(TOKENMILL_SOURCE_DIR "/data/vocab/") + model + "/tokenizer.json";
    Bench(model, o, corpus, repeat, slow, json);
  }
  return 0;
}
