#!/bin/bash
# Builds the tokenmill worker bundle for Compute Engine VMs (and any stock Debian 12 machine):
#   bin/tokenmill   the binary, with an rpath of $ORIGIN/../lib (set here with patchelf)
#   lib/*.so*       every shared library it needs that Debian 12's base system lacks (the base is
#                   scripts/bundle-base-packages.txt), each with an rpath of $ORIGIN: those it
#                   links and libcurl.so.4 with its own, which it loads when a remote path is
#                   first used (found through the binary's rpath)
#   VERSION         tokenmill --version, the git commit, the build time, the binary's sha256
#                   (the binary is shipped without its debug information)
# packed as a .tar.gz that `tokenmill launch gce` uploads to the bucket.
#
# Usage: scripts/make-bundle.sh [BINARY] [OUT]
#   BINARY  the tokenmill binary (default: build/tokenmill, or build/src/tokenmill/cli/tokenmill)
#   OUT     the bundle to write (default: ./tokenmill-bundle.tar.gz)
# Needs: ldd, dpkg (to tell base-system libraries apart), patchelf (apt-get install patchelf).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
BASE_LIST="$HERE/bundle-base-packages.txt"

bin=${1:-}
if [ -z "$bin" ]; then
  for candidate in "$REPO/build/tokenmill" "$REPO/build/src/tokenmill/cli/tokenmill"; do
    if [ -x "$candidate" ]; then bin=$candidate; break; fi
  done
fi
out=${2:-tokenmill-bundle.tar.gz}
die() { echo "make-bundle.sh: $*" >&2; exit 1; }
[ -n "$bin" ] || die "no tokenmill binary found: build it (cmake --build build --target tokenmill) or pass its path"
[ -x "$bin" ] || die "$bin is not an executable file"
command -v patchelf >/dev/null || die "patchelf is missing: apt-get install -y patchelf"
command -v dpkg >/dev/null || die "dpkg is missing: build the bundle on Debian 12"
[ -f "$BASE_LIST" ] || die "$BASE_LIST is missing"

# The paths by which dpkg may know a library file (they differ by the /usr merge).
variants() {
  local p=$1 real
  real=$(readlink -f "$p")
  printf '%s\n' "$p" "$real" "/usr$p" "/usr$real" "${p#/usr}" "${real#/usr}"
}

is_base() { grep -qxF "$1" "$BASE_LIST"; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
cp "$bin" "$stage/bin/tokenmill"
chmod 755 "$stage/bin/tokenmill"
# Debug information stays with the build, not in every VM's download.
if command -v strip >/dev/null; then strip --strip-debug "$stage/bin/tokenmill"; fi

if ldd "$bin" | grep -q 'not found'; then
  ldd "$bin" >&2
  die "$bin has unresolved libraries on this machine"
fi
# libcurl is not linked but loaded by name when needed (src/tokenmill/storage/curl_library.h).
# It is taken from the folder of the binary's libc: the same architecture.
libc_dir=$(dirname "$(ldd "$bin" | awk '$1 == "libc.so.6" {print $3}')")
curl=$libc_dir/libcurl.so.4
[ -f "$curl" ] || die "$curl is missing: apt-get install -y libcurl4"
if ldd "$curl" | grep -q 'not found'; then
  ldd "$curl" >&2
  die "$curl has unresolved libraries on this machine"
fi
mapfile -t deps < <({
  ldd "$bin"
  echo "libcurl.so.4 => $curl (0)"
  ldd "$curl"
} | awk '$2 == "=>" && $3 ~ /^\// && !seen[$1]++ {print $1, $3}')
# One dpkg query for every library (dpkg -S is slow to start).
queries=()
for dep in "${deps[@]}"; do
  mapfile -t -O "${#queries[@]}" queries < <(variants "${dep#* }")
done
declare -A owner_of=()
while IFS= read -r line; do
  case "$line" in diversion* | *", "*) continue ;; esac
  pkg=${line%%: *}
  owner_of["${line#*: }"]=${pkg%%:*}
done < <(dpkg -S "${queries[@]}" 2>/dev/null || true)

shipped=()
for dep in "${deps[@]}"; do
  soname=${dep%% *}
  path=${dep#* }
  pkg=""
  while read -r v; do
    if [ -n "${owner_of[$v]:-}" ]; then pkg=${owner_of[$v]}; break; fi
  done < <(variants "$path")
  if [ -n "$pkg" ] && is_base "$pkg"; then
    continue
  fi
  cp -L "$path" "$stage/lib/$soname"
  chmod 644 "$stage/lib/$soname"
  # shellcheck disable=SC2016  # a literal $ORIGIN for the dynamic loader
  patchelf --set-rpath '$ORIGIN' "$stage/lib/$soname"
  shipped+=("$soname (${pkg:-not from a package})")
done
# shellcheck disable=SC2016  # a literal $ORIGIN for the dynamic loader
patchelf --set-rpath '$ORIGIN/../lib' "$stage/bin/tokenmill"

# Everything must now resolve inside the bundle or in the base system.
for f in "$stage/bin/tokenmill" "$stage/lib/libcurl.so.4"; do
  if [ -f "$f" ] && env -u LD_LIBRARY_PATH ldd "$f" | grep -q 'not found'; then
    ldd "$f" >&2
    die "$f has unresolved libraries in the bundle"
  fi
done
"$stage/bin/tokenmill" --version >/dev/null || die "the bundled binary does not run"

{
  "$stage/bin/tokenmill" --version
  echo "commit: $(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
  # shellcheck disable=SC1091
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME")"
  echo "sha256: $(sha256sum "$stage/bin/tokenmill" | cut -d' ' -f1)"
  echo "libraries:"
  for s in "${shipped[@]}"; do echo "  $s"; done
} >"$stage/VERSION"

mkdir -p "$(dirname "$out")"
tar -C "$stage" -czf "$out.tmp" bin lib VERSION
mv "$out.tmp" "$out"
echo "wrote $out ($(du -h "$out" | cut -f1), ${#shipped[@]} libraries shipped)"
