#!/usr/bin/env bash
# Builds tokenmill: scripts/build.sh [BUILD_DIR] [extra cmake args...]
#   BUILD_DIR defaults to build/; the binary is BUILD_DIR/tokenmill. BUILD_TYPE (default Release).
#   scripts/build.sh build-asan -DTOKENMILL_SANITIZE=ON   (AddressSanitizer + UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@" >/dev/null
ninja -C "$dir" -j "$(nproc)"
