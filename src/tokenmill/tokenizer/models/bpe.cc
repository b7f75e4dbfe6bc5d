#include "tokenmill/tokenizer/models/bpe.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tokenmill::bpe {
namespace {

// The n <= 8 bytes at p as a little-endian number, zero-padded, without a call to memcpy for a
// variable length (overlapping fixed-size loads give the same value).
[[gnu::always_inline]] inline uint64_t Load64(const char* p, size_t n) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  if (n >= 4) {
    if (n == 8) {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    uint32_t lo;
    uint32_t hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | (static_cast<uint64_t>(hi) << (8 * (n - 4)));
  }
  if (n == 0) return 0;
  return b[0] | (static_cast<uint64_t>(b[n / 2]) << (8 * (n / 2))) |
         (static_cast<uint64_t>(b[n - 1]) << (8 * (n - 1)));
}

// Whether a[0..n) == b[0..n), n <= 24, without a call (overlapping 8-byte loads, none past n).
inline bool SameShortBytes(const char* a, const char* b, size_t n) {
  if (n <= 8) return Load64(a, n) == Load64(b, n);
  const uint64_t head = Load64(a, 8) ^ Load64(b, 8);
  const uint64_t tail = Load64(a + n - 8, 8) ^ Load64(b + n - 8, 8);
  if (n <= 16) return (head | tail) == 0;
  return (head | tail | (Load64(a + 8, 8) ^ Load64(b + 8, 8))) == 0;
}

inline uint64_t Mix(uint64_t h) {
  h ^= h >> 32;
  h *= 0xD6E8FEB86659FD93ULL;
  h ^= h >> 32;
  return h;
}

inline uint64_t HashPairKey(uint64_t key) { return Mix(key * 0x9E3779B97F4A7C15ULL); }

inline bool IsContinuation(unsigned b) { return (b & 0xC0) == 0x80; }
inline bool IsLead3(unsigned b) { return (b & 0xF0) == 0xE0; }  // of a character of 3 bytes
// Whether any byte of `bytes` is E0..FF, the lead byte of a character of 3 or 4 bytes (a byte's
// top three bits all set, each moved into bit 7 of the same byte by the shifts).
inline bool HasWideLead(uint64_t bytes) {
  return (bytes & (bytes << 1) & (bytes << 2) & 0x8080808080808080ULL) != 0;
}

// The bits of a table of 2 * 65,536 that stand for the 3-byte sequences across a cut between two
// characters of 3 bytes, x1 x2 | y0 y1: x1 x2 y0 and, after the first 65,536, x2 y0 y1.
inline uint32_t CutSequenceBefore(unsigned x1, unsigned x2, unsigned y0) {
  return ((x1 & 63u) << 10) | ((x2 & 63u) << 4) | (y0 & 15u);
}
inline uint32_t CutSequenceAfter(unsigned x2, unsigned y0, unsigned y1) {
  return 65536 + (((x2 & 63u) << 10) | ((y1 & 63u) << 4) | (y0 & 15u));
}

inline bool TestBit(const std::vector<uint64_t>& bits, uint32_t at) {
  return ((bits[at >> 6] >> (at & 63)) & 1) != 0;
}
inline void SetBit(std::vector<uint64_t>& bits, uint32_t at) {
  bits[at >> 6] |= uint64_t{1} << (at & 63);
}

// The 16 payload bits of the character of 3 bytes at c (a lead byte 0xE0..0xEF, two
// continuation bytes): char3_'s index.
inline uint32_t Char3Index(const unsigned char* c) {
  return ((c[0] & 15u) << 12) | ((c[1] & 63u) << 6) | (c[2] & 63u);
}

inline size_t Hash3(uint32_t key) { return (key * 0x9E3779B97F4A7C15ULL) >> 40; }

// A per-thread cache of merged pieces: most pre-tokens of natural text repeat (" the", "ing"),
// and a piece that is not one token costs a full merge every time it is met. Direct-mapped, one
// 64-byte entry a cache line, 4096 entries (256 KiB a thread, allocated on first use). An entry
// belongs to one model (its serial), so threads may use several models at once. The merge is
// deterministic, so a hit returns exactly what merging would.
struct PieceCache {
  static constexpr size_t kMaxBytes = 22;
  static constexpr size_t kMaxIds = 7;
  static constexpr size_t kEntries = 4096;
  struct Entry {
    uint64_t hash = 0;
    uint32_t serial = 0;  // 0: empty (model serials start at 1)
    uint8_t length = 0;
    uint8_t id_count = 0;
    char bytes[kMaxBytes];
    uint32_t ids[kMaxIds];

    bool Holds(uint32_t model, uint64_t key, uint8_t tag, std::string_view piece) const {
      return serial == model && hash == key && length == tag &&
             SameShortBytes(bytes, piece.data(), piece.size());
    }
    void AppendTo(std::vector<uint32_t>* out) const {
      if (id_count == 1) {
        out->push_back(ids[0]);
      } else {
        out->insert(out->end(), ids, ids + id_count);
      }
    }
    // Keeps piece -> out[from..) if it fits.
    void Store(uint32_t model, uint64_t key, uint8_t tag, std::string_view piece,
               const std::vector<uint32_t>& out, size_t from) {
      const size_t count = out.size() - from;
      if (count > kMaxIds) return;
      serial = model;
      hash = key;
      length = tag;
      id_count = static_cast<uint8_t>(count);
      std::memcpy(bytes, piece.data(), piece.size());
      std::copy(out.begin() + static_cast<std::ptrdiff_t>(from), out.end(), ids);
    }
  };
  static_assert(sizeof(Entry) == 64);
  std::unique_ptr<Entry[]> entries{new Entry[kEntries]};

  static PieceCache& ForThread() {
    thread_local PieceCache cache;
    return cache;
  }
  Entry& Slot(uint64_t hash) { return entries[(hash >> 40) & (kEntries - 1)]; }
};

// A per-thread memo of BpeModel::IsValidPair for the characterwise encoder: the pairs across
// the characters of CJK text repeat (common bigrams). Direct-mapped, 8192 entries (128 KiB).
struct PairValidityCache {
  struct Entry {
    uint64_t key = UINT64_MAX;  // left id << 21 | right id
    uint32_t serial = 0;        // 0: empty
    uint32_t valid = 0;
  };
  static constexpr size_t kEntries = 8192;  // HashPairKey(...) >> 51
  std::unique_ptr<Entry[]> entries{new Entry[kEntries]};
  static PairValidityCache& ForThread() {
    thread_local PairValidityCache cache;
    return cache;
  }
};

std::atomic<uint32_t> next_model_serial{1};

std::string Hex(uint32_t byte) {
  static const char kDigits[] = "0123456789abcdef";
  return std::string("0x") + kDigits[byte >> 4] + kDigits[byte & 15];
}

}  // namespace

BpeModel::BpeModel(MergeRule rule)
    : rule_(rule), serial_(next_model_serial.fetch_add(1, std::memory_order_relaxed)) {
  std::fill(std::begin(byte_ids_), std::end(byte_ids_), kNone);
  token_slots_.resize(1024);
}

void BpeModel::set_ignore_merges(bool v) {
  ignore_merges_ = v;
  serial_ = next_model_serial.fetch_add(1, std::memory_order_relaxed);
}

void BpeModel::set_unknown_id(std::optional<uint32_t> id) {
  unknown_id_ = id;
  serial_ = next_model_serial.fetch_add(1, std::memory_order_relaxed);
}

[[gnu::always_inline]] inline uint64_t BpeModel::HashShort(uint64_t word, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xFF51AFD7ED558CCDULL);
  if (n == 8) {
    h = (h ^ word) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
  } else if (n > 0) {
    h = (h ^ word) * 0x94D049BB133111EBULL;
  }
  return Mix(h);
}

[[gnu::always_inline]] inline uint64_t BpeModel::HashBytes(std::string_view bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  if (n <= 8) return HashShort(Load64(p, n), n);
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xFF51AFD7ED558CCDULL);
  while (n >= 8) {
    h = (h ^ Load64(p, 8)) * 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  if (n > 0) h = (h ^ Load64(p, n)) * 0x94D049BB133111EBULL;
  return Mix(h);
}

inline uint64_t BpeModel::SlotData(std::string_view bytes, uint64_t hash, uint32_t offset) {
  if (bytes.size() <= 8) return Load64(bytes.data(), bytes.size());
  return (hash & 0xFFFFFFFF00000000ULL) | offset;
}

void BpeModel::InsertToken(uint32_t id, uint64_t hash) {
  const Span& span = spans_[id];
  const std::string_view bytes(arena_.data() + span.offset, span.length);
  const size_t mask = token_slots_.size() - 1;
  size_t i = hash & mask;
  while (token_slots_[i].id != kNone) i = (i + 1) & mask;
  token_slots_[i] = {SlotData(bytes, hash, span.offset), id, span.length};
}

void BpeModel::InsertToken(uint32_t id) { InsertToken(id, HashBytes(Bytes(id))); }

void BpeModel::Prefetch(std::string_view bytes) const {
  if (bytes.empty()) return;
  __builtin_prefetch(token_slots_.data() + (HashBytes(bytes) & (token_slots_.size() - 1)));
}

uint32_t BpeModel::Find(std::string_view bytes) const {
  if (bytes.empty()) return kNone;
  return FindHashed(bytes, HashBytes(bytes));
}

[[gnu::always_inline]] inline uint32_t BpeModel::FindShort(uint64_t word, uint32_t length,
                                                           uint64_t h) const {
  const size_t mask = token_slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const TokenSlot& slot = token_slots_[i];
    if (slot.id == kNone) return kNone;
    if (slot.length == length && slot.data == word) return slot.id;
  }
}

