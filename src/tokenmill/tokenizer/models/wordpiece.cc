#include "tokenmill/tokenizer/models/wordpiece.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>

#include "tokenmill/base/utf8.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/normalizers/bert_unicode.h"

namespace tokenmill {
namespace {

// The WordPiece ids never exceed this (the largest public vocabularies have ~250k entries).
constexpr int64_t kMaxId = (int64_t{1} << 24) - 1;

// Settings that a tokenizer.json may carry; unset ones take the defaults of the compat mode.
struct FileDefaults {
  bool lowercase = true;
  std::optional<bool> strip_accents;  // null: follow lowercase
  bool clean_text = true;
  bool handle_chinese_chars = true;
  std::optional<int> max_input_chars_per_word;
};

StatusOr<WordPieceTokenizer::Config> ResolveOptions(const TokenizerOptions& options,
                                                    const FileDefaults& file,
                                                    std::string_view source) {
  // The [tokenizer] keys of byte-level BPE are errors here, not silently ignored.
  auto refuse = [&](std::string_view key, std::string_view applies_to) {
    return Status::InvalidArgument(std::string(source) + ": [tokenizer] " + std::string(key) +
                                   " applies to " + std::string(applies_to) +
                                   " only; remove it for this WordPiece tokenizer");
  };
  if (options.merges.has_value()) return refuse("merges", "GPT-2 encoder.json");
  if (options.encoding.has_value()) return refuse("encoding", "tiktoken rank files (*.tiktoken)");
  WordPieceTokenizer::Config config;
  BertNormalizerOptions& n = config.normalizer;
  n.compat = options.compat;
  n.lowercase = options.lowercase.value_or(file.lowercase);
  n.clean_text = options.clean_text.value_or(file.clean_text);
  n.handle_chinese_chars = options.handle_chinese_chars.value_or(file.handle_chinese_chars);
  const bool strip = options.strip_accents.value_or(file.strip_accents.value_or(n.lowercase));
  // ELECTRA strips accents only inside `if do_lower_case:`; BERT and HF follow the switch.
  n.strip_accents = options.compat == CompatMode::kGoogleElectra ? (n.lowercase && strip) : strip;
  const int default_max = options.compat == CompatMode::kHuggingFace
                              ? file.max_input_chars_per_word.value_or(100)
                              : 200;
  config.max_input_chars_per_word = options.max_input_chars_per_word.value_or(default_max);
  if (config.max_input_chars_per_word <= 0) {
    return Status::InvalidArgument(std::string(source) + ": max_input_chars_per_word must be " +
                                   "positive, got " +
                                   std::to_string(config.max_input_chars_per_word));
  }
  return config;
}

// Fills specials from the vocabulary; [UNK] (the model's unk token), [CLS] and [SEP] must exist.
Status FindSpecials(const std::vector<std::pair<std::string_view, uint32_t>>& entries,
                    WordPieceTokenizer::Config* config, std::string_view source) {
  WordPieceTable table;
  table.Build(entries);
  auto find = [&](std::string_view t) -> std::optional<uint32_t> {
    const uint32_t id = table.Find(t);
    if (id == WordPieceTable::kNotFound) return std::nullopt;
    return id;
  };
  SpecialTokens& s = config->specials;
  s.unk = find(config->unk_token);
  s.cls = find("[CLS]");
  s.sep = find("[SEP]");
  s.pad = find("[PAD]");
  s.mask = find("[MASK]");
  const std::pair<const char*, std::optional<uint32_t>> required[] = {
      {config->unk_token.c_str(), s.unk}, {"[CLS]", s.cls}, {"[SEP]", s.sep}};
  for (const auto& [name, id] : required) {
    if (!id.has_value()) {
      return Status::InvalidArgument(
          std::string(source) + ": the vocabulary has no " + name +
          " token; a BERT WordPiece vocabulary needs [UNK], [CLS] and [SEP] (check that this "
          "is the right file)");
    }
  }
  return Status::Ok();
}

// The first code point of valid UTF-8 `s`, and its length.
char32_t FirstCodePoint(std::string_view s, size_t* len) {
  const auto b = static_cast<unsigned char>(s[0]);
  const size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
  char32_t cp = n == 1 ? b : b & (0x7F >> n);
  for (size_t k = 1; k < n && k < s.size(); ++k) {
    cp = (cp << 6) | (static_cast<unsigned char>(s[k]) & 0x3F);
  }
  *len = n;
  return cp;
}

// A vocab.txt line as the reference reads it: HF trims trailing whitespace (Rust trim_end),
// Google strips both ends (Python str.strip()). So the Chinese vocabulary's U+2028 lines become
// "" and "##" (they can never be produced either way).
std::string_view TrimVocabLine(std::string_view line, CompatMode compat) {
  const bool python = compat != CompatMode::kHuggingFace;
  auto is_space = [python](char32_t cp) {
    return python ? bert::PythonIsSpace(cp) : bert::RustIsWhitespace(cp);
  };
  while (!line.empty()) {
    size_t start = line.size() - 1;
    while (start > 0 && (static_cast<unsigned char>(line[start]) & 0xC0) == 0x80) --start;
    size_t len;
    if (!is_space(FirstCodePoint(line.substr(start), &len))) break;
    line.remove_suffix(line.size() - start);
  }
  while (python && !line.empty()) {
    size_t len;
    if (!is_space(FirstCodePoint(line, &len))) break;
    line.remove_prefix(len);
  }
  return line;
}

std::vector<std::pair<std::string_view, uint32_t>> Entries(const std::vector<std::string>& vocab) {
  std::vector<std::pair<std::string_view, uint32_t>> entries;
  entries.reserve(vocab.size());
  for (size_t id = 0; id < vocab.size(); ++id) {
    entries.emplace_back(vocab[id], static_cast<uint32_t>(id));
  }
  return entries;
}

}  // namespace

// ---- WordPieceTable ----

uint64_t WordPieceTable::Head(const char* p, size_t n) {
  auto load32 = [](const char* q) {
    uint32_t v;
    std::memcpy(&v, q, 4);
    return uint64_t{v};
  };
  if (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  // Overlapping loads put the same bytes at the same places, so OR is exact.
  if (n >= 4) return load32(p) | (load32(p + n - 4) << ((n - 4) * 8));
  if (n == 0) return 0;
  const auto byte = [p](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
  return byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
}

uint64_t WordPieceTable::Hash(uint64_t head, const char* p, size_t n) {
  uint64_t h = (head ^ (n * 0x9E3779B97F4A7C15ull)) * 0xFF51AFD7ED558CCDull;
  for (size_t i = 8; i < n; i += 8) {
    h ^= h >> 32;
    h = (h ^ Head(p + i, std::min<size_t>(8, n - i))) * 0xC4CEB9FE1A85EC53ull;
  }
  return h ^ (h >> 29);
}

void WordPieceTable::Build(const std::vector<std::pair<std::string_view, uint32_t>>& entries) {
  size_t capacity = 16;
  while (capacity < entries.size() * 2) capacity *= 2;
  slots_.assign(capacity, Slot{0, kNotFound, 0});
  mask_ = capacity - 1;
  tails_.clear();
  wide_keys_.clear();
  size_t tail_bytes = 0;  // at most what tails_ will hold (a duplicate adds nothing)
  wide_ = false;
  for (const auto& entry : entries) {
    const size_t n = entry.first.size();
    if (n >> kSizeBits != 0) wide_ = true;
    if (n > 8) tail_bytes += n - 8;
  }
  if (tail_bytes >> (32 - kSizeBits) != 0) wide_ = true;
  for (const auto& [key, id] : entries) {
    const uint64_t head = Head(key.data(), key.size());
    const uint64_t h = Hash(head, key.data(), key.size());
    for (uint64_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id == kNotFound) {
        const auto size = static_cast<uint32_t>(key.size());
        const auto offset = static_cast<uint32_t>(tails_.size());
        if (wide_) {
          s = Slot{head, id, static_cast<uint32_t>(wide_keys_.size())};
          wide_keys_.push_back({size, offset});
        } else {
          s = Slot{head, id, size | offset << kSizeBits};
        }
        if (key.size() > 8) tails_.append(key.substr(8));
        break;
      }
      if (s.head == head && SameKey(s.meta, key.data(), key.size())) {
        s.id = id;  // a later duplicate wins
        break;
      }
    }
  }
}

inline bool WordPieceTable::SameKey(uint32_t meta, const char* p, size_t n) const {
  const WideKey key =
      wide_ ? wide_keys_[meta] : WideKey{meta & ((1u << kSizeBits) - 1), meta >> kSizeBits};
  return key.size == n && (n <= 8 || std::memcmp(tails_.data() + key.offset, p + 8, n - 8) == 0);
}

uint32_t WordPieceTable::Find(std::string_view key) const {
  const char* p = key.data();
  const size_t n = key.size();
  const uint64_t head = Head(p, n);
  const uint64_t h = Hash(head, p, n);
  for (uint64_t i = (h >> 32) & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id == kNotFound) return kNotFound;
    if (s.head == head && SameKey(s.meta, p, n)) return s.id;
  }
}

// ---- WordPieceTrie ----

void WordPieceTrie::Build(const std::vector<std::pair<std::string_view, uint32_t>>& entries) {
  // The keys sorted (stably: a later duplicate comes last and wins); a node of the trie is a
  // range of keys sharing a prefix, so no intermediate trie is built. Nodes are placed into the
  // double array breadth first, children in byte order.
  std::vector<std::pair<std::string_view, uint32_t>> keys;
  {
    // Sorted by their first 8 bytes as one big-endian integer, then the rest, then the input
    // order (stable): most comparisons are one integer comparison.
    struct SortKey {
      uint64_t head;
      uint32_t index;
    };
    std::vector<SortKey> order;
    order.reserve(entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
      const std::string_view k = entries[i].first;
      if (k.empty()) continue;
      uint64_t head = 0;
      for (size_t b = 0; b < 8; ++b) {
        head = head << 8 | (b < k.size() ? static_cast<unsigned char>(k[b]) : 0);
      }
      order.push_back({head, static_cast<uint32_t>(i)});
    }
    std::sort(order.begin(), order.end(), [&](const SortKey& a, const SortKey& b) {
      if (a.head != b.head) return a.head < b.head;
      const std::string_view x = entries[a.index].first;
      const std::string_view y = entries[b.index].first;
      const int c = x.compare(y);  // equal heads: equal first 8 bytes, or shorter and 0-padded
      if (c != 0) return c < 0;
      return a.index < b.index;
    });
    keys.reserve(order.size());
    for (const SortKey& k : order) keys.push_back(entries[k.index]);
  }
  cells_.assign(512, Cell{0, -1, kNotFound});
  cells_[0].check = -2;  // the root
  // next_free[i] != i: every cell in [i, next_free[i]) is used (a path-compressed skip list).
  std::vector<int32_t> next_free(cells_.size() + 1);
  for (size_t i = 0; i < next_free.size(); ++i) next_free[i] = static_cast<int32_t>(i);
  auto grow = [&](size_t size) {
    if (size <= cells_.size()) return;
    const size_t old = cells_.size();
    const size_t bigger = std::max(size, old * 2);
    cells_.resize(bigger, Cell{0, -1, kNotFound});
    next_free.resize(bigger + 1);
    for (size_t i = old; i <= bigger; ++i) next_free[i] = static_cast<int32_t>(i);
  };
  // The first free cell >= i (cells_.size() if none).
  auto find_free = [&](int32_t i) {
    const auto size = static_cast<int32_t>(cells_.size());
    int32_t r = i;
    while (r < size) {
      if (next_free[r] != r) {
        r = next_free[r];
      } else if (cells_[r].check == -1) {
        break;
      } else {
        next_free[r] = r + 1;
        ++r;
      }
    }
    for (int32_t j = i; j < r;) {
      const int32_t next = next_free[j];
      next_free[j] = r;
      j = next;
    }
    return r;
  };
  // Trying every free cell as a place for a wide node makes the build quadratic once the array
  // is fragmented. As in darts-clone, a block of cells where kMaxTrials placements failed is
  // closed: searches skip it. The few cells left free there cost nothing at lookup time.
  constexpr int32_t kBlock = 256;
  constexpr int32_t kMaxTrials = 256;
  std::vector<int32_t> trials;  // by block; kMaxTrials: closed
  // next_open[b] != b: every block in [b, next_open[b]) is closed (path-compressed, as
  // next_free), so a search does not walk the closed blocks one by one: the blocks at the front
  // close first, and every node's search starts there.
  std::vector<int32_t> next_open;
  auto first_open_block = [&](int32_t b) {
    int32_t r = b;
    while (static_cast<size_t>(r) < next_open.size() && next_open[r] != r) r = next_open[r];
    for (int32_t j = b; j < r;) {
      const int32_t next = next_open[j];
      next_open[j] = r;
      j = next;
    }
    return r;
  };
  // The first free cell >= p outside closed blocks.
  auto find_open = [&](int32_t p) {
    for (;;) {
      p = find_free(p);
      const int32_t block = first_open_block(p / kBlock);
      if (block == p / kBlock) return p;
      p = block * kBlock;
    }
  };
  // A node: the keys [lo, hi) share their first `depth` bytes; it sits at `cell`.
  struct Node {
    uint32_t lo, hi, depth;
    int32_t cell;
  };
  std::vector<Node> queue = {{0, static_cast<uint32_t>(keys.size()), 0, 0}};
  struct Kid {
    uint8_t first;  // the byte
    uint32_t lo, hi;
  };
  std::vector<Kid> kids;
  for (size_t q = 0; q < queue.size(); ++q) {
    auto [lo, hi, depth, cell] = queue[q];
    // Keys that end here sort first (a prefix before its extensions); the last one wins.
    while (lo < hi && keys[lo].first.size() == depth) cells_[cell].id = keys[lo++].second;
    if (lo == hi) continue;
    kids.clear();
    for (uint32_t i = lo; i < hi;) {
      const auto b = static_cast<uint8_t>(keys[i].first[depth]);
      uint32_t j = i + 1;
      while (j < hi && static_cast<uint8_t>(keys[j].first[depth]) == b) ++j;
      kids.push_back({b, i, j});
      i = j;
    }
    // The smallest base outside closed blocks that puts every child on a free cell (base >= 1).
    const int32_t first_label = kids[0].first + 1;
    int32_t p = find_open(1 + first_label);
    int32_t base;
    for (;;) {
      base = p - first_label;
      grow(static_cast<size_t>(base) + kids.back().first + 2);
      bool fits = true;
      for (const auto& kid : kids) {
        if (cells_[static_cast<size_t>(base) + kid.first + 1].check != -1) {
          fits = false;
          break;
        }
      }
      if (fits) break;
      const auto block = static_cast<size_t>(p / kBlock);
      if (trials.size() <= block) trials.resize(block + 1, 0);
      if (++trials[block] == kMaxTrials) {  // close the block
        while (next_open.size() <= block + 1) {
          next_open.push_back(static_cast<int32_t>(next_open.size()));
        }
        next_open[block] = static_cast<int32_t>(block + 1);
      }
      p = find_open(p + 1);
    }
    cells_[cell].base = base;
    for (const auto& kid : kids) {
      const auto c = static_cast<int32_t>(base + kid.first + 1);
      cells_[c].check = cell;
      queue.push_back({kid.lo, kid.hi, depth + 1, c});
    }
  }
  while (!cells_.empty() && cells_.back().check == -1) cells_.pop_back();
}

size_t WordPieceTrie::LongestPrefix(std::string_view text, uint32_t* id) const {
  size_t best = 0;
  int32_t s = 0;
  const auto size = static_cast<int64_t>(cells_.size());
  for (size_t k = 0; k < text.size(); ++k) {
    const int32_t base = cells_[s].base;
    if (base == 0) break;
    const int64_t t = int64_t{base} + static_cast<uint8_t>(text[k]) + 1;
    if (t >= size || cells_[t].check != s) break;
    s = static_cast<int32_t>(t);
    if (cells_[s].id != kNotFound) {
      best = k + 1;
      *id = cells_[s].id;
    }
  }
  return best;
}

// ---- WordPieceTokenizer ----

WordPieceTokenizer::WordPieceTokenizer(Config config) : config_(std::move(config)) {
  pre_tokenizer_ = BertPreTokenizer::Get(config_.normalizer);
  const auto entries = Entries(config_.vocab);
  all_.Build(entries);
  std::vector<std::pair<std::string_view, uint32_t>> continuation;
  const std::string_view prefix = config_.continuing_subword_prefix;
  for (const auto& [token, id] : entries) {
    if (token.substr(0, prefix.size()) == prefix) {
      continuation.emplace_back(token.substr(prefix.size()), id);
    }
  }
  continuation_.Build(continuation);
  initial_trie_.Build(entries);
  unk_id_ = all_.Find(config_.unk_token);
  single_.assign(0x10000, WordPieceTable::kNotFound);
  for (const auto& [token, id] : entries) {
    if (token.empty() || token.size() > 3) continue;
    char32_t cp;
    const auto* b = reinterpret_cast<const unsigned char*>(token.data());
    if (token.size() == 1 && b[0] < 0x80) {
      cp = b[0];
    } else if (token.size() == 2 && (b[0] & 0xE0) == 0xC0) {
      cp = ((b[0] & 0x1Fu) << 6) | (b[1] & 0x3Fu);
    } else if (token.size() == 3 && (b[0] & 0xF0) == 0xE0) {
      cp = ((b[0] & 0x0Fu) << 12) | ((b[1] & 0x3Fu) << 6) | (b[2] & 0x3Fu);
    } else {
      continue;
    }
    single_[cp] = all_.Find(token);  // the id that wins among duplicates
  }
  std::stable_sort(config_.literal_tokens.begin(), config_.literal_tokens.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [text, id] : config_.literal_tokens) {
    literal_first_bytes_.Add(static_cast<unsigned char>(text[0]));
    if (text.find(' ') != std::string::npos) literal_has_space_ = true;
  }
}

void WordPieceTokenizer::EncodeWord(std::string_view word, size_t chars,
                                    std::vector<uint32_t>* ids) const {
  if (chars > static_cast<size_t>(config_.max_input_chars_per_word)) {
    ids->push_back(unk_id_);
    return;
  }
  const uint32_t whole = all_.Find(word);
  if (whole != WordPieceTable::kNotFound) {
    ids->push_back(whole);
    return;
  }
  // Greedy longest-match-first: the longest vocabulary piece at `pos`, then "##" pieces.
  const size_t mark = ids->size();
  const WordPieceTrie* trie = &initial_trie_;
  for (size_t pos = 0; pos < word.size();) {
    uint32_t id = WordPieceTrie::kNotFound;
    const size_t len = trie->LongestPrefix(word.substr(pos), &id);
    if (len == 0) {
      ids->resize(mark);
      ids->push_back(unk_id_);
      return;
    }
    ids->push_back(id);
    pos += len;
    trie = &continuation_;
  }
}

void WordPieceTokenizer::EncodeChar(char32_t cp, std::string_view utf8,
                                    std::vector<uint32_t>* ids) const {
  const uint32_t id = cp < single_.size() ? single_[cp] : all_.Find(utf8);
  ids->push_back(id == WordPieceTable::kNotFound ? unk_id_ : id);
}

namespace {

struct IdSink {
  const WordPieceTokenizer* tokenizer;
  std::vector<uint32_t>* ids;
  // A word of more bytes has more than max_input_chars_per_word code points: [UNK] whatever its
  // bytes, so the pre-tokenizer need not keep them.
  size_t max_word_bytes =
      4 * (static_cast<size_t>(tokenizer->config().max_input_chars_per_word) + 1);
  void Word(std::string_view word, size_t chars) { tokenizer->EncodeWord(word, chars, ids); }
  void Char(char32_t cp, std::string_view utf8) { tokenizer->EncodeChar(cp, utf8, ids); }
  size_t Mark() const { return ids->size(); }
  void Rollback(size_t mark) { ids->resize(mark); }
};

}  // namespace

template <bool kSlowly>
void WordPieceTokenizer::EncodeImpl(std::string_view text, std::vector<uint32_t>* ids) const {
  IdSink sink{this, ids};
  auto split = [&](std::string_view segment) {
    if (segment.empty()) return;
    if constexpr (kSlowly) {
      pre_tokenizer_->SplitSlowly(segment, sink);
    } else {
      pre_tokenizer_->Split(segment, sink);
    }
  };
  if (config_.literal_tokens.empty()) {
    split(text);
    return;
  }
  // Literal tokens are matched in the raw text, leftmost first, the longest at a position; the
  // text between them is normalized and split on its own (HF's AddedVocabulary).
  size_t segment = 0;
  size_t i = 0;
  const size_t n = text.size();
  while ((i = literal_first_bytes_.Find(text, i)) < n) {
    bool matched = false;
    for (const auto& [token, id] : config_.literal_tokens) {
      if (text.compare(i, token.size(), token) == 0) {
        split(text.substr(segment, i - segment));
        ids->push_back(id);
        i += token.size();
        segment = i;
        matched = true;
        break;
      }
    }
    if (!matched) ++i;
  }
  split(text.substr(segment));
}

void WordPieceTokenizer::Encode(std::string_view text, std::vector<uint32_t>* ids) const {
  EncodeImpl<false>(text, ids);
}

void WordPieceTokenizer::EncodeInPieces(std::string_view text, size_t piece_bytes,
                                        const IdPieceSink& sink) const {
  if (text.size() <= piece_bytes || literal_has_space_) {
    Tokenizer::EncodeInPieces(text, piece_bytes, sink);
    return;
  }
  std::vector<uint32_t> ids;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.size() - start > piece_bytes
                     ? text.find(' ', start + std::max<size_t>(piece_bytes, 1))
                     : std::string_view::npos;
    if (end == std::string_view::npos) end = text.size();
    ids.clear();
    EncodeImpl<false>(text.substr(start, end - start), &ids);
    if (!ids.empty()) sink(ids);
    start = end;
  }
}

