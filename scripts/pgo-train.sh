#!/usr/bin/env bash
# The training run of the profile-guided build: scripts/pgo-train.sh BINARY
#   BINARY is a tokenmill built with -DTOKENMILL_PGO=generate (scripts/build.sh does all of it).
# It tokenizes the sample corpus with every vocabulary in data/vocab and runs every example job
# on it, one worker each, into a scratch folder: the work tokenmill does on real jobs, on the
# repository's own data only. A few seconds.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$1
[[ -x $bin ]] || { echo "pgo-train.sh: $bin is not an executable" >&2; exit 2; }
scratch=$(mktemp -d /tmp/tokenmill-pgo-train.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
sample=$root/data/sample/part-00.txt
for tokenizer in bert-base-uncased/vocab.txt bert-base-uncased/tokenizer.json \
                 bert-base-chinese/vocab.txt gpt2/tokenizer.json gpt2/encoder.json \
                 tiktoken/cl100k_base.tiktoken; do
  "$bin" tokenize --tokenizer "$root/data/vocab/$tokenizer" --ids "$sample" >/dev/null
done
# A job's paths are relative to its file: copies of the examples beside a link to data/ read the
# repository's data and write their output (../out/...) into the scratch folder.
mkdir "$scratch/examples"
cp "$root"/examples/*.toml "$scratch/examples/"
ln -s "$root/data" "$scratch/data"
for job in "$scratch"/examples/*.toml; do
  name=$(basename "$job" .toml)
  "$bin" run "$job" --workers 1 --quiet >/dev/null 2>"$scratch/$name.log" ||
    { cat "$scratch/$name.log" >&2; echo "pgo-train.sh: the example $name failed" >&2; exit 1; }
done
