// tokenmill tokenize --tokenizer PATH [options] [--ids|--tokens] [FILE]
//
// One output line per input line (split on '\n' only): a compact JSON array of ids, or of token
// strings with --tokens. No special tokens are added.

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

#include "tokenmill/base/utf8.h"
#include "tokenmill/cli/command.h"
#include "tokenmill/io/mapped_file.h"
#include "tokenmill/storage/storage.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill::cli {
namespace {

struct TokenizeArgs {
  std::string tokenizer;
  std::string merges;
  std::string encoding;
  std::string lowercase;
  std::string strip_accents;
  std::string handle_chinese_chars;
  std::string clean_text;
  int max_input_chars_per_word = 0;
  std::string split_special_tokens = "true";
  std::string compat = "huggingface";
  bool ids = false;
  bool tokens = false;
  size_t piece_bytes = size_t{1} << 20;
  std::string file;
};

StatusOr<TokenizerOptions> BuildOptions(const TokenizeArgs& a) {
  TokenizerOptions o;
  o.path = a.tokenizer;
  if (!a.merges.empty()) o.merges = a.merges;
  if (!a.encoding.empty()) o.encoding = a.encoding;
  auto opt_bool = [](const std::string& v, std::optional<bool>* out) -> Status {
    if (v.empty()) return Status::Ok();
    TM_ASSIGN_OR_RETURN(bool b, ParseBool(v));
    *out = b;
    return Status::Ok();
  };
  TM_RETURN_IF_ERROR(opt_bool(a.lowercase, &o.lowercase));
  TM_RETURN_IF_ERROR(opt_bool(a.strip_accents, &o.strip_accents));
  TM_RETURN_IF_ERROR(opt_bool(a.handle_chinese_chars, &o.handle_chinese_chars));
  TM_RETURN_IF_ERROR(opt_bool(a.clean_text, &o.clean_text));
  if (a.max_input_chars_per_word > 0) o.max_input_chars_per_word = a.max_input_chars_per_word;
  TM_ASSIGN_OR_RETURN(o.split_special_tokens, ParseBool(a.split_special_tokens));
  TM_ASSIGN_OR_RETURN(o.compat, ParseCompatMode(a.compat));
  return o;
}

// Standard output through a buffer that ids are written into in place.
class LineWriter {
 public:
  // Small enough that the buffer stays in the cache beside the tokenizer's tables.
  static constexpr size_t kFlushBytes = size_t{64} << 10;
  // What Room() guarantees: one span of ids (AppendIdSpan).
  static constexpr size_t kRoomBytes = size_t{48} << 10;
  ~LineWriter() { Flush(); }
  void Append(std::string_view text) {
    if (size_ + text.size() > kCapacity) Flush();
    if (text.size() > kCapacity) {
      std::fwrite(text.data(), 1, text.size(), stdout);
      return;
    }
    std::memcpy(buf_.get() + size_, text.data(), text.size());
    size_ += text.size();
  }
  // kRoomBytes of room at the end of the buffer; Commit(end) keeps what was written up to end.
  char* Room() {
    if (size_ + kRoomBytes > kCapacity) Flush();
    return buf_.get() + size_;
  }
  void Commit(const char* end) { size_ = static_cast<size_t>(end - buf_.get()); }
  void MaybeFlush() {
    if (size_ >= kFlushBytes) Flush();
  }
  void Flush() {
    if (size_ != 0) std::fwrite(buf_.get(), 1, size_, stdout);
    size_ = 0;
  }

