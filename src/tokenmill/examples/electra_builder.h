// ElectraBuilder: pre-training examples exactly as google-research/electra
// build_pretraining_dataset.py's ExampleBuilder makes them, with tokenmill's Rng in place of
// Python's `random` module. The algorithm and the order of the random draws are specified in
// docs/examples.md; changing either changes output bytes.
//
// Lines are stripped as Python's str.strip() does and tokenized one at a time; sentences are
// buffered until their token count reaches the target length (or a document ends), then split
// into segments A and B: [CLS] A [SEP] B [SEP], zero-padded to max_seq_length.
// A line of more than stream_bytes() is tokenized in pieces (Tokenizer::EncodeInPieces), and only
// its first max(max_seq_length, 100000) ids are kept: no id past max_seq_length in a sentence
// survives truncation, and the segment rules compare a sentence's length with targets of at most
// 100000 (the one-segment draw), so the examples are the same; the statistics count every id.
// Thread-safety: one builder per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tokenmill/base/rng.h"
#include "tokenmill/base/status.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// Bounds of ExampleOptions::max_seq_length for ELECTRA (RandInt(5, max) needs max >= 5).
inline constexpr uint32_t kMinMaxSeqLength = 5;
inline constexpr uint32_t kMaxMaxSeqLength = 1u << 20;

class ElectraBuilder : public ExampleBuilder {
 public:
  // Fails with InvalidArgument if max_seq_length is out of [5, 1<<20] or the tokenizer has no
  // [CLS] or [SEP] token.
  static StatusOr<std::unique_ptr<ElectraBuilder>> Create(const ExampleOptions& options,
                                                          const Tokenizer& tokenizer,
                                                          uint64_t task_id);

  // Feeds each line of `text` (split on '\n') to AddLine, then an empty line (end of document).
  Status AddDocument(std::string_view text, const ExampleSink& sink) override;
  // AddLine(""): flushes the buffered sentences, if any.
  Status Finish(const ExampleSink& sink) override;
  const BuilderStats& stats() const override { return stats_; }
  KindCounters kind_counters() const override;

  // ExampleBuilder.add_line: strips `line`; an empty line flushes a non-empty buffer; otherwise
  // the line's ids are buffered as one sentence and the buffer is flushed once it holds at least
  // the target length. Emits at most one example.
  Status AddLine(std::string_view line, const ExampleSink& sink);

  // The target length of the example being buffered (max_seq_length, or a random length after
  // the 5% draw).
  uint32_t target_length() const { return target_length_; }

  static constexpr size_t kStreamBytes = size_t{1} << 20;
  static constexpr size_t kPieceBytes = size_t{1} << 20;  // text per EncodeInPieces piece
  size_t stream_bytes() const { return stream_bytes_; }
  // Tests: stream shorter lines, in smaller pieces, keeping fewer ids of each.
  void set_streaming_for_testing(size_t stream_bytes, size_t piece_bytes, size_t kept_ids) {
    stream_bytes_ = stream_bytes;
    piece_bytes_ = piece_bytes;
    kept_ids_ = kept_ids;
  }

 private:
  ElectraBuilder(const ExampleOptions& options, const Tokenizer& tokenizer, uint64_t task_id,
                 uint32_t cls_id, uint32_t sep_id, std::optional<uint32_t> unk_id);

  // ExampleBuilder._create_example followed by _make_tf_example.
  Status CreateExample(const ExampleSink& sink);
  // Appends the first kept_ids_ ids of a long line to buffer_; returns the ids it had.
  size_t EncodeLongLine(std::string_view line);

  const Tokenizer& tokenizer_;
  const uint32_t max_length_;
  const uint32_t cls_id_;
  const uint32_t sep_id_;
  const std::optional<uint32_t> unk_id_;
  Rng rng_;
  uint32_t target_length_;
  size_t stream_bytes_ = kStreamBytes;
  size_t piece_bytes_ = kPieceBytes;
  size_t kept_ids_;

  // The buffered sentences (Python's _current_sentences), concatenated; sentence_ends_[i] is the
  // end offset of sentence i in buffer_. Empty sentences are not stored: they never change a
  // segment and never cause a random draw (see docs/examples.md).
  std::vector<uint32_t> buffer_;
  std::vector<size_t> sentence_ends_;

  // Scratch, reused across examples.
  std::vector<uint32_t> first_;
  std::vector<uint32_t> second_;
  Example example_;

  BuilderStats stats_;
};

}  // namespace tokenmill
