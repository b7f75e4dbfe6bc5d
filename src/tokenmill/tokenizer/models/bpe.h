// The merge step of byte-level BPE: a piece of bytes (one pre-token) to token ids.
//
// Two rules decide which adjacent pair merges next; in both the pair with the lowest priority
// merges first and, among equals, the leftmost:
//   kRanks  (tiktoken): a pair merges if its concatenated bytes are a token; its priority is that
//           token's rank (= id). A piece that is itself a token is that token, before any merge.
//   kMerges (GPT-2 encoder.py, HF tokenizers BPE): a pair merges if it is in the merges list; its
//           priority is its line there (a later duplicate line wins, as in both references).
//           Unless `ignore_merges`, a piece that is itself a token is only taken whole if merging
//           its bytes gives that token (computed at load), so results never differ from merging.
// Both rules are implemented on one pair table (left id, right id) -> (priority, result id): for
// kRanks it holds the one split of each token that merging can form (the last merge of the
// token's own bytes; see Finish()). The table packs a pair into 8
// bytes, and a Bloom filter in front of it answers most look-ups (about 70% of the pairs looked
// up do not merge); pairs of two single bytes come from a 256 x 256 array. Short pieces merge
// with a linear scan (as tiktoken; shifting the arrays costs less than linking them at these
// lengths); long ones with a heap of 8-byte candidates, O(n log n) in the piece length, or the
// bucket queue (kQueueMinBytes). Merged pieces of up to 22
// bytes are remembered in a bounded per-thread cache (4096 entries), which returns exactly what
// merging would.
// Exact split: every merge result is a token whose bytes are a substring of the piece, so a
// position inside the piece that no token occurring there spans is never crossed by a merge, and
// the parts between such positions merge independently (for both rules: among the pairs of one
// part, the lowest priority and leftmost pair is the one the whole piece merges next). A piece
// longer than kLinearMergeMaxBytes is cut there (found with an upper bound on the length of the
// tokens starting at each byte, from a table of 3-byte token prefixes), and its parts merge on
// their own (short ones through the cache) instead of in one heap. Used only when every merge
// result is the concatenation of its two parts (Finish() checks; HF's continuing_subword_prefix
// is not).
// Backtracking encoder (as the backtrack encoder of github.com/github/rust-gems' bpe crate): the
// merge's result is the one sequence of tokens whose bytes each merge to the token itself and
// whose adjacent pairs are each valid, a pair (a, b) valid when merging bytes(a) + bytes(b)
// gives [a, b] (no merge across the boundary wins before both are formed). When a piece first
// needs them (not in Finish(): about 200 M instructions for cl100k_base), the model records for
// every token the last merge of its own bytes (its split, and that merge's priority), the
// longest shorter prefix token, and a trie of the tokens (single bytes and 2-byte prefixes
// direct, deeper ones hashed by (node, byte)). The validity test walks the right edge of a's
// split tree and the left edge of b's, the later formed first, looking the pair across up in
// the pair table. The encoder takes the longest prefix token at each position, shortens it
// until the pair with the previous token is valid and its end is not marked dead, and else goes
// back one token and marks the position dead; the tokens found so far go straight to the
// output, the marks are kept for a sliding window of 2^20 positions (128 KiB), so a piece of any
// length is encoded in that memory beyond its ids (a mark that slid out is forgotten: at worst
// repeated work, never other ids). Exact where the merge of every token's bytes goes in rising
// priority (each split's parts formed at lower priorities than the token: true of the gpt2,
// cl100k_base and o200k_base ranks; checked then, backtracks() says) and merge results are
// concatenations with a token for each of the 256 bytes, for both rules. kAuto uses it for
// pieces of kBacktrackMinBytes or more once its tables are built (see kBacktrackBuildBytes; runs
// of one letter: 5-7x the heap), and the cache and the linear merge below (as fast on the shared
// corpus).
// Limits: ids below 2^21 - 1, at most 2^22 - 1 pairs (Finish() says so). Thread-safety:
// immutable after Finish(); EncodePiece() may run on many threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"

