// SentenceSplitter: cuts a paragraph into sentences, for `[input] sentences = "split"` (the
// one-sentence-per-line corpus format of BERT and ELECTRA from documents of paragraphs).
//
// Rules (docs/input-formats.md, "Sentences", has the table of hard cases the tests check):
//  1. ICU's sentence break iterator (UAX #29) with the locale "en@ss=standard": a sentence ends
//     after . ! ? and the CJK terminators 。！？ (and their like), with the closing quotes and
//     brackets and the spaces after them; no cut inside numbers ("3.14"), before a lower-case
//     word, or after the English abbreviations ICU knows ("Mr.", "e.g.", "U.S.").
//  2. Chinese: a sentence also ends after ； and … (one or more), with the closing quotes and
//     brackets that follow (”’」』）】》〉), when more text follows.
//  3. No cut inside a URL (from "http://", "https://", "ftp://" or "www." to the next space or
//     non-ASCII character).
// Sentences are stripped of Python whitespace; empty ones are dropped.
// Thread-safety: not thread-safe (holds a BreakIterator); one per thread.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "tokenmill/base/status.h"
#include "tokenmill/io/document_reader.h"

namespace tokenmill {

class SentenceSplitter {
 public:
  // Internal if ICU cannot create its iterator (its data is missing).
  static StatusOr<std::unique_ptr<SentenceSplitter>> Create();
  ~SentenceSplitter();

  // Appends the sentences of `paragraph` (valid UTF-8, one line) to *out, as views into it.
  void Split(std::string_view paragraph, std::vector<std::string_view>* out);

 private:
  struct Impl;
  explicit SentenceSplitter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Wraps `inner`: each line of each document is replaced by its sentences, one a line (lines
// without text disappear; a document without any is skipped). Stats are the inner reader's.
StatusOr<std::unique_ptr<DocumentReader>> NewSentenceSplittingReader(
    std::unique_ptr<DocumentReader> inner);

}  // namespace tokenmill
