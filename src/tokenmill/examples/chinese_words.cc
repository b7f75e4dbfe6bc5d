#include "tokenmill/examples/chinese_words.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/ubrk.h>
#include <unicode/uscript.h>
#include <unicode/utypes.h>

#include <string>

namespace tokenmill {

struct ChineseWordSegmenter::Impl {
  std::unique_ptr<icu::BreakIterator> words;
};

StatusOr<std::unique_ptr<ChineseWordSegmenter>> ChineseWordSegmenter::Create() {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> words(
      icu::BreakIterator::createWordInstance(icu::Locale("zh"), status));
  if (U_FAILURE(status) || words == nullptr) {
    return Status::Internal(std::string("cannot create ICU's word break iterator for zh (") +
                            u_errorName(status) + "); is ICU's data (libicu72) installed?");
  }
  auto impl = std::make_unique<Impl>();
  impl->words = std::move(words);
  return std::unique_ptr<ChineseWordSegmenter>(new ChineseWordSegmenter(std::move(impl)));
}

ChineseWordSegmenter::ChineseWordSegmenter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ChineseWordSegmenter::~ChineseWordSegmenter() = default;

bool ChineseWordSegmenter::IsHan(char32_t c) {
  UErrorCode status = U_ZERO_ERROR;
  return uscript_getScript(static_cast<UChar32>(c), &status) == USCRIPT_HAN && U_SUCCESS(status);
}

void ChineseWordSegmenter::Segment(std::string_view utf8, std::vector<HanCharacter>* out,
                                   uint32_t* next_word) {
  const icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
  icu::BreakIterator* words = impl_->words.get();
  words->setText(text);
  int32_t start = words->first();
  for (int32_t end = words->next(); end != icu::BreakIterator::DONE;
       start = end, end = words->next()) {
    const int32_t rule = words->getRuleStatus();
    if (rule < UBRK_WORD_IDEO || rule >= UBRK_WORD_IDEO_LIMIT) continue;
    const uint32_t word = (*next_word)++;
    for (int32_t i = start; i < end; i = text.moveIndex32(i, 1)) {
      const char32_t c = static_cast<char32_t>(text.char32At(i));
      if (IsHan(c)) out->push_back(HanCharacter{c, word});
    }
  }
}

}  // namespace tokenmill