namespace tokenmill::bpe {

enum class MergeRule { kRanks, kMerges };

class BpeModel {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // Pieces of at most this many bytes merge with the linear scan.
  static constexpr size_t kLinearMergeMaxBytes = 64;
  // Room past the end of the linear merge's arrays (their shifts move 16 bytes at a time).
  static constexpr size_t kLinearSlack = 4;
  // kAuto merges pieces (or parts of them) of this many bytes or more with a bucket queue first:
  // in a trained vocabulary a merge creates pairs of later priorities only, so the pairs of one
  // priority can be taken in position order, each bucket once (linear in practice, and 8 bytes a
  // byte less than the heap). A merge that creates an earlier pair hands the rest to the heap.
  static constexpr size_t kQueueMinBytes = 4096;
  // kAuto encodes pieces of this many bytes or more with the backtracking encoder where it
  // applies (backtracks()); shorter ones go through the cache and the linear merge.
  static constexpr size_t kBacktrackMinBytes = 65;
  // kAuto encodes pieces of this many bytes up to kCharacterwiseMaxBytes that start with a
  // character of 3 or 4 bytes (CJK runs) character by character, where merge results are the
  // concatenation of their parts and every byte has a token: each character (and each run of
  // other bytes) merged on its own, through the cache. Each cut between two parts must then be
  // one the merge never crosses: CutIsClear shows that no token spans it (the exact split's
  // argument), or the pair across it, two regular tokens (see BuildValidPairs), is valid
  // (IsValidPair), and the joined encodings are the piece's by the lemma the backtracking
  // encoder rests on (a sequence of tokens whose bytes each merge to themselves, with every
  // adjacent pair valid, is the merge's result). Otherwise (a token spans the cut: under 1% of
  // the cuts in Chinese text with cl100k_base, more with vocabularies of Chinese words; or an
  // irregular token beside a cut the filter cannot clear, in Llama-3's vocabulary) the parts on
  // both sides are joined, merged again as one.
  static constexpr size_t kCharacterwiseMinBytes = 6;
  // (The characters of 3 bytes come from a table of the merges of all 65,536 such sequences,
  // made with the pairs' tables: 512 KiB, about 10 ms with cl100k_base, more where the splits of
  // every token must first be merged (a tokenizer.json: 60 ms for Qwen3). A job pays for them
  // once such pieces add up to kCharacterwiseBuildBytes; until then they merge as others do.)
  static constexpr size_t kCharacterwiseBuildBytes = 64 * 1024;
  static constexpr size_t kCharacterwiseMaxBytes = 4096;
  // kAuto builds the backtracking encoder's tables (about 60 M instructions, 30 ms, for
  // cl100k_base) once a piece of kBacktrackBuildBytes or more comes, or once the pieces of
  // kBacktrackMinBytes or more merged without them add up to kBacktrackBuildTotalBytes; until
  // then those merge as shorter ones do. (The merges cost some 370 instructions a byte of the
  // shared corpus's table borders, the backtracking encoder 320 once built: the build pays for
  // itself after about 1 MB of such pieces. The corpus's 340 KB never build the tables.)
  static constexpr size_t kBacktrackBuildBytes = 64 * 1024;
  static constexpr size_t kBacktrackBuildTotalBytes = 1024 * 1024;
  // Pieces of this many bytes or more (4 GiB) are encoded in chunks of kMaxPieceBytes - 1 bytes.
  static constexpr size_t kMaxPieceBytes = size_t{1} << 32;

  explicit BpeModel(MergeRule rule);
  BpeModel(BpeModel&&) = default;
  BpeModel& operator=(BpeModel&&) = default;

  // Adds a token. Errors (for the caller to put in context): the bytes or the id already exist,
  // the bytes are empty, or the id is kNone.
  Status AddToken(std::string_view bytes, uint32_t id);

