// ChineseWordSegmenter: the Chinese words of a text, from ICU's dictionary-based word break
// iterator (BreakIterator::createWordInstance, locale "zh"; ICU 72 in Debian 12). Used by the BERT
// builder's Chinese whole word masking (`[examples] chinese_whole_word`): the characters of a word
// are masked together, as Chinese-BERT-wwm does.
//
// A word is a segment that ICU marks as ideographic (rule status UBRK_WORD_IDEO); its Han
// characters (Unicode script Han) share a word number. Other characters belong to no word.
// Thread-safety: not thread-safe (holds a BreakIterator); one per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill {

struct HanCharacter {
  char32_t c;     // the code point
  uint32_t word;  // its word's number
};

class ChineseWordSegmenter {
 public:
  // Internal if ICU cannot create the iterator (its data is missing).
  static StatusOr<std::unique_ptr<ChineseWordSegmenter>> Create();
  ~ChineseWordSegmenter();

  // Appends the Han characters of ideographic words of `utf8`, in text order, with word numbers
  // counted on from *next_word (which is advanced past the words used). Invalid UTF-8 is read as
  // U+FFFD.
  void Segment(std::string_view utf8, std::vector<HanCharacter>* out, uint32_t* next_word);

  // Whether `c` is of Unicode script Han.
  static bool IsHan(char32_t c);

 private:
  struct Impl;  // ICU's BreakIterator (its headers stay out of this one)
  explicit ChineseWordSegmenter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tokenmill
