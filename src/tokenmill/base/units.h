// Parsing of human sizes ("256MiB", "4MB", "1048576") and durations.
#pragma once

#include <cstdint>
#include <string_view>

#include "tokenmill/base/status.h"

namespace tokenmill {

// Accepts an integer byte count or a number with a unit: B, KB/MB/GB/TB (powers of 1000),
// KiB/MiB/GiB/TiB (powers of 1024), case-insensitive, optional space: "64MiB", "1.5 GB".
StatusOr<uint64_t> ParseByteSize(std::string_view text);

// "1.2 MB", "3.4 GiB"... for humans (powers of 1000 with SI units).
std::string FormatBytes(double bytes);

}  // namespace tokenmill
