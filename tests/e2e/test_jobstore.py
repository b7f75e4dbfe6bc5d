"""The job store end to end: many workers, crashes, frozen workers, poisoned tasks, signals,
resume. Real processes on real files; every run is compared byte for byte with one worker."""

import gzip
import json
import os
import random
import shutil
import signal
import subprocess
import time
import unittest

import tmtest
from tmtest import run, spawn, write_job, output_digests, status_json, wait_for


class JobStoreBase(tmtest.TempDirTest):
    """Jobs over the sample corpus and a bigger file, with a single-worker reference run."""
    # Subclasses (the S3 suites) override these to put the store and output elsewhere.
    def location(self, name):
        return self.path(name)

    def fetch_manifest(self, output):
        with open(os.path.join(output, "manifest.json"), "rb") as f:
            return f.read()

    def shard_digests(self, output):
        return output_digests(output)

    def env(self):
        return None

    def setUp(self):
        super().setUp()
        # A bigger corpus than the sample, so that tasks take a moment: the sample ten times.
        src = os.path.join(tmtest.DATA, "sample", "part-00.txt")
        with open(src, "rb") as f:
            text = f.read()
        self.big = self.path("big.txt")
        with open(self.big, "wb") as f:
            for _ in range(6):
                f.write(text)
                if not text.endswith(b"\n\n"):
                    f.write(b"\n")
        self.inputs = tmtest.sample_inputs() + [self.big]

    def job(self, name, **kw):
        kw.setdefault("task_size", "256KiB")
        kw.setdefault("lease_seconds", 3)
        inputs = kw.pop("inputs", self.inputs)
        output = self.location(name)
        path = write_job(self.path(name + ".toml"), inputs, output, **kw)
        return path, output, output + "/_job"

    def reference(self, task_size="256KiB"):
        """The single-worker run every other run with the same task size must equal."""
        refs = self.__dict__.setdefault("_refs", {})
        if task_size not in refs:
            job, out, store = self.job("ref-" + task_size, task_size=task_size)
            run(["run", job, "--workers", "1", "--quiet"], env=self.env(), timeout=600)
            refs[task_size] = (self.shard_digests(out), self.fetch_manifest(out))
            self.assertGreater(len(refs[task_size][0]), 5)
        return refs[task_size]

    def assert_same_as_reference(self, out, task_size="256KiB"):
        digests, manifest = self.reference(task_size)
        self.assertEqual(self.shard_digests(out), digests)
        self.assertEqual(self.fetch_manifest(out), manifest)


