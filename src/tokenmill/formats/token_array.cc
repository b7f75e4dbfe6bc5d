#include "tokenmill/formats/token_array.h"

#include <limits>

#include "tokenmill/base/endian.h"

namespace tokenmill {
namespace {

template <typename T>
size_t DecodeAs(std::string_view bytes, std::vector<uint32_t>* out) {
  const size_t n = bytes.size() / sizeof(T);
  out->resize(n);
  size_t bad = std::string_view::npos;
  for (size_t i = 0; i < n; ++i) {
    T v = GetFixedLE<T>(bytes.data() + i * sizeof(T));
    if constexpr (std::numeric_limits<T>::is_signed) {
      if ((v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<uint32_t>::max()) &&
          bad == std::string_view::npos) {
        bad = i;
      }
    }
    (*out)[i] = static_cast<uint32_t>(v);
  }
  return bad;
}

}  // namespace

size_t TokenEncodingSize(TokenEncoding encoding) {
  switch (encoding) {
    case TokenEncoding::kUint8:
    case TokenEncoding::kInt8:
      return 1;
    case TokenEncoding::kInt16:
    case TokenEncoding::kUint16:
      return 2;
    case TokenEncoding::kInt32:
    case TokenEncoding::kUint32:
      return 4;
    case TokenEncoding::kInt64:
      return 8;
  }
  return 0;
}

void AppendTokens(const std::vector<uint32_t>& tokens, size_t width, std::string* out) {
  const size_t start = out->size();
  out->resize(start + tokens.size() * width);
  auto* p = reinterpret_cast<unsigned char*>(out->data() + start);
  if (width == 2) {
    for (uint32_t t : tokens) {
      p[0] = static_cast<unsigned char>(t);
      p[1] = static_cast<unsigned char>(t >> 8);
      p += 2;
    }
  } else {
    for (uint32_t t : tokens) {
      p[0] = static_cast<unsigned char>(t);
      p[1] = static_cast<unsigned char>(t >> 8);
      p[2] = static_cast<unsigned char>(t >> 16);
      p[3] = static_cast<unsigned char>(t >> 24);
      p += 4;
    }
  }
}

size_t DecodeTokens(std::string_view bytes, TokenEncoding encoding, std::vector<uint32_t>* out) {
  switch (encoding) {
    case TokenEncoding::kUint8:
      return DecodeAs<uint8_t>(bytes, out);
    case TokenEncoding::kInt8:
      return DecodeAs<int8_t>(bytes, out);
    case TokenEncoding::kInt16:
      return DecodeAs<int16_t>(bytes, out);
    case TokenEncoding::kUint16:
      return DecodeAs<uint16_t>(bytes, out);
    case TokenEncoding::kInt32:
      return DecodeAs<int32_t>(bytes, out);
    case TokenEncoding::kUint32:
      return DecodeAs<uint32_t>(bytes, out);
    case TokenEncoding::kInt64:
      return DecodeAs<int64_t>(bytes, out);
  }
  out->clear();
  return std::string_view::npos;
}

}  // namespace tokenmill
