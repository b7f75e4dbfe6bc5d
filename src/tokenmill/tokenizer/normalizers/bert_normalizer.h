// BertPreTokenizer: BERT's text normalization and word splitting in one pass over UTF-8.
//
// It reproduces, per CompatMode, HF tokenizers' BertNormalizer + BertPreTokenizer and the
// BasicTokenizer of google-research/bert and google-research/electra:
//   clean_text            drop NUL, U+FFFD and control characters, map whitespace to a space;
//   handle_chinese_chars  make every CJK ideograph a word of its own;
//   strip_accents         NFD, then drop nonspacing marks (Mn);
//   lowercase             HF: char by char, after stripping; Google: Python's str.lower() of each
//                         whitespace-separated token (final sigma rule), before stripping;
//   split                 on whitespace (dropped) and punctuation (a word of its own).
// Each code point's behaviour is computed once into a two-level table (see bert_unicode.h for
// the Unicode data of each reference), a block of 256 code points when a text first uses one:
// loading costs nothing for the blocks a corpus never touches. The rare code points whose result
// depends on their neighbours (Greek capital sigma under Python's lowercasing, combining marks
// that NFD may reorder) send their whitespace-separated token through an exact slow path.
// Thread-safety: Split() may be called from many threads (a block is computed under a lock and
// published whole, never changed again).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/tokenizer/normalizers/bert_unicode.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill {

// Settings of the normalizer, already resolved (no "follow lowercase" defaults left).
struct BertNormalizerOptions {
  CompatMode compat = CompatMode::kHuggingFace;
  bool clean_text = true;            // Default: true
  bool handle_chinese_chars = true;  // Default: true
  bool strip_accents = true;         // Default: true. Whether accents are stripped, effectively.
  bool lowercase = true;             // Default: true

  bool operator==(const BertNormalizerOptions&) const = default;
};

// A Sink receives the words of Split():
//   void Word(std::string_view utf8, size_t chars);  // a word (normalized), its code points
//   void Char(char32_t cp, std::string_view utf8);   // a word of one code point (punctuation,
//                                                    // CJK); may also come through Word()
//   size_t Mark();                                    // a position in the output
//   void Rollback(size_t mark);                       // drop the words after Mark()
//   size_t max_word_bytes;  // optional: of a longer word only the first max_word_bytes bytes
//                           // (or up to 3 more) are kept and handed over, with its whole
//                           // code point count; so a huge word takes no memory (WordPiece makes
//                           // [UNK] of it from the count alone)
class BertPreTokenizer {
 public:
  // Tables are shared between tokenizers with the same options (built once per process).
  static std::shared_ptr<const BertPreTokenizer> Get(const BertNormalizerOptions& options);

  explicit BertPreTokenizer(const BertNormalizerOptions& options);

  const BertNormalizerOptions& options() const { return options_; }

  // Splits `text` into normalized words, in order. Invalid UTF-8 is dropped (Google modes) or
  // read as U+FFFD (HF), as the references do after decoding their input.
  template <typename Sink>
  void Split(std::string_view text, Sink& sink) const;

  // Split() through the exact slow path for every token (for tests: both must agree).
  template <typename Sink>
  void SplitSlowly(std::string_view text, Sink& sink) const;

  // For tests: the number of code points whose table record differs from one computed directly
  // (0 when the start-up shortcuts are exact).
  size_t CountRecordMismatches() const;

 private:
  // Per code point record (uint32_t):
  //   bits 0-1  raw class: what the character is before normalization
  //   bits 2-3  post class: what the character is as normalized output (word char, punctuation,
  //             whitespace)
  //   bit  4    slow: the token holding it needs the exact slow path
  //   bit  5    mapped: normalization changes it; bits 8-31 index the block's pool
  // pool[i] = n, then n entries (code point | post class << 24).
  enum RawClass : uint32_t { kRawNormal = 0, kRawDrop = 1, kRawSpace = 2, kRawCjk = 3 };
  enum PostClass : uint32_t { kPostWord = 0, kPostPunct = 1, kPostSpace = 2 };
  static constexpr uint32_t kSlowBit = 1u << 4;
  static constexpr uint32_t kMappedBit = 1u << 5;
  static constexpr int kPoolShift = 8;

  // For bytes < 0x80: the class and the byte after lowercasing.
  enum AsciiClass : uint8_t { kAsciiWord, kAsciiPunct, kAsciiSpace, kAsciiDrop };
  struct AsciiEntry {
    AsciiClass cls;
    char byte;
  };

