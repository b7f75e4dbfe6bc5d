// BERT WordPiece: BertNormalizer + BertPreTokenizer + greedy longest-match-first WordPiece,
// bit-exact with HF tokenizers 0.23.2, google-research/bert and google-research/electra
// (CompatMode). See docs/tokenizers.md for every rule and known difference.
#pragma once

#include <memory>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// From a vocab.txt (one token per line, split on '\n' only; id = line number from 0).
// `source` names the file in error messages. Requires [UNK], [CLS] and [SEP] in the vocab.
StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceVocab(const TokenizerOptions& options,
                                                        std::string_view vocab_txt,
                                                        std::string_view source);

// From a HuggingFace tokenizer.json whose model is WordPiece (normalizer BertNormalizer,
// pre-tokenizer BertPreTokenizer). Settings in the file are defaults; explicit options win.
StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceTokenizerJson(const TokenizerOptions& options,
                                                                std::string_view json,
                                                                std::string_view source);

}  // namespace tokenmill
