#include "tokenmill/tokenizer/pre_tokenizers/hf_pre_tokenizers.h"

#include <algorithm>
#include <cstddef>

#include "tokenmill/tokenizer/char_util.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

namespace tokenmill::hf {

StatusOr<SplitBehavior> ParseSplitBehavior(std::string_view name) {
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  return Status::InvalidArgument("unknown split behavior \"" + std::string(name) +
                                 "\"; HF has Removed, Isolated, MergedWithPrevious, "
                                 "MergedWithNext and Contiguous");
}

MatchFinder SplitPreTokenizer::Literal(std::string literal) {
  return [literal = std::move(literal)](std::string_view text,
                                        std::vector<std::pair<size_t, size_t>>* m) {
    if (literal.empty()) return;
    for (size_t pos = text.find(literal); pos != std::string_view::npos;
         pos = text.find(literal, pos + literal.size())) {
      m->emplace_back(pos, pos + literal.size());
    }
  };
}

StatusOr<MatchFinder> SplitPreTokenizer::Regex(std::string_view pattern) {
  TM_ASSIGN_OR_RETURN(std::unique_ptr<bpe::RegexSplitter> re, bpe::RegexSplitter::Compile(pattern));
  std::shared_ptr<const bpe::RegexSplitter> shared(std::move(re));
  return MatchFinder([shared](std::string_view text, std::vector<std::pair<size_t, size_t>>* m) {
    shared->Matches(text, m);
  });
}

MatchFinder SplitPreTokenizer::Chars(std::function<bool(uint32_t)> predicate) {
  return [predicate = std::move(predicate)](std::string_view text,
                                            std::vector<std::pair<size_t, size_t>>* m) {
    for (size_t i = 0; i < text.size();) {
      size_t len;
      const uint32_t c = DecodeAt(text, i, &len);
      if (predicate(c)) m->emplace_back(i, i + len);
      i += len;
    }
  };
}

namespace {

struct Range {
  size_t start;
  size_t end;
  bool match;
};

// HF NormalizedString::split over the cover `ranges`: the [start, end) pieces to keep.
void ApplyBehavior(const std::vector<Range>& ranges, SplitBehavior behavior,
                   std::vector<std::pair<size_t, size_t>>* out) {
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const Range& r : ranges) {
        if (!r.match) out->emplace_back(r.start, r.end);
      }
      return;
    case SplitBehavior::kIsolated:
      for (const Range& r : ranges) out->emplace_back(r.start, r.end);
      return;
    case SplitBehavior::kMergedWithPrevious: {
      bool previous_match = false;
      for (const Range& r : ranges) {
        if (r.match && !previous_match && !out->empty()) {
          out->back().second = r.end;
        } else {
          out->emplace_back(r.start, r.end);
        }
        previous_match = r.match;
      }
      return;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous_match = false;
      const size_t first = out->size();
      for (size_t k = ranges.size(); k-- > 0;) {
        const Range& r = ranges[k];
        if (r.match && !previous_match && out->size() > first) {
          out->back().first = r.start;
        } else {
          out->emplace_back(r.start, r.end);
        }
        previous_match = r.match;
      }
      std::reverse(out->begin() + static_cast<std::ptrdiff_t>(first), out->end());
      return;
    }
    case SplitBehavior::kContiguous: {
      bool have = false;
      bool last_match = false;
      for (const Range& r : ranges) {
        if (have && r.match == last_match) {
          out->back().second = r.end;
        } else {
          out->emplace_back(r.start, r.end);
        }
        have = true;
        last_match = r.match;
      }
      return;
    }
  }
}

}  // namespace