 private:
  static constexpr size_t kCapacity = kFlushBytes + kRoomBytes;
  std::unique_ptr<char[]> buf_{new char[kCapacity]};
  size_t size_ = 0;
};

// The decimal digits of v at p (room for 10); returns the end. Token ids are mostly 3 to 6
// digits: two digits at a time from a table, the length found by comparisons.
char* WriteDecimal(char* p, uint32_t v) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  int n = v < 10        ? 1
          : v < 100     ? 2
          : v < 1000    ? 3
          : v < 10000   ? 4
          : v < 100000  ? 5
          : v < 1000000 ? 6
                        : 0;
  if (n == 0) return std::to_chars(p, p + 10, v).ptr;
  char* end = p + n;
  char* q = end;
  while (v >= 100) {
    q -= 2;
    std::memcpy(q, kPairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    q -= 2;
    std::memcpy(q, kPairs + 2 * v, 2);
  } else {
    *--q = static_cast<char>('0' + v);
  }
  return end;
}

// The text ",<decimal>" of every id below the vocabulary's size (at most 10^6: up to 7 bytes),
// in 8 bytes (little-endian, the comma first) whose last byte is its length: printing an id is one
// load and one 8-byte copy (the length byte lands past the text, where the next id goes).
class IdTexts {
 public:
  explicit IdTexts(uint32_t vocab_size) {
    const uint32_t n = std::min<uint32_t>(vocab_size, 1000000);  // <= 6 digits
    text_.resize(n);
    for (uint32_t id = 0; id < n; ++id) {
      char buf[16] = {','};
      const char* end = WriteDecimal(buf + 1, id);
      uint64_t text = 0;
      std::memcpy(&text, buf, 7);
      text_[id] = text | static_cast<uint64_t>(end - buf) << 56;
    }
  }
  // Writes the ids at p, each after a comma but the first when `first`, with 11 bytes of room
  // an id and 8 more; returns the end. (The table's pointer in a local: the compiler would
  // otherwise load it again after every store through p, which may alias it.)
  char* Write(char* p, std::span<const uint32_t> ids, bool first) const {
    const uint64_t* const text = text_.data();
    const size_t known = text_.size();
    if (first && !ids.empty()) {
      const uint32_t id = ids[0];
      if (id >= known) {
        p = WriteDecimal(p, id);
      } else {
        const uint64_t t = text[id] >> 8;  // without the comma
        std::memcpy(p, &t, 8);
        p += (t >> 48) - 1;
      }
      ids = ids.subspan(1);
    }
    for (const uint32_t id : ids) {
      if (id >= known) {
        *p++ = ',';
        p = WriteDecimal(p, id);
      } else {
        const uint64_t t = text[id];
        std::memcpy(p, &t, 8);
        p += t >> 56;
      }
    }
    return p;
  }

