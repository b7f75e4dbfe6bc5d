#!/usr/bin/env bash
# Installs the npm packages the Parquet tests and benchmarks use, pinned, into DIR (once).
#   tests/parquet/install_npm.sh DIR
set -euo pipefail
dir=$1
packages=(parquet-wasm@0.8.0 hyparquet@1.33.0 hyparquet-writer@0.17.0 hyparquet-compressors@1.1.2
          apache-arrow@21.2.0)
stamp="$dir/.installed-$(echo "${packages[*]}" | sha256sum | cut -c1-16)"
if [[ -f $stamp ]]; then exit 0; fi
mkdir -p "$dir"
npm install --silent --no-audit --no-fund --prefix "$dir" "${packages[@]}" >&2
touch "$stamp"
