#include "tokenmill/formats/tf_example.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "tokenmill/base/endian.h"

namespace tokenmill {
namespace {

// Protobuf wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLengthDelimited = 2;
constexpr uint32_t kFixed32 = 5;

constexpr char Tag(uint32_t field, uint32_t wire_type) {
  return static_cast<char>((field << 3) | wire_type);
}

// Without a loop or a branch: token ids make most of an example's bytes.
size_t VarintSize(uint64_t v) { return static_cast<size_t>(std::bit_width(v | 1) + 6) / 7; }

// Writes the varint of `v` at `p` (room for 10 bytes); returns the end.
char* EncodeVarint(char* p, uint64_t v) {
  if (v < 0x80) {
    *p = static_cast<char>(v);
    return p + 1;
  }
  if (v < 0x4000) {  // most token ids
    p[0] = static_cast<char>(v | 0x80);
    p[1] = static_cast<char>(v >> 7);
    return p + 2;
  }
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}

// The varint of a 32-bit `v` at `p` with one unaligned 8-byte store, without a branch (the 2 and 3
// byte ids of a vocabulary of 30,000 alternate at random, which a branch mispredicts); needs room
// for 8 bytes at `p`. Returns the end.
char* EncodeVarint32Wide(char* p, uint32_t v) {
  if constexpr (std::endian::native != std::endian::little) return EncodeVarint(p, v);
  // By the value's bit width: its varint's size, and the continuation bits of its bytes.
  static constexpr auto kBits = [] {
    std::array<std::pair<uint8_t, uint64_t>, 33> t{};
    for (int bits = 0; bits <= 32; ++bits) {
      const int n = bits == 0 ? 1 : (bits + 6) / 7;
      t[bits] = {static_cast<uint8_t>(n), 0x8080808080ULL & ((uint64_t{1} << (8 * (n - 1))) - 1)};
    }
    return t;
  }();
  const uint64_t x = v;
  const auto [n, more] = kBits[std::bit_width(v)];
  const uint64_t groups = (x & 0x7f) | ((x << 1) & 0x7f00) | ((x << 2) & 0x7f0000) |
                          ((x << 3) & 0x7f000000) | ((x << 4) & 0x7f00000000);
  const uint64_t word = groups | more;
  std::memcpy(p, &word, sizeof(word));
  return p + n;
}

// The varints of the ids below 2^16 (every id of the BERT vocabularies and of GPT-2's), each
// its bytes in the low three bytes of a word and its size in the high byte: an id is one load
// and one 4-byte store.
constexpr uint32_t kVarintTableIds = 1u << 16;
const uint32_t* VarintTable() {
  static const std::unique_ptr<uint32_t[]> table = [] {
    auto t = std::make_unique<uint32_t[]>(kVarintTableIds);
    for (uint32_t v = 0; v < kVarintTableIds; ++v) {
      char bytes[10];
      const auto n = static_cast<uint32_t>(EncodeVarint(bytes, v) - bytes);
      uint32_t word = 0;
      for (uint32_t i = 0; i < n; ++i)
        word |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
      t[v] = word | (n << 24);
    }
    return t;
  }();
  return table.get();
}

// The varints of `ids` at `p` (room for 5 bytes an id and 8 past the last); returns the end.
char* EncodeIds(char* p, const uint32_t* ids, size_t n) {
  if constexpr (std::endian::native != std::endian::little) {
    for (size_t i = 0; i < n; ++i) p = EncodeVarint(p, ids[i]);
    return p;
  }
  const uint32_t* table = VarintTable();
  for (size_t i = 0; i < n; ++i) {
    const uint32_t v = ids[i];
    if (v < kVarintTableIds) {
      const uint32_t word = table[v];
      std::memcpy(p, &word, sizeof(word));
      p += word >> 24;
    } else {
      p = EncodeVarint32Wide(p, v);
    }
  }
  return p;
}

void PutVarint(std::string* out, uint64_t v) {
  char buf[10];
  out->append(buf, static_cast<size_t>(EncodeVarint(buf, v) - buf));
}

// The nested sizes of one map entry holding an Int64List or a FloatList.
struct FeatureSizes {
  size_t packed = 0;   // the packed values
  size_t list = 0;     // Int64List / FloatList (field 1 omitted when empty, as proto3 does)
  size_t feature = 0;  // Feature { int64_list = 3 } or { float_list = 2 }
  size_t entry = 0;    // map entry { key = 1, value = 2 }
};

FeatureSizes SizesFromPacked(std::string_view key, size_t packed, bool empty) {
  FeatureSizes s;
  s.packed = packed;
  s.list = empty ? 0 : 1 + VarintSize(s.packed) + s.packed;
  s.feature = 1 + VarintSize(s.list) + s.list;
  s.entry = 1 + VarintSize(key.size()) + key.size() + 1 + VarintSize(s.feature) + s.feature;
  return s;
}

template <typename T>
FeatureSizes SizesOf(std::string_view key, const std::vector<T>& values) {
  size_t packed = 0;
  if constexpr (std::is_same_v<T, float>) {
    packed = 4 * values.size();
  } else if constexpr (std::is_same_v<T, uint8_t>) {
    // Masks and segment ids: values below 128 are one byte each (checked 8 at a time).
    uint64_t high = 0;
    size_t i = 0;
    for (uint64_t word; i + 8 <= values.size(); i += 8) {
      std::memcpy(&word, values.data() + i, 8);
      high |= word;
    }
    for (; i < values.size(); ++i) high |= values[i];
    if ((high & 0x8080808080808080ULL) == 0) {
      packed = values.size();
    } else {
      for (uint8_t v : values) packed += VarintSize(v);
    }
  } else {
    static_assert(std::is_same_v<T, uint8_t>, "id lists are sized as FeatureList encodes them");
  }
  return SizesFromPacked(key, packed, values.empty());
}

template <typename T>
void PutFeature(std::string_view key, const std::vector<T>& values, const FeatureSizes& s,
                const char* encoded, std::string* out) {
  constexpr bool kFloat = std::is_same_v<T, float>;
  // The entry's tags and lengths into a buffer, appended at once around the key.
  char header[3 * (1 + 10)];
  char* h = header;
  *h++ = Tag(1, kLengthDelimited);  // Features.feature: a map entry
  h = EncodeVarint(h, s.entry);
  *h++ = Tag(1, kLengthDelimited);  // entry.key
  h = EncodeVarint(h, key.size());
  out->append(header, static_cast<size_t>(h - header));
  out->append(key);
  h = header;
  *h++ = Tag(2, kLengthDelimited);  // entry.value: Feature
  h = EncodeVarint(h, s.feature);
  *h++ = Tag(kFloat ? 2 : 3, kLengthDelimited);  // Feature.float_list / int64_list
  h = EncodeVarint(h, s.list);
  if (!values.empty()) {
    *h++ = Tag(1, kLengthDelimited);  // the list's value, packed
    h = EncodeVarint(h, s.packed);
  }
  out->append(header, static_cast<size_t>(h - header));
  if (values.empty()) return;
  // s.packed is the exact size of the values' encoding: encode them in place.
  const size_t at = out->size();
  out->resize(at + s.packed);
  char* p = out->data() + at;
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (s.packed == values.size()) {  // every value below 128: the bytes are the values
      std::memcpy(p, values.data(), values.size());
      return;
    }
  }
  if (encoded != nullptr) {  // encoded already (ids): s.packed bytes at `encoded`
    std::memcpy(p, encoded, s.packed);
    return;
  }
  if constexpr (kFloat && std::endian::native == std::endian::little) {
    std::memcpy(p, values.data(), 4 * values.size());  // fixed32, little-endian
    return;
  }
  for (T v : values) {
    if constexpr (kFloat) {
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof(bits));
      for (int i = 0; i < 4; ++i) *p++ = static_cast<char>(bits >> (8 * i));
    } else {
      p = EncodeVarint(p, static_cast<uint64_t>(v));
    }
  }
}

