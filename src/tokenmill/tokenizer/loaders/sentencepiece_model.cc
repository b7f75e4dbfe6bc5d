#include "tokenmill/tokenizer/loaders/sentencepiece_model.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/char_util.h"
#include "tokenmill/tokenizer/models/hf_bpe.h"
#include "tokenmill/tokenizer/models/unigram.h"
#include "tokenmill/tokenizer/normalizers/spm_normalizer.h"

namespace tokenmill {
namespace {

using hf::PieceType;

// A protobuf wire-format reader over one message.
class Wire {
 public:
  Wire(std::string_view data, size_t base) : data_(data), base_(base) {}
  bool done() const { return pos_ >= data_.size(); }
  size_t offset() const { return base_ + pos_; }

  // The next field's number and wire type; false (with *error) if malformed.
  bool Next(uint32_t* field, uint32_t* type, std::string* error) {
    uint64_t key;
    if (!Varint(&key, error)) return false;
    *field = static_cast<uint32_t>(key >> 3);
    *type = static_cast<uint32_t>(key & 7);
    if (*field == 0) return Fail("field number 0", error);
    return true;
  }
  bool Varint(uint64_t* v, std::string* error) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Fail("truncated varint", error);
      const auto b = static_cast<unsigned char>(data_[pos_++]);
      *v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return Fail("varint longer than 10 bytes", error);
  }
  bool Bytes(std::string_view* out, size_t* start, std::string* error) {
    uint64_t n;
    if (!Varint(&n, error)) return false;
    if (n > data_.size() - pos_) {
      return Fail("length " + std::to_string(n) + " runs past the end", error);
    }
    *start = base_ + pos_;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Fixed32(uint32_t* v, std::string* error) {
    if (data_.size() - pos_ < 4) return Fail("truncated fixed32", error);
    std::memcpy(v, data_.data() + pos_, 4);
    pos_ += 4;
    return true;
  }
  bool Skip(uint32_t type, std::string* error) {
    switch (type) {
      case 0: {
        uint64_t v;
        return Varint(&v, error);
      }
      case 1:
        if (data_.size() - pos_ < 8) return Fail("truncated fixed64", error);
        pos_ += 8;
        return true;
      case 2: {
        std::string_view s;
        size_t start;
        return Bytes(&s, &start, error);
      }
      case 5: {
        uint32_t v;
        return Fixed32(&v, error);
      }
      default:
        return Fail("unsupported wire type " + std::to_string(type), error);
    }
  }

 private:
  bool Fail(const std::string& what, std::string* error) {
    *error = "byte " + std::to_string(base_ + pos_) + ": " + what;
    return false;
  }
  std::string_view data_;
  size_t base_;
  size_t pos_ = 0;
};

struct Proto {
  std::vector<hf::UnigramPiece> pieces;
  int model_type = 1;  // UNIGRAM
  bool byte_fallback = false;
  bool treat_whitespace_as_suffix = false;
  std::string charsmap;
  hf::SpmNormalizerSpec spec;
  bool has_trainer = false;
};

#define TM_WIRE(expr) \
  if (!(expr)) return Status::InvalidArgument(std::string(source) + ": " + error)

Status ParsePiece(std::string_view data, size_t base, std::string_view source,
                  hf::UnigramPiece* p) {
  Wire w(data, base);
  std::string error;
  while (!w.done()) {
    uint32_t field, type;
    TM_WIRE(w.Next(&field, &type, &error));
    if (field == 1 && type == 2) {
      std::string_view s;
      size_t start;
      TM_WIRE(w.Bytes(&s, &start, &error));
      if (FindInvalidUtf8(s) != std::string_view::npos) {
        return Status::InvalidArgument(std::string(source) + ": byte " + std::to_string(start) +
                                       ": a piece is not valid UTF-8");
      }
      p->piece = std::string(s);
    } else if (field == 2 && type == 5) {
      uint32_t bits = 0;
      TM_WIRE(w.Fixed32(&bits, &error));
      float f;
      std::memcpy(&f, &bits, 4);
      p->score = f;
    } else if (field == 3 && type == 0) {
      uint64_t v;
      TM_WIRE(w.Varint(&v, &error));
      if (v < 1 || v > 6) {
        return Status::InvalidArgument(std::string(source) + ": byte " +
                                       std::to_string(w.offset()) + ": piece type " +
                                       std::to_string(v) + " is not 1..6");
      }
      p->type = static_cast<PieceType>(v);
    } else {
      TM_WIRE(w.Skip(type, &error));
    }
  }
  return Status::Ok();
}

Status ParseModel(std::string_view data, std::string_view source, Proto* proto) {
  Wire w(data, 0);
  std::string error;
  while (!w.done()) {
    uint32_t field, type;
    TM_WIRE(w.Next(&field, &type, &error));
    if (type != 2 || (field != 1 && field != 2 && field != 3)) {
      TM_WIRE(w.Skip(type, &error));
      continue;
    }
    std::string_view sub;
    size_t start;
    TM_WIRE(w.Bytes(&sub, &start, &error));
    if (field == 1) {
      hf::UnigramPiece p;
      TM_RETURN_IF_ERROR(ParsePiece(sub, start, source, &p));
      proto->pieces.push_back(std::move(p));
      continue;
    }
    Wire m(sub, start);
    if (field == 2) proto->has_trainer = true;
    while (!m.done()) {
      uint32_t f, t;
      TM_WIRE(m.Next(&f, &t, &error));
      if (t == 0) {
        uint64_t v;
        TM_WIRE(m.Varint(&v, &error));
        if (field == 2) {
          if (f == 3) proto->model_type = static_cast<int>(v);
          if (f == 35) proto->byte_fallback = v != 0;
          if (f == 24) proto->treat_whitespace_as_suffix = v != 0;
        } else {
          if (f == 3) proto->spec.add_dummy_prefix = v != 0;
          if (f == 4) proto->spec.remove_extra_whitespaces = v != 0;
          if (f == 5) proto->spec.escape_whitespaces = v != 0;
        }
      } else if (field == 3 && f == 2 && t == 2) {
        std::string_view s;
        size_t s_start;
        TM_WIRE(m.Bytes(&s, &s_start, &error));
        proto->charsmap = std::string(s);
      } else {
        TM_WIRE(m.Skip(t, &error));
      }
    }
  }
  return Status::Ok();
}

#undef TM_WIRE

class SentencePieceTokenizer final : public Tokenizer {
 public:
  TokenizerKind kind() const override { return kind_; }

