#!/usr/bin/env bash
# Parquet decoding throughput, tokenmill vs hyparquet (node), one thread each, same files, same
# run; and bytes fetched per text byte.
#   bench/parquet.sh [BUILD_DIR]      (default: build; needs BUILD_DIR/bench/parquet_bench)
# Environment: NPM_DIR (default /tmp/tokenmill-parquet-npm), TARGET_MB (text per file, default
# 64), REPEATS (default 5), CPU (core to pin to, default 0).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
npm_dir=${NPM_DIR:-/tmp/tokenmill-parquet-npm}
repeats=${REPEATS:-5}
cpu=${CPU:-0}
"$root/tests/parquet/install_npm.sh" "$npm_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node "$root/bench/parquet_make.mjs" "$npm_dir/node_modules" "$root" "$work" "${TARGET_MB:-64}"
echo "| file | MB | text MB | tokenmill text MB/s | hyparquet text MB/s | ratio | bytes fetched / text byte |"
echo "|---|---|---|---|---|---|---|"
for codec in snappy zstd; do
  f=$work/bench-$codec.parquet
  tm=$(taskset -c "$cpu" "$build/bench/parquet_bench" "$f" "$repeats")
  hy=$(taskset -c "$cpu" node "$root/bench/parquet_hyparquet.mjs" "$npm_dir/node_modules" "$f" "$repeats")
  python3 - "$f" "$tm" "$hy" <<'PY'
import json, os, sys
f, tm, hy = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
assert tm["documents"] == hy["documents"] and tm["text_bytes"] == hy["text_bytes"], (tm, hy)
print("| %s | %.1f | %.1f | %.1f | %.1f | %.1fx | %.3f |" % (
    os.path.basename(f), os.path.getsize(f) / 1e6, tm["text_bytes"] / 1e6, tm["text_mb_per_s"],
    hy["text_mb_per_s"], tm["text_mb_per_s"] / hy["text_mb_per_s"],
    tm["bytes_fetched"] / tm["text_bytes"]))
PY
done
