// SentencePiece .model files (the ModelProto protobuf of sentencepiece_model.proto), Unigram and
// BPE, read natively and encoded bit-exactly as sentencepiece 0.1.97's EncodeAsIds: its own
// normalizer (normalizers/spm_normalizer.h), its Unigram (float scores, unknown score from the
// normal pieces) or its BPE (merges by the merged piece's score, leftmost among equals). Control
// symbols such as "<s>" in the text are plain text, as in sentencepiece.
#pragma once

#include <memory>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// Errors name `source` and what is malformed (field, byte offset).
StatusOr<std::unique_ptr<Tokenizer>> LoadSentencePieceModel(const TokenizerOptions& options,
                                                            std::string_view data,
                                                            std::string_view source);

}  // namespace tokenmill