[[gnu::always_inline]] inline uint32_t BpeModel::FindHashed(std::string_view bytes,
                                                            uint64_t h) const {
  const size_t mask = token_slots_.size() - 1;
  const auto length = static_cast<uint32_t>(bytes.size());
  if (length <= 8) return FindShort(Load64(bytes.data(), length), length, h);
  const uint64_t tag = h & 0xFFFFFFFF00000000ULL;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const TokenSlot& slot = token_slots_[i];
    if (slot.id == kNone) return kNone;
    if (slot.length == length && (slot.data & 0xFFFFFFFF00000000ULL) == tag) {
      const char* stored = arena_.data() + static_cast<uint32_t>(slot.data);
      if (length <= 24 ? SameShortBytes(stored, bytes.data(), length)
                       : std::memcmp(stored, bytes.data(), length) == 0) {
        return slot.id;
      }
    }
  }
}

std::string_view BpeModel::Bytes(uint32_t id) const {
  if (id >= spans_.size()) return {};
  const Span& span = spans_[id];
  return std::string_view(arena_.data() + span.offset, span.length);
}

Status BpeModel::AddToken(std::string_view bytes, uint32_t id) {
  if (bytes.empty()) return Status::InvalidArgument("empty token");
  if (id == kNone) return Status::InvalidArgument("token id too large");
  if (id < spans_.size() && spans_[id].length != 0) {
    return Status::InvalidArgument("id " + std::to_string(id) + " is used twice");
  }
  const uint64_t hash = HashBytes(bytes);
  if (const uint32_t first = FindHashed(bytes, hash); first != kNone) {
    return Status::InvalidArgument("token bytes repeated (first id " + std::to_string(first) + ")");
  }
  const Span span{static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(bytes.size())};
  if (id == spans_.size()) {
    spans_.push_back(span);  // the common case: ids in order
  } else {
    if (id > spans_.size()) spans_.resize(static_cast<size_t>(id) + 1);
    spans_[id] = span;
  }
  arena_.append(bytes);
  ++token_count_;
  if (bytes.size() == 1) byte_ids_[static_cast<unsigned char>(bytes[0])] = id;
  if (2 * token_count_ > token_slots_.size()) {  // keep the load factor at most 1/2
    std::vector<TokenSlot> old(token_slots_.size() * 2);
    old.swap(token_slots_);
    for (const TokenSlot& slot : old) {
      if (slot.id != kNone) InsertToken(slot.id);
    }
  }
  InsertToken(id, hash);
  return Status::Ok();
}

void BpeModel::Reserve(size_t tokens) {
  size_t capacity = token_slots_.size();
  while (capacity < 2 * tokens) capacity *= 2;
  if (capacity != token_slots_.size()) {
    std::vector<TokenSlot> old(capacity);
    old.swap(token_slots_);
    for (const TokenSlot& slot : old) {
      if (slot.id != kNone) InsertToken(slot.id);
    }
  }
  spans_.reserve(tokens);
}

Status BpeModel::AddMerge(uint32_t left, uint32_t right) {
  const std::string_view a = Bytes(left);
  const std::string_view b = Bytes(right);
  if (a.empty() || b.empty()) return Status::InvalidArgument("merge of an unknown token");
  std::string joined(a);
  joined.append(b);
  const uint32_t result = Find(joined);
  if (result == kNone) return Status::InvalidArgument("the merged token is not in the vocabulary");
  merges_.push_back({left, right, result, kNone});  // Finish need not look the result up again
  return Status::Ok();
}

Status BpeModel::AddMergeWithResult(uint32_t left, uint32_t right, uint32_t result,
                                    uint32_t priority) {
  if (Bytes(left).empty() || Bytes(right).empty() || Bytes(result).empty()) {
    return Status::InvalidArgument("merge of an unknown token");
  }
  merges_.push_back({left, right, result, priority});
  return Status::Ok();
}

void BpeModel::InsertPair(uint32_t left, uint32_t right, uint32_t priority, uint32_t result) {
  const uint64_t key = (static_cast<uint64_t>(left) << 43) | (static_cast<uint64_t>(right) << 22);
  const size_t mask = pair_slots_.size() - 1;
  if (rule_ == MergeRule::kMerges) merge_results_[priority] = result;
  const uint64_t hash = HashPairKey(key);
  FilterAdd(pair_filter_, hash);
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    uint64_t& slot = pair_slots_[i];
    if (slot == kEmptyPair) {
      slot = key | priority;
      ++pair_count_;
      return;
    }
    if ((slot & ~kPriorityMask) == key) {  // a later merge line replaces an earlier one
      slot = key | priority;
      return;
    }
  }
}

inline BpeModel::Pair BpeModel::LookupPair(uint32_t left, uint32_t right) const {
  if (left == kNone || right == kNone) return {};
  const uint64_t key = (static_cast<uint64_t>(left) << 43) | (static_cast<uint64_t>(right) << 22);
  const uint64_t hash = HashPairKey(key);
  if (!MayHavePair(hash)) return {};
  const size_t mask = pair_slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint64_t slot = pair_slots_[i];
    if ((slot & ~kPriorityMask) == key) {
      const auto priority = static_cast<uint32_t>(slot & kPriorityMask);
      return {priority, rule_ == MergeRule::kRanks ? priority : merge_results_[priority]};
    }
    if (slot == kEmptyPair) return {};
  }
}

void BpeModel::FillBytePairs() {
  byte_pairs_.assign(256 * 256, Pair{});
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) byte_pairs_[a * 256 + b] = LookupPair(byte_ids_[a], byte_ids_[b]);
  }
}

std::vector<uint32_t> BpeModel::IdsByLength(std::vector<uint32_t>* ends) const {
  // A counting sort: std::sort with the lengths read at random cost 11 M instructions for
  // cl100k_base's 100,256 ids, this about 1 M.
  size_t longest = 0;
  for (const Span& span : spans_) longest = std::max<size_t>(longest, span.length);
  std::vector<uint32_t> starts(longest + 2, 0);
  for (const Span& span : spans_) ++starts[span.length + 1];
  for (size_t length = 1; length <= longest + 1; ++length) starts[length] += starts[length - 1];
  std::vector<uint32_t> by_length(spans_.size());
  for (uint32_t id = 0; id < spans_.size(); ++id) by_length[starts[spans_[id].length]++] = id;
  if (ends != nullptr) *ends = std::move(starts);  // now the end of each length's ids
  return by_length;
}

// tiktoken ranks: a pair merges if its bytes are a token, but only a token's own last merge ever
// does. The parts of a merge are each the merge of their own bytes (no merge crossed their
// edges), so merging the token's bytes alone forms the same two parts and merges them last; any
// other split of a token into two tokens is never the next merge wherever it occurs, and leaving
// it out of the table changes no result. One pair per token instead of every split (cl100k_base:
// 100 K instead of 233 K): a table and filter half the size, fewer cache misses when merging.
// The tokens are taken by length: merging a token's bytes forms only shorter tokens before its
// own last merge, whose pairs are in the table by then, so the merge stops at the two parts of
// that last merge (or at more, for a token that merging never forms: it gets no pair). This also
// gives every token's split and whether it is usable for the backtracking encoder.
void BpeModel::BuildRankPairs() {
  const size_t n_ids = spans_.size();
  splits_.assign(n_ids, Split{});
  usable_.assign(n_ids, 0);
  size_t capacity = 16;
  while (capacity < 2 * token_count_) capacity *= 2;
  pair_slots_.assign(capacity, kEmptyPair);
  pair_filter_ = EmptyFilter(token_count_, 8);
  pair_count_ = 0;
  std::vector<uint32_t> starts;  // starts[length]: the end of that length's ids
  const std::vector<uint32_t> by_length = IdsByLength(&starts);
  const size_t longest = starts.size() - 2;
  std::vector<uint32_t> parts;
  std::vector<uint32_t> priorities;
  size_t at = 0;
  for (size_t length = 0; length <= longest; ++length) {
    if (length == 3) FillBytePairs();  // every 2-byte token's pair is in the table
    for (; at < starts[length]; ++at) {
      const uint32_t id = by_length[at];
      const std::string_view bytes = Bytes(id);
      if (bytes.size() < 2) {
        usable_[id] = bytes.size() == 1 && byte_ids_[static_cast<unsigned char>(bytes[0])] == id;
        continue;
      }
      const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
      uint32_t left = byte_ids_[b[0]];
      uint32_t right = byte_ids_[b[1]];
      if (bytes.size() > 2 && bytes.size() <= kLinearMergeMaxBytes) {
        uint32_t p[kLinearMergeMaxBytes + kLinearSlack];
        if (MergeBytesLinear(bytes, p) != 2) continue;
        left = p[0];
        right = p[1];
      } else if (bytes.size() > 2) {  // a long token: the same merge on vectors
        parts.clear();
        for (const char c : bytes) parts.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        priorities.assign(parts.size(), kNone);
        for (size_t k = 0; k + 1 < parts.size(); ++k) {
          priorities[k] = LookupPair(parts[k], parts[k + 1]).priority;
        }
        while (parts.size() > 1) {
          const size_t best = static_cast<size_t>(
              std::min_element(priorities.begin(), priorities.end() - 1) - priorities.begin());
          if (priorities[best] == kNone) break;
          parts[best] = LookupPair(parts[best], parts[best + 1]).result;
          parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
          priorities.erase(priorities.begin() + static_cast<std::ptrdiff_t>(best) + 1);
          if (best > 0) priorities[best - 1] = LookupPair(parts[best - 1], parts[best]).priority;
          priorities[best] =
              best + 1 < parts.size() ? LookupPair(parts[best], parts[best + 1]).priority : kNone;
        }
        if (parts.size() != 2) continue;
        left = parts[0];
        right = parts[1];
      }
      InsertPair(left, right, id, id);
      splits_[id] = {left, right, id + 1};
      usable_[id] = 1;
    }
  }
  if (longest < 3) FillBytePairs();
}