// The features of one Example to encode, in key order (at most 7: no allocation). Id lists are
// encoded once, into `scratch` (room for 5 bytes an id, and 8 for the store of the last), which
// gives their size too; Write() copies them.
class FeatureList {
 public:
  explicit FeatureList(char* scratch) : scratch_(scratch) {}

  template <typename T>
  void Add(std::string_view key, const std::vector<T>& values) {
    Entry& e = entries_[count_++];
    e.key = key;
    if constexpr (std::is_same_v<T, uint32_t>) {
      e.encoded = scratch_;
      // The padding of a list (its trailing zeros) is one zero byte an id.
      size_t end = values.size();
      while (end > 0 && values[end - 1] == 0) --end;
      scratch_ = EncodeIds(scratch_, values.data(), end);
      std::memset(scratch_, 0, values.size() - end);
      scratch_ += values.size() - end;
      e.sizes = SizesFromPacked(key, static_cast<size_t>(scratch_ - e.encoded), values.empty());
    } else {
      e.sizes = SizesOf(key, values);
    }
    if constexpr (std::is_same_v<T, float>) {
      e.floats = &values;
    } else if constexpr (std::is_same_v<T, uint8_t>) {
      e.bytes = &values;
    } else {
      e.ids = &values;
    }
    bytes_ += 1 + VarintSize(e.sizes.entry) + e.sizes.entry;
  }
  size_t bytes() const { return bytes_; }
  void Write(std::string* out) const {
    for (size_t i = 0; i < count_; ++i) {
      const Entry& e = entries_[i];
      if (e.floats != nullptr) {
        PutFeature(e.key, *e.floats, e.sizes, nullptr, out);
      } else if (e.bytes != nullptr) {
        PutFeature(e.key, *e.bytes, e.sizes, nullptr, out);
      } else {
        PutFeature(e.key, *e.ids, e.sizes, e.encoded, out);
      }
    }
  }

