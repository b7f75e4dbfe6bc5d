"""Parquet and JSON-array input end to end: the token ids of a Parquet job (whole files, and files
cut at row groups into many tasks) and of a JSON-array job equal those of the same documents read
as JSONL; column errors list the file's columns; null/empty texts are counted."""

import glob
import json
import os
import subprocess
import sys

import tmtest
from tmtest import run

TOOLS = os.path.join(tmtest.SOURCE_DIR, "tests", "tools")
GPT2 = os.path.join(tmtest.DATA, "vocab", "gpt2", "encoder.json")
JSONL = os.path.join(tmtest.DATA, "sample-jsonl", "part-00.jsonl")
PARQUET = os.path.join(tmtest.DATA, "sample-parquet", "part-00.parquet")
TESTDATA = os.path.join(tmtest.SOURCE_DIR, "src", "tokenmill", "io", "testdata", "parquet")


def documents(out):
    """The documents (token id lists) of an llm.c output folder, in shard order."""
    docs = []
    for path in sorted(glob.glob(os.path.join(out, "part-*.bin"))):
        proc = subprocess.run([sys.executable, os.path.join(TOOLS, "read_llmc.py"), path,
                               "--eod", "50256"], capture_output=True, text=True, check=True)
        docs += json.loads(proc.stdout)["documents"]
    return docs


class ParquetTest(tmtest.TempDirTest):
    def job(self, name, inputs, input_format, task_size="64MiB", extra_input=""):
        out = self.path(name)
        job = tmtest.write_job(self.path(name + ".toml"), inputs, out, tokenizer=GPT2,
                               kind="gpt", fmt="llmc", input_format=input_format,
                               task_size=task_size)
        if extra_input:
            with open(job) as f:
                text = f.read()
            with open(job, "w") as f:
                f.write(text.replace('format = "%s"' % input_format,
                                     'format = "%s"\n%s' % (input_format, extra_input)))
        return job, out

    def totals(self, out):
        with open(os.path.join(out, "manifest.json")) as f:
            return json.load(f)["totals"]

    def task_count(self, out):
        with open(os.path.join(out, "_job", "tasks.jsonl")) as f:
            return sum(1 for line in f if line.strip())

    def test_parquet_ids_equal_jsonl_whole_and_cut_at_row_groups(self):
        job, out_jsonl = self.job("jsonl", [JSONL], "jsonl")
        run(["run", job, "--quiet"])
        reference = documents(out_jsonl)
        self.assertEqual(len(reference), 1949)

        job, out_pq = self.job("parquet", [PARQUET], "parquet")
        run(["run", job, "--quiet"])
        self.assertEqual(self.task_count(out_pq), 1)
        self.assertEqual(documents(out_pq), reference)

        # 64 KiB tasks: the 8 row groups of the file spread over several tasks, in order.
        job, out_cut = self.job("cut", [PARQUET], "parquet", task_size="64KiB")
        run(["run", job, "--quiet", "--workers", "2"])
        self.assertGreater(self.task_count(out_cut), 1)
        self.assertEqual(documents(out_cut), reference)
        self.assertEqual(self.totals(out_cut)["documents"], 1949)

    def test_json_array_ids_equal_jsonl(self):
        with open(JSONL, encoding="utf-8") as f:
            records = [json.loads(line) for line in f][:300]
        array = self.path("wudao.json")
        with open(array, "w", encoding="utf-8") as f:
            json.dump([{"title": r["id"], "content": r["text"]} for r in records], f,
                      ensure_ascii=False, indent=1)
        lines = self.path("same.jsonl")
        with open(lines, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps({"content": r["text"]}, ensure_ascii=False) + "\n")
        job, out_json = self.job("json", [array], "json", task_size="16KiB",
                                 extra_input='text_field = "content"')
        run(["run", job, "--quiet"])
        job, out_jsonl = self.job("jsonl", [lines], "jsonl", extra_input='text_field = "content"')
        run(["run", job, "--quiet"])
        self.assertEqual(self.task_count(out_json), 1)  # a JSON array is read whole
        self.assertEqual(documents(out_json), documents(out_jsonl))

    def test_null_and_empty_texts_are_counted(self):
        with open(os.path.join(TESTDATA, "manifest.json")) as f:
            expected = {m["name"]: m for m in json.load(f)["files"]}["hw_snappy.parquet"]
        job, out = self.job("nulls", [os.path.join(TESTDATA, "hw_snappy.parquet")], "parquet",
                            task_size="4KiB")
        run(["run", job, "--quiet"])
        totals = self.totals(out)
        self.assertEqual(totals["documents"], expected["documents"])
        self.assertEqual(totals["empty_documents"], expected["empty"])

    def test_missing_column_and_not_parquet_are_clear_errors(self):
        job, _ = self.job("missing", [PARQUET], "parquet", extra_input='text_field = "body"')
        proc = run(["run", job, "--quiet"], check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn('part-00.parquet: no column "body"', proc.stderr)
        self.assertIn("id (BYTE_ARRAY string), text (BYTE_ARRAY string)", proc.stderr)

        # A JSONL file declared as Parquet fails at plan time, naming the file.
        job, _ = self.job("wrong", [JSONL], "parquet")
        proc = run(["plan", job], check=False)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("part-00.jsonl: not a Parquet file", proc.stderr)


if __name__ == "__main__":
    import unittest
    unittest.main()
