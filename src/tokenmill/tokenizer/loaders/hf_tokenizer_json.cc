#include "tokenmill/tokenizer/loaders/hf_tokenizer_json.h"

#include <algorithm>
#include <cassert>
#include <exception>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/char_util.h"
#include "tokenmill/tokenizer/loaders/added_vocabulary.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/models/hf_bpe.h"
#include "tokenmill/tokenizer/models/model.h"
#include "tokenmill/tokenizer/models/unigram.h"
#include "tokenmill/tokenizer/models/word_level.h"
#include "tokenmill/tokenizer/normalizers/hf_normalizers.h"
#include "tokenmill/tokenizer/normalizers/normalizer.h"
#include "tokenmill/tokenizer/normalizers/precompiled.h"
#include "tokenmill/tokenizer/pre_tokenizers/hf_pre_tokenizers.h"
#include "tokenmill/tokenizer/pre_tokenizers/pre_tokenizer.h"
#include "tokenmill/tokenizer/pre_tokenizers/unicode_scripts.h"

namespace tokenmill {
namespace {

using hf::AddedToken;
using hf::AddedTokenMatcher;
using hf::Model;
using hf::Normalizer;
using hf::Piece;
using hf::PreTokenizer;
using hf::Segment;
using nlohmann::json;

class PipelineTokenizer final : public Tokenizer {
 public:
  TokenizerKind kind() const override { return kind_; }

  void Encode(std::string_view text, std::vector<uint32_t>* ids) const override {
    std::string repaired;
    EncodeImpl(ValidUtf8View(text, InvalidUtf8::kReplace, &repaired), ids, nullptr, 0);
  }

  void EncodeValidUtf8(std::string_view text, std::vector<uint32_t>* ids) const override {
    assert(FindInvalidUtf8(text) == std::string_view::npos);
    EncodeImpl(text, ids, nullptr, 0);
  }

  // Cuts each segment (text between added tokens) before a lone ' ' after another character,
  // once `piece_bytes` have gone by, where the pipeline keeps the ids (cuts_, set at load) and the
  // model confirms no token spans the point (the normalized character before it).
  void EncodeInPieces(std::string_view text, size_t piece_bytes,
                      const IdPieceSink& sink) const override {
    if (!cuts_ || text.size() <= piece_bytes) {
      Tokenizer::EncodeInPieces(text, piece_bytes, sink);
      return;
    }
    std::vector<uint32_t> ids;
    const std::function<void()> flush = [&] {
      if (!ids.empty()) sink(ids);
      ids.clear();
    };
    std::string repaired;
    EncodeImpl(ValidUtf8View(text, InvalidUtf8::kReplace, &repaired), &ids, &flush, piece_bytes);
    flush();
  }

  // Whether EncodeInPieces cuts long texts (tests).
  bool cuts() const { return cuts_; }
  bool cuts_ = false;

  // Encode of valid UTF-8, and with `flush` the segments are cut into pieces of about
  // `piece_bytes` and `flush` is called after each.
  void EncodeImpl(std::string_view text, std::vector<uint32_t>* ids,
                  const std::function<void()>* flush, size_t piece_bytes) const {
    auto segment = [&](std::string_view seg, bool at_origin) {
      if (flush == nullptr) {
        EncodeSegment(seg, at_origin, false, ids);
      } else {
        EncodeLongSegment(seg, at_origin, piece_bytes, ids, *flush);
      }
    };
    if (raw_tokens_.empty()) {
      segment(text, true);
      return;
    }
    std::vector<AddedTokenMatcher::Split> splits;
    raw_tokens_.Find(text, &splits);
    for (const auto& s : splits) {
      if (s.id >= 0) {
        ids->push_back(static_cast<uint32_t>(s.id));
      } else {
        segment(text.substr(s.start, s.end - s.start), s.start == 0);
      }
    }
  }

  // The first point at or after `from` just before a ' ' that is a grapheme cluster of its own
  // and follows a character that is not whitespace (which Strip could remove from the end of
  // the whole, or which becomes "▁" itself); npos if none.
  static size_t NextCut(std::string_view text, size_t from) {
    for (size_t i = text.find(' ', std::max<size_t>(from, 1)); i != std::string_view::npos;
         i = text.find(' ', i + 1)) {
      if (text[i - 1] == ' ') continue;
      size_t len;
      const uint32_t before = hf::DecodeAt(text, hf::CharStartBefore(text, i), &len);
      if (hf::IsWhitespace(before) ||
          !utf8proc_grapheme_break(static_cast<utf8proc_int32_t>(before), ' ')) {
        continue;
      }
      if (i + 1 < text.size()) {
        const auto after = static_cast<utf8proc_int32_t>(hf::DecodeAt(text, i + 1, &len));
        if (!utf8proc_grapheme_break(' ', after)) continue;
      }
      return i;
    }
    return std::string_view::npos;
  }