 private:
  struct Entry {
    std::string_view key;
    FeatureSizes sizes;
    const std::vector<uint32_t>* ids = nullptr;
    const std::vector<uint8_t>* bytes = nullptr;
    const std::vector<float>* floats = nullptr;
    const char* encoded = nullptr;  // ids: their varints in the scratch buffer
  };
  char* scratch_;
  std::array<Entry, 7> entries_;
  size_t count_ = 0;
  size_t bytes_ = 0;
};

// A bounds-checked cursor over protobuf wire format. Errors carry the offset from `base`.
class WireReader {
 public:
  WireReader() = default;
  WireReader(std::string_view data, size_t base) : data_(data), base_(base) {}

  bool done() const { return pos_ == data_.size(); }
  size_t offset() const { return base_ + pos_; }

  Status Varint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ == data_.size()) return Error("truncated varint");
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      result |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        *v = result;
        return Status::Ok();
      }
    }
    return Error("varint longer than 10 bytes");
  }

  // Reads a field key; field numbers start at 1.
  Status Key(uint32_t* field, uint32_t* wire_type) {
    uint64_t key = 0;
    TM_RETURN_IF_ERROR(Varint(&key));
    if ((key >> 3) == 0 || (key >> 3) > std::numeric_limits<uint32_t>::max()) {
      return Error("invalid field number");
    }
    *field = static_cast<uint32_t>(key >> 3);
    *wire_type = static_cast<uint32_t>(key & 7);
    return Status::Ok();
  }

  // Reads a length-delimited field: its bytes (valid as long as the message's).
  Status Bytes(std::string_view* out) {
    WireReader sub;
    TM_RETURN_IF_ERROR(Message(&sub));
    *out = sub.data_;
    return Status::Ok();
  }

  // Reads a length-delimited field as a nested message.
  Status Message(WireReader* sub) {
    uint64_t len = 0;
    TM_RETURN_IF_ERROR(Varint(&len));
    if (len > data_.size() - pos_) return Error("length-delimited field runs past its message");
    *sub = WireReader(data_.substr(pos_, len), base_ + pos_);
    pos_ += len;
    return Status::Ok();
  }

  Status Fixed(size_t n, std::string_view* out) {
    if (n > data_.size() - pos_) return Error("truncated fixed-width field");
    *out = data_.substr(pos_, n);
    pos_ += n;
    return Status::Ok();
  }

  Status Skip(uint32_t wire_type) {
    uint64_t v = 0;
    std::string_view s;
    switch (wire_type) {
      case kVarint:
        return Varint(&v);
      case kFixed64:
        return Fixed(8, &s);
      case kLengthDelimited:
        return Bytes(&s);
      case kFixed32:
        return Fixed(4, &s);
      default:
        return Error("unsupported wire type " + std::to_string(wire_type));
    }
  }

  Status Error(const std::string& what) const {
    return Status::DataLoss("invalid tf.train.Example: " + what + " at byte " +
                            std::to_string(offset()) + " of the record");
  }

 private:
  std::string_view data_;
  size_t base_ = 0;
  size_t pos_ = 0;
};

