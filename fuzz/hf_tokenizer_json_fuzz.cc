// Fuzz target: the general tokenizer.json loader (added tokens, normalizers, pre-tokenizers,
// BPE / Unigram / WordLevel models) and, when a file loads, its encode pipeline. Input: a flag
// byte (bit 0: split_special_tokens false), then the file. Checks: a file that does not load is
// InvalidArgument naming the file; one that loads encodes sample texts (and the input's own bytes
// as text) into ids below its vocabulary size, the same ids twice, and the same ids again when
// handed out in pieces (EncodeInPieces with pieces of 1 and 7 bytes: every cut the pipeline
// allows itself is tried), and every id of the vocabulary decodes.

#include <algorithm>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokenmill;
  const uint8_t flags = size > 0 ? data[0] : 0;
  const std::string file =
      size > 0 ? std::string(reinterpret_cast<const char*>(data) + 1, size - 1) : std::string();
  TokenizerOptions options;
  options.path = "fuzz-tokenizer.json";
  options.split_special_tokens = (flags & 1) == 0;
  auto tokenizer = LoadTokenizer(options, {{"main", "fuzz-tokenizer.json", file}});
  if (!tokenizer.ok()) {
    if (!tokenizer.status().Is(StatusCode::kInvalidArgument)) std::abort();
    if (tokenizer.status().message().find("fuzz-tokenizer.json") == std::string::npos) {
      std::abort();
    }
    return 0;
  }
  const Tokenizer& t = **tokenizer;
  const std::vector<std::string> texts = {"",
                                          " ",
                                          "Hello  world",
                                          "  \xE4\xBD\xA0\xE5\xA5\xBD, 12345 \xF0\x9F\x98\x80 ",
                                          "\xE2\x96\x81\xE2\x96\x81x\t\n",
                                          "<s> </s> <unk> hi</s>hi",
                                          std::string("\xFF\xC3", 2),
                                          file.substr(0, 512)};
  for (const std::string& text : texts) {
    std::vector<uint32_t> ids;
    std::vector<uint32_t> again;
    t.Encode(text, &ids);
    t.Encode(text, &again);
    if (ids != again) std::abort();
    for (size_t piece_bytes : {size_t{1}, size_t{7}}) {
      std::vector<uint32_t> pieces;
      t.EncodeInPieces(text, piece_bytes, [&](std::span<const uint32_t> p) {
        if (p.empty()) std::abort();
        pieces.insert(pieces.end(), p.begin(), p.end());
      });
      if (pieces != ids) std::abort();
    }
    for (uint32_t id : ids) {
      if (id >= t.vocab_size()) std::abort();
    }
    (void)t.Decode(ids);
  }
  // Every id decodes, whatever its token's text (the first 4096, for speed).
  std::vector<uint32_t> all(std::min<size_t>(t.vocab_size(), 4096));
  for (size_t id = 0; id < all.size(); ++id) all[id] = static_cast<uint32_t>(id);
  (void)t.Decode(all);
  return 0;
}