  // The word being built and where the current token started.
  struct State {
    std::string* word;
    size_t max_bytes = SIZE_MAX;  // the sink's max_word_bytes
    size_t chars = 0;
    size_t token_start = 0;  // byte offset in the text
    size_t mark = 0;         // Sink::Mark() at token_start
  };

  // The records of 256 code points and the mapped sequences they index.
  struct Block {
    uint32_t records[256];
    std::vector<uint32_t> pool;
  };
  const Block& BlockOf(char32_t cp) const {
    const Block* b = stage1_[cp >> 8].load(std::memory_order_acquire);
    return b != nullptr ? *b : ComputeBlock(cp >> 8);
  }
  uint32_t Record(char32_t cp) const { return BlockOf(cp).records[cp & 0xFF]; }
  const Block& ComputeBlock(size_t index) const;
  uint32_t ComputeRecord(char32_t cp, std::vector<uint32_t>* pool) const;
  uint32_t PostClassOf(char32_t cp) const;
  bool UniformBlock(char32_t first) const;
  bool IsChinese(char32_t cp) const;

  // Decodes one character at text[i] (i < text.size()); returns its length in bytes and sets
  // *cp, or kInvalid for invalid bytes (one maximal ill-formed subsequence).
  static constexpr char32_t kInvalid = 0xFFFFFFFF;
  static size_t Decode(std::string_view text, size_t i, char32_t* cp);

  // The normalized code points of one whitespace-separated token, computed exactly as the
  // reference does (whole-token NFD ordering, Python's final sigma).
  void NormalizeTokenSlowly(std::string_view raw, std::u32string* out) const;
  // End of the token that starts at `start` (the next whitespace or CJK character, or the end).
  size_t TokenEnd(std::string_view text, size_t start) const;

  static std::string& ScratchWord();
  static constexpr size_t kMaxScratchBytes = 1 << 16;
  static void AppendUtf8(char32_t cp, std::string* out);

  template <typename Sink>
  void Flush(State& st, Sink& sink) const;
  template <typename Sink>
  void Emit(char32_t cp, uint32_t post, State& st, Sink& sink) const;
  template <typename Sink>
  void SlowToken(std::string_view text, size_t start, size_t end, State& st, Sink& sink) const;

  BertNormalizerOptions options_;
  bert::UnicodeRef ref_;
  AsciiEntry ascii_[128];
  static constexpr size_t kBlockCount = 0x1100;  // blocks of 256 code points
  // stage1_[b]: block b, or null until a text uses it.
  std::unique_ptr<std::atomic<const Block*>[]> stage1_;
  mutable std::mutex mu_;                              // guards computing blocks
  mutable std::vector<std::unique_ptr<Block>> owned_;  // the computed blocks, each distinct
  mutable std::map<std::vector<uint32_t>, const Block*> distinct_;  // records + pool -> block
};

// ---- Implementation of the templates ----

template <typename Sink>
size_t MaxWordBytesOf(const Sink& sink) {
  if constexpr (requires { sink.max_word_bytes; }) {
    return sink.max_word_bytes;
  } else {
    return SIZE_MAX;
  }
}

template <typename Sink>
void BertPreTokenizer::Flush(State& st, Sink& sink) const {
  if (st.chars == 0) return;
  sink.Word(std::string_view(*st.word), st.chars);
  st.word->clear();
  st.chars = 0;
}

template <typename Sink>
void BertPreTokenizer::Emit(char32_t cp, uint32_t post, State& st, Sink& sink) const {
  switch (post) {
    case kPostWord:
      if (st.word->size() < st.max_bytes) AppendUtf8(cp, st.word);
      ++st.chars;
      break;
    case kPostPunct: {
      Flush(st, sink);
      std::string& w = *st.word;
      AppendUtf8(cp, &w);
      sink.Char(cp, std::string_view(w));
      w.clear();
      break;
    }
    default:
      Flush(st, sink);
      break;
  }
}

template <typename Sink>
void BertPreTokenizer::SlowToken(std::string_view text, size_t start, size_t end, State& st,
                                 Sink& sink) const {
  std::u32string normalized;
  NormalizeTokenSlowly(text.substr(start, end - start), &normalized);
  for (char32_t cp : normalized) Emit(cp, PostClassOf(cp), st, sink);
  Flush(st, sink);
}

