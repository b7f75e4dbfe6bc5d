"""test_faults.py with the store and the output on a real S3 server (Ceph RGW): injected faults
over S3, and incomplete multipart uploads of the job's own names aborted by finalize and run.
Needs the variables of test_jobstore_s3.py; skips without them unless TOKENMILL_REQUIRE_S3=1."""

import json
import os
import unittest

import test_faults
from test_jobstore_s3 import S3Mixin, aws


class S3FaultsTest(S3Mixin, test_faults.FaultsTest):
    def key_of(self, out):
        return out.split("/", 3)[3]

    def listing(self, out):
        prefix = self.key_of(out) + "/"
        found = json.loads(aws("s3api", "list-objects-v2", "--bucket", os.environ["S3_BUCKET"],
                               "--prefix", prefix, "--delimiter", "/").stdout or b"{}")
        names = {c["Key"][len(prefix):] for c in found.get("Contents", [])}
        names |= {p["Prefix"][len(prefix):].rstrip("/") for p in found.get("CommonPrefixes", [])}
        return names

    def plant_incomplete(self, out, names):
        # A multipart upload that was started (one part sent) and never completed, as a worker
        # killed in the middle of uploading a large shard leaves it.
        part = os.path.join(self.tmp, "part.bin")
        with open(part, "wb") as f:
            f.write(b"partial shard bytes")
        for name in names:
            key = self.key_of(out) + "/" + name
            up = json.loads(aws("s3api", "create-multipart-upload", "--bucket",
                                os.environ["S3_BUCKET"], "--key", key).stdout)
            aws("s3api", "upload-part", "--bucket", os.environ["S3_BUCKET"], "--key", key,
                "--part-number", "1", "--upload-id", up["UploadId"], "--body", part)
            self.addCleanup(self.abort, key, up["UploadId"])

    def abort(self, key, upload_id):
        try:
            aws("s3api", "abort-multipart-upload", "--bucket", os.environ["S3_BUCKET"], "--key",
                key, "--upload-id", upload_id)
        except Exception:
            pass  # aborted by the test already

    def incomplete(self, out):
        prefix = self.key_of(out) + "/"
        found = json.loads(aws("s3api", "list-multipart-uploads", "--bucket",
                               os.environ["S3_BUCKET"], "--prefix", prefix).stdout or b"{}")
        return {u["Key"][len(prefix):] for u in found.get("Uploads", [])}


if __name__ == "__main__":
    unittest.main()
