#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenmill/base/byte_count.h"
#include "tokenmill/base/byte_set.h"
#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/models/bpe.h"
#include "tokenmill/tokenizer/normalizers/normal_form.h"
#include "tokenmill/tokenizer/pre_tokenizers/byte_level.h"
#include "tokenmill/tokenizer/pre_tokenizers/unicode_classes.h"

namespace tokenmill {
namespace {

using bpe::BpeModel;
using bpe::MergeRule;
using bpe::Pattern;
using bpe::PreTokenizer;

constexpr std::string_view kEndOfText = "<|endoftext|>";

// The encodings of tiktoken_ext/openai_public.py: what a rank file does not carry.
struct EncodingSpec {
  std::string_view name;
  Pattern pattern;
  size_t ranks;  // lines in the rank file
  std::vector<std::pair<std::string_view, uint32_t>> specials;
};

const std::vector<EncodingSpec>& Encodings() {
  static const auto* const encodings = new std::vector<EncodingSpec>{
      {"gpt2", Pattern::kGpt2, 50256, {{kEndOfText, 50256}}},
      {"r50k_base", Pattern::kGpt2, 50256, {{kEndOfText, 50256}}},
      {"p50k_base", Pattern::kGpt2, 50280, {{kEndOfText, 50256}}},
      {"p50k_edit",
       Pattern::kGpt2,
       50280,
       {{kEndOfText, 50256},
        {"<|fim_prefix|>", 50281},
        {"<|fim_middle|>", 50282},
        {"<|fim_suffix|>", 50283}}},
      {"cl100k_base",
       Pattern::kCl100k,
       100256,
       {{kEndOfText, 100257},
        {"<|fim_prefix|>", 100258},
        {"<|fim_middle|>", 100259},
        {"<|fim_suffix|>", 100260},
        {"<|endofprompt|>", 100276}}},
      {"o200k_base", Pattern::kO200k, 199998, {{kEndOfText, 199999}, {"<|endofprompt|>", 200018}}},
  };
  return *encodings;
}

std::string KnownEncodingNames() {
  std::string names;
  for (const EncodingSpec& e : Encodings()) {
    if (!names.empty()) names += ", ";
    names += e.name;
  }
  return names;
}

const EncodingSpec* FindEncoding(std::string_view name) {
  for (const EncodingSpec& e : Encodings()) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// GPT-2's bytes_to_unicode(): printable bytes stand for themselves, the others for U+0100 + n.
struct ByteAlphabet {
  uint32_t to_char[256];
  int16_t to_byte[512];  // by code point; -1: not in the alphabet

  ByteAlphabet() {
    std::fill(std::begin(to_byte), std::end(to_byte), static_cast<int16_t>(-1));
    uint32_t extra = 0;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      to_char[b] = printable ? b : 256 + extra++;
      to_byte[to_char[b]] = static_cast<int16_t>(b);
    }
  }
};

const ByteAlphabet& Alphabet() {
  static const ByteAlphabet alphabet;
  return alphabet;
}

// The bytes that a byte-level token string ("Ġthe") stands for, into *out (its buffer reused
// from call to call: a load converts every token and both sides of every merge); false if a
// character is not in the alphabet.
bool ByteLevelToBytes(std::string_view token, std::string* out) {
  const ByteAlphabet& alphabet = Alphabet();
  out->resize(token.size());  // at most one byte per character
  char* const o = out->data();
  size_t written = 0;
  // The alphabet's characters are below U+0200: one byte, or two (a lead byte 0xC2 to 0xC7 and
  // a continuation byte); anything else (longer, overlong or broken sequences) is not in it.
  const auto* s = reinterpret_cast<const unsigned char*>(token.data());
  const size_t n = token.size();
  for (size_t i = 0; i < n;) {
    uint32_t cp = s[i];
    if (cp < 0x80) {
      i += 1;
    } else if ((cp & 0xE0) == 0xC0 && i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
      cp = ((cp & 0x1F) << 6) | (s[i + 1] & 0x3F);
      if (cp < 0x80) return false;  // overlong
      i += 2;
    } else {
      return false;
    }
    if (cp >= 512 || alphabet.to_byte[cp] < 0) return false;
    o[written++] = static_cast<char>(alphabet.to_byte[cp]);
  }
  out->resize(written);
  return true;
}

// Standard base64 with padding, as in tiktoken rank files.
bool DecodeBase64(std::string_view in, std::string* out) {
  static const auto* const table = [] {
    auto* t = new int8_t[256];
    std::fill(t, t + 256, static_cast<int8_t>(-1));
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i)
      t[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
    return t;
  }();
  if (in.empty() || in.size() % 4 != 0) {
    out->clear();
    return false;
  }
  size_t pad = 0;
  if (in.back() == '=') pad = (in[in.size() - 2] == '=') ? 2 : 1;
  // Four characters give three bytes; the padding's '=' count as zeros and their bytes are cut.
  out->resize(in.size() / 4 * 3);
  char* o = out->data();
  const auto* c = reinterpret_cast<const unsigned char*>(in.data());
  const size_t data = in.size() - pad;
  int bad = 0;  // negative if a character is not in the alphabet
  for (size_t i = 0; i < in.size(); i += 4, o += 3) {
    uint32_t acc = 0;
    for (size_t k = 0; k < 4; ++k) {
      const int v = i + k < data ? table[c[i + k]] : (c[i + k] == '=' ? 0 : -1);
      bad |= v;
      acc = acc << 6 | (static_cast<uint32_t>(v) & 63);
    }
    o[0] = static_cast<char>(acc >> 16);
    o[1] = static_cast<char>((acc >> 8) & 0xFF);
    o[2] = static_cast<char>(acc & 0xFF);
  }
  if (bad < 0) {
    out->clear();
    return false;
  }
  out->resize(out->size() - pad);
  return true;
}

bool ParseUint32(std::string_view s, uint32_t* v) {
  if (s.empty() || s.size() > 10) return false;
  uint64_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    x = x * 10 + static_cast<uint64_t>(c - '0');
  }
  if (x >= BpeModel::kNone - 1) return false;
  *v = static_cast<uint32_t>(x);
  return true;
}

// A literal string matched in the text before pre-tokenization (special and added tokens).
struct AddedToken {
  std::string text;
  uint32_t id = 0;
  bool lstrip = false;       // also takes the whitespace before it
  bool rstrip = false;       // also takes the whitespace after it
  bool single_word = false;  // only where not inside a word
};

// Unicode normal forms for HF normalizers.
enum class NormalForm { kNone, kNfc, kNfd, kNfkc, kNfkd };

// One pre-tokenization step: split every piece of the previous step with `splitter`.
struct Stage {
  PreTokenizer splitter;
  bool add_prefix_space = false;  // HF ByteLevel: prepend ' ' to a piece not starting with one
  bool byte_level = false;        // read from a tokenizer.json's ByteLevel step
};

class BpeTokenizer final : public Tokenizer {
 public:
  BpeTokenizer(BpeModel model, std::vector<Stage> stages)
      : model_(std::move(model)), stages_(std::move(stages)) {}

