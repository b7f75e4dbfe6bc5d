// BertBuilder: BERT pre-training examples (masked LM and next sentence prediction) made by the
// algorithm of google-research/bert create_pretraining_data.py (at eedf571):
// create_instances_from_document, truncate_seq_pair and create_masked_lm_predictions, with
// do_whole_word_mask over "##" pieces. docs/examples.md ("BERT") specifies it, the order of the
// random draws included; changing either changes output bytes.
//
// Two modes:
// * google_compat: the builder holds every document of its (single) task and, in Finish(), does
//   what the script does with random.Random(seed) (base/py_random.h): shuffle the documents, make
//   dupe_factor rounds of instances over all of them, shuffle the instances, emit them. The same
//   examples in the same order as the script on the same input, at most
//   kGoogleCompatMaxInputBytes of document text.
// * default: documents are taken in windows of random_next_window documents (and at most
//   kBertWindowMaxTokens tokens); each window is processed as the script processes its whole
//   input, random "next" segments coming from the window's documents. Memory is bounded by the
//   window, whatever the input size; the random streams depend on (seed, task id, dupe round).
//
// Features as run_pretraining.py reads them: input_ids, input_mask, segment_ids (max_seq_length),
// masked_lm_positions, masked_lm_ids, masked_lm_weights (max_predictions_per_seq), and
// next_sentence_labels, zero padded (Example::bert). Thread-safety: one builder per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "tokenmill/base/py_random.h"
#include "tokenmill/base/status.h"
#include "tokenmill/examples/chinese_words.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// compat = "google" holds the whole input in memory (as the script does): document text above
// this size is refused, with an error that points to the default mode. About 12 bytes of memory
// per input byte with dupe_factor 10 (ids of the documents and of every instance).
inline constexpr uint64_t kGoogleCompatMaxInputBytes = 64ull << 20;
// The default mode closes a window at random_next_window documents or at this many tokens.
inline constexpr uint64_t kBertWindowMaxTokens = 1ull << 20;
// Bounds of the BERT options (checked by Create and by the job spec).
inline constexpr uint32_t kMaxDupeFactor = 1000;
inline constexpr uint32_t kMaxRandomNextWindow = 1u << 20;

class BertBuilder : public ExampleBuilder {
 public:
  // InvalidArgument if an option is out of range (max_seq_length in [5, 1<<20],
  // max_predictions_per_seq in [1, max_seq_length], masked_lm_prob in (0, 1), short_seq_prob in
  // [0, 1], dupe_factor in [1, 1000], random_next_window in [1, 1<<20]) or the tokenizer lacks
  // [CLS], [SEP] or [MASK].
  static StatusOr<std::unique_ptr<BertBuilder>> Create(const ExampleOptions& options,
                                                       const Tokenizer& tokenizer,
                                                       uint64_t task_id);

  // Each line of `text` (split on '\n') is stripped as Python's str.strip() does; a blank line
  // starts a new document (as in the script), other lines are tokenized and kept as one sentence
  // when they give ids.
  Status AddDocument(std::string_view text, const ExampleSink& sink) override;
  Status Finish(const ExampleSink& sink) override;
  const BuilderStats& stats() const override { return stats_; }
  KindCounters kind_counters() const override;

 private:
  BertBuilder(const ExampleOptions& options, const Tokenizer& tokenizer, uint64_t task_id,
              const SpecialTokens& specials, std::unique_ptr<ChineseWordSegmenter> segmenter);

  // Ends the document being read (if it has sentences).
  void EndDocument();
  size_t document_count() const { return doc_sentence_begin_.size(); }
  // Processes the held documents (the window, or the whole input in compat mode) and emits the
  // instances: document shuffle, dupe rounds, instance shuffle. Clears the documents.
  Status ProcessDocuments(const ExampleSink& sink);
  // Segments A and B of an instance: ranges of doc_tokens_ (and of doc_words_).
  struct Segments {
    size_t a_begin = 0, a_end = 0, b_begin = 0, b_end = 0;
  };
  // create_instances_from_document: appends the document's instances to pool_ / instances_.
  void CreateInstances(size_t doc, PyRandom& rng);
  // truncate_seq_pair: moves the ends of the segments.
  void TruncateSeqPair(PyRandom& rng, Segments* seg);
  // Stores [CLS] A [SEP] B [SEP] in the pool, then create_masked_lm_predictions over it.
  void MaskAndStore(bool random_next, const Segments& seg, PyRandom& rng);
  Status Emit(size_t instance, const ExampleSink& sink);

  const Tokenizer& tokenizer_;
  const ExampleOptions options_;
  const uint32_t cls_id_, sep_id_, mask_id_;
  const std::optional<uint32_t> unk_id_;
  // What the builder reads of the vocabulary, shared by the builders of every task over it.
  struct Vocabulary {
    // list(tokenizer.vocab.keys()) as ids: a random replacement word is one of these.
    std::vector<uint32_t> words;
    // Ids whose token starts with "##" (whole word masking).
    std::vector<bool> continuation;
  };
  static std::shared_ptr<const Vocabulary> VocabularyOf(const Tokenizer& tokenizer);
  static std::shared_ptr<const Vocabulary> MakeVocabulary(const Tokenizer& tokenizer);
  const std::shared_ptr<const Vocabulary> vocabulary_;
  // chinese_whole_word: the Han character of each id whose token is one ("##" aside), else 0;
  // the segmenter; the word number of each held token (kNoWord if none).
  static constexpr uint32_t kNoWord = UINT32_MAX;
  std::vector<char32_t> han_char_;
  std::unique_ptr<ChineseWordSegmenter> segmenter_;
  std::vector<uint32_t> doc_words_;
  uint32_t next_word_ = 0;
  std::vector<HanCharacter> han_scratch_;
  // Gives the tokens doc_tokens_[begin..] the words of `line`'s Han characters.
  void AssignWords(std::string_view line, size_t begin);

  // The held documents: sentences are ranges of tokens_ (sentence_end_), documents ranges of
  // sentences (doc_sentence_begin_; a document ends where the next begins).
  std::vector<uint32_t> doc_tokens_;
  std::vector<size_t> sentence_end_;
  std::vector<size_t> doc_sentence_begin_;
  size_t open_sentences_ = 0;    // sentences of the document being read
  std::vector<uint32_t> order_;  // documents in shuffled order
  uint64_t held_bytes_ = 0;      // compat: document text seen so far

  // compat: random.Random(seed). Default: the shuffle stream and one stream per dupe round.
  std::vector<PyRandom> rngs_;
  uint64_t window_index_ = 0;

  // Instances: pool_ holds, per instance, its input ids, then its masked positions and their
  // original ids.
  struct Instance {
    size_t offset;
    uint32_t length;    // input ids ([CLS] A [SEP] B [SEP])
    uint32_t a_length;  // [CLS] A [SEP]
    uint32_t predictions;
    bool random_next;
  };
  std::vector<uint32_t> pool_;
  std::vector<Instance> instances_;

  // Scratch.
  std::vector<uint32_t> token_words_;  // chinese_whole_word: the word of each instance token
  // Candidate words: (offset in candidate_indexes_, piece count); their token indexes.
  std::vector<std::pair<uint32_t, uint32_t>> candidates_;
  std::vector<uint32_t> candidate_indexes_;
  std::vector<uint32_t> positions_;  // one-token candidates (no whole word masking)
  std::vector<std::pair<uint32_t, uint32_t>> masked_;  // (index, original id)
  Example example_;

  BuilderStats stats_;
};

}  // namespace tokenmill