void WordPieceTokenizer::EncodeSlowly(std::string_view text, std::vector<uint32_t>* ids) const {
  EncodeImpl<true>(text, ids);
}

std::string_view WordPieceTokenizer::IdToToken(uint32_t id) const {
  if (id >= config_.vocab.size()) return {};
  return config_.vocab[id];
}

std::optional<uint32_t> WordPieceTokenizer::TokenToId(std::string_view token) const {
  const uint32_t id = all_.Find(token);
  if (id == WordPieceTable::kNotFound) return std::nullopt;
  return id;
}

std::string WordPieceTokenizer::Decode(std::span<const uint32_t> ids) const {
  std::string out;
  const std::string_view prefix = config_.continuing_subword_prefix;
  bool first = true;
  for (uint32_t id : ids) {
    std::string_view token = IdToToken(id);
    if (token.empty()) continue;
    if (!prefix.empty() && token.substr(0, prefix.size()) == prefix && !first) {
      out.append(token.substr(prefix.size()));
    } else {
      if (!first) out.push_back(' ');
      out.append(token);
    }
    first = false;
  }
  return out;
}

// ---- Loaders ----

StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceVocab(const TokenizerOptions& options,
                                                        std::string_view vocab_txt,
                                                        std::string_view source) {
  TM_ASSIGN_OR_RETURN(WordPieceTokenizer::Config config,
                      ResolveOptions(options, FileDefaults{}, source));
  // Lines end at '\n' only: the Chinese vocabulary holds U+2028 entries, which other line
  // splitters (Python's str.splitlines) would cut.
  size_t line_no = 0;
  for (size_t start = 0; start < vocab_txt.size();) {
    size_t end = vocab_txt.find('\n', start);
    if (end == std::string_view::npos) end = vocab_txt.size();
    std::string_view line = vocab_txt.substr(start, end - start);
    ++line_no;
    const size_t bad = FindInvalidUtf8(line);
    if (bad != std::string_view::npos) {
      return Status::InvalidArgument(std::string(source) + ":" + std::to_string(line_no) +
                                     ": invalid UTF-8 at byte " + std::to_string(start + bad) +
                                     " of the vocabulary; save the file as UTF-8");
    }
    line = TrimVocabLine(line, options.compat);
    if (static_cast<int64_t>(config.vocab.size()) >= kMaxId) {
      return Status::InvalidArgument(std::string(source) + ": more than " +
                                     std::to_string(kMaxId + 1) + " tokens");
    }
    config.vocab.emplace_back(line);
    start = end + 1;
  }
  if (config.vocab.empty()) {
    return Status::InvalidArgument(std::string(source) + ": the vocabulary file is empty");
  }
  const auto entries = Entries(config.vocab);
  TM_RETURN_IF_ERROR(FindSpecials(entries, &config, source));
  // HF's BertWordPieceTokenizer registers these five as special added tokens.
  WordPieceTable table;
  table.Build(entries);
  for (const char* name : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    const uint32_t id = table.Find(name);
    if (id == WordPieceTable::kNotFound) continue;
    config.specials.all[name] = id;
    if (!options.split_special_tokens) config.literal_tokens.emplace_back(name, id);
  }
  return std::unique_ptr<Tokenizer>(new WordPieceTokenizer(std::move(config)));
}

