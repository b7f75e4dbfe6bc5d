#!/usr/bin/env bash
# 1 GiB through tokenmill's S3 client and through `aws s3 cp`, side by side against the same
# server: upload of a local file (the way a shard is published) and download of the object (the
# way an input is read), each repeated RUNS times, alternating the two clients.
#
#   CEPH_OBJECTSTORE=bluestore CEPH_DIR=/tmp/tokenmill-rgw-blue bash scripts/ceph-rgw.sh
#   source /tmp/tokenmill-rgw-blue/env.sh
#   bench/s3_transfer.sh [BUILD_DIR]       (default: build)
#
# Environment: S3_ENDPOINT, S3_BUCKET and the AWS_* credentials (from env.sh), MIB (default 1024),
# RUNS (default 3), AWS (default /usr/bin/aws, Debian's awscli). The local file is random bytes in
# /tmp; downloads go to memory for tokenmill and to /dev/null for the aws CLI (neither touches the
# disk), uploads read the same local file. Prints one line per transfer and the medians.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
bench=$build/src/tokenmill/storage/storage_bench
mib=${MIB:-1024}
runs=${RUNS:-3}
aws=${AWS:-/usr/bin/aws}
: "${S3_ENDPOINT:?source the env.sh written by scripts/ceph-rgw.sh first}"
: "${S3_BUCKET:?source the env.sh written by scripts/ceph-rgw.sh first}"
[[ -x $bench ]] || { echo "s3_transfer.sh: build $bench first (ninja -C $build storage_bench)" >&2; exit 1; }

tmp=$(mktemp -d)
prefix="s3://$S3_BUCKET/transfer-bench-$$"
cleanup() {
  rm -rf "$tmp"
  "$aws" --endpoint-url "$S3_ENDPOINT" s3 rm --recursive --quiet "$prefix/" >/dev/null 2>&1 || true
}
trap cleanup EXIT
head -c $((mib << 20)) /dev/urandom >"$tmp/blob"
bytes=$((mib << 20))

now() { date +%s.%N; }
rate() { python3 -c "import sys; print(f'{$bytes / 1e6 / (float(sys.argv[2]) - float(sys.argv[1])):.1f}')" "$1" "$2"; }
declare -A results
record() {  # name MB/s
  results[$1]="${results[$1]:-} $2"
  printf '%-26s %8s MB/s\n' "$1" "$2"
}

"$aws" --version
for r in $(seq 1 "$runs"); do
  t0=$(now)
  "$aws" --endpoint-url "$S3_ENDPOINT" s3 cp --quiet "$tmp/blob" "$prefix/aws.bin"
  record "upload aws s3 cp" "$(rate "$t0" "$(now)")"
  t0=$(now)
  "$bench" --put "$tmp/blob" "$prefix/tokenmill.bin" >"$tmp/put.json"
  record "upload tokenmill" "$(rate "$t0" "$(now)")"
  t0=$(now)
  "$aws" --endpoint-url "$S3_ENDPOINT" s3 cp --quiet "$prefix/aws.bin" - >/dev/null
  record "download aws s3 cp" "$(rate "$t0" "$(now)")"
  t0=$(now)
  "$bench" --get "$prefix/aws.bin" >"$tmp/get.json"
  record "download tokenmill" "$(rate "$t0" "$(now)")"
done
# Both clients wrote the same bytes.
"$aws" --endpoint-url "$S3_ENDPOINT" s3 cp --quiet "$prefix/tokenmill.bin" "$tmp/back"
cmp "$tmp/blob" "$tmp/back" && echo "object written by tokenmill read back by aws: identical"
echo "medians over $runs runs ($mib MiB, process start-up included):"
for k in "upload aws s3 cp" "upload tokenmill" "download aws s3 cp" "download tokenmill"; do
  # shellcheck disable=SC2086
  printf '  %-24s %8s MB/s\n' "$k" "$(median ${results[$k]})"
done
