// HF tokenizers' added vocabulary (tokenizer/added_vocabulary.rs): the tokens of tokenizer.json's
// "added_tokens" found in the text before the model runs. Tokens with normalized: false are found
// in the raw text, those with normalized: true in each normalized segment, by their normalized
// form. Matching is leftmost-longest and non-overlapping; single_word, lstrip and rstrip as HF.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/byte_set.h"

namespace tokenmill::hf {

struct AddedToken {
  std::string content;  // what is matched (for normalized tokens: the normalized form)
  uint32_t id = 0;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool special = false;
};

// One set of tokens matched together (a byte trie).
class AddedTokenMatcher {
 public:
  // `skip_special`: special tokens are matched but then left as text (HF encode_special_tokens).
  void Add(AddedToken token);
  void set_skip_special(bool v) { skip_special_ = v; }
  bool empty() const { return tokens_.empty(); }

  struct Split {
    size_t start;
    size_t end;
    int64_t id;  // -1: text
  };
  // Cuts `text` into text and token splits covering it (empty text splits omitted).
  void Find(std::string_view text, std::vector<Split>* splits) const;

 private:
  struct Node {
    int32_t token = -1;  // index into tokens_ of the token ending here
    std::vector<std::pair<unsigned char, int32_t>> next;
  };
  int32_t Child(int32_t node, unsigned char b) const;
  std::vector<AddedToken> tokens_;
  std::vector<Node> nodes_{Node{}};
  ByteSet first_bytes_;  // of the tokens' contents
  bool skip_special_ = false;
};

}  // namespace tokenmill::hf
