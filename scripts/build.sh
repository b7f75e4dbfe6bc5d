#!/usr/bin/env bash
# Builds tokenmill: scripts/build.sh [BUILD_DIR] [extra cmake args...]
#   BUILD_DIR defaults to build/; the binary is BUILD_DIR/tokenmill. BUILD_TYPE (default Release).
#   scripts/build.sh build-asan -DTOKENMILL_SANITIZE=ON   (AddressSanitizer + UBSan)
# A Release build is profile-guided. The first time, an instrumented tokenmill is built in
# BUILD_DIR/pgo-generate and runs scripts/pgo-train.sh; its profile, kept in BUILD_DIR/pgo-profile,
# then optimises the targets that CMakeLists.txt names with tm_pgo() (BENCHMARKS.md,
# "Profile-guided optimisation"). That adds one build of the binary and a few seconds of training.
#   PGO=0         no profile (a plain optimised build; also with CXX=clang++)
#   PGO=refresh   train again (after changing the code of those targets, which otherwise is
#                 optimised without a profile where it changed)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
type="${BUILD_TYPE:-Release}"
pgo="${PGO:-1}"
pgo_args=(-DTOKENMILL_PGO=)
# The profile is GCC's (the compiler CMake finds by default here); another compiler builds without.
if [[ ${CXX:-} == *clang* ]]; then pgo=0; fi
if [[ $type == Release && $pgo != 0 ]]; then
  profile="$(realpath -m "$dir")/pgo-profile"  # absolute: CMake keeps it in its cache
  if [[ $pgo == refresh ]]; then rm -rf "$profile"; fi
  if [[ ! -d $profile ]]; then
    gen="$dir/pgo-generate"
    echo "build.sh: building an instrumented tokenmill in $gen for profile-guided optimisation"
    rm -rf "$profile.partial"
    cmake -S . -B "$gen" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOKENMILL_TESTS=OFF \
      -DTOKENMILL_BENCH=OFF -DTOKENMILL_SYSTEM_TESTS=OFF -DTOKENMILL_PGO=generate \
      -DTOKENMILL_PGO_DIR="$profile.partial" >/dev/null
    ninja -C "$gen" -j "$(nproc)" tokenmill
    echo "build.sh: training run (scripts/pgo-train.sh)"
    scripts/pgo-train.sh "$gen/tokenmill"
    mv "$profile.partial" "$profile"
  fi
  pgo_args=(-DTOKENMILL_PGO=use -DTOKENMILL_PGO_DIR="$profile")
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "${pgo_args[@]}" "$@" >/dev/null
ninja -C "$dir" -j "$(nproc)"
