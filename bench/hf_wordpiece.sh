#!/usr/bin/env bash
# HF tokenizers' WordPiece and tokenmill's, side by side on the shared corpus, one thread each:
# prints MB/s for both and checks that the ids are identical line for line.
#
#   bench/hf_wordpiece.sh [BUILD_DIR]
#
# BUILD_DIR (default: build) must hold bench/wordpiece_bench. The HF reference is the node binding
# of tokenizers 0.23.2 in ../shared/ref, installed once into $REF (default /tmp/ref) with `npm ci`.
# The .gz corpus parts are decompressed into a temporary folder first, so both programs read the
# same plain text (and neither times decompression). Environment: SHARED (default ../shared next
# to the repository), REF, MODELS (default "bert-base-uncased bert-base-chinese").
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
shared=${SHARED:-$repo/../shared}
ref=${REF:-/tmp/ref}
models=${MODELS:-bert-base-uncased bert-base-chinese}
bench=$build/bench/wordpiece_bench

if [[ ! -x $bench ]]; then
  echo "hf_wordpiece.sh: $bench not found; build it first: ninja -C $build wordpiece_bench" >&2
  exit 1
fi
if [[ ! -d $shared/data/corpus || ! -d $shared/ref ]]; then
  echo "hf_wordpiece.sh: no shared corpus and reference at $shared (set SHARED)" >&2
  exit 1
fi
if [[ ! -d $ref/node_modules/tokenizers ]]; then
  mkdir -p "$ref"
  cp -r "$shared/ref/." "$ref/"
  (cd "$ref" && npm ci --silent)
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$shared"/data/corpus/part-*; do
  name=$(basename "$f")
  case $f in
    *.gz) gunzip -c "$f" >"$tmp/${name%.gz}" ;;
    *) cp "$f" "$tmp/$name" ;;
  esac
done
parts=("$tmp"/part-*)
cat "${parts[@]}" >"$tmp/all.txt"

one=(env RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false taskset -c 0)
field() { node -e 'const o = JSON.parse(process.argv[1]); console.log(o[process.argv[2]])' "$1" "$2"; }

printf '%-18s %12s %14s %9s %10s  %s\n' model "HF MB/s" "tokenmill MB/s" speedup tokens ids
for m in $models; do
  tj=$repo/data/vocab/$m/tokenizer.json
  hf=$("${one[@]}" node "$ref/bench.js" --mode hf-batch --batch 1000 --tokenizer-json "$tj" \
    "${parts[@]}")
  tm=$("${one[@]}" "$bench" --tokenizer "$tj" --split-special-tokens false --json "${parts[@]}")
  # Ids: the reference encoder and tokenmill on the same text, compared line by line.
  node "$ref/encode.js" --tokenizer-json "$tj" "$tmp/all.txt" "$tmp/hf.ids"
  "$bench" --tokenizer "$tj" --split-special-tokens false --dump-ids "$tmp/tm.ids" "$tmp/all.txt"
  if cmp -s "$tmp/hf.ids" "$tmp/tm.ids"; then
    ids="identical ($(wc -l <"$tmp/hf.ids") lines)"
  else
    ids="DIFFERENT: $(diff "$tmp/hf.ids" "$tmp/tm.ids" | grep -c '^<') lines, first at line"
    ids+=" $(cmp "$tmp/hf.ids" "$tmp/tm.ids" | sed 's/.*line //')"
  fi
  hf_mbps=$(field "$hf" MB_per_s)
  tm_mbps=$(field "$tm" MB_per_s)
  speedup=$(node -e "console.log((${tm_mbps} / ${hf_mbps}).toFixed(1) + 'x')")
  printf '%-18s %12s %14s %9s %10s  %s\n' "$m" "$hf_mbps" "$tm_mbps" "$speedup" \
    "$(field "$tm" tokens)" "$ids"
  if [[ $(field "$hf" tokens) != $(field "$tm" tokens) ]]; then
    echo "token counts differ: HF $(field "$hf" tokens), tokenmill $(field "$tm" tokens)" >&2
    exit 1
  fi
  [[ $ids == identical* ]] || exit 1
done