  TokenizerKind kind() const override { return TokenizerKind::kBytePairEncoding; }

  void Encode(std::string_view text, std::vector<uint32_t>* ids) const override {
    std::string repaired;
    EncodeValidUtf8(ValidUtf8View(text, InvalidUtf8::kReplace, &repaired), ids);
  }

  void EncodeValidUtf8(std::string_view text, std::vector<uint32_t>* ids) const override {
    assert(FindInvalidUtf8(text) == std::string_view::npos);
    ForEachSegment(
        text, [&](std::string_view segment) { EncodeSegment(segment, ids); },
        [&](uint32_t id) { ids->push_back(id); });
  }

  // With one pre-tokenizer and no normalization or prefix space (gpt2, cl100k_base, o200k_base,
  // most tokenizer.json files), the pieces are encoded as the scanner finds them and the ids handed
  // out about every piece_bytes / 4 of them: the same ids as Encode, never all in memory. A
  // pre-token of more than 16 * piece_bytes is huge (EncodeHugePiece).

  void EncodeInPieces(std::string_view text, size_t piece_bytes,
                      const IdPieceSink& sink) const override {
    if (text.size() <= piece_bytes || stages_.size() != 1 || stages_[0].add_prefix_space ||
        normal_form_ != NormalForm::kNone) {
      Tokenizer::EncodeInPieces(text, piece_bytes, sink);
      return;
    }
    std::string repaired;
    text = ValidUtf8View(text, InvalidUtf8::kReplace, &repaired);
    const size_t part = std::max<size_t>(piece_bytes / 4, 1);
    std::vector<uint32_t> ids;
    // The pieces go to the model a batch at a time (EncodePieces looks ahead in a batch).
    constexpr size_t kBatch = 64;
    std::vector<std::string_view> batch;
    batch.reserve(kBatch);
    auto hand_out = [&] {
      if (ids.size() >= part) {
        sink(ids);
        ids.clear();
      }
    };
    auto encode_batch = [&] {
      model_.EncodePieces(batch, &ids, text);  // the pieces lie in text
      batch.clear();
      hand_out();
    };
    auto segment = [&](std::string_view seg) {
      stages_[0].splitter.Visit(seg, [&](std::string_view piece) {
        if (piece.size() / 16 > piece_bytes) {
          encode_batch();
          EncodeHugePiece(piece, &ids, sink);
          hand_out();
          return;
        }
        batch.push_back(piece);
        if (batch.size() == kBatch) encode_batch();
      });
      encode_batch();
    };
    ForEachSegment(text, segment, [&](uint32_t id) { ids.push_back(id); });
    if (!ids.empty()) sink(ids);
  }

  // A huge pre-token (one letter repeated, a blob without spaces): streamed out of the
  // backtracking encoder as its search leaves the ids behind, after a dry run has shown that the
  // search never goes back over what it hands out (BpeModel::EncodePieceStreaming): twice the
  // work, in bounded memory. Otherwise its ids all come from one EncodePiece, with room for one id
  // a byte (at most 2^28) reserved at once so that the vector never holds its old and new copies
  // while it grows (the pages not written take no memory).
  void EncodeHugePiece(std::string_view piece, std::vector<uint32_t>* ids,
                       const IdPieceSink& sink) const {
    std::vector<uint32_t> dry;
    if (model_.EncodePieceStreaming(piece, &dry, {})) {
      dry = {};
      [[maybe_unused]] const bool streamed = model_.EncodePieceStreaming(
          piece, ids, [&](std::span<const uint32_t> part) { sink(part); });
      assert(streamed);  // deterministic: as the dry run
      return;
    }
    ids->reserve(ids->size() + std::min(piece.size(), size_t{1} << 28));
    model_.EncodePiece(piece, ids);
  }

  uint32_t vocab_size() const override { return vocab_size_; }

  std::string_view IdToToken(uint32_t id) const override {
    auto it = text_by_id_.find(id);
    if (it != text_by_id_.end()) return it->second;
    return model_.Bytes(id);
  }

