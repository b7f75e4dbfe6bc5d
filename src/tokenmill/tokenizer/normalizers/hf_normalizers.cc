#include "tokenmill/tokenizer/normalizers/hf_normalizers.h"

#include <utf8proc.h>

#include <utility>
#include <vector>

#include "tokenmill/tokenizer/char_util.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"

namespace tokenmill::hf {

void PrependNormalizer::Normalize(Segment* segment) const {
  if (segment->text.empty() || segment->continued) return;
  segment->text.insert(0, prefix_);
}

bool ReplaceNormalizer::KeepsCut(std::string* cut) const {
  if (space_runs_) {  // a run of spaces starting at the cut lies wholly after it
    if (*cut == kMetaspace) return true;
    if (content_.empty()) return false;
    size_t len;
    DecodeAt(content_, 0, &len);
    const std::string_view first = std::string_view(content_).substr(0, len);
    if (first == " ") return true;  // one space or a run: " " at the cut either way
    if (first != kMetaspace) return false;
    *cut = kSpaceOrMetaspace;  // " " if one space, "▁" if a run
    return true;
  }
  if (regex_ != nullptr) return false;
  if (literal_ == " " && (*cut == " " || *cut == kSpaceOrMetaspace)) {
    if (content_ == kMetaspace) {
      *cut = kMetaspace;
      return true;
    }
    return content_ == " ";
  }
  // A literal holding " " or "▁" could match across the cut.
  return literal_.find(' ') == std::string::npos && literal_.find(kMetaspace) == std::string::npos;
}

StatusOr<std::unique_ptr<ReplaceNormalizer>> ReplaceNormalizer::Literal(std::string pattern,
                                                                        std::string content) {
  std::unique_ptr<ReplaceNormalizer> r(new ReplaceNormalizer());
  r->literal_ = std::move(pattern);
  r->content_ = std::move(content);
  return r;
}

StatusOr<std::unique_ptr<ReplaceNormalizer>> ReplaceNormalizer::Regex(std::string_view pattern,
                                                                      std::string content) {
  std::unique_ptr<ReplaceNormalizer> r(new ReplaceNormalizer());
  if (pattern == " {2,}") {  // SpmConverter's (Unigram): found without the regex engine
    r->space_runs_ = true;
    r->content_ = std::move(content);
    return r;
  }
  TM_ASSIGN_OR_RETURN(r->regex_, bpe::RegexSplitter::Compile(pattern));
  r->content_ = std::move(content);
  return r;
}

ReplaceNormalizer::~ReplaceNormalizer() = default;

void ReplaceNormalizer::Normalize(Segment* segment) const {
  std::string& s = segment->text;
  std::vector<std::pair<size_t, size_t>> spans;
  if (space_runs_) {
    for (size_t pos = s.find("  "); pos != std::string::npos; pos = s.find("  ", pos)) {
      const size_t end = std::min(s.find_first_not_of(' ', pos), s.size());
      spans.emplace_back(pos, end);
      pos = end;
    }
  } else if (regex_ != nullptr) {
    regex_->Matches(s, &spans);
  } else if (!literal_.empty()) {
    for (size_t pos = s.find(literal_); pos != std::string::npos;
         pos = s.find(literal_, pos + literal_.size())) {
      spans.emplace_back(pos, pos + literal_.size());
    }
  }
  if (spans.empty()) return;
  if (content_.empty() && spans[0].first == 0) segment->at_origin = false;
  std::string out;
  out.reserve(s.size() + spans.size() * content_.size());
  size_t last = 0;
  for (const auto& [start, end] : spans) {
    out.append(s, last, start - last);
    out.append(content_);
    last = end;
  }
  out.append(s, last, std::string::npos);
  s.swap(out);
}

void UnicodeNormalizer::Normalize(Segment* segment) const {
  NormalizeInPlace(&segment->text, form_);  // ASCII and text already in the form stay as they are
}

void LowercaseNormalizer::Normalize(Segment* segment) const {
  std::string& s = segment->text;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t len;
    const uint32_t c = DecodeAt(s, i, &len);
    i += len;
    if (c < 0x80) {
      out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c));
    } else if (c == 0x130) {  // the one unconditional multi-character lowercase mapping
      out.append("i\xCC\x87");
    } else {
      AppendUtf8(static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))), &out);
    }
  }
  s.swap(out);
}

void StripNormalizer::Normalize(Segment* segment) const {
  std::string& s = segment->text;
  size_t begin = 0;
  size_t end = s.size();
  if (left_ && !segment->continued) {
    while (begin < end) {
      size_t len;
      if (!IsWhitespace(DecodeAt(s, begin, &len))) break;
      begin += len;
    }
  }
  if (right_ && !segment->continues) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      size_t len;
      if (!IsWhitespace(DecodeAt(s, start, &len))) break;
      end = start;
    }
  }
  if (begin > 0) segment->at_origin = false;
  s = s.substr(begin, end - begin);
}

void StripAccentsNormalizer::Normalize(Segment* segment) const {
  std::string& s = segment->text;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t len;
    const uint32_t c = DecodeAt(s, i, &len);
    if (c < 0x300 || !IsMark(c)) {
      out.append(s, i, len);
    } else if (i == 0) {
      segment->at_origin = false;
    }
    i += len;
  }
  s.swap(out);
}

void NmtNormalizer::Normalize(Segment* segment) const {
  std::string& s = segment->text;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t len;
    const uint32_t c = DecodeAt(s, i, &len);
    const bool drop = (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) ||
                      c == 0x7F || c == 0x8F || c == 0x9F;
    const bool space = c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 ||
                       (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 || c == 0x2581 ||
                       c == 0xFEFF || c == 0xFFFD;
    if (drop) {
      if (i == 0) segment->at_origin = false;
    } else if (space) {
      out.push_back(' ');
    } else {
      out.append(s, i, len);
    }
    i += len;
  }
  s.swap(out);
}

}  // namespace tokenmill::hf
