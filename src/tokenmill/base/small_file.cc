#include "tokenmill/base/small_file.h"

#include <fstream>
#include <sstream>

namespace tokenmill {

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace tokenmill