  // Whether the model's ids stay the same across a cut before a "▁" that follows `before`: the
  // pre-tokenizer cuts there anyway, or the model says so.
  bool ModelCutsAfter(std::string_view before) const {
    return (pre_tokenizer_ != nullptr && pre_tokenizer_->CutsBeforeMeta()) ||
           model_->CutsBeforeMeta(before);
  }

  void EncodeLongSegment(std::string_view text, bool at_origin, size_t piece_bytes,
                         std::vector<uint32_t>* ids, const std::function<void()>& flush) const {
    size_t pos = 0;
    size_t from = piece_bytes;
    int refused = 0;  // normalized characters found unsafe after the raw one was safe
    while (text.size() - pos > piece_bytes && refused < 16) {
      const size_t cut = NextCut(text, from);
      if (cut == std::string_view::npos) break;
      from = cut + 1;
      const size_t raw = hf::CharStartBefore(text, cut, pos);
      if (!ModelCutsAfter(text.substr(raw, cut - raw))) continue;  // most likely unsafe
      Segment seg{std::string(text.substr(pos, cut - pos)), at_origin && pos == 0, pos > 0, true};
      if (normalizer_ != nullptr) normalizer_->Normalize(&seg);
      // The character the model sees before the "▁" of the cut, after normalizing: not
      // whitespace either, and no token spans it. An empty left side could leave the right
      // side's spaces at the segment's start.
      bool safe = false;
      if (!seg.text.empty()) {
        const std::string_view before =
            std::string_view(seg.text).substr(hf::CharStartBefore(seg.text, seg.text.size()));
        size_t len;
        safe = !hf::IsWhitespace(hf::DecodeAt(before, 0, &len)) && ModelCutsAfter(before);
      }
      if (!safe) {
        ++refused;
        continue;
      }
      EncodeNormalizedSegment(seg, ids);
      flush();
      pos = cut;
      from = pos + piece_bytes;
    }
    EncodeSegment(text.substr(pos), at_origin && pos == 0, pos > 0, ids);
  }

  uint32_t vocab_size() const override { return static_cast<uint32_t>(text_by_id_.size()); }

  std::string_view IdToToken(uint32_t id) const override {
    if (id >= text_by_id_.size()) return {};
    return text_by_id_[id];
  }

  std::optional<uint32_t> TokenToId(std::string_view token) const override {
    auto it = id_by_text_.find(std::string(token));
    if (it == id_by_text_.end()) return std::nullopt;
    return it->second;
  }

  std::string Decode(std::span<const uint32_t> ids) const override {
    std::string out;
    for (uint32_t id : ids) {
      const std::string_view t = IdToToken(id);
      if (const int byte = hf::ByteFallbackValue(t); byte >= 0) {
        out.push_back(static_cast<char>(byte));
        continue;
      }
      hf::AppendMetaspaceAsSpace(t, &out);
    }
    std::string valid;
    AppendValidUtf8(out, InvalidUtf8::kReplace, &valid);
    return valid;
  }

  const SpecialTokens& specials() const override { return specials_; }

  TokenizerKind kind_ = TokenizerKind::kBytePairEncoding;
  std::unique_ptr<Normalizer> normalizer_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unique_ptr<Model> model_;
  AddedTokenMatcher raw_tokens_;         // normalized: false
  AddedTokenMatcher normalized_tokens_;  // normalized: true, by normalized form
  std::vector<std::string> text_by_id_;
  std::unordered_map<std::string, uint32_t> id_by_text_;
  SpecialTokens specials_;

 private:
  void EncodeSegment(std::string_view text, bool at_origin, bool continued,
                     std::vector<uint32_t>* ids) const {
    if (text.empty()) return;
    Segment seg{std::string(text), at_origin && !continued, continued};
    if (normalizer_ != nullptr) normalizer_->Normalize(&seg);
    EncodeNormalizedSegment(seg, ids);
  }

