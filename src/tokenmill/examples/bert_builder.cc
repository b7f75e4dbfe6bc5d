#include "tokenmill/examples/bert_builder.h"

#include <unicode/utf8.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>

#include "tokenmill/base/python_space.h"
#include "tokenmill/examples/electra_builder.h"

namespace tokenmill {
namespace {

// create_masked_lm_predictions: 80% [MASK], then half of the rest keep the original token.
constexpr double kMaskProbability = 0.8;
constexpr double kKeepProbability = 0.5;
// create_instances_from_document: segment B is the actual next with probability 1/2.
constexpr double kRandomNextProbability = 0.5;
// Tries to draw a random document other than the current one.
constexpr int kRandomDocumentTries = 10;
// Default mode: stream numbers of the per-task random streams (see docs/examples.md).
constexpr uint32_t kShuffleStream = 0;

// The first code point of `s` in *c; returns its length in bytes (0 if invalid or empty).
size_t DecodeOneCodePoint(std::string_view s, char32_t* c) {
  if (s.empty()) return 0;
  int32_t i = 0;
  UChar32 cp;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), i, static_cast<int32_t>(s.size()), cp);
  if (cp < 0) return 0;
  *c = static_cast<char32_t>(cp);
  return static_cast<size_t>(i);
}

void AppendUtf8(char32_t c, std::string* out) {
  uint8_t buf[U8_MAX_LENGTH];
  int32_t n = 0;
  U8_APPEND_UNSAFE(buf, n, static_cast<UChar32>(c));
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

Status OutOfRange(const std::string& key, const std::string& value, const std::string& want) {
  return Status::InvalidArgument("[examples] " + key + " = " + value +
                                 " is out of range for bert "
                                 "examples: " +
                                 want);
}

}  // namespace

StatusOr<std::unique_ptr<BertBuilder>> BertBuilder::Create(const ExampleOptions& options,
                                                           const Tokenizer& tokenizer,
                                                           uint64_t task_id) {
  if (options.max_seq_length < kMinMaxSeqLength || options.max_seq_length > kMaxMaxSeqLength) {
    return OutOfRange("max_seq_length", std::to_string(options.max_seq_length),
                      "use a value from " + std::to_string(kMinMaxSeqLength) + " to " +
                          std::to_string(kMaxMaxSeqLength));
  }
  if (options.max_predictions_per_seq < 1 ||
      options.max_predictions_per_seq > options.max_seq_length) {
    return OutOfRange(
        "max_predictions_per_seq", std::to_string(options.max_predictions_per_seq),
        "use a value from 1 to max_seq_length (" + std::to_string(options.max_seq_length) + ")");
  }
  if (!(options.masked_lm_prob > 0.0 && options.masked_lm_prob < 1.0)) {
    return OutOfRange("masked_lm_prob", std::to_string(options.masked_lm_prob),
                      "use a probability greater than 0 and less than 1 (Google's default: 0.15)");
  }
  if (!(options.short_seq_prob >= 0.0 && options.short_seq_prob <= 1.0)) {
    return OutOfRange("short_seq_prob", std::to_string(options.short_seq_prob),
                      "use a probability from 0 to 1 (Google's default: 0.1)");
  }
  if (options.dupe_factor < 1 || options.dupe_factor > kMaxDupeFactor) {
    return OutOfRange("dupe_factor", std::to_string(options.dupe_factor),
                      "use a value from 1 to " + std::to_string(kMaxDupeFactor));
  }
  if (options.random_next_window < 1 || options.random_next_window > kMaxRandomNextWindow) {
    return OutOfRange("random_next_window", std::to_string(options.random_next_window),
                      "use a value from 1 to " + std::to_string(kMaxRandomNextWindow));
  }
  const SpecialTokens& specials = tokenizer.specials();
  for (const auto& [name, id] : {std::pair{"[CLS]", specials.cls}, std::pair{"[SEP]", specials.sep},
                                 std::pair{"[MASK]", specials.mask}}) {
    if (!id.has_value()) {
      return Status::InvalidArgument(std::string("the tokenizer's vocabulary has no ") + name +
                                     " token, which bert examples need; use a BERT WordPiece "
                                     "vocabulary (vocab.txt with [CLS], [SEP] and [MASK])");
    }
  }
  if (options.chinese_whole_word && options.google_compat) {
    return Status::InvalidArgument(
        "[examples] chinese_whole_word does not exist in create_pretraining_data.py: remove it "
        "or remove compat = \"google\"");
  }
  std::unique_ptr<ChineseWordSegmenter> segmenter;
  if (options.chinese_whole_word) {
    TM_ASSIGN_OR_RETURN(segmenter, ChineseWordSegmenter::Create());
  }
  return std::unique_ptr<BertBuilder>(
      new BertBuilder(options, tokenizer, task_id, specials, std::move(segmenter)));
}

