#!/usr/bin/env bash
# Fuzzing campaigns: builds the libFuzzer targets with clang (build-fuzz/) and runs each for a
# chosen time, one at a time, niced, on one core; new inputs go to a scratch corpus, crashes to
# the output folder. Results (executions, coverage, crashes) are printed per target.
#   scripts/fuzz.sh                          # every target, 600 s each
#   scripts/fuzz.sh --time 60 glob_fuzz job_spec_fuzz
#   scripts/fuzz.sh --merge ...              # afterwards, merge new coverage into fuzz/corpus/
# Options: --time SECONDS (default 600), --build DIR (default build-fuzz), --out DIR (default
# /tmp/tokenmill-fuzz), --cpu N (the core to pin to, default 0), --timeout SECONDS (one input's
# limit, default 20; the first input of a tokenizer target also builds its tables), --merge.
# A crash leaves crash-<sha1> in --out: fix it, then copy it into fuzz/corpus/<target>/, where the
# target's <target>_replay_test runs it in every normal test run.
set -euo pipefail
cd "$(dirname "$0")/.."
time_s=600 build=build-fuzz out=/tmp/tokenmill-fuzz cpu=0 merge=0 timeout=20 targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --time) time_s=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --cpu) cpu=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --merge) merge=1; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
if [[ ${#targets[@]} -eq 0 ]]; then
  mapfile -t targets < <(ls fuzz/corpus)
fi
if [[ ! -f "$build/build.ninja" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTOKENMILL_FUZZ=ON -DTOKENMILL_BENCH=OFF -DTOKENMILL_SYSTEM_TESTS=OFF -DTOKENMILL_MIMALLOC=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -g" \
    >/dev/null
fi
nice -n 19 ninja -C "$build" -j "${FUZZ_BUILD_JOBS:-1}" "${targets[@]}"
mkdir -p "$out"
printf '%-22s %8s %10s %8s %8s %s\n' target seconds execs cov features crashes
for t in "${targets[@]}"; do
  work="$out/$t-corpus"
  mkdir -p "$work"
  log="$out/$t.log"
  marker="$out/.$t.started"  # crashes of this run only: not those an earlier run left in $out
  touch "$marker"
  start=$(date +%s)
  set +e
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 nice -n 19 taskset -c "$cpu" \
    "$build/fuzz/$t" -max_total_time="$time_s" -print_final_stats=1 -timeout="$timeout" \
    -rss_limit_mb=2048 -artifact_prefix="$out/$t-" "$work" "fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  took=$(( $(date +%s) - start ))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo ?)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo ?)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo ?)
  crashes=$(find "$out" -maxdepth 1 -newer "$marker" \( -name "$t-crash-*" -o -name "$t-leak-*" \
    -o -name "$t-timeout-*" -o -name "$t-oom-*" \) | wc -l)
  printf '%-22s %8s %10s %8s %8s %s%s\n' "$t" "$took" "$execs" "$cov" "$ft" "$crashes" \
    "$([[ $rc -ne 0 ]] && echo " (exit $rc, see $log)")"
  if [[ $merge == 1 ]]; then
    nice -n 19 "$build/fuzz/$t" -merge=1 "fuzz/corpus/$t" "$work" >>"$log" 2>&1 || true
  fi
done
