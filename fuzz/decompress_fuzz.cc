// Fuzz target: the gzip (zlib) and zstd decoding streams on arbitrary bytes.
//
// Flag byte (the input's first byte): bit 0 chooses zstd (set) or gzip; bits 1-7 the size of
// each read of the compressed stream (1 + 97 * value bytes), so that frames split at every point.
// Checks: no crash or hang; errors name the file; bytes_out equals what was returned; at most
// 64 MiB of output is read (decompression bombs stop there).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "tokenmill/io/decompress.h"
#include "tokenmill/io/string_stream.h"

namespace {

int FuzzDecompress(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool zstd = (data[0] & 1) != 0;
  const size_t chunk = 1 + 97 * static_cast<size_t>(data[0] >> 1);
  const std::string name = zstd ? "fuzz.zst" : "fuzz.gz";
  auto raw = std::make_unique<tokenmill::StringReadStream>(
      std::string(reinterpret_cast<const char*>(data) + 1, size - 1), chunk);
  auto stream = tokenmill::NewDecodingStream(
      std::move(raw), zstd ? tokenmill::Compression::kZstd : tokenmill::Compression::kGzip, name);
  std::string buf(1 << 16, '\0');
  uint64_t out = 0;
  while (out < (64u << 20)) {
    tokenmill::StatusOr<size_t> n = stream->Read(buf.data(), buf.size());
    if (!n.ok()) {
      if (n.status().message().find(name) == std::string::npos) std::abort();
      return 0;
    }
    if (*n == 0) break;
    if (*n > buf.size()) std::abort();
    out += *n;
  }
  if (stream->bytes_out() != out) std::abort();
  if (stream->bytes_in() > size - 1) std::abort();
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzDecompress(data, size);
}
