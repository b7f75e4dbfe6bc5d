#!/bin/bash
# Races between processes on one key, through storage_tool: N processes create-if-absent the same
# key at once and exactly one wins; then N processes compare-and-swap it from the same generation
# and exactly one wins, and the object holds the winner's text. Several rounds.
# Usage: storage_race_test.sh PATH/TO/storage_tool BASE [all|rgw]
#   all: exactly one winner of each race.
#   rgw: for Ceph RGW 16.2, which checks If-Match before it writes, not atomically with the
#   write: processes racing on one ETag can both get 200, one after the other (docs/storage.md,
#   "Races on RGW"; the job store never races compare-and-swaps). Create-if-absent must still
#   have exactly one winner; of the compare-and-swaps at least one wins, every other racer
#   reports a clean loss (exit 3, no error), and the object ends up holding a winner's text.
#   The rounds with more than one compare-and-swap winner are counted and reported.
#   BASE: a local folder, or s3://bucket/prefix. For s3:// without S3_ENDPOINT it skips (exit
#   77), unless TOKENMILL_REQUIRE_S3=1.
set -euo pipefail
tool=$1
base=$2
mode=${3:-all}
racers=${RACERS:-12}
rounds=${ROUNDS:-5}
if [[ $base == s3://* ]]; then
  if [ -z "${S3_ENDPOINT:-${AWS_ENDPOINT_URL:-}}" ] || [ -z "${S3_BUCKET:-}" ]; then
    if [ "${TOKENMILL_REQUIRE_S3:-}" = 1 ]; then
      echo "FAIL: TOKENMILL_REQUIRE_S3=1 but no S3 server; run scripts/ceph-rgw.sh and source its env.sh" >&2
      exit 1
    fi
    echo "SKIP: no S3 server (run scripts/ceph-rgw.sh and source /tmp/tokenmill-rgw/env.sh)"
    exit 77
  fi
  base="s3://$S3_BUCKET/tm-race/$(date +%s)-$$"
else
  base="$base/race-$$"
  mkdir -p "$base"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs "$@" in $racers processes released together; leaves their exit codes in $work/rc.*.
race() {
  rm -f "$work"/rc.* "$work"/out.* "$work/go"
  for i in $(seq 1 "$racers"); do
    (
      while [ ! -e "$work/go" ]; do :; done
      set +e
      args=("$@" "holder $i round $round")
      [ -n "$extra" ] && args+=("$extra")
      "${args[@]}" >"$work/out.$i" 2>"$work/err.$i"
      echo $? >"$work/rc.$i"
    ) &
  done
  sleep 0.3
  touch "$work/go"
  wait
}

multi=0
for round in $(seq 1 "$rounds"); do
  key="$base/key-$round"
  extra=""
  race "$tool" create "$key"
  won=$(grep -lx 0 "$work"/rc.* | wc -l)
  lost=$(grep -lx 3 "$work"/rc.* | wc -l)
  [ "$won" = 1 ] || fail "round $round: $won of $racers create-if-absent won ($(cat "$work"/err.* | sort -u | head -3))"
  [ "$lost" = $((racers - 1)) ] || fail "round $round: create-if-absent: only $lost lost cleanly ($(cat "$work"/err.* | sort -u | head -3))"

  gen=$("$tool" version "$key")
  extra=$gen
  race "$tool" cas "$key"
  winners=$(grep -lx 0 "$work"/rc.* || true)
  nwin=$(echo "$winners" | wc -w)
  lost=$(grep -lx 3 "$work"/rc.* | wc -l)
  [ "$nwin" -ge 1 ] || fail "round $round: no compare-and-swap won ($(cat "$work"/err.* | sort -u | head -3))"
  [ $((nwin + lost)) = "$racers" ] || fail "round $round: compare-and-swap: $nwin won, only $lost lost cleanly ($(cat "$work"/err.* | sort -u | head -3))"
  final=$("$tool" cat "$key")
  if [ "$mode" = rgw ]; then
    [ "$nwin" = 1 ] || multi=$((multi + 1))
    ok=0
    for w in $winners; do [ "$final" = "holder ${w##*.} round $round" ] && ok=1; done
    [ $ok = 1 ] || fail "round $round: the object holds '$final', not a winner's text"
  else
    [ "$nwin" = 1 ] || fail "round $round: $nwin compare-and-swaps won"
    [ "$final" = "holder ${winners##*.} round $round" ] || fail "round $round: the object does not hold the winner's text"
  fi
  "$tool" rm "$key"
done
if [ "$mode" = rgw ]; then
  echo "PASS: $rounds rounds of $racers processes: one create-if-absent winner each; compare-and-swap: $multi rounds with more than one winner (RGW's If-Match is not atomic)"
else
  echo "PASS: $rounds rounds of $racers processes: one winner each"
fi