Status BpeModel::Finish() {
  if (rule_ == MergeRule::kRanks) {
    for (int b = 0; b < 256; ++b) {
      if (byte_ids_[b] == kNone) {
        return Status::InvalidArgument("no token for the single byte " + Hex(b) +
                                       "; a byte-level BPE vocabulary needs all 256 bytes");
      }
    }
  }
  // Pair table: collect the entries, then size the table for a load factor of at most 1/2.
  struct Entry {
    uint32_t left, right, priority, result;
  };
  std::vector<Entry> entries;
  constexpr size_t kMaxIds = (size_t{1} << 21) - 1;
  if (rule_ == MergeRule::kRanks) {
    if (spans_.size() > kMaxIds) {
      return Status::InvalidArgument("more than " + std::to_string(kMaxIds - 1) +
                                     " token ids are not supported");
    }
    BuildRankPairs();
  } else {
    entries.reserve(merges_.size());
    for (size_t i = 0; i < merges_.size(); ++i) {
      const auto [left, right, result, priority] = merges_[i];
      entries.push_back(
          {left, right, priority != kNone ? priority : static_cast<uint32_t>(i), result});
    }
    merges_.clear();
    merges_.shrink_to_fit();
  }
  if (spans_.size() > kMaxIds || entries.size() > kPriorityMask) {
    return Status::InvalidArgument("more than " + std::to_string(kMaxIds - 1) + " token ids or " +
                                   std::to_string(kPriorityMask) + " merges are not supported");
  }
  if (rule_ == MergeRule::kMerges) {
    size_t priorities = entries.size();
    for (const Entry& e : entries)
      priorities = std::max<size_t>(priorities, e.priority + size_t{1});
    if (priorities > kPriorityMask) {
      return Status::InvalidArgument("merge priorities above " + std::to_string(kPriorityMask) +
                                     " are not supported");
    }
    merge_results_.assign(priorities, kNone);
  }
  if (rule_ == MergeRule::kMerges) {
    size_t capacity = 16;
    while (capacity < 2 * entries.size()) capacity *= 2;
    pair_slots_.assign(capacity, kEmptyPair);
    pair_filter_ = EmptyFilter(entries.size(), 8);
    pair_count_ = 0;
    for (const Entry& e : entries) InsertPair(e.left, e.right, e.priority, e.result);
    FillBytePairs();
    splits_.clear();  // computed when the backtracking encoder needs them
    usable_.clear();
  }
  // The exact split needs every merge result to be the concatenation of its parts.
  split_ok_ = true;
  for (const Entry& e : entries) {
    const std::string_view left = Bytes(e.left);
    const std::string_view right = Bytes(e.right);
    const std::string_view result = Bytes(e.result);
    if (result.size() != left.size() + right.size() || !result.starts_with(left) ||
        !result.ends_with(right)) {
      split_ok_ = false;
      break;
    }
  }
  token2_bits_.assign(1024, 0);
  size_t long_tokens = 0;  // of 3 bytes or more: at most as many 3-byte prefixes
  for (uint32_t id = 0; id < spans_.size(); ++id) long_tokens += spans_[id].length >= 3;
  size_t prefix_capacity = 16;
  while (prefix_capacity < 2 * long_tokens) prefix_capacity *= 2;
  prefix3_.assign(prefix_capacity, 0);
  for (uint32_t id = 0; id < spans_.size(); ++id) {
    const auto* b = reinterpret_cast<const unsigned char*>(arena_.data() + spans_[id].offset);
    const uint32_t length = spans_[id].length;
    if (length == 2) {
      const unsigned pair = b[0] | (b[1] << 8);
      SetBit(token2_bits_, pair);
    } else if (length >= 3) {  // keep the longest length of each prefix
      const uint32_t key = b[0] | (b[1] << 8) | (b[2] << 16);
      const uint64_t entry = (static_cast<uint64_t>(key + 1) << 32) | length;
      size_t s = Hash3(key) & (prefix_capacity - 1);
      while (prefix3_[s] != 0 && (prefix3_[s] >> 32) != key + 1)
        s = (s + 1) & (prefix_capacity - 1);
      if (prefix3_[s] == 0 || static_cast<uint32_t>(prefix3_[s]) < length) prefix3_[s] = entry;
    }
  }
  finished_ = true;
  if (rule_ == MergeRule::kMerges && !ignore_merges_ && !ids_only_) {
    // A token may be taken whole only where merging its bytes yields it: found when first asked.
    whole_state_ = std::make_unique<std::atomic<uint8_t>[]>(spans_.size());  // kWholeUnknown
  }
  // The backtracking encoder's tables are built when a piece first needs them (EnsureBacktrack):
  // 200 M instructions for cl100k_base, which a job of short pieces never pays.
  backtrack_once_ = std::make_shared<BacktrackOnce>();
  return Status::Ok();
}

bool BpeModel::BytesAndConcatenations() const {
  if (!split_ok_) return false;
  for (int b = 0; b < 256; ++b) {
    if (byte_ids_[b] == kNone) return false;
  }
  return true;
}

void BpeModel::BuildValidPairs() {
  valid_pairs_ok_ = false;
  // Every piece then has an encoding of usable tokens, and the bytes of a token are its leaves.
  if (!BytesAndConcatenations()) return;
  // The split of every token (see ComputeSplits); a token whose bytes do not merge to itself is
  // never part of an encoding of a longer piece, and is left out (rank 0, not in the trie).
  // kRanks computed them in Finish().
  if (splits_.size() != spans_.size()) ComputeSplits();
  const size_t n_ids = spans_.size();
  // The validity test reads priorities as the order in which merges happen. That holds for the
  // nodes of a token's split tree when each was formed at a higher priority than its parts
  // (true of trained vocabularies, where a merge creates pairs of later priorities only): a
  // node's merge then happens at its priority, as soon as it is the lowest pair left. A token
  // with a node that merges at a lower priority than one of its parts (the merge waits for the
  // part) is irregular, and so is every token whose split tree holds it. IsValidPair answers
  // only for pairs of regular tokens (its walk meets no other node); the backtracking encoder,
  // which must test any pair, needs every token regular. A token's parts are shorter than it
  // (merge results are concatenations here), so in order of length its parts come first.
  const std::vector<uint32_t> by_length = IdsByLength(nullptr);
  irregular_.assign((n_ids + 63) / 64, 0);
  for (const uint32_t id : by_length) {
    const Split& s = splits_[id];
    if (s.rank == 0) continue;  // a byte, or a token its own bytes do not merge to
    const bool rising = splits_[s.left].rank < s.rank && splits_[s.right].rank < s.rank;
    if (!rising || IsIrregular(s.left) || IsIrregular(s.right)) {
      irregular_[id / 64] |= uint64_t{1} << (id % 64);
      ++irregular_tokens_;
    }
  }
  if (irregular_tokens_ == 0) irregular_.clear();  // IsValidPair then skips the look-up
  valid_pairs_ok_ = true;
}

