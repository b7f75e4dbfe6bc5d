// HF tokenizers' "UnicodeScripts" pre-tokenizer (pre_tokenizers/unicode_scripts, from
// SentencePiece's IsValidSentencePiece): cuts a piece before each character whose script differs
// from the script of the last character that has one.
//
// The scripts are HF's (SentencePiece's Unicode 9.0 data), read from HF tokenizers itself by
// unicode_scripts_gen.js into unicode_scripts_table.inc: a code point added after Unicode 9.0 has
// no script ("Any"), and U+0589, U+061C (Common) and U+0953..U+0954 (Devanagari) keep their 9.0
// scripts. Hiragana, Katakana and U+30FC count as Han; ' ' has no script.
// Thread-safety: immutable; the table is built once on first use (thread-safe).
#pragma once

#include <cstdint>
#include <vector>

#include "tokenmill/tokenizer/pre_tokenizers/pre_tokenizer.h"

namespace tokenmill::hf {

// The script class of a code point as HF's UnicodeScripts sees it: 0 for "Any" (no script, never
// a cut), otherwise a class number (1 Latin, 2 Han, ...); equal numbers mean the same script.
uint8_t ScriptClass(uint32_t cp);

// Pieces are the windows between consecutive cuts and the end. As in HF, the first cut is at the
// first character that has a script, so what comes before it (spaces, unassigned characters) is
// dropped, and a piece without any such character disappears.
class UnicodeScriptsPreTokenizer final : public PreTokenizer {
 public:
  void PreTokenize(std::vector<Piece>* pieces) const override;
};

}  // namespace tokenmill::hf
