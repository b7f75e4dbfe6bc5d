#!/usr/bin/env bash
# Test: the committed Parquet files (src/tokenmill/io/testdata/parquet/ and
# data/sample-parquet/part-00.parquet) are exactly what the generator scripts write with the pinned
# npm writers, and hyparquet reads back every row as written (the generators check that).
# Exits 77 (skipped) when node or the npm registry is not available.
#   tests/parquet/check_testdata.sh [NPM_DIR]   (default /tmp/tokenmill-parquet-npm)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
npm_dir=${1:-/tmp/tokenmill-parquet-npm}
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIP: node and npm are needed (apt-get install nodejs npm)"; exit 77
fi
if ! "$root/tests/parquet/install_npm.sh" "$npm_dir"; then
  echo "SKIP: could not install the pinned npm packages (no registry?)"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$root/tests/parquet/gen_testdata.mjs" "$npm_dir/node_modules" "$work/testdata"
diff -r "$work/testdata" "$root/src/tokenmill/io/testdata/parquet"
mkdir -p "$work/repo/data/sample-jsonl"
cp "$root/data/sample-jsonl/part-00.jsonl" "$work/repo/data/sample-jsonl/"
node "$root/tests/parquet/make_sample.mjs" "$npm_dir/node_modules" "$work/repo"
cmp "$work/repo/data/sample-parquet/part-00.parquet" "$root/data/sample-parquet/part-00.parquet"
echo "the committed Parquet test files are reproduced byte for byte"
