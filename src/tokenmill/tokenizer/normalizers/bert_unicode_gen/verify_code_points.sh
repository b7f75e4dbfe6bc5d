#!/usr/bin/env bash
# Checks tokenmill's BERT normalizer + pre-tokenizer against the references on every Unicode
# scalar value (in context: "A c b c xcc.cΣc") and on random mixes of tricky characters:
# HF tokenizers (node binding) in 6 option sets, the Google BasicTokenizer model
# (google_basic_tokenizer.py, Python 3.11) in 4. Prints the number of differing lines per set.
#
#   verify_code_points.sh BUILD_DIR [TOKENIZERS_MODULE]
# BUILD_DIR holds bench/wordpiece_bench; TOKENIZERS_MODULE defaults to
# /tmp/ref/node_modules/tokenizers (see bench/hf_wordpiece.sh for installing it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../../.." && pwd)
bench=$1/bench/wordpiece_bench
module=${2:-/tmp/ref/node_modules/tokenizers}
vocab=$repo/data/vocab/bert-base-uncased/vocab.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import random, sys
d = sys.argv[1]
lines = []
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF or cp == 10:
        continue
    c = chr(cp)
    lines.append('A' + c + 'b ' + c + ' x' + c + c + '.' + c + '\u03a3' + c)
random.seed(7)
alphabet = (list("aAbBsSzZ09 .,:;'-_!?\t") +
            [chr(c) for c in (0x3A3, 0x3C3, 0x3C2, 0x391, 0x38C, 0x301, 0x308, 0x345, 0x1D165,
                              0x1D16D, 0x1D16E, 0x1B44, 0x16FF0, 0x302E, 0xF71, 0xF72, 0x130, 0x131,
                              0x2028, 0x2029, 0x85, 0xA0, 0x3000, 0x200D, 0x200B, 0xFEFF, 0xAD,
                              0x2B0, 0xAA, 0xE031, 0xF0001, 0x378, 0xFDD0, 0x10FFFF, 0xFFFD, 0,
                              0x7F, 0x1C, 0xB, 0x4E2D, 0x6587, 0xF900, 0x2B820, 0x2B920, 0xD55C,
                              0xFF46, 0xFF21, 0x1FEF, 0x212B, 0x2126, 0x1D15E, 0xE9, 0x323, 0x31B,
                              0x1E94A, 0x1734, 0x11938, 0x890, 0x2E45, 0x166D, 0x387, 0x2019,
                              0xFF0E, 0x1C89, 0xA7CB, 0x10D50, 0x11F00, 0x31350, 0x1ABF, 0xF39,
                              0xE31, 0x1DFA, 0x11D42, 0x10F46, 0x1193D, 0x302F)])
for _ in range(200000):
    lines.append(''.join(random.choice(alphabet) for _ in range(random.randint(0, 24))))
open(d + '/lines.txt', 'w', encoding='utf-8', newline='\n').write('\n'.join(lines) + '\n')
PY

b() { [[ $1 == 1 ]] && echo true || echo false; }
status=0
for cfg in "1 1 1 1" "0 0 1 1" "1 0 1 1" "0 1 1 1" "1 1 0 0" "0 0 0 1"; do
  read -r lo st cl cj <<<"$cfg"
  node "$here/hf_words.js" "$module" "$tmp/lines.txt" "$tmp/ref.txt" "$lo" "$st" "$cl" "$cj"
  "$bench" --tokenizer "$vocab" --lowercase "$(b "$lo")" --strip-accents "$(b "$st")" \
    --clean-text "$(b "$cl")" --handle-chinese-chars "$(b "$cj")" --dump-words "$tmp/tm.txt" \
    "$tmp/lines.txt"
  n=$(diff "$tmp/ref.txt" "$tmp/tm.txt" | grep -c '^<' || true)
  echo "huggingface lowercase=$lo strip_accents=$st clean_text=$cl handle_chinese_chars=$cj:" \
    "$n differing lines"
  [[ $n == 0 ]] || status=1
done
for cfg in "google-bert 1" "google-bert 0" "google-electra 1" "google-electra 0"; do
  read -r mode lo <<<"$cfg"
  electra=0
  [[ $mode == google-electra ]] && electra=1
  python3 "$here/google_basic_tokenizer.py" "$tmp/lines.txt" "$tmp/ref.txt" "$lo" "$electra"
  "$bench" --tokenizer "$vocab" --compat "$mode" --lowercase "$(b "$lo")" \
    --dump-words "$tmp/tm.txt" "$tmp/lines.txt"
  n=$(diff "$tmp/ref.txt" "$tmp/tm.txt" | grep -c '^<' || true)
  echo "$mode lowercase=$lo: $n differing lines"
  [[ $n == 0 ]] || status=1
done
exit $status