std::shared_ptr<const BertBuilder::Vocabulary> BertBuilder::MakeVocabulary(
    const Tokenizer& tokenizer) {
  // list(tokenizer.vocab.keys()) of tokenization.load_vocab, which strips each line (so that
  // "\u2028" in bert-base-chinese's vocab.txt is the key "") and maps a key to the last line
  // holding it: each stripped token once, in the order of its first line, with the last id.
  // When every id's token is its own stripped form and the id the tokenizer gives it, the
  // tokens are distinct and the list is every id in order (bert-base-uncased): no map.
  auto vocabulary = std::make_shared<Vocabulary>();
  std::vector<uint32_t>& words = vocabulary->words;
  std::vector<bool>& continuation = vocabulary->continuation;
  const uint32_t size = tokenizer.vocab_size();
  continuation.assign(size, false);
  bool plain = true;
  for (uint32_t id = 0; id < size; ++id) {
    const std::string_view token = tokenizer.IdToToken(id);
    const std::string_view stripped = PythonStrip(token);
    continuation[id] = stripped.starts_with("##");
    if (plain &&
        (token.empty() || stripped.size() != token.size() || tokenizer.TokenToId(token) != id)) {
      plain = false;
    }
  }
  words.reserve(size);
  if (plain) {
    for (uint32_t id = 0; id < size; ++id) words.push_back(id);
  } else {
    std::unordered_map<std::string_view, size_t> position;
    position.reserve(size);
    for (uint32_t id = 0; id < size; ++id) {
      const std::string_view token = PythonStrip(tokenizer.IdToToken(id));
      const auto [it, inserted] = position.emplace(token, words.size());
      if (inserted) {
        words.push_back(id);
      } else {
        words[it->second] = id;
      }
    }
  }
  return vocabulary;
}

std::shared_ptr<const BertBuilder::Vocabulary> BertBuilder::VocabularyOf(
    const Tokenizer& tokenizer) {
  // A worker builds one builder a task, all over the same vocabulary, whose look-up of every
  // token (MakeVocabulary) cost about 3% of a BERT run. The vocabulary is found again by the
  // hash of its tokens in order, which reads each token once without a look-up.
  const uint32_t size = tokenizer.vocab_size();
  uint64_t key = size;
  for (uint32_t id = 0; id < size; ++id) {
    key = key * 0x9E3779B97F4A7C15ULL + std::hash<std::string_view>{}(tokenizer.IdToToken(id)) + 1;
  }
  static std::mutex mu;
  static std::map<uint64_t, std::shared_ptr<const Vocabulary>> made;  // few: one a job
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = made.find(key); it != made.end()) return it->second;
  }
  std::shared_ptr<const Vocabulary> vocabulary = MakeVocabulary(tokenizer);
  std::lock_guard<std::mutex> lock(mu);
  if (made.size() >= 8) made.clear();
  made.emplace(key, vocabulary);
  return vocabulary;
}

