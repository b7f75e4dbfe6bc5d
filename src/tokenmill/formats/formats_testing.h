// Helpers for the formats/ tests (beside TempDir, testing/temp_dir.h): whole-file reads and
// example factories.
// Test-only. Thread-safety: none needed.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tokenmill/examples/example.h"
#include "tokenmill/formats/shard_reader.h"
#include "tokenmill/formats/shard_writer.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill::testing {

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

// Lowercase hex of the bytes.
inline std::string Hex(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// Writes `examples` with a new writer and returns its files (test failures on any error).
inline std::vector<ShardFile> WriteShards(const ShardWriterOptions& options,
                                          const std::vector<Example>& examples) {
  auto writer = CreateShardWriter(options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  if (!writer.ok()) return {};
  for (const Example& e : examples) {
    Status s = (*writer)->Add(e);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto files = (*writer)->Finish();
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  return files.ok() ? *files : std::vector<ShardFile>{};
}

// The tokens of every record `reader` returns; *status is the first error, or OK.
inline std::vector<std::vector<uint32_t>> ReadTokens(ShardReader& reader, Status* status) {
  std::vector<std::vector<uint32_t>> out;
  Example e;
  *status = Status::Ok();
  while (true) {
    StatusOr<bool> got = reader.Next(&e);
    if (!got.ok()) *status = got.status();
    if (!got.ok() || !*got) return out;
    out.push_back(e.tokens);
  }
}

inline std::vector<std::vector<uint32_t>> ReadTokens(StatusOr<std::unique_ptr<ShardReader>> reader,
                                                     Status* status) {
  if (!reader.ok()) {
    *status = reader.status();
    return {};
  }
  return ReadTokens(**reader, status);
}

// A GPT example: the given ids, all real.
inline Example Gpt(std::vector<uint32_t> tokens) {
  Example e;
  e.tokens = std::move(tokens);
  e.num_real_tokens = static_cast<uint32_t>(e.tokens.size());
  return e;
}

// An ELECTRA-style example: `real` ids padded with 0 to `length`, segment B from `split`.
inline Example Electra(const std::vector<uint32_t>& real, size_t length, size_t split) {
  Example e;
  e.tokens = real;
  e.tokens.resize(length, 0);
  e.input_mask.assign(length, 0);
  e.segment_ids.assign(length, 0);
  for (size_t i = 0; i < real.size(); ++i) {
    e.input_mask[i] = 1;
    e.segment_ids[i] = i >= split ? 1 : 0;
  }
  e.num_real_tokens = static_cast<uint32_t>(real.size());
  return e;
}

// Deterministic pseudo-random GPT documents: lengths 1..max_len, ids below vocab, eod first.
inline std::vector<Example> GptDocuments(size_t count, size_t max_len, uint32_t vocab, uint32_t eod,
                                         uint64_t seed) {
  std::vector<Example> docs;
  uint64_t x = seed * 6364136223846793005ull + 1442695040888963407ull;
  auto next = [&x]() {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 2685821657736338717ull;
  };
  for (size_t d = 0; d < count; ++d) {
    size_t len = 1 + next() % max_len;
    std::vector<uint32_t> ids = {eod};
    for (size_t i = 1; i < len; ++i) {
      uint32_t t = static_cast<uint32_t>(next() % vocab);
      ids.push_back(t == eod ? (t + 1) % vocab : t);
    }
    docs.push_back(Gpt(std::move(ids)));
  }
  return docs;
}

}  // namespace tokenmill::testing
