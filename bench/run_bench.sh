#!/usr/bin/env bash
# End-to-end throughput of `tokenmill run` on the shared corpus (28 MB, 8 files, half gzip):
# ELECTRA/TFRecord with bert-base-chinese and GPT/Megatron with cl100k_base, with 1 worker and
# with one worker per core. MB/s = input bytes / wall time of the whole run (plan, workers,
# finalize, decompression and shard writing included).
#
#   bench/run_bench.sh [BUILD_DIR]        (default: build; RUNS=5 runs each, median shown)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$repo/build}/tokenmill
shared=${SHARED:-$repo/../shared}
if [[ ! -d $shared/data/corpus ]]; then
  echo "run_bench.sh: no shared corpus at $shared/data/corpus (set SHARED)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cores=$(nproc)
runs=${RUNS:-5}

job() {  # name kind tokenizer format inputs...
  local name=$1 kind=$2 tok=$3 fmt=$4 input_format=$5
  shift 5
  local paths
  paths=$(printf '"%s",' "$@")
  cat >"$tmp/$name.toml" <<TOML
[input]
paths = [${paths%,}]
format = "$input_format"
[tokenizer]
path = "$tok"
$( [[ $kind == electra ]] && echo "lowercase = true" )
[examples]
kind = "$kind"
[output]
path = "$tmp/$name-out"
format = "$fmt"
[job]
task_size = "4MiB"
TOML
  echo "$tmp/$name.toml"
}

# MB/s counts the corpus text (the same documents for both jobs), not file sizes.
text_bytes=$(for f in "$shared"/data/corpus/part-*; do
  case $f in *.gz) zcat "$f" ;; *) cat "$f" ;; esac
done | wc -c)
echo "input: $text_bytes bytes of text in 8 files; $cores cores"
printf '%-34s %8s %10s %10s\n' "job" "workers" "median s" "MB/s"
for spec in \
  "electra-bert-base-chinese electra $repo/data/vocab/bert-base-chinese/vocab.txt tfrecord text $shared/data/corpus/part-*" \
  "gpt-cl100k-megatron gpt $repo/data/vocab/tiktoken/cl100k_base.tiktoken megatron jsonl $shared/data/corpus-jsonl/part-*"; do
  # shellcheck disable=SC2086
  set -- $spec
  name=$1
  file=$(job "$@")
  for w in 1 "$cores"; do
    # The median of RUNS runs: a run lasts seconds and this kind of machine is noisy.
    times=()
    for _ in $(seq 1 "$runs"); do
      rm -rf "$tmp/$name-out"
      start=$(date +%s.%N)
      "$bin" run "$file" --workers "$w" --quiet >"$tmp/out.txt"
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
    done
    median=$(median "${times[@]}")
    printf '%-34s %8s %10.2f %10.2f\n' "$name" "$w" "$median" \
      "$(echo "$text_bytes / $median / 1000000" | bc -l)"
  done
done