BertBuilder::BertBuilder(const ExampleOptions& options, const Tokenizer& tokenizer,
                         uint64_t task_id, const SpecialTokens& specials,
                         std::unique_ptr<ChineseWordSegmenter> segmenter)
    : tokenizer_(tokenizer),
      options_(options),
      cls_id_(*specials.cls),
      sep_id_(*specials.sep),
      mask_id_(*specials.mask),
      unk_id_(specials.unk),
      vocabulary_(VocabularyOf(tokenizer)),
      segmenter_(std::move(segmenter)) {
  const uint32_t size = tokenizer.vocab_size();
  if (segmenter_ != nullptr) {
    han_char_.assign(size, 0);
    for (uint32_t id = 0; id < size; ++id) {
      std::string_view token = tokenizer.IdToToken(id);
      if (token.starts_with("##")) token.remove_prefix(2);
      char32_t c = 0;
      const size_t n = DecodeOneCodePoint(token, &c);
      if (n != 0 && n == token.size() && ChineseWordSegmenter::IsHan(c)) han_char_[id] = c;
    }
  }
  if (options.google_compat) {
    rngs_.emplace_back(options.seed);  // random.Random(FLAGS.random_seed)
  } else {
    const uint32_t seed_lo = static_cast<uint32_t>(options.seed);
    const uint32_t seed_hi = static_cast<uint32_t>(options.seed >> 32);
    const uint32_t task_lo = static_cast<uint32_t>(task_id);
    const uint32_t task_hi = static_cast<uint32_t>(task_id >> 32);
    for (uint32_t stream = 0; stream <= options.dupe_factor; ++stream) {
      const uint32_t key[5] = {seed_lo, seed_hi, task_lo, task_hi, stream};
      rngs_.emplace_back(key);
    }
  }
}

void BertBuilder::EndDocument() {
  if (open_sentences_ == 0) return;
  doc_sentence_begin_.push_back(sentence_end_.size() - open_sentences_);
  open_sentences_ = 0;
}

Status BertBuilder::AddDocument(std::string_view text, const ExampleSink& sink) {
  ++stats_.documents;
  if (options_.google_compat) {
    held_bytes_ += text.size() + 1;
    if (held_bytes_ > kGoogleCompatMaxInputBytes) {
      return Status::InvalidArgument(
          "[examples] compat = \"google\" holds the whole input in memory, as "
          "create_pretraining_data.py does, and its input is larger than the limit of " +
          std::to_string(kGoogleCompatMaxInputBytes >> 20) +
          " MiB of text; remove compat to use the default mode, which makes the same kind of "
          "examples in bounded memory from inputs of any size");
    }
  }
  if (options_.google_compat && text.find('\r') != std::string_view::npos) {
    return Status::InvalidArgument(
        "[examples] compat = \"google\": the input holds a carriage return (\\r), which "
        "create_pretraining_data.py reads as a line end and tokenmill does not; convert the "
        "file's line ends to \\n (dos2unix) or remove compat");
  }
  size_t pos = 0;
  while (true) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line = PythonStrip(
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos));
    ++stats_.lines;
    if (line.empty()) {
      EndDocument();  // Empty lines are used as document delimiters
    } else {
      const size_t before = doc_tokens_.size();
      tokenizer_.EncodeValidUtf8(line, &doc_tokens_);  // checked by the reader (AddDocument)
      const size_t added = doc_tokens_.size() - before;
      if (added > 0) {
        stats_.tokens += added;
        if (unk_id_.has_value()) {
          stats_.unk_tokens += static_cast<uint64_t>(
              std::count(doc_tokens_.begin() + static_cast<std::ptrdiff_t>(before),
                         doc_tokens_.end(), *unk_id_));
        }
        ObserveTokens(std::span<const uint32_t>(doc_tokens_).subspan(before));
        if (segmenter_ != nullptr) AssignWords(line, before);
        sentence_end_.push_back(doc_tokens_.size());
        ++open_sentences_;
      }
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  EndDocument();
  if (!options_.google_compat && (document_count() >= options_.random_next_window ||
                                  doc_tokens_.size() >= kBertWindowMaxTokens)) {
    return ProcessDocuments(sink);
  }
  return Status::Ok();
}