  void Encode(std::string_view text, std::vector<uint32_t>* ids) const override {
    const std::string normalized = normalizer_->Normalize(text);
    if (!normalized.empty()) model_->Encode(normalized, ids);
  }

  uint32_t vocab_size() const override { return static_cast<uint32_t>(pieces_.size()); }
  std::string_view IdToToken(uint32_t id) const override {
    return id < pieces_.size() ? std::string_view(pieces_[id]) : std::string_view();
  }
  std::optional<uint32_t> TokenToId(std::string_view token) const override {
    auto it = ids_.find(std::string(token));
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }
  std::string Decode(std::span<const uint32_t> ids) const override {
    std::string out;
    for (uint32_t id : ids) {
      const std::string_view t = IdToToken(id);
      if (id < types_.size() && types_[id] == PieceType::kByte) {
        if (const int byte = hf::ByteFallbackValue(t); byte >= 0) {
          out.push_back(static_cast<char>(byte));
          continue;
        }
      }
      if (id < types_.size() && types_[id] == PieceType::kControl) continue;
      hf::AppendMetaspaceAsSpace(t, &out);
    }
    std::string valid;
    AppendValidUtf8(out, InvalidUtf8::kReplace, &valid);
    return valid;
  }
  const SpecialTokens& specials() const override { return specials_; }

