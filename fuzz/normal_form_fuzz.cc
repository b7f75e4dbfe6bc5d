// Fuzz target: the Unicode normal forms with the quick check (tokenizer/normalizers/normal_form.h).
//
// The input is text in any bytes. Checks, for NFC, NFD, NFKC and NFKD: the result equals
// utf8proc's own (the input itself where utf8proc refuses it), NormalizeInPlace agrees, and a
// text that passes the quick check is its own normal form.
#include <utf8proc.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "tokenmill/tokenizer/normalizers/normal_form.h"

namespace {

using tokenmill::NormalForm;

std::string Utf8procOnly(const std::string& text, NormalForm form) {
  int options = UTF8PROC_STABLE;
  if (form == NormalForm::kNfc) options |= UTF8PROC_COMPOSE;
  if (form == NormalForm::kNfd) options |= UTF8PROC_DECOMPOSE;
  if (form == NormalForm::kNfkc) options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  if (form == NormalForm::kNfkd) options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(options));
  std::string result =
      n >= 0 ? std::string(reinterpret_cast<const char*>(out), static_cast<size_t>(n)) : text;
  std::free(out);
  return result;
}

int FuzzNormalForm(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (NormalForm form :
       {NormalForm::kNfc, NormalForm::kNfd, NormalForm::kNfkc, NormalForm::kNfkd}) {
    const std::string want = Utf8procOnly(text, form);
    if (tokenmill::ToNormalForm(text, form) != want) std::abort();
    std::string in_place = text;
    tokenmill::NormalizeInPlace(&in_place, form);
    if (in_place != want) std::abort();
    if (tokenmill::QuickCheckNormal(text, form) && want != text) std::abort();
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return FuzzNormalForm(data, size);
}