void BpeModel::BuildCharacterTables() {
  // Needs merge results that are their parts' concatenation (a part's bytes then never merge
  // across a cut that no token spans) and a token for every byte (every part has an encoding).
  characterwise_ok_ = false;
  if (!BytesAndConcatenations()) return;
  const size_t n_ids = spans_.size();
  // The merge of every sequence of 3 bytes that a character of 3 bytes can be (a lead byte
  // 0xE0..0xEF, two continuation bytes), its ids packed (see char3_).
  char3_.assign(size_t{1} << 16, 0);
  std::vector<uint32_t> ids;
  for (uint32_t index = 0; index < char3_.size(); ++index) {
    const char bytes[3] = {static_cast<char>(0xE0 | (index >> 12)),
                           static_cast<char>(0x80 | ((index >> 6) & 63)),
                           static_cast<char>(0x80 | (index & 63))};
    ids.clear();
    MergeLinear(std::string_view(bytes, 3), &ids);
    uint64_t packed = 0;
    for (size_t k = ids.size(); k-- > 0;) packed = (packed << 21) | (ids[k] + 1);
    char3_[index] = packed;
  }
  // The 3-byte sequences of every token that can lie across a cut between two characters of 3
  // bytes (see CutIsClear), at each cut within a token (a continuation byte, then a lead byte of
  // 3): continuation, continuation, lead; continuation, lead, continuation. Where the token holds
  // both characters of 3 bytes whole, the pair of characters; else the sequences again, apart.
  cut_trigrams_.assign(2 * 65536 / 64, 0);
  partial_cut_trigrams_.assign(2 * 65536 / 64, 0);
  std::vector<uint32_t> pairs;  // left character << 16 | right character
  for (uint32_t id = 0; id < n_ids; ++id) {
    const std::string_view token = Bytes(id);
    const auto* t = reinterpret_cast<const unsigned char*>(token.data());
    const size_t size = token.size();
    for (size_t i = 0; i + 1 < size; ++i) {  // the cut before t[i + 1]
      if (!IsContinuation(t[i]) || !IsLead3(t[i + 1])) continue;
      const bool whole_left = i >= 2 && IsLead3(t[i - 2]) && IsContinuation(t[i - 1]);
      const bool whole_right = i + 3 < size && IsContinuation(t[i + 2]) && IsContinuation(t[i + 3]);
      const bool whole = whole_left && whole_right;
      auto record = [&](uint32_t bit) {
        SetBit(cut_trigrams_, bit);
        if (!whole) SetBit(partial_cut_trigrams_, bit);
      };
      if (i >= 1 && IsContinuation(t[i - 1])) record(CutSequenceBefore(t[i - 1], t[i], t[i + 1]));
      if (i + 2 < size && IsContinuation(t[i + 2])) {
        record(CutSequenceAfter(t[i], t[i + 1], t[i + 2]));
      }
      if (whole) pairs.push_back((Char3Index(t + i - 2) << 16) | Char3Index(t + i + 1));
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  char_pairs_ = EmptyFilter(pairs.size(), 16);
  for (const uint32_t key : pairs) FilterAdd(char_pairs_, HashPairKey(key));
  // The tokens of kCharacterwiseMinBytes or more with a wide character, in a Bloom filter of
  // about 16 bits a token.
  std::vector<uint32_t> wide;
  for (uint32_t id = 0; id < n_ids; ++id) {
    const std::string_view bytes = Bytes(id);
    if (bytes.size() >= kCharacterwiseMinBytes && HasWideCharacter(bytes)) wide.push_back(id);
  }
  wide_token_filter_ = EmptyFilter(wide.size(), 16);
  for (const uint32_t id : wide) FilterAdd(wide_token_filter_, HashBytes(Bytes(id)));
  characterwise_ok_ = true;
}

void BpeModel::BuildOnce(LazyTables& tables, void (BpeModel::*build)()) const {
  if (tables.built.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> lock(tables.mu);
  if (tables.built.load(std::memory_order_relaxed)) return;
  (const_cast<BpeModel*>(this)->*build)();
  tables.built.store(true, std::memory_order_release);
}

bool BpeModel::EnsureValidPairs() const {
  BuildOnce(backtrack_once_->valid_pairs, &BpeModel::BuildValidPairs);
  return valid_pairs_ok_;
}

bool BpeModel::EnsureCharacterwise(size_t piece_bytes) const {
  BacktrackOnce& once = *backtrack_once_;
  if (!once.characters.built.load(std::memory_order_acquire)) {
    if (once.wide_bytes.fetch_add(piece_bytes, std::memory_order_relaxed) + piece_bytes <
        characterwise_build_bytes_) {
      return false;
    }
    EnsureValidPairs();  // whether cuts the filter cannot clear may be tested, not joined
    BuildOnce(once.characters, &BpeModel::BuildCharacterTables);
  }
  return characterwise_ok_;
}

bool BpeModel::EnsureBacktrack() const {
  BuildOnce(backtrack_once_->backtrack, &BpeModel::BuildBacktrack);
  return backtrack_ok_;
}

bool BpeModel::UseBacktrack(size_t piece_bytes) const {
  BacktrackOnce& once = *backtrack_once_;
  if (once.backtrack.built.load(std::memory_order_acquire)) return backtrack_ok_;
  if (piece_bytes < kBacktrackBuildBytes &&
      once.long_bytes.fetch_add(piece_bytes, std::memory_order_relaxed) + piece_bytes <
          kBacktrackBuildTotalBytes) {
    return false;
  }
  return EnsureBacktrack();
}

inline bool BpeModel::TakeWhole(uint32_t id) const {
  if (id == kNone) return false;
  if (rule_ == MergeRule::kRanks || ignore_merges_) return true;
  const uint8_t state = whole_state_[id].load(std::memory_order_relaxed);
  if (state != kWholeUnknown) [[likely]] {
    return state == kWholeYes;
  }
  return ComputeWhole(id);
}

[[gnu::noinline]] bool BpeModel::ComputeWhole(uint32_t id) const {
  const std::string_view bytes = Bytes(id);
  bool whole;
  if (bytes.size() <= kLinearMergeMaxBytes) {
    uint32_t parts[kLinearMergeMaxBytes + kLinearSlack];
    whole = MergeBytesLinear(bytes, parts) == 1 && parts[0] == id;
  } else {
    std::vector<uint32_t> out;
    MergeHeap(bytes, &out);
    whole = out.size() == 1 && out[0] == id;
  }
  whole_state_[id].store(whole ? kWholeYes : kWholeNo, std::memory_order_relaxed);
  return whole;
}

inline void BpeModel::EmitPart(uint32_t id, std::vector<uint32_t>* ids) const {
  if (id != kNone) {
    ids->push_back(id);
  } else if (unknown_id_.has_value()) {
    ids->push_back(*unknown_id_);
  }
}

[[gnu::always_inline]] inline void BpeModel::EncodeUncached(std::string_view piece, uint64_t hash,
                                                            std::vector<uint32_t>* ids,
                                                            Algorithm algorithm) const {
  const uint32_t whole = FindHashed(piece, hash);
  if (TakeWhole(whole)) {
    ids->push_back(whole);
    return;
  }
  if (algorithm == Algorithm::kBacktrack && EnsureBacktrack()) {
    EncodeBacktrack(piece, ids, backtrack_window_, nullptr);
    return;
  }
  if (algorithm == Algorithm::kAuto || algorithm == Algorithm::kBacktrack) {
    if (piece.size() >= kBacktrackMinBytes && UseBacktrack(piece.size())) {
      EncodeBacktrack(piece, ids, backtrack_window_, nullptr);
      return;
    }
    // Short pieces are cheaper to merge whole than to scan for cuts.
    if (piece.size() > kLinearMergeMaxBytes && split_ok_) {
      EncodeSplit(piece, ids);
    } else {
      MergeChunk(piece, hash, ids);
    }
    return;
  }
  if (piece.size() <= kLinearMergeMaxBytes && algorithm != Algorithm::kHeap) {
    MergeLinear(piece, ids);
  } else {
    MergeHeap(piece, ids);
  }
}

[[gnu::always_inline]] inline void BpeModel::EncodeHashed(std::string_view piece, uint64_t hash,
                                                          std::vector<uint32_t>* ids,
                                                          Algorithm algorithm) const {
  if (algorithm == Algorithm::kAuto && piece.size() >= kCharacterwiseMinBytes &&
      piece.size() <= kCharacterwiseMaxBytes && MayHaveWideCharacter(piece) &&
      EnsureCharacterwise(piece.size())) {
    EncodeWidePiece(piece, hash, ids);
    return;
  }
  EncodeUncached(piece, hash, ids, algorithm);
}

void BpeModel::EncodePiece(std::string_view piece, std::vector<uint32_t>* ids,
                           Algorithm algorithm) const {
  if (piece.empty()) return;
  if (piece.size() >= kMaxPieceBytes) {  // never in practice: positions are 32-bit
    constexpr size_t kChunk = kMaxPieceBytes - 1;
    for (size_t pos = 0; pos < piece.size(); pos += kChunk) {
      EncodePiece(piece.substr(pos, kChunk), ids, algorithm);
    }
    return;
  }
  if (piece.size() == 1) {
    EmitPart(byte_ids_[static_cast<unsigned char>(piece[0])], ids);
    return;
  }
  EncodeHashed(piece, HashBytes(piece), ids, algorithm);
}

void BpeModel::EncodePieces(std::span<const std::string_view> pieces, std::vector<uint32_t>* ids,
                            std::string_view within) const {
  // A ring of the next pieces' hashes: piece i's look-up was started when piece i - kAhead was
  // encoded. Text pieces are mostly whole tokens, each a probe of a table larger than the L2
  // cache (2 MiB for gpt2); encoding them one after the other waited on each probe in turn.
  constexpr size_t kAhead = 8;
  uint64_t hashes[kAhead] = {};
  // For a piece of at most 8 bytes with 8 bytes of `within` from its start: its bytes as one
  // word (HashShort's), taken with one load and a mask, and looked up as such. kNoWord for
  // the others: its bytes are all FF, so HasWideLead sends them on as it sends CJK text (as it
  // would a piece of eight FF bytes, which is then merely not taken on the short path).
  constexpr uint64_t kNoWord = ~uint64_t{0};
  uint64_t words[kAhead] = {};
  const TokenSlot* const slots = token_slots_.data();
  const size_t mask = token_slots_.size() - 1;
  const char* const limit = within.data() + within.size();
  // The pieces EncodeHashed takes; the others (one byte, 4 GiB or more) go to EncodePiece.
  auto hashed = [](std::string_view piece) {
    return piece.size() - 2 < kMaxPieceBytes - 2;  // 2 <= size < kMaxPieceBytes
  };
  auto start = [&](size_t i) __attribute__((always_inline)) {
    const std::string_view piece = pieces[i];
    if (!hashed(piece)) return;
    uint64_t word = kNoWord;
    uint64_t hash;
    if (piece.size() <= 8 && !within.empty() && static_cast<size_t>(limit - piece.data()) >= 8) {
      std::memcpy(&word, piece.data(), 8);
      word &= ~uint64_t{0} >> (64 - 8 * piece.size());
      hash = HashShort(word, piece.size());
    } else {
      hash = HashBytes(piece);
    }
    hashes[i % kAhead] = hash;
    words[i % kAhead] = word;
    __builtin_prefetch(slots + (hash & mask));
  };
  const size_t n = pieces.size();
  for (size_t i = 0; i < n && i < kAhead; ++i) start(i);
  for (size_t i = 0; i < n; ++i) {
    const std::string_view piece = pieces[i];
    const uint64_t hash = hashes[i % kAhead];
    const uint64_t word = words[i % kAhead];
    if (i + kAhead < n) start(i + kAhead);
    if (!hashed(piece)) {
      EncodePiece(piece, ids);
      continue;
    }
    // A byte E0..FF (the lead of a character of 3 or 4 bytes): CJK text, which EncodeHashed
    // looks up only where a filter lets it.
    if (!HasWideLead(word)) {
      // A whole token is taken whichever encoder the piece would go to (EncodeHashed's paths
      // all begin so); the others go on to it, which looks the piece up again.
      const uint32_t whole = FindShort(word, static_cast<uint32_t>(piece.size()), hash);
      if (TakeWhole(whole)) {
        ids->push_back(whole);
        continue;
      }
    }
    EncodeHashed(piece, hash, ids, Algorithm::kAuto);
  }
}

[[gnu::noinline]] void BpeModel::EncodeUncachedOutOfLine(std::string_view piece, uint64_t hash,
                                                         std::vector<uint32_t>* ids,
                                                         Algorithm algorithm) const {
  EncodeUncached(piece, hash, ids, algorithm);
}

// Out of line: the pieces of ASCII text keep the short path above.
[[gnu::noinline]] void BpeModel::EncodeWidePiece(std::string_view piece, uint64_t hash,
                                                 std::vector<uint32_t>* ids) const {
  // Few of these are tokens (a filter says which may be); the rest merge as their bytes do,
  // so the cache of parts serves them. A run of CJK characters rarely repeats, and would only
  // push the parts that do out of it; one whose cuts were joined (words of a vocabulary of
  // words: Korean, Japanese, Chinese in some) is remembered.
  const uint32_t whole = MayBeWideToken(hash) ? FindHashed(piece, hash) : kNone;
  if (TakeWhole(whole)) {
    ids->push_back(whole);
    return;
  }
  PieceCache::Entry* entry = nullptr;
  const auto length = static_cast<uint8_t>(piece.size());
  if (piece.size() <= PieceCache::kMaxBytes) {
    entry = &PieceCache::ForThread().Slot(hash);
    if (entry->Holds(serial_, hash, length, piece)) {
      entry->AppendTo(ids);
      return;
    }
  }
  const size_t before = ids->size();
  bool joined = false;
  if (!EncodeCharacterwise(piece, ids, &joined)) {
    EncodeUncachedOutOfLine(piece, hash, ids, Algorithm::kAuto);
  } else if (joined && entry != nullptr) {
    entry->Store(serial_, hash, length, piece, *ids, before);
  }
}

bool BpeModel::EncodePieceStreaming(std::string_view piece, std::vector<uint32_t>* ids,
                                    const IdFlush& flush) const {
  if (piece.size() < kBacktrackMinBytes || piece.size() >= kMaxPieceBytes || !EnsureBacktrack() ||
      TakeWhole(Find(piece))) {
    EncodePiece(piece, ids);
    return true;
  }
  return EncodeBacktrack(piece, ids, backtrack_window_, &flush);
}

void BpeModel::MergeChunk(std::string_view chunk, std::vector<uint32_t>* ids) const {
  MergeChunk(chunk,
             chunk.size() > 1 && chunk.size() <= PieceCache::kMaxBytes ? HashBytes(chunk) : 0, ids);
}

void BpeModel::MergeChunk(std::string_view chunk, uint64_t hash, std::vector<uint32_t>* ids) const {
  if (chunk.size() == 1) {
    EmitPart(byte_ids_[static_cast<unsigned char>(chunk[0])], ids);
  } else if (chunk.size() <= PieceCache::kMaxBytes) {
    EncodeCached(chunk, hash, ids);
  } else if (chunk.size() <= kLinearMergeMaxBytes) {
    MergeLinear(chunk, ids);
  } else {
    MergeLong(chunk, chunk.size() >= kQueueMinBytes, ids);
  }
}

void BpeModel::EncodeCached(std::string_view piece, uint64_t hash,
                            std::vector<uint32_t>* ids) const {
  PieceCache::Entry& e = PieceCache::ForThread().Slot(hash);
  const auto length = static_cast<uint8_t>(piece.size());
  if (e.Holds(serial_, hash, length, piece)) {
    e.AppendTo(ids);
    return;
  }
  const size_t before = ids->size();
  MergeLinear(piece, ids);
  e.Store(serial_, hash, length, piece, *ids, before);
}

inline bool BpeModel::CutIsClear(const unsigned char* bytes, size_t n, size_t cut) const {
  // Between two characters of 3 bytes: x1 x2 | y0 y1 (x continuation bytes, y0 a lead byte
  // 0xE0..0xEF, y1 a continuation byte). A token across the cut within those 6 bytes holds
  // x2 y0 (a 2-byte token), x1 x2 y0 or x2 y0 y1; if none does, no merge crosses the cut and
  // the pair of tokens around it is valid.
  if (cut < 2 || cut + 1 >= n) return false;
  const unsigned x1 = bytes[cut - 2], x2 = bytes[cut - 1], y0 = bytes[cut], y1 = bytes[cut + 1];
  if (!IsContinuation(x1) || !IsContinuation(x2) || !IsLead3(y0) || !IsContinuation(y1)) {
    return false;
  }
  if (cut >= 3 && cut + 3 <= n && IsLead3(bytes[cut - 3]) && IsContinuation(bytes[cut + 2])) {
    return CharCutIsClear(Char3Index(bytes + cut - 3), Char3Index(bytes + cut));
  }
  // A character cut off by the piece's end: the sequences alone.
  return !TestBit(token2_bits_, x2 | (y0 << 8)) &&
         !TestBit(cut_trigrams_, CutSequenceBefore(x1, x2, y0)) &&
         !TestBit(cut_trigrams_, CutSequenceAfter(x2, y0, y1));
}

[[gnu::always_inline]] inline bool BpeModel::CharCutIsClear(uint32_t left, uint32_t right) const {
  // The bytes around the cut, x1 x2 | y0 y1 as in CutIsClear, from the characters' payload
  // bits. Where the bit tables cannot clear the cut, a token across it holds part of one of
  // the two whole characters, or both.
  const unsigned x1 = (left >> 6) & 63, x2 = left & 63, y0 = right >> 12, y1 = (right >> 6) & 63;
  if (TestBit(token2_bits_, (0x80 | x2) | ((0xE0 | y0) << 8))) return false;
  const uint32_t before = CutSequenceBefore(x1, x2, y0);
  const uint32_t after = CutSequenceAfter(x2, y0, y1);
  if (!TestBit(cut_trigrams_, before) && !TestBit(cut_trigrams_, after)) return true;
  return !TestBit(partial_cut_trigrams_, before) && !TestBit(partial_cut_trigrams_, after) &&
         !MayBeCharPairInToken(left, right);
}

inline bool BpeModel::MayBeCharPairInToken(uint32_t left, uint32_t right) const {
  return FilterMayHold(char_pairs_, HashPairKey((left << 16) | right));
}

inline bool BpeModel::MayHaveWideCharacter(std::string_view piece) {
  // A lead byte of 3 or 4 bytes among the first 4 bytes: a CJK run starts there, after at most
  // one character of punctuation or a space. (Pieces of kCharacterwiseMinBytes or more.)
  uint32_t word;
  std::memcpy(&word, piece.data(), 4);
  return HasWideLead(word);
}

inline bool BpeModel::IsValidPairCached(uint32_t a, uint32_t b) const {
  PairValidityCache& cache = PairValidityCache::ForThread();
  const uint64_t key = (static_cast<uint64_t>(a) << 21) | b;
  PairValidityCache::Entry& e = cache.entries[HashPairKey(key ^ serial_) >> 51];
  if (e.key == key && e.serial == serial_) return e.valid != 0;
  const bool valid = IsValidPair(a, b);
  e = {key, serial_, valid};
  return valid;
}

inline bool BpeModel::MayBeWideToken(uint64_t hash) const {
  return FilterMayHold(wide_token_filter_, hash);
}

bool BpeModel::HasWideCharacter(std::string_view piece) {
  for (const char c : piece) {
    if (static_cast<unsigned char>(c) >= 0xE0) return true;
  }
  return false;
}

bool BpeModel::EncodeCharacterwise(std::string_view piece, std::vector<uint32_t>* ids,
                                   bool* joined) const {
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  const size_t n = piece.size();
  // The piece's ids are written to out[0..count), then appended to *ids: a part's ids are at
  // most its bytes, so n of them suffice. The parts encoded so far: where each begins in the
  // piece and in out (a part is at least a byte long, so n of them suffice too). `merged`
  // takes the ids of the parts the character table does not give.
  struct Part {
    uint32_t begin;
    uint32_t first_id;
  };
  struct Scratch {
    std::vector<uint32_t> out;
    std::vector<Part> parts;
    std::vector<uint32_t> merged;
  };
  thread_local Scratch scratch;
  if (scratch.out.size() < n) {
    scratch.out.resize(n);
    scratch.parts.resize(n);
  }
  uint32_t* const out = scratch.out.data();
  Part* const parts = scratch.parts.data();
  std::vector<uint32_t>& merged = scratch.merged;
  size_t count = 0;
  size_t part_count = 0;
  // Merges piece[from, to) and writes its ids at out[at..); returns the new count.
  auto merge = [&](size_t from, size_t to, size_t at) {
    merged.clear();
    MergeChunk(piece.substr(from, to - from), &merged);
    std::copy(merged.begin(), merged.end(), out + at);
    return at + merged.size();
  };
  const uint64_t* const char3 = char3_.data();
  // The character of 3 bytes that ends at `start`, by its payload bits, if it was read whole
  // (then the cut at `start` is tested from the two characters' bits); else kNoCharacter.
  constexpr uint32_t kNoCharacter = UINT32_MAX;
  uint32_t last = kNoCharacter;
  size_t start = 0;
  while (start < n) {
    // The next part: one character of 3 or 4 bytes, or the bytes up to the next such character.
    size_t end = start + 1;
    size_t first = count;
    uint32_t character = kNoCharacter;
    if (bytes[start] < 0xF0 && bytes[start] >= 0xE0 && start + 3 <= n &&
        (bytes[start + 1] & 0xC0) == 0x80 && (bytes[start + 2] & 0xC0) == 0x80) {
      character = Char3Index(bytes + start);
      // Its 1 to 3 ids, written as 3 (count <= start, so out has room for them).
      const uint64_t packed = char3[character];
      out[count] = static_cast<uint32_t>(packed & kChar3IdMask) - 1;
      out[count + 1] = static_cast<uint32_t>((packed >> 21) & kChar3IdMask) - 1;
      out[count + 2] = static_cast<uint32_t>(packed >> 42) - 1;
      count += 1 + ((packed >> 21) != 0) + ((packed >> 42) != 0);
      end = start + 3;
    } else {
      if (bytes[start] >= 0xE0) {
        end = std::min(n, start + (bytes[start] >= 0xF0 ? 4 : 3));
      } else {
        while (end < n && bytes[end] < 0xE0) ++end;
      }
      count = merge(start, end, count);
    }
    // The parts' encodings joined are the piece's if the pair across each cut is valid. Where
    // one is not (a token spans the cut), the part is merged again with the one before it, and
    // the new cut checked: in vocabularies with tokens of several characters (Chinese words)
    // the parts become those words. A part past kLinearMergeMaxBytes gives up (the piece is
    // then merged whole: no quadratic work on a piece whose every cut is spanned).
    size_t begin = start;
    if (first > 0) {
      bool clear = last != kNoCharacter && character != kNoCharacter
                       ? CharCutIsClear(last, character)
                       : CutIsClear(bytes, n, begin);
      while (!clear && !(valid_pairs_ok_ && IsValidPairCached(out[first - 1], out[first]))) {
        *joined = true;
        --part_count;
        begin = parts[part_count].begin;
        first = parts[part_count].first_id;
        if (end - begin > kLinearMergeMaxBytes) return false;
        count = merge(begin, end, first);
        if (first == 0) break;
        clear = CutIsClear(bytes, n, begin);
      }
    }
    parts[part_count++] = {static_cast<uint32_t>(begin), static_cast<uint32_t>(first)};
    last = character;
    start = end;
  }
  ids->insert(ids->end(), out, out + count);
  return true;
}

inline size_t BpeModel::TokenReach(const unsigned char* bytes, size_t i, size_t n) const {
  if (i + 3 <= n) {
    const uint32_t key = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16);
    const uint64_t want = static_cast<uint64_t>(key + 1) << 32;
    const size_t mask = prefix3_.size() - 1;
    for (size_t s = Hash3(key) & mask;; s = (s + 1) & mask) {
      const uint64_t slot = prefix3_[s];
      if (slot == 0) break;
      if ((slot & 0xFFFFFFFF00000000ULL) == want) return static_cast<uint32_t>(slot);
    }
  }
  if (i + 2 <= n) {
    const unsigned pair = bytes[i] | (bytes[i + 1] << 8);
    if (TestBit(token2_bits_, pair)) return 2;
  }
  return 1;
}

void BpeModel::EncodeSplit(std::string_view piece, std::vector<uint32_t>* ids) const {
  // A cut before byte i is exact when no token starting before i reaches past i.
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  const size_t n = piece.size();
  size_t start = 0;
  size_t reach = 0;
  for (size_t i = 0; i < n; ++i) {
    if (reach <= i && i > start) {
      const std::string_view chunk = piece.substr(start, i - start);
      MergeChunk(chunk, chunk.size() <= PieceCache::kMaxBytes ? HashBytes(chunk) : 0, ids);
      start = i;
    }
    reach = std::max(reach, i + TokenReach(bytes, i, n));
  }
  const std::string_view chunk = piece.substr(start);
  MergeChunk(chunk, chunk.size() <= PieceCache::kMaxBytes ? HashBytes(chunk) : 0, ids);
}

// The linear merge: parts[0..m) are tokens, pairs[k] the merge of parts[k] and parts[k + 1].
// Merges the lowest-priority pair (leftmost among equals) until none merges; leaves the result in
// parts[0..r) and returns r. m <= kLinearMergeMaxBytes. (Parts at fixed positions with links and
// a vectorized minimum took more instructions than these short shifts on the shared corpus.)
inline size_t BpeModel::MergeLinearParts(uint32_t* parts, Pair* pairs, size_t m,
                                         Split* last) const {
  static_assert(kLinearMergeMaxBytes <= 64 && kPriorityBits + 6 < 32);
  while (m > 1) {
    // The lowest (priority, position) without a branch: priority << 6 | k, with kNone's wrapped
    // shift still above every priority below 2^22 shifted (m <= 64).
    uint32_t best_key = UINT32_MAX;
    for (size_t k = 0; k + 1 < m; ++k) {
      best_key = std::min(best_key, (pairs[k].priority << 6) | static_cast<uint32_t>(k));
    }
    if (best_key >= (uint32_t{1} << (kPriorityBits + 6))) break;
    const size_t best = best_key & 63;
    if (last != nullptr) *last = {parts[best], parts[best + 1], pairs[best].priority + 1};
    parts[best] = pairs[best].result;
    // Remove part best + 1 and pair best + 1 (pair best is recomputed below), 16 bytes at a
    // time (the arrays have kLinearSlack entries past m for the last copy's overrun): a call to
    // memmove cost more than these few moves.
    for (size_t k = best + 1; k + 1 < m; k += 4) {
      uint32_t moved[4];
      std::memcpy(moved, parts + k + 1, sizeof moved);
      std::memcpy(parts + k, moved, sizeof moved);
    }
    for (size_t k = best + 1; k + 2 < m; k += 2) {
      uint64_t moved[2];  // two pairs (not Pairs: those would be initialized first)
      static_assert(sizeof(Pair) == sizeof(uint64_t));
      std::memcpy(moved, pairs + k + 1, sizeof moved);
      std::memcpy(pairs + k, moved, sizeof moved);
    }
    --m;
    if (best > 0) pairs[best - 1] = LookupPair(parts[best - 1], parts[best]);
    if (best + 1 < m) pairs[best] = LookupPair(parts[best], parts[best + 1]);
  }
  return m;
}

inline size_t BpeModel::MergeBytesLinear(std::string_view bytes, uint32_t* parts,
                                         Split* last) const {
  // parts[k] is a token; pairs[k] describes the merge of parts[k] and parts[k + 1].
  LinearPairs pair_room;
  Pair* const pairs = pair_room.get();
  const size_t m = bytes.size();
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t k = 0; k < m; ++k) parts[k] = byte_ids_[b[k]];
  for (size_t k = 0; k + 1 < m; ++k) pairs[k] = byte_pairs_[b[k] * 256 + b[k + 1]];
  return MergeLinearParts(parts, pairs, m, last);
}

void BpeModel::MergeLinear(std::string_view piece, std::vector<uint32_t>* ids) const {
  uint32_t parts[kLinearMergeMaxBytes + kLinearSlack];
  const size_t m = MergeBytesLinear(piece, parts);
  for (size_t k = 0; k < m; ++k) EmitPart(parts[k], ids);
}

size_t BpeModel::MergeLongParts(std::vector<uint32_t>& parts, std::vector<Pair>& pairs,
                                bool queue) const {
  // Parts stay at their positions; next/prev links skip the parts merged away. pairs[k] is the
  // current pair of the part at k (kNone for a part merged away, or the last one).
  constexpr uint32_t kNil = UINT32_MAX;
  const auto n = static_cast<uint32_t>(parts.size());  // EncodePiece keeps pieces below 4 GiB
  std::vector<uint32_t> next(n);
  std::vector<uint32_t> prev(n);
  for (uint32_t k = 0; k < n; ++k) {
    next[k] = k + 1 < n ? k + 1 : kNil;
    prev[k] = k == 0 ? kNil : k - 1;
  }
  // Merges the pair at pos (current) and calls push(k) for the positions whose pair changed.
  const auto merge = [&](uint32_t pos, auto&& push) {
    const uint32_t right = next[pos];
    parts[pos] = pairs[pos].result;
    pairs[right] = Pair{};
    const uint32_t after = next[right];
    next[pos] = after;
    if (pos != 0) {  // position 0 is never merged away, so pos > 0 has a live predecessor
      const uint32_t before = prev[pos];
      pairs[before] = LookupPair(parts[before], parts[pos]);
      push(before);
    }
    if (after != kNil) {
      prev[after] = pos;
      pairs[pos] = LookupPair(parts[pos], parts[after]);
      push(pos);
    } else {
      pairs[pos] = Pair{};
    }
  };
  const auto result = [&] {
    size_t count = 0;
    for (uint32_t k = 0; k != kNil; k = next[k]) parts[count++] = parts[k];
    return count;
  };

  if (queue) {
    // The bucket queue: one bucket of positions per priority, the priorities in a min-heap. In a
    // trained vocabulary a merge of priority r creates pairs of later priorities only; then no
    // candidate of priority r can come once bucket r is taken, and its positions, sorted, are
    // merged in order (leftmost first), each checked to be current. A merge that creates a pair
    // of priority r or lower ends the queue: the heap below takes over from that state.
    std::vector<std::vector<uint32_t>> buckets;
    std::unordered_map<uint32_t, uint32_t> bucket_of;  // priority -> index in buckets
    std::vector<uint32_t> order;                       // min-heap of the priorities with a bucket
    const auto later = [](uint32_t a, uint32_t b) { return a > b; };
    uint64_t floor = 0;  // pairs must have a priority of at least this (current + 1)
    bool inverted = false;
    const auto push = [&](uint32_t pos) {
      const uint32_t priority = pairs[pos].priority;
      if (priority == kNone) return;
      if (priority < floor) {
        inverted = true;
        return;
      }
      const auto [it, added] =
          bucket_of.try_emplace(priority, static_cast<uint32_t>(buckets.size()));
      if (added) {
        buckets.emplace_back();
        order.push_back(priority);
        std::push_heap(order.begin(), order.end(), later);
      }
      buckets[it->second].push_back(pos);
    };
    for (uint32_t k = 0; k < n; ++k) push(k);
    std::vector<uint32_t> positions;
    while (!order.empty() && !inverted) {
      std::pop_heap(order.begin(), order.end(), later);
      const uint32_t priority = order.back();
      order.pop_back();
      const auto found = bucket_of.find(priority);
      positions.swap(buckets[found->second]);
      bucket_of.erase(found);
      floor = uint64_t{priority} + 1;
      // Pushes arrive in runs of rising positions; sort only if the runs interleave.
      if (!std::is_sorted(positions.begin(), positions.end())) {
        std::sort(positions.begin(), positions.end());
      }
      for (const uint32_t pos : positions) {
        if (pairs[pos].priority != priority) continue;
        merge(pos, push);
        if (inverted) break;
      }
      positions.clear();
      positions.shrink_to_fit();
    }
    if (!inverted) return result();
  }

  // The heap: 8-byte candidates, priority << 32 | position, one for every current pair, built at
  // once with make_heap. A candidate is current iff pairs[position].priority still equals its
  // priority; a stale one that matches has the same key as the current one, so taking either
  // gives the same merge.
  std::vector<uint64_t> heap;
  heap.reserve(n / 2 + 16);
  for (uint32_t k = 0; k != kNil; k = next[k]) {
    if (pairs[k].priority != kNone) {
      heap.push_back((static_cast<uint64_t>(pairs[k].priority) << 32) | k);
    }
  }
  const auto later = [](uint64_t a, uint64_t b) { return a > b; };
  std::make_heap(heap.begin(), heap.end(), later);
  const auto push = [&](uint32_t pos) {
    if (pairs[pos].priority == kNone) return;
    heap.push_back((static_cast<uint64_t>(pairs[pos].priority) << 32) | pos);
    std::push_heap(heap.begin(), heap.end(), later);
  };
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const uint64_t key = heap.back();
    heap.pop_back();
    const auto pos = static_cast<uint32_t>(key);
    if (pairs[pos].priority != static_cast<uint32_t>(key >> 32)) continue;
    merge(pos, push);
  }
  return result();
}