class JobStoreTest(JobStoreBase):
    def test_eight_workers_equal_one(self):
        job, out, store = self.job("w8")
        proc = run(["run", job, "--workers", "8", "--quiet"], env=self.env(), timeout=600)
        self.assertIn("done", proc.stdout)
        self.assert_same_as_reference(out)
        st = status_json(store, env=self.env())
        self.assertTrue(st["complete"])
        self.assertEqual(st["tasks"]["done"], st["tasks"]["total"])
        self.assertGreater(st["tasks"]["total"], 8)
        # Running it again reports it done and changes nothing.
        again = run(["run", job, "--quiet"], env=self.env())
        self.assertIn("already done", again.stdout)
        self.assert_same_as_reference(out)

    def test_plan_work_finalize_with_two_workers(self):
        job, out, store = self.job("pw")
        run(["plan", job], env=self.env())
        workers = [spawn(["work", store, "--threads", "1"], env=self.env()) for _ in range(2)]
        self.procs += workers
        for w in workers:
            self.assertEqual(w.wait(timeout=600), 0, w.stderr.read())
        run(["finalize", store], env=self.env())
        self.assert_same_as_reference(out)

    def test_chaos_sigkill(self):
        # Small tasks, so that the job outlasts several kills however fast the workers are.
        job, out, store = self.job("chaos", task_size="64KiB")
        run(["plan", job], env=self.env())
        rng = random.Random(7)
        live = []
        deadline = time.time() + 12
        kills = 0
        exited_by_themselves = 0
        while time.time() < deadline and exited_by_themselves < 3:
            while len(live) < 3:
                p = spawn(["work", store, "--threads", "1"], env=self.env())
                self.procs.append(p)
                live.append(p)
            time.sleep(rng.uniform(0.1, 0.5))
            victim = live.pop(rng.randrange(len(live)))
            if victim.poll() is None:
                victim.kill()
                kills += 1
            else:
                exited_by_themselves += 1  # no work left for it
            victim.wait()
        self.assertGreaterEqual(kills, 3, "the job ended before the chaos could start")
        # Let the survivors and a fresh worker finish; expired leases are taken over.
        final = spawn(["work", store, "--threads", "2"], env=self.env())
        self.procs.append(final)
        self.assertEqual(final.wait(timeout=600), 0, final.stderr.read())
        for p in live:
            p.wait(timeout=120)
        run(["finalize", store], env=self.env())
        st = status_json(store, env=self.env())
        self.assertEqual(st["tasks"]["done"], st["tasks"]["total"])
        self.assertEqual(st["tasks"]["failed"], 0)
        self.assert_same_as_reference(out, task_size="64KiB")

    def test_takeover_race_has_one_winner(self):
        # One task whose worker was killed: a dozen workers started together find its lease
        # expired and race to take it over. Exactly one wins (the next attempt's lease is created
        # if absent) and runs it; the others wait for it and exit 0.
        slow = self.path("slow.txt.gz")
        with open(os.path.join(tmtest.DATA, "sample", "part-00.txt"), "rb") as f:
            text = f.read()
        with gzip.open(slow, "wb", compresslevel=1) as f:
            for _ in range(20):
                f.write(text)
        job, out, store = self.job("race", inputs=[slow], lease_seconds=3)
        run(["plan", job], env=self.env())
        first = spawn(["work", store, "--threads", "1"], env=self.env())
        self.procs.append(first)
        wait_for(lambda: status_json(store, env=self.env())["tasks"]["leased"] == 1, 60,
                 what="the task to be leased")
        first.kill()
        first.wait()
        st = status_json(store, env=self.env())
        self.assertEqual(st["tasks"]["done"], 0, "the task finished before the kill")
        wait_for(lambda: status_json(store, env=self.env())["tasks"]["leased"] == 0, 30,
                 what="the lease to expire")
        env = dict(self.env() or {}, TOKENMILL_LOG_LEVEL="info")
        racers = [spawn(["work", store, "--threads", "1"], env=env) for _ in range(12)]
        self.procs += racers
        logs = []
        for r in racers:
            _, err = r.communicate(timeout=300)
            self.assertEqual(r.returncode, 0, err)
            logs.append(err)
        winners = [log for log in logs if "took over an expired lease" in log]
        self.assertEqual(len(winners), 1, "\n----\n".join(logs))
        self.assertIn("(attempt 2)", winners[0])
        st = status_json(store, env=self.env())
        self.assertTrue(st["complete"])
        self.assertEqual(sum(w["tasks_done"] for w in st["workers"]), 1)

    def test_a_worker_whose_clock_is_minutes_off_does_no_work(self):
        # libfaketime shifts the worker's clock, not the store's (the file system's or the S3
        # server's dates; NO_FAKE_STAT keeps it from shifting the file dates the worker reads).
        faketime = shutil.which("faketime")
        if faketime is None:
            self.skipTest("faketime is not installed (Debian: apt-get install faketime)")
        job, out, store = self.job("skew")
        run(["plan", job], env=self.env())
        env = dict(self.env() or {}, NO_FAKE_STAT="1", FAKETIME_DONT_FAKE_MONOTONIC="1")
        for offset, word in (("+10m", "ahead of"), ("-10m", "behind")):
            proc = subprocess.run([faketime, "-f", offset, tmtest.BIN, "work", store,
                                   "--threads", "1"], capture_output=True, text=True,
                                  env=dict(os.environ, **env), timeout=120)
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertRegex(proc.stderr, r"this machine's clock is at least (59\d|600)(\.\d+)? s")
            self.assertIn("%s the job store's" % word, proc.stderr)
            self.assertIn("Synchronise this machine's clock", proc.stderr)
        st = status_json(store, env=self.env())
        self.assertEqual(st["tasks"]["done"], 0)
        self.assertEqual(st["tasks"]["leased"], 0)
        # Why they left is in the store: status names each worker and its reason.
        errors = sorted(w["error"] for w in st["workers"])
        self.assertEqual(len(errors), 2)
        self.assertIn("ahead of the job store's", errors[0] + errors[1])
        self.assertIn("behind the job store's", errors[0] + errors[1])
        text = run(["status", store], env=self.env()).stdout
        self.assertEqual(text.count(") stopped: FailedPrecondition: this machine's clock"), 2,
                         text)
        # In step with the store, a worker does the job.
        run(["work", store, "--threads", "2"], env=self.env(), timeout=600)
        run(["finalize", store], env=self.env())
        self.assert_same_as_reference(out)

    def test_poisoned_task_fails_after_max_attempts(self):
        bad = tmtest.truncated_gz(self.path("poison.txt.gz"))
        job, out, store = self.job("poison", inputs=tmtest.sample_inputs() + [bad],
                                   max_attempts=2)
        run(["plan", job], env=self.env())
        w = spawn(["work", store, "--threads", "2"], env=self.env())
        self.procs.append(w)
        self.assertEqual(w.wait(timeout=300), 1)
        st = status_json(store, env=self.env())
        self.assertEqual(st["tasks"]["failed"], 1)
        self.assertEqual(st["tasks"]["done"], st["tasks"]["total"] - 1)
        self.assertIn("poison.txt.gz", json.dumps(st["failures"]))
        text = run(["status", store], env=self.env()).stdout
        self.assertIn("failed task", text)
        fin = run(["finalize", store], check=False, env=self.env())
        self.assertEqual(fin.returncode, 1)
        self.assertIn("incomplete", fin.stderr)


