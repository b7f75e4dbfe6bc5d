"""BERT pre-training data end to end: `[examples] kind = "bert"` against the real
create_pretraining_data.py of google-research/bert (data/google-bert/, unmodified), run on Debian
with the small TensorFlow stand-in of tests/e2e/tfstub.

compat = "google" must give the same examples in the same order as the script (compared decoded,
feature by feature); the default mode must give the same statistics on a larger sample."""

import collections
import json
import os
import struct
import subprocess
import sys

import tmtest
from tmtest import run

HERE = os.path.dirname(os.path.abspath(__file__))
STUB = os.path.join(HERE, "tfstub")
GOOGLE = os.path.join(tmtest.DATA, "google-bert")
UNCASED = os.path.join(tmtest.DATA, "vocab", "bert-base-uncased", "vocab.txt")
CHINESE = os.path.join(tmtest.DATA, "vocab", "bert-base-chinese", "vocab.txt")
SAMPLE = os.path.join(tmtest.DATA, "sample", "part-00.txt")
FEATURES = ["input_ids", "input_mask", "segment_ids", "masked_lm_positions", "masked_lm_ids",
            "masked_lm_weights", "next_sentence_labels"]

sys.path.insert(0, STUB)
try:
    import tensorflow as tfstub  # the stand-in (python3-protobuf)
except ImportError:  # pragma: no cover
    tfstub = None


def documents(path, english):
    """The documents of the sample (blank-line separated) that are English (start with an ASCII
    letter) or not."""
    with open(path, encoding="utf-8") as f:
        docs = f.read().split("\n\n")
    return [d.strip("\n") for d in docs
            if d.strip() and (d[0].isascii() and d[0].isalpha()) == english]


def write_corpus(path, docs):
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n\n".join(docs) + "\n")


def read_tfrecords(paths):
    """Decoded examples ({feature: list}) of TFRecord files, in order."""
    out = []
    for path in paths:
        with open(path, "rb") as f:
            data = f.read()
        pos = 0
        while pos < len(data):
            (length,) = struct.unpack_from("<Q", data, pos)
            record = data[pos + 12:pos + 12 + length]
            pos += 12 + length + 4
            example = tfstub.train.Example.FromString(record)
            decoded = {}
            for key, feature in example.features.feature.items():
                kind = feature.WhichOneof("kind")
                decoded[key] = list(getattr(feature, kind).value)
            out.append(decoded)
    return out


def run_script(tmp, corpus, vocab, flags):
    out = os.path.join(tmp, "google.tfrecord")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([STUB, GOOGLE])
    args = [sys.executable, os.path.join(GOOGLE, "create_pretraining_data.py"),
            "--input_file=" + corpus, "--output_file=" + out, "--vocab_file=" + vocab,
            "--do_lower_case=True"] + ["--%s=%s" % kv for kv in flags.items()]
    proc = subprocess.run(args, capture_output=True, text=True, env=env, timeout=600)
    if proc.returncode != 0:
        raise AssertionError("create_pretraining_data.py failed:\n" + proc.stderr[-3000:])
    return read_tfrecords([out])


def run_tokenmill(tmp, corpus, vocab, examples, name="tm"):
    out = os.path.join(tmp, name + "-out")
    job = os.path.join(tmp, name + ".toml")
    lines = ["[input]", "paths = [%s]" % json.dumps(corpus), "[tokenizer]",
             "path = %s" % json.dumps(vocab), "lowercase = true", "[examples]", 'kind = "bert"']
    lines += ["%s = %s" % (k, json.dumps(v)) for k, v in examples.items()]
    lines += ["[output]", "path = %s" % json.dumps(out)]
    with open(job, "w") as f:
        f.write("\n".join(lines) + "\n")
    run(["run", job, "--quiet"])
    shards = sorted(os.path.join(out, n) for n in os.listdir(out) if n.endswith(".tfrecord"))
    with open(os.path.join(out, "manifest.json")) as f:
        manifest = json.load(f)
    return read_tfrecords(shards), manifest


def statistics(examples, documents):
    """The figures the default mode must share with the script."""
    n = len(examples)
    real = sum(sum(e["input_mask"]) for e in examples)
    masked = sum(sum(1 for w in e["masked_lm_weights"] if w > 0) for e in examples)
    as_mask = kept = 0
    for e in examples:
        for pos, label, w in zip(e["masked_lm_positions"], e["masked_lm_ids"],
                                 e["masked_lm_weights"]):
            if w == 0:
                continue
            token = e["input_ids"][pos]
            as_mask += token == 103  # [MASK] in bert-base-chinese and bert-base-uncased
            kept += token == label
    return {
        "masked_per_token": masked / real,
        "as_mask": as_mask / masked,
        "kept": kept / masked,
        "random_next": sum(e["next_sentence_labels"][0] for e in examples) / n,
        "short": sum(1 for e in examples if sum(e["input_mask"]) < 64) / n,
        "tokens_per_example": real / n,
        "examples_per_document": n / documents,
        "random_word": 1 - as_mask / masked - kept / masked,
    }


