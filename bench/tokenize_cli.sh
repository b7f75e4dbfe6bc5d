#!/usr/bin/env bash
# `tokenmill tokenize --ids` against the tokenizer library on the same text, one thread each:
# how much of the library's speed the command keeps once it reads the file, validates UTF-8 and
# prints one JSON id array per line.
#
#   bench/tokenize_cli.sh [BUILD_DIR] [FILE]     (default: build; the shared corpus, gunzipped
#                                                 and concatenated, or data/sample without it)
#
# Library: bench/wordpiece_bench --json (bert-base-uncased tokenizer.json) and bench/bpe_bench
# --encode=cl100k_base, MB per CPU second of the encoding loop over lines already in memory.
# Command: `tokenmill tokenize --ids FILE >/dev/null`, MB per CPU second (user + system, from
# GNU time) of the whole process: tokenizer loading, reading, validation, encoding, printing.
# RUNS (default 5) pairs, library then command; the medians of each and of the pairs' ratios.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
shared=${SHARED:-$repo/../shared}
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for b in "$build/tokenmill" "$build/bench/wordpiece_bench" "$build/bench/bpe_bench"; do
  if [[ ! -x $b ]]; then
    echo "tokenize_cli.sh: $b not found; build it: ninja -C $build tokenmill wordpiece_bench bpe_bench" >&2
    exit 1
  fi
done
input=${2:-}
if [[ -z $input ]]; then
  input=$tmp/corpus.txt
  if [[ -d $shared/data/corpus ]]; then
    for f in "$shared"/data/corpus/part-*; do
      case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac
    done >"$input"
  else
    cat "$repo"/data/sample/*.txt >"$input"
  fi
fi
bytes=$(wc -c <"$input")
echo "input: $bytes bytes; RUNS=$runs"
printf '%-22s %14s %14s %8s\n' tokenizer "library MB/s" "command MB/s" ratio

cli_mbps() {  # tokenmill tokenize arguments...: MB per CPU second of one run
  /usr/bin/time -f "%U %S" -o "$tmp/time" "$build/tokenmill" tokenize "$@" --ids "$input" >/dev/null
  awk -v b="$bytes" '{print b / 1e6 / ($1 + $2)}' "$tmp/time"
}

json_field() { python3 -c "import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])" "$1"; }

wp=$repo/data/vocab/bert-base-uncased/tokenizer.json
cl=$repo/data/vocab/tiktoken/cl100k_base.tiktoken
lib_mbps() {  # bert | cl100k: the library's MB per CPU second of one run
  if [[ $1 == bert ]]; then
    "$build/bench/wordpiece_bench" --tokenizer "$wp" --repeat 1 --json "$input" |
      json_field cpu_MB_per_s
  else
    "$build/bench/bpe_bench" --encode=cl100k_base --output="$tmp/ids" "$input" |
      json_field MB_per_cpu_s
  fi
}

# The library and the command run in turns, and each ratio is of one such pair: the machine's
# speed drifts between runs far more than the ratio does.
for name in bert cl100k; do
  libs=() cmds=() ratios=()
  for _ in $(seq 1 "$runs"); do
    lib=$(lib_mbps "$name")
    if [[ $name == bert ]]; then cmd=$(cli_mbps --tokenizer "$wp"); else cmd=$(cli_mbps --tokenizer "$cl"); fi
    libs+=("$lib") cmds+=("$cmd")
    ratios+=("$(echo "100 * $cmd / $lib" | bc -l)")
  done
  label=$([[ $name == bert ]] && echo bert-base-uncased || echo cl100k_base)
  printf '%-22s %14.2f %14.2f %7.0f%%\n' "$label" "$(median "${libs[@]}")" "$(median "${cmds[@]}")" \
    "$(median "${ratios[@]}")"
done