class SlowTaskTest(tmtest.TempDirTest):
    """Tests that need one task that runs for a few seconds (signals, frozen workers)."""

    def location(self, name):
        return self.path(name)

    def env(self):
        return None

    def setUp(self):
        super().setUp()
        src = os.path.join(tmtest.DATA, "sample", "part-00.txt")
        with open(src, "rb") as f:
            text = f.read()
        self.slow = self.path("slow.txt.gz")
        with gzip.open(self.slow, "wb", compresslevel=1) as f:
            for _ in range(40):
                f.write(text)

    def slow_job(self, name, lease_seconds):
        output = self.location(name)
        job = write_job(self.path(name + ".toml"), [self.slow], output,
                        lease_seconds=lease_seconds)
        run(["plan", job], env=self.env())
        return output + "/_job", output

    def test_sigterm_releases_the_lease(self):
        store, out = self.slow_job("term", lease_seconds=120)
        w = spawn(["work", store], env=self.env())
        self.procs.append(w)
        wait_for(lambda: status_json(store, env=self.env())["tasks"]["leased"] == 1, 60,
                 what="the task to be leased")
        w.send_signal(signal.SIGTERM)
        self.assertEqual(w.wait(timeout=30), 143)
        st = status_json(store, env=self.env())
        self.assertEqual(st["tasks"]["leased"], 0)
        self.assertEqual(st["tasks"]["pending"], 1)
        # The next worker takes it at once, long before the 120 s lease would expire.
        start = time.time()
        run(["work", store], env=self.env(), timeout=110)
        self.assertLess(time.time() - start, 100)
        self.assertTrue(status_json(store, env=self.env())["complete"])

    def test_frozen_worker_loses_its_task_and_does_not_publish(self):
        store, out = self.slow_job("frozen", lease_seconds=3)
        a = spawn(["work", store], env=self.env())
        self.procs.append(a)
        wait_for(lambda: status_json(store, env=self.env())["tasks"]["leased"] == 1, 60,
                 what="the task to be leased")
        a.send_signal(signal.SIGSTOP)
        b = spawn(["work", store], env=self.env())
        self.procs.append(b)
        self.assertEqual(b.wait(timeout=300), 0, b.stderr.read())
        done = self.read_done_record(store)
        self.assertIn("-%d-" % b.pid, done["holder"])
        before = self.shard_state(out)
        a.send_signal(signal.SIGCONT)
        code = a.wait(timeout=120)
        err = a.stderr.read()
        self.assertEqual(code, 0, err)
        self.assertEqual(self.shard_state(out), before)
        self.assertEqual(self.read_done_record(store)["holder"], done["holder"])

    def read_done_record(self, store):
        return json.loads(tmtest.read_store_object(os.path.join(store, "done", "000000.json")))

    def shard_state(self, out):
        state = {}
        for name in sorted(os.listdir(out)):
            if name.startswith("part-"):
                st = os.stat(os.path.join(out, name))
                state[name] = (st.st_ino, st.st_mtime_ns, st.st_size)
        return state

    def test_resume_after_interrupting_run(self):
        job_inputs = [self.slow] + tmtest.sample_inputs()
        out = self.location("resume")
        job = write_job(self.path("resume.toml"), job_inputs, out, lease_seconds=3,
                        task_size="128KiB")
        p = subprocess.Popen([tmtest.BIN, "run", job, "--workers", "2", "--quiet"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        store = out + "/_job"
        wait_for(lambda: tmtest.job_planned(store) and status_json(store)["tasks"]["done"] >= 1,
                 120, what="some tasks done")
        # Freeze the workers, so that the job cannot finish between the status read and the
        # interrupt however loaded the machine is; `run` forwards SIGTERM to them, and once it
        # is pending in both, SIGCONT delivers it.
        workers = tmtest.child_pids(p.pid)
        self.assertEqual(len(workers), 2, workers)
        tmtest.freeze(workers)
        self.assertFalse(status_json(store)["complete"])
        p.send_signal(signal.SIGTERM)
        wait_for(lambda: all(tmtest.signal_pending(w, signal.SIGTERM) for w in workers), 30,
                 interval=0.02, what="`run` to forward SIGTERM to its workers")
        for pid in workers:
            os.kill(pid, signal.SIGCONT)
        self.assertEqual(p.wait(timeout=60), 143)
        st = status_json(store)
        self.assertFalse(st["complete"])
        second = run(["run", job, "--workers", "2", "--quiet"], timeout=600)
        self.assertIn("resumed", second.stdout)
        ref_out = self.location("resume-ref")
        ref_job = write_job(self.path("resume-ref.toml"), job_inputs, ref_out,
                            lease_seconds=3, task_size="128KiB")
        run(["run", ref_job, "--workers", "1", "--quiet"], timeout=600)
        self.assertEqual(output_digests(out), output_digests(ref_out))

    def test_changed_job_file_is_refused(self):
        out = self.location("changed")
        job = write_job(self.path("changed.toml"), tmtest.sample_inputs(), out)
        run(["run", job, "--quiet"])
        write_job(self.path("changed.toml"), tmtest.sample_inputs(), out, task_size="32KiB")
        proc = run(["run", job, "--quiet"], check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("changed", proc.stderr)
        self.assertIn("--fresh", proc.stderr)
        fresh = run(["run", job, "--fresh", "--quiet"])
        self.assertIn("done", fresh.stdout)


if __name__ == "__main__":
    unittest.main()
