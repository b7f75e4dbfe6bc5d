#!/usr/bin/env bash
# Installs what tokenmill needs to build and test, from Debian 12's packages.
#   scripts/install-deps.sh            build + test dependencies
#   scripts/install-deps.sh --services also Ceph RGW (S3 tests) and Slurm (launcher tests)
# Needs root (or sudo).
set -euo pipefail

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

BUILD=(cmake ninja-build g++ pkg-config ca-certificates
       libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libsimdjson-dev libfmt-dev
       libutf8proc-dev libpcre2-dev zlib1g-dev libzstd-dev libcurl4-openssl-dev libssl-dev
       libsnappy-dev liblz4-dev libbrotli-dev libmimalloc-dev
       libgtest-dev libgmock-dev libbenchmark-dev libicu-dev)
# chromium and a CJK font: the report's browser test (tests/e2e/test_report.py); faketime: a
# worker with its clock minutes off (tests/e2e/test_jobstore.py).
TEST=(python3 python3-numpy python3-protobuf python3-six python3-yaml protobuf-compiler shellcheck awscli curl gzip zstd
      patchelf file chromium fonts-wqy-zenhei faketime)
# SentencePiece-style tokenizers: npm for the tokenizer.json files and HF reference (tests),
# sentencepiece (spm_train, python3 module, C++ library) as the .model reference.
TEST+=(sentencepiece python3-sentencepiece libsentencepiece-dev)
# libFuzzer campaigns (scripts/fuzz.sh): clang 14 and its runtime libraries.
TEST+=(clang libclang-rt-14-dev)
SERVICES=(ceph radosgw slurm-wlm munge)

# node and npm (the npm test packages: reference tokenizers, Parquet writers and readers): Debian's,
# unless the machine already has a node with npm (e.g. NodeSource's nodejs, which conflicts with
# Debian's npm package).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then TEST+=(nodejs npm); fi
PACKAGES=("${BUILD[@]}" "${TEST[@]}")
if [[ "${1:-}" == "--services" ]]; then PACKAGES+=("${SERVICES[@]}"); fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