  void EncodeNormalizedSegment(const Segment& seg, std::vector<uint32_t>* ids) const {
    if (seg.text.empty()) return;
    if (normalized_tokens_.empty()) {
      EncodeNormalized(seg.text, seg.at_origin, ids);
      return;
    }
    std::vector<AddedTokenMatcher::Split> splits;
    normalized_tokens_.Find(seg.text, &splits);
    for (const auto& s : splits) {
      if (s.id >= 0) {
        ids->push_back(static_cast<uint32_t>(s.id));
      } else {
        EncodeNormalized(std::string_view(seg.text).substr(s.start, s.end - s.start),
                         seg.at_origin && s.start == 0, ids);
      }
    }
  }

  void EncodeNormalized(std::string_view text, bool at_origin, std::vector<uint32_t>* ids) const {
    if (pre_tokenizer_ == nullptr) {
      model_->Encode(text, ids);
      return;
    }
    if (pre_tokenizer_->Visit(text, at_origin,
                              [&](std::string_view piece) { model_->Encode(piece, ids); })) {
      return;
    }
    std::vector<Piece> pieces;
    pieces.push_back({std::string(text), at_origin});
    pre_tokenizer_->PreTokenize(&pieces);
    for (const Piece& p : pieces) {
      if (!p.text.empty()) model_->Encode(p.text, ids);
    }
  }
};

// Errors name the file and the JSON path of the component.
Status Bad(std::string_view source, const std::string& path, const std::string& what) {
  return Status::InvalidArgument(std::string(source) + ": " + path + ": " + what);
}

std::string TypeOf(const json& j) {
  if (!j.is_object()) return "";
  auto it = j.find("type");
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// A JSON string member, or Status error.
StatusOr<std::string> StringAt(const json& j, const char* key, std::string_view source,
                               const std::string& path) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) {
    return Bad(source, path + "." + key, "missing or not a string");
  }
  return it->get<std::string>();
}

// {"String": s} or {"Regex": r}: is_regex tells which.
Status PatternAt(const json& j, std::string_view source, const std::string& path,
                 std::string* pattern, bool* is_regex) {
  auto it = j.find("pattern");
  if (it == j.end() || !it->is_object()) return Bad(source, path + ".pattern", "missing");
  if (it->contains("String") && (*it)["String"].is_string()) {
    *pattern = (*it)["String"].get<std::string>();
    *is_regex = false;
    return Status::Ok();
  }
  if (it->contains("Regex") && (*it)["Regex"].is_string()) {
    *pattern = (*it)["Regex"].get<std::string>();
    *is_regex = true;
    return Status::Ok();
  }
  return Bad(source, path + ".pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
}

StatusOr<std::unique_ptr<Normalizer>> ReadNormalizer(const json& n, std::string_view source,
                                                     const std::string& path) {
  const std::string type = TypeOf(n);
  if (type == "Sequence") {
    std::vector<std::unique_ptr<Normalizer>> steps;
    const json& list = n.at("normalizers");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = path + ".normalizers[" + std::to_string(i) + "]";
      if (list[i].is_null()) continue;
      TM_ASSIGN_OR_RETURN(auto step, ReadNormalizer(list[i], source, p));
      steps.push_back(std::move(step));
    }
    return std::unique_ptr<Normalizer>(new hf::SequenceNormalizer(std::move(steps)));
  }
  if (type == "Prepend") {
    TM_ASSIGN_OR_RETURN(std::string prepend, StringAt(n, "prepend", source, path));
    return std::unique_ptr<Normalizer>(new hf::PrependNormalizer(std::move(prepend)));
  }
  if (type == "Replace") {
    std::string pattern;
    bool is_regex = false;
    TM_RETURN_IF_ERROR(PatternAt(n, source, path, &pattern, &is_regex));
    TM_ASSIGN_OR_RETURN(std::string content, StringAt(n, "content", source, path));
    if (is_regex) {
      auto r = hf::ReplaceNormalizer::Regex(pattern, std::move(content));
      if (!r.ok()) return Bad(source, path + ".pattern.Regex", r.status().message());
      return std::unique_ptr<Normalizer>(std::move(r).value());
    }
    TM_ASSIGN_OR_RETURN(auto r, hf::ReplaceNormalizer::Literal(std::move(pattern), content));
    return std::unique_ptr<Normalizer>(std::move(r));
  }
  if (type == "NFC")
    return std::unique_ptr<Normalizer>(new hf::UnicodeNormalizer(hf::NormalForm::kNfc));
  if (type == "NFD")
    return std::unique_ptr<Normalizer>(new hf::UnicodeNormalizer(hf::NormalForm::kNfd));
  if (type == "NFKC") {
    return std::unique_ptr<Normalizer>(new hf::UnicodeNormalizer(hf::NormalForm::kNfkc));
  }
  if (type == "NFKD") {
    return std::unique_ptr<Normalizer>(new hf::UnicodeNormalizer(hf::NormalForm::kNfkd));
  }
  if (type == "Lowercase") return std::unique_ptr<Normalizer>(new hf::LowercaseNormalizer());
  if (type == "Strip") {
    return std::unique_ptr<Normalizer>(
        new hf::StripNormalizer(n.value("strip_left", true), n.value("strip_right", true)));
  }
  if (type == "StripAccents") return std::unique_ptr<Normalizer>(new hf::StripAccentsNormalizer());
  if (type == "Nmt") return std::unique_ptr<Normalizer>(new hf::NmtNormalizer());
  if (type == "Precompiled") {
    auto it = n.find("precompiled_charsmap");
    if (it == n.end() || it->is_null()) {
      return std::unique_ptr<Normalizer>(new hf::PrecompiledNormalizer(hf::CharsMap()));
    }
    if (!it->is_string()) return Bad(source, path + ".precompiled_charsmap", "not a string");
    std::string blob;
    if (!hf::DecodeBase64Blob(it->get<std::string>(), &blob)) {
      return Bad(source, path + ".precompiled_charsmap", "not valid base64");
    }
    auto map = hf::CharsMap::Parse(blob);
    if (!map.ok()) return Bad(source, path + ".precompiled_charsmap", map.status().message());
    return std::unique_ptr<Normalizer>(new hf::PrecompiledNormalizer(std::move(map).value()));
  }
  return Bad(source, path,
             "normalizer type \"" + type +
                 "\" is not supported here; supported: Sequence, Prepend, Replace, NFC, NFD, NFKC, "
                 "NFKD, Lowercase, Strip, StripAccents, Nmt, Precompiled (BertNormalizer with a "
                 "WordPiece "
                 "model)");
}

StatusOr<std::unique_ptr<PreTokenizer>> ReadPreTokenizer(const json& p, std::string_view source,
                                                         const std::string& path) {
  using hf::SplitBehavior;
  using hf::SplitPreTokenizer;
  const std::string type = TypeOf(p);
  auto split = [](hf::MatchFinder f, SplitBehavior b, bool invert) {
    return std::unique_ptr<PreTokenizer>(new SplitPreTokenizer(std::move(f), b, invert));
  };
  auto behavior = [&](SplitBehavior fallback) -> StatusOr<SplitBehavior> {
    auto it = p.find("behavior");
    if (it == p.end() || it->is_null()) return fallback;
    if (!it->is_string()) return Bad(source, path + ".behavior", "not a string");
    auto b = hf::ParseSplitBehavior(it->get<std::string>());
    if (!b.ok()) return Bad(source, path + ".behavior", b.status().message());
    return b;
  };
  if (type == "Sequence") {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    const json& list = p.at("pretokenizers");
    for (size_t i = 0; i < list.size(); ++i) {
      TM_ASSIGN_OR_RETURN(
          auto step,
          ReadPreTokenizer(list[i], source, path + ".pretokenizers[" + std::to_string(i) + "]"));
      steps.push_back(std::move(step));
    }
    return std::unique_ptr<PreTokenizer>(new hf::SequencePreTokenizer(std::move(steps)));
  }
  if (type == "Split") {
    std::string pattern;
    bool is_regex = false;
    TM_RETURN_IF_ERROR(PatternAt(p, source, path, &pattern, &is_regex));
    auto it = p.find("behavior");
    if (it == p.end() || !it->is_string()) return Bad(source, path + ".behavior", "missing");
    TM_ASSIGN_OR_RETURN(SplitBehavior b, behavior(SplitBehavior::kIsolated));
    auto inv = p.find("invert");
    if (inv == p.end() || !inv->is_boolean()) {
      return Bad(source, path + ".invert", "missing (HF requires it)");
    }
    hf::MatchFinder finder;
    if (is_regex) {
      auto f = SplitPreTokenizer::Regex(pattern);
      if (!f.ok()) return Bad(source, path + ".pattern.Regex", f.status().message());
      finder = std::move(f).value();
    } else {
      finder = SplitPreTokenizer::Literal(pattern);
    }
    auto s = std::make_unique<SplitPreTokenizer>(std::move(finder), b, inv->get<bool>());
    if (!is_regex) s->set_literal(pattern);
    return std::unique_ptr<PreTokenizer>(std::move(s));
  }
  if (type == "Metaspace") {
    std::string replacement = "\xE2\x96\x81";
    if (p.contains("replacement")) {
      TM_ASSIGN_OR_RETURN(replacement, StringAt(p, "replacement", source, path));
      size_t len;
      if (replacement.empty() || (hf::DecodeAt(replacement, 0, &len), len != replacement.size())) {
        return Bad(source, path + ".replacement", "must be one character");
      }
    }
    hf::PrependScheme scheme = hf::PrependScheme::kAlways;
    if (p.contains("prepend_scheme") && !p["prepend_scheme"].is_null()) {
      TM_ASSIGN_OR_RETURN(std::string s, StringAt(p, "prepend_scheme", source, path));
      if (s == "first") {
        scheme = hf::PrependScheme::kFirst;
      } else if (s == "never") {
        scheme = hf::PrependScheme::kNever;
      } else if (s == "always") {
        scheme = hf::PrependScheme::kAlways;
      } else {
        return Bad(source, path + ".prepend_scheme", "\"" + s + "\" is not first, never or always");
      }
    }
    if (p.contains("add_prefix_space") && p["add_prefix_space"].is_boolean() &&
        !p["add_prefix_space"].get<bool>()) {
      if (p.contains("prepend_scheme") && scheme != hf::PrependScheme::kNever) {
        return Bad(source, path + ".add_prefix_space",
                   "false contradicts prepend_scheme (HF refuses this file too)");
      }
      scheme = hf::PrependScheme::kNever;
    }
    return std::unique_ptr<PreTokenizer>(
        new hf::MetaspacePreTokenizer(replacement, scheme, p.value("split", true)));
  }
  if (type == "Digits") {
    const bool individual = p.value("individual_digits", false);
    return split(SplitPreTokenizer::Chars(hf::IsNumeric),
                 individual ? SplitBehavior::kIsolated : SplitBehavior::kContiguous, false);
  }
  if (type == "Punctuation") {
    TM_ASSIGN_OR_RETURN(SplitBehavior b, behavior(SplitBehavior::kIsolated));
    return split(SplitPreTokenizer::Chars(hf::IsPunctuation), b, false);
  }
  if (type == "Whitespace") {
    TM_ASSIGN_OR_RETURN(hf::MatchFinder f, SplitPreTokenizer::Regex("\\w+|[^\\w\\s]+"));
    return split(std::move(f), SplitBehavior::kRemoved, true);
  }
  if (type == "WhitespaceSplit") {
    return split(SplitPreTokenizer::Chars(hf::IsWhitespace), SplitBehavior::kRemoved, false);
  }
  if (type == "CharDelimiterSplit") {
    TM_ASSIGN_OR_RETURN(std::string d, StringAt(p, "delimiter", source, path));
    size_t len;
    if (d.empty() || (hf::DecodeAt(d, 0, &len), len != d.size())) {
      return Bad(source, path + ".delimiter", "must be one character");
    }
    size_t l;
    const uint32_t cp = hf::DecodeAt(d, 0, &l);
    return split(SplitPreTokenizer::Chars([cp](uint32_t c) { return c == cp; }),
                 SplitBehavior::kRemoved, false);
  }
  if (type == "UnicodeScripts") {
    return std::unique_ptr<PreTokenizer>(new hf::UnicodeScriptsPreTokenizer());
  }
  return Bad(source, path,
             "pre_tokenizer type \"" + type +
                 "\" is not supported here; supported: Sequence, Split, Metaspace, Digits, "
                 "Punctuation, Whitespace, WhitespaceSplit, CharDelimiterSplit, UnicodeScripts "
                 "(ByteLevel with a "
                 "byte-level BPE model, BertPreTokenizer with WordPiece)");
}

// model.vocab as (token, id) pairs: an object {token: id}, its members taken out of the DOM
// (ParsedTokenizerJson::vocab; freed here).
Status ReadVocabObject(std::optional<JsonMembers>* members, std::string_view source,
                       std::vector<std::pair<std::string, uint32_t>>* vocab) {
  if (!members->has_value()) return Bad(source, "model.vocab", "missing or not an object");
  const JsonMembers taken = std::move(**members);
  members->reset();
  vocab->reserve(taken.size());
  for (const auto& [token, value] : taken) {
    if (!value.is_number_unsigned() || value.get<uint64_t>() >= (uint64_t{1} << 31)) {
      return Bad(source, "model.vocab[\"" + token + "\"]", "not a valid id");
    }
    vocab->emplace_back(token, value.get<uint32_t>());
  }
  return Status::Ok();
}

// The model readers take the model's DOM, move the big strings out of it and drop what they
// have read before building the model's tables, so the DOM and the tables never live in full
// together (a 33 MB Gemma-3 file is ~300 MB of DOM).
StatusOr<std::unique_ptr<Model>> ReadBpe(json& m, std::optional<JsonMembers>* members,
                                         std::optional<MergePairs>* parsed_merges,
                                         std::string_view source) {
  if (m.contains("dropout") && !m["dropout"].is_null() && m["dropout"].get<double>() != 0.0) {
    return Bad(source, "model.dropout",
               "BPE dropout is random; set it to null for data preparation");
  }
  std::vector<std::pair<std::string, uint32_t>> vocab;
  TM_RETURN_IF_ERROR(ReadVocabObject(members, source, &vocab));
  auto mi = m.find("merges");
  if (mi == m.end() || !mi->is_array()) return Bad(source, "model.merges", "missing or not a list");
  MergePairs merges;
  if (parsed_merges->has_value()) {  // taken out by the parser, well-formed
    merges = std::move(**parsed_merges);
    parsed_merges->reset();
  } else {
    merges.reserve(mi->size());
    for (size_t i = 0; i < mi->size(); ++i) {
      json& e = (*mi)[i];
      if (e.is_string()) {
        const std::string s = std::move(e.get_ref<std::string&>());
        const size_t space = MergeSpace(s);
        if (space == std::string::npos) {
          return Bad(source, "model.merges[" + std::to_string(i) + "]",
                     "\"" + s + "\": expected two tokens separated by one space");
        }
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
      } else if (e.is_array() && e.size() == 2 && e[0].is_string() && e[1].is_string()) {
        merges.emplace_back(std::move(e[0].get_ref<std::string&>()),
                            std::move(e[1].get_ref<std::string&>()));
      } else {
        return Bad(source, "model.merges[" + std::to_string(i) + "]", "neither \"a b\" nor [a, b]");
      }
    }
  }
  hf::HfBpeOptions o;
  if (m.contains("unk_token") && m["unk_token"].is_string()) o.unk_token = m["unk_token"];
  o.fuse_unk = m.value("fuse_unk", false);
  o.byte_fallback = m.value("byte_fallback", false);
  o.ignore_merges = m.value("ignore_merges", false);
  if (m.contains("continuing_subword_prefix") && m["continuing_subword_prefix"].is_string()) {
    o.continuing_subword_prefix = m["continuing_subword_prefix"];
  }
  if (m.contains("end_of_word_suffix") && m["end_of_word_suffix"].is_string()) {
    o.end_of_word_suffix = m["end_of_word_suffix"];
  }
  m.erase("merges");
  m.erase("vocab");
  auto model = hf::HfBpeModel::Build(vocab, merges, std::move(o));
  if (!model.ok()) return Bad(source, "model", model.status().message());
  return std::unique_ptr<Model>(std::move(model).value());
}

StatusOr<std::unique_ptr<Model>> ReadWordLevel(const json& m, std::optional<JsonMembers>* members,
                                               std::string_view source) {
  std::vector<std::pair<std::string, uint32_t>> vocab;
  TM_RETURN_IF_ERROR(ReadVocabObject(members, source, &vocab));
  TM_ASSIGN_OR_RETURN(std::string unk, StringAt(m, "unk_token", source, "model"));
  auto model = hf::WordLevelModel::Build(vocab, unk);
  if (!model.ok()) return Bad(source, "model.unk_token", model.status().message());
  return std::unique_ptr<Model>(std::move(model).value());
}

StatusOr<std::unique_ptr<Model>> ReadUnigram(json& m, std::string_view source) {
  auto it = m.find("vocab");
  if (it == m.end() || !it->is_array()) return Bad(source, "model.vocab", "missing or not a list");
  std::vector<hf::UnigramPiece> vocab;
  vocab.reserve(it->size());
  for (size_t i = 0; i < it->size(); ++i) {
    json& e = (*it)[i];
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number()) {
      return Bad(source, "model.vocab[" + std::to_string(i) + "]", "expected [piece, score]");
    }
    vocab.push_back(
        {std::move(e[0].get_ref<std::string&>()), e[1].get<double>(), hf::PieceType::kNormal});
  }
  m.erase("vocab");
  auto u = m.find("unk_id");
  if (u == m.end() || u->is_null()) {
    return Bad(source, "model.unk_id",
               "missing: the vocabulary has no unknown piece, so text outside it cannot be "
               "encoded (HF fails on such text); set unk_id");
  }
  if (!u->is_number_unsigned()) return Bad(source, "model.unk_id", "not a valid id");
  auto model =
      hf::UnigramModel::Build(std::move(vocab), u->get<uint32_t>(), m.value("byte_fallback", false),
                              hf::UnigramFlavor::kHuggingFace);
  if (!model.ok()) return Bad(source, "model", model.status().message());
  return std::unique_ptr<Model>(std::move(model).value());
}