  // Prepares for about `tokens` tokens (optional; saves rehashing).
  void Reserve(size_t tokens);
  // Starts fetching the part of the token table where `bytes` would be found or added: a hint
  // that lets a loader overlap the cache misses of its next look-ups (no effect on results).
  void Prefetch(std::string_view bytes) const;

  // kMerges only: adds the next merge line. Error if an id is unknown or the concatenation is not a
  // token.
  Status AddMerge(uint32_t left, uint32_t right);
  // kMerges only: adds the next merge line with its result given (HF's continuing_subword_prefix:
  // the result is not the plain concatenation). Error if an id is unknown.
  // `priority` (default: the line's index) lets several lines share one priority when they have
  // the same result (SentencePiece BPE: a piece's score ranks every split of it).
  Status AddMergeWithResult(uint32_t left, uint32_t right, uint32_t result,
                            uint32_t priority = kNone);
  // Skips the take-whole table of kMerges (for models that call MergeIds only).
  void set_ids_only(bool v) { ids_only_ = v; }

  // kMerges: HF's ignore_merges (a piece that is a token is always taken whole). Default: false.
  void set_ignore_merges(bool v);
  // kMerges: the id that a byte without a token becomes (HF's unk_token). Default: none (the
  // byte is dropped, as HF does without an unk token).
  void set_unknown_id(std::optional<uint32_t> id);

  // Builds the lookup tables. kRanks requires a token for every one of the 256 bytes.
  // REQUIRES: every token and merge added.
  Status Finish();

  // How a piece that is not taken whole is merged. kAuto: the characterwise encoder for pieces
  // that start with a wide character (see kCharacterwiseMinBytes); the backtracking encoder for
  // pieces of kBacktrackMinBytes or more where backtracks() (see kBacktrackBuildBytes); else the
  // cache, the exact split of long pieces, linear up to kLinearMergeMaxBytes, heap above. kLinear
  // (pieces up to kLinearMergeMaxBytes only, heap above) and kHeap merge the whole piece, with
  // neither cache nor split. (For tests and benchmarks; all give the same ids.) kBacktrack: the
  // backtracking encoder (see above) on the whole piece, without the cache; where backtracks() is
  // false it merges as kAuto.
  enum class Algorithm { kAuto, kLinear, kHeap, kBacktrack };

  // Whether the backtracking encoder applies to this model (see above). After Finish().
  // (Builds the encoder's tables if no piece has yet: they are built on first use.)
  bool backtracks() const { return EnsureBacktrack(); }
  // The backtracking encoder's window of marks, in positions (default 2^20; at least 8 times
  // the longest token + 256 is used). Smaller ones only for tests: they slide on short pieces.
  void set_backtrack_window(size_t positions) { backtrack_window_ = positions; }

  // Tests: how many tokens the validity test does not answer for, as their merges do not rise
  // in priority (see BuildValidPairs; Llama-3: 107 of 128,000). Builds the splits if needed.
  size_t irregular_tokens() const {
    EnsureValidPairs();
    return irregular_tokens_;
  }
  // Tests: the characterwise encoder's tables are built once the pieces that would use them add
  // up to this many bytes (default kCharacterwiseBuildBytes; 0: at the first).
  void set_characterwise_build_bytes(size_t bytes) { characterwise_build_bytes_ = bytes; }

  // Whether kAuto cuts long pieces at positions no token spans (see above). After Finish().
  bool splits_long_pieces() const { return split_ok_; }

  // Appends the ids of `piece` to *ids. REQUIRES: Finish() succeeded.
  void EncodePiece(std::string_view piece, std::vector<uint32_t>* ids,
                   Algorithm algorithm = Algorithm::kAuto) const;
  // EncodePiece (kAuto) of each piece in turn. Each piece's look-up in the token table starts
  // a few pieces early (its hash computed, its slot prefetched), so that the table's cache
  // misses overlap instead of stalling the encoder one after the other. `within`, when not
  // empty, is a text that holds every piece: short pieces are then read 8 bytes at a time
  // where those 8 bytes lie in it.
  void EncodePieces(std::span<const std::string_view> pieces, std::vector<uint32_t>* ids,
                    std::string_view within = {}) const;

