"""`tokenmill report`: the HTML page of a job, opened by a real browser (headless Chromium,
Debian package `chromium`) from a file:// URL with the network off; the test reads the rendered
DOM (every chart present, the totals equal the manifest's) and keeps a screenshot in
<build>/test-artifacts/. Also: the page is the same with 1 and 2 workers except its fleet
section, a failed task is shown with its error, a running job shows its progress, and the page
can be read from and written to an S3 store. Skips, saying so, when chromium is absent
(scripts/install-deps.sh installs it; CI has it)."""

import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import test_jobstore_s3
import tmtest
from tmtest import run, write_job

CHARTS = ("sequence-length", "document-length", "unk-by-file", "script-mix", "top-tokens",
          "tokens-per-shard", "throughput")
ARTIFACTS = os.environ.get("TOKENMILL_TEST_ARTIFACTS",
                           os.path.join(os.path.dirname(os.path.abspath(tmtest.BIN)),
                                        "test-artifacts"))


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def offline_prefix():
    """Runs the browser in a network namespace of its own (no interface but a downed loopback)
    when this process may create one; otherwise the proxy flags below still refuse every
    request."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n"]
    return []


def page_requests(netlog):
    """The URLs the page itself asked for (not file: or data:), from Chromium's net log. The
    browser's own background requests (update checks, network time) have no initiator
    ("not an origin"); a file:// page's requests have the initiator "null"."""
    with open(netlog, errors="replace") as f:
        log = json.load(f)
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params", {})
        if event["type"] != start_job or "url" not in params:
            continue
        if params.get("initiator") == "not an origin":
            continue
        if not params["url"].startswith(("file:", "data:", "about:")):
            urls.append(params["url"])
    return urls


