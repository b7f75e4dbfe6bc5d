// Page decompression for Parquet: UNCOMPRESSED, SNAPPY (libsnappy), GZIP (zlib; several members
// are read as one), BROTLI (libbrotlidec), ZSTD (libzstd), LZ4_RAW (liblz4 block format) and the
// deprecated LZ4 with Hadoop framing (and, as other readers do, a plain LZ4 block when the
// Hadoop framing does not fit).
// Thread-safety: functions; each call is independent.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tokenmill/base/status.h"

namespace tokenmill::parquet {

// True for the codecs DecompressPage accepts.
bool IsSupportedCodec(int32_t codec);

// Decompresses one page body into *out, which is resized to exactly `uncompressed_size` bytes.
// DataLoss if the data is corrupt or does not decompress to that size; Unimplemented for a codec
// not supported (LZO).
Status DecompressPage(int32_t codec, std::string_view in, size_t uncompressed_size,
                      std::string* out);

}  // namespace tokenmill::parquet