  // The ids of a piece of any length in bounded memory: appends them to *ids as EncodePiece does,
  // but where the backtracking encoder encodes the piece, hands the ids the search has left far
  // behind (2^19 positions by default) to `flush` as it goes, each time with everything *ids held
  // before them, and removes them from *ids; the rest stay in *ids. `flush` may be empty (the ids
  // are dropped: a dry run). Returns false if the search had to go back over ids it had handed
  // out (never seen on real vocabularies and text: it goes back a few tokens); the ids handed out
  // are then not all the piece's and *ids holds a part of them: the caller drops both and
  // encodes the piece with EncodePiece. The search is deterministic: a dry run that returns true
  // says that the same call with a flush will.
  using IdFlush = std::function<void(std::span<const uint32_t> ids)>;
  bool EncodePieceStreaming(std::string_view piece, std::vector<uint32_t>* ids,
                            const IdFlush& flush) const;
  // Tests: how far behind the search EncodePieceStreaming hands ids out, in positions (at most
  // half the window is used; small ones lose the search where it goes back a few tokens).
  void set_commit_lag_for_testing(size_t positions) { commit_lag_ = positions; }

  // Merges a sequence of token ids (HF's Word::merge_all): repeatedly the adjacent pair with the
  // lowest priority, among equals the leftmost; appends the result to *ids (kNone parts are
  // skipped). REQUIRES: Finish() succeeded.
  void MergeIds(std::span<const uint32_t> parts, std::vector<uint32_t>* ids) const;

  // The id of the token with exactly these bytes, or kNone.
  uint32_t Find(std::string_view bytes) const;
  // The bytes of token `id`; empty if there is none.
  std::string_view Bytes(uint32_t id) const;
  // One past the largest token id (0 if none).
  uint32_t id_limit() const { return static_cast<uint32_t>(spans_.size()); }
  size_t token_count() const { return token_count_; }
  size_t pair_count() const { return pair_count_; }
  MergeRule rule() const { return rule_; }

 private:
  struct Span {
    uint32_t offset = 0;
    uint32_t length = 0;  // 0: no token with this id
  };
  // A token in the lookup table. Tokens of up to 8 bytes are compared inline (one memory access
  // per probe); longer ones by hash tag, then against the arena.
  struct TokenSlot {
    uint64_t data = 0;  // length <= 8: the bytes, zero-padded; else offset | hash tag << 32
    uint32_t id = kNone;
    uint32_t length = 0;
  };
  // The pair table packs a pair into 8 bytes (half the cache footprint of separate fields):
  // left id << 43 | right id << 22 | priority. Ids must be below 2^21 - 1, priorities below 2^22.
  static constexpr int kPriorityBits = 22;
  static constexpr uint64_t kPriorityMask = (uint64_t{1} << kPriorityBits) - 1;
  static constexpr uint64_t kEmptyPair = UINT64_MAX;
  struct Pair {
    uint32_t priority = kNone;  // kNone: the pair does not merge
    uint32_t result = kNone;
  };
  // Room for the linear merge's pairs, left uninitialized: an array of Pair would write every
  // element's default (68 pairs a merge, a quarter of the instructions of building the pair
  // table). Pair is an implicit-lifetime type, so the storage holds a Pair once one is written.
  struct LinearPairs {
    alignas(Pair) unsigned char storage[(kLinearMergeMaxBytes + kLinearSlack) * sizeof(Pair)];
    Pair* get() { return std::launder(reinterpret_cast<Pair*>(storage)); }
  };