namespace {

StatusOr<std::unique_ptr<Tokenizer>> ParseTokenizerJson(const TokenizerOptions& options,
                                                        const ParsedTokenizerJson& parsed,
                                                        std::string_view source) {
  using nlohmann::json;
  const json& j = parsed.json;
  const std::string src(source);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(src + ": not valid JSON; expected a HuggingFace tokenizer.json");
  }
  if (!j.contains("model") || !j["model"].is_object()) {
    return Status::InvalidArgument(src + ": no \"model\" object; not a tokenizer.json");
  }
  const json& model = j["model"];
  // HF writes "type": "WordPiece"; older files have no type (it is inferred from the fields).
  if (model.contains("type") && model["type"] != "WordPiece") {
    return Status::InvalidArgument(src + ": model type " + model["type"].dump() +
                                   " is not WordPiece");
  }
  if (!parsed.vocab.has_value()) {
    return Status::InvalidArgument(src + ": model.vocab must be an object of token -> id");
  }

  FileDefaults file;
  if (j.contains("normalizer") && !j["normalizer"].is_null()) {
    const json& n = j["normalizer"];
    if (!n.is_object() || n.value("type", "") != "BertNormalizer") {
      return Status::InvalidArgument(
          src + ": normalizer " + (n.is_object() ? n.value("type", "?") : n.dump()) +
          " is not supported for WordPiece; tokenmill implements BertNormalizer (or none)");
    }
    file.clean_text = n.value("clean_text", true);
    file.handle_chinese_chars = n.value("handle_chinese_chars", true);
    file.lowercase = n.value("lowercase", true);
    if (n.contains("strip_accents") && !n["strip_accents"].is_null()) {
      file.strip_accents = n["strip_accents"].get<bool>();
    }
  } else {
    file.clean_text = false;
    file.handle_chinese_chars = false;
    file.lowercase = false;
    file.strip_accents = false;
  }
  if (!j.contains("pre_tokenizer") || !j["pre_tokenizer"].is_object() ||
      j["pre_tokenizer"].value("type", "") != "BertPreTokenizer") {
    return Status::InvalidArgument(src + ": pre_tokenizer must be BertPreTokenizer for WordPiece");
  }
  if (model.contains("max_input_chars_per_word")) {
    const int64_t m = model["max_input_chars_per_word"].get<int64_t>();
    if (m <= 0 || m > (int64_t{1} << 30)) {
      return Status::InvalidArgument(src + ": model.max_input_chars_per_word out of range");
    }
    file.max_input_chars_per_word = static_cast<int>(m);
  }
  TM_ASSIGN_OR_RETURN(WordPieceTokenizer::Config config, ResolveOptions(options, file, source));
  config.unk_token = model.value("unk_token", std::string("[UNK]"));
  config.continuing_subword_prefix = model.value("continuing_subword_prefix", std::string("##"));

