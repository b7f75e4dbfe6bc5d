// llm.c token files (docs/formats/llmc.md), as karpathy/llm.c dev/data/data_common.py
// write_datafile() writes them: a header of 256 little-endian int32
//   [0] magic: 20240520 (GPT-2: uint16 tokens) or 20240801 (LLaMA-3: uint32 tokens)
//   [1] version: 1 with 20240520, 7 with 20240801
//   [2] the number of tokens that follow
//   [3..255] zero
// then the tokens, little endian. Each document is preceded by the end-of-text token, as llm.c's
// dev/data/fineweb.py writes it (the GPT builder puts it first in Example.tokens for llmc).
// Thread-safety: the free functions are pure.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/formats/shard_writer.h"

namespace tokenmill {

inline constexpr int32_t kLlmcMagicUint16 = 20240520;
inline constexpr int32_t kLlmcVersionUint16 = 1;
inline constexpr int32_t kLlmcMagicUint32 = 20240801;
inline constexpr int32_t kLlmcVersionUint32 = 7;
inline constexpr size_t kLlmcHeaderInts = 256;
inline constexpr size_t kLlmcHeaderBytes = kLlmcHeaderInts * 4;
// header[2] is an int32: a file holds at most this many tokens.
inline constexpr uint64_t kLlmcMaxTokens = 2147483647;

struct LlmcHeader {
  int32_t magic = kLlmcMagicUint16;
  int32_t version = kLlmcVersionUint16;
  uint64_t tokens = 0;
  size_t token_bytes() const { return magic == kLlmcMagicUint32 ? 4 : 2; }
};

// 20240520 / 1 / uint16 when vocab_size <= 65536, else 20240801 / 7 / uint32.
LlmcHeader LlmcHeaderForVocab(uint32_t vocab_size, uint64_t tokens);

// The 1024 header bytes. REQUIRES: header.tokens <= kLlmcMaxTokens.
std::string EncodeLlmcHeader(const LlmcHeader& header);

// True if `data` starts with one of the two llm.c magics.
bool HasLlmcMagic(std::string_view data);

// Parses and checks the first 1024 bytes of a file of `file_size` bytes: magic and version pair,
// a positive token count, zero reserved ints, and file_size == 1024 + tokens * token size.
// DataLoss naming `name` and the byte offset of the bad field.
StatusOr<LlmcHeader> ParseLlmcHeader(std::string_view header, uint64_t file_size,
                                     const std::string& name);

// The "llmc" ShardWriter: Example.tokens appended as they are. REQUIRES: options.vocab_size > 0
// (it selects the token width). Empty examples and examples with an input_mask are refused.
StatusOr<std::unique_ptr<ShardWriter>> NewLlmcShardWriter(const ShardWriterOptions& options);

}  // namespace tokenmill
