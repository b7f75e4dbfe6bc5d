#!/usr/bin/env bash
# Regenerates data/sample-parquet/part-00.parquet from data/sample-jsonl/part-00.jsonl.
#   tests/parquet/make_sample.sh [NPM_DIR]   (default /tmp/tokenmill-parquet-npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
npm_dir=${1:-/tmp/tokenmill-parquet-npm}
"$root/tests/parquet/install_npm.sh" "$npm_dir"
node "$root/tests/parquet/make_sample.mjs" "$npm_dir/node_modules" "$root"