// Calls handle(field, wire_type, reader) for each field of the message in `r`. `handle` returns
// true if it read the field's value, false to have the field skipped.
template <typename Handler>
Status ForEachField(WireReader r, Handler handle) {
  while (!r.done()) {
    uint32_t field = 0, wire = 0;
    TM_RETURN_IF_ERROR(r.Key(&field, &wire));
    TM_ASSIGN_OR_RETURN(bool handled, handle(field, wire, r));
    if (!handled) TM_RETURN_IF_ERROR(r.Skip(wire));
  }
  return Status::Ok();
}

Status ParseInt64List(WireReader list, std::vector<int64_t>* out) {
  return ForEachField(list, [out](uint32_t field, uint32_t wire, WireReader& r) -> StatusOr<bool> {
    uint64_t v = 0;
    if (field == 1 && wire == kVarint) {
      TM_RETURN_IF_ERROR(r.Varint(&v));
      out->push_back(static_cast<int64_t>(v));
      return true;
    }
    if (field != 1 || wire != kLengthDelimited) return false;
    WireReader packed;
    TM_RETURN_IF_ERROR(r.Message(&packed));
    while (!packed.done()) {
      TM_RETURN_IF_ERROR(packed.Varint(&v));
      out->push_back(static_cast<int64_t>(v));
    }
    return true;
  });
}

Status ParseFloatList(WireReader list, std::vector<float>* out) {
  auto decode = [](std::string_view four) {
    uint32_t bits = GetFixedLE<uint32_t>(four.data());
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  };
  return ForEachField(list, [&](uint32_t field, uint32_t wire, WireReader& r) -> StatusOr<bool> {
    std::string_view bytes;
    if (field == 1 && wire == kFixed32) {
      TM_RETURN_IF_ERROR(r.Fixed(4, &bytes));
      out->push_back(decode(bytes));
      return true;
    }
    if (field != 1 || wire != kLengthDelimited) return false;
    TM_RETURN_IF_ERROR(r.Bytes(&bytes));
    if (bytes.size() % 4 != 0) return r.Error("packed float list not a multiple of 4 bytes");
    for (size_t i = 0; i < bytes.size(); i += 4) out->push_back(decode(bytes.substr(i, 4)));
    return true;
  });
}

Status ParseBytesList(WireReader list, std::vector<std::string>* out) {
  return ForEachField(list, [out](uint32_t field, uint32_t wire, WireReader& r) -> StatusOr<bool> {
    if (field != 1 || wire != kLengthDelimited) return false;
    std::string_view value;
    TM_RETURN_IF_ERROR(r.Bytes(&value));
    out->emplace_back(value);
    return true;
  });
}