  // Ids are dense in real files; a sparse one would make the id table absurdly large.
  size_t token_count = parsed.vocab->size();
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    token_count += j["added_tokens"].size();
  }
  const int64_t max_id = std::min<int64_t>(kMaxId, 2 * static_cast<int64_t>(token_count) + 1024);
  auto place = [&](const std::string& token, int64_t id) -> Status {
    if (id < 0 || id > max_id) {
      return Status::InvalidArgument(src + ": token id " + std::to_string(id) + " of " +
                                     json(token).dump() + " is out of range (0 to " +
                                     std::to_string(max_id) + " for this file)");
    }
    if (FindInvalidUtf8(token) != std::string_view::npos) {
      return Status::InvalidArgument(src + ": token with id " + std::to_string(id) +
                                     " is not valid UTF-8");
    }
    if (static_cast<size_t>(id) >= config.vocab.size()) config.vocab.resize(id + 1);
    config.vocab[id] = token;
    return Status::Ok();
  };
  for (const auto& [token, id] : *parsed.vocab) {
    if (!id.is_number_integer()) {
      return Status::InvalidArgument(src + ": model.vocab[" + json(token).dump() +
                                     "] is not an integer id");
    }
    TM_RETURN_IF_ERROR(place(token, id.get<int64_t>()));
  }
  if (config.vocab.empty()) return Status::InvalidArgument(src + ": model.vocab is empty");

  // Added tokens: special ones are matched in the text unless split_special_tokens; others always.
  std::vector<std::pair<std::string, uint32_t>> added;
  if (j.contains("added_tokens") && j["added_tokens"].is_array()) {
    for (const json& t : j["added_tokens"]) {
      if (!t.is_object() || !t.contains("content") || !t["content"].is_string() ||
          !t.contains("id") || !t["id"].is_number_integer()) {
        return Status::InvalidArgument(src + ": malformed entry in added_tokens: " + t.dump());
      }
      const std::string content = t["content"].get<std::string>();
      const int64_t id = t["id"].get<int64_t>();
      if (content.empty()) return Status::InvalidArgument(src + ": empty added token");
      TM_RETURN_IF_ERROR(place(content, id));
      const bool special = t.value("special", false);
      if (special) config.specials.all[content] = static_cast<uint32_t>(id);
      if (special && options.split_special_tokens) continue;
      if (t.value("normalized", !special) || t.value("single_word", false)) {
        return Status::InvalidArgument(
            src + ": added token " + json(content).dump() +
            " is normalized or single_word; tokenmill matches added tokens only literally");
      }
      // lstrip/rstrip only eat whitespace, which BertPreTokenizer drops anyway.
      added.emplace_back(content, static_cast<uint32_t>(id));
    }
  }
  config.literal_tokens = std::move(added);
  TM_RETURN_IF_ERROR(FindSpecials(Entries(config.vocab), &config, source));
  return std::unique_ptr<Tokenizer>(new WordPieceTokenizer(std::move(config)));
}

}  // namespace

StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceTokenizerJson(const TokenizerOptions& options,
                                                                std::string_view json,
                                                                std::string_view source) {
  return LoadWordPieceParsedTokenizerJson(options, ParseTokenizerJsonText(json), source);
}

StatusOr<std::unique_ptr<Tokenizer>> LoadWordPieceParsedTokenizerJson(
    const TokenizerOptions& options, const ParsedTokenizerJson& json, std::string_view source) {
  try {
    return ParseTokenizerJson(options, json, source);
  } catch (const std::exception& e) {  // nlohmann type errors on unexpected field types
    return Status::InvalidArgument(std::string(source) + ": unexpected tokenizer.json content (" +
                                   e.what() + ")");
  }
}

}  // namespace tokenmill