void BertBuilder::AssignWords(std::string_view line, size_t begin) {
  // Each Han character is its own token in BERT's Chinese vocabularies (BasicTokenizer puts
  // spaces around CJK characters), so the Han tokens of the line follow its Han characters in
  // order: a token takes the word of the next character equal to it (looking a few characters
  // ahead, past characters the tokenizer dropped or changed), and [UNK] the word of the next
  // character when that one is not in the vocabulary. Other tokens belong to no word.
  constexpr size_t kLookahead = 8;
  han_scratch_.clear();
  segmenter_->Segment(line, &han_scratch_, &next_word_);
  doc_words_.resize(begin, kNoWord);
  size_t p = 0;
  for (size_t t = begin; t < doc_tokens_.size(); ++t) {
    const uint32_t id = doc_tokens_[t];
    uint32_t word = kNoWord;
    const char32_t c = id < han_char_.size() ? han_char_[id] : 0;
    if (c != 0) {
      for (size_t k = p; k < han_scratch_.size() && k < p + kLookahead; ++k) {
        if (han_scratch_[k].c == c) {
          word = han_scratch_[k].word;
          p = k + 1;
          break;
        }
      }
    } else if (unk_id_.has_value() && id == *unk_id_ && p < han_scratch_.size()) {
      std::string utf8;
      AppendUtf8(han_scratch_[p].c, &utf8);
      if (!tokenizer_.TokenToId(utf8).has_value()) word = han_scratch_[p++].word;
    }
    doc_words_.push_back(word);
  }
}

KindCounters BertBuilder::kind_counters() const {
  // The masking and next-sentence draws (docs/examples.md, "BERT"), for the report.
  return {{"bert.masked_tokens", stats_.masked_tokens},
          {"bert.masked_as_mask", stats_.masked_as_mask},
          {"bert.masked_as_original", stats_.masked_as_original},
          {"bert.masked_as_random", stats_.masked_as_random},
          {"bert.masked_words", stats_.masked_words},
          {"bert.random_next", stats_.random_next},
          {"bert.short_seq_draws", stats_.short_seq_draws},
          {"bert.short_seq_hits", stats_.short_seq_hits}};
}

Status BertBuilder::Finish(const ExampleSink& sink) {
  EndDocument();
  return ProcessDocuments(sink);
}

Status BertBuilder::ProcessDocuments(const ExampleSink& sink) {
  const size_t n = document_count();
  if (n > 0) {
    PyRandom& shuffle_rng = rngs_[kShuffleStream];
    // rng.shuffle(all_documents)
    order_.resize(n);
    for (size_t i = 0; i < n; ++i) order_[i] = static_cast<uint32_t>(i);
    shuffle_rng.Shuffle(&order_);
    for (uint32_t round = 0; round < options_.dupe_factor; ++round) {
      PyRandom& rng = options_.google_compat ? shuffle_rng : rngs_[1 + round];
      for (size_t doc = 0; doc < n; ++doc) CreateInstances(doc, rng);
    }
    // rng.shuffle(instances)
    shuffle_rng.Shuffle(&instances_);
    for (size_t i = 0; i < instances_.size(); ++i) TM_RETURN_IF_ERROR(Emit(i, sink));
  }
  ++window_index_;
  doc_tokens_.clear();
  doc_words_.clear();
  sentence_end_.clear();
  doc_sentence_begin_.clear();
  order_.clear();
  pool_.clear();
  instances_.clear();
  return Status::Ok();
}

