#!/usr/bin/env bash
# Runs the whole test suite: builds tokenmill (optimised, and with AddressSanitizer +
# UndefinedBehaviorSanitizer), starts a real S3 server (Ceph RGW) and a real Slurm when their
# packages are installed (scripts/install-deps.sh --services), and runs every test.
#
# Tests that need a server skip, saying so, when it is absent; with TOKENMILL_REQUIRE_S3=1 or
# TOKENMILL_REQUIRE_SLURM=1 (as CI sets) a missing server is a failure.
# Environment: TOKENMILL_SERVICES=0 to not start servers; TOKENMILL_SKIP_ASAN=1 to skip the
# sanitizer build; TOKENMILL_SKIP_TSAN=1 to skip the ThreadSanitizer build (scripts/tsan.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
jobs=$(nproc)

started=()
cleanup() {
  for s in "${started[@]:-}"; do
    case "$s" in
      rgw) scripts/ceph-rgw-stop.sh >/dev/null 2>&1 || true ;;
      slurm) scripts/slurm-stop.sh >/dev/null 2>&1 || true ;;
    esac
  done
}
trap cleanup EXIT

if [[ "${TOKENMILL_SERVICES:-1}" != 0 ]]; then
  if command -v radosgw >/dev/null && [[ -z "${S3_ENDPOINT:-}" ]]; then
    echo "== starting Ceph RGW (S3) on 127.0.0.1"
    if scripts/ceph-rgw.sh >/tmp/tokenmill-rgw.log 2>&1; then
      started+=(rgw)
      # shellcheck disable=SC1091
      source "${CEPH_DIR:-/tmp/tokenmill-rgw}/env.sh"
    else
      echo "   RGW did not start (see /tmp/tokenmill-rgw.log)"; tail -20 /tmp/tokenmill-rgw.log
    fi
  fi
  if command -v slurmctld >/dev/null && [[ -z "${SLURM_CONF:-}" ]]; then
    echo "== starting Slurm on localhost"
    if scripts/slurm.sh >/tmp/tokenmill-slurm.log 2>&1; then
      started+=(slurm)
      # shellcheck disable=SC1091
      source "${SLURM_DIR:-${TOKENMILL_SLURM_DIR:-/tmp/tokenmill-slurm}}/env.sh"
    else
      echo "   Slurm did not start (see /tmp/tokenmill-slurm.log)"; tail -20 /tmp/tokenmill-slurm.log
    fi
  fi
fi

echo "== build (optimised)"
scripts/build.sh build
echo "== tests (optimised build)"
ctest --test-dir build --output-on-failure -j "$jobs"
# After ctest, never beside it: the soak restarts the RGW process that the s3 tests use.
echo "== chaos soak (2 rounds per store: SIGKILLs, 10% injected faults, an RGW restart)"
scripts/soak.sh --rounds 2 --binary build/tokenmill

if [[ "${TOKENMILL_SKIP_ASAN:-0}" != 1 ]]; then
  echo "== build (AddressSanitizer + UndefinedBehaviorSanitizer)"
  # -O1 -g1: line numbers in sanitizer reports, assertions on, and half the compile time of -O2 -g.
  BUILD_TYPE=Debug scripts/build.sh build-asan -DTOKENMILL_SANITIZE=ON -DTOKENMILL_BENCH=OFF \
    -DTOKENMILL_SYSTEM_TESTS=OFF \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1"
  echo "== tests (sanitizers: unit tests and the basic end-to-end run)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -L unit
  ASAN_OPTIONS=detect_leaks=1 ctest --test-dir build-asan --output-on-failure -R '^e2e_run$'
fi
if [[ "${TOKENMILL_SKIP_TSAN:-0}" != 1 ]]; then
  echo "== build (ThreadSanitizer: the threaded parts only)"
  scripts/tsan.sh build-tsan
fi
echo "== all tests passed"
