#!/usr/bin/env bash
# BERT example building against ELECTRA on the same text, and the peak memory of a BERT worker.
#
#   bench/bert_bench.sh [BUILD_DIR] [COPIES]     (default: build, 1; RUNS=3 runs each, median;
#                                                 MEMORY_ONLY=1 skips the speed runs;
#                                                 DUPE_FACTOR=N for the memory run, default 10)
#
# Speed: `tokenmill run --workers 1` on the shared corpus (28 MB of mixed Chinese/English text, 8
# files, half gzip) with bert-base-chinese: ELECTRA, BERT with dupe_factor 1 and BERT with the
# default dupe_factor 10, each job's input bytes / wall time. Memory: the peak RSS of the worker
# processes (GNU time's "Maximum resident set size" of `tokenmill work` on the planned job),
# for the corpus concatenated COPIES times into one plain file (cut into 64 MiB tasks).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/build}/tokenmill
copies=${2:-1}
shared=${SHARED:-$repo/../shared}
if [[ ! -d $shared/data/corpus ]]; then
  echo "bert_bench.sh: no shared corpus at $shared/data/corpus (set SHARED)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-3}
vocab=$repo/data/vocab/bert-base-chinese/vocab.txt

for f in "$shared"/data/corpus/part-*; do
  case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac
  printf '\n'
done >"$tmp/corpus.txt"
text_bytes=$(wc -c <"$tmp/corpus.txt")

job() {  # name input extra-examples-lines
  cat >"$tmp/$1.toml" <<TOML
[input]
paths = ["$2"]
[tokenizer]
path = "$vocab"
lowercase = true
[examples]
$3
[output]
path = "$tmp/$1-out"
TOML
  echo "$tmp/$1.toml"
}

if [[ -z ${MEMORY_ONLY:-} ]]; then
echo "input: $text_bytes bytes of text; RUNS=$runs"
printf '%-28s %10s %10s %12s\n' "job" "median s" "MB/s" "examples"
for spec in "electra|kind = \"electra\"" \
            "bert-dupe1|kind = \"bert\"
dupe_factor = 1" \
            "bert-dupe10|kind = \"bert\""; do
  name=${spec%%|*}
  file=$(job "$name" "$tmp/corpus.txt" "${spec#*|}")
  times=()
  for _ in $(seq 1 "$runs"); do
    rm -rf "$tmp/$name-out"
    start=$(date +%s.%N)
    "$bin" run "$file" --workers 1 --quiet >"$tmp/out.txt"
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  m=$(median "${times[@]}")
  examples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['examples'])" \
    "$tmp/$name-out/manifest.json")
  printf '%-28s %10.2f %10.2f %12s\n' "$name" "$m" "$(echo "$text_bytes / $m / 1000000" | bc -l)" \
    "$examples"
done

fi

# Memory: one worker process over the big input.
for _ in $(seq 1 "$copies"); do cat "$tmp/corpus.txt"; done >"$tmp/big.txt"
big_bytes=$(wc -c <"$tmp/big.txt")
file=$(job big "$tmp/big.txt" "kind = \"bert\"
dupe_factor = ${DUPE_FACTOR:-10}")
plan_kb=$( { /usr/bin/time -f %M "$bin" plan "$file" >/dev/null; } 2>&1 | tail -1)
start=$(date +%s.%N)
/usr/bin/time -v "$bin" work "$tmp/big-out/_job" --threads 1 2>"$tmp/time.txt" >/dev/null
end=$(date +%s.%N)
rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$tmp/time.txt")
finalize_kb=$( { /usr/bin/time -f %M "$bin" finalize "$tmp/big-out/_job" >/dev/null; } 2>&1 | tail -1)
printf 'memory: %s bytes of input, dupe_factor %s, 1 worker thread: peak RSS %.1f MB, %.1f s\n' \
  "$big_bytes" "${DUPE_FACTOR:-10}" "$(echo "$rss / 1024" | bc -l)" "$(echo "$end - $start" | bc)"
printf 'memory: plan peak RSS %.1f MB, finalize peak RSS %.1f MB\n' "$(echo "$plan_kb / 1024" | bc -l)" \
  "$(echo "$finalize_kb / 1024" | bc -l)"
