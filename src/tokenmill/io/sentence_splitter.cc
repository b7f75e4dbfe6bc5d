#include "tokenmill/io/sentence_splitter.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <string>

#include "tokenmill/base/python_space.h"

namespace tokenmill {
namespace {

// Rule 2: Chinese terminators that ICU does not treat as sentence ends.
bool IsChineseTerminator(UChar32 c) { return c == 0xFF1B || c == 0x2026; }  // ； …
// Closing quotes and brackets kept with the sentence before them.
bool IsCloser(UChar32 c) {
  switch (c) {
    case 0x201D:  // ”
    case 0x2019:  // ’
    case 0x300D:  // 」
    case 0x300F:  // 』
    case 0xFF09:  // ）
    case 0x3011:  // 】
    case 0x300B:  // 》
    case 0x3009:  // 〉
    case '"':
    case '\'':
    case ')':
    case ']':
      return true;
    default:
      return false;
  }
}

// Rule 3: [begin, end) byte spans of URLs in `s`.
std::vector<std::pair<size_t, size_t>> UrlSpans(std::string_view s) {
  std::vector<std::pair<size_t, size_t>> spans;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t best = std::string_view::npos;
    for (std::string_view marker : {"http://", "https://", "ftp://", "www."}) {
      best = std::min(best, s.find(marker, pos));
    }
    if (best == std::string_view::npos) break;
    size_t end = best;
    while (end < s.size() && static_cast<unsigned char>(s[end]) > 0x20 &&
           static_cast<unsigned char>(s[end]) < 0x80) {
      ++end;
    }
    spans.emplace_back(best, end);
    pos = end;
  }
  return spans;
}

}  // namespace

struct SentenceSplitter::Impl {
  std::unique_ptr<icu::BreakIterator> sentences;
  std::vector<size_t> cuts;  // scratch
};

StatusOr<std::unique_ptr<SentenceSplitter>> SentenceSplitter::Create() {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createSentenceInstance(icu::Locale("en@ss=standard"), status));
  if (U_FAILURE(status) || it == nullptr) {
    return Status::Internal(std::string("cannot create ICU's sentence break iterator (") +
                            u_errorName(status) + "); is ICU's data (libicu72) installed?");
  }
  auto impl = std::make_unique<Impl>();
  impl->sentences = std::move(it);
  return std::unique_ptr<SentenceSplitter>(new SentenceSplitter(std::move(impl)));
}

SentenceSplitter::SentenceSplitter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentenceSplitter::~SentenceSplitter() = default;

void SentenceSplitter::Split(std::string_view paragraph, std::vector<std::string_view>* out) {
  std::vector<size_t>& cuts = impl_->cuts;
  cuts.clear();
  const auto* bytes = reinterpret_cast<const uint8_t*>(paragraph.data());
  const auto length = static_cast<int32_t>(paragraph.size());

  // Rule 1: ICU, on the UTF-8 text itself (its offsets are byte offsets).
  UErrorCode status = U_ZERO_ERROR;
  UText* text = utext_openUTF8(nullptr, paragraph.data(), length, &status);
  if (U_SUCCESS(status)) {
    icu::BreakIterator* it = impl_->sentences.get();
    it->setText(text, status);
    if (U_SUCCESS(status)) {
      it->first();
      for (int32_t b = it->next(); b != icu::BreakIterator::DONE; b = it->next()) {
        if (b > 0 && b < length) cuts.push_back(static_cast<size_t>(b));
      }
    }
    // The iterator keeps a clone of the UText; release ours.
    utext_close(text);
  }

  // Rule 2: after ； or … (a run), and the closers that follow.
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(bytes, i, length, c);
    if (!IsChineseTerminator(c)) continue;
    int32_t end = i;
    while (end < length) {
      int32_t j = end;
      UChar32 d;
      U8_NEXT(bytes, j, length, d);
      if (!IsChineseTerminator(d) && !IsCloser(d)) break;
      end = j;
    }
    if (end < length) cuts.push_back(static_cast<size_t>(end));
    i = end;
  }

  // Rule 3: no cut inside a URL.
  const auto urls = UrlSpans(paragraph);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::erase_if(cuts, [&](size_t cut) {
    return std::any_of(urls.begin(), urls.end(),
                       [cut](const auto& u) { return cut > u.first && cut < u.second; });
  });

  size_t begin = 0;
  cuts.push_back(paragraph.size());
  for (const size_t cut : cuts) {
    const std::string_view sentence = PythonStrip(paragraph.substr(begin, cut - begin));
    if (!sentence.empty()) out->push_back(sentence);
    begin = cut;
  }
}

namespace {

class SentenceSplittingReader : public DocumentReader {
 public:
  SentenceSplittingReader(std::unique_ptr<DocumentReader> inner,
                          std::unique_ptr<SentenceSplitter> splitter)
      : inner_(std::move(inner)), splitter_(std::move(splitter)) {}

  StatusOr<bool> Next(Document* doc) override {
    while (true) {
      TM_ASSIGN_OR_RETURN(const bool more, inner_->Next(&scratch_));
      if (!more) return false;
      doc->text.clear();
      doc->line_number = scratch_.line_number;
      doc->offset = scratch_.offset;
      const std::string_view text = scratch_.text;
      size_t pos = 0;
      while (pos <= text.size()) {
        size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        sentences_.clear();
        splitter_->Split(text.substr(pos, nl - pos), &sentences_);
        for (const std::string_view s : sentences_) {
          if (!doc->text.empty()) doc->text.push_back('\n');
          doc->text.append(s);
        }
        pos = nl + 1;
      }
      if (!doc->text.empty()) return true;
    }
  }

  const ReaderStats& stats() const override { return inner_->stats(); }

 private:
  std::unique_ptr<DocumentReader> inner_;
  std::unique_ptr<SentenceSplitter> splitter_;
  Document scratch_;
  std::vector<std::string_view> sentences_;
};

}  // namespace

StatusOr<std::unique_ptr<DocumentReader>> NewSentenceSplittingReader(
    std::unique_ptr<DocumentReader> inner) {
  TM_ASSIGN_OR_RETURN(std::unique_ptr<SentenceSplitter> splitter, SentenceSplitter::Create());
  return std::unique_ptr<DocumentReader>(
      new SentenceSplittingReader(std::move(inner), std::move(splitter)));
}

}  // namespace tokenmill