// Merges a serialized Feature into *feature (a oneof: a new kind replaces the old one).
Status ParseFeature(WireReader message, TfFeature* feature) {
  return ForEachField(
      message, [feature](uint32_t field, uint32_t wire, WireReader& r) -> StatusOr<bool> {
        if (field < 1 || field > 3 || wire != kLengthDelimited) return false;
        static constexpr TfFeature::Kind kKinds[] = {
            TfFeature::Kind::kBytesList, TfFeature::Kind::kFloatList, TfFeature::Kind::kInt64List};
        const TfFeature::Kind kind = kKinds[field - 1];
        if (feature->kind != kind) {
          *feature = TfFeature();
          feature->kind = kind;
        }
        WireReader list;
        TM_RETURN_IF_ERROR(r.Message(&list));
        switch (kind) {
          case TfFeature::Kind::kBytesList:
            TM_RETURN_IF_ERROR(ParseBytesList(list, &feature->bytes_list));
            break;
          case TfFeature::Kind::kFloatList:
            TM_RETURN_IF_ERROR(ParseFloatList(list, &feature->float_list));
            break;
          default:
            TM_RETURN_IF_ERROR(ParseInt64List(list, &feature->int64_list));
            break;
        }
        return true;
      });
}

// Features: map entries { key = 1, value = 2 }; a repeated key: the last entry wins.
Status ParseFeatures(WireReader message, TfFeatures* features) {
  return ForEachField(
      message, [features](uint32_t field, uint32_t wire, WireReader& r) -> StatusOr<bool> {
        if (field != 1 || wire != kLengthDelimited) return false;
        WireReader entry;
        TM_RETURN_IF_ERROR(r.Message(&entry));
        std::string key;
        TfFeature value;
        TM_RETURN_IF_ERROR(
            ForEachField(entry, [&](uint32_t f, uint32_t w, WireReader& e) -> StatusOr<bool> {
              if ((f != 1 && f != 2) || w != kLengthDelimited) return false;
              if (f == 2) {
                WireReader feature;
                TM_RETURN_IF_ERROR(e.Message(&feature));
                TM_RETURN_IF_ERROR(ParseFeature(feature, &value));
                return true;
              }
              std::string_view bytes;
              TM_RETURN_IF_ERROR(e.Bytes(&bytes));
              key.assign(bytes);
              return true;
            }));
        (*features)[key] = std::move(value);
        return true;
      });
}

template <typename T>
Status ToVector(const TfFeatures& features, std::string_view key, bool required, size_t length,
                std::vector<T>* out) {
  auto it = features.find(key);
  if (it == features.end()) {
    if (!required) return Status::Ok();
    return Status::DataLoss("tf.train.Example has no '" + std::string(key) + "' feature");
  }
  const TfFeature& f = it->second;
  if (f.kind != TfFeature::Kind::kInt64List) {
    return Status::DataLoss("tf.train.Example feature '" + std::string(key) +
                            "' is not an int64_list");
  }
  if (!required && f.int64_list.size() != length) {
    return Status::DataLoss("tf.train.Example feature '" + std::string(key) + "' has " +
                            std::to_string(f.int64_list.size()) + " values where " +
                            std::to_string(length) + " were expected");
  }
  out->reserve(f.int64_list.size());
  for (size_t i = 0; i < f.int64_list.size(); ++i) {
    int64_t v = f.int64_list[i];
    if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<T>::max()) {
      return Status::DataLoss("tf.train.Example feature '" + std::string(key) + "' value " +
                              std::to_string(v) + " at position " + std::to_string(i) +
                              " is out of range");
    }
    out->push_back(static_cast<T>(v));
  }
  return Status::Ok();
}

}  // namespace