class BertTest(tmtest.TempDirTest):
    def setUp(self):
        super().setUp()
        if tfstub is None:
            self.skipTest("python3-protobuf is needed by the TensorFlow stand-in")

    def compare_with_script(self, docs, vocab, flags, examples):
        corpus = self.path("corpus.txt")
        write_corpus(corpus, docs)
        want = run_script(self.tmp, corpus, vocab, flags)
        got, manifest = run_tokenmill(self.tmp, corpus, vocab, dict(examples, compat="google"))
        self.assertGreater(len(want), 50)
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            self.assertEqual(sorted(g), sorted(FEATURES), "example %d" % i)
            for key in FEATURES:
                self.assertEqual(g[key], w[key], "example %d, feature %s" % (i, key))
        self.assertEqual(manifest["totals"]["examples"], len(want))
        return want

    def test_english_uncased_dupe_2(self):
        docs = documents(SAMPLE, english=True)
        self.compare_with_script(
            docs, UNCASED,
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "random_seed": 12345,
             "dupe_factor": 2, "masked_lm_prob": 0.15, "short_seq_prob": 0.1},
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "seed": 12345,
             "dupe_factor": 2, "masked_lm_prob": 0.15, "short_seq_prob": 0.1})

    def test_english_whole_word_dupe_10(self):
        docs = documents(SAMPLE, english=True)[:20]
        self.compare_with_script(
            docs, UNCASED,
            {"max_seq_length": 64, "max_predictions_per_seq": 10, "random_seed": 7,
             "dupe_factor": 10, "masked_lm_prob": 0.2, "short_seq_prob": 0.3,
             "do_whole_word_mask": "True"},
            {"max_seq_length": 64, "max_predictions_per_seq": 10, "seed": 7,
             "dupe_factor": 10, "masked_lm_prob": 0.2, "short_seq_prob": 0.3,
             "do_whole_word_mask": True})

    def test_chinese_whole_word_dupe_10(self):
        docs = documents(SAMPLE, english=False)[:60]
        self.compare_with_script(
            docs, CHINESE,
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "random_seed": 12345,
             "dupe_factor": 10, "do_whole_word_mask": "True"},
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "seed": 12345,
             "dupe_factor": 10, "do_whole_word_mask": True})

    def test_chinese_dupe_2(self):
        docs = documents(SAMPLE, english=False)[60:260]
        self.compare_with_script(
            docs, CHINESE,
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "random_seed": 99,
             "dupe_factor": 2},
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "seed": 99,
             "dupe_factor": 2})

    def test_several_files_in_glob_order(self):
        """compat = "google" over a pattern: the files are read in sorted order as one list of
        documents, as the script reads --input_file=a,b,...: a file's last document continues into
        the next file unless a blank line ends it; empty files and files of blank lines."""
        docs = documents(SAMPLE, english=True)[:40]
        folder = self.path("in")
        os.mkdir(folder)
        contents = {
            "a.txt": "\n\n".join(docs[0:8]) + "\n",            # no blank line at the end
            "b.txt": "\n\n".join(docs[8:14]) + "\n\n",        # continues a's last document
            "c.txt": "",                                           # empty
            "d.txt": "\n\n".join(docs[14:22]),                  # no final newline
            "e.txt": "  \n\n",                                   # blank lines: ends d's document
            "f.txt": "\n" + "\n\n".join(docs[22:30]) + "\n",   # starts with a blank line
            "g.txt": "\n\n".join(docs[30:40]) + "\n",
        }
        for name, text in contents.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                f.write(text)
        files = [os.path.join(folder, n) for n in sorted(contents)]
        flags = {"max_seq_length": 128, "max_predictions_per_seq": 20, "random_seed": 5,
                 "dupe_factor": 3}
        out = os.path.join(self.tmp, "google.tfrecord")
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([STUB, GOOGLE])
        proc = subprocess.run(
            [sys.executable, os.path.join(GOOGLE, "create_pretraining_data.py"),
             "--input_file=" + ",".join(files), "--output_file=" + out,
             "--vocab_file=" + UNCASED, "--do_lower_case=True"] +
            ["--%s=%s" % kv for kv in flags.items()],
            capture_output=True, text=True, env=env, timeout=600)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        want = read_tfrecords([out])
        got, manifest = run_tokenmill(
            self.tmp, os.path.join(folder, "*.txt"), UNCASED,
            {"max_seq_length": 128, "max_predictions_per_seq": 20, "seed": 5, "dupe_factor": 3,
             "compat": "google"})
        self.assertGreater(len(want), 50)
        self.assertEqual(len(got), len(want))
        for i, (g, w) in enumerate(zip(got, want)):
            for key in FEATURES:
                self.assertEqual(g[key], w[key], "example %d, feature %s" % (i, key))
        self.assertEqual(manifest["tasks"], 1)
        self.assertEqual(manifest["totals"]["bytes_in"],
                         sum(len(t.encode("utf-8")) for t in contents.values()))

    def test_compat_input_over_the_limit_fails_at_plan(self):
        folder = self.path("big")
        os.mkdir(folder)
        line = ("word " * 200 + "\n").encode()
        for name in ("a.txt", "b.txt"):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(line * (33 * 1024 * 1024 // len(line) + 1))
        job = self.path("big.toml")
        with open(job, "w") as f:
            f.write('[input]\npaths = [%s]\n[tokenizer]\npath = %s\n[examples]\nkind = "bert"\n'
                    'compat = "google"\n[output]\npath = %s\n' %
                    (json.dumps(os.path.join(folder, "*.txt")), json.dumps(UNCASED),
                     json.dumps(self.path("o"))))
        proc = run(["plan", job], check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("the 2 input file(s) hold", proc.stderr)
        self.assertIn("over the limit of 64 MiB; remove compat to use the default mode",
                      proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.path("o"), "_job", "job.json")))

    def test_default_mode_statistics_match_the_script(self):
        docs = documents(SAMPLE, english=False)[:1200]
        corpus = self.path("corpus.txt")
        write_corpus(corpus, docs)
        want = statistics(run_script(self.tmp, corpus, CHINESE, {"dupe_factor": 2}), len(docs))
        got_examples, manifest = run_tokenmill(
            self.tmp, corpus, CHINESE,
            {"dupe_factor": 2, "random_next_window": 100}, name="default")
        got = statistics(got_examples, len(docs))
        # Examples per document and per token agree closely; the frequencies within a few
        # percentage points (thousands of examples).
        self.assertGreater(len(got_examples), 2000)
        for key, tolerance in [("masked_per_token", 0.005), ("as_mask", 0.02), ("kept", 0.02),
                               ("random_word", 0.02), ("random_next", 0.03), ("short", 0.02),
                               ("tokens_per_example", 3.0), ("examples_per_document", 0.3)]:
            self.assertAlmostEqual(got[key], want[key], delta=tolerance,
                                   msg="%s: tokenmill %r, script %r" % (key, got, want))
        # The manifest's counters are those of the examples.
        bert = manifest["totals"]["bert"]
        self.assertEqual(bert["masked_tokens"],
                         sum(sum(1 for w in e["masked_lm_weights"] if w > 0) for e in got_examples))
        self.assertEqual(bert["random_next"],
                         sum(e["next_sentence_labels"][0] for e in got_examples))
        self.assertEqual(bert["masked_tokens"], bert["masked_as_mask"] +
                         bert["masked_as_original"] + bert["masked_as_random"])

    def test_example_job_bert_zh(self):
        """examples/bert-zh.toml: JSONL, sentences split, Chinese whole words, several tasks."""
        out = self.path("bert-zh")
        job = tmtest.example_job(self.tmp, "bert-zh.toml", out)
        run(["run", job, "--quiet", "--workers", "2"])
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        self.assertGreater(manifest["tasks"], 1)
        bert = manifest["totals"]["bert"]
        self.assertGreater(bert["masked_tokens"], bert["masked_words"])  # words of 2+ characters
        status = tmtest.status_json(os.path.join(out, "_job"))
        self.assertEqual(status["bert"]["masked_words"], bert["masked_words"])
        # The content statistics (report) carry the same counters, and the tokens seen.
        counters = manifest["content"]["counters"]
        for key in ("masked_tokens", "masked_words", "random_next", "masked_as_mask"):
            self.assertEqual(counters["bert." + key], bert[key])
        self.assertTrue(os.path.exists(os.path.join(out, "_job", "report.html")))
        shards = sorted(os.path.join(out, n) for n in os.listdir(out) if n.endswith(".tfrecord"))
        examples = read_tfrecords(shards[:1])
        self.assertTrue(all(sorted(e) == sorted(FEATURES) for e in examples))
        proc = run(["inspect", shards[0], "--limit", "1", "--tokenizer", CHINESE])
        self.assertIn("[MASK]:", proc.stdout)
        self.assertIn("random next sentences", proc.stdout)

    def test_errors(self):
        corpus = self.path("corpus.txt")
        write_corpus(corpus, documents(SAMPLE, english=True)[:3])
        job = self.path("bad.toml")
        with open(job, "w") as f:
            f.write('[input]\npaths = [%s]\n[tokenizer]\npath = %s\n[examples]\nkind = "bert"\n'
                    "max_predictions_per_seq = 200\n[output]\npath = %s\n" %
                    (json.dumps(corpus), json.dumps(UNCASED), json.dumps(self.path("o"))))
        proc = run(["run", job, "--quiet"], check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("max_predictions_per_seq must not be larger than max_seq_length (128)",
                      proc.stderr)
        # A vocabulary without [MASK].
        vocab = self.path("vocab.txt")
        with open(UNCASED, encoding="utf-8") as f:
            words = [w for w in f.read().split("\n") if w and w != "[MASK]"]
        with open(vocab, "w", encoding="utf-8") as f:
            f.write("\n".join(words) + "\n")
        with open(job, "w") as f:
            f.write('[input]\npaths = [%s]\n[tokenizer]\npath = %s\n[examples]\nkind = "bert"\n'
                    "[output]\npath = %s\n" %
                    (json.dumps(corpus), json.dumps(vocab), json.dumps(self.path("o2"))))
        proc = run(["run", job, "--quiet"], check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("[MASK]", proc.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
