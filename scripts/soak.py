#!/usr/bin/env python3
"""Chaos soak of tokenmill (run by scripts/soak.sh; see docs/failure-model.md).

Each round plans a job into a fresh store, runs workers that are SIGKILLed at random (at least
--kills a round) while every storage request of every process (plan, workers, finalize) may fail
transiently (TOKENMILL_INJECT_FAULTS, --rate), and on S3 restarts the RGW process once in the
middle of the job. Then it lets the job finish, finalizes it, and compares the output folder file
for file with a clean reference run: byte-identical, nothing extra, nothing missing (no temporary
file, no incomplete multipart upload). Prints rounds, kills, injected faults, retries and time.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DATA = os.path.join(ROOT, "data")
INJECTED = "tokenmill: info: injected fault ("
RETRY = "tokenmill: info: storage: retry "


def log(msg):
    print("soak: " + msg, flush=True)


class Soak:
    def __init__(self, args):
        self.args = args
        self.bin = os.path.abspath(args.binary)
        self.tmp = tempfile.mkdtemp(prefix="tokenmill-soak-")
        self.rng = random.Random(args.seed)
        self.totals = {"rounds": 0, "kills": 0, "rgw_restarts": 0, "injected": 0, "retries": 0}
        self.make_corpus()

    # ---- the job ----
    def make_corpus(self):
        with open(os.path.join(DATA, "sample", "part-00.txt"), "rb") as f:
            text = f.read()
        self.big = os.path.join(self.tmp, "big.txt")
        with open(self.big, "wb") as f:
            for _ in range(self.args.copies):
                f.write(text)
                if not text.endswith(b"\n\n"):
                    f.write(b"\n")
        self.inputs = [os.path.join(DATA, "sample", "*.txt"),
                       os.path.join(DATA, "sample", "*.txt.gz"), self.big]

    def write_job(self, name, output):
        path = os.path.join(self.tmp, name + ".toml")
        vocab = os.path.join(DATA, "vocab", "bert-base-chinese", "vocab.txt")
        with open(path, "w") as f:
            f.write("\n".join([
                "[input]", "paths = %s" % json.dumps(self.inputs), 'format = "text"',
                "[tokenizer]", "path = %s" % json.dumps(vocab), "lowercase = true",
                "[examples]", 'kind = "electra"', "max_seq_length = 128", "seed = 12345",
                "[output]", "path = %s" % json.dumps(output), 'format = "tfrecord"',
                "[job]", 'task_size = "%s"' % self.args.task_size, "lease_seconds = 3"]) + "\n")
        return path

    def env(self, seed=None):
        env = dict(os.environ, TOKENMILL_LOG_LEVEL="info")
        env.pop("TOKENMILL_INJECT_FAULTS", None)
        if seed is not None:
            env["TOKENMILL_INJECT_FAULTS"] = "%g:%d" % (self.args.rate, seed)
        return env

    def tokenmill(self, args, env, log_path):
        with open(log_path, "ab") as logf:
            proc = subprocess.run([self.bin] + args, env=env, stdout=subprocess.PIPE,
                                  stderr=logf, timeout=900)
        return proc

    # ---- stores ----
    def location(self, store, name):
        if store == "local":
            return os.path.join(self.tmp, name)
        return "s3://%s/soak-%d-%s/%s" % (os.environ["S3_BUCKET"], os.getpid(), name, "out")

    def aws(self, *args):
        return subprocess.run(["aws", "--endpoint-url", os.environ["S3_ENDPOINT"]] + list(args),
                              check=True, capture_output=True).stdout

    def snapshot(self, store, out):
        """{name: sha256} of the files directly in the output folder (sub-folders as name/),
        and the incomplete writes there."""
        files, incomplete = {}, []
        if store == "local":
            for name in sorted(os.listdir(out)):
                p = os.path.join(out, name)
                if os.path.isdir(p):
                    files[name + "/"] = None
                elif ".tmp." in name:
                    incomplete.append(name)
                else:
                    with open(p, "rb") as f:
                        files[name] = hashlib.sha256(f.read()).hexdigest()
            return files, incomplete
        bucket, key = out[len("s3://"):].split("/", 1)
        listing = json.loads(self.aws("s3api", "list-objects-v2", "--bucket", bucket, "--prefix",
                                      key + "/", "--delimiter", "/") or b"{}")
        for p in listing.get("CommonPrefixes", []):
            files[p["Prefix"][len(key) + 1:]] = None
        local = tempfile.mkdtemp(dir=self.tmp)
        self.aws("s3", "cp", "--recursive", "--quiet", out, local, "--exclude", "_job/*")
        for c in listing.get("Contents", []):
            name = c["Key"][len(key) + 1:]
            with open(os.path.join(local, name), "rb") as f:
                files[name] = hashlib.sha256(f.read()).hexdigest()
        shutil.rmtree(local)
        uploads = json.loads(self.aws("s3api", "list-multipart-uploads", "--bucket", bucket,
                                      "--prefix", key + "/") or b"{}")
        incomplete = [u["Key"] for u in uploads.get("Uploads", [])]
        return files, incomplete

    def remove(self, store, out):
        if store == "local":
            shutil.rmtree(out, ignore_errors=True)
        else:
            subprocess.run(["aws", "--endpoint-url", os.environ["S3_ENDPOINT"], "s3", "rm",
                            "--recursive", "--quiet", out.rsplit("/", 1)[0] + "/"],
                           capture_output=True)

    # ---- RGW ----
    def restart_rgw(self, round_log):
        ceph_dir = os.environ.get("CEPH_DIR", "/tmp/tokenmill-rgw")
        pid_file = os.path.join(ceph_dir, "run", "client.rgw.r.pid")
        with open(pid_file) as f:
            pid = int(f.read().strip())
        os.kill(pid, signal.SIGTERM)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
        down = time.time()
        env = dict(os.environ, CEPH_CONF=os.path.join(ceph_dir, "ceph.conf"))
        subprocess.run(["radosgw", "-n", "client.rgw.r"], env=env, check=True)
        while time.time() < deadline + 30:
            code = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                   "--max-time", "2", os.environ["S3_ENDPOINT"] + "/"],
                                  capture_output=True, text=True).stdout
            if code and code != "000":
                break
            time.sleep(0.1)
        with open(round_log, "a") as f:
            f.write("soak: RGW restarted, down %.1f s\n" % (time.time() - down))

    # ---- one round ----
    def reference(self):
        out = os.path.join(self.tmp, "reference")
        job = self.write_job("reference", out)
        started = time.time()
        proc = subprocess.run([self.bin, "run", job, "--workers", "2", "--quiet"],
                              env=self.env(), capture_output=True, text=True, timeout=900)
        # The kills come at a pace that fits them into the first half of a job as long as this
        # clean run (a round's job, slowed by its faults and kills, takes longer): however fast
        # the machine, every round reaches --kills before its job ends.
        self.kill_gap = min(0.45, (time.time() - started) / (2.0 * self.args.kills))
        if proc.returncode != 0:
            sys.exit("soak: the reference run failed:\n" + proc.stderr)
        files, incomplete = self.snapshot("local", out)
        assert not incomplete
        log("reference: %d files (%d shards)" % (len(files), len(files) - 2))
        return files

    def round(self, store, n, reference):
        start = time.time()
        name = "round-%s-%03d" % (store, n)
        rdir = os.path.join(self.tmp, name + "-logs")
        os.makedirs(rdir)
        out = self.location(store, name)
        job = self.write_job(name, out)
        job_store = out + "/_job"
        seed = self.args.seed * 100000 + n * 100
        plan = self.tokenmill(["plan", job], self.env(seed), os.path.join(rdir, "plan.log"))
        if plan.returncode != 0:
            return self.fail(store, n, rdir, "plan exited %d" % plan.returncode)
        live, exited, kills, spawned = [], [], 0, 0
        # The RGW of scripts/ceph-rgw.sh is restarted once a round; another S3 server is not.
        ceph_dir = os.environ.get("CEPH_DIR", "/tmp/tokenmill-rgw")
        restart = store == "s3" and os.path.exists(os.path.join(ceph_dir, "run",
                                                                "client.rgw.r.pid"))
        restarter = None

        def spawn():
            nonlocal spawned
            spawned += 1
            logf = open(os.path.join(rdir, "worker-%03d.log" % spawned), "wb")
            p = subprocess.Popen([self.bin, "work", job_store, "--threads", "1"],
                                 env=self.env(seed + spawned), stdout=subprocess.DEVNULL,
                                 stderr=logf)
            logf.close()
            p.log = os.path.join(rdir, "worker-%03d.log" % spawned)
            live.append(p)

        while kills < self.args.kills:
            while len(live) < self.args.workers:
                spawn()
            time.sleep(self.rng.uniform(0.45, 1.55) * self.kill_gap)
            for p in [p for p in live if p.poll() is not None]:
                live.remove(p)
                exited.append(p)
            if not live:
                continue
            if any(p.returncode == 0 for p in exited):
                break  # the job finished before the kills did
            victim = live.pop(self.rng.randrange(len(live)))
            victim.kill()
            victim.wait()
            kills += 1
            if restart and kills >= self.args.kills // 2:
                restart = False
                restarter = threading.Thread(
                    target=self.restart_rgw, args=(os.path.join(rdir, "rgw.log"),))
                restarter.start()
        if restarter:
            restarter.join()
        # Let it finish: the survivors and two fresh workers.
        for _ in range(2):
            spawn()
        for p in live:
            p.wait(timeout=900)
            exited.append(p)
        bad = [(os.path.basename(p.log), p.returncode) for p in exited if p.returncode != 0]
        fin = self.tokenmill(["finalize", job_store], self.env(seed + 99),
                             os.path.join(rdir, "finalize.log"))
        injected = retries = 0
        for log_name in os.listdir(rdir):
            with open(os.path.join(rdir, log_name), errors="replace") as f:
                for line in f:
                    injected += line.startswith(INJECTED)
                    retries += line.startswith(RETRY)
        files, incomplete = self.snapshot(store, out)
        problems = []
        if kills < self.args.kills:
            problems.append("only %d kills before the job ended: use a bigger --copies" % kills)
        if bad:
            problems.append("workers exited with errors: %s" % bad)
        if fin.returncode != 0:
            problems.append("finalize exited %d" % fin.returncode)
        expected = dict(reference)
        expected["_job/"] = None
        missing = sorted(set(expected) - set(files))
        extra = sorted(set(files) - set(expected))
        differ = sorted(k for k in expected if k in files and files[k] != expected[k])
        if missing:
            problems.append("missing: %s" % missing[:10])
        if extra:
            problems.append("extra: %s" % extra[:10])
        if differ:
            problems.append("different bytes: %s" % differ[:10])
        if incomplete:
            problems.append("incomplete writes left: %s" % incomplete[:10])
        took = time.time() - start
        restarted = int(store == "s3" and restarter is not None)
        for k, v in (("kills", kills), ("rgw_restarts", restarted), ("injected", injected),
                     ("retries", retries)):
            self.totals[k] += v
        self.totals["rounds"] += 1
        summary = ("round %d/%d [%s]: %d kills%s, %d workers, %d injected faults, %d retries, "
                   "%.1f s" % (n, self.args.rounds, store, kills,
                               ", RGW restarted" if restarted else "", spawned, injected,
                               retries, took))
        if problems:
            return self.fail(store, n, rdir, summary + ": " + "; ".join(problems))
        log(summary + ": identical (%d files)" % len(reference))
        self.remove(store, out)
        shutil.rmtree(rdir, ignore_errors=True)
        return True

    def fail(self, store, n, rdir, why):
        keep = os.path.join(tempfile.gettempdir(), "tokenmill-soak-failed-%s-%d-%d" %
                            (store, n, os.getpid()))
        shutil.copytree(rdir, keep, dirs_exist_ok=True)
        log("FAILED " + why + " (logs in %s)" % keep)
        return False

    def run(self):
        start = time.time()
        reference = self.reference()
        ok = True
        for store in self.args.stores:
            for n in range(1, self.args.rounds + 1):
                ok = self.round(store, n, reference) and ok
        t = self.totals
        log("%s: %d rounds on %s: %d kills, %d RGW restarts, %d injected faults, %d retries, "
            "%.0f s" % ("passed" if ok else "FAILED", t["rounds"], "+".join(self.args.stores),
                        t["kills"], t["rgw_restarts"], t["injected"], t["retries"],
                        time.time() - start))
        shutil.rmtree(self.tmp, ignore_errors=True)
        return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--stores", default=None,
                    help="comma-separated: local,s3 (default: local, and s3 when S3_ENDPOINT and "
                         "S3_BUCKET are set)")
    ap.add_argument("--kills", type=int, default=10, help="SIGKILLs a round (at least)")
    ap.add_argument("--workers", type=int, default=3, help="workers alive during the chaos")
    ap.add_argument("--rate", type=float, default=0.1, help="TOKENMILL_INJECT_FAULTS rate")
    ap.add_argument("--copies", type=int, default=12,
                    help="size of the big input, in copies of data/sample/part-00.txt")
    ap.add_argument("--task-size", default="32KiB")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "tokenmill"))
    args = ap.parse_args()
    if args.stores is None:
        args.stores = ["local"] + (["s3"] if os.environ.get("S3_ENDPOINT") and
                                   os.environ.get("S3_BUCKET") else [])
    else:
        args.stores = args.stores.split(",")
    if "s3" in args.stores and not (os.environ.get("S3_ENDPOINT") and
                                    os.environ.get("S3_BUCKET")):
        sys.exit("soak: --stores s3 needs S3_ENDPOINT, S3_BUCKET and the AWS_* variables "
                 "(bash scripts/ceph-rgw.sh && source /tmp/tokenmill-rgw/env.sh)")
    return Soak(args).run()


if __name__ == "__main__":
    sys.exit(main())
