// The Unicode normal forms (UAX #15) of HF tokenizers' NFC, NFD, NFKC and NFKD normalizers, by
// utf8proc, with the quick check in front: most text is already in the form asked for, and a
// text whose every code point is a starter (canonical combining class 0) with quick-check value
// Yes for the form is in it (UAX #15, "Detecting Normalization Forms"). Such text is returned as
// it is, without decomposing and recomposing each character.
// Which code points pass is computed per block of 256 code points when a text first uses one,
// from utf8proc's own results, so the fast path never differs from utf8proc: a code point passes
// when its own normal form is itself, its combining class is 0 and (NFC, NFKC) it is not the
// second part of any canonical composition (those would combine with the code point before).
// Thread-safety: all functions may be called from many threads (a block is computed under a lock
// and published whole).
#pragma once

#include <string>
#include <string_view>

namespace tokenmill {

enum class NormalForm { kNfc, kNfd, kNfkc, kNfkd };

// Whether the quick check finds `text` (valid UTF-8) in `form`. False means "maybe not".
bool QuickCheckNormal(std::string_view text, NormalForm form);

// `text` (valid UTF-8) in `form`. Invalid UTF-8 is returned unchanged.
std::string ToNormalForm(std::string_view text, NormalForm form);

// *text in `form`, in place (unchanged when the quick check passes it).
void NormalizeInPlace(std::string* text, NormalForm form);

}  // namespace tokenmill
