// Helpers for the io tests: real files (in a TempDir, testing/temp_dir.h), compression, reading all
// documents, and a plain reference splitter for the text format.
// Test-only code. Thread-safety: functions are thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/io/document_reader.h"
#include "tokenmill/testing/temp_dir.h"

namespace tokenmill::testing {

std::string ReadFile(const std::string& path);

// gzip (one member) and zstd (one frame) encodings of `data`.
std::string Gzip(std::string_view data, int level = 6);
std::string Zstd(std::string_view data, int level = 3);

// Reads every document; stops at the first error.
StatusOr<std::vector<Document>> ReadAll(DocumentReader& reader);

// Documents of a whole text input, computed naively: split on '\n', blank per the Python
// whitespace set decoded code point by code point. Invalid UTF-8 is not expected.
struct RefDoc {
  std::string text;
  uint64_t line_number;
  uint64_t offset;
};
std::vector<RefDoc> ReferenceTextDocuments(std::string_view data);

// Path of a file of the repository ("data/sample/part-00.txt").
std::string RepoFile(std::string_view relative);

}  // namespace tokenmill::testing
