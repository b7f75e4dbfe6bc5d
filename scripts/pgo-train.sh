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
for job in "$root"/examples/*.toml; do
  name=$(basename "$job" .toml)
  # The example's paths are relative to examples/; its output goes to the scratch folder.
  sed -e "s#\"\.\./#\"$root/#g" -e "s#^path = \"$root/out/#path = \"$scratch/#" "$job" \
    > "$scratch/$name.toml"
  "$bin" run "$scratch/$name.toml" --workers 1 --quiet >/dev/null 2>"$scratch/$name.log" ||
    { cat "$scratch/$name.log" >&2; echo "pgo-train.sh: the example $name failed" >&2; exit 1; }
done
