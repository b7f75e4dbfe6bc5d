#!/usr/bin/env python3
"""Coordination benchmark: W worker processes drain a job of N tiny tasks through the job store.

Reports coordination requests per task (claims, renewals, done/error records, listing pages,
lease reads, heartbeats), claim conflicts, time to drain, and checks that no task was lost or done
twice. Usage:
  bench/coordination.py --bin build/tokenmill --tasks 10000 --workers 1 8 64 [--store-base URL]
With --store-base s3://bucket/prefix the store and output go to S3 (AWS_* variables as usual).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def make_inputs(folder, n):
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        with open(os.path.join(folder, "t%06d.txt" % i), "w") as f:
            f.write("task %d: a tiny document of one line.\n" % i)


def run_once(binary, inputs, workers, tasks, base, tmp):
    name = "w%d" % workers
    output = "%s/%s" % (base, name) if base else os.path.join(tmp, name)
    job = os.path.join(tmp, name + ".toml")
    with open(job, "w") as f:
        f.write('[input]\npaths = [%s]\n' % json.dumps(os.path.join(inputs, "*.txt")))
        f.write('[tokenizer]\npath = %s\nlowercase = true\n' % json.dumps(
            os.path.join(REPO, "data", "vocab", "bert-base-uncased", "vocab.txt")))
        f.write('[examples]\nkind = "electra"\n[output]\npath = %s\n' % json.dumps(output))
        f.write('[job]\nlease_seconds = 30\n')
    env = dict(os.environ, TOKENMILL_LOG_LEVEL="error")
    subprocess.run([binary, "plan", job], check=True, env=env, stdout=subprocess.DEVNULL)
    store = output + "/_job"
    start = time.time()
    procs = [subprocess.Popen([binary, "work", store, "--threads", "1"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
             for _ in range(workers)]
    codes = [p.wait() for p in procs]
    drain = time.time() - start
    st = json.loads(subprocess.run([binary, "status", store, "--json"], check=True, env=env,
                                   capture_output=True, text=True).stdout)
    fin = subprocess.run([binary, "finalize", store], env=env, capture_output=True, text=True)
    keys = ("claims", "claim_conflicts", "renewals", "records", "listings", "lease_reads",
            "heartbeats")
    sums = {k: sum(w.get(k, 0) for w in st["workers"]) for k in keys}
    requests = sum(sums[k] for k in keys if k != "claim_conflicts")
    done_by_workers = sum(w["tasks_done"] for w in st["workers"])
    return {
        "workers": workers, "tasks": st["tasks"]["total"], "drain_s": round(drain, 2),
        "exit_codes_ok": all(c == 0 for c in codes),
        "done": st["tasks"]["done"], "done_by_workers": done_by_workers,
        "lost": st["tasks"]["total"] - st["tasks"]["done"],
        "doubled": done_by_workers - st["tasks"]["done"],
        "finalize_ok": fin.returncode == 0,
        "requests_per_task": round(requests / max(1, st["tasks"]["total"]), 2),
        **{k + "_per_task": round(v / max(1, st["tasks"]["total"]), 3) for k, v in sums.items()},
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(REPO, "build", "tokenmill"))
    ap.add_argument("--tasks", type=int, default=10000)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 8, 64])
    ap.add_argument("--store-base", default="")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tokenmill-coord-")
    try:
        inputs = os.path.join(tmp, "inputs")
        make_inputs(inputs, args.tasks)
        base = args.store_base.rstrip("/")
        if base:
            base += "/coord-%d" % int(time.time())
        for w in args.workers:
            r = run_once(args.bin, inputs, w, args.tasks, base, tmp)
            print(json.dumps(r))
            sys.stdout.flush()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
