"""The job-store suite again with the store and the output on a real S3 server (Ceph RGW):
plan, several workers, SIGKILL chaos, a poisoned task, finalize, and shards byte-identical to the
local run. Needs S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and S3_BUCKET
(scripts/ceph-rgw.sh writes them to an env file); skips without them unless
TOKENMILL_REQUIRE_S3=1."""

import json
import os
import subprocess
import tempfile
import unittest
import uuid

import tmtest
import test_jobstore

S3_VARS = ("S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "S3_BUCKET")


def s3_configured():
    return all(os.environ.get(v) for v in S3_VARS)


def aws(*args, **kw):
    cmd = ["aws", "--endpoint-url", os.environ["S3_ENDPOINT"]] + list(args)
    return subprocess.run(cmd, check=True, capture_output=True, **kw)


class S3Mixin:
    def setUp(self):
        if not s3_configured():
            if os.environ.get("TOKENMILL_REQUIRE_S3") == "1":
                self.fail("TOKENMILL_REQUIRE_S3=1 but %s are not all set; start the server "
                          "with scripts/ceph-rgw.sh and source its env file" % ", ".join(S3_VARS))
            self.skipTest("no S3 server configured (set %s; scripts/ceph-rgw.sh starts one)"
                          % ", ".join(S3_VARS))
        super().setUp()
        self.prefix = "e2e-%s" % uuid.uuid4().hex[:12]

    def env(self):
        return {"AWS_ENDPOINT_URL": os.environ["S3_ENDPOINT"],
                "AWS_REGION": os.environ.get("AWS_REGION", "us-east-1")}

    def location(self, name):
        return "s3://%s/%s/%s" % (os.environ["S3_BUCKET"], self.prefix, name)

    def download(self, output):
        local = tempfile.mkdtemp(dir=self.tmp)
        aws("s3", "cp", "--recursive", "--quiet", output, local, "--exclude", "_job/*")
        return local

    def fetch_manifest(self, output):
        return aws("s3", "cp", output + "/manifest.json", "-").stdout

    def shard_digests(self, output):
        return tmtest.output_digests(self.download(output))


class S3JobStoreTest(S3Mixin, test_jobstore.JobStoreTest):
    def test_s3_output_equals_local_output(self):
        _, s3_manifest = self.reference()
        local_out = self.path("local-out")
        job = tmtest.write_job(self.path("local.toml"), self.inputs, local_out,
                               task_size="256KiB", lease_seconds=3)
        tmtest.run(["run", job, "--workers", "2", "--quiet"])
        with open(os.path.join(local_out, "manifest.json"), "rb") as f:
            self.assertEqual(f.read(), s3_manifest)

    def test_aws_cli_interoperates(self):
        # tokenmill reads a corpus uploaded with the aws CLI...
        corpus = "s3://%s/%s/corpus/" % (os.environ["S3_BUCKET"], self.prefix)
        for p in ("part-00.txt", "part-01.txt.gz"):
            aws("s3", "cp", "--quiet", os.path.join(tmtest.DATA, "sample", p), corpus + p)
        job, out, store = self.job("interop", inputs=[corpus + "*.txt", corpus + "*.txt.gz"])
        tmtest.run(["run", job, "--quiet"], env=self.env())
        # ...and the aws CLI lists and reads what tokenmill wrote.
        listing = aws("s3", "ls", out + "/").stdout.decode()
        self.assertIn("manifest.json", listing)
        self.assertIn("part-000000-000.tfrecord", listing)
        local_job = tmtest.write_job(self.path("interop-local.toml"), tmtest.sample_inputs(),
                                     self.path("interop-local"), task_size="256KiB",
                                     lease_seconds=3)
        tmtest.run(["run", local_job, "--quiet"])
        shards = lambda d: {k: v for k, v in d.items() if k != "manifest.json"}
        self.assertEqual(shards(self.shard_digests(out)),
                         shards(tmtest.output_digests(self.path("interop-local"))))
        # tokenize and inspect take s3:// locations too.
        shard = out + "/part-000000-000.tfrecord"
        insp = tmtest.run(["inspect", shard], env=self.env())
        self.assertIn("records", insp.stdout)
        # The output prefix stands for every shard its manifest lists.
        whole = tmtest.run(["inspect", out, "--json"], env=self.env()).stdout.splitlines()
        written = [n for n in shards(self.shard_digests(out)) if n.endswith(".tfrecord")]
        self.assertEqual(json.loads(whole[-1])["shards"], len(written))
        self.assertIn(shard, whole[0])
        # A store that refuses the request is reported as such, not as a prefix without a
        # manifest, and the secret stays out of the message.
        wrong = "tokenmill-wrong-secret-0123456789"
        for arg in (out, shard):
            denied = tmtest.run(["inspect", arg], check=False,
                                env=dict(self.env(), AWS_SECRET_ACCESS_KEY=wrong))
            self.assertNotEqual(denied.returncode, 0)
            self.assertIn("403", denied.stderr)
            self.assertNotIn("neither a shard", denied.stderr)
            self.assertNotIn(wrong, denied.stderr)

    def test_megatron_merge_reads_the_shards_from_the_bucket(self):
        # finalize --merge reads each shard from the bucket once, 4 MiB at a time (--verify checks
        # its sha256 on the way), merges them and publishes the merged prefix: the same bytes as
        # from an output folder.
        cl100k = os.path.join(tmtest.DATA, "vocab", "tiktoken", "cl100k_base.tiktoken")
        kw = dict(inputs=[os.path.join(tmtest.DATA, "sample-jsonl", "*")], tokenizer=cl100k,
                  kind="gpt", fmt="megatron", input_format="jsonl")
        job, out, store = self.job("merge", **kw)
        tmtest.run(["run", job, "--quiet"], env=self.env())
        tmtest.run(["finalize", store, "--merge", "--verify"], env=self.env())
        local_out = self.path("merge-local")
        inputs = kw.pop("inputs")
        local_job = tmtest.write_job(self.path("merge-local.toml"), inputs, local_out,
                                     task_size="256KiB", lease_seconds=3, **kw)
        tmtest.run(["run", local_job, "--quiet"])
        tmtest.run(["finalize", local_out + "/_job", "--merge"])
        prefixes = aws("s3", "cp", out + "/megatron-prefixes.txt", "-").stdout.split()
        self.assertGreater(len(prefixes), 1)
        for ext in (".bin", ".idx"):
            with open(os.path.join(local_out, "merged" + ext), "rb") as f:
                self.assertEqual(aws("s3", "cp", out + "/merged" + ext, "-").stdout, f.read())


if __name__ == "__main__":
    unittest.main()
