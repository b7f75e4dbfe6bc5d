#include "tokenmill/io/parquet_codec.h"

#include <brotli/decode.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <cstring>

#include "tokenmill/io/parquet_format.h"

namespace tokenmill::parquet {
namespace {

Status SizeMismatch(int32_t codec, size_t got, size_t want) {
  return Status::DataLoss(CodecName(codec) + " data decompressed to " + std::to_string(got) +
                          " bytes, but the page header says " + std::to_string(want));
}

Status Gzip(std::string_view in, size_t size, std::string* out) {
  size_t produced = 0;
  size_t consumed = 0;
  // Members one after another (RFC 1952 allows several; Parquet readers must accept them).
  while (consumed < in.size()) {
    z_stream z{};
    if (inflateInit2(&z, 15 + 32) != Z_OK) return Status::Internal("gzip: inflateInit2 failed");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
    z.avail_in = static_cast<uInt>(in.size() - consumed);
    z.next_out = reinterpret_cast<Bytef*>(out->data() + produced);
    z.avail_out = static_cast<uInt>(size - produced);
    int r = Z_OK;
    while (r == Z_OK) {
      r = inflate(&z, Z_NO_FLUSH);
      if (r == Z_BUF_ERROR && z.avail_out == 0) {
        // Output is full but the member continues: more data than the header says.
        inflateEnd(&z);
        return Status::DataLoss("GZIP data decompresses to more than the page header's " +
                                std::to_string(size) + " bytes");
      }
    }
    const size_t used = (in.size() - consumed) - z.avail_in;
    produced = size - z.avail_out;
    inflateEnd(&z);
    if (r != Z_STREAM_END) {
      return Status::DataLoss(std::string("corrupt GZIP data (") + (z.msg ? z.msg : "inflate") +
                              ")");
    }
    consumed += used;
    // Trailing zero padding after the last member is tolerated.
    bool zeros = true;
    for (size_t i = consumed; i < in.size() && zeros; ++i) zeros = in[i] == 0;
    if (zeros) break;
  }
  if (produced != size) return SizeMismatch(kGzip, produced, size);
  return Status::Ok();
}

Status Lz4Hadoop(std::string_view in, size_t size, std::string* out) {
  // Blocks of [4-byte big-endian uncompressed size][4-byte big-endian compressed size][data].
  auto be32 = [](const char* p) {
    const auto* u = reinterpret_cast<const unsigned char*>(p);
    return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
  };
  size_t pos = 0, produced = 0;
  while (pos < in.size()) {
    if (in.size() - pos < 8) return Status::DataLoss("LZ4 (Hadoop) block header cut short");
    const uint32_t raw = be32(in.data() + pos);
    const uint32_t comp = be32(in.data() + pos + 4);
    pos += 8;
    if (comp > in.size() - pos || raw > size - produced) {
      return Status::DataLoss("LZ4 (Hadoop) block sizes do not fit the page");
    }
    const int n = LZ4_decompress_safe(in.data() + pos, out->data() + produced,
                                      static_cast<int>(comp), static_cast<int>(raw));
    if (n < 0 || static_cast<uint32_t>(n) != raw) {
      return Status::DataLoss("corrupt LZ4 (Hadoop) block");
    }
    pos += comp;
    produced += raw;
  }
  if (produced != size) return SizeMismatch(kLz4Hadoop, produced, size);
  return Status::Ok();
}

Status Lz4Raw(int32_t codec, std::string_view in, size_t size, std::string* out) {
  if (in.size() > static_cast<size_t>(INT32_MAX) || size > static_cast<size_t>(INT32_MAX)) {
    return Status::DataLoss("LZ4 page larger than 2 GiB");
  }
  const int n = LZ4_decompress_safe(in.data(), out->data(), static_cast<int>(in.size()),
                                    static_cast<int>(size));
  if (n < 0) return Status::DataLoss("corrupt " + CodecName(codec) + " data");
  if (static_cast<size_t>(n) != size) return SizeMismatch(codec, static_cast<size_t>(n), size);
  return Status::Ok();
}

}  // namespace

bool IsSupportedCodec(int32_t codec) {
  switch (codec) {
    case kUncompressed:
    case kSnappy:
    case kGzip:
    case kBrotli:
    case kLz4Hadoop:
    case kZstd:
    case kLz4Raw:
      return true;
    default:
      return false;
  }
}

Status DecompressPage(int32_t codec, std::string_view in, size_t uncompressed_size,
                      std::string* out) {
  out->resize(uncompressed_size);
  switch (codec) {
    case kUncompressed:
      if (in.size() != uncompressed_size) return SizeMismatch(codec, in.size(), uncompressed_size);
      if (!in.empty()) std::memcpy(out->data(), in.data(), in.size());
      return Status::Ok();
    case kSnappy: {
      size_t n = 0;
      if (!snappy::GetUncompressedLength(in.data(), in.size(), &n)) {
        return Status::DataLoss("corrupt SNAPPY data (bad length header)");
      }
      if (n != uncompressed_size) return SizeMismatch(codec, n, uncompressed_size);
      if (!snappy::RawUncompress(in.data(), in.size(), out->data())) {
        return Status::DataLoss("corrupt SNAPPY data");
      }
      return Status::Ok();
    }
    case kGzip:
      return Gzip(in, uncompressed_size, out);
    case kBrotli: {
      size_t n = uncompressed_size;
      const BrotliDecoderResult r =
          BrotliDecoderDecompress(in.size(), reinterpret_cast<const uint8_t*>(in.data()), &n,
                                  reinterpret_cast<uint8_t*>(out->data()));
      if (r != BROTLI_DECODER_RESULT_SUCCESS) return Status::DataLoss("corrupt BROTLI data");
      if (n != uncompressed_size) return SizeMismatch(codec, n, uncompressed_size);
      return Status::Ok();
    }
    case kZstd: {
      const size_t n = ZSTD_decompress(out->data(), uncompressed_size, in.data(), in.size());
      if (ZSTD_isError(n)) {
        return Status::DataLoss(std::string("corrupt ZSTD data (") + ZSTD_getErrorName(n) + ")");
      }
      if (n != uncompressed_size) return SizeMismatch(codec, n, uncompressed_size);
      return Status::Ok();
    }
    case kLz4Raw:
      return Lz4Raw(codec, in, uncompressed_size, out);
    case kLz4Hadoop: {
      Status s = Lz4Hadoop(in, uncompressed_size, out);
      if (s.ok()) return s;
      // Some writers (old parquet-cpp) wrote a plain LZ4 block under this codec.
      if (Lz4Raw(codec, in, uncompressed_size, out).ok()) return Status::Ok();
      return s;
    }
    default:
      return Status::Unimplemented("compression codec " + CodecName(codec) +
                                   " is not supported (supported: UNCOMPRESSED, SNAPPY, GZIP, "
                                   "BROTLI, ZSTD, LZ4_RAW, LZ4); rewrite the file with one of "
                                   "these");
  }
}

}  // namespace tokenmill::parquet