  std::optional<uint32_t> TokenToId(std::string_view token) const override {
    auto it = specials_.all.find(std::string(token));
    if (it != specials_.all.end()) return it->second;
    for (const auto& [id, text] : text_by_id_) {
      if (text == token) return id;
    }
    const uint32_t id = model_.Find(token);
    if (id == BpeModel::kNone) return std::nullopt;
    return id;
  }

  std::string Decode(std::span<const uint32_t> ids) const override {
    std::string out;
    for (uint32_t id : ids) out.append(IdToToken(id));
    return out;
  }

  const SpecialTokens& specials() const override { return specials_; }

  // Setup, before the tokenizer is shared.
  void AddSpecial(std::string text, uint32_t id) {
    if (text == kEndOfText) specials_.eod = id;
    specials_.all[text] = id;
    text_by_id_[id] = std::move(text);
  }
  void AddText(uint32_t id, std::string text) { text_by_id_[id] = std::move(text); }
  // BOS and EOS among the special tokens added so far (Llama-3's, DeepSeek-V3's...).
  void FindBosEos() {
    specials_.bos = FindSpecial(specials_, kBosSpellings);
    specials_.eos = FindSpecial(specials_, kEosSpellings);
  }
  void MatchLiterally(AddedToken token) { matched_.push_back(std::move(token)); }
  void set_normal_form(NormalForm f) { normal_form_ = f; }
  void FinishSetup() {
    vocab_size_ = model_.id_limit();
    for (const auto& [id, text] : text_by_id_) vocab_size_ = std::max(vocab_size_, id + 1);
    // Leftmost-longest: at one position the longest token wins.
    std::stable_sort(
        matched_.begin(), matched_.end(),
        [](const AddedToken& a, const AddedToken& b) { return a.text.size() > b.text.size(); });
    for (const AddedToken& t : matched_) {
      if (!t.text.empty()) first_bytes_.Add(static_cast<unsigned char>(t.text[0]));
    }
  }

 private:
  static bool IsSpaceAt(std::string_view text, size_t i, size_t* len) {
    const auto& cc = bpe::CharClasses::Get();
    return (cc.At(reinterpret_cast<const unsigned char*>(text.data()), text.size(), i, len) &
            bpe::kSpace) != 0;
  }