def browse(page, *extra, timeout=120):
    """Opens `page` (a local file) in headless Chromium; returns (stdout, the URLs the page
    requested from any server)."""
    profile = tempfile.mkdtemp(prefix="tokenmill-chromium-")
    netlog = os.path.join(profile, "netlog.json")
    try:
        cmd = offline_prefix() + [
            chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
            "--no-first-run", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--disable-extensions", "--disable-dev-shm-usage",
            "--user-data-dir=" + profile,
            # Any request that still tried to leave would go to a proxy that is not there.
            "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
            "--log-net-log=" + netlog] + list(extra) + ["file://" + os.path.abspath(page)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise AssertionError("chromium exited %d\n%s" % (proc.returncode, proc.stderr[-3000:]))
        return proc.stdout, page_requests(netlog)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


class Dom(html.parser.HTMLParser):
    """The elements of a page that have an id: their tag, attributes, text and descendant tags."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "rect", "line", "circle", "path"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.by_id = {}
        self.stack = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for el in self.stack:
            el["tags"].append(tag)
        el = {"tag": tag, "attrs": attrs, "text": "", "tags": []}
        if "id" in attrs:
            self.by_id[attrs["id"]] = el
        if tag not in self.VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        for el in self.stack:
            el["tags"].append(tag)
        attrs = dict(attrs)
        if "id" in attrs:
            self.by_id[attrs["id"]] = {"tag": tag, "attrs": attrs, "text": "", "tags": []}

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break

    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data


def without_fleet(page):
    """The page with its fleet section (timing-dependent) cut out."""
    return re.sub(r'<section id="fleet">.*?</section>', "", page, flags=re.S)


class ReportTest(tmtest.TempDirTest):
    def setUp(self):
        super().setUp()
        if chromium() is None:
            self.skipTest("chromium is not installed (Debian package `chromium`; "
                          "scripts/install-deps.sh installs it)")

    def sample_job(self, out, **kw):
        return write_job(self.path("job.toml"), tmtest.sample_inputs(), out, task_size="128KiB",
                         **kw)

    def check_page(self, page, screenshot):
        """Renders `page` in Chromium; checks that it made no request and that every chart is
        there with a drawing and its numbers. Returns the rendered DOM."""
        dom_text, requests = browse(page, "--dump-dom", "--virtual-time-budget=2000")
        self.assertEqual(requests, [], "the page asked servers for these")
        dom = Dom(dom_text)
        for name in CHARTS:
            el = dom.by_id.get("chart-" + name)
            self.assertIsNotNone(el, "chart-%s missing" % name)
            self.assertIn("svg", el["tags"], name)
            self.assertIn("table", el["tags"], name)  # its numbers
        os.makedirs(ARTIFACTS, exist_ok=True)
        shot = os.path.join(ARTIFACTS, screenshot)
        browse(page, "--screenshot=" + shot, "--window-size=1280,4200", "--hide-scrollbars")
        self.assertGreater(os.path.getsize(shot), 10000)
        return dom

    def test_finished_job_in_chromium_and_same_page_with_one_or_two_workers(self):
        out = self.path("out")
        job = self.sample_job(out)
        proc = run(["run", job, "--quiet", "--workers", "1"])
        store = os.path.join(out, "_job")
        page = os.path.join(store, "report.html")
        self.assertIn("tokenmill: report: " + page, proc.stderr)
        self.assertTrue(os.path.isfile(page))
        self.assertEqual(sorted(n for n in os.listdir(out) if not n.startswith("part-")),
                         ["_job", "manifest.json"])  # nothing else in the output folder
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)

        dom = self.check_page(page, "report-complete.png")
        for key, value in manifest["totals"].items():
            el = dom.by_id["total-" + key]
            self.assertEqual(int(el["attrs"]["data-value"]), value, key)
            self.assertEqual(int(el["text"].replace(",", "")), value, key)
        self.assertEqual(dom.by_id["job-state"]["text"], "complete")
        top = dom.by_id["chart-top-tokens"]["text"]
        self.assertIn("，", top)  # decoded tokens, not ids: the corpus is mostly Chinese

        # status --json carries every total of the page; the manifest's content statistics are
        # the same as status's.
        status = tmtest.status_json(store)
        self.assertEqual(status["totals"], manifest["totals"])
        self.assertEqual(status["content"], manifest["content"])
        self.assertEqual(status["report"], page)
        self.assertEqual(len(status["shards"]), manifest["totals"]["shards"])
        self.assertEqual(sum(f["tokens"] for f in status["files"]), manifest["totals"]["tokens"])
        self.assertIn("task_ms", status["fleet"])
        text = run(["status", store]).stdout
        self.assertIn("report: " + page, text)

        with open(page) as f:
            one_worker = f.read()
        run(["run", job, "--quiet", "--workers", "2", "--fresh"])
        with open(page) as f:
            two_workers = f.read()
        self.assertNotEqual(one_worker, two_workers)  # the fleet section differs
        self.assertEqual(without_fleet(one_worker), without_fleet(two_workers))

        # --out writes elsewhere; finalize writes the page into the store again.
        other = self.path("elsewhere.html")
        self.assertIn(other, run(["report", store, "--out", other]).stdout)
        with open(other) as f:
            self.assertEqual(without_fleet(f.read()), without_fleet(two_workers))
        os.remove(page)
        self.assertIn("report: " + page, run(["finalize", store]).stdout)
        self.assertTrue(os.path.isfile(page))

    def test_the_offline_check_sees_a_page_that_asks_a_server(self):
        page = self.path("online.html")
        with open(page, "w") as f:
            f.write('<html><body><img src="http://example.com/x.png">'
                    '<link rel="stylesheet" href="https://cdn.example.org/a.css"></body></html>')
        _, requests = browse(page, "--dump-dom")
        self.assertEqual(sorted(requests),
                         ["http://example.com/x.png", "https://cdn.example.org/a.css"])

    def test_failed_task_is_shown_with_its_error(self):
        bad = tmtest.truncated_gz(self.path("cut.txt.gz"))
        out = self.path("f")
        job = write_job(self.path("f.toml"), tmtest.sample_inputs() + [bad], out, max_attempts=1)
        proc = run(["run", job, "--quiet", "--workers", "1"], check=False)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        page = os.path.join(out, "_job", "report.html")
        self.assertIn("report: " + page, proc.stderr)
        dom = self.check_page(page, "report-failed.png")
        failures = dom.by_id["failures"]["text"]
        self.assertIn("cut.txt.gz", failures)
        self.assertRegex(failures, r"(?i)gzip|deflate|truncated|unexpected end")
        self.assertIn("finished with 1 failed task", dom.by_id["job-state"]["text"])
        self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))

    def test_running_job_shows_progress_so_far(self):
        out = self.path("r")
        job = self.sample_job(out)
        store = os.path.join(out, "_job")
        run(["plan", job])
        run(["work", store, "--max-tasks", "2", "--threads", "1"])
        proc = run(["report", store])
        page = os.path.join(store, "report.html")
        self.assertIn(page, proc.stdout)
        dom = self.check_page(page, "report-running.png")
        status = tmtest.status_json(store)
        self.assertEqual(status["tasks"]["done"], 2)
        self.assertGreater(status["tasks"]["total"], 2)
        self.assertEqual(int(dom.by_id["progress-done"]["attrs"]["data-value"]), 2)
        self.assertEqual(int(dom.by_id["progress-total"]["attrs"]["data-value"]),
                         status["tasks"]["total"])
        self.assertIn("in progress: 2 of", dom.by_id["job-state"]["text"])
        for key, value in status["totals"].items():
            self.assertEqual(int(dom.by_id["total-" + key]["attrs"]["data-value"]), value, key)


class ReportS3Test(test_jobstore_s3.S3Mixin, tmtest.TempDirTest):
    """The report of a job whose store and output are on S3: read from the bucket, written into
    it, and written from it to a local file. Needs no browser: the page's text is checked."""

    def test_report_from_and_to_s3(self):
        out = self.location("out")
        store = out + "/_job"
        job = write_job(self.path("s3.toml"), tmtest.sample_inputs(), out, task_size="256KiB")
        proc = run(["run", job, "--quiet", "--workers", "2"], env=self.env())
        self.assertIn("tokenmill: report: " + store + "/report.html", proc.stderr)
        manifest = json.loads(self.fetch_manifest(out))
        page = test_jobstore_s3.aws("s3", "cp", store + "/report.html", "-").stdout.decode()
        listing = test_jobstore_s3.aws("s3", "ls", out + "/").stdout.decode()
        self.assertNotIn("report.html", listing)  # not among the shards
        local = self.path("local.html")
        run(["report", store, "--out", local], env=self.env())
        with open(local) as f:
            local_page = f.read()
        self.assertEqual(without_fleet(local_page), without_fleet(page))
        for text in (page, local_page):
            dom = Dom(text)
            for name in CHARTS:
                self.assertIn("chart-" + name, dom.by_id)
            for key, value in manifest["totals"].items():
                self.assertEqual(int(dom.by_id["total-" + key]["attrs"]["data-value"]), value)
        # And a page written into the bucket by `report --out s3://...`.
        elsewhere = self.location("pages/job.html")
        run(["report", store, "--out", elsewhere], env=self.env())
        copy = test_jobstore_s3.aws("s3", "cp", elsewhere, "-").stdout.decode()
        self.assertEqual(without_fleet(copy), without_fleet(page))


if __name__ == "__main__":
    unittest.main()