template <typename Sink>
void BertPreTokenizer::Split(std::string_view text, Sink& sink) const {
  State st{&ScratchWord()};
  st.word->clear();
  st.max_bytes = MaxWordBytesOf(sink);
  st.mark = sink.Mark();
  const size_t n = text.size();
  const char* p = text.data();
  size_t i = 0;
  while (i < n) {
    const auto b = static_cast<unsigned char>(p[i]);
    if (b < 0x80) {
      const AsciiEntry e = ascii_[b];
      ++i;
      switch (e.cls) {
        case kAsciiWord: {
          // The common case: a run of word characters, found first, then copied and mapped in
          // place (bytes past max_bytes are only counted).
          const size_t start = i - 1;
          size_t j = i;
          while (j < n && static_cast<unsigned char>(p[j]) < 0x80 &&
                 ascii_[static_cast<unsigned char>(p[j])].cls == kAsciiWord) {
            ++j;
          }
          const size_t run = j - start;
          st.chars += run;
          const size_t kept = st.word->size();
          if (kept < st.max_bytes) {
            const size_t take = std::min(run, st.max_bytes - kept);
            st.word->append(p + start, take);
            char* w = st.word->data() + kept;
            for (size_t k = 0; k < take; ++k) w[k] = ascii_[static_cast<unsigned char>(w[k])].byte;
          }
          i = j;
          break;
        }
        case kAsciiPunct:
          Flush(st, sink);
          sink.Char(static_cast<unsigned char>(e.byte), std::string_view(p + i - 1, 1));
          break;
        case kAsciiSpace:
          Flush(st, sink);
          st.token_start = i;
          st.mark = sink.Mark();
          break;
        case kAsciiDrop:
          break;
      }
      continue;
    }
    char32_t cp;
    const size_t len = Decode(text, i, &cp);
    if (cp == kInvalid) {
      if (ref_ == bert::UnicodeRef::kPython) {
        i += len;
        continue;
      }
      cp = 0xFFFD;
    }
    const Block& block = BlockOf(cp);
    const uint32_t rec = block.records[cp & 0xFF];
    if (rec & kSlowBit) {
      sink.Rollback(st.mark);
      st.word->clear();
      st.chars = 0;
      const size_t end = TokenEnd(text, st.token_start);
      SlowToken(text, st.token_start, end, st, sink);
      i = end;
      continue;
    }
    i += len;
    const uint32_t raw = rec & 3;
    if (raw == kRawDrop) continue;
    if (raw == kRawSpace) {
      Flush(st, sink);
      st.token_start = i;
      st.mark = sink.Mark();
      continue;
    }
    if (raw == kRawCjk) {
      Flush(st, sink);
      if ((rec & (kMappedBit | (3u << 2))) == 0) {  // unchanged, not punctuation: one char word
        sink.Char(cp, text.substr(i - len, len));
        st.token_start = i;
        st.mark = sink.Mark();
        continue;
      }
    }
    if (rec & kMappedBit) {
      const uint32_t* entry = block.pool.data() + (rec >> kPoolShift);
      const uint32_t count = entry[0];
      for (uint32_t k = 1; k <= count; ++k) Emit(entry[k] & 0xFFFFFF, entry[k] >> 24, st, sink);
    } else {
      Emit(cp, (rec >> 2) & 3, st, sink);
    }
    if (raw == kRawCjk) {
      Flush(st, sink);
      st.token_start = i;
      st.mark = sink.Mark();
    }
  }
  Flush(st, sink);
  if (st.word->capacity() > kMaxScratchBytes) std::string().swap(*st.word);  // after a huge word
}

template <typename Sink>
void BertPreTokenizer::SplitSlowly(std::string_view text, Sink& sink) const {
  State st{&ScratchWord()};
  st.word->clear();
  size_t i = 0;
  while (i < text.size()) {
    const size_t end = TokenEnd(text, i);
    if (end > i) SlowToken(text, i, end, st, sink);
    if (end >= text.size()) break;
    // text[end] starts a whitespace or CJK character.
    char32_t cp;
    const size_t len = Decode(text, end, &cp);
    const uint32_t rec = Record(cp);
    if ((rec & 3) == kRawCjk) {
      std::u32string normalized;
      NormalizeTokenSlowly(text.substr(end, len), &normalized);
      for (char32_t c : normalized) Emit(c, PostClassOf(c), st, sink);
      Flush(st, sink);
    }
    i = end + len;
  }
}

}  // namespace tokenmill
