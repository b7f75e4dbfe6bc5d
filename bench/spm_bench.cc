// SentencePiece-style tokenizers on one thread: tokenmill (tokenizer.json or .model) or, with
// --sentencepiece, libsentencepiece's own C++ encoder (EncodeAsIds) on the same .model. For
// bench/ref_spm.sh.
//
//   spm_bench --tokenizer=PATH [--sentencepiece] [--output=FILE] [--split-special-tokens=false]
//             INPUT...
// Reads the inputs (split on '\n'; every line encoded on its own, empty ones included) into
// memory, encodes them all, prints one JSON line {"MB": .., "seconds": .., "MB_per_s": ..,
// "MB_per_cpu_s": .., "tokens": ..} (MB = 10^6 bytes of input, newlines included; loading is not
// timed) and writes one JSON id array per line to FILE.

#include <sentencepiece_processor.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/tokenizer/tokenizer.h"

namespace {

double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  std::string tokenizer_path;
  std::string output;
  bool use_spm = false;
  bool split_special = true;
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--tokenizer=")) {
      tokenizer_path = std::string(a.substr(12));
    } else if (a.starts_with("--output=")) {
      output = std::string(a.substr(9));
    } else if (a == "--sentencepiece") {
      use_spm = true;
    } else if (a == "--split-special-tokens=false") {
      split_special = false;
    } else {
      inputs.emplace_back(a);
    }
  }
  if (tokenizer_path.empty() || inputs.empty()) {
    std::fprintf(stderr,
                 "usage: spm_bench --tokenizer=PATH [--sentencepiece] [--output=FILE] "
                 "INPUT...\n");
    return 2;
  }
  std::string text;
  for (const std::string& in : inputs) {
    std::ifstream f(in, std::ios::binary);
    if (!f) {
      std::fprintf(stderr, "spm_bench: cannot read %s\n", in.c_str());
      return 1;
    }
    std::ostringstream ss;
    ss << f.rdbuf();
    text += ss.str();
  }
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    lines.push_back(std::string_view(text).substr(pos, eol - pos));
    pos = eol + 1;
  }
  std::vector<std::vector<int>> spm_ids;
  std::vector<std::vector<uint32_t>> ids(lines.size());
  sentencepiece::SentencePieceProcessor sp;
  std::unique_ptr<tokenmill::Tokenizer> tok;
  if (use_spm) {
    const auto st = sp.Load(tokenizer_path);
    if (!st.ok()) {
      std::fprintf(stderr, "spm_bench: %s\n", st.ToString().c_str());
      return 1;
    }
    spm_ids.resize(lines.size());
  } else {
    tokenmill::TokenizerOptions options;
    options.path = tokenizer_path;
    options.split_special_tokens = split_special;
    auto loaded = tokenmill::LoadTokenizerFromStorage(options);
    if (!loaded.ok()) {
      std::fprintf(stderr, "spm_bench: %s\n", loaded.status().ToString().c_str());
      return 1;
    }
    tok = std::move(loaded).value();
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = CpuSeconds();
  size_t tokens = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (use_spm) {
      sp.Encode(lines[i], &spm_ids[i]).IgnoreError();
      tokens += spm_ids[i].size();
    } else {
      tok->Encode(lines[i], &ids[i]);
      tokens += ids[i].size();
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = CpuSeconds() - c0;
  const double mb = static_cast<double>(text.size()) / 1e6;
  std::printf(
      "{\"MB\":%.3f,\"seconds\":%.4f,\"MB_per_s\":%.2f,\"MB_per_cpu_s\":%.2f,"
      "\"tokens\":%zu}\n",
      mb, seconds, mb / seconds, mb / cpu, tokens);
  if (!output.empty()) {
    std::ofstream out(output, std::ios::binary);
    std::string line;
    for (size_t i = 0; i < lines.size(); ++i) {
      line = "[";
      if (use_spm) {
        for (size_t k = 0; k < spm_ids[i].size(); ++k) {
          if (k) line += ',';
          line += std::to_string(spm_ids[i][k]);
        }
      } else {
        for (size_t k = 0; k < ids[i].size(); ++k) {
          if (k) line += ',';
          line += std::to_string(ids[i][k]);
        }
      }
      line += "]\n";
      out << line;
    }
  }
  return 0;
}
