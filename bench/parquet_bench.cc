// Parquet reader throughput: parquet_bench FILE.parquet [REPEATS] [TEXT_FIELD]
// Reads the text column of FILE through OpenDocumentReader (one thread) REPEATS times (default 5)
// and prints, as JSON, the median text MB/s (decoded text bytes per wall second), the documents,
// the text bytes, the bytes fetched from storage and the file size. bench/parquet.sh runs it
// beside hyparquet (bench/parquet_hyparquet.mjs) on the same files.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tokenmill/io/document_reader.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: parquet_bench FILE.parquet [REPEATS] [TEXT_FIELD]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  ReaderOptions o;
  o.format = InputFormat::kParquet;
  if (argc > 3) o.text_field = argv[3];
  auto storage = StorageFor(path);
  if (!storage.ok()) {
    std::fprintf(stderr, "%s\n", storage.status().ToString().c_str());
    return 1;
  }
  auto info = (*storage)->Stat(path);
  if (!info.ok()) {
    std::fprintf(stderr, "%s\n", info.status().ToString().c_str());
    return 1;
  }
  std::vector<double> rates;
  uint64_t docs = 0, text = 0, fetched = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto reader = OpenDocumentReader(**storage, InputRange{path, 0, kToEnd}, o);
    if (!reader.ok()) {
      std::fprintf(stderr, "%s\n", reader.status().ToString().c_str());
      return 1;
    }
    Document doc;
    docs = text = 0;
    for (;;) {
      StatusOr<bool> got = (*reader)->Next(&doc);
      if (!got.ok()) {
        std::fprintf(stderr, "%s\n", got.status().ToString().c_str());
        return 1;
      }
      if (!*got) break;
      ++docs;
      text += doc.text.size();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rates.push_back(static_cast<double>(text) / 1e6 / s);
    fetched = (*reader)->stats().bytes_in;
  }
  std::sort(rates.begin(), rates.end());
  std::printf(
      "{\"text_mb_per_s\": %.1f, \"documents\": %llu, \"text_bytes\": %llu, "
      "\"bytes_fetched\": %llu, \"file_bytes\": %llu}\n",
      rates[rates.size() / 2], static_cast<unsigned long long>(docs),
      static_cast<unsigned long long>(text), static_cast<unsigned long long>(fetched),
      static_cast<unsigned long long>(info->size));
  return 0;
}

}  // namespace
}  // namespace tokenmill

int main(int argc, char** argv) { return tokenmill::Main(argc, argv); }
