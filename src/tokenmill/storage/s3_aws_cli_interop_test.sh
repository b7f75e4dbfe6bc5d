#!/bin/bash
# Interoperability of the S3 backend with the aws CLI against a real S3 server
# (scripts/ceph-rgw.sh, then source /tmp/tokenmill-rgw/env.sh):
#   - aws s3 ls / cp read what tokenmill wrote (a small object, a multipart object, odd keys);
#   - tokenmill reads and lists what `aws s3 cp` uploaded (single and multipart).
# Without S3_ENDPOINT it skips (exit 77), unless TOKENMILL_REQUIRE_S3=1.
# Usage: s3_aws_cli_interop_test.sh PATH/TO/storage_tool
set -euo pipefail
tool=$1
endpoint=${S3_ENDPOINT:-${AWS_ENDPOINT_URL:-}}
if [ -z "$endpoint" ] || [ -z "${S3_BUCKET:-}" ] || [ -z "${AWS_ACCESS_KEY_ID:-}" ]; then
  if [ "${TOKENMILL_REQUIRE_S3:-}" = 1 ]; then
    echo "FAIL: TOKENMILL_REQUIRE_S3=1 but no S3 server; run scripts/ceph-rgw.sh and source its env.sh" >&2
    exit 1
  fi
  echo "SKIP: no S3 server (run scripts/ceph-rgw.sh and source /tmp/tokenmill-rgw/env.sh)"
  exit 77
fi
if ! command -v aws >/dev/null; then
  echo "FAIL: the aws CLI is missing (Debian package awscli)" >&2
  exit 1
fi
export AWS_ENDPOINT_URL="$endpoint"
export AWS_EC2_METADATA_DISABLED=true
aws_s3() { aws --endpoint-url "$endpoint" s3 "$@"; }

work=$(mktemp -d)
prefix="tm-interop/$(date +%s)-$$"
cleanup() {
  aws_s3 rm --recursive --quiet "s3://$S3_BUCKET/$prefix/" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Payloads: small ones, and large ones uploaded in parts (tokenmill above 64 MiB, the aws CLI
# above 8 MiB).
printf 'hello from tokenmill\n' > "$work/small.txt"
head -c $((70 * 1024 * 1024)) /dev/urandom > "$work/big.bin"
printf 'uploaded by the aws CLI\n' > "$work/cli-small.txt"
head -c $((20 * 1024 * 1024 + 3)) /dev/urandom > "$work/cli-big.bin"

# tokenmill writes, aws reads.
"$tool" put "s3://$S3_BUCKET/$prefix/tm/small.txt" "$work/small.txt"
"$tool" put "s3://$S3_BUCKET/$prefix/tm/big.bin" "$work/big.bin"
"$tool" put "s3://$S3_BUCKET/$prefix/tm/odd key+&=.txt" "$work/small.txt"
"$tool" create "s3://$S3_BUCKET/$prefix/tm/lease" "holder-1" >/dev/null
listing=$(aws_s3 ls --recursive "s3://$S3_BUCKET/$prefix/tm/")
for k in small.txt big.bin "odd key+&=.txt" lease; do
  grep -qF "$prefix/tm/$k" <<<"$listing" || fail "aws s3 ls does not show $k: $listing"
done
aws_s3 cp --quiet "s3://$S3_BUCKET/$prefix/tm/big.bin" "$work/big.back"
cmp "$work/big.bin" "$work/big.back" || fail "aws s3 cp read back a different big.bin"
aws_s3 cp --quiet "s3://$S3_BUCKET/$prefix/tm/odd key+&=.txt" "$work/odd.back"
cmp "$work/small.txt" "$work/odd.back" || fail "odd key differs"
[ "$(aws_s3 cp --quiet "s3://$S3_BUCKET/$prefix/tm/lease" -)" = "holder-1" ] || fail "lease differs"

# aws writes, tokenmill reads.
aws_s3 cp --quiet "$work/cli-small.txt" "s3://$S3_BUCKET/$prefix/cli/small.txt"
aws_s3 cp --quiet "$work/cli-big.bin" "s3://$S3_BUCKET/$prefix/cli/big.bin"
[ "$("$tool" cat "s3://$S3_BUCKET/$prefix/cli/small.txt")" = "uploaded by the aws CLI" ] \
  || fail "tokenmill read a different cli/small.txt"
"$tool" get "s3://$S3_BUCKET/$prefix/cli/big.bin" "$work/cli-big.back"
cmp "$work/cli-big.bin" "$work/cli-big.back" || fail "tokenmill read a different cli/big.bin"
ls_out=$("$tool" ls "s3://$S3_BUCKET/$prefix/cli/")
grep -q "^$((20 * 1024 * 1024 + 3)) s3://$S3_BUCKET/$prefix/cli/big.bin$" <<<"$ls_out" \
  || fail "tokenmill ls: $ls_out"
grep -q "^24 s3://$S3_BUCKET/$prefix/cli/small.txt$" <<<"$ls_out" || fail "tokenmill ls: $ls_out"
"$tool" create "s3://$S3_BUCKET/$prefix/cli/small.txt" "x" 2>/dev/null \
  && fail "CreateIfAbsent over an aws-uploaded object must fail"
echo "PASS: aws CLI and tokenmill read each other's objects"