  // Whether the character ending at text[i] (exclusive) is a word character (\w-like).
  static bool WordCharBefore(std::string_view text, size_t i) {
    if (i == 0) return false;
    size_t start = i - 1;
    while (start > 0 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
    size_t len;
    const auto& cc = bpe::CharClasses::Get();
    const uint8_t k =
        cc.At(reinterpret_cast<const unsigned char*>(text.data()), text.size(), start, &len);
    return (k & (bpe::kLetter | bpe::kNumber | bpe::kMark)) != 0 || text[start] == '_';
  }
  static bool WordCharAt(std::string_view text, size_t i) {
    if (i >= text.size()) return false;
    size_t len;
    const auto& cc = bpe::CharClasses::Get();
    const uint8_t k =
        cc.At(reinterpret_cast<const unsigned char*>(text.data()), text.size(), i, &len);
    return (k & (bpe::kLetter | bpe::kNumber | bpe::kMark)) != 0 || text[i] == '_';
  }

  // The added token that matches at text[pos], with the span it takes ([*start, *end), wider
  // than the token with lstrip/rstrip; never before `floor`).
  const AddedToken* MatchAt(std::string_view text, size_t floor, size_t pos, size_t* start,
                            size_t* end) const {
    for (const AddedToken& t : matched_) {
      if (text.compare(pos, t.text.size(), t.text) != 0) continue;
      size_t s = pos;
      size_t e = pos + t.text.size();
      if (t.single_word && (WordCharBefore(text, s) || WordCharAt(text, e))) continue;
      if (t.lstrip) {
        while (s > floor) {
          size_t b = s - 1;
          while (b > floor && (static_cast<unsigned char>(text[b]) & 0xC0) == 0x80) --b;
          size_t len;
          if (!IsSpaceAt(text, b, &len)) break;
          s = b;
        }
      }
      if (t.rstrip) {
        size_t len;
        while (e < text.size() && IsSpaceAt(text, e, &len)) e += len;
      }
      *start = s;
      *end = e;
      return &t;
    }
    return nullptr;
  }

  // Calls on_segment for each stretch of text between matched added tokens (empty ones too) and
  // on_token for each token, in order.
  template <typename OnSegment, typename OnToken>
  void ForEachSegment(std::string_view text, OnSegment&& on_segment, OnToken&& on_token) const {
    size_t segment = 0;
    for (size_t pos = first_bytes_.Find(text, 0); pos < text.size();) {
      size_t start;
      size_t end;
      const AddedToken* token = MatchAt(text, segment, pos, &start, &end);
      if (token == nullptr) {
        pos = first_bytes_.Find(text, pos + 1);
        continue;
      }
      on_segment(text.substr(segment, start - segment));
      on_token(token->id);
      segment = end;
      pos = first_bytes_.Find(text, end);
    }
    on_segment(text.substr(segment));
  }

  void EncodeSegment(std::string_view text, std::vector<uint32_t>* ids) const {
    if (text.empty()) return;
    if (normal_form_ != NormalForm::kNone) {
      const std::string normalized = Normalize(text);
      EncodeStage(0, normalized, ids);
      return;
    }
    EncodeStage(0, text, ids);
  }

  std::string Normalize(std::string_view text) const {
    switch (normal_form_) {
      case NormalForm::kNfc:
        return ToNormalForm(text, tokenmill::NormalForm::kNfc);
      case NormalForm::kNfd:
        return ToNormalForm(text, tokenmill::NormalForm::kNfd);
      case NormalForm::kNfkc:
        return ToNormalForm(text, tokenmill::NormalForm::kNfkc);
      case NormalForm::kNfkd:
        return ToNormalForm(text, tokenmill::NormalForm::kNfkd);
      case NormalForm::kNone:
        break;
    }
    return std::string(text);
  }

  void EncodeStage(size_t stage, std::string_view text, std::vector<uint32_t>* ids) const {
    if (stage == stages_.size()) {
      model_.EncodePiece(text, ids);
      return;
    }
    const Stage& st = stages_[stage];
    std::string prefixed;
    if (st.add_prefix_space && !text.empty() && text[0] != ' ') {
      prefixed.reserve(text.size() + 1);
      prefixed.push_back(' ');
      prefixed.append(text);
      text = prefixed;
    }
    if (stage + 1 == stages_.size()) {
      // The common case: one splitter, then BPE. The piece list is reused per thread.
      thread_local std::vector<std::string_view> pieces;
      const size_t first = pieces.size();  // re-entrant if a caller's Encode nests (it cannot)
      st.splitter.Split(text, &pieces);
      model_.EncodePieces(std::span<const std::string_view>(pieces).subspan(first), ids, text);
      pieces.resize(first);
      if (first == 0 && pieces.capacity() > (1u << 16)) {
        std::vector<std::string_view>().swap(pieces);  // a huge text: give the memory back
      }
      return;
    }
    std::vector<std::string_view> pieces;
    st.splitter.Split(text, &pieces);
    for (std::string_view piece : pieces) EncodeStage(stage + 1, piece, ids);
  }

  BpeModel model_;
  std::vector<Stage> stages_;
  SpecialTokens specials_;
  std::unordered_map<uint32_t, std::string> text_by_id_;  // specials, added and non-byte tokens
  std::vector<AddedToken> matched_;
  ByteSet first_bytes_;  // of the matched_ tokens
  NormalForm normal_form_ = NormalForm::kNone;
  uint32_t vocab_size_ = 0;
};

enum class BpeFileKind { kTiktoken, kEncoderJson, kTokenizerJson };

// The [tokenizer] keys that do not apply to this kind of file are errors, not silently ignored.
Status CheckOptions(const TokenizerOptions& options, std::string_view source, BpeFileKind kind) {
  auto refuse = [&](std::string_view key, std::string_view applies_to) {
    return Status::InvalidArgument(std::string(source) + ": [tokenizer] " + std::string(key) +
                                   " applies to " + std::string(applies_to) +
                                   " only; remove it for this byte-level BPE tokenizer");
  };
  if (options.lowercase.has_value()) return refuse("lowercase", "WordPiece");
  if (options.strip_accents.has_value()) return refuse("strip_accents", "WordPiece");
  if (options.handle_chinese_chars.has_value()) return refuse("handle_chinese_chars", "WordPiece");
  if (options.clean_text.has_value()) return refuse("clean_text", "WordPiece");
  if (options.max_input_chars_per_word.has_value()) {
    return refuse("max_input_chars_per_word", "WordPiece");
  }
  if (options.compat != CompatMode::kHuggingFace) return refuse("compat", "WordPiece");
  if (kind != BpeFileKind::kTiktoken && options.encoding.has_value()) {
    return refuse("encoding", "tiktoken rank files (*.tiktoken)");
  }
  if (kind != BpeFileKind::kEncoderJson && options.merges.has_value()) {
    return refuse("merges", "GPT-2 encoder.json");
  }
  return Status::Ok();
}

std::string LineContext(std::string_view source, size_t line) {
  return std::string(source) + " line " + std::to_string(line);
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> LoadTiktoken(const TokenizerOptions& options,
                                                  std::string_view ranks, std::string_view name) {
  TM_RETURN_IF_ERROR(CheckOptions(options, name, BpeFileKind::kTiktoken));
  std::string_view stem = name;
  if (const size_t slash = stem.find_last_of('/'); slash != std::string_view::npos) {
    stem = stem.substr(slash + 1);
  }
  constexpr std::string_view kSuffix = ".tiktoken";
  if (stem.size() > kSuffix.size() && stem.substr(stem.size() - kSuffix.size()) == kSuffix) {
    stem = stem.substr(0, stem.size() - kSuffix.size());
  }
  const EncodingSpec* spec = nullptr;
  if (options.encoding.has_value()) {
    spec = FindEncoding(*options.encoding);
    if (spec == nullptr) {
      return Status::InvalidArgument("unknown tiktoken encoding '" + *options.encoding +
                                     "'; use one of " + KnownEncodingNames());
    }
  } else {
    spec = FindEncoding(stem);
    if (spec == nullptr) {
      return Status::InvalidArgument(
          std::string(name) +
          ": a tiktoken rank file carries neither its pre-tokenizer pattern nor its special "
          "tokens, and the file name names no known encoding; set [tokenizer] encoding to one "
          "of " +
          KnownEncodingNames());
    }
  }

  BpeModel model(MergeRule::kRanks);
  model.Reserve(CountByte(ranks, '\n') + 1);
  std::string bytes;
  size_t line_no = 0;
  size_t count = 0;
  size_t pos = 0;
  while (pos < ranks.size()) {
    size_t eol = ranks.find('\n', pos);
    if (eol == std::string_view::npos) eol = ranks.size();
    std::string_view line = ranks.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    const size_t space = line.find(' ');
    uint32_t rank = 0;
    if (space == std::string_view::npos || !DecodeBase64(line.substr(0, space), &bytes) ||
        !ParseUint32(line.substr(space + 1), &rank)) {
      return Status::InvalidArgument(
          LineContext(name, line_no) +
          ": expected '<base64 token> <rank>'; is this a tiktoken rank file (*.tiktoken)?");
    }
    Status st = model.AddToken(bytes, rank);
    if (!st.ok()) return st.WithContext(LineContext(name, line_no));
    ++count;
  }
  if (count != spec->ranks) {
    return Status::InvalidArgument(std::string(name) + " has " + std::to_string(count) +
                                   " ranks but encoding " + std::string(spec->name) + " has " +
                                   std::to_string(spec->ranks) +
                                   "; set [tokenizer] encoding to the file's encoding");
  }
  Status st = model.Finish();
  if (!st.ok()) return st.WithContext(name);
  for (const auto& [text, id] : spec->specials) {
    if (!model.Bytes(id).empty()) {
      return Status::InvalidArgument(std::string(name) + ": special token " + std::string(text) +
                                     " has id " + std::to_string(id) +
                                     ", which is also a rank in the file");
    }
  }
  std::vector<Stage> stages;
  stages.push_back({PreTokenizer::ForPattern(spec->pattern), false});
  auto tokenizer = std::make_unique<BpeTokenizer>(std::move(model), std::move(stages));
  for (const auto& [text, id] : spec->specials) {
    tokenizer->AddSpecial(std::string(text), id);
    if (!options.split_special_tokens) tokenizer->MatchLiterally({std::string(text), id});
  }
  tokenizer->FinishSetup();
  return std::unique_ptr<Tokenizer>(std::move(tokenizer));
}

namespace {

StatusOr<std::unique_ptr<Tokenizer>> LoadGpt2EncoderImpl(const TokenizerOptions& options,
                                                         std::string_view encoder_json,
                                                         std::string_view vocab_bpe,
                                                         std::string_view source) {
  TM_RETURN_IF_ERROR(CheckOptions(options, source, BpeFileKind::kEncoderJson));
  const std::optional<JsonMembers> j = ParseJsonObjectMembers(encoder_json);
  if (!j.has_value()) {
    return Status::InvalidArgument(std::string(source) +
                                   ": not a JSON object of token -> id (GPT-2 encoder.json)");
  }
  BpeModel model(MergeRule::kMerges);
  model.Reserve(j->size());
  std::string bytes;  // a token's bytes, the buffer reused
  std::optional<uint32_t> eod;
  for (const auto& [token, value] : *j) {
    if (!value.is_number_unsigned() || value.get<uint64_t>() >= BpeModel::kNone - 1) {
      return Status::InvalidArgument(std::string(source) + ": token \"" + token +
                                     "\" has no valid id; expected a non-negative integer");
    }
    const auto id = value.get<uint32_t>();
    if (token == kEndOfText) eod = id;
    if (!ByteLevelToBytes(token, &bytes)) {
      return Status::InvalidArgument(std::string(source) + ": token \"" + token +
                                     "\" is not in GPT-2's byte-level alphabet");
    }
    Status st = model.AddToken(bytes, id);
    if (!st.ok()) return st.WithContext(std::string(source) + ": token \"" + token + "\"");
  }
  const std::string merges_name = std::string(source) + " merges (vocab.bpe)";
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < vocab_bpe.size()) {
    size_t eol = vocab_bpe.find('\n', pos);
    if (eol == std::string_view::npos) eol = vocab_bpe.size();
    std::string_view line = vocab_bpe.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.starts_with("#version"))) continue;
    const size_t space = MergeSpace(line);
    if (space == std::string_view::npos) {
      return Status::InvalidArgument(LineContext(merges_name, line_no) +
                                     ": expected two tokens separated by one space");
    }
    const uint32_t left =
        ByteLevelToBytes(line.substr(0, space), &bytes) ? model.Find(bytes) : BpeModel::kNone;
    const uint32_t right =
        ByteLevelToBytes(line.substr(space + 1), &bytes) ? model.Find(bytes) : BpeModel::kNone;
    if (left == BpeModel::kNone || right == BpeModel::kNone) {
      return Status::InvalidArgument(
          LineContext(merges_name, line_no) + ": token '" +
          std::string(left == BpeModel::kNone ? line.substr(0, space) : line.substr(space + 1)) +
          "' is not in " + std::string(source) + "; do the merges belong to this encoder.json?");
    }
    Status st = model.AddMerge(left, right);
    if (!st.ok()) return st.WithContext(LineContext(merges_name, line_no));
  }
  Status st = model.Finish();
  if (!st.ok()) return st.WithContext(source);
  std::vector<Stage> stages;
  stages.push_back({PreTokenizer::ForPattern(Pattern::kGpt2), false});
  auto tokenizer = std::make_unique<BpeTokenizer>(std::move(model), std::move(stages));
  if (eod.has_value()) {
    tokenizer->AddSpecial(std::string(kEndOfText), *eod);
    if (!options.split_special_tokens) tokenizer->MatchLiterally({std::string(kEndOfText), *eod});
  }
  tokenizer->FinishSetup();
  return std::unique_ptr<Tokenizer>(std::move(tokenizer));
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> LoadGpt2Encoder(const TokenizerOptions& options,
                                                     std::string_view encoder_json,
                                                     std::string_view vocab_bpe,
                                                     std::string_view source) {
  try {
    return LoadGpt2EncoderImpl(options, encoder_json, vocab_bpe, source);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string(source) +
                                   ": unexpected encoder.json content: " + e.what());
  }
}

namespace {

// Reads the pre_tokenizer of a tokenizer.json into stages. Supported: ByteLevel, and Sequence of
// Split (behavior Isolated, not inverted, or Removed, inverted) and Digits steps with one
// ByteLevel step.
Status ReadPreTokenizer(const nlohmann::json& pt, std::string_view source,
                        std::vector<Stage>* stages) {
  const std::string type = pt.is_object() ? pt.value("type", "") : "";
  if (type == "ByteLevel") {
    Stage stage;
    stage.byte_level = true;
    stage.add_prefix_space = pt.value("add_prefix_space", false);
    stage.splitter = pt.value("use_regex", true) ? PreTokenizer::ForPattern(Pattern::kGpt2)
                                                 : PreTokenizer::WholeText();
    stages->push_back(std::move(stage));
    return Status::Ok();
  }
  if (type == "Split") {
    // HF's ByteLevel maps the bytes to its printable alphabet (' ' to 'Ġ', ...), so a Split after
    // it would match that text, not the bytes this tokenizer splits: refused, not guessed at.
    if (std::any_of(stages->begin(), stages->end(), [](const Stage& s) { return s.byte_level; })) {
      return Status::InvalidArgument(
          std::string(source) +
          ": pre_tokenizer: a Split after the ByteLevel step is not supported (it would split the "
          "byte-mapped text); put the Split steps before ByteLevel");
    }
    // Isolated keeps the matches and the text between them as pieces; Removed with invert keeps
    // the matches only (the text between them, the inverted delimiter, is dropped). The two agree
    // on patterns that match every character, as tiktoken's do (the Xenova gpt-4 and gpt-4o
    // files spell their Split so).
    const std::string behavior = pt.value("behavior", "");
    const bool invert = pt.value("invert", false);
    const bool isolated = behavior == "Isolated" && !invert;
    const bool matches_only = behavior == "Removed" && invert;
    if (!isolated && !matches_only) {
      return Status::InvalidArgument(std::string(source) + ": Split pre-tokenizer: behavior \"" +
                                     behavior + "\"" + (invert ? " with" : " without") +
                                     " invert is not supported for byte-level BPE; supported: "
                                     "\"Isolated\" without invert, \"Removed\" with invert");
    }
    const nlohmann::json& pattern = pt.at("pattern");
    std::string regex;
    if (pattern.contains("Regex")) {
      regex = pattern.at("Regex").get<std::string>();
    } else if (pattern.contains("String")) {
      regex = "\\Q" + pattern.at("String").get<std::string>() + "\\E";
    } else {
      return Status::InvalidArgument(std::string(source) +
                                     ": Split pre-tokenizer without a Regex or String pattern");
    }
    auto splitter = PreTokenizer::ForRegex(regex, /*force_regex=*/false, /*keep_gaps=*/isolated);
    if (!splitter.ok()) return splitter.status().WithContext(source);
    stages->push_back({std::move(splitter).value(), false});
    return Status::Ok();
  }
  if (type == "Digits") {
    // HF's Digits: the characters of Unicode's N* categories each a piece of their own
    // (individual_digits) or in runs, the text between them kept (Command R's layout, before a
    // ByteLevel step with its regex).
    if (std::any_of(stages->begin(), stages->end(), [](const Stage& s) { return s.byte_level; })) {
      return Status::InvalidArgument(
          std::string(source) +
          ": pre_tokenizer: a Digits step after the ByteLevel step is not supported (it would "
          "split the byte-mapped text); put it before ByteLevel");
    }
    auto splitter =
        PreTokenizer::ForRegex(pt.value("individual_digits", false) ? "\\p{N}" : "\\p{N}+");
    if (!splitter.ok()) return splitter.status().WithContext(source);
    stages->push_back({std::move(splitter).value(), false});
    return Status::Ok();
  }
  if (type == "Sequence") {
    const nlohmann::json& steps = pt.at("pretokenizers");
    size_t first = 0;
    // A chain of Split steps that a scanner stands for (DeepSeek-V3's three) becomes one stage.
    std::vector<std::string> chain;
    for (const nlohmann::json& step : steps) {
      if (!step.is_object() || step.value("type", "") != "Split" ||
          step.value("behavior", "") != "Isolated" || step.value("invert", false) ||
          !step.contains("pattern") || !step["pattern"].is_object() ||
          !step["pattern"].contains("Regex") || !step["pattern"]["Regex"].is_string()) {
        break;
      }
      chain.push_back(step["pattern"]["Regex"].get<std::string>());
    }
    for (size_t n = chain.size(); n > 1; --n) {
      if (std::optional<Pattern> p = bpe::KnownChain(std::span(chain).first(n))) {
        if (std::none_of(stages->begin(), stages->end(),
                         [](const Stage& s) { return s.byte_level; })) {
          stages->push_back({PreTokenizer::ForPattern(*p), false});
          first = n;
        }
        break;
      }
    }
    // Digits(individual_digits) then ByteLevel with GPT-2's regex (Command R): one scanner.
    if (first == 0 && steps.size() >= 2 && steps[0].is_object() &&
        steps[0].value("type", "") == "Digits" && steps[0].value("individual_digits", false) &&
        steps[1].is_object() && steps[1].value("type", "") == "ByteLevel" &&
        steps[1].value("use_regex", true) && !steps[1].value("add_prefix_space", false) &&
        std::none_of(stages->begin(), stages->end(), [](const Stage& s) { return s.byte_level; })) {
      Stage stage;
      stage.byte_level = true;
      stage.splitter = PreTokenizer::ForPattern(Pattern::kGpt2Digits);
      stages->push_back(std::move(stage));
      first = 2;
    }
    for (size_t i = first; i < steps.size(); ++i) {
      TM_RETURN_IF_ERROR(ReadPreTokenizer(steps[i], source, stages));
    }
    return Status::Ok();
  }
  return Status::InvalidArgument(
      std::string(source) + ": pre_tokenizer type '" + type +
      "' is not supported for byte-level BPE; use ByteLevel (optionally after Split or Digits "
      "steps)");
}

Status ReadNormalizer(const nlohmann::json& n, std::string_view source, NormalForm* form) {
  if (n.is_null()) return Status::Ok();
  const std::string type = n.value("type", "");
  if (type == "Sequence") {
    for (const nlohmann::json& step : n.at("normalizers")) {
      TM_RETURN_IF_ERROR(ReadNormalizer(step, source, form));
    }
    return Status::Ok();
  }
  NormalForm f;
  if (type == "NFC") {
    f = NormalForm::kNfc;
  } else if (type == "NFD") {
    f = NormalForm::kNfd;
  } else if (type == "NFKC") {
    f = NormalForm::kNfkc;
  } else if (type == "NFKD") {
    f = NormalForm::kNfkd;
  } else {
    return Status::InvalidArgument(std::string(source) + ": normalizer type '" + type +
                                   "' is not supported for byte-level BPE; use none, NFC, NFD, "
                                   "NFKC or NFKD");
  }
  if (*form != NormalForm::kNone && *form != f) {
    return Status::InvalidArgument(std::string(source) +
                                   ": more than one Unicode normal form in the normalizer");
  }
  *form = f;
  return Status::Ok();
}

StatusOr<std::unique_ptr<Tokenizer>> LoadBpeTokenizerJsonImpl(const TokenizerOptions& options,
                                                              const ParsedTokenizerJson& parsed,
                                                              std::string_view source) {
  const nlohmann::json& j = parsed.json;
  TM_RETURN_IF_ERROR(CheckOptions(options, source, BpeFileKind::kTokenizerJson));
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(std::string(source) + ": not valid JSON");
  }
  const nlohmann::json& m = j.at("model");
  if (m.value("type", "") != "BPE") {
    return Status::InvalidArgument(std::string(source) + ": model type is not BPE");
  }
  if (m.contains("dropout") && !m["dropout"].is_null() && m["dropout"].get<double>() != 0.0) {
    return Status::InvalidArgument(std::string(source) +
                                   ": BPE dropout is random; set it to null for data preparation");
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (m.contains(key) && !m[key].is_null() && !m[key].get<std::string>().empty()) {
      return Status::InvalidArgument(std::string(source) + ": BPE " + key +
                                     " is not supported for byte-level BPE");
    }
  }
  if (!j.contains("pre_tokenizer") || j["pre_tokenizer"].is_null()) {
    return Status::InvalidArgument(std::string(source) +
                                   ": no pre_tokenizer; byte-level BPE needs a ByteLevel one");
  }
  std::vector<Stage> stages;
  TM_RETURN_IF_ERROR(ReadPreTokenizer(j["pre_tokenizer"], source, &stages));
  if (std::count_if(stages.begin(), stages.end(), [](const Stage& s) { return s.byte_level; }) !=
      1) {
    return Status::InvalidArgument(std::string(source) +
                                   ": the pre_tokenizer must have exactly one ByteLevel step");
  }
  // A ByteLevel step without its regex or prefix space after a Split (Llama-3, Qwen3) hands each
  // piece on whole: dropped, the Split is the last stage, whose pieces go to the model together.
  if (stages.size() > 1) {
    std::erase_if(stages, [](const Stage& stage) {
      return !stage.add_prefix_space && stage.splitter.name() == "none";
    });
  }
  NormalForm form = NormalForm::kNone;
  if (j.contains("normalizer")) TM_RETURN_IF_ERROR(ReadNormalizer(j["normalizer"], source, &form));

