#!/usr/bin/env bash
# Chaos soak: rounds of a job under random SIGKILLs, 10% injected storage faults and (on S3) an
# RGW restart, each round's output compared file for file with a clean reference run.
#   scripts/soak.sh                      # 20 rounds on a folder store (+ S3 when S3_ENDPOINT is set)
#   scripts/soak.sh --rounds 2           # the CI version (scripts/test.sh)
#   scripts/soak.sh --stores s3 --rounds 20 --binary build/tokenmill
# Options: --rounds N --stores local,s3 --kills K --workers W --rate R --copies C --task-size S
# --seed N --binary PATH (scripts/soak.py --help). The S3 store is the RGW of scripts/ceph-rgw.sh
# (source /tmp/tokenmill-rgw/env.sh first): the soak restarts its radosgw process once a round,
# so run it alone, not beside other tests of the same gateway.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/soak.py "$@"