  static uint64_t HashBytes(std::string_view bytes);
  // HashBytes of n <= 8 bytes whose little-endian value, zero-extended, is `word`.
  static uint64_t HashShort(uint64_t word, size_t n);
  // EncodePiece of a piece of 2 to kMaxPieceBytes - 1 bytes whose HashBytes is `hash`.
  void EncodeHashed(std::string_view piece, uint64_t hash, std::vector<uint32_t>* ids,
                    Algorithm algorithm) const;
  // The Bloom filters (pair_filter_, wide_token_filter_, char_pairs_): a key's two bits lie in
  // one 64-bit word, which its hash picks (a power of 2 of them, at least bits_per_key bits a
  // key), so a look-up reads one word.
  static std::vector<uint64_t> EmptyFilter(size_t keys, size_t bits_per_key) {
    size_t words = 1;
    while (words * 64 < bits_per_key * keys) words *= 2;
    return std::vector<uint64_t>(words, 0);
  }
  static uint64_t FilterBits(uint64_t hash) {
    return (uint64_t{1} << (hash & 63)) | (uint64_t{1} << ((hash >> 6) & 63));
  }
  static void FilterAdd(std::vector<uint64_t>& filter, uint64_t hash) {
    filter[(hash >> 12) & (filter.size() - 1)] |= FilterBits(hash);
  }
  static bool FilterMayHold(const std::vector<uint64_t>& filter, uint64_t hash) {
    const uint64_t bits = FilterBits(hash);
    return (filter[(hash >> 12) & (filter.size() - 1)] & bits) == bits;
  }
  bool MayHavePair(uint64_t hash) const { return FilterMayHold(pair_filter_, hash); }
  static uint64_t SlotData(std::string_view bytes, uint64_t hash, uint32_t offset);
  uint32_t FindHashed(std::string_view bytes, uint64_t hash) const;
  // FindHashed of `length` <= 8 bytes given as HashShort's `word`.
  uint32_t FindShort(uint64_t word, uint32_t length, uint64_t hash) const;
  Pair LookupPair(uint32_t left, uint32_t right) const;
  void InsertPair(uint32_t left, uint32_t right, uint32_t priority, uint32_t result);
  void InsertToken(uint32_t id);
  void InsertToken(uint32_t id, uint64_t hash);  // hash: HashBytes(Bytes(id))
  // Every id (those without a token too, as length 0) in order of its token's length, shortest
  // first; (*ends)[length] is one past the last id of that length, if ends is not null.
  std::vector<uint32_t> IdsByLength(std::vector<uint32_t>* ends) const;
  bool TakeWhole(uint32_t id) const;
  struct Split;
  // The linear merge of parts[0..m) (pairs[k] the pair of parts k and k + 1); leaves the result
  // in parts[0..r) and returns r; the last merge in *last if not null.
  size_t MergeLinearParts(uint32_t* parts, Pair* pairs, size_t m, Split* last = nullptr) const;
  // MergeLinearParts from the single bytes of `bytes` (at most kLinearMergeMaxBytes) into
  // parts[0..r) (room for kLinearMergeMaxBytes + kLinearSlack); returns r.
  size_t MergeBytesLinear(std::string_view bytes, uint32_t* parts, Split* last = nullptr) const;
  void MergeLinear(std::string_view piece, std::vector<uint32_t>* ids) const;
  void MergeHeap(std::string_view piece, std::vector<uint32_t>* ids) const;
  // The merge of parts[0..n), pairs[k] the pair of parts k and k + 1 (pairs.size() == n, the last
  // one none), with the bucket queue first if `queue`, else the heap: leaves the result in
  // parts[0..r) and returns r.
  size_t MergeLongParts(std::vector<uint32_t>& parts, std::vector<Pair>& pairs, bool queue) const;
  // The heap merge of a piece (the queue first if `queue`).
  void MergeLong(std::string_view piece, bool queue, std::vector<uint32_t>* ids) const;
  // kAuto's EncodePiece of a piece that MayHaveWideCharacter, the characterwise tables built.
  void EncodeWidePiece(std::string_view piece, uint64_t hash, std::vector<uint32_t>* ids) const;
  // EncodePiece of a piece of 2 bytes or more, but for the characterwise encoder.
  void EncodeUncached(std::string_view piece, uint64_t hash, std::vector<uint32_t>* ids,
                      Algorithm algorithm) const;
  // The same, not inlined (for EncodeWidePiece).
  void EncodeUncachedOutOfLine(std::string_view piece, uint64_t hash, std::vector<uint32_t>* ids,
                               Algorithm algorithm) const;
  // A piece (or a part of one) merged without the whole-token rule: the cache, linear or heap.
  void MergeChunk(std::string_view chunk, uint64_t hash, std::vector<uint32_t>* ids) const;
  void MergeChunk(std::string_view chunk, std::vector<uint32_t>* ids) const;  // hashes it
  // The linear merge through the per-thread cache (pieces of up to 22 bytes).
  void EncodeCached(std::string_view piece, uint64_t hash, std::vector<uint32_t>* ids) const;
  // True if no token can lie across the cut before bytes[cut] within the characters of 3 bytes
  // on both sides of it (the pair of tokens around it is then valid); false if it may, or if the
  // bytes there are not two such characters. An 8 KiB bit table each for the two 3-byte
  // sequences across the cut, and the 2-byte tokens. Where both characters are whole in the
  // piece, a token across the cut either holds both (a word: the pair of characters is looked
  // up in char_pairs_) or only part of one (partial_cut_trigrams_). Of the cuts between Chinese
  // characters in the shared corpus, 0.8% are then not clear with cl100k_base and 4.6% with
  // o200k_base, against 12% and 55% by the sequences alone.
  bool CutIsClear(const unsigned char* bytes, size_t n, size_t cut) const;
  // CutIsClear at a cut between two whole characters of 3 bytes, given by their 16 payload bits.
  bool CharCutIsClear(uint32_t left, uint32_t right) const;
  // Whether some token holds the two characters of 3 bytes, indexed by their 16 payload bits, one
  // after the other (a Bloom filter: true may be wrong).
  bool MayBeCharPairInToken(uint32_t left, uint32_t right) const;
  // IsValidPair through a per-thread memo.
  bool IsValidPairCached(uint32_t a, uint32_t b) const;
  // False if no token of kCharacterwiseMinBytes or more with a wide character has this hash.
  bool MayBeWideToken(uint64_t hash) const;
  // Whether the piece holds a lead byte of a character of 3 or 4 bytes.
  static bool HasWideCharacter(std::string_view piece);
  // Whether one is among its first 4 bytes (pieces of 4 bytes or more): the pieces that go to
  // the characterwise encoder.
  static bool MayHaveWideCharacter(std::string_view piece);
  // Appends the piece's ids and returns true (*joined set if parts were joined), or returns
  // false with *ids as it was if a part grew past kLinearMergeMaxBytes. The ids are written to
  // a per-thread buffer first (a character's 1 to 3 ids without a branch on their number).
  // REQUIRES: characterwise_ok_.
  bool EncodeCharacterwise(std::string_view piece, std::vector<uint32_t>* ids, bool* joined) const;
  // Cuts `piece` at positions no token spans and merges the parts.
  void EncodeSplit(std::string_view piece, std::vector<uint32_t>* ids) const;
  // An upper bound on the length of the tokens that start at bytes[i] (bytes[0..n), i < n).
  size_t TokenReach(const unsigned char* bytes, size_t i, size_t n) const;
  void EmitPart(uint32_t id, std::vector<uint32_t>* ids) const;