void SplitPreTokenizer::PreTokenize(std::vector<Piece>* pieces) const {
  std::vector<Piece> out;
  out.reserve(pieces->size());
  std::vector<std::pair<size_t, size_t>> matches;
  std::vector<Range> ranges;
  std::vector<std::pair<size_t, size_t>> kept;
  for (Piece& piece : *pieces) {
    const std::string& text = piece.text;
    matches.clear();
    find_(text, &matches);
    if (matches.empty() && !invert_ && behavior_ != SplitBehavior::kRemoved) {
      if (!text.empty()) out.push_back(std::move(piece));  // the common no-op case
      continue;
    }
    ranges.clear();
    size_t last = 0;
    for (const auto& [start, end] : matches) {
      if (start > last) ranges.push_back({last, start, invert_});
      ranges.push_back({start, end, !invert_});
      last = end;
    }
    if (last < text.size()) ranges.push_back({last, text.size(), invert_});
    kept.clear();
    ApplyBehavior(ranges, behavior_, &kept);
    for (const auto& [start, end] : kept) {
      if (end <= start) continue;
      out.push_back({text.substr(start, end - start), piece.at_origin && start == 0});
    }
  }
  pieces->swap(out);
}

// HF replaces ' ' first, then prepends unless the piece starts with the replacement: a piece that
// starts with ' ' gets none either.
bool MetaspacePreTokenizer::StartsWithReplacement(std::string_view text) const {
  return text.starts_with(' ') || text.starts_with(replacement_);
}

void MetaspacePreTokenizer::PreTokenize(std::vector<Piece>* pieces) const {
  std::vector<Piece> out;
  out.reserve(pieces->size());
  for (Piece& piece : *pieces) {
    std::string s;
    s.reserve(piece.text.size() + replacement_.size());
    const bool prepend = (scheme_ == PrependScheme::kAlways ||
                          (scheme_ == PrependScheme::kFirst && piece.at_origin)) &&
                         !StartsWithReplacement(piece.text);
    if (prepend) s.append(replacement_);
    for (char c : piece.text) {
      if (c == ' ') {
        s.append(replacement_);
      } else {
        s.push_back(c);
      }
    }
    if (!split_) {
      if (!s.empty()) out.push_back({std::move(s), piece.at_origin});
      continue;
    }
    // MergedWithNext on the replacement: a piece starts at every replacement character that
    // follows a character that is not one (runs of replacements: each but the last alone).
    const size_t r = replacement_.size();
    size_t pos = 0;
    std::vector<std::pair<size_t, size_t>> cut;
    std::vector<Range> ranges;
    while (pos < s.size()) {
      const size_t next = s.find(replacement_, pos);
      if (next == std::string::npos) break;
      if (next > pos) ranges.push_back({pos, next, false});
      ranges.push_back({next, next + r, true});
      pos = next + r;
    }
    if (pos < s.size()) ranges.push_back({pos, s.size(), false});
    ApplyBehavior(ranges, SplitBehavior::kMergedWithNext, &cut);
    for (const auto& [b, e] : cut) {
      if (e > b) out.push_back({s.substr(b, e - b), piece.at_origin && b == 0});
    }
  }
  pieces->swap(out);
}

bool MetaspacePreTokenizer::Visit(std::string_view text, bool at_origin,
                                  const std::function<void(std::string_view)>& visit) const {
  std::string s;
  s.reserve(text.size() + 2 * replacement_.size() + 16);
  const bool prepend =
      (scheme_ == PrependScheme::kAlways || (scheme_ == PrependScheme::kFirst && at_origin)) &&
      !StartsWithReplacement(text);
  if (prepend) s.append(replacement_);
  for (size_t pos = 0; pos < text.size();) {
    const size_t space = text.find(' ', pos);
    const size_t stop = space == std::string_view::npos ? text.size() : space;
    s.append(text.data() + pos, stop - pos);
    if (stop == text.size()) break;
    s.append(replacement_);
    pos = stop + 1;
  }
  if (s.empty()) return true;
  if (!split_) {
    visit(s);
    return true;
  }
  // MergedWithNext on each replacement character: a piece starts at every one of them (a run of
  // them gives each but the last alone, the last merged with what follows).
  const std::string_view all(s);
  size_t start = 0;
  for (size_t at = all.find(replacement_, 1); at != std::string_view::npos;
       at = all.find(replacement_, at + replacement_.size())) {
    visit(all.substr(start, at - start));
    start = at;
  }
  visit(all.substr(start));
  return true;
}

}  // namespace tokenmill::hf
