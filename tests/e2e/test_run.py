"""`tokenmill run` on the sample corpus, `inspect`, `tokenize`, and clear errors for bad input."""

import glob
import gzip
import json
import os
import shutil
import struct
import subprocess
import time
import unittest

import tmtest
from tmtest import run, write_job, output_digests


def tfrecords(path):
    """Yields the payloads of a TFRecord file (framing checked by inspect, not here)."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from("<Q", data, pos)
        yield data[pos + 12: pos + 12 + length]
        pos += 12 + length + 4


class RunTest(tmtest.TempDirTest):
    def test_example_job_inspect_and_determinism(self):
        out1 = self.path("a")
        job1 = tmtest.example_job(self.tmp, "electra-zh-en.toml", out1)
        proc = run(["run", job1, "--quiet"])
        summary = proc.stdout.strip().splitlines()[-1]
        for word in ("documents", "tokens", "examples", "shards", "MB/s"):
            self.assertIn(word, summary)
        with open(os.path.join(out1, "manifest.json")) as f:
            manifest = json.load(f)
        shards = sorted(glob.glob(os.path.join(out1, "part-*.tfrecord")))
        self.assertEqual([os.path.basename(s) for s in shards],
                         [s["name"] for s in manifest["shards"]])
        self.assertGreater(manifest["totals"]["examples"], 1000)
        for key in ("documents", "lines", "tokens", "unk_tokens", "examples",
                    "truncated_tokens", "dropped_bytes"):
            self.assertIn(key, manifest["totals"])
        for key in ("tokenmill_version", "tokenizer", "job"):
            self.assertIn(key, manifest)
        text = json.dumps(manifest)
        for word in ("host", "time", "retries", out1):
            self.assertNotIn(word, text)

        insp = run(["inspect"] + shards + ["--json"])
        report = json.loads(insp.stdout.strip().splitlines()[-1])
        self.assertEqual(report["records"], manifest["totals"]["examples"])
        # The output folder, or its manifest, stands for every shard the manifest lists.
        for whole in (out1, os.path.join(out1, "manifest.json")):
            by_folder = run(["inspect", whole, "--json"]).stdout.strip().splitlines()
            self.assertEqual(insp.stdout.strip().splitlines(), by_folder)
        # A folder that is no job's output says what to pass instead.
        empty = self.path("empty")
        os.mkdir(empty)
        refused = run(["inspect", empty], check=False)
        self.assertNotEqual(refused.returncode, 0)
        self.assertIn("neither a shard nor the output of a finished job", refused.stderr)
        self.assertIn(os.path.join(empty, "manifest.json"), refused.stderr)
        shown = run(["inspect", shards[0], "--limit", "2", "--tokenizer",
                     os.path.join(tmtest.DATA, "vocab", "bert-base-chinese", "vocab.txt")])
        self.assertIn("[CLS]", shown.stdout)
        self.assertIn("[SEP]", shown.stdout)

        out2 = self.path("b")
        run(["run", tmtest.example_job(self.tmp, "electra-zh-en.toml", out2), "--quiet",
             "--workers", "2"])
        self.assertEqual(output_digests(out1), output_digests(out2))

    def test_write_behind_gives_the_same_shards_and_follows_idle_cpus(self):
        # Text whose shards outgrow the 1 MiB write buffer, so that write-behind threads run.
        with open(os.path.join(tmtest.DATA, "sample", "part-00.txt"), "rb") as f:
            data = f.read()
        text = self.path("big.txt")
        with open(text, "wb") as f:
            f.write(data * 3)

        def worker_flags(out):
            folder = os.path.join(out, "_job", "workers")
            names = sorted({n[:-2] if n.endswith(".v") else n for n in os.listdir(folder)})
            return [json.loads(tmtest.read_store_object(os.path.join(folder, n)))["write_behind"]
                    for n in names]

        digests = {}
        for mode in ("on", "off"):
            out = self.path("out-" + mode)
            job = write_job(self.path(mode + ".toml"), [text], out, task_size="2MiB")
            run(["plan", job])
            store = os.path.join(out, "_job")
            run(["work", store, "--threads", "1", "--write-behind", mode])
            run(["finalize", store])
            self.assertEqual(worker_flags(out), [mode == "on"])
            digests[mode] = output_digests(out)
        self.assertEqual(digests["on"], digests["off"])
        shards = glob.glob(os.path.join(self.path("out-on"), "part-*.tfrecord"))
        self.assertGreater(max(os.path.getsize(s) for s in shards), 1 << 20)

        # `run` writes behind only when its workers leave one of its CPUs idle.
        cpus = len(os.sched_getaffinity(0))
        for workers in sorted({1, cpus}):
            out = self.path("run-%d" % workers)
            run(["run", write_job(self.path("run.toml"), [text], out, task_size="2MiB"),
                 "--quiet", "--workers", str(workers)])
            self.assertEqual(worker_flags(out), [workers < cpus] * workers)
            self.assertEqual(output_digests(out), digests["on"])

    def test_larger_tasks_are_claimed_first(self):
        # One gzipped file (one task, its bytes counted four times) beside plain files of
        # different sizes: once it has won a claim, a worker takes the tasks largest size class
        # first (docs/protocol.md, "Finding work"), so that a job ends on small tasks.
        with open(os.path.join(tmtest.DATA, "sample", "part-00.txt"), "rb") as f:
            lines = f.read().splitlines(keepends=True)

        def take(size):
            out = b""
            while len(out) < size:
                out += lines.pop(0)
            return out

        inputs = []
        for name, size in (("d.txt", 1200), ("b.txt", 20000), ("a.txt.gz", 100000),
                           ("c.txt", 5000), ("e.txt", 1300)):
            path = self.path(name)
            text = take(size)
            with (gzip.open(path, "wb") if name.endswith(".gz") else open(path, "wb")) as f:
                f.write(text)
            inputs.append(path)
        out = self.path("out")
        job = write_job(self.path("job.toml"), inputs, out, task_size="64MiB")
        run(["plan", job])
        store = os.path.join(out, "_job")
        run(["work", store, "--threads", "1"])
        run(["finalize", store])

        with open(os.path.join(store, "tasks.jsonl")) as f:
            tasks = [json.loads(line) for line in f]

        def size_class(task):  # FreeTasks' class of TaskWork(task)
            work = (task["end"] - task["begin"]) * (4 if task["compressed"] else 1)
            return work.bit_length()

        classes = [size_class(t) for t in tasks]
        self.assertEqual(len(set(classes)), 4, classes)  # d and e share one
        # The order of the claims: the sequence number of each task's first lease record (one
        # worker's ledger numbers its writes).
        claimed = []
        for task in tasks:
            folder = os.path.join(store, "leases", "%06d-0001.v" % task["id"])
            with open(os.path.join(folder, sorted(os.listdir(folder))[0])) as f:
                claimed.append((json.load(f)["seq"], task["id"]))
        order = [t for _, t in sorted(claimed)]
        # The first claim is at random (a fleet starting at once spreads over the job); from the
        # second on, the largest first.
        gz = [t["id"] for t in tasks if t["url"] == self.path("a.txt.gz")][0]
        self.assertIn(gz, order[:2])
        rest = order[1:]
        self.assertEqual([classes[t] for t in rest],
                         sorted((classes[t] for t in rest), reverse=True))

    def test_a_limit_on_threads_is_worked_around_or_named(self):
        """A worker that cannot start all its threads (ulimit -u, a container's pids limit)
        writes and publishes on the threads it has, or says which limit stops it."""
        if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("prlimit"):
            self.skipTest("needs root, setpriv and prlimit to run a worker as nobody under "
                          "RLIMIT_NPROC (root is exempt from it)")
        as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        if subprocess.run(as_nobody + ["test", "-x", tmtest.BIN]).returncode != 0:
            self.skipTest("user nobody cannot run %s" % tmtest.BIN)
        os.chmod(self.tmp, 0o777)
        with open(os.path.join(tmtest.DATA, "sample", "part-00.txt"), "rb") as f:
            data = f.read()
        text = self.path("big.txt")
        with open(text, "wb") as f:
            f.write(data * 3)  # shards past the 1 MiB write buffer
        os.chmod(text, 0o644)

        def plan(name):
            out = self.path(name)
            run(["plan", write_job(self.path(name + ".toml"), [text], out, task_size="1MiB")])
            for root, dirs, files in os.walk(out):
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o777)
                for f in files:
                    os.chmod(os.path.join(root, f), 0o666)
            os.chmod(out, 0o777)
            return out

        def nobody_threads():  # what RLIMIT_NPROC counts already for user nobody
            count = 0
            for status in glob.glob("/proc/[0-9]*/status"):
                try:
                    with open(status) as f:
                        fields = dict(line.split(":", 1) for line in f if ":" in line)
                except OSError:
                    continue
                if fields.get("Uid", "").split()[:1] == ["65534"]:
                    count += int(fields.get("Threads", "1"))
            return count

        def work(out, nproc):
            nproc += nobody_threads()
            return subprocess.run(
                as_nobody + ["prlimit", "--nproc=%d" % nproc, tmtest.BIN, "work",
                             os.path.join(out, "_job"), "--threads", "2", "--write-behind", "on"],
                capture_output=True, text=True, timeout=120,
                # LeakSanitizer's exit check (sanitizer builds) needs a thread of its own.
                env=dict(os.environ, TMPDIR=self.tmp, TOKENMILL_LOG_LEVEL="warning",
                         ASAN_OPTIONS=(os.environ.get("ASAN_OPTIONS", "") +
                                       ":detect_leaks=0").lstrip(":")))

        free = plan("free")
        run(["work", os.path.join(free, "_job"), "--threads", "2", "--write-behind", "on"])
        run(["finalize", os.path.join(free, "_job")])

        # One thread in all: no lease renewal is possible, and the message says why.
        none = work(plan("none"), 1)
        self.assertNotEqual(none.returncode, 0)
        self.assertIn("cannot start the lease renewal thread", none.stderr)
        self.assertIn("pids limit", none.stderr)

        # Two: the renewal thread and nothing else. The tasks run on the main thread, and the
        # shards are written and published there: the same output.
        for nproc in (2, 3):
            out = plan("limited-%d" % nproc)
            proc = work(out, nproc)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("task threads", proc.stderr)
            run(["finalize", os.path.join(out, "_job")])
            self.assertEqual(output_digests(out), output_digests(free))

    def test_protoc_decodes_records(self):
        if shutil.which("protoc") is None:
            self.skipTest("protoc not installed (Debian protobuf-compiler)")
        out = self.path("p")
        run(["run", write_job(self.path("p.toml"), tmtest.sample_inputs(), out), "--quiet"])
        shard = sorted(glob.glob(os.path.join(out, "part-*.tfrecord")))[0]
        proto_dir = os.path.join(tmtest.SOURCE_DIR, "tests", "tools")
        for i, payload in enumerate(tfrecords(shard)):
            if i == 3:
                break
            dec = subprocess.run(["protoc", "--proto_path", proto_dir,
                                  "--decode=tensorflow.Example", "tf_example.proto"],
                                 input=payload, capture_output=True, check=True)
            text = dec.stdout.decode()
            for feature in ("input_ids", "input_mask", "segment_ids"):
                self.assertIn('key: "%s"' % feature, text)
            self.assertIn("value: 101", text)  # [CLS] of the Chinese vocab

    def test_corrupt_shard_is_reported_with_offset(self):
        out = self.path("c")
        run(["run", write_job(self.path("c.toml"), tmtest.sample_inputs(), out), "--quiet"])
        shard = sorted(glob.glob(os.path.join(out, "part-*.tfrecord")))[0]
        bad = self.path("bad.tfrecord")
        with open(shard, "rb") as f:
            data = bytearray(f.read())
        data[5000] ^= 0x40
        with open(bad, "wb") as f:
            f.write(data)
        proc = run(["inspect", bad], check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("bad.tfrecord", proc.stderr)
        self.assertIn("offset", proc.stderr)

    def test_finalize_checks_sizes_and_verify_checks_sha256(self):
        out = self.path("v")
        run(["run", write_job(self.path("v.toml"), tmtest.sample_inputs(), out), "--quiet"])
        store = os.path.join(out, "_job")
        shard = sorted(glob.glob(os.path.join(out, "part-*.tfrecord")))[0]
        with open(shard, "rb") as f:
            data = bytearray(f.read())
        flipped = bytearray(data)
        flipped[5000] ^= 0x40
        with open(shard, "wb") as f:
            f.write(flipped)
        # Same size: the plain check passes; --verify reads the shard back and finds it.
        run(["finalize", store])
        proc = run(["finalize", store, "--verify"], check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn(os.path.basename(shard), proc.stderr)
        self.assertIn("sha256", proc.stderr)
        with open(shard, "wb") as f:
            f.write(data[:-1])
        proc = run(["finalize", store], check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("bytes but its done record says", proc.stderr)
        with open(shard, "wb") as f:
            f.write(data)
        run(["finalize", store, "--verify"])

    def assert_fails(self, job, *needles, code=1):
        proc = run(["run", job, "--quiet"], check=False)
        self.assertEqual(proc.returncode, code, proc.stderr)
        for n in needles:
            self.assertIn(n, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        return proc

    def test_bad_inputs_give_clear_errors(self):
        out = self.path("e")
        missing_vocab = write_job(self.path("v.toml"), tmtest.sample_inputs(), out,
                                  tokenizer=self.path("nope", "vocab.txt"))
        self.assert_fails(missing_vocab, "nope/vocab.txt")

        vocab = self.path("vocab.txt")
        with open(vocab, "w") as f:
            f.write("[PAD]\n[UNK]\nhello\n")
        no_cls = write_job(self.path("c.toml"), tmtest.sample_inputs(), out, tokenizer=vocab)
        self.assert_fails(no_cls, "[CLS]", "vocab.txt")

        no_match = write_job(self.path("g.toml"), [self.path("none", "*.txt")], out)
        self.assert_fails(no_match, "none/*.txt")

        bad = tmtest.truncated_gz(self.path("cut.txt.gz"))
        trunc = write_job(self.path("t.toml"), [bad], self.path("t-out"), max_attempts=1)
        self.assert_fails(trunc, "cut.txt.gz")

        unknown = self.path("u.toml")
        write_job(unknown, tmtest.sample_inputs(), out)
        with open(unknown) as f:
            text = f.read().replace("max_seq_length = 128", "max_seq_len = 128")
        with open(unknown, "w") as f:
            f.write(text)
        proc = self.assert_fails(unknown, "max_seq_len", "u.toml")
        self.assertRegex(proc.stderr, r"u\.toml:\d+")

    def test_usage_errors_exit_2(self):
        self.assertEqual(run(["run"], check=False).returncode, 2)
        self.assertEqual(run(["frobnicate"], check=False).returncode, 2)
        self.assertEqual(run(["--help"], check=False).returncode, 0)

    def test_libraries_are_not_taken_from_the_working_folder(self):
        # A file in the current folder named like one of the binary's shared libraries must not
        # be loaded in its place (an empty entry in the binary's run path would make the loader
        # try the current folder first: a broken start here, someone else's code elsewhere).
        ldd = subprocess.run(["ldd", tmtest.BIN], capture_output=True, text=True, check=True)
        names = [line.split()[0] for line in ldd.stdout.splitlines() if "=>" in line]
        self.assertIn("libcrypto.so.3", names)
        folder = self.path("decoys")
        os.mkdir(folder)
        for name in names:
            with open(os.path.join(folder, name), "w") as f:
                f.write("not a library\n")
        with open(os.path.join(folder, "in.txt"), "w") as f:
            f.write("hello world\n")
        version = run(["--version"], cwd=folder, check=False)
        self.assertEqual(version.returncode, 0, version.stderr)
        self.assertIn("tokenmill", version.stdout)
        vocab = os.path.join(tmtest.DATA, "vocab", "bert-base-uncased", "vocab.txt")
        ids = run(["tokenize", "--tokenizer", vocab, "--ids", "in.txt"], cwd=folder, check=False)
        self.assertEqual(ids.returncode, 0, ids.stderr)
        self.assertEqual(ids.stdout, "[7592,2088]\n")

    def test_memory_comes_in_large_pages_unless_the_environment_says_no(self):
        # The binary links mimalloc and turns its large OS pages on before any library starts
        # (src/tokenmill/base/allocator.h); MIMALLOC_LARGE_OS_PAGES=0 turns them off.
        version = run(["--version"]).stdout
        if "mimalloc" not in version:
            self.skipTest("built without mimalloc (TOKENMILL_MIMALLOC=OFF, or a sanitizer build)")
        self.assertIn("large OS pages", version)
        off = run(["--version"], env=dict(os.environ, MIMALLOC_LARGE_OS_PAGES="0")).stdout
        self.assertIn("mimalloc", off)
        self.assertNotIn("large OS pages", off)
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            if "[never]" in f.read():
                self.skipTest("transparent huge pages are off on this machine")
        # A tokenizer loaded, then waiting on standard input: its tables are in huge pages.
        vocab = os.path.join(tmtest.DATA, "vocab", "tiktoken", "cl100k_base.tiktoken")
        proc = subprocess.Popen([tmtest.BIN, "tokenize", "--tokenizer", vocab, "--ids"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            huge_kb = 0
            for _ in range(200):
                with open("/proc/%d/smaps_rollup" % proc.pid) as f:
                    for line in f:
                        if line.startswith("AnonHugePages:"):
                            huge_kb = int(line.split()[1])
                if huge_kb >= 2048:
                    break
                time.sleep(0.05)
            self.assertGreaterEqual(huge_kb, 2048)
            out, err = proc.communicate(b"hello world\n", timeout=60)
            self.assertEqual(proc.returncode, 0, err)
            self.assertEqual(out, b"[15339,1917]\n")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()

    def test_libcurl_is_loaded_only_for_remote_paths(self):
        # Binding libcurl and its two dozen libraries costs every process about 10 ms at start:
        # it is loaded when a remote path is first used, and a local command never loads it.
        ldd = subprocess.run(["ldd", tmtest.BIN], capture_output=True, text=True, check=True)
        self.assertNotIn("libcurl", ldd.stdout)
        vocab = os.path.join(tmtest.DATA, "vocab", "bert-base-uncased", "vocab.txt")
        text = self.path("in.txt")
        with open(text, "w") as f:
            f.write("hello world\n")
        env = dict(os.environ, LD_DEBUG="files")
        local = run(["tokenize", "--tokenizer", vocab, "--ids", text], env=env)
        self.assertEqual(local.stdout, "[7592,2088]\n")
        self.assertIn("file=libc.so.6", local.stderr)  # the loader's log is there
        self.assertNotIn("libcurl", local.stderr)
        # A remote path loads it (nothing listens on port 1: the error is libcurl's).
        env.update(TOKENMILL_HTTP_MAX_ATTEMPTS="1", AWS_ENDPOINT_URL="http://127.0.0.1:1",
                   AWS_ACCESS_KEY_ID="k", AWS_SECRET_ACCESS_KEY="s", AWS_REGION="us-east-1",
                   AWS_CONFIG_FILE="/nonexistent", AWS_SHARED_CREDENTIALS_FILE="/nonexistent")
        remote = run(["tokenize", "--tokenizer", vocab, "--ids", "s3://bucket/in.txt"], env=env,
                     check=False)
        self.assertEqual(remote.returncode, 1, remote.stderr)
        self.assertIn("file=libcurl.so.4", remote.stderr)
        self.assertIn("127.0.0.1:1", remote.stderr)

    def test_tokenize_matches_golden_edge_cases(self):
        golden = os.path.join(tmtest.DATA, "golden")
        cases = [
            ("bert-base-uncased", ["--lowercase", "true", "--split-special-tokens", "false"],
             "edge-cases.bert-base-uncased.ids.jsonl"),
            ("bert-base-chinese", ["--lowercase", "false", "--split-special-tokens", "false"],
             "edge-cases.bert-base-chinese.ids.jsonl"),
        ]
        for vocab, flags, name in cases:
            ref = os.path.join(golden, name)
            if not os.path.exists(ref):
                self.skipTest("golden file %s not in the repo" % name)
            proc = run(["tokenize", "--tokenizer",
                        os.path.join(tmtest.DATA, "vocab", vocab, "vocab.txt")] + flags +
                       [os.path.join(golden, "edge-cases.txt")])
            with open(ref) as f:
                self.assertEqual(proc.stdout.splitlines(), f.read().splitlines(), vocab)

    def test_tokenize_reads_a_file_in_place_as_it_reads_a_stream(self):
        # A local file is mapped and read in place, stdin and file:// locations are streamed:
        # the same ids for lines across the 64 KiB windows, a line longer than one, empty lines,
        # invalid UTF-8, CRLF and a last line without a newline.
        import random
        rng = random.Random(7)
        words = ["hello", "world", "tokenmill", "naïve", "中文", "测试", "x1", "\u00e9t\u00e9", ","]
        parts = []
        for i in range(6000):
            parts.append(" ".join(rng.choice(words) for _ in range(rng.randint(0, 12))) + "\n")
            if i == 3000:
                parts.append(" ".join(rng.choice(words) for _ in range(40000)) + "\n")
        data = "".join(parts).encode() + b"bad \xff\xfe byte\r\n\n\nlast line without newline"
        path = self.path("lines.txt")
        with open(path, "wb") as f:
            f.write(data)
        vocab = os.path.join(tmtest.DATA, "vocab", "bert-base-uncased", "vocab.txt")
        tok = ["tokenize", "--tokenizer", vocab, "--lowercase", "true"]
        in_place = run(tok + [path]).stdout
        with open(path, "rb") as f:
            streamed = subprocess.run([tmtest.BIN] + tok + ["-"], stdin=f, capture_output=True,
                                      check=True).stdout.decode()
        by_url = run(tok + ["file://" + path]).stdout
        self.assertEqual(in_place.count("\n"), data.count(b"\n") + 1)
        self.assertEqual(in_place, streamed)
        self.assertEqual(in_place, by_url)
        self.assertTrue(in_place.endswith("]\n"))


if __name__ == "__main__":
    unittest.main()
