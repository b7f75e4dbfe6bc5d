// GptBuilder: one example per document, for GPT-style pre-training (Megatron, llm.c).
//
// A document's example is the tokenizer's ids of its whole text (lines joined with '\n') with
// the end-of-document token after it (append_eod, the Megatron layout) or before it (eod_first,
// the llm.c layout, where every document starts with <|endoftext|>), and with prepend_bos the
// beginning-of-sequence token right before the text (Llama, Gemma). A document with no ids makes
// no example. Packing into fixed-length sequences is the trainer's job.
//
// A document of more than stream_bytes() of text is tokenized in pieces (Tokenizer::
// EncodeInPieces) and handed to the sink in parts of about kPartIds ids (Example::more), so that
// its ids are never all in memory; the ids and the written bytes are those of one example.
// Thread-safety: one builder per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

class GptBuilder : public ExampleBuilder {
 public:
  // The end-of-document token is options.eod_token (looked up with TokenToId, then among the
  // special tokens) or else the tokenizer's <|endoftext|>, else its EOS (</s>, <eos>); the
  // beginning-of-sequence token is options.bos_token or the tokenizer's BOS (<s>, <bos>). Fails
  // with InvalidArgument naming the token if it is needed and does not exist.
  static StatusOr<std::unique_ptr<GptBuilder>> Create(const ExampleOptions& options,
                                                      const Tokenizer& tokenizer);

  Status AddDocument(std::string_view text, const ExampleSink& sink) override;
  // Nothing is ever buffered: a no-op.
  Status Finish(const ExampleSink& sink) override;
  const BuilderStats& stats() const override { return stats_; }

  // The end-of-document id, or nullopt if append_eod is false.
  std::optional<uint32_t> eod_id() const { return eod_id_; }
  // The beginning-of-sequence id, or nullopt if prepend_bos is false.
  std::optional<uint32_t> bos_id() const { return bos_id_; }

  static constexpr size_t kStreamBytes = size_t{16} << 20;
  static constexpr size_t kPieceBytes = size_t{1} << 20;  // text per EncodeInPieces piece
  static constexpr size_t kPartIds = size_t{1} << 20;
  size_t stream_bytes() const { return stream_bytes_; }
  // Tests: stream smaller documents, in smaller pieces and parts.
  void set_streaming_for_testing(size_t stream_bytes, size_t piece_bytes, size_t part_ids) {
    stream_bytes_ = stream_bytes;
    piece_bytes_ = piece_bytes;
    part_ids_ = part_ids;
  }

 private:
  GptBuilder(const Tokenizer& tokenizer, std::optional<uint32_t> eod_id,
             std::optional<uint32_t> bos_id, bool eod_first);

  const Tokenizer& tokenizer_;
  const std::optional<uint32_t> eod_id_;
  const std::optional<uint32_t> bos_id_;
  const bool eod_first_;
  const std::optional<uint32_t> unk_id_;
  Status AddLongDocument(std::string_view text, const ExampleSink& sink);

  Example example_;
  BuilderStats stats_;
  size_t stream_bytes_ = kStreamBytes;
  size_t piece_bytes_ = kPieceBytes;
  size_t part_ids_ = kPartIds;
};

}  // namespace tokenmill