bool HasByteLevel(const json& p) {
  if (TypeOf(p) == "ByteLevel") return true;
  if (TypeOf(p) == "Sequence" && p.contains("pretokenizers") && p["pretokenizers"].is_array()) {
    for (const json& s : p["pretokenizers"]) {
      if (HasByteLevel(s)) return true;
    }
  }
  return false;
}

Status CheckOptions(const TokenizerOptions& options, std::string_view source) {
  auto refuse = [&](std::string_view key) {
    return Status::InvalidArgument(std::string(source) + ": [tokenizer] " + std::string(key) +
                                   " applies to WordPiece only; remove it for this tokenizer");
  };
  if (options.lowercase.has_value()) return refuse("lowercase");
  if (options.strip_accents.has_value()) return refuse("strip_accents");
  if (options.handle_chinese_chars.has_value()) return refuse("handle_chinese_chars");
  if (options.clean_text.has_value()) return refuse("clean_text");
  if (options.max_input_chars_per_word.has_value()) return refuse("max_input_chars_per_word");
  if (options.compat != CompatMode::kHuggingFace) return refuse("compat");
  if (options.encoding.has_value()) {
    return Status::InvalidArgument(std::string(source) +
                                   ": [tokenizer] encoding applies to tiktoken files only");
  }
  return Status::Ok();
}