void EncodeTfExample(const Example& example, std::string* out) {
  // Map entries sorted by key: input_ids < input_mask < masked_lm_ids < masked_lm_positions <
  // masked_lm_weights < next_sentence_labels < segment_ids.
  // Room for the id lists' varints (at most 5 bytes each, and the 8-byte stores of the last),
  // kept per thread.
  thread_local std::unique_ptr<char[]> scratch;
  thread_local size_t scratch_size = 0;
  const size_t ids =
      example.tokens.size() + example.masked_lm_ids.size() + example.masked_lm_positions.size() + 1;
  if (scratch_size < 5 * ids + 8) {
    scratch_size = std::max(5 * ids + 8, 2 * scratch_size);
    scratch.reset(new char[scratch_size]);
  }
  FeatureList features(scratch.get());
  features.Add(kInputIdsKey, example.tokens);
  if (!example.input_mask.empty()) features.Add(kInputMaskKey, example.input_mask);
  thread_local std::vector<uint32_t> next_sentence(1);
  if (example.bert) {
    next_sentence[0] = example.next_sentence_label;
    features.Add(kMaskedLmIdsKey, example.masked_lm_ids);
    features.Add(kMaskedLmPositionsKey, example.masked_lm_positions);
    features.Add(kMaskedLmWeightsKey, example.masked_lm_weights);
    features.Add(kNextSentenceLabelsKey, next_sentence);
  }
  if (!example.segment_ids.empty()) features.Add(kSegmentIdsKey, example.segment_ids);
  out->reserve(out->size() + 1 + VarintSize(features.bytes()) + features.bytes());
  out->push_back(Tag(1, kLengthDelimited));  // Example.features
  PutVarint(out, features.bytes());
  features.Write(out);
}

StatusOr<TfFeatures> ParseTfExample(std::string_view data) {
  TfFeatures features;
  TM_RETURN_IF_ERROR(
      ForEachField(WireReader(data, 0),
                   [&features](uint32_t field, uint32_t wire, WireReader& r) -> StatusOr<bool> {
                     if (field != 1 || wire != kLengthDelimited) return false;
                     WireReader message;
                     TM_RETURN_IF_ERROR(r.Message(&message));
                     TM_RETURN_IF_ERROR(ParseFeatures(message, &features));  // repeated: merged
                     return true;
                   }));
  return features;
}

Status DecodeTfExample(std::string_view data, Example* example) {
  TM_ASSIGN_OR_RETURN(TfFeatures features, ParseTfExample(data));
  Example result;
  TM_RETURN_IF_ERROR(ToVector(features, kInputIdsKey, true, 0, &result.tokens));
  TM_RETURN_IF_ERROR(
      ToVector(features, kInputMaskKey, false, result.tokens.size(), &result.input_mask));
  TM_RETURN_IF_ERROR(
      ToVector(features, kSegmentIdsKey, false, result.tokens.size(), &result.segment_ids));
  if (features.count(kMaskedLmPositionsKey) != 0) {
    result.bert = true;
    TM_RETURN_IF_ERROR(
        ToVector(features, kMaskedLmPositionsKey, true, 0, &result.masked_lm_positions));
    const size_t predictions = result.masked_lm_positions.size();
    TM_RETURN_IF_ERROR(
        ToVector(features, kMaskedLmIdsKey, false, predictions, &result.masked_lm_ids));
    if (result.masked_lm_ids.size() != predictions) {
      return Status::DataLoss("tf.train.Example has masked_lm_positions but no masked_lm_ids");
    }
    auto weights = features.find(kMaskedLmWeightsKey);
    if (weights == features.end() || weights->second.kind != TfFeature::Kind::kFloatList ||
        weights->second.float_list.size() != predictions) {
      return Status::DataLoss(
          "tf.train.Example feature 'masked_lm_weights' is missing, not a "
          "float_list or not as long as masked_lm_positions");
    }
    result.masked_lm_weights = weights->second.float_list;
    std::vector<uint32_t> label;
    TM_RETURN_IF_ERROR(ToVector(features, kNextSentenceLabelsKey, false, 1, &label));
    if (label.size() != 1) {
      return Status::DataLoss(
          "tf.train.Example has masked_lm_positions but no "
          "next_sentence_labels");
    }
    result.next_sentence_label = label[0];
  }
  if (result.input_mask.empty()) {
    result.num_real_tokens = static_cast<uint32_t>(result.tokens.size());
  } else {
    for (uint8_t m : result.input_mask) result.num_real_tokens += m != 0 ? 1 : 0;
  }
  *example = std::move(result);
  return Status::Ok();
}

}  // namespace tokenmill
