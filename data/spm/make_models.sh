#!/usr/bin/env bash
# Trains the small SentencePiece models of data/spm with Debian's spm_train (sentencepiece 0.1.97)
# on the repo's corpus sample, then converts each to a tokenizer.json the way transformers'
# SpmConverter lays it out (to_tokenizer_json.py). Deterministic: same inputs, same files.
#   data/spm/make_models.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/../sample/part-00.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Non-empty lines only (the corpus separates documents with empty lines).
grep -v '^$' "$corpus" > "$tmp/train.txt"

train() {  # name, then spm_train flags
  local name=$1
  shift
  spm_train --input="$tmp/train.txt" --model_prefix="$tmp/$name" --vocab_size=2500 \
    --character_coverage=0.98 --num_threads=1 --shuffle_input_sentence=false \
    --minloglevel=2 "$@"
  cp "$tmp/$name.model" "$here/$name.model"
  /usr/bin/python3 "$here/to_tokenizer_json.py" "$here/$name.model" "$here/$name.tokenizer.json"
}

# Unigram, NFKC charsmap, dummy prefix, no byte fallback.
train unigram --model_type=unigram
# Unigram with byte fallback, split digits, no dummy prefix, identity normalization.
train unigram-bytes --model_type=unigram --byte_fallback=true --split_digits=true \
  --normalization_rule_name=identity \
  --add_dummy_prefix=false
# BPE with byte fallback and split digits (the Llama layout), identity normalization.
train bpe-bytes --model_type=bpe --byte_fallback=true --split_digits=true \
  --normalization_rule_name=identity
# BPE without byte fallback, NFKC, no dummy prefix.
train bpe --model_type=bpe --add_dummy_prefix=false
