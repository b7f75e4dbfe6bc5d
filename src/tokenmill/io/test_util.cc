#include "tokenmill/io/test_util.h"

#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tokenmill::testing {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Gzip(std::string_view data, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2");
  }
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Zstd(std::string_view data, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
  if (ZSTD_isError(n)) throw std::runtime_error("ZSTD_compress");
  out.resize(n);
  return out;
}

StatusOr<std::vector<Document>> ReadAll(DocumentReader& reader) {
  std::vector<Document> docs;
  while (true) {
    Document doc;
    TM_ASSIGN_OR_RETURN(const bool got, reader.Next(&doc));
    if (!got) return docs;
    docs.push_back(std::move(doc));
  }
}

namespace {

// Decodes valid UTF-8 to code points (the reference does not handle invalid input).
std::vector<uint32_t> Decode(std::string_view s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    out.push_back(cp);
    i += len;
  }
  return out;
}

bool RefBlank(std::string_view line) {
  static const std::set<uint32_t> kSpaces = {
      0x9,    0xA,    0xB,    0xC,    0xD,    0x1C,   0x1D,   0x1E,   0x1F,   0x20,
      0x85,   0xA0,   0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
      0x2007, 0x2008, 0x2009, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000};
  for (uint32_t cp : Decode(line)) {
    if (!kSpaces.contains(cp)) return false;
  }
  return true;
}

}  // namespace

std::vector<RefDoc> ReferenceTextDocuments(std::string_view data) {
  std::vector<RefDoc> docs;
  bool in_doc = false;
  uint64_t line_no = 0;
  size_t pos = 0;
  while (pos < data.size()) {
    size_t nl = data.find('\n', pos);
    if (nl == std::string_view::npos) nl = data.size();
    const std::string_view line = data.substr(pos, nl - pos);
    ++line_no;
    if (RefBlank(line)) {
      in_doc = false;
    } else if (!in_doc) {
      docs.push_back({std::string(line), line_no, pos});
      in_doc = true;
    } else {
      docs.back().text += "\n";
      docs.back().text += line;
    }
    pos = nl + 1;
  }
  return docs;
}

std::string RepoFile(std::string_view relative) {
  return std::string(TOKENMILL_SOURCE_DIR) + "/" + std::string(relative);
}

}  // namespace tokenmill::testing
