#!/usr/bin/env bash
# Regenerates src/tokenmill/io/testdata/parquet/ (the Parquet files of the reader's unit tests
# and their manifest) with the npm writers pinned below; see gen_testdata.mjs.
#   tests/parquet/make_testdata.sh [NPM_DIR]   (default /tmp/tokenmill-parquet-npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
npm_dir=${1:-/tmp/tokenmill-parquet-npm}
"$root/tests/parquet/install_npm.sh" "$npm_dir"
out="$root/src/tokenmill/io/testdata/parquet"
rm -f "$out"/*.parquet "$out/manifest.json"
node "$root/tests/parquet/gen_testdata.mjs" "$npm_dir/node_modules" "$out"
