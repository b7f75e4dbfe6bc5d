// SmallElectraJob: a small job for tests that run workers. Writes `files` text files into `dir`
// (in-<f>.txt, `lines` short English lines each, a blank line after every 20th) and returns the
// TOML of an ELECTRA job over them: bert-base-uncased (lowercase) from the repository's data,
// TFRecord shards into <dir>/out, one task a file.
//
//   const std::string toml = tokenmill::testing::SmallElectraJob(dir.path(), 4, 300);
//
// Test-only code; needs TOKENMILL_SOURCE_DIR (the build defines it).
#pragma once

#include <fstream>
#include <string>

namespace tokenmill::testing {

inline std::string SmallElectraJob(const std::string& dir, int files, int lines) {
  for (int f = 0; f < files; ++f) {
    std::ofstream out(dir + "/in-" + std::to_string(f) + ".txt");
    for (int line = 0; line < lines; ++line) {
      out << "file " << f << " line " << line << " has some words in it.\n";
      if (line % 20 == 19) out << "\n";
    }
  }
  return "[input]\npaths = [\"" + dir +
         "/in-*.txt\"]\nformat = \"text\"\n"
         "[tokenizer]\npath = \"" TOKENMILL_SOURCE_DIR
         "/data/vocab/bert-base-uncased/vocab.txt\"\n"
         "lowercase = true\n[examples]\nkind = \"electra\"\n"
         "[output]\npath = \"" +
         dir + "/out\"\nformat = \"tfrecord\"\n";
}

}  // namespace tokenmill::testing