  if (!parsed.vocab.has_value()) {
    return Status::InvalidArgument(std::string(source) +
                                   ": model.vocab must be an object of token -> id");
  }
  const JsonMembers& vocab = *parsed.vocab;
  BpeModel model(MergeRule::kMerges);
  model.Reserve(vocab.size());
  std::string bytes;  // a token's bytes, the buffer reused
  model.set_ignore_merges(m.value("ignore_merges", false));
  std::vector<std::pair<uint32_t, std::string>> not_byte_level;  // vocab entries kept as text
  // Each token converted, and its place in the token table fetched, kAhead tokens before it is
  // added (as the merges below).
  constexpr size_t kAhead = 16;
  struct AheadToken {
    std::string bytes;
    bool ok = false;
  };
  std::array<AheadToken, kAhead> tokens_ahead;
  auto prepare_token = [&](size_t i) {
    AheadToken& t = tokens_ahead[i % kAhead];
    t.ok = ByteLevelToBytes(vocab[i].first, &t.bytes);
    if (t.ok) model.Prefetch(t.bytes);
  };
  for (size_t i = 0; i < vocab.size() && i < kAhead; ++i) prepare_token(i);
  for (size_t i = 0; i < vocab.size(); ++i) {
    const auto& [token, value] = vocab[i];
    if (!value.is_number_unsigned() || value.get<uint64_t>() >= BpeModel::kNone - 1) {
      return Status::InvalidArgument(std::string(source) + ": model.vocab token \"" + token +
                                     "\" has no valid id");
    }
    const auto id = value.get<uint32_t>();
    const AheadToken& t = tokens_ahead[i % kAhead];
    if (!t.ok) {
      not_byte_level.emplace_back(id, token);
    } else if (Status st = model.AddToken(t.bytes, id); !st.ok()) {
      return st.WithContext(std::string(source) + ": model.vocab \"" + token + "\"");
    }
    if (i + kAhead < vocab.size()) prepare_token(i + kAhead);
  }
  if (m.contains("unk_token") && m["unk_token"].is_string()) {
    const std::string unk = m["unk_token"].get<std::string>();
    for (const auto& [token, value] : vocab) {
      if (token == unk) model.set_unknown_id(value.get<uint32_t>());
    }
  }
  // Each merge "a b" or [a, b] by its 1-based index in model.merges, with the ids of a and b
  // (kNone: not a token, or not byte-level text).
  auto add_merge = [&](size_t index, const std::string& a, const std::string& b, uint32_t left,
                       uint32_t right) -> Status {
    if (left == BpeModel::kNone || right == BpeModel::kNone) {
      return Status::InvalidArgument(
          std::string(source) + ": model.merges entry " + std::to_string(index) + ": token \"" +
          (left == BpeModel::kNone ? a : b) + "\" is not in model.vocab");
    }
    Status st = model.AddMerge(left, right);
    if (!st.ok()) {
      return st.WithContext(std::string(source) + ": model.merges entry " + std::to_string(index));
    }
    return Status::Ok();
  };
  if (parsed.merges.has_value()) {  // taken out by the parser, well-formed
    // The token table is larger than the caches (8 MiB for Qwen3's 151,643 tokens), and a merge
    // looks up three tokens in it (a, b and their join): each merge is converted and its three
    // entries fetched kAhead merges before it is added, so that the misses overlap.
    const MergePairs& merges = *parsed.merges;
    struct Ahead {
      std::string a, b, joined;  // bytes
      bool a_ok = false, b_ok = false;
    };
    std::array<Ahead, kAhead> ring;
    auto prepare = [&](size_t i) {
      Ahead& r = ring[i % kAhead];
      r.a_ok = ByteLevelToBytes(merges[i].first, &r.a);
      r.b_ok = ByteLevelToBytes(merges[i].second, &r.b);
      if (!r.a_ok || !r.b_ok) return;
      r.joined.assign(r.a).append(r.b);
      model.Prefetch(r.a);
      model.Prefetch(r.b);
      model.Prefetch(r.joined);
    };
    for (size_t i = 0; i < merges.size() && i < kAhead; ++i) prepare(i);
    for (size_t i = 0; i < merges.size(); ++i) {
      const Ahead& r = ring[i % kAhead];
      const uint32_t left = r.a_ok ? model.Find(r.a) : BpeModel::kNone;
      const uint32_t right = r.b_ok ? model.Find(r.b) : BpeModel::kNone;
      TM_RETURN_IF_ERROR(add_merge(i + 1, merges[i].first, merges[i].second, left, right));
      if (i + kAhead < merges.size()) prepare(i + kAhead);
    }
  } else {
    size_t index = 0;
    for (const nlohmann::json& merge : m.at("merges")) {
      ++index;
      std::string a;
      std::string b;
      if (merge.is_string()) {
        const std::string s = merge.get<std::string>();
        const size_t space = MergeSpace(s);
        if (space == std::string::npos) {
          return Status::InvalidArgument(std::string(source) + ": model.merges entry " +
                                         std::to_string(index) + " \"" + s +
                                         "\": expected two tokens separated by one space");
        }
        a = s.substr(0, space);
        b = s.substr(space + 1);
      } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() &&
                 merge[1].is_string()) {
        a = merge[0].get<std::string>();
        b = merge[1].get<std::string>();
      } else {
        return Status::InvalidArgument(std::string(source) + ": model.merges entry " +
                                       std::to_string(index) + " is neither \"a b\" nor [a, b]");
      }
      const uint32_t left = ByteLevelToBytes(a, &bytes) ? model.Find(bytes) : BpeModel::kNone;
      const uint32_t right = ByteLevelToBytes(b, &bytes) ? model.Find(bytes) : BpeModel::kNone;
      TM_RETURN_IF_ERROR(add_merge(index, a, b, left, right));
    }
  }
  Status st = model.Finish();
  if (!st.ok()) return st.WithContext(source);

