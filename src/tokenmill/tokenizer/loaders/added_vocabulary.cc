#include "tokenmill/tokenizer/loaders/added_vocabulary.h"

#include "tokenmill/tokenizer/char_util.h"

namespace tokenmill::hf {

int32_t AddedTokenMatcher::Child(int32_t node, unsigned char b) const {
  for (const auto& [c, n] : nodes_[static_cast<size_t>(node)].next) {
    if (c == b) return n;
  }
  return -1;
}

void AddedTokenMatcher::Add(AddedToken token) {
  if (token.content.empty()) return;
  int32_t node = 0;
  for (char ch : token.content) {
    const auto b = static_cast<unsigned char>(ch);
    int32_t child = Child(node, b);
    if (child < 0) {
      child = static_cast<int32_t>(nodes_.size());
      nodes_.emplace_back();
      nodes_[static_cast<size_t>(node)].next.emplace_back(b, child);
    }
    node = child;
  }
  first_bytes_.Add(static_cast<unsigned char>(token.content[0]));
  // A repeated content: the later entry wins, as in HF's map from content to token.
  nodes_[static_cast<size_t>(node)].token = static_cast<int32_t>(tokens_.size());
  tokens_.push_back(std::move(token));
}

namespace {

bool WordCharBefore(std::string_view s, size_t i) {
  if (i == 0) return false;
  size_t start = i - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  size_t len;
  return IsWordChar(DecodeAt(s, start, &len));
}

bool WordCharAt(std::string_view s, size_t i) {
  if (i >= s.size()) return false;
  size_t len;
  return IsWordChar(DecodeAt(s, i, &len));
}

}  // namespace

void AddedTokenMatcher::Find(std::string_view text, std::vector<Split>* splits) const {
  size_t emitted = 0;  // text before this is in *splits
  size_t pos = 0;
  while ((pos = first_bytes_.Find(text, pos)) < text.size()) {
    // The longest token starting at pos.
    int32_t node = 0;
    int32_t best = -1;
    size_t best_end = 0;
    for (size_t i = pos; i < text.size(); ++i) {
      node = Child(node, static_cast<unsigned char>(text[i]));
      if (node < 0) break;
      if (nodes_[static_cast<size_t>(node)].token >= 0) {
        best = nodes_[static_cast<size_t>(node)].token;
        best_end = i + 1;
      }
    }
    if (best < 0) {
      ++pos;
      continue;
    }
    const AddedToken& t = tokens_[static_cast<size_t>(best)];
    size_t start = pos;
    size_t stop = best_end;
    pos = best_end;  // a rejected match still consumes its text, as HF's match iterator
    if (skip_special_ && t.special) continue;
    if (t.single_word && (WordCharBefore(text, start) || WordCharAt(text, stop))) continue;
    if (t.lstrip) {
      size_t s = start;
      while (s > emitted) {
        size_t b = s - 1;
        while (b > emitted && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
        size_t len;
        if (!IsWhitespace(DecodeAt(text, b, &len))) break;
        s = b;
      }
      start = s;
    }
    if (t.rstrip) {
      while (stop < text.size()) {
        size_t len;
        if (!IsWhitespace(DecodeAt(text, stop, &len))) break;
        stop += len;
      }
      pos = stop;
    }
    if (start > emitted) splits->push_back({emitted, start, -1});
    splits->push_back({start, stop, static_cast<int64_t>(t.id)});
    emitted = stop;
  }
  if (emitted < text.size()) splits->push_back({emitted, text.size(), -1});
}

}  // namespace tokenmill::hf
