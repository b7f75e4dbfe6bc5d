// Streaming decompression of inputs: gzip (zlib) and zstd (libzstd), chosen by file extension.
//
// A DecodingStream wraps the raw ReadStream of an object and yields its decompressed bytes with
// fixed-size buffers (kDecodeBufferSize of compressed input at a time), whatever the size of
// the file. gzip files made of several concatenated members are read to the end, as `zcat`
// does; zero bytes after the last member are ignored, anything else there is an error. zstd
// files may hold several frames (and skippable frames). A stream that ends inside a gzip member
// or a zstd frame, or a file that is empty, is a DataLoss error naming the file and the
// compressed offset. The plain ("none") stream passes the bytes through.
// Thread-safety: a stream is used by one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

enum class Compression { kNone, kGzip, kZstd };

// By extension: ".gz" -> kGzip, ".zst" -> kZstd, anything else -> kNone. The extension is
// that of the last path component; "?query" parts are not special.
Compression CompressionForUrl(std::string_view url);

std::string_view CompressionName(Compression c);  // "none", "gzip", "zstd"

// Compressed bytes read from storage per refill: 1 MiB.
inline constexpr size_t kDecodeBufferSize = size_t{1} << 20;

class DecodingStream : public ReadStream {
 public:
  // Reads up to n decompressed bytes. Returns 0 at the end of the data.
  StatusOr<size_t> Read(char* buf, size_t n) override = 0;
  // Raw (compressed) bytes read from the underlying stream so far.
  virtual uint64_t bytes_in() const = 0;
  // Decompressed bytes returned so far.
  virtual uint64_t bytes_out() const = 0;
};

// Wraps `raw`. `name` (the file's location) is used in error messages.
std::unique_ptr<DecodingStream> NewDecodingStream(std::unique_ptr<ReadStream> raw,
                                                  Compression compression, std::string name);

}  // namespace tokenmill
