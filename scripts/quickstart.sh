#!/usr/bin/env bash
# From a fresh clone: install the dependencies, build, and turn the sample corpus into ELECTRA
# pre-training data (examples/electra-zh-en.toml -> out/electra-zh-en).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build
build/tokenmill run examples/electra-zh-en.toml
build/tokenmill inspect out/electra-zh-en/part-000000-000.tfrecord --limit 1 \
  --tokenizer data/vocab/bert-base-chinese/vocab.txt
