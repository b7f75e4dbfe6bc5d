// Byte-level BPE (GPT-2, r50k_base, cl100k_base, o200k_base), bit-exact with tiktoken's
// encode_ordinary and HF tokenizers' ByteLevel + BPE. See docs/tokenizers.md.
#pragma once

#include <memory>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// From a tiktoken rank file ("base64(token) rank" per line). The encoding (pre-tokenizer pattern
// and special tokens) is options.encoding, or implied by the file name ("cl100k_base.tiktoken").
StatusOr<std::unique_ptr<Tokenizer>> LoadTiktoken(const TokenizerOptions& options,
                                                  std::string_view ranks, std::string_view name);

// From GPT-2's encoder.json and vocab.bpe (merges; its "#version" line is skipped).
StatusOr<std::unique_ptr<Tokenizer>> LoadGpt2Encoder(const TokenizerOptions& options,
                                                     std::string_view encoder_json,
                                                     std::string_view vocab_bpe,
                                                     std::string_view source);

// From a HuggingFace tokenizer.json with a ByteLevel pre-tokenizer and a BPE model.
StatusOr<std::unique_ptr<Tokenizer>> LoadBpeTokenizerJson(const TokenizerOptions& options,
                                                          std::string_view json,
                                                          std::string_view source);
// The same from the file already parsed; a discarded value is "not valid JSON".
StatusOr<std::unique_ptr<Tokenizer>> LoadBpeParsedTokenizerJson(const TokenizerOptions& options,
                                                                const ParsedTokenizerJson& json,
                                                                std::string_view source);

}  // namespace tokenmill
