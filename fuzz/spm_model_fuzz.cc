// Fuzz target: the SentencePiece .model reader (protobuf ModelProto) and, when a model loads,
// its normalizer and Unigram / BPE encoders. Input: the file. Checks: a model that does not load
// is InvalidArgument naming the file; one that loads encodes sample texts (and the input's own
// bytes as text) into ids below its vocabulary size, the same ids twice.

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tokenmill;
  const std::string file(reinterpret_cast<const char*>(data), size);
  TokenizerOptions options;
  options.path = "fuzz.model";
  auto tokenizer = LoadTokenizer(options, {{"main", "fuzz.model", file}});
  if (!tokenizer.ok()) {
    if (!tokenizer.status().Is(StatusCode::kInvalidArgument)) std::abort();
    if (tokenizer.status().message().find("fuzz.model") == std::string::npos) std::abort();
    return 0;
  }
  const Tokenizer& t = **tokenizer;
  const std::vector<std::string> texts = {"",
                                          " ",
                                          "Hello  world",
                                          "  \xE4\xBD\xA0\xE5\xA5\xBD, 12345 \xF0\x9F\x98\x80 ",
                                          "\xE2\x96\x81\xE2\x96\x81x\t\n",
                                          "<s> </s> <unk>",
                                          std::string("\xFF\xC3", 2),
                                          file.substr(0, 512)};
  for (const std::string& text : texts) {
    std::vector<uint32_t> ids;
    std::vector<uint32_t> again;
    t.Encode(text, &ids);
    t.Encode(text, &again);
    if (ids != again) std::abort();
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
