// ExampleBuilder: documents in, training examples out.
//
// Kinds: "electra" (google-research/electra build_pretraining_dataset.py ExampleBuilder, exactly),
// "bert" (google-research/bert create_pretraining_data.py: masked LM and next sentence) and "gpt"
// (each document's ids followed or preceded by the end-of-document token).
// A builder is created per task with Rng(job seed, task id), so its output depends only on the
// task's input. Thread-safety: one builder per thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/examples/example.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

enum class ExampleKind { kElectra, kGpt, kBert };

struct ExampleOptions {
  ExampleKind kind = ExampleKind::kElectra;
  uint32_t max_seq_length = 128;  // electra, bert. Default: 128
  uint64_t seed = 12345;          // Default: 12345
  // gpt: add the end-of-document token. Default: true.
  bool append_eod = true;
  // gpt: put the end-of-document token before each document instead of after it (llm.c's
  // layout). Set by the job from the output format, not by users.
  bool eod_first = false;
  // gpt: the end-of-document token's text. Default: the tokenizer's <|endoftext|>, else its EOS
  // (</s>, <eos>).
  std::optional<std::string> eod_token;
  // gpt: put the beginning-of-sequence token before each document's text. Default: false.
  bool prepend_bos = false;
  // gpt: the beginning-of-sequence token's text. Default: the tokenizer's BOS (<s>, <bos>).
  std::optional<std::string> bos_token;

  // bert (docs/examples.md, "BERT"). The names and defaults of create_pretraining_data.py's flags.
  uint32_t max_predictions_per_seq = 20;  // Default: 20
  double masked_lm_prob = 0.15;           // in (0, 1). Default: 0.15
  double short_seq_prob = 0.1;            // in [0, 1]. Default: 0.1
  uint32_t dupe_factor = 10;              // Default: 10
  bool do_whole_word_mask = false;        // mask all "##" pieces of a word together
  // Mask the characters of each Chinese word together (words from ICU's word break iterator,
  // examples/chinese_words.h), whatever do_whole_word_mask says. Not with google_compat.
  bool chinese_whole_word = false;
  // Default mode: random "next" segments come from the window of this many documents of the
  // task that holds the current one. Default: 1000
  uint32_t random_next_window = 1000;
  // compat = "google": one builder sees the whole input and reproduces create_pretraining_data.py
  // with random.Random(seed), example for example (at most kGoogleCompatMaxInputBytes).
  bool google_compat = false;
};

struct BuilderStats {
  uint64_t documents = 0;
  uint64_t lines = 0;
  uint64_t tokens = 0;      // ids produced by the tokenizer
  uint64_t unk_tokens = 0;  // of which [UNK]
  uint64_t examples = 0;
  uint64_t truncated_tokens = 0;  // ids dropped by truncation (electra)
  // Draw counters, for the statistical tests of the ELECTRA builder.
  uint64_t one_segment_draws = 0, one_segment_hits = 0;
  uint64_t random_target_draws = 0, random_target_hits = 0;
  uint64_t overflow_coin_tosses = 0, overflow_coin_heads = 0;
  // BERT: masked LM predictions and how their tokens were replaced (80% [MASK], 10% kept, 10% a
  // random word), the whole words they cover (a word of several "##" pieces counts once), the
  // examples whose segment B is a random next, and the documents' short target lengths.
  uint64_t masked_tokens = 0, masked_as_mask = 0, masked_as_original = 0, masked_as_random = 0;
  uint64_t masked_words = 0;
  uint64_t random_next = 0;
  uint64_t short_seq_draws = 0, short_seq_hits = 0;
};

using ExampleSink = std::function<Status(const Example&)>;

// What a builder tells the task statistics (job/content_stats.h, docs/report.md) beyond its
// BuilderStats: the ids the tokenizer produced, as they are produced. Not thread-safe: one
// observer per builder.
class TokenObserver {
 public:
  virtual ~TokenObserver() = default;
  // The ids the tokenizer produced for one piece of text (a line, a sentence or a document),
  // before truncation and without the special tokens the builder adds.
  virtual void OnTokens(std::span<const uint32_t> ids) = 0;
};

// A counter that only one example kind has (e.g. "bert.masked_tokens"), by name: summed over
// tasks into the statistics without any change to their format.
using KindCounters = std::vector<std::pair<std::string, uint64_t>>;

class ExampleBuilder {
 public:
  virtual ~ExampleBuilder() = default;
  // Optional; not owned, must outlive the builder. Builders call OnTokens after each Encode.
  void set_token_observer(TokenObserver* observer) { observer_ = observer; }
  // This kind's own counters so far, named "<kind>.<what>". Default: none.
  virtual KindCounters kind_counters() const { return {}; }
  // Tokenizes one document (text with '\n' between lines) and emits the examples it completes.
  // REQUIRES: `text` is valid UTF-8, as every reader's Document is (io/document_reader.h): the
  // builders do not check it again.
  virtual Status AddDocument(std::string_view text, const ExampleSink& sink) = 0;
  // Emits what is still buffered (the end of the input ends a document).
  virtual Status Finish(const ExampleSink& sink) = 0;
  virtual const BuilderStats& stats() const = 0;

 protected:
  // Tells the observer, if any, about the ids the tokenizer just produced.
  void ObserveTokens(std::span<const uint32_t> ids) const {
    if (observer_ != nullptr) observer_->OnTokens(ids);
  }

 private:
  TokenObserver* observer_ = nullptr;
};

// `tokenizer` must outlive the builder. `task_id` seeds the random stream.
StatusOr<std::unique_ptr<ExampleBuilder>> CreateExampleBuilder(const ExampleOptions& options,
                                                               const Tokenizer& tokenizer,
                                                               uint64_t task_id);

}  // namespace tokenmill
