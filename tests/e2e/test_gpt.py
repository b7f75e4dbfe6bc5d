"""GPT-style data end to end: JSONL in, cl100k_base ids, Megatron .bin/.idx and llm.c .bin out,
checked with independent readers written from docs/formats (tests/tools, numpy)."""

import glob
import json
import os
import re
import subprocess
import sys

import tmtest
from tmtest import run, output_digests

TOOLS = os.path.join(tmtest.SOURCE_DIR, "tests", "tools")
CL100K = os.path.join(tmtest.DATA, "vocab", "tiktoken", "cl100k_base.tiktoken")
EOT = 100257


def tool(name, *args):
    proc = subprocess.run([sys.executable, os.path.join(TOOLS, name)] + list(args),
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError("%s failed: %s" % (name, proc.stderr))
    return json.loads(proc.stdout)


def first_document_text():
    with open(os.path.join(tmtest.DATA, "sample-jsonl", "part-00.jsonl"), encoding="utf-8") as f:
        return json.loads(f.readline())["text"]


def first_single_line_document():
    """(index, text) of the first document of the sample without a newline in its text."""
    with open(os.path.join(tmtest.DATA, "sample-jsonl", "part-00.jsonl"), encoding="utf-8") as f:
        for i, line in enumerate(f):
            text = json.loads(line)["text"]
            if text and "\n" not in text:
                return i, text
    raise AssertionError("no single-line document in the sample")


class GptTest(tmtest.TempDirTest):
    def setUp(self):
        super().setUp()
        try:
            import numpy  # noqa: F401
        except ImportError:
            self.skipTest("python3-numpy is needed by the independent readers")

    def expected_ids(self):
        """(index, ids) of a document, from `tokenmill tokenize` (which works line by line)."""
        index, text = first_single_line_document()
        path = self.path("doc.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out = run(["tokenize", "--tokenizer", CL100K, path]).stdout.splitlines()
        self.assertEqual(len(out), 1)
        return index, json.loads(out[0])

    def test_megatron_example_with_independent_reader(self):
        out = self.path("mega")
        job = tmtest.example_job(self.tmp, "gpt-megatron.toml", out)
        run(["run", job, "--quiet"])
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        prefixes = sorted(p[:-4] for p in glob.glob(os.path.join(out, "part-*.bin")))
        self.assertGreater(len(prefixes), 1)
        sequences = 0
        tokens = 0
        all_sequences = []
        for prefix in prefixes:
            r = tool("read_megatron.py", prefix)
            self.assertEqual(r["dtype"], "int32")  # cl100k has more than 65,500 ids
            sequences += r["sequence_count"]
            tokens += r["total_tokens"]
            for seq in r["sequences"]:
                self.assertEqual(seq[-1], EOT)
            all_sequences += r["sequences"]
        self.assertEqual(sequences, manifest["totals"]["examples"])
        self.assertEqual(sequences, manifest["totals"]["documents"])
        self.assertEqual(tokens, manifest["totals"]["tokens"] + sequences)
        index, ids = self.expected_ids()
        self.assertEqual(all_sequences[index], ids + [EOT])
        with open(os.path.join(out, "megatron-prefixes.txt")) as f:
            self.assertEqual(sorted(f.read().split()), prefixes)

        # One merged prefix for the whole job.
        run(["finalize", out + "/_job", "--merge"])
        merged = tool("read_megatron.py", os.path.join(out, "merged"), "--summary")
        self.assertEqual(merged["sequence_count"], sequences)
        self.assertEqual(merged["total_tokens"], tokens)

        # inspect reads and decodes it.
        shown = run(["inspect", prefixes[0] + ".idx", "--tokenizer", CL100K, "--limit", "1"])
        self.assertIn("every check passed", shown.stdout)
        self.assertIn(first_document_text()[:20], shown.stdout.replace("\\n", "\n"))

        # Same bytes with more workers.
        out2 = self.path("mega2")
        run(["run", tmtest.example_job(self.tmp, "gpt-megatron.toml", out2), "--workers", "3",
             "--quiet"])
        self.assertEqual(output_digests(out), output_digests(out2))

    def gpt_job(self, name, fmt, tokenizer, inputs=None, extra_input=""):
        inputs = inputs or [os.path.join(tmtest.DATA, "sample-jsonl", "*")]
        out = self.path(name)
        job = tmtest.write_job(self.path(name + ".toml"), inputs, out, tokenizer=tokenizer,
                               kind="gpt", fmt=fmt, input_format="jsonl", task_size="256KiB")
        if extra_input:
            with open(job) as f:
                text = f.read()
            with open(job, "w") as f:
                f.write(text.replace('format = "jsonl"', 'format = "jsonl"\n' + extra_input))
        return job, out

    def test_finalize_and_report_need_no_tokenizer(self):
        # The planner keeps the BOS/EOD ids in job.json and each worker the top tokens' text in
        # its done record, so finalize and report (often run elsewhere than the workers, on a
        # store in a bucket) never download and build the tokenizer: with the store's copy of
        # it gone they write the same manifest and label every top token.
        job, out = self.gpt_job("notok", "megatron", CL100K)
        run(["plan", job])
        store = out + "/_job"
        run(["work", store, "--threads", "2"])
        copies = glob.glob(os.path.join(store, "tokenizer", "*"))
        self.assertTrue(copies)
        for path in copies:
            os.remove(path)
        run(["finalize", store])
        job2, out2 = self.gpt_job("withtok", "megatron", CL100K)
        run(["run", job2, "--quiet"])
        with open(os.path.join(out, "manifest.json"), "rb") as a, \
                open(os.path.join(out2, "manifest.json"), "rb") as b:
            first, second = a.read(), b.read()
        self.assertEqual(first, second)
        self.assertEqual(json.loads(first)["special_ids"], {"bos": None, "eod": EOT})
        report = run(["report", store, "--out", self.path("report.html")])
        self.assertEqual(report.returncode, 0)
        with open(self.path("report.html"), encoding="utf-8") as f:
            page = f.read()
        labels = re.findall(r'<span class="tok">([^<]*)</span>', page)
        self.assertEqual(len(labels), 64)
        self.assertFalse([label for label in labels if label.startswith("#")], labels)
        self.assertIn("<span class=\"tok\">,</span>", page)
        self.assertNotIn("could not be loaded", page)

    def test_a_store_planned_by_an_older_version_still_finalizes_and_reports(self):
        # A job record without the special ids and done records without token labels (as older
        # versions wrote them): finalize and report load the store's tokenizer for them instead.
        job, out = self.gpt_job("older", "megatron", CL100K)
        run(["plan", job])
        store = out + "/_job"
        run(["work", store, "--threads", "2"])

        def drop(*keys):
            def change(record):
                for key in keys:
                    del record[key]
            return change

        tmtest.edit_store_record(os.path.join(store, "job.json"),
                                 drop("special_ids_known", "bos_id", "eod_id"))
        done = glob.glob(os.path.join(store, "done", "*.json*"))
        self.assertGreater(len(done), 1)
        for path in done:
            tmtest.edit_store_record(path[:-2] if path.endswith(".v") else path,
                                     drop("token_labels"))
        run(["finalize", store])
        job2, out2 = self.gpt_job("current", "megatron", CL100K)
        run(["run", job2, "--quiet"])
        with open(os.path.join(out, "manifest.json"), "rb") as a, \
                open(os.path.join(out2, "manifest.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        run(["report", store, "--out", self.path("report.html")])
        run(["report", out2 + "/_job", "--out", self.path("report2.html")])
        labels = []
        for page in ("report.html", "report2.html"):
            with open(self.path(page), encoding="utf-8") as f:
                labels.append(re.findall(r'<span class="tok">([^<]*)</span>', f.read()))
        self.assertEqual(len(labels[0]), 64)
        self.assertEqual(labels[0], labels[1])

    def test_llmc_with_gpt2_and_independent_reader(self):
        gpt2 = os.path.join(tmtest.DATA, "vocab", "gpt2", "encoder.json")
        job, out = self.gpt_job("llmc", "llmc", gpt2)
        run(["run", job, "--quiet"])
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        docs = 0
        for path in sorted(glob.glob(os.path.join(out, "part-*.bin"))):
            r = tool("read_llmc.py", path, "--eod", "50256")
            self.assertEqual(r["magic"], 20240520)  # gpt2 fits in uint16
            self.assertEqual(r["version"], 1)
            self.assertEqual(r["tokens"][0], 50256)  # each document starts with <|endoftext|>
            docs += len(r["documents"])
        self.assertEqual(docs, manifest["totals"]["documents"])
        shown = run(["inspect", sorted(glob.glob(os.path.join(out, "part-*.bin")))[0],
                     "--tokenizer", gpt2, "--limit", "1"])
        self.assertIn("every check passed", shown.stdout)

    def test_jsonl_errors_and_skips(self):
        bad = self.path("bad.jsonl")
        with open(bad, "w") as f:
            f.write('{"text": "a good document"}\n')
            f.write('{"text": "broken\n')
            f.write('{"other": 1}\n')
            f.write('{"text": ""}\n')
            f.write('{"text": "another good one"}\n')
        job, out = self.gpt_job("bad", "megatron", CL100K, inputs=[bad])
        proc = run(["run", job, "--quiet"], check=False)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("bad.jsonl:2", proc.stderr)
        job, out = self.gpt_job("skip", "megatron", CL100K, inputs=[bad],
                                extra_input='on_bad_record = "skip"')
        run(["run", job, "--quiet"])
        with open(os.path.join(out, "manifest.json")) as f:
            totals = json.load(f)["totals"]
        self.assertEqual(totals["documents"], 2)
        self.assertEqual(totals["skipped_records"], 2)
        self.assertEqual(totals["empty_documents"], 1)


if __name__ == "__main__":
    import unittest
    unittest.main()
