// Fuzz target: `[input] sentences = "split"` (ICU's sentence breaks, the Chinese terminators,
// URLs) over the text reader, on arbitrary bytes. Checks that every sentence line is non-empty,
// valid UTF-8 and stripped of Python whitespace, and that splitting keeps every non-whitespace
// byte of each paragraph, in order.

#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "tokenmill/base/python_space.h"
#include "tokenmill/io/readers.h"
#include "tokenmill/io/sentence_splitter.h"
#include "tokenmill/io/string_stream.h"

namespace tokenmill {
namespace {

// The text without Python whitespace (the splitter only removes whitespace around sentences).
std::string Squeezed(std::string_view text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t space = PythonSpaceLength(text.data() + i, text.size() - i);
    if (space > 0) {
      i += space;
    } else {
      out += text[i++];
    }
  }
  return out;
}

int FuzzSentenceSplitter(const uint8_t* data, size_t size) {
  fuzz::ReaderSetup s = fuzz::DecodeSetup(data, size, InputFormat::kText);
  s.options.split_sentences = true;
  auto reader = OpenDocumentReaderOnStream(
      std::make_unique<StringReadStream>(std::move(s.content), s.read_chunk), "fuzz.txt",
      s.range_begin, s.compression, s.options);
  if (!reader.ok()) std::abort();
  Document doc;
  while (true) {
    StatusOr<bool> r = (*reader)->Next(&doc);
    if (!r.ok()) {
      if (r.status().message().find("fuzz.txt") == std::string::npos) std::abort();
      break;
    }
    if (!*r) break;
    if (doc.text.empty() || FindInvalidUtf8(doc.text) != std::string_view::npos) std::abort();
    size_t pos = 0;
    while (pos <= doc.text.size()) {
      const size_t nl = doc.text.find('\n', pos);
      const std::string_view line = std::string_view(doc.text).substr(
          pos, nl == std::string::npos ? std::string::npos : nl - pos);
      if (line.empty() || PythonStrip(line).size() != line.size()) std::abort();
      if (nl == std::string::npos) break;
      pos = nl + 1;
    }
  }
  // The splitter itself on the whole input as one paragraph (when it is valid UTF-8 on one line).
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.find('\n') == std::string_view::npos &&
      FindInvalidUtf8(text) == std::string_view::npos) {
    static auto splitter = SentenceSplitter::Create();
    if (!splitter.ok()) std::abort();
    std::vector<std::string_view> sentences;
    (*splitter)->Split(text, &sentences);
    std::string joined;
    const char* last_end = text.data();
    for (std::string_view sentence : sentences) {
      if (sentence.empty() || sentence.data() < last_end ||
          sentence.data() + sentence.size() > text.data() + text.size()) {
        std::abort();  // views into the paragraph, in order, not overlapping
      }
      last_end = sentence.data() + sentence.size();
      joined.append(sentence);
    }
    if (Squeezed(joined) != Squeezed(text)) std::abort();
  }
  return 0;
}

}  // namespace
}  // namespace tokenmill

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return tokenmill::FuzzSentenceSplitter(data, size);
}