  auto tokenizer = std::make_unique<BpeTokenizer>(std::move(model), std::move(stages));
  tokenizer->set_normal_form(form);
  for (auto& [id, text] : not_byte_level) tokenizer->AddText(id, std::move(text));
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const nlohmann::json& t : j["added_tokens"]) {
      AddedToken added;
      added.id = t.at("id").get<uint32_t>();
      added.text = t.at("content").get<std::string>();
      added.lstrip = t.value("lstrip", false);
      added.rstrip = t.value("rstrip", false);
      added.single_word = t.value("single_word", false);
      if (added.text.empty()) continue;
      if (t.value("special", false)) {
        tokenizer->AddSpecial(added.text, added.id);
        if (!options.split_special_tokens) tokenizer->MatchLiterally(added);
      } else {
        tokenizer->AddText(added.id, added.text);
        tokenizer->MatchLiterally(added);  // HF always matches non-special added tokens
      }
    }
  }
  tokenizer->FindBosEos();
  tokenizer->FinishSetup();
  return std::unique_ptr<Tokenizer>(std::move(tokenizer));
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> LoadBpeTokenizerJson(const TokenizerOptions& options,
                                                          std::string_view json,
                                                          std::string_view source) {
  return LoadBpeParsedTokenizerJson(options, ParseTokenizerJsonText(json), source);
}

StatusOr<std::unique_ptr<Tokenizer>> LoadBpeParsedTokenizerJson(const TokenizerOptions& options,
                                                                const ParsedTokenizerJson& json,
                                                                std::string_view source) {
  try {
    return LoadBpeTokenizerJsonImpl(options, json, source);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string(source) +
                                   ": unexpected tokenizer.json structure: " + e.what());
  }
}

}  // namespace tokenmill