  // The backtracking encoder (see above).
  struct Split {
    uint32_t left = kNone;  // the last merge of the token's own bytes: (left, right)
    uint32_t right = kNone;
    uint32_t rank = 0;  // that merge's priority + 1; 0 for a single byte (a leaf)
  };
  // The split of every token (splits_) and whether its bytes merge to itself (usable_).
  void ComputeSplits();
  // kRanks: the pair table of the tokens' own last merges, byte_pairs_, splits_ and usable_.
  void BuildRankPairs();
  // byte_pairs_ from the pair table.
  void FillBytePairs();
  // Builds the split table, the prefix trie and next_prefix_; sets backtrack_ok_.
  void BuildBacktrack();
  // Builds the tables once (thread-safe); returns backtrack_ok_.
  bool EnsureBacktrack() const;
  // The splits and which tokens are regular, their merges rising in priority (valid_pairs_ok_,
  // irregular_): the characterwise encoder and the backtracking one need them.
  // EnsureValidPairs builds them once (thread-safe) and returns valid_pairs_ok_.
  void BuildValidPairs();
  bool EnsureValidPairs() const;
  // char3_, cut_trigrams_ and wide_token_filter_, for the characterwise encoder (sets
  // characterwise_ok_). EnsureCharacterwise counts the bytes of the pieces that would use it,
  // builds them once (after the splits) when these reach kCharacterwiseBuildBytes, and returns
  // whether the encoder is ready and applies (false before).
  void BuildCharacterTables();
  bool EnsureCharacterwise(size_t piece_bytes) const;
  // Tables built on first use: `built` is set (release) once `build` has run under `mu`.
  struct LazyTables {
    std::mutex mu;
    std::atomic<bool> built{false};
  };
  // Runs `build` once for `tables` (thread-safe): the model is immutable to its users; these
  // tables are its own, written under the lock and read only after `built` (acquire).
  void BuildOnce(LazyTables& tables, void (BpeModel::*build)()) const;
  struct BacktrackOnce {
    LazyTables characters;
    std::atomic<uint64_t> wide_bytes{0};  // see kCharacterwiseBuildBytes
    LazyTables valid_pairs;
    LazyTables backtrack;
    std::atomic<uint64_t> long_bytes{0};  // see kBacktrackBuildTotalBytes
  };
  // Whether merge results are the concatenation of their parts and every byte has a token: what
  // the characterwise and backtracking encoders need of any vocabulary.
  bool BytesAndConcatenations() const;
  // kAuto: whether a piece of kBacktrackMinBytes or more goes to the backtracking encoder
  // (building its tables if the time has come, see kBacktrackBuildBytes).
  bool UseBacktrack(size_t piece_bytes) const;
  std::shared_ptr<BacktrackOnce> backtrack_once_ = std::make_shared<BacktrackOnce>();
  // BPE(bytes(a) + bytes(b)) == [a, b], for tokens whose own bytes merge to themselves.
  bool IsValidPair(uint32_t a, uint32_t b) const;
  // Whether irregular_ (not empty) marks `id`.
  bool IsIrregular(uint32_t id) const { return ((irregular_[id / 64] >> (id % 64)) & 1) != 0; }
  // The longest token (whose bytes merge to itself) that is a prefix of bytes[0..n), n >= 1.
  uint32_t LongestPrefix(const unsigned char* bytes, size_t n) const;
  struct TrieSlot {
    uint32_t key = 0;  // (parent node << 8 | byte) + 1; 0: empty (1 in trie2_)
    uint32_t child = kNone;
    uint32_t token = kNone;  // the token whose bytes lead to the child, or kNone
  };
  const TrieSlot* TrieChild(uint32_t node, unsigned char byte) const;
  // Returns false only with a flush (see EncodePieceStreaming).
  bool EncodeBacktrack(std::string_view piece, std::vector<uint32_t>* ids, size_t window,
                       const IdFlush* flush) const;