StatusOr<std::unique_ptr<Tokenizer>> LoadImpl(const TokenizerOptions& options,
                                              ParsedTokenizerJson parsed, std::string_view source) {
  TM_RETURN_IF_ERROR(CheckOptions(options, source));
  json& j = parsed.json;
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(std::string(source) + ": not valid JSON");
  }
  auto t = std::make_unique<PipelineTokenizer>();
  if (j.contains("normalizer") && !j["normalizer"].is_null()) {
    TM_ASSIGN_OR_RETURN(t->normalizer_, ReadNormalizer(j["normalizer"], source, "normalizer"));
  }
  if (j.contains("pre_tokenizer") && !j["pre_tokenizer"].is_null()) {
    TM_ASSIGN_OR_RETURN(t->pre_tokenizer_,
                        ReadPreTokenizer(j["pre_tokenizer"], source, "pre_tokenizer"));
  }
  if (!j.contains("model") || !j["model"].is_object()) return Bad(source, "model", "missing");
  json& m = j["model"];
  std::string type = TypeOf(m);
  if (type.empty() && m.contains("merges")) type = "BPE";
  if (type.empty() && m.contains("vocab") && m["vocab"].is_object()) type = "WordLevel";
  if (type.empty() && m.contains("vocab") && m["vocab"].is_array()) type = "Unigram";
  if (type == "BPE") {
    TM_ASSIGN_OR_RETURN(t->model_, ReadBpe(m, &parsed.vocab, &parsed.merges, source));
    t->kind_ = TokenizerKind::kBytePairEncoding;
  } else if (type == "WordLevel") {
    TM_ASSIGN_OR_RETURN(t->model_, ReadWordLevel(m, &parsed.vocab, source));
    t->kind_ = TokenizerKind::kWordLevel;
  } else if (type == "Unigram") {
    TM_ASSIGN_OR_RETURN(t->model_, ReadUnigram(m, source));
    t->kind_ = TokenizerKind::kUnigram;
  } else {
    return Bad(source, "model.type",
               "model \"" + type +
                   "\" is not supported here; supported: BPE, Unigram, WordLevel "
                   "(and WordPiece)");
  }
  t->text_by_id_ = t->model_->pieces();
  if (auto* bpe = dynamic_cast<const hf::HfBpeModel*>(t->model_.get()); bpe != nullptr) {
    t->specials_.unk = bpe->unk_id();
  }
  if (auto* uni = dynamic_cast<const hf::UnigramModel*>(t->model_.get()); uni != nullptr) {
    t->specials_.unk = uni->unk_id();
  }
  t->raw_tokens_.set_skip_special(options.split_special_tokens);
  t->normalized_tokens_.set_skip_special(options.split_special_tokens);
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    const json& list = j["added_tokens"];
    for (size_t i = 0; i < list.size(); ++i) {
      const json& a = list[i];
      const std::string path = "added_tokens[" + std::to_string(i) + "]";
      if (!a.is_object() || !a.contains("id") || !a["id"].is_number_unsigned() ||
          !a.contains("content") || !a["content"].is_string()) {
        return Bad(source, path, "needs an \"id\" and a \"content\"");
      }
      AddedToken added;
      added.id = a["id"].get<uint32_t>();
      added.content = a["content"].get<std::string>();
      added.lstrip = a.value("lstrip", false);
      added.rstrip = a.value("rstrip", false);
      added.single_word = a.value("single_word", false);
      added.special = a.value("special", false);
      // HF's default for "normalized" is the opposite of "special".
      const bool normalized = a.value("normalized", !added.special);
      if (added.content.empty()) continue;
      if (added.id >= t->text_by_id_.size()) t->text_by_id_.resize(added.id + 1);
      t->text_by_id_[added.id] = added.content;
      if (added.special) t->specials_.all[added.content] = added.id;
      if (normalized && t->normalizer_ != nullptr) {
        Segment seg{added.content, false};
        t->normalizer_->Normalize(&seg);
        added.content = seg.text;
        t->normalized_tokens_.Add(std::move(added));
      } else if (normalized) {
        t->normalized_tokens_.Add(std::move(added));
      } else {
        t->raw_tokens_.Add(std::move(added));
      }
    }
  }
  for (uint32_t id = 0; id < t->text_by_id_.size(); ++id) {
    if (!t->text_by_id_[id].empty()) t->id_by_text_.emplace(t->text_by_id_[id], id);
  }
  {  // Can long texts be cut before a ' ' (turned into "▁")? See EncodeInPieces.
    std::string cut = " ";
    bool ok = t->normalized_tokens_.empty();
    if (ok && t->normalizer_ != nullptr) ok = t->normalizer_->KeepsCut(&cut);
    if (ok && t->pre_tokenizer_ != nullptr) ok = t->pre_tokenizer_->KeepsCut(&cut);
    t->cuts_ = ok && cut == hf::kMetaspace;
  }
  if (auto it = t->specials_.all.find("<|endoftext|>"); it != t->specials_.all.end()) {
    t->specials_.eod = it->second;
  }
  // BOS and EOS: the special (or else vocabulary) tokens of kBosSpellings and kEosSpellings.
  auto find = [&](std::span<const std::string_view> names) -> std::optional<uint32_t> {
    if (auto special = FindSpecial(t->specials_, names)) return special;
    for (std::string_view n : names) {
      if (auto it = t->id_by_text_.find(std::string(n)); it != t->id_by_text_.end()) {
        return it->second;
      }
    }
    return std::nullopt;
  };
  t->specials_.bos = find(kBosSpellings);
  t->specials_.eos = find(kEosSpellings);
  for (const char* pad : {"<pad>", "[PAD]"}) {
    if (auto it = t->id_by_text_.find(pad); it != t->id_by_text_.end() && !t->specials_.pad) {
      t->specials_.pad = it->second;
    }
  }
  return std::unique_ptr<Tokenizer>(std::move(t));
}

}  // namespace

bool IsByteLevelTokenizerJson(const nlohmann::json& j) {
  return j.contains("pre_tokenizer") && HasByteLevel(j["pre_tokenizer"]);
}

StatusOr<std::unique_ptr<Tokenizer>> LoadHfPipelineTokenizerJson(const TokenizerOptions& options,
                                                                 std::string_view json_text,
                                                                 std::string_view source) {
  return LoadHfPipelineTokenizerJson(options, ParseTokenizerJsonText(json_text), source);
}

StatusOr<std::unique_ptr<Tokenizer>> LoadHfPipelineTokenizerJson(const TokenizerOptions& options,
                                                                 ParsedTokenizerJson parsed,
                                                                 std::string_view source) {
  try {
    return LoadImpl(options, std::move(parsed), source);
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string(source) +
                                   ": unexpected tokenizer.json structure: " + e.what());
  }
}

}  // namespace tokenmill
