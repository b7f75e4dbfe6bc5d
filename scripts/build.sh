#!/usr/bin/env bash
# Builds tokenmill: scripts/build.sh [BUILD_DIR] [extra cmake args...]
#   BUILD_DIR defaults to build/; the binary is BUILD_DIR/tokenmill. BUILD_TYPE (default Release).
#   scripts/build.sh build-asan -DTOKENMILL_SANITIZE=ON   (AddressSanitizer + UBSan)
# A Release build is profile-guided (BENCHMARKS.md, "Profile-guided optimisation"). The first
# time, the targets that CMakeLists.txt names with tm_pgo() are built instrumented and that
# tokenmill runs scripts/pgo-train.sh; the profile, kept in BUILD_DIR/pgo-profile, then optimises
# those targets when they are compiled again. Only their few files are compiled twice: the rest of
# the build is the same in both phases. The training takes a few seconds.
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
  rm -rf "$dir/pgo-generate"  # where earlier versions built the instrumented binary
  if [[ ! -d $profile ]]; then
    echo "build.sh: building tokenmill instrumented in $dir for profile-guided optimisation"
    rm -rf "$profile.partial"
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DTOKENMILL_PGO=generate \
      -DTOKENMILL_PGO_DIR="$profile.partial" "$@" >/dev/null
    ninja -C "$dir" -j "$(nproc)" tokenmill
    echo "build.sh: training run (scripts/pgo-train.sh)"
    scripts/pgo-train.sh "$dir/tokenmill"
    mv "$profile.partial" "$profile"
  fi
  pgo_args=(-DTOKENMILL_PGO=use -DTOKENMILL_PGO_DIR="$profile")
fi
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "${pgo_args[@]}" "$@" >/dev/null
ninja -C "$dir" -j "$(nproc)"