 private:
  std::vector<uint64_t> text_;
};

// Writes ids into a JSON array line (`*first`: none written yet), 4096 at a time into the
// writer's buffer, flushed as it fills (a huge line's text never builds up).
void AppendIdSpan(std::span<const uint32_t> ids, const IdTexts& texts, bool* first,
                  LineWriter* out) {
  constexpr size_t kStep = 4096;
  static_assert(11 * kStep + 8 <= LineWriter::kRoomBytes);
  for (size_t begin = 0; begin < ids.size(); begin += kStep) {
    const size_t count = std::min(kStep, ids.size() - begin);
    out->Commit(texts.Write(out->Room(), ids.subspan(begin, count), *first));
    *first = false;
    out->MaybeFlush();
  }
}

int RunTokenize(const TokenizeArgs& args) {
  auto options = BuildOptions(args);
  if (!options.ok()) return ReportError(options.status());
  auto tokenizer = LoadTokenizerFromStorage(*options);
  if (!tokenizer.ok()) return ReportError(tokenizer.status());
  const Tokenizer& tok = **tokenizer;
  const InvalidUtf8 policy =
      tok.kind() != TokenizerKind::kWordPiece ? InvalidUtf8::kReplace : InvalidUtf8::kDrop;

  std::unique_ptr<ReadStream> stream;
  FILE* in = nullptr;
  std::unique_ptr<MappedFile> mapped;
  if (args.file.empty() || args.file == "-") {
    in = stdin;
  } else if (!IsUrl(args.file) && (mapped = MappedFile::Open(args.file))) {
    // A local file is read in place (no copy into a buffer); the stream below is the fallback.
  } else {
    auto storage = StorageFor(args.file);
    if (!storage.ok()) return ReportError(storage.status());
    auto opened = (*storage)->OpenRead(args.file);
    if (!opened.ok()) return ReportError(opened.status());
    stream = std::move(opened).value();
  }
  LineWriter out;
  const IdTexts id_texts(args.tokens ? 0 : tok.vocab_size());
  std::vector<uint32_t> ids;
  std::string pending;
  std::string clean;
  // Read straight onto the end of `pending`, in reads small enough to stay in the cache.
  constexpr size_t kReadBytes = size_t{64} << 10;
  bool chunk_valid = false;  // the lines being emitted are valid UTF-8 as they are
  auto emit = [&](std::string_view line) {
    std::string_view text = line;
    // Lines of a buffer found valid as a whole, or valid on their own, are encoded as they are
    // (no copy of a huge line).
    if (!chunk_valid && FindInvalidUtf8(line) != std::string_view::npos) {
      clean.clear();
      AppendValidUtf8(line, policy, &clean);
      text = clean;
    }
    bool first = true;
    if (!args.tokens && args.piece_bytes > 0 && text.size() > args.piece_bytes) {
      out.Append("[");
      tok.EncodeInPieces(text, args.piece_bytes, [&](std::span<const uint32_t> piece) {
        AppendIdSpan(piece, id_texts, &first, &out);
      });
      out.Append("]\n");
      out.MaybeFlush();
      return;
    }
    ids.clear();
    tok.EncodeValidUtf8(text, &ids);  // `text` was checked above
    if (args.tokens) {
      nlohmann::json arr = nlohmann::json::array();
      for (uint32_t id : ids) arr.push_back(std::string(tok.IdToToken(id)));
      out.Append(arr.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      out.Append("\n");
    } else {
      out.Append("[");
      AppendIdSpan(ids, id_texts, &first, &out);
      out.Append("]\n");
    }
    out.MaybeFlush();
  };
  // Whole lines (the text up to a newline, which is not included), validated at once: almost all
  // text is valid.
  auto emit_lines = [&](std::string_view lines) {
    chunk_valid = FindInvalidUtf8(lines) == std::string_view::npos;
    size_t start = 0;
    for (size_t nl; (nl = lines.find('\n', start)) != std::string_view::npos; start = nl + 1) {
      emit(lines.substr(start, nl - start));
    }
    emit(lines.substr(start));
  };
  if (mapped) {
    // Whole lines at a time, about kReadBytes of them (a longer line whole), each span validated
    // once; the pages behind are given back as it goes, so the resident set stays small.
    const std::string_view text = mapped->text();
    size_t pos = 0;
    size_t released = 0;
    size_t populated = mapped->Populate(0);
    while (pos < text.size()) {
      const size_t limit = std::min(text.size(), pos + kReadBytes) - 1;
      size_t nl = text.rfind('\n', limit);
      if (nl == std::string_view::npos || nl < pos) nl = text.find('\n', limit + 1);
      if (nl == std::string_view::npos) break;  // the last line, without a newline
      emit_lines(text.substr(pos, nl - pos));
      pos = nl + 1;
      if (pos - released >= MappedFile::kReleaseBytes) released = mapped->Release(pos);
      if (pos >= populated) populated = mapped->Populate(pos);
    }
    chunk_valid = false;
    if (pos < text.size()) emit(text.substr(pos));
    return kExitOk;
  }
  for (;;) {
    size_t n = 0;
    const size_t old_size = pending.size();
    pending.resize(old_size + kReadBytes);
    char* const into = pending.data() + old_size;
    if (in != nullptr) {
      n = std::fread(into, 1, kReadBytes, in);
    } else {
      auto r = stream->Read(into, kReadBytes);
      if (!r.ok()) return ReportError(r.status().WithContext(args.file));
      n = *r;
    }
    pending.resize(old_size + n);
    if (n == 0) break;
    // The whole lines of the buffer. Only the new bytes can hold a newline: a huge line is not
    // searched again each time it grows.
    const size_t new_nl = std::string_view(pending).substr(old_size).rfind('\n');
    if (new_nl == std::string_view::npos) continue;
    const size_t last_nl = old_size + new_nl;
    emit_lines(std::string_view(pending).substr(0, last_nl));
    pending.erase(0, last_nl + 1);
  }
  chunk_valid = false;
  if (!pending.empty()) emit(pending);
  return kExitOk;
}

}  // namespace

void AddTokenizeCommand(CLI::App& app, CommandAction* action) {
  auto a = std::make_shared<TokenizeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "tokenize", "Tokenize text: one JSON array of ids (or tokens) per input line");
  cmd->add_option("--tokenizer", a->tokenizer,
                  "vocab.txt, tokenizer.json, encoder.json or a .tiktoken file")
      ->required();
  cmd->add_option("--merges", a->merges, "GPT-2 merges (default: vocab.bpe beside encoder.json)");
  cmd->add_option("--encoding", a->encoding, "tiktoken encoding (cl100k_base, o200k_base, ...)");
  cmd->add_option("--lowercase", a->lowercase, "WordPiece: lowercase (true|false)");
  cmd->add_option("--strip-accents", a->strip_accents, "WordPiece: strip accents (true|false)");
  cmd->add_option("--handle-chinese-chars", a->handle_chinese_chars,
                  "WordPiece: spaces around CJK ideographs (true|false)");
  cmd->add_option("--clean-text", a->clean_text, "WordPiece: clean text (true|false)");
  cmd->add_option("--max-input-chars-per-word", a->max_input_chars_per_word,
                  "WordPiece: longer words become [UNK]");
  cmd->add_option("--split-special-tokens", a->split_special_tokens,
                  "true (default): special tokens in text are plain text");
  cmd->add_option("--compat", a->compat, "huggingface (default), google-bert or google-electra");
  auto* ids = cmd->add_flag("--ids", a->ids, "print ids (default)");
  cmd->add_flag("--tokens", a->tokens, "print token strings")->excludes(ids);
  cmd->add_option("--piece-bytes", a->piece_bytes,
                  "a longer line is encoded and printed in pieces of about this many bytes, cut "
                  "where the tokenizer keeps the ids (bounded memory); 0: whole lines");
  cmd->add_option("file", a->file, "input file (default: standard input)");
  cmd->callback([a, action] { *action = [a] { return RunTokenize(*a); }; });
}

}  // namespace tokenmill::cli
