// SHA-256 (OpenSSL EVP), streaming and one-shot, as lowercase hex.
// Thread-safety: one Sha256 per thread; the free function is thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tokenmill {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view data);
  // Returns the 64-character lowercase hex digest. The object must not be updated afterwards.
  std::string HexDigest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string Sha256Hex(std::string_view data);

}  // namespace tokenmill