void BpeModel::MergeHeap(std::string_view piece, std::vector<uint32_t>* ids) const {
  MergeLong(piece, false, ids);
}

void BpeModel::MergeLong(std::string_view piece, bool queue, std::vector<uint32_t>* ids) const {
  const size_t n = piece.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  std::vector<uint32_t> parts(n);
  std::vector<Pair> pairs(n);
  for (size_t k = 0; k < n; ++k) parts[k] = byte_ids_[bytes[k]];
  for (size_t k = 0; k + 1 < n; ++k) pairs[k] = byte_pairs_[bytes[k] * 256 + bytes[k + 1]];
  const size_t count = MergeLongParts(parts, pairs, queue);
  for (size_t k = 0; k < count; ++k) EmitPart(parts[k], ids);
}

void BpeModel::MergeIds(std::span<const uint32_t> parts, std::vector<uint32_t>* ids) const {
  const size_t n = parts.size();
  if (n == 0) return;
  if (n == 1) {
    ids->push_back(parts[0]);
    return;
  }
  if (n <= kLinearMergeMaxBytes) {
    uint32_t p[kLinearMergeMaxBytes + kLinearSlack];
    LinearPairs pair_room;
    Pair* const pairs = pair_room.get();
    size_t m = n;
    for (size_t k = 0; k < m; ++k) p[k] = parts[k];
    for (size_t k = 0; k + 1 < m; ++k) pairs[k] = LookupPair(p[k], p[k + 1]);
    m = MergeLinearParts(p, pairs, m);
    ids->insert(ids->end(), p, p + m);
    return;
  }
  std::vector<uint32_t> p(parts.begin(), parts.end());
  std::vector<Pair> pairs(n);
  for (size_t k = 0; k + 1 < n; ++k) pairs[k] = LookupPair(p[k], p[k + 1]);
  const size_t count = MergeLongParts(p, pairs, false);
  ids->insert(ids->end(), p.begin(), p.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace tokenmill::bpe

namespace tokenmill::bpe {

void BpeModel::ComputeSplits() {
  // Merge each token's bytes (plainly, lowest priority and leftmost first) and keep the last
  // merge; a token whose bytes do not merge to itself keeps rank 0 and is not usable.
  const size_t n_ids = spans_.size();
  splits_.assign(n_ids, Split{});
  usable_.assign(n_ids, 0);
  std::vector<uint32_t> parts;
  std::vector<uint32_t> priorities;
  for (uint32_t id = 0; id < n_ids; ++id) {
    const std::string_view bytes = Bytes(id);
    if (bytes.empty()) continue;
    if (bytes.size() == 1) {
      usable_[id] = byte_ids_[static_cast<unsigned char>(bytes[0])] == id;
      continue;
    }
    if (bytes.size() <= kLinearMergeMaxBytes) {  // the linear merge, keeping its last step
      uint32_t p[kLinearMergeMaxBytes + kLinearSlack];
      Split last;
      if (MergeBytesLinear(bytes, p, &last) == 1 && p[0] == id) {
        usable_[id] = 1;
        splits_[id] = last;
      }
      continue;
    }
    parts.clear();
    for (const char c : bytes) parts.push_back(byte_ids_[static_cast<unsigned char>(c)]);
    priorities.assign(parts.size(), kNone);
    for (size_t k = 0; k + 1 < parts.size(); ++k) {
      priorities[k] = LookupPair(parts[k], parts[k + 1]).priority;
    }
    Split last;
    while (parts.size() > 1) {
      size_t best = 0;
      for (size_t k = 1; k + 1 < parts.size(); ++k) {
        if (priorities[k] < priorities[best]) best = k;
      }
      const uint32_t priority = priorities[best];
      if (priority == kNone) break;
      const Pair pair = LookupPair(parts[best], parts[best + 1]);
      last = {parts[best], parts[best + 1], priority + 1};
      parts[best] = pair.result;
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(best) + 1);
      priorities.erase(priorities.begin() + static_cast<std::ptrdiff_t>(best) + 1);
      if (best > 0) priorities[best - 1] = LookupPair(parts[best - 1], parts[best]).priority;
      priorities[best] =
          best + 1 < parts.size() ? LookupPair(parts[best], parts[best + 1]).priority : kNone;
    }
    if (parts.size() == 1 && parts[0] == id) {
      usable_[id] = 1;
      splits_[id] = last;
    }
  }
}

void BpeModel::BuildBacktrack() {
  backtrack_ok_ = false;
  next_prefix_.clear();
  trie_slots_.clear();
  trie2_.clear();
  max_token_length_ = 1;
  // Needs a token for every byte (every piece then has an encoding of usable tokens) and merge
  // results that are the concatenation of their parts (the bytes of a token are its leaves).
  // Tests any pair of tokens: needs the validity test for all (every token regular).
  if (!EnsureValidPairs() || irregular_tokens_ != 0) return;
  const size_t n_ids = spans_.size();
  const std::vector<uint8_t>& usable = usable_;
  // The trie of the usable tokens.
  size_t total = 0;
  for (uint32_t id = 0; id < n_ids; ++id) {
    if (usable[id]) total += spans_[id].length;
  }
  if (total >= (size_t{1} << 23)) return;  // node << 8 | byte must fit in 31 bits
  // The tokens go in in the order of their bytes: a prefix comes before the tokens it starts,
  // and a token shares the path of its longest common prefix with the one before it, whose
  // slots are kept by depth. Only the rest of its path is looked up (each look-up a miss in a
  // table of megabytes): once per node of the trie, not once per byte of every token.
  // Sorted by their first 8 bytes as a number (big-endian, zero-padded), then by all their
  // bytes and by id: integer compares for all but the tokens that share 8 bytes.
  struct Keyed {
    uint64_t key;
    uint32_t id;
  };
  std::vector<Keyed> keyed;
  for (uint32_t id = 0; id < n_ids; ++id) {
    if (!usable[id] || spans_[id].length < 2) continue;
    const std::string_view bytes = Bytes(id);
    uint64_t key = 0;
    for (size_t k = 0; k < 8; ++k) {
      key = (key << 8) | (k < bytes.size() ? static_cast<unsigned char>(bytes[k]) : 0u);
    }
    keyed.push_back({key, id});
  }
  std::sort(keyed.begin(), keyed.end(), [this](const Keyed& a, const Keyed& b) {
    if (a.key != b.key) return a.key < b.key;
    const std::string_view x = Bytes(a.id), y = Bytes(b.id);
    return x != y ? x < y : a.id < b.id;
  });
  std::vector<uint32_t> sorted(keyed.size());
  for (size_t k = 0; k < keyed.size(); ++k) sorted[k] = keyed[k].id;
  // Nodes: 0..255 the single bytes, 256 + c the c-th 2-byte prefix (direct: trie2_), deeper
  // ones in trie_slots_: one a prefix of 3 bytes or more (212,244 of them for cl100k_base's
  // 643,574 bytes of tokens), counted from the sorted tokens to size the table (at most 2/3 full,
  // and the smaller it is, the more of its look-ups hit the caches while encoding).
  // shared[k]: the bytes the k-th token shares with the one before it.
  std::vector<uint32_t> shared(sorted.size(), 0);
  size_t deep_nodes = 0;
  for (size_t k = 0; k < sorted.size(); ++k) {
    const std::string_view bytes = Bytes(sorted[k]);
    size_t common = 0;
    if (k > 0) {
      const std::string_view before = Bytes(sorted[k - 1]);
      const size_t limit = std::min(bytes.size(), before.size());
      while (common < limit && before[common] == bytes[common]) ++common;
    }
    shared[k] = static_cast<uint32_t>(common);
    deep_nodes += bytes.size() - std::max<size_t>(common, 2);
  }
  size_t capacity = 16;
  while (capacity < deep_nodes + deep_nodes / 2 + 1) capacity *= 2;
  trie_slots_.assign(capacity, TrieSlot{});
  trie2_.assign(65536, TrieSlot{});
  uint32_t nodes = 256;
  const size_t mask = capacity - 1;
  const auto find_or_add = [&](uint32_t node, unsigned char byte) -> TrieSlot& {
    const auto key = static_cast<uint32_t>(((node << 8) | byte) + 1);
    for (size_t s = Mix(key * 0x9E3779B97F4A7C15ULL) & mask;; s = (s + 1) & mask) {
      TrieSlot& slot = trie_slots_[s];
      if (slot.key == 0) {
        slot = {key, nodes++, kNone};
        return slot;
      }
      if (slot.key == key) return slot;
    }
  };
  for (int b = 0; b < 256; ++b) trie_root_[b] = byte_ids_[b];
  next_prefix_.assign(n_ids, kNone);
  std::vector<TrieSlot*> path;  // path[d]: the slot of the token's first d + 1 bytes (d >= 1)
  for (size_t k = 0; k < sorted.size(); ++k) {
    const uint32_t id = sorted[k];
    const std::string_view bytes = Bytes(id);
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    const size_t length = bytes.size();
    const size_t common = shared[k];
    if (path.size() < length) path.resize(length, nullptr);
    size_t d = 1;  // path[1..d) are this token's
    if (common >= 2) {
      d = common;
    } else {
      TrieSlot* slot = &trie2_[p[0] | (p[1] << 8)];
      if (slot->key == 0) *slot = {1, nodes++, kNone};
      path[1] = slot;
      d = 2;
    }
    for (; d < length; ++d) path[d] = &find_or_add(path[d - 1]->child, p[d]);
    // The longest usable token that is a proper prefix: one byte, or a slot of the path above.
    uint32_t prefix = trie_root_[p[0]];
    for (size_t k = 1; k + 1 < length; ++k) {
      if (path[k]->token != kNone) prefix = path[k]->token;
    }
    path[length - 1]->token = id;
    next_prefix_[id] = prefix;
    max_token_length_ = std::max<size_t>(max_token_length_, length);
  }
  backtrack_ok_ = true;
}

inline const BpeModel::TrieSlot* BpeModel::TrieChild(uint32_t node, unsigned char byte) const {
  const auto key = static_cast<uint32_t>(((node << 8) | byte) + 1);
  const size_t mask = trie_slots_.size() - 1;
  for (size_t s = Mix(key * 0x9E3779B97F4A7C15ULL) & mask;; s = (s + 1) & mask) {
    const TrieSlot& slot = trie_slots_[s];
    if (slot.key == key) return &slot;
    if (slot.key == 0) return nullptr;
  }
}

inline uint32_t BpeModel::LongestPrefix(const unsigned char* bytes, size_t n) const {
  uint32_t best = trie_root_[bytes[0]];
  if (n < 2) return best;
  const TrieSlot* slot = &trie2_[bytes[0] | (bytes[1] << 8)];
  if (slot->key == 0) return best;
  for (size_t i = 2;; ++i) {
    if (slot->token != kNone) best = slot->token;
    if (i >= n) break;
    slot = TrieChild(slot->child, bytes[i]);
    if (slot == nullptr) break;
  }
  return best;
}

// Walks down the split trees of a (its right edge) and b (its left edge), the latest formed
// first, as the merge of their concatenation would meet them in reverse: at each step the pair
// across the boundary must not merge before the boundary moves on. When a formed at priority p
// ends the state, the pair across must have a priority below p to win (a's pair is leftmost);
// when b does, p or below (the pair across is leftmost).
inline bool BpeModel::IsValidPair(uint32_t a, uint32_t b) const {
  if (!irregular_.empty() && (IsIrregular(a) || IsIrregular(b))) {
    return false;  // not known: the caller joins the parts (see BuildValidPairs)
  }
  uint64_t limit = UINT64_MAX;
  for (;;) {
    const uint32_t priority = LookupPair(a, b).priority;
    if (priority != kNone && priority < limit) return false;
    const Split& sa = splits_[a];
    const Split& sb = splits_[b];
    if (sa.rank == 0 && sb.rank == 0) return true;
    if (sa.rank > sb.rank) {
      limit = sa.rank - 1;
      a = sa.right;
    } else {
      limit = sb.rank;
      b = sb.left;
    }
  }
}

bool BpeModel::EncodeBacktrack(std::string_view piece, std::vector<uint32_t>* ids, size_t window,
                               const IdFlush* flush) const {
  const size_t n = piece.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(piece.data());
  size_t base = ids->size();
  // The tokens found so far are the path of the search, kept in *ids (the encoding of a prefix
  // of the piece is unique, so no token of it is ever replaced by another path: only popped and
  // searched again). dead: positions from which no encoding of the rest exists (set when the
  // search returns from one; a pruning only: a position not marked is searched again, with the
  // same result). The marks are kept for a window of positions [lo, lo + bits) that slides with
  // the search: bounded memory (128 KiB) on a piece of any length. Should the search go back
  // below the window (never seen on real vocabularies and text: it goes back a few tokens), the
  // piece is encoded again with a window over all of it (n / 8 bytes), so marks are never lost.
  constexpr size_t kInlineWords = 8;
  uint64_t inline_dead[kInlineWords] = {};
  std::vector<uint64_t> heap_dead;
  uint64_t* dead = inline_dead;
  size_t bits = kInlineWords * 64;
  if (n + 1 > bits || window < bits) {
    bits = std::min<size_t>((n + 64) & ~size_t{63},
                            std::max<size_t>(window, 8 * max_token_length_ + 256));
    bits = (bits + 63) & ~size_t{63};
    heap_dead.assign(bits / 64, 0);
    dead = heap_dead.data();
  }
  // Every position looked at is below lo + bits: a slide keeps at least bits / 2 - 63 positions
  // above the current one, more than the longest token.
  size_t lo = 0;  // multiple of 64
  const auto is_dead = [&](size_t p) {
    if (p < lo) return false;
    p -= lo;
    return ((dead[p >> 6] >> (p & 63)) & 1) != 0;
  };
  // Streaming (flush): the tokens ending at least `lag` positions behind the search are handed
  // out, [0, committed) of the piece; last_committed is the last of them. Should the search have
  // to pop one, or go back below the window, it is lost (returns false).
  const size_t lag = flush != nullptr ? std::max<size_t>(1, std::min(commit_lag_, bits / 2)) : 0;
  size_t committed = 0;
  uint32_t last_committed = kNone;
  const auto commit = [&](size_t pos) {
    size_t i = ids->size();
    size_t e = pos;
    while (i > base && e + lag > pos) e -= spans_[(*ids)[--i]].length;
    if (i == base) return;
    last_committed = (*ids)[i - 1];
    committed = e;
    if (*flush) (*flush)(std::span<const uint32_t>(ids->data(), i));
    ids->erase(ids->begin(), ids->begin() + static_cast<std::ptrdiff_t>(i));
    base = 0;
  };
  size_t pos = 0;
  uint32_t token = LongestPrefix(bytes, n);
  while (pos < n) {
    const size_t end = pos + spans_[token].length;
    const uint32_t prev = ids->size() > base ? ids->back() : last_committed;
    if (!is_dead(end) && (prev == kNone || IsValidPair(prev, token))) {
      ids->push_back(token);
      pos = end;
      if (pos >= n) break;
      if (flush != nullptr && pos >= committed + 2 * lag) commit(pos);
      if (lo + bits <= n && pos + max_token_length_ >= lo + bits) {  // slide, keep the last half
        const size_t new_lo = (pos - bits / 2) & ~size_t{63};
        const size_t shift = (new_lo - lo) / 64;
        const size_t words = bits / 64;
        for (size_t w = 0; w < words; ++w) dead[w] = w + shift < words ? dead[w + shift] : 0;
        lo = new_lo;
      }
      token = LongestPrefix(bytes + pos, n - pos);
    } else if (next_prefix_[token] != kNone) {
      token = next_prefix_[token];
    } else {
      if (flush != nullptr && (pos < lo || (committed > 0 && pos <= committed))) return false;
      if (ids->size() == base) {  // cannot happen: the merge's own result is an encoding
        MergeHeap(piece, ids);
        return true;
      }
      if (pos < lo) {  // below the window: again with the whole piece in it
        ids->resize(base);
        return EncodeBacktrack(piece, ids, SIZE_MAX, nullptr);
      }
      dead[(pos - lo) >> 6] |= uint64_t{1} << ((pos - lo) & 63);
      token = ids->back();
      ids->pop_back();
      pos -= spans_[token].length;
    }
  }
  return true;
}

}  // namespace tokenmill::bpe