void BertBuilder::CreateInstances(size_t doc_index, PyRandom& rng) {
  const size_t n_docs = document_count();
  // Sentences of the document at `index` of the shuffled list: [first, last).
  auto sentences = [&](size_t index, size_t* first, size_t* last) {
    const size_t d = order_[index];
    *first = doc_sentence_begin_[d];
    *last = d + 1 < n_docs ? doc_sentence_begin_[d + 1] : sentence_end_.size();
  };
  auto sentence_begin = [&](size_t s) { return s == 0 ? size_t{0} : sentence_end_[s - 1]; };
  auto sentence_length = [&](size_t s) { return sentence_end_[s] - sentence_begin(s); };

  size_t first, last;
  sentences(doc_index, &first, &last);
  const int64_t document_length = static_cast<int64_t>(last - first);

  // Account for [CLS], [SEP], [SEP]
  const int64_t max_num_tokens = options_.max_seq_length - 3;
  int64_t target_seq_length = max_num_tokens;
  ++stats_.short_seq_draws;
  if (rng.Random() < options_.short_seq_prob) {
    ++stats_.short_seq_hits;
    target_seq_length = rng.RandInt(2, max_num_tokens);
  }

  // current_chunk holds consecutive sentences: [chunk_first, chunk_first + chunk_size). The
  // sentences of a document follow each other in doc_tokens_, so that segments A and B (runs
  // of consecutive sentences) are ranges of it.
  size_t chunk_first = first;
  int64_t chunk_size = 0;
  int64_t current_length = 0;
  int64_t i = 0;
  while (i < document_length) {
    const size_t segment = first + static_cast<size_t>(i);
    if (chunk_size == 0) chunk_first = segment;
    ++chunk_size;
    current_length += static_cast<int64_t>(sentence_length(segment));
    if (i == document_length - 1 || current_length >= target_seq_length) {
      // `a_end` is how many segments from `current_chunk` go into the `A` (first) sentence.
      int64_t a_end = 1;
      if (chunk_size >= 2) a_end = rng.RandInt(1, chunk_size - 1);
      Segments seg;
      seg.a_begin = sentence_begin(chunk_first);
      seg.a_end = sentence_end_[chunk_first + static_cast<size_t>(a_end) - 1];
      bool is_random_next = false;
      if (chunk_size == 1 || rng.Random() < kRandomNextProbability) {
        is_random_next = true;
        const int64_t target_b_length =
            target_seq_length - static_cast<int64_t>(seg.a_end - seg.a_begin);
        int64_t random_document_index = 0;
        for (int t = 0; t < kRandomDocumentTries; ++t) {
          random_document_index = rng.RandInt(0, static_cast<int64_t>(n_docs) - 1);
          if (random_document_index != static_cast<int64_t>(doc_index)) break;
        }
        size_t r_first, r_last;
        sentences(static_cast<size_t>(random_document_index), &r_first, &r_last);
        const int64_t random_start = rng.RandInt(0, static_cast<int64_t>(r_last - r_first) - 1);
        const size_t b_first = r_first + static_cast<size_t>(random_start);
        seg.b_begin = sentence_begin(b_first);
        seg.b_end = seg.b_begin;
        for (size_t j = b_first; j < r_last; ++j) {
          seg.b_end = sentence_end_[j];
          if (static_cast<int64_t>(seg.b_end - seg.b_begin) >= target_b_length) break;
        }
        // We didn't actually use these segments so we "put them back".
        i -= chunk_size - a_end;
      } else {
        seg.b_begin = seg.a_end;
        seg.b_end = sentence_end_[chunk_first + static_cast<size_t>(chunk_size) - 1];
      }
      TruncateSeqPair(rng, &seg);
      MaskAndStore(is_random_next, seg, rng);
      chunk_size = 0;
      current_length = 0;
    }
    ++i;
  }
}

