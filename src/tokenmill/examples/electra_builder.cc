#include "tokenmill/examples/electra_builder.h"

#include <algorithm>
#include <string>

#include "tokenmill/base/python_space.h"

namespace tokenmill {
namespace {

// Python: `if random.random() < 0.1: first_segment_target_length = 100000`.
constexpr double kOneSegmentProbability = 0.1;
constexpr size_t kOneSegmentTarget = 100000;
// Python: `random.random() < 0.5` when a sentence would overflow the first segment.
constexpr double kOverflowCoinProbability = 0.5;
// Python: `if random.random() < 0.05: self._target_length = random.randint(5, max_length)`.
constexpr double kRandomTargetProbability = 0.05;

}  // namespace

StatusOr<std::unique_ptr<ElectraBuilder>> ElectraBuilder::Create(const ExampleOptions& options,
                                                                 const Tokenizer& tokenizer,
                                                                 uint64_t task_id) {
  if (options.max_seq_length < kMinMaxSeqLength || options.max_seq_length > kMaxMaxSeqLength) {
    return Status::InvalidArgument("max_seq_length " + std::to_string(options.max_seq_length) +
                                   " is out of range for electra examples; use a value from " +
                                   std::to_string(kMinMaxSeqLength) + " to " +
                                   std::to_string(kMaxMaxSeqLength));
  }
  const SpecialTokens& specials = tokenizer.specials();
  if (!specials.cls.has_value() || !specials.sep.has_value()) {
    return Status::InvalidArgument(
        std::string("the tokenizer has no ") + (specials.cls.has_value() ? "[SEP]" : "[CLS]") +
        " token, which electra examples need; use a BERT WordPiece vocabulary");
  }
  return std::unique_ptr<ElectraBuilder>(
      new ElectraBuilder(options, tokenizer, task_id, *specials.cls, *specials.sep, specials.unk));
}

ElectraBuilder::ElectraBuilder(const ExampleOptions& options, const Tokenizer& tokenizer,
                               uint64_t task_id, uint32_t cls_id, uint32_t sep_id,
                               std::optional<uint32_t> unk_id)
    : tokenizer_(tokenizer),
      max_length_(options.max_seq_length),
      cls_id_(cls_id),
      sep_id_(sep_id),
      unk_id_(unk_id),
      rng_(options.seed, task_id),
      target_length_(options.max_seq_length),
      kept_ids_(std::max<size_t>(options.max_seq_length, kOneSegmentTarget)) {}

Status ElectraBuilder::AddDocument(std::string_view text, const ExampleSink& sink) {
  ++stats_.documents;
  size_t pos = 0;
  while (true) {
    const size_t nl = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    ++stats_.lines;
    TM_RETURN_IF_ERROR(AddLine(line, sink));
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return AddLine("", sink);  // the blank line that ends a document
}

Status ElectraBuilder::Finish(const ExampleSink& sink) { return AddLine("", sink); }

KindCounters ElectraBuilder::kind_counters() const {
  // The random draws of docs/examples.md that shape the examples.
  return {{"electra.one_segment_examples", stats_.one_segment_hits},
          {"electra.random_length_targets", stats_.random_target_hits},
          {"electra.overflow_coin_tosses", stats_.overflow_coin_tosses},
          {"electra.overflow_coin_heads", stats_.overflow_coin_heads}};
}

Status ElectraBuilder::AddLine(std::string_view line, const ExampleSink& sink) {
  line = PythonStrip(line);
  if (line.empty() && !buffer_.empty()) return CreateExample(sink);
  const size_t before = buffer_.size();
  if (line.size() > stream_bytes_) {
    const size_t added = EncodeLongLine(line);
    if (added == 0) return Status::Ok();
    stats_.tokens += added;
    stats_.truncated_tokens += added - (buffer_.size() - before);
  } else {
    // Encode("") yields no ids; the document was checked by its reader (AddDocument).
    if (!line.empty()) tokenizer_.EncodeValidUtf8(line, &buffer_);
    const size_t added = buffer_.size() - before;
    if (added == 0) return Status::Ok();  // an empty sentence: changes nothing (see header)
    stats_.tokens += added;
    if (unk_id_.has_value()) {
      stats_.unk_tokens += static_cast<uint64_t>(std::count(
          buffer_.begin() + static_cast<std::ptrdiff_t>(before), buffer_.end(), *unk_id_));
    }
    ObserveTokens(std::span<const uint32_t>(buffer_).subspan(before));
  }
  sentence_ends_.push_back(buffer_.size());
  if (buffer_.size() >= target_length_) return CreateExample(sink);
  return Status::Ok();
}

size_t ElectraBuilder::EncodeLongLine(std::string_view line) {
  size_t added = 0;
  tokenizer_.EncodeInPieces(line, piece_bytes_, [&](std::span<const uint32_t> piece) {
    added += piece.size();
    if (unk_id_.has_value()) {
      stats_.unk_tokens += static_cast<uint64_t>(std::count(piece.begin(), piece.end(), *unk_id_));
    }
    ObserveTokens(piece);
    const size_t kept = added - piece.size();  // ids of this line before the piece
    if (kept < kept_ids_) {
      const size_t take = std::min(piece.size(), kept_ids_ - kept);
      buffer_.insert(buffer_.end(), piece.begin(),
                     piece.begin() + static_cast<std::ptrdiff_t>(take));
    }
  });
  return added;
}

Status ElectraBuilder::CreateExample(const ExampleSink& sink) {
  // Draw 1: one segment only?
  ++stats_.one_segment_draws;
  size_t first_target;
  if (rng_.Uniform01() < kOneSegmentProbability) {
    ++stats_.one_segment_hits;
    first_target = kOneSegmentTarget;
  } else {
    first_target = (target_length_ - 3) / 2;  // target_length_ >= 5
  }

  // Each sentence goes to the first segment if it is empty, the sentence fits, or (draw 2, only
  // while the second segment is empty and the first is short of its target) a fair coin says so.
  first_.clear();
  second_.clear();
  size_t begin = 0;
  for (const size_t end : sentence_ends_) {
    const size_t length = end - begin;
    bool to_first = first_.empty() || first_.size() + length < first_target;
    if (!to_first && second_.empty() && first_.size() < first_target) {
      ++stats_.overflow_coin_tosses;
      if (rng_.Uniform01() < kOverflowCoinProbability) {
        ++stats_.overflow_coin_heads;
        to_first = true;
      }
    }
    std::vector<uint32_t>& segment = to_first ? first_ : second_;
    segment.insert(segment.end(), buffer_.begin() + static_cast<std::ptrdiff_t>(begin),
                   buffer_.begin() + static_cast<std::ptrdiff_t>(end));
    begin = end;
  }

  // Truncate, leaving room for [CLS] and [SEP] (and B's [SEP]).
  const size_t first_limit = max_length_ - 2;
  if (first_.size() > first_limit) {
    stats_.truncated_tokens += first_.size() - first_limit;
    first_.resize(first_limit);
  }
  const size_t second_limit =
      max_length_ >= first_.size() + 3 ? max_length_ - first_.size() - 3 : 0;
  if (second_.size() > second_limit) {
    stats_.truncated_tokens += second_.size() - second_limit;
    second_.resize(second_limit);
  }

  buffer_.clear();
  sentence_ends_.clear();

  // Draw 3: a random target length for the next example?
  ++stats_.random_target_draws;
  if (rng_.Uniform01() < kRandomTargetProbability) {
    ++stats_.random_target_hits;
    target_length_ =
        static_cast<uint32_t>(rng_.RandInt(kMinMaxSeqLength, static_cast<int64_t>(max_length_)));
  } else {
    target_length_ = max_length_;
  }

  // [CLS] A [SEP] (B [SEP]), padded with zeros (not [PAD]'s id) to max_seq_length.
  std::vector<uint32_t>& ids = example_.tokens;
  ids.clear();
  ids.reserve(max_length_);
  ids.push_back(cls_id_);
  ids.insert(ids.end(), first_.begin(), first_.end());
  ids.push_back(sep_id_);
  const size_t first_length = ids.size();
  if (!second_.empty()) {
    ids.insert(ids.end(), second_.begin(), second_.end());
    ids.push_back(sep_id_);
  }
  const size_t real = ids.size();
  example_.num_real_tokens = static_cast<uint32_t>(real);
  ids.resize(max_length_, 0);
  example_.input_mask.assign(max_length_, 0);
  std::fill_n(example_.input_mask.begin(), real, uint8_t{1});
  example_.segment_ids.assign(max_length_, 0);
  std::fill(example_.segment_ids.begin() + static_cast<std::ptrdiff_t>(first_length),
            example_.segment_ids.begin() + static_cast<std::ptrdiff_t>(real), uint8_t{1});
  ++stats_.examples;
  return sink(example_);
}

}  // namespace tokenmill
