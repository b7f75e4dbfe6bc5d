#!/usr/bin/env bash
# ThreadSanitizer over the threaded parts of tokenmill, in a build folder of its own:
#   * storage: HTTP transfers in flight (the client's handle pool, parallel multipart parts,
#     read-ahead of streams against a local test server), the retry layer, fault injection;
#   * job: the ledger's concurrent claims, takeovers and renewals (six workers in threads);
#   * byte-level BPE: threads encoding with one model while its lazy tables are built;
#   * the worker: `tokenmill work --threads 4` with lease renewal in its background thread and
#     injected faults, on a small job with lease_seconds = 3.
#   scripts/tsan.sh [BUILD_DIR]        (default build-tsan)
# Any race report fails (TSAN_OPTIONS halt_on_error=1).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-tsan}
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTOKENMILL_TSAN=ON \
  -DTOKENMILL_BENCH=OFF -DTOKENMILL_SYSTEM_TESTS=OFF >/dev/null
ninja -C "$dir" -j "${TSAN_BUILD_JOBS:-$(nproc)}" storage_test job_test bpe_test formats_test tokenmill
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
echo "-- storage_test"
"$dir/src/tokenmill/storage/storage_test" --gtest_brief=1
echo "-- job_test"
"$dir/src/tokenmill/job/job_test" --gtest_brief=1
echo "-- formats_test: shard files written behind (a thread of each file)"
"$dir/src/tokenmill/formats/formats_test" --gtest_brief=1 --gtest_filter='*OutputFile*:*WriteBehind*'
echo "-- bpe_test: threads encoding while the byte-level BPE's lazy tables are built"
"$dir/src/tokenmill/tokenizer/bpe_test" --gtest_brief=1 --gtest_filter='*WhileThreadsEncode*'
echo "-- tokenmill work --threads 4 (lease renewal, injected faults)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/job.toml" <<TOML
[input]
paths = ["$PWD/data/sample/*.txt", "$PWD/data/sample/*.txt.gz"]
[tokenizer]
path = "$PWD/data/vocab/bert-base-chinese/vocab.txt"
[output]
path = "$tmp/out"
[job]
task_size = "128KiB"
lease_seconds = 3
TOML
TOKENMILL_LOG_LEVEL=warning TOKENMILL_INJECT_FAULTS=0.05:3 "$dir/tokenmill" plan "$tmp/job.toml" >/dev/null
TOKENMILL_LOG_LEVEL=warning TOKENMILL_INJECT_FAULTS=0.05:4 "$dir/tokenmill" work "$tmp/out/_job" --threads 4 --write-behind on
TOKENMILL_LOG_LEVEL=warning "$dir/tokenmill" finalize "$tmp/out/_job"
echo "-- no data races reported"
