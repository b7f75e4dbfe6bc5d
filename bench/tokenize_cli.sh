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
# Median of RUNS (default 3) for each; the ratio is command / library.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
shared=${SHARED:-$repo/../shared}
runs=${RUNS:-3}
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

cli_mbps() {  # tokenmill tokenize arguments...
  local speeds=()
  for _ in $(seq 1 "$runs"); do
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$build/tokenmill" tokenize "$@" --ids "$input" \
      >/dev/null
    speeds+=("$(awk -v b="$bytes" '{print b / 1e6 / ($1 + $2)}' "$tmp/time")")
  done
  median "${speeds[@]}"
}

json_field() { python3 -c "import json,sys; print(json.loads(sys.stdin.readline())[sys.argv[1]])" "$1"; }

wp=$repo/data/vocab/bert-base-uncased/tokenizer.json
lib=$("$build/bench/wordpiece_bench" --tokenizer "$wp" --repeat "$runs" --json "$input" |
  json_field cpu_MB_per_s)
cmd=$(cli_mbps --tokenizer "$wp")
printf '%-22s %14.2f %14.2f %7.0f%%\n' "bert-base-uncased" "$lib" "$cmd" \
  "$(echo "100 * $cmd / $lib" | bc -l)"

speeds=()
for _ in $(seq 1 "$runs"); do
  speeds+=("$("$build/bench/bpe_bench" --encode=cl100k_base --output="$tmp/ids" "$input" |
    json_field MB_per_cpu_s)")
done
lib=$(median "${speeds[@]}")
cmd=$(cli_mbps --tokenizer "$repo/data/vocab/tiktoken/cl100k_base.tiktoken")
printf '%-22s %14.2f %14.2f %7.0f%%\n' "cl100k_base" "$lib" "$cmd" \
  "$(echo "100 * $cmd / $lib" | bc -l)"
