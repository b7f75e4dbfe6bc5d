// Token arrays as the Megatron and llm.c .bin files hold them: fixed-width little-endian integers.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tokenmill {

enum class TokenEncoding { kUint8, kInt8, kInt16, kUint16, kInt32, kUint32, kInt64 };

size_t TokenEncodingSize(TokenEncoding encoding);

// Appends `tokens` as unsigned little-endian integers of `width` bytes (2 or 4).
// REQUIRES: every token fits in `width` bytes.
void AppendTokens(const std::vector<uint32_t>& tokens, size_t width, std::string* out);

// Decodes bytes.size() / TokenEncodingSize(encoding) values into *out (replacing its content).
// Returns the index of the first value that is not a token id (negative or above UINT32_MAX), or
// npos if all are.
size_t DecodeTokens(std::string_view bytes, TokenEncoding encoding, std::vector<uint32_t>* out);

}  // namespace tokenmill