void BertBuilder::TruncateSeqPair(PyRandom& rng, Segments* seg) {
  // Each step removes a token from the longer segment (B when they are equal), at its front or
  // at its back by a draw; the branches of the draw are random, so the ends move by arithmetic.
  const size_t max_num_tokens = options_.max_seq_length - 3;
  size_t a_len = seg->a_end - seg->a_begin, b_len = seg->b_end - seg->b_begin;
  while (a_len + b_len > max_num_tokens) {
    const size_t trunc_a = a_len > b_len ? 1 : 0;
    // Sometimes truncate from the front and sometimes from the back.
    const size_t front = rng.Random() < 0.5 ? 1 : 0;
    seg->a_begin += trunc_a & front;
    seg->a_end -= trunc_a & (front ^ 1);
    seg->b_begin += (trunc_a ^ 1) & front;
    seg->b_end -= (trunc_a ^ 1) & (front ^ 1);
    a_len -= trunc_a;
    b_len -= trunc_a ^ 1;
    ++stats_.truncated_tokens;
  }
}

void BertBuilder::MaskAndStore(bool random_next, const Segments& seg, PyRandom& rng) {
  // [CLS] A [SEP] B [SEP], into the pool.
  const size_t base = pool_.size();
  const auto a_begin = doc_tokens_.begin() + static_cast<std::ptrdiff_t>(seg.a_begin);
  const auto a_end = doc_tokens_.begin() + static_cast<std::ptrdiff_t>(seg.a_end);
  const auto b_begin = doc_tokens_.begin() + static_cast<std::ptrdiff_t>(seg.b_begin);
  const auto b_end = doc_tokens_.begin() + static_cast<std::ptrdiff_t>(seg.b_end);
  pool_.push_back(cls_id_);
  pool_.insert(pool_.end(), a_begin, a_end);
  pool_.push_back(sep_id_);
  const size_t a_length = pool_.size() - base;
  pool_.insert(pool_.end(), b_begin, b_end);
  pool_.push_back(sep_id_);
  const size_t n = pool_.size() - base;
  uint32_t* tokens = pool_.data() + base;
  const bool words = segmenter_ != nullptr;
  if (words) {
    const auto w = [&](size_t at) { return doc_words_.begin() + static_cast<std::ptrdiff_t>(at); };
    token_words_.clear();
    token_words_.push_back(kNoWord);
    token_words_.insert(token_words_.end(), w(seg.a_begin), w(seg.a_end));
    token_words_.push_back(kNoWord);
    token_words_.insert(token_words_.end(), w(seg.b_begin), w(seg.b_end));
    token_words_.push_back(kNoWord);
  }

  // min(max_predictions_per_seq, max(1, int(round(len(tokens) * masked_lm_prob)))); Python's
  // round() of a float rounds half to even, as nearbyint does in the default rounding mode.
  const double scaled = std::nearbyint(static_cast<double>(n) * options_.masked_lm_prob);
  const size_t num_to_predict = std::min<size_t>(options_.max_predictions_per_seq,
                                                 std::max<size_t>(1, static_cast<size_t>(scaled)));
  masked_.clear();
  const std::vector<uint32_t>& vocab_words = vocabulary_->words;
  const std::vector<bool>& continuation = vocabulary_->continuation;
  // Masks the token at `index` by the script's draws; returns its original id.
  const auto mask = [&](uint32_t index) {
    const uint32_t original = tokens[index];
    uint32_t masked_token;
    if (rng.Random() < kMaskProbability) {
      masked_token = mask_id_;
      ++stats_.masked_as_mask;
    } else if (rng.Random() < kKeepProbability) {
      masked_token = original;
      ++stats_.masked_as_original;
    } else {
      masked_token = vocab_words[static_cast<size_t>(
          rng.RandInt(0, static_cast<int64_t>(vocab_words.size()) - 1))];
      ++stats_.masked_as_random;
    }
    tokens[index] = masked_token;
    masked_.emplace_back(index, original);
  };

  // Candidates: every position but [CLS] and [SEP]; with whole word masking a "##" piece joins
  // the candidate before it (even across a [SEP], as in the script).
  if (!options_.do_whole_word_mask && !words) {
    // One token a candidate: the shuffle of their positions makes the same draws and the same
    // order as the shuffle of the script's single-index lists.
    positions_.resize(n);
    size_t kept = 0;
    for (uint32_t i = 0; i < n; ++i) {
      positions_[kept] = i;
      kept += tokens[i] != cls_id_ && tokens[i] != sep_id_ ? 1 : 0;
    }
    positions_.resize(kept);
    rng.Shuffle(&positions_);
    const size_t count = std::min(num_to_predict, positions_.size());
    for (size_t k = 0; k < count; ++k) mask(positions_[k]);
    stats_.masked_words += count;
  } else {
    candidates_.clear();
    candidate_indexes_.clear();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t id = tokens[i];
      if (id == cls_id_ || id == sep_id_) continue;
      const bool piece =
          options_.do_whole_word_mask && id < continuation.size() && continuation[id];
      // Chinese whole words: a character of the same word as the token before it.
      const bool same_word =
          words && i > 0 && token_words_[i] != kNoWord && token_words_[i] == token_words_[i - 1];
      if ((piece || same_word) && !candidates_.empty()) {
        ++candidates_.back().second;
      } else {
        candidates_.emplace_back(static_cast<uint32_t>(candidate_indexes_.size()), 1);
      }
      candidate_indexes_.push_back(static_cast<uint32_t>(i));
    }
    rng.Shuffle(&candidates_);
    for (const auto& [start, count] : candidates_) {
      if (masked_.size() >= num_to_predict) break;
      // If adding a whole-word mask would exceed the maximum number of predictions, skip it.
      if (masked_.size() + count > num_to_predict) continue;
      // (Candidates never overlap: the script's covered_indexes check never skips one.)
      ++stats_.masked_words;
      for (uint32_t k = start; k < start + count; ++k) mask(candidate_indexes_[k]);
    }
  }
  std::sort(masked_.begin(), masked_.end());
  for (const auto& m : masked_) pool_.push_back(m.first);
  for (const auto& m : masked_) pool_.push_back(m.second);
  stats_.masked_tokens += masked_.size();
  if (random_next) ++stats_.random_next;
  instances_.push_back(Instance{base, static_cast<uint32_t>(n), static_cast<uint32_t>(a_length),
                                static_cast<uint32_t>(masked_.size()), random_next});
}

