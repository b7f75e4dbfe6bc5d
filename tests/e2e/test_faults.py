"""Hardening end to end, on a folder store (test_faults_s3.py runs the same on S3):
  * TOKENMILL_INJECT_FAULTS: every storage request of plan, the workers and finalize may fail
    transiently; the job still completes with byte-identical output, and no worker exits
    because of a fault;
  * finalize (and run) leave the output folder with the manifest's files and the job store only:
    orphaned incomplete writes of the job's own names are removed, others' are kept;
  * records of the job store edited to point outside the job are refused."""

import hashlib
import json
import os
import re
import unittest

import tmtest
from tmtest import edit_store_record, run, spawn, status_json, store_object_path
from test_jobstore import JobStoreBase

LAST_LINE = re.compile(r"^tokenmill: worker exits 0 after (\d+) injected faults$")


class FaultsTest(JobStoreBase):
    # ---- Hooks for the S3 suite ----
    def listing(self, out):
        """Names of the objects directly in the output folder, and the sub-folders."""
        return set(os.listdir(out))

    def plant_incomplete(self, out, names):
        """Leaves an incomplete write of each name in the output folder, as a crash would."""
        for i, name in enumerate(names):
            with open(os.path.join(out, ".%s.tmp.%d.%016x" % (name, 4000 + i, i)), "wb") as f:
                f.write(b"partial shard bytes")

    def incomplete(self, out):
        """Names of the objects with an incomplete write in the output folder."""
        return {re.sub(r"^\.(.*)\.tmp\.\d+\.[0-9a-f]+$", r"\1", n)
                for n in os.listdir(out) if ".tmp." in n}

    # ----
    def expected_listing(self, out):
        manifest = json.loads(self.fetch_manifest(out))
        return {s["name"] for s in manifest["shards"]} | {"manifest.json", "_job"}

    def test_injected_faults_are_survived(self):
        job, out, store = self.job("faults", task_size="64KiB", lease_seconds=3)
        env = lambda seed: dict(self.env() or {}, TOKENMILL_INJECT_FAULTS="0.1:%d" % seed)
        run(["plan", job], env=env(100))
        workers = [spawn(["work", store, "--threads", "1"], env=env(seed)) for seed in (1, 2, 3)]
        self.procs += workers
        injected = 0
        for w in workers:
            _, err = w.communicate(timeout=600)
            self.assertEqual(w.returncode, 0, err)
            last = err.strip().splitlines()[-1]
            m = LAST_LINE.match(last)
            self.assertIsNotNone(m, "last log line: %r\n%s" % (last, err))
            injected += int(m.group(1))
            self.assertIn("retries", err)
        self.assertGreater(injected, 20)
        fin = run(["finalize", store], env=env(200))
        self.assertIn("manifest.json", fin.stdout)
        st = status_json(store, env=self.env())
        self.assertTrue(st["complete"])
        self.assertEqual(st["tasks"]["done"], st["tasks"]["total"])
        self.assertEqual(st["tasks"]["failed"], 0)
        self.assertEqual(st["failures"], [])
        self.assert_same_as_reference(out, task_size="64KiB")
        self.assertEqual(self.listing(out), self.expected_listing(out))

    def test_a_bad_setting_is_refused(self):
        job, out, store = self.job("badsetting")
        proc = run(["plan", job], check=False,
                   env=dict(self.env() or {}, TOKENMILL_INJECT_FAULTS="lots"))
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("TOKENMILL_INJECT_FAULTS='lots'", proc.stderr)

    def test_finalize_and_run_remove_orphaned_incomplete_writes(self):
        job, out, store = self.job("clean")
        run(["run", job, "--workers", "2", "--quiet"], env=self.env())
        expected = self.expected_listing(out)
        own = ["part-000001-000.tfrecord", "part-000223-000.tfrecord", "manifest.json"]
        foreign = ["notes.txt", "part-1.tfrecord"]
        self.plant_incomplete(out, own + foreign)
        self.assertEqual(self.incomplete(out), set(own + foreign))
        fin = run(["finalize", store], env=self.env())
        self.assertIn("removed 3 incomplete writes", fin.stderr)
        self.assertEqual(self.incomplete(out), set(foreign))
        self.assertEqual(self.listing(out) - {n for n in self.listing(out) if ".tmp." in n},
                         expected)
        self.assert_same_as_reference(out)
        # `run` of the finished job finalizes again, and cleans the same way.
        self.plant_incomplete(out, own[:1])
        again = run(["run", job, "--quiet"], env=self.env())
        self.assertIn("already done", again.stdout)
        self.assertEqual(self.incomplete(out), set(foreign))


class TamperedStoreTest(tmtest.TempDirTest):
    """Records edited to point outside the job are refused (a folder store, edited in place)."""

    def planned(self, name):
        out = self.path(name)
        job = tmtest.write_job(self.path(name + ".toml"), tmtest.sample_inputs(), out)
        run(["plan", job])
        return out, out + "/_job"

    def edit_job_record(self, store, change):
        edit_store_record(os.path.join(store, "job.json"), change)

    def edit_tasks(self, store, change):
        path = store_object_path(os.path.join(store, "tasks.jsonl"))
        with open(path) as f:
            tasks = [json.loads(line) for line in f if line.strip()]
        change(tasks)
        data = "".join(json.dumps(t) + "\n" for t in tasks).encode()
        os.chmod(path, 0o644)
        with open(path, "wb") as f:
            f.write(data)
        self.edit_job_record(store, lambda r: r.update(tasks_sha256=hashlib.sha256(data).hexdigest()))

    def test_task_outside_the_inputs_is_refused(self):
        secret = self.path("secret.txt")
        with open(secret, "w") as f:
            f.write("not an input\n")
        for url in (secret, os.path.join(tmtest.DATA, "sample", "..", "..", "README.md"),
                    "s3://another-bucket/part-00.txt"):
            out, store = self.planned("t%d" % abs(hash(url)))

            def point(tasks, url=url):
                tasks[0]["url"] = url
            self.edit_tasks(store, point)
            proc = run(["work", store], check=False)
            self.assertEqual(proc.returncode, 1, proc.stderr)
            self.assertIn("task 0 (%s)" % url, proc.stderr)
            self.assertIn("edited by hand", proc.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "part-000000-000.tfrecord")))

    def test_tokenizer_file_outside_the_store_is_refused(self):
        out, store = self.planned("tok")
        self.edit_job_record(store, lambda r: r["tokenizer_files"][0].update(
            name="../../../../etc/passwd"))
        proc = run(["work", store], check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("not a plain file name", proc.stderr)

    def test_edited_spec_is_refused(self):
        out, store = self.planned("spec")

        def elsewhere(r):
            spec = json.loads(r["spec_json"])
            spec["output"]["path"] = "/tmp/elsewhere"
            r["spec_json"] = json.dumps(spec, sort_keys=True, separators=(",", ":"))
        self.edit_job_record(store, elsewhere)
        proc = run(["work", store], check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("spec_digest", proc.stderr)

    def test_done_record_outside_the_output_is_refused(self):
        out, store = self.planned("done")
        run(["work", store])
        edit_store_record(os.path.join(store, "done", "000000.json"),
                          lambda done: done["shards"][0].update(name="../../etc/passwd"))
        proc = run(["finalize", store], check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("is not a shard name of task 0", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))


if __name__ == "__main__":
    unittest.main()