  TokenizerKind kind_ = TokenizerKind::kUnigram;
  std::unique_ptr<hf::SpmNormalizer> normalizer_;
  std::unique_ptr<hf::Model> model_;
  std::vector<std::string> pieces_;
  std::vector<PieceType> types_;
  std::unordered_map<std::string, uint32_t> ids_;
  SpecialTokens specials_;
};

StatusOr<std::unique_ptr<Tokenizer>> Load(const TokenizerOptions& options, std::string_view data,
                                          std::string_view source) {
  auto refuse = [&](std::string_view key) {
    return Status::InvalidArgument(std::string(source) + ": [tokenizer] " + std::string(key) +
                                   " does not apply to a SentencePiece .model; remove it");
  };
  if (options.lowercase.has_value()) return refuse("lowercase");
  if (options.strip_accents.has_value()) return refuse("strip_accents");
  if (options.handle_chinese_chars.has_value()) return refuse("handle_chinese_chars");
  if (options.clean_text.has_value()) return refuse("clean_text");
  if (options.max_input_chars_per_word.has_value()) return refuse("max_input_chars_per_word");
  if (options.encoding.has_value()) return refuse("encoding");
  if (options.compat != CompatMode::kHuggingFace) return refuse("compat");
  if (!options.split_special_tokens) return refuse("split_special_tokens = false");
  Proto proto;
  TM_RETURN_IF_ERROR(ParseModel(data, source, &proto));
  const std::string src(source);
  if (proto.pieces.empty() || !proto.has_trainer) {
    return Status::InvalidArgument(src +
                                   ": no pieces or no trainer_spec: not a SentencePiece "
                                   ".model (truncated or another file?)");
  }
  if (proto.treat_whitespace_as_suffix) {
    return Status::InvalidArgument(src +
                                   ": trainer_spec.treat_whitespace_as_suffix is not "
                                   "supported");
  }
  auto t = std::make_unique<SentencePieceTokenizer>();
  std::optional<uint32_t> unk;
  for (uint32_t id = 0; id < proto.pieces.size(); ++id) {
    const hf::UnigramPiece& p = proto.pieces[id];
    if (p.piece.empty()) {
      return Status::InvalidArgument(src + ": piece " + std::to_string(id) + " is empty");
    }
    if (p.type == PieceType::kUnknown) {
      if (unk.has_value()) {
        return Status::InvalidArgument(src + ": more than one unknown piece (" +
                                       std::to_string(*unk) + ", " + std::to_string(id) + ")");
      }
      unk = id;
    }
    if (p.type == PieceType::kUserDefined) {
      return Status::InvalidArgument(src + ": piece " + std::to_string(id) + " \"" + p.piece +
                                     "\" is user-defined; user-defined symbols are not supported "
                                     "yet (use the model's tokenizer.json)");
    }
    if (!t->ids_.emplace(p.piece, id).second) {
      return Status::InvalidArgument(src + ": piece \"" + p.piece + "\" appears twice");
    }
    t->pieces_.push_back(p.piece);
    t->types_.push_back(p.type);
    if (p.type == PieceType::kControl || p.type == PieceType::kUnknown) {
      t->specials_.all[p.piece] = id;
    }
  }
  if (!unk.has_value()) {
    return Status::InvalidArgument(src +
                                   ": no unknown piece (type UNKNOWN, usually <unk>) in the "
                                   "vocabulary; sentencepiece refuses such a model too");
  }
  t->specials_.unk = unk;
  if (auto it = t->specials_.all.find("<pad>"); it != t->specials_.all.end()) {
    t->specials_.pad = it->second;
  }
  t->specials_.bos = FindSpecial(t->specials_, kBosSpellings);
  t->specials_.eos = FindSpecial(t->specials_, kEosSpellings);
  auto charsmap = hf::CharsMap::Parse(proto.charsmap);
  if (!charsmap.ok()) {
    return charsmap.status().WithContext(src + ": normalizer_spec.precompiled_charsmap");
  }
  t->normalizer_ = std::make_unique<hf::SpmNormalizer>(std::move(charsmap).value(), proto.spec);
  if (proto.model_type == 1) {
    auto model = hf::UnigramModel::Build(proto.pieces, unk, proto.byte_fallback,
                                         hf::UnigramFlavor::kSentencePiece);
    if (!model.ok()) return model.status().WithContext(src);
    t->model_ = std::move(model).value();
    t->kind_ = TokenizerKind::kUnigram;
  } else if (proto.model_type == 2) {
    // sentencepiece's BPE: a pair merges if the concatenation is a normal (or unused) piece,
    // the highest-scoring merged piece first, the leftmost among equals.
    std::vector<std::pair<std::string, uint32_t>> vocab;
    std::unordered_map<std::string, uint32_t> mergeable;
    for (uint32_t id = 0; id < proto.pieces.size(); ++id) {
      vocab.emplace_back(proto.pieces[id].piece, id);
      const PieceType type = proto.pieces[id].type;
      if (type == PieceType::kNormal || type == PieceType::kUnused) {
        mergeable.emplace(proto.pieces[id].piece, id);
      }
    }
    std::vector<uint32_t> order(proto.pieces.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return static_cast<float>(proto.pieces[a].score) > static_cast<float>(proto.pieces[b].score);
    });
    std::vector<std::pair<std::string, std::string>> merges;
    std::vector<uint32_t> priorities;
    uint32_t rank = 0;
    for (uint32_t id : order) {
      const hf::UnigramPiece& p = proto.pieces[id];
      if (p.type != PieceType::kNormal && p.type != PieceType::kUnused) continue;
      bool any = false;
      for (size_t k = 1; k < p.piece.size(); ++k) {
        if ((static_cast<unsigned char>(p.piece[k]) & 0xC0) == 0x80) continue;
        const std::string left = p.piece.substr(0, k);
        const std::string right = p.piece.substr(k);
        if (mergeable.count(left) != 0 && mergeable.count(right) != 0) {
          merges.emplace_back(left, right);
          priorities.push_back(rank);
          any = true;
        }
      }
      if (any) ++rank;
    }
    hf::HfBpeOptions o;
    o.unk_token = proto.pieces[*unk].piece;
    o.fuse_unk = true;
    o.byte_fallback = proto.byte_fallback;
    auto model = hf::HfBpeModel::Build(vocab, merges, o, priorities);
    if (!model.ok()) return model.status().WithContext(src);
    t->model_ = std::move(model).value();
    t->kind_ = TokenizerKind::kBytePairEncoding;
  } else {
    return Status::InvalidArgument(src + ": trainer_spec.model_type " +
                                   std::to_string(proto.model_type) +
                                   " is not supported; use a Unigram (1) or BPE (2) model");
  }
  return std::unique_ptr<Tokenizer>(std::move(t));
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> LoadSentencePieceModel(const TokenizerOptions& options,
                                                            std::string_view data,
                                                            std::string_view source) {
  return Load(options, data, source);
}

}  // namespace tokenmill