Status BertBuilder::Emit(size_t index, const ExampleSink& sink) {
  const Instance& in = instances_[index];
  const uint32_t max_length = options_.max_seq_length;
  const uint32_t max_predictions = options_.max_predictions_per_seq;
  const uint32_t* p = pool_.data() + in.offset;
  Example& e = example_;
  // The features keep their sizes from one example to the next: only the values are written.
  e.bert = true;
  e.tokens.resize(max_length);
  e.input_mask.resize(max_length);
  e.segment_ids.resize(max_length);
  e.masked_lm_positions.resize(max_predictions);
  e.masked_lm_ids.resize(max_predictions);
  e.masked_lm_weights.resize(max_predictions);
  std::fill(std::copy_n(p, in.length, e.tokens.begin()), e.tokens.end(), 0);
  e.num_real_tokens = in.length;
  std::fill(std::fill_n(e.input_mask.begin(), in.length, uint8_t{1}), e.input_mask.end(), 0);
  std::fill_n(e.segment_ids.begin(), in.a_length, uint8_t{0});
  std::fill(std::fill_n(e.segment_ids.begin() + in.a_length, in.length - in.a_length, uint8_t{1}),
            e.segment_ids.end(), 0);
  p += in.length;
  std::fill(std::copy_n(p, in.predictions, e.masked_lm_positions.begin()),
            e.masked_lm_positions.end(), 0);
  p += in.predictions;
  std::fill(std::copy_n(p, in.predictions, e.masked_lm_ids.begin()), e.masked_lm_ids.end(), 0);
  std::fill(std::fill_n(e.masked_lm_weights.begin(), in.predictions, 1.0f),
            e.masked_lm_weights.end(), 0.0f);
  e.next_sentence_label = in.random_next ? 1 : 0;
  ++stats_.examples;
  return sink(e);
}

}  // namespace tokenmill
