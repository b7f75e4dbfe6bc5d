#include "tokenmill/job/report_html.h"

#include <gtest/gtest.h>

namespace tokenmill {
namespace {

ReportData SampleData() {
  ReportData d;
  d.title = "my <job>";
  d.facts = {{"example kind", "electra"}};
  JobStatus& s = d.status;
  s.store = "/tmp/store";
  s.total = s.done = 2;
  s.complete = s.finished = true;
  s.stats.documents = 1234567;
  s.stats.tokens = 9876543210;
  s.stats.examples = 42;
  s.stats.unk_tokens = 7;
  ContentStatsCollector c(100);
  c.AddDocument("Hello world, 你好", 4);
  const uint32_t ids[] = {5, 5, 9};
  c.OnTokens(ids);
  c.AddExample(128);
  s.content = c.Finish({{"electra.one_segment_examples", 1}});
  d.token_label[5] = VisibleToken(" the");
  FileStats f;
  f.url = "/data/part-00.txt";
  f.tasks = f.tasks_done = 2;
  f.stats = s.stats;
  s.files.push_back(f);
  s.shards.push_back({0, ShardEntry{"part-000000-000.tfrecord", 1000, "x", 42, 5376}});
  s.bytes_out = 1000;
  const DoneRecord done = [] {
    DoneRecord r;
    r.holder = "worker-1";
    r.finished_at_ms = 5000;
    r.elapsed_ms = 2000;
    r.stats.bytes_in = 2'000'000;
    return r;
  }();
  FleetInputs in;
  in.done = {&done};
  s.fleet = ComputeFleet(in);
  return d;
}

TEST(ReportHtmlTest, EveryChartAndTotalIsThere) {
  const std::string html = RenderReportHtml(SampleData());
  for (const char* id :
       {"chart-sequence-length", "chart-document-length", "chart-unk-by-file", "chart-script-mix",
        "chart-top-tokens", "chart-tokens-per-shard", "chart-throughput", "chart-task-duration"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(html.find("id=\"total-tokens\" data-value=\"9876543210\">9,876,543,210<"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"total-documents\" data-value=\"1234567\""), std::string::npos);
  EXPECT_NE(html.find("id=\"total-shards\" data-value=\"1\""), std::string::npos);
  EXPECT_NE(html.find("my &lt;job&gt;"), std::string::npos);
  EXPECT_NE(html.find("␣the"), std::string::npos);  // decoded, with its space made visible
  EXPECT_NE(html.find("electra.one_segment_examples"), std::string::npos);
  EXPECT_NE(html.find("worker-1"), std::string::npos);
  // Self-contained: no scripts, no links to anything.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("id=\"failures\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"progress\""), std::string::npos);
}

TEST(ReportHtmlTest, OnlyTheFleetSectionDependsOnTheFleet) {
  ReportData a = SampleData();
  ReportData b = SampleData();
  b.status.fleet.workers[0].id = "another-worker";
  b.generated_at_ms = 123456789;
  const std::string ha = RenderReportHtml(a), hb = RenderReportHtml(b);
  EXPECT_NE(ha, hb);
  const auto cut = [](const std::string& h) {
    return h.substr(0, h.find("<section id=\"fleet\""));
  };
  EXPECT_EQ(cut(ha), cut(hb));
}

TEST(ReportHtmlTest, FailedAndRunningJobs) {
  ReportData d = SampleData();
  d.status.complete = d.status.finished = false;
  d.status.total = 5;
  d.status.pending = 2;
  d.status.failed = 1;
  d.status.failures.push_back(
      {3, "failed 3 attempts; last: bad <gzip>", "bad <gzip>", "/data/cut.txt.gz", 0, 3});
  const std::string html = RenderReportHtml(d);
  EXPECT_NE(html.find("id=\"failures\""), std::string::npos);
  EXPECT_NE(html.find("bad &lt;gzip&gt;"), std::string::npos);
  EXPECT_NE(html.find("/data/cut.txt.gz"), std::string::npos);
  EXPECT_NE(html.find("id=\"progress\""), std::string::npos);
  EXPECT_NE(html.find("in progress: 2 of 5 tasks done"), std::string::npos);
  EXPECT_NE(html.find("id=\"progress-pending\" data-value=\"2\""), std::string::npos);
}

TEST(ReportHtmlTest, EmptyJobStillHasEveryChart) {
  ReportData d;
  d.title = "empty";
  d.status.total = 3;
  d.status.pending = 3;
  const std::string html = RenderReportHtml(d);
  EXPECT_NE(html.find("id=\"chart-top-tokens\""), std::string::npos);
  EXPECT_NE(html.find("no data yet"), std::string::npos);
  EXPECT_NE(html.find("no task finished yet"), std::string::npos);
}

TEST(ReportHtmlTest, MegatronIndexFilesAreListedButNotDrawn) {
  ReportData d = SampleData();
  d.status.shards = {{0, ShardEntry{"part-000000-000.bin", 800, "a", 4, 400}},
                     {0, ShardEntry{"part-000000-000.idx", 90, "b", 0, 0}}};
  const std::string html = RenderReportHtml(d);
  EXPECT_NE(html.find("Index files (.idx) are left out."), std::string::npos);
  EXPECT_NE(html.find("part-000000-000.idx"), std::string::npos);  // in the table
  const size_t chart = html.find("id=\"chart-tokens-per-shard\"");
  const size_t end = html.find("</svg>", chart);
  EXPECT_EQ(html.substr(chart, end - chart).find(".idx:"), std::string::npos);  // no bar for it
}

TEST(ReportHtmlTest, Helpers) {
  EXPECT_EQ(GroupDigits(0), "0");
  EXPECT_EQ(GroupDigits(999), "999");
  EXPECT_EQ(GroupDigits(1000), "1,000");
  EXPECT_EQ(GroupDigits(18446744073709551615ull), "18,446,744,073,709,551,615");
  EXPECT_EQ(HtmlEscape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
}

}  // namespace
}  // namespace tokenmill