  MergeRule rule_;
  // Tells this model's entries in the per-thread piece cache apart; a new one with every change
  // of settings, so no entry outlives the settings it was merged with.
  uint32_t serial_;
  bool ignore_merges_ = false;
  bool ids_only_ = false;
  std::optional<uint32_t> unknown_id_;
  bool finished_ = false;

  std::string arena_;        // bytes of every token
  std::vector<Span> spans_;  // by id
  size_t token_count_ = 0;
  std::vector<TokenSlot> token_slots_;  // open addressing, power-of-two size
  struct MergeLine {
    uint32_t left, right, result;
    uint32_t priority;  // kNone: the index of the line
  };
  std::vector<MergeLine> merges_;     // kMerges, in order
  std::vector<uint64_t> pair_slots_;  // open addressing, power-of-two size
  // A Bloom filter over the pairs (two bits in one 64-bit word per pair, about 8 bits per pair):
  // most looked-up pairs do not merge, and this small array answers those without touching
  // the table.
  std::vector<uint64_t> pair_filter_;
  std::vector<uint32_t> merge_results_;  // kMerges: the result of the merge of each priority
  size_t pair_count_ = 0;
  uint32_t byte_ids_[256];
  std::vector<Pair> byte_pairs_;  // 256 x 256: the pairs of two single-byte tokens, by byte value
  // kMerges: whether merging a token's bytes gives the token itself (kWholeYes or kWholeNo), by
  // id; kWholeUnknown until a piece first asks (TakeWhole). Merging every token's bytes at load
  // was a fifth of loading a 150 K-token tokenizer.json, for ids most jobs never meet whole.
  // Threads may race to fill an entry: each writes the same answer.
  static constexpr uint8_t kWholeUnknown = 0, kWholeYes = 1, kWholeNo = 2;
  mutable std::unique_ptr<std::atomic<uint8_t>[]> whole_state_;
  bool ComputeWhole(uint32_t id) const;
  // The exact split (see above): whether it applies; for every 3-byte prefix of a token of 3
  // bytes or more, the longest such token (open addressing: (prefix + 1) << 32 | length, 0 for
  // empty); and the 2-byte tokens, as a bit set by their bytes.
  bool split_ok_ = false;
  std::vector<uint64_t> prefix3_;
  std::vector<uint64_t> token2_bits_;
  // The backtracking encoder: whether it applies; by id, the split and the longest proper prefix
  // that is a token whose bytes merge to itself (kNone for single bytes); the trie of those
  // tokens: the single bytes and the 2-byte prefixes direct, deeper prefixes in open addressing
  // by (parent node, byte); each slot holds the token of its child node, so one probe a byte.
  bool backtrack_ok_ = false;
  // Whether IsValidPair holds for pairs of regular tokens (EnsureValidPairs). The characterwise
  // encoder (EnsureCharacterwise): whether it applies, and the merge of each 3-byte sequence
  // E0..EF 80..BF 80..BF, indexed by its 4 + 6 + 6 payload bits: its 1 to 3 ids plus one, 21
  // bits each, the first in the lowest bits.
  static constexpr uint64_t kChar3IdMask = (uint64_t{1} << 21) - 1;
  bool valid_pairs_ok_ = false;
  // The tokens IsValidPair cannot answer for (see BuildValidPairs), a bit by id; empty when
  // every token is regular.
  std::vector<uint64_t> irregular_;
  size_t irregular_tokens_ = 0;
  bool characterwise_ok_ = false;
  std::vector<uint64_t> char3_;
  std::vector<uint64_t> wide_token_filter_;  // see MayBeWideToken
  std::vector<uint64_t> cut_trigrams_;       // see CutIsClear
  // As cut_trigrams_, only those at a cut where the token holds part of a character beside it.
  std::vector<uint64_t> partial_cut_trigrams_;
  std::vector<uint64_t> char_pairs_;  // see MayBeCharPairInToken
  size_t characterwise_build_bytes_ = kCharacterwiseBuildBytes;
  std::vector<Split> splits_;
  std::vector<uint8_t> usable_;
  std::vector<uint32_t> next_prefix_;
  uint32_t trie_root_[256];
  std::vector<TrieSlot> trie2_;
  std::vector<TrieSlot> trie_slots_;
  size_t max_token_length_ = 1;  // of the tokens in the trie
  size_t backtrack_window_ = size_t{1} << 20;
  size_t commit_lag_ = SIZE_MAX;  // EncodePieceStreaming: half the window
};

}  // namespace tokenmill::bpe
