// Fuzz target: the vocab.txt and tiktoken rank-file loaders, through the tokenizer factory.
//
// Flag byte (the input's first byte): bit 0 clear: the rest is a vocab.txt (WordPiece); set: a
// tiktoken rank file named cl100k_base.tiktoken (bit 1 set: o200k_base.tiktoken).
// Checks: no crash; a load error names the file; a loaded tokenizer encodes a fixed text with
// ids below vocab_size() and decodes them.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "tokenmill/tokenizer/tokenizer.h"

namespace {

int FuzzLoaders(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool tiktoken = (data[0] & 1) != 0;
  const std::string name = !tiktoken            ? "vocab.txt"
                           : (data[0] & 2) != 0 ? "o200k_base.tiktoken"
                                                : "cl100k_base.tiktoken";
  tokenmill::TokenizerOptions options;
  options.path = "/fuzz/" + name;
  std::vector<tokenmill::TokenizerFile> files = {
      {"main", name, std::string(reinterpret_cast<const char*>(data) + 1, size - 1)}};
  auto tokenizer = tokenmill::LoadTokenizer(options, files);
  if (!tokenizer.ok()) {
    if (tokenizer.status().message().find(name) == std::string::npos) std::abort();
    return 0;
  }
  std::vector<uint32_t> ids;
  (*tokenizer)->Encode("Hello, world! 你好 ##ing [UNK] <|endoftext|> \xff 123", &ids);
  for (uint32_t id : ids) {
    if (id >= (*tokenizer)->vocab_size()) std::abort();
  }
  (void)(*tokenizer)->Decode(ids);
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzLoaders(data, size);
}
