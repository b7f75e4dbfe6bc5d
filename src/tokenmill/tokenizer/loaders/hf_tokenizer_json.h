// HuggingFace tokenizer.json files run through HF tokenizers 0.23's encode pipeline: added tokens,
// normalizer (per segment between added tokens), pre-tokenizer, model. Used for every
// tokenizer.json that byte_level_bpe.h (ByteLevel + BPE) and wordpiece.h (BERT) do not take:
// SentencePiece-style BPE (Llama-2, Mistral, Gemma), WordLevel. Components and JSON paths not
// implemented are errors naming them. See docs/tokenizers.md for the table of components.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

StatusOr<std::unique_ptr<Tokenizer>> LoadHfPipelineTokenizerJson(const TokenizerOptions& options,
                                                                 std::string_view json,
                                                                 std::string_view source);
// The same from the parsed file (moved in: the loader frees it as it goes).
StatusOr<std::unique_ptr<Tokenizer>> LoadHfPipelineTokenizerJson(const TokenizerOptions& options,
                                                                 ParsedTokenizerJson parsed,
                                                                 std::string_view source);

// Whether a parsed tokenizer.json is for the byte-level BPE loader (its pre-tokenizer has a
// ByteLevel step).
bool IsByteLevelTokenizerJson(const nlohmann::json& j);

}  // namespace tokenmill
