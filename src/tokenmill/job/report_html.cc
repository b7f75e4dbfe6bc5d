#include "tokenmill/job/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "tokenmill/base/markup_escape.h"
#include "tokenmill/base/units.h"
#include "tokenmill/job/finalize.h"

namespace tokenmill {
namespace {

// Tableau 10: distinct, readable, colour-blind friendly enough for a few series.
constexpr const char* kColors[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
constexpr int kColorCount = 10;

// Rows of a numbers table shown at most; `status --json` has them all.
constexpr size_t kMaxTableRows = 200;
// Bars of a horizontal bar chart.
constexpr size_t kMaxBars = 30;

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return GroupDigits(static_cast<uint64_t>(v));
  if (std::fabs(v) >= 100) return Fmt("%.0f", v);
  if (std::fabs(v) >= 10) return Fmt("%.1f", v);
  return Fmt("%.2f", v);
}

// A percentage of `part` in `whole` with enough digits for small rates.
std::string Percent(double part, double whole) {
  if (whole <= 0) return "–";
  const double p = 100.0 * part / whole;
  if (p == 0) return "0%";
  if (p >= 10) return Fmt("%.1f%%", p);
  if (p >= 1) return Fmt("%.2f%%", p);
  if (p >= 0.01) return Fmt("%.3f%%", p);
  return Fmt("%.2g%%", p);
}

// "0", "500", "1.5k", "2M": axis labels.
std::string Short(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return Fmt("%.3gG", v / 1e9);
  if (a >= 1e6) return Fmt("%.3gM", v / 1e6);
  if (a >= 1e3) return Fmt("%.3gk", v / 1e3);
  return Fmt("%.3g", v);
}

std::string TimeUtc(int64_t ms) {
  const std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string Duration(double seconds) {
  if (seconds < 1) return Fmt("%.0f ms", seconds * 1000);
  if (seconds < 60) return Fmt("%.1f s", seconds);
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%ld h %02ld min", s / 3600, (s / 60) % 60);
  } else {
    std::snprintf(buf, sizeof(buf), "%ld min %02ld s", s / 60, s % 60);
  }
  return buf;
}

// A step of 1, 2, 2.5 or 5 times a power of ten, so that about 4 steps cover max.
double NiceStep(double max) {
  if (max <= 0) return 1;
  const double raw = max / 4;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * mag >= raw) return m * mag;
  }
  return 10 * mag;
}

struct Bar {
  std::string label;  // under the bar (may be thinned out)
  double value = 0;
  std::string tip;  // <title>, shown on hover
};

// A vertical bar chart; `y_title` names the values.
std::string ColumnChart(const std::vector<Bar>& bars, const std::string& y_title,
                        const char* color = kColors[0]) {
  const int width = 660, height = 280, left = 64, right = 12, top = 16, bottom = 56;
  const int plot_w = width - left - right, plot_h = height - top - bottom;
  std::string svg = "<svg viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "\" width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) +
                    "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">";
  if (bars.empty()) {
    return svg + "<text x=\"" + std::to_string(width / 2) + "\" y=\"" + std::to_string(height / 2) +
           "\" class=\"empty\">no data yet</text></svg>";
  }
  double max = 0;
  for (const auto& b : bars) max = std::max(max, b.value);
  const double step = NiceStep(max);
  const double top_value = std::max(step, std::ceil(max / step) * step);
  auto y_of = [&](double v) { return top + plot_h - plot_h * v / top_value; };
  for (double v = 0; v <= top_value + step / 2; v += step) {
    const std::string y = Fmt("%.1f", y_of(v));
    svg += "<line class=\"grid\" x1=\"" + std::to_string(left) + "\" x2=\"" +
           std::to_string(left + plot_w) + "\" y1=\"" + y + "\" y2=\"" + y + "\"/>";
    svg += "<text class=\"tick\" x=\"" + std::to_string(left - 6) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + Short(v) + "</text>";
  }
  const double slot = static_cast<double>(plot_w) / static_cast<double>(bars.size());
  const double bar_w = std::max(1.0, slot * (bars.size() > 60 ? 0.9 : 0.78));
  // Label every n-th bar so that labels never overlap (about 7 px per character).
  size_t longest = 1;
  for (const auto& b : bars) longest = std::max(longest, b.label.size());
  const size_t every = std::max<size_t>(
      1, static_cast<size_t>(std::ceil(static_cast<double>(longest) * 6.5 / slot)));
  for (size_t i = 0; i < bars.size(); ++i) {
    const double x = left + slot * static_cast<double>(i) + (slot - bar_w) / 2;
    const double y = y_of(bars[i].value);
    svg += "<rect x=\"" + Fmt("%.2f", x) + "\" y=\"" + Fmt("%.2f", y) + "\" width=\"" +
           Fmt("%.2f", bar_w) + "\" height=\"" + Fmt("%.2f", top + plot_h - y) + "\" fill=\"" +
           color + "\"><title>" + HtmlEscape(bars[i].tip) + "</title></rect>";
    if (i % every == 0) {
      svg += "<text class=\"tick\" x=\"" + Fmt("%.1f", x + bar_w / 2) + "\" y=\"" +
             std::to_string(top + plot_h + 14) + "\" text-anchor=\"middle\">" +
             HtmlEscape(bars[i].label) + "</text>";
    }
  }
  svg += "<line class=\"axis\" x1=\"" + std::to_string(left) + "\" x2=\"" +
         std::to_string(left + plot_w) + "\" y1=\"" + std::to_string(top + plot_h) + "\" y2=\"" +
         std::to_string(top + plot_h) + "\"/>";
  svg += "<text class=\"axis-title\" x=\"14\" y=\"" + std::to_string(top + plot_h / 2) +
         "\" transform=\"rotate(-90 14 " + std::to_string(top + plot_h / 2) +
         ")\" text-anchor=\"middle\">" + HtmlEscape(y_title) + "</text>";
  return svg + "</svg>";
}

struct Row {
  std::string label;
  std::vector<double> values;  // one per series
  std::string tip;
};

// Horizontal bars, one row per label, one bar per series; `format` prints a value.
template <typename F>
std::string BarChart(const std::vector<Row>& rows, const std::vector<std::string>& series, F format,
                     int label_width = 210) {
  const int width = 660, right = 80;
  const int per_series = 14, gap = 8;
  const int row_h = per_series * static_cast<int>(series.size()) + gap;
  const int legend = series.size() > 1 ? 24 : 0;
  const int height = std::max<int>(40, legend + row_h * static_cast<int>(rows.size()) + 8);
  const int plot_w = width - label_width - right;
  std::string svg = "<svg viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "\" width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) +
                    "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">";
  if (rows.empty()) {
    return svg + "<text x=\"" + std::to_string(width / 2) +
           "\" y=\"24\" class=\"empty\">no data yet</text></svg>";
  }
  if (series.size() > 1) {
    int x = label_width;
    for (size_t s = 0; s < series.size(); ++s) {
      svg += "<rect x=\"" + std::to_string(x) + "\" y=\"4\" width=\"12\" height=\"12\" fill=\"" +
             kColors[s % kColorCount] + "\"/><text class=\"legend\" x=\"" + std::to_string(x + 16) +
             "\" y=\"14\">" + HtmlEscape(series[s]) + "</text>";
      x += 24 + static_cast<int>(series[s].size()) * 7;
    }
  }
  double max = 0;
  for (const auto& r : rows) {
    for (double v : r.values) max = std::max(max, v);
  }
  if (max <= 0) max = 1;
  for (size_t i = 0; i < rows.size(); ++i) {
    const int y0 = legend + static_cast<int>(i) * row_h;
    std::string label = rows[i].label;
    const size_t max_chars = static_cast<size_t>(label_width / 7);
    if (label.size() > max_chars) {  // keep the end: file names differ there
      size_t cut = label.size() - (max_chars - 1);
      while (cut < label.size() && (static_cast<unsigned char>(label[cut]) & 0xC0) == 0x80) ++cut;
      label = "…" + label.substr(cut);
    }
    svg += "<g><title>" + HtmlEscape(rows[i].tip.empty() ? rows[i].label : rows[i].tip) +
           "</title><text class=\"label\" x=\"" + std::to_string(label_width - 8) + "\" y=\"" +
           std::to_string(y0 + row_h / 2) + "\" text-anchor=\"end\" dominant-baseline=\"middle\">" +
           HtmlEscape(label) + "</text>";
    for (size_t s = 0; s < series.size() && s < rows[i].values.size(); ++s) {
      const double v = rows[i].values[s];
      const double w = std::max(v > 0 ? 1.0 : 0.0, plot_w * v / max);
      const int y = y0 + static_cast<int>(s) * per_series;
      svg += "<rect x=\"" + std::to_string(label_width) + "\" y=\"" + std::to_string(y + 1) +
             "\" width=\"" + Fmt("%.2f", w) + "\" height=\"" + std::to_string(per_series - 3) +
             "\" fill=\"" + kColors[s % kColorCount] + "\"/>";
      svg += "<text class=\"value\" x=\"" + Fmt("%.1f", label_width + w + 4) + "\" y=\"" +
             std::to_string(y + per_series / 2) + "\" dominant-baseline=\"middle\">" +
             HtmlEscape(format(v)) + "</text>";
    }
    svg += "</g>";
  }
  return svg + "</svg>";
}

struct Series {
  std::string name;
  std::vector<double> values;
};

// Lines over time: values[i] at start_ms + i * step_ms.
std::string LineChart(const std::vector<Series>& series, int64_t step_ms,
                      const std::string& y_title) {
  const int width = 660, height = 280, left = 64, right = 28, top = 16, bottom = 48;
  const int plot_w = width - left - right, plot_h = height - top - bottom;
  std::string svg = "<svg viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "\" width=\"" + std::to_string(width) + "\" height=\"" +
                    std::to_string(height) +
                    "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">";
  size_t points = 0;
  double max = 0;
  for (const auto& s : series) {
    points = std::max(points, s.values.size());
    for (double v : s.values) max = std::max(max, v);
  }
  if (points == 0) {
    return svg + "<text x=\"" + std::to_string(width / 2) + "\" y=\"" + std::to_string(height / 2) +
           "\" class=\"empty\">no task finished yet</text></svg>";
  }
  const double step = NiceStep(max);
  const double top_value = std::max(step, std::ceil(max / step) * step);
  auto y_of = [&](double v) { return top + plot_h - plot_h * v / top_value; };
  const double dx =
      points > 1 ? static_cast<double>(plot_w) / static_cast<double>(points - 1) : 0.0;
  for (double v = 0; v <= top_value + step / 2; v += step) {
    const std::string y = Fmt("%.1f", y_of(v));
    svg += "<line class=\"grid\" x1=\"" + std::to_string(left) + "\" x2=\"" +
           std::to_string(left + plot_w) + "\" y1=\"" + y + "\" y2=\"" + y + "\"/>";
    svg += "<text class=\"tick\" x=\"" + std::to_string(left - 6) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + Short(v) + "</text>";
  }
  const size_t every = std::max<size_t>(1, (points + 5) / 6);
  for (size_t i = 0; i < points; i += every) {
    const double x = left + dx * static_cast<double>(i);
    svg += "<text class=\"tick\" x=\"" + Fmt("%.1f", x) + "\" y=\"" +
           std::to_string(top + plot_h + 16) + "\" text-anchor=\"middle\">" +
           Duration(static_cast<double>(i) * static_cast<double>(step_ms) / 1000.0) + "</text>";
  }
  svg += "<text class=\"axis-title\" x=\"" + std::to_string(left + plot_w / 2) + "\" y=\"" +
         std::to_string(height - 6) +
         "\" text-anchor=\"middle\">time since the first task started</text>";
  svg += "<text class=\"axis-title\" x=\"14\" y=\"" + std::to_string(top + plot_h / 2) +
         "\" transform=\"rotate(-90 14 " + std::to_string(top + plot_h / 2) +
         ")\" text-anchor=\"middle\">" + HtmlEscape(y_title) + "</text>";
  for (size_t s = 0; s < series.size(); ++s) {
    std::string path;
    for (size_t i = 0; i < series[s].values.size(); ++i) {
      path += (i == 0 ? "M" : "L") + Fmt("%.1f", left + dx * static_cast<double>(i)) + " " +
              Fmt("%.1f", y_of(series[s].values[i]));
    }
    if (series[s].values.size() == 1) {
      svg += "<circle cx=\"" + std::to_string(left) + "\" cy=\"" +
             Fmt("%.1f", y_of(series[s].values[0])) + "\" r=\"3\" fill=\"" +
             kColors[s % kColorCount] + "\"/>";
    }
    svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + kColors[s % kColorCount] +
           "\" stroke-width=\"2\"><title>" + HtmlEscape(series[s].name) + "</title></path>";
  }
  svg += "<line class=\"axis\" x1=\"" + std::to_string(left) + "\" x2=\"" +
         std::to_string(left + plot_w) + "\" y1=\"" + std::to_string(top + plot_h) + "\" y2=\"" +
         std::to_string(top + plot_h) + "\"/>";
  return svg + "</svg>";
}

// A table of numbers: header cells, then rows of cells (already escaped HTML); cells of
// columns in `numeric` are right-aligned.
std::string Table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows,
                  const std::vector<bool>& numeric, const std::string& more = "") {
  std::string t = "<table class=\"numbers\"><thead><tr>";
  for (size_t i = 0; i < header.size(); ++i) {
    t += std::string("<th") + (i < numeric.size() && numeric[i] ? " class=\"n\"" : "") + ">" +
         header[i] + "</th>";
  }
  t += "</tr></thead><tbody>";
  for (size_t r = 0; r < rows.size() && r < kMaxTableRows; ++r) {
    t += "<tr>";
    for (size_t i = 0; i < rows[r].size(); ++i) {
      t += std::string("<td") + (i < numeric.size() && numeric[i] ? " class=\"n\"" : "") + ">" +
           rows[r][i] + "</td>";
    }
    t += "</tr>";
  }
  t += "</tbody></table>";
  if (rows.size() > kMaxTableRows) {
    t += "<p class=\"note\">" + GroupDigits(rows.size() - kMaxTableRows) +
         " more rows: <code>tokenmill status STORE --json</code> lists them all.</p>";
  }
  if (!more.empty()) t += "<p class=\"note\">" + more + "</p>";
  return t;
}

// A chart and its numbers, in an element id="chart-<name>".
// `stacked`: the numbers go under the chart (wide tables) instead of beside it.
std::string Chart(const std::string& name, const std::string& title, const std::string& note,
                  const std::string& svg, const std::string& numbers, bool stacked = false) {
  return "<figure class=\"chart" + std::string(stacked ? " stacked" : "") + "\" id=\"chart-" +
         name + "\"><figcaption><h3>" + HtmlEscape(title) + "</h3>" +
         (note.empty() ? "" : "<p class=\"note\">" + note + "</p>") +
         "</figcaption><div class=\"body\"><div class=\"plot\">" + svg +
         "</div><div class=\"figures\">" + numbers + "</div></div></figure>\n";
}

std::string BucketLabel(const Histogram::Bucket& b) {
  if (b.low == b.high) return std::to_string(b.low);
  return std::to_string(b.low) + "–" + std::to_string(b.high);
}

// A histogram of ContentStats as a chart with its buckets and summary figures.
std::string HistogramChart(const std::string& name, const std::string& title,
                           const std::string& note, const Histogram& h, const std::string& unit,
                           const std::string& of_what) {
  std::vector<Bar> bars;
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : h.Buckets()) {
    bars.push_back({BucketLabel(b), static_cast<double>(b.count),
                    BucketLabel(b) + " " + unit + ": " + GroupDigits(b.count) + " " + of_what});
    if (b.count == 0) continue;
    rows.push_back({HtmlEscape(BucketLabel(b)), GroupDigits(b.count),
                    Percent(static_cast<double>(b.count), static_cast<double>(h.count()))});
  }
  const double mean =
      h.count() ? static_cast<double>(h.sum()) / static_cast<double>(h.count()) : 0.0;
  std::string summary =
      "<dl class=\"facts\"><dt>" + HtmlEscape(of_what) + "</dt><dd>" + GroupDigits(h.count()) +
      "</dd><dt>mean</dt><dd>" + Num(mean) + "</dd><dt>min</dt><dd>" + GroupDigits(h.min()) +
      "</dd><dt>median ≤</dt><dd>" + GroupDigits(h.Quantile(0.5)) + "</dd><dt>p99 ≤</dt><dd>" +
      GroupDigits(h.Quantile(0.99)) + "</dd><dt>max</dt><dd>" + GroupDigits(h.max()) + "</dd></dl>";
  const std::string scale =
      " Buckets hold one value each up to 15, then widen with the value (8 per power of two).";
  return Chart(
      name, title, note + scale, ColumnChart(bars, of_what),
      summary + Table({HtmlEscape(unit), HtmlEscape(of_what), "share"}, rows, {false, true, true}));
}

const char* kStyle = R"css(
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#fff;--bg:#f6f8fa;--accent:#4e79a7}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px}
header h1{margin:0 0 4px;font-size:24px}
header .facts{margin:8px 0 0}
h2{font-size:18px;margin:28px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:0}
section{margin-bottom:8px}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;font-size:13px;vertical-align:middle;margin-left:8px}
.badge.complete{background:#dafbe1;color:#116329}.badge.running{background:#ddf4ff;color:#0a3069}.badge.failed{background:#ffebe9;color:#82071e}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 12px;margin:0 0 10px}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;font-variant-numeric:tabular-nums}
header dl.facts{grid-template-columns:repeat(4,max-content auto)}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px}
.card .k{color:var(--muted);font-size:12px}.card .v{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
figure.chart{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:0 0 16px;padding:14px 16px}
figure.chart figcaption{margin-bottom:8px}
.body{display:flex;gap:18px;align-items:flex-start;flex-wrap:wrap}
.plot{flex:0 0 auto}.plot svg{display:block;max-width:100%;height:auto}
.figures{flex:1 1 280px;max-height:300px;overflow:auto;min-width:260px}
.stacked .body{flex-direction:column;align-items:stretch}.stacked .figures{flex:none;max-height:260px}
table.numbers{border-collapse:collapse;width:100%;font-size:12.5px;font-variant-numeric:tabular-nums}
table.numbers th{position:sticky;top:0;background:#eef1f4;text-align:left;font-weight:600}
table.numbers th,table.numbers td{padding:3px 8px;border-bottom:1px solid #eaeef2;white-space:nowrap}
table.numbers .n{text-align:right}
#failures table.numbers td{white-space:normal;overflow-wrap:anywhere;vertical-align:top}
#failures table.numbers{background:var(--card);border:1px solid var(--line)}
.note{color:var(--muted);font-size:12.5px;margin:4px 0 0}
.progress{height:12px;background:#eaeef2;border-radius:6px;overflow:hidden;display:flex;margin:8px 0}
.progress span{display:block;height:100%}
.tok{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f3f6;border-radius:3px;padding:0 3px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
svg text{font:11px system-ui,"Noto Sans CJK SC","WenQuanYi Zen Hei",sans-serif;fill:#3d444d}
svg text.label{font-size:12px}
svg .grid{stroke:#eaeef2}svg .axis{stroke:#8c959f}
svg .axis-title{font-size:11px;fill:var(--muted)}
svg .empty{font-size:14px;fill:var(--muted);text-anchor:middle}
svg .value{font-size:10.5px;fill:#3d444d}
.error{color:#82071e}
footer{color:var(--muted);font-size:12px;margin-top:24px}
)css";

std::string Card(const std::string& key, uint64_t value, const std::string& id) {
  return "<div class=\"card\"><div class=\"k\">" + HtmlEscape(key) +
         "</div><div class=\"v\" id=\"" + id + "\" data-value=\"" + std::to_string(value) + "\">" +
         GroupDigits(value) + "</div></div>";
}

std::string StateBadge(const JobStatus& s) {
  if (s.complete) return "<span class=\"badge complete\" id=\"job-state\">complete</span>";
  if (s.finished) {
    return "<span class=\"badge failed\" id=\"job-state\">finished with " + GroupDigits(s.failed) +
           " failed task" + (s.failed == 1 ? "" : "s") + "</span>";
  }
  return "<span class=\"badge running\" id=\"job-state\">in progress: " + GroupDigits(s.done) +
         " of " + GroupDigits(s.total) + " tasks done</span>";
}

std::string ProgressSection(const JobStatus& s) {
  std::string h = "<section id=\"progress\"><h2>Progress</h2>";
  auto pct = [&](uint64_t n) {
    return Fmt("%.3f", s.total ? 100.0 * static_cast<double>(n) / static_cast<double>(s.total) : 0);
  };
  h += "<div class=\"progress\" title=\"done / failed / leased / pending\">"
       "<span style=\"width:" +
       pct(s.done) +
       "%;background:#59a14f\"></span>"
       "<span style=\"width:" +
       pct(s.failed) +
       "%;background:#e15759\"></span>"
       "<span style=\"width:" +
       pct(s.leased) + "%;background:#4e79a7\"></span></div>";
  h += "<div class=\"cards\">" + Card("tasks", s.total, "progress-total") +
       Card("done", s.done, "progress-done") + Card("running", s.leased, "progress-leased") +
       Card("pending", s.pending, "progress-pending") +
       Card("failed", s.failed, "progress-failed") +
       Card("input bytes read", s.stats.bytes_in, "progress-bytes-in") +
       Card("input bytes", s.input_bytes, "progress-input-bytes") + "</div>";
  if (!s.finished) {
    h += "<p class=\"note\">The job is still running: the figures below cover the " +
         GroupDigits(s.done) + " tasks done so far (" +
         Percent(static_cast<double>(s.stats.bytes_in), static_cast<double>(s.input_bytes)) +
         " of the input). Run <code>tokenmill report</code> again for a fresh page.</p>";
  }
  return h + "</section>\n";
}

std::string TotalsSection(const JobStatus& s) {
  std::string h = "<section id=\"totals\"><h2>Totals</h2><div class=\"cards\">";
  for (const auto& [key, value] : ManifestTotals(s.stats, s.shards.size(), s.bytes_out)) {
    h += Card(key, value, "total-" + key);
  }
  h += "</div><p class=\"note\">";
  h += s.complete ? "As in the manifest's <code>totals</code>."
                  : "Over the tasks done so far; the manifest is written when every task is done.";
  return h + "</p></section>\n";
}

std::string FailuresSection(const JobStatus& s) {
  if (s.failures.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : s.failures) {
    std::string error = f.last_error.empty() ? f.reason : f.last_error;
    rows.push_back({std::to_string(f.task), "<code>" + HtmlEscape(f.file) + "</code>",
                    GroupDigits(f.offset), GroupDigits(f.attempts),
                    "<span class=\"error\">" + HtmlEscape(error) + "</span>" +
                        (f.last_error.empty() || f.reason.find(f.last_error) != std::string::npos
                             ? ""
                             : "<br><span class=\"note\">" + HtmlEscape(f.reason) + "</span>")});
  }
  return "<section id=\"failures\"><h2>Failed tasks</h2>" +
         Table({"task", "input", "from byte", "failed attempts", "error"}, rows,
               {true, false, true, true, false}) +
         "<p class=\"note\">Fix these inputs, then plan the job again with <code>tokenmill run "
         "--fresh</code>; the other tasks' shards are complete.</p></section>\n";
}

std::string TokenLabel(const ReportData& d, uint32_t id) {
  auto it = d.token_label.find(id);
  if (it == d.token_label.end()) return "#" + std::to_string(id);
  return it->second;
}

std::string ContentSection(const ReportData& d) {
  const JobStatus& s = d.status;
  const ContentStats& c = s.content;
  std::string h = "<section id=\"content\"><h2>Content</h2>";
  h += "<p class=\"note\">Determined by the input and the job file alone: the same whatever the "
       "number of workers or retries.</p>\n";
  h += HistogramChart("sequence-length", "Sequence length",
                      "Real tokens per example (padding excluded), as the model sees them.",
                      c.histogram(kExampleTokens), "tokens", "examples");
  h += HistogramChart("document-length", "Document length",
                      "Tokens the tokenizer made of each document.", c.histogram(kDocumentTokens),
                      "tokens", "documents");
  h += HistogramChart("line-length", "Line length", "Characters per non-empty line.",
                      c.histogram(kLineChars), "characters", "lines");

  {  // [UNK] and truncation by input file
    std::vector<const FileStats*> files;
    for (const auto& f : s.files) {
      if (f.tasks_done > 0) files.push_back(&f);
    }
    auto rate = [](uint64_t part, uint64_t whole) {
      return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
    };
    std::stable_sort(files.begin(), files.end(), [&](const FileStats* a, const FileStats* b) {
      const double ra = rate(a->stats.unk_tokens + a->stats.truncated_tokens, a->stats.tokens);
      const double rb = rate(b->stats.unk_tokens + b->stats.truncated_tokens, b->stats.tokens);
      return ra > rb;
    });
    std::vector<Row> rows;
    std::vector<std::vector<std::string>> table;
    for (const FileStats* f : files) {
      const double unk = 100 * rate(f->stats.unk_tokens, f->stats.tokens);
      const double trunc = 100 * rate(f->stats.truncated_tokens, f->stats.tokens);
      if (rows.size() < kMaxBars) {
        rows.push_back({Basename(f->url), {unk, trunc}, f->url});
      }
      table.push_back(
          {"<code>" + HtmlEscape(Basename(f->url)) + "</code>", GroupDigits(f->stats.tokens),
           GroupDigits(f->stats.unk_tokens),
           Percent(static_cast<double>(f->stats.unk_tokens), static_cast<double>(f->stats.tokens)),
           GroupDigits(f->stats.truncated_tokens),
           Percent(static_cast<double>(f->stats.truncated_tokens),
                   static_cast<double>(f->stats.tokens))});
    }
    std::string note =
        "Share of each file's tokens that are [UNK] (byte-level BPE has none: every byte is a "
        "token) or were cut off by truncation; the worst files first.";
    if (files.size() > kMaxBars) {
      note += " The chart shows the " + std::to_string(kMaxBars) + " worst of " +
              GroupDigits(files.size()) + " files.";
    }
    h += Chart("unk-by-file", "[UNK] and truncation by input file", note,
               BarChart(rows, {"[UNK] %", "truncated %"},
                        [](double v) { return v == 0 ? std::string("0") : Fmt("%.3g%%", v); }),
               Table({"file", "tokens", "[UNK]", "[UNK] rate", "truncated", "truncation rate"},
                     table, {false, true, true, true, true, true}),
               /*stacked=*/true);
  }

  {  // script mix
    uint64_t total = 0;
    for (uint64_t n : c.chars) total += n;
    std::vector<Row> rows;
    std::vector<std::vector<std::string>> table;
    for (int i = 0; i < kCharClasses; ++i) {
      const std::string name(CharClassName(static_cast<CharClass>(i)));
      const double share =
          total ? 100.0 * static_cast<double>(c.chars[i]) / static_cast<double>(total) : 0.0;
      if (total > 0) rows.push_back({name, {share}, name + ": " + GroupDigits(c.chars[i])});
      table.push_back({name, GroupDigits(c.chars[i]),
                       Percent(static_cast<double>(c.chars[i]), static_cast<double>(total))});
    }
    h += Chart("script-mix", "Script mix", "Characters of the input documents by script or class.",
               BarChart(
                   rows, {"share of characters"},
                   [](double v) { return v == 0 ? std::string("0") : Fmt("%.3g%%", v); }, 110),
               Table({"class", "characters", "share"}, table, {false, true, true}));
  }

  {  // top tokens
    std::vector<Row> rows;
    std::vector<std::vector<std::string>> table;
    size_t rank = 0;
    for (const auto& t : c.top_tokens) {
      ++rank;
      const std::string label = TokenLabel(d, t.id);
      if (rows.size() < kMaxBars) {
        rows.push_back({label,
                        {static_cast<double>(t.count)},
                        label + " (id " + std::to_string(t.id) + "): " + GroupDigits(t.count)});
      }
      table.push_back({std::to_string(rank), "<span class=\"tok\">" + HtmlEscape(label) + "</span>",
                       std::to_string(t.id), GroupDigits(t.count),
                       Percent(static_cast<double>(t.count), static_cast<double>(s.stats.tokens))});
    }
    std::string note =
        "The most frequent token ids, decoded with the job's tokenizer (␣ is a "
        "space). Counts are summed over the tasks that listed the id in their top " +
        std::to_string(kTopTokens) + ".";
    if (!d.tokenizer_note.empty()) note += " " + HtmlEscape(d.tokenizer_note);
    h += Chart("top-tokens", "Top tokens", note,
               BarChart(
                   rows, {"count"}, [](double v) { return Short(v); }, 150),
               Table({"rank", "token", "id", "count", "share of tokens"}, table,
                     {true, false, true, true, true}));
  }

  {  // tokens per shard
    // The files that hold examples: Megatron's .idx files (no examples, no tokens) are left out
    // of the chart, not of the table.
    std::vector<const ShardEntry*> data_shards;
    for (const auto& sh : s.shards) {
      const std::string& name = sh.shard.name;
      const bool index_file = sh.shard.examples == 0 && sh.shard.tokens == 0 && name.size() > 4 &&
                              name.compare(name.size() - 4, 4, ".idx") == 0;
      if (!index_file) data_shards.push_back(&sh.shard);
    }
    std::vector<Bar> bars;
    std::vector<std::vector<std::string>> table;
    std::string note = "Tokens in each shard, in the order of the manifest.";
    if (data_shards.size() < s.shards.size()) note += " Index files (.idx) are left out.";
    const bool one_bar_each = data_shards.size() <= 120;
    if (one_bar_each) {
      for (size_t i = 0; i < data_shards.size(); ++i) {
        const ShardEntry& sh = *data_shards[i];
        bars.push_back({std::to_string(i), static_cast<double>(sh.tokens),
                        sh.name + ": " + GroupDigits(sh.tokens) + " tokens, " +
                            GroupDigits(sh.examples) + " examples"});
      }
    } else {
      Histogram per_shard;
      for (const ShardEntry* sh : data_shards) per_shard.Add(sh->tokens);
      for (const auto& b : per_shard.Buckets()) {
        bars.push_back({Short(static_cast<double>(b.low)), static_cast<double>(b.count),
                        BucketLabel(b) + " tokens: " + GroupDigits(b.count) + " shards"});
      }
      note = GroupDigits(data_shards.size()) +
             " shards: the chart counts shards by their number of tokens.";
    }
    for (const auto& sh : s.shards) {
      table.push_back({"<code>" + HtmlEscape(sh.shard.name) + "</code>",
                       GroupDigits(sh.shard.examples), GroupDigits(sh.shard.tokens),
                       FormatBytes(static_cast<double>(sh.shard.bytes))});
    }
    h += Chart("tokens-per-shard", "Tokens per shard", note,
               ColumnChart(bars, one_bar_each ? "tokens" : "shards", kColors[4]),
               Table({"shard", "examples", "tokens", "size"}, table, {false, true, true, true}));
  }

  if (!c.counters.empty()) {
    std::vector<std::vector<std::string>> table;
    for (const auto& [name, v] : c.counters) {
      table.push_back({"<code>" + HtmlEscape(name) + "</code>", GroupDigits(v)});
    }
    h += "<figure class=\"chart\" id=\"counters\"><figcaption><h3>Example counters</h3><p "
         "class=\"note\">Counters of this example kind (docs/report.md).</p></figcaption>" +
         Table({"counter", "value"}, table, {false, true}) + "</figure>\n";
  }
  if (c.tasks < s.done) {
    h += "<p class=\"note\">" + GroupDigits(s.done - c.tasks) +
         " done tasks were recorded by an older tokenmill without content statistics.</p>";
  }
  return h + "</section>\n";
}

std::string FleetSection(const ReportData& d) {
  const JobStatus& s = d.status;
  const FleetStats& f = s.fleet;
  std::string h = "<section id=\"fleet\"><h2>Fleet</h2>";
  h += "<p class=\"note\">How the workers behaved: these figures depend on timing and on who ran "
       "what, unlike everything above.</p>\n";
  {
    std::vector<Series> series;
    std::vector<const WorkerFleet*> workers;
    for (const auto& w : f.workers) {
      if (w.tasks > 0) workers.push_back(&w);
    }
    std::stable_sort(
        workers.begin(), workers.end(),
        [](const WorkerFleet* a, const WorkerFleet* b) { return a->bytes_in > b->bytes_in; });
    const size_t shown = std::min<size_t>(workers.size(), 9);
    std::vector<double> all(f.buckets, 0.0);
    for (const WorkerFleet* w : workers) {
      for (size_t i = 0; i < w->mb_per_s.size() && i < all.size(); ++i) all[i] += w->mb_per_s[i];
    }
    if (workers.size() > 1) series.push_back({"all workers", all});
    for (size_t i = 0; i < shown; ++i) series.push_back({workers[i]->id, workers[i]->mb_per_s});
    std::string legend;
    for (size_t i = 0; i < series.size(); ++i) {
      legend += "<span style=\"color:" + std::string(kColors[i % kColorCount]) + "\">■</span> " +
                HtmlEscape(series[i].name) + "&nbsp;&nbsp; ";
    }
    std::vector<std::vector<std::string>> table;
    for (const auto& w : f.workers) {
      const double mbps = w.busy_ms > 0 ? static_cast<double>(w.bytes_in) / 1e6 /
                                              (static_cast<double>(w.busy_ms) / 1000.0)
                                        : 0.0;
      table.push_back({"<code>" + HtmlEscape(w.id) + "</code>", GroupDigits(w.tasks),
                       FormatBytes(static_cast<double>(w.bytes_in)),
                       Duration(static_cast<double>(w.busy_ms) / 1000.0), Num(mbps),
                       GroupDigits(w.storage_retries), w.exited ? "exited" : "running"});
    }
    h += Chart(
        "throughput", "Throughput over time by worker",
        "Input MB/s, each task's bytes spread over its run time, in buckets of " +
            Duration(static_cast<double>(f.bucket_ms) / 1000.0) + ". " + legend,
        LineChart(series, f.bucket_ms, "MB/s"),
        Table({"worker", "tasks", "input", "busy", "MB/s while busy", "storage retries", "state"},
              table, {false, true, true, true, true, true, false}),
        /*stacked=*/true);
  }
  {
    std::vector<Bar> bars;
    std::vector<std::vector<std::string>> rows;
    for (const auto& b : f.task_ms.Buckets()) {
      const std::string label = Duration(static_cast<double>(b.low) / 1000.0);
      bars.push_back({label, static_cast<double>(b.count),
                      BucketLabel(b) + " ms: " + GroupDigits(b.count) + " tasks"});
      if (b.count) rows.push_back({HtmlEscape(BucketLabel(b)), GroupDigits(b.count)});
    }
    h +=
        Chart("task-duration", "Task run time", "Run time of the attempt that completed each task.",
              ColumnChart(bars, "tasks", kColors[1]), Table({"ms", "tasks"}, rows, {false, true}));
  }
  h += "<div class=\"cards\" id=\"fleet-counters\">" +
       Card("tasks retried", f.retried_tasks, "fleet-retried-tasks") +
       Card("failed attempts", f.failed_attempts, "fleet-failed-attempts") +
       Card("lease takeovers", f.takeovers, "fleet-takeovers") +
       Card("lease expiries", f.expiries, "fleet-expiries") +
       Card("storage retries", f.storage_retries, "fleet-storage-retries") +
       Card("workers seen", f.workers.size(), "fleet-workers") + "</div>";
  h += "<dl class=\"facts\" style=\"margin-top:12px\"><dt>job store</dt><dd><code>" +
       HtmlEscape(s.store) + "</code></dd><dt>planned</dt><dd>" + TimeUtc(s.created_at_ms) +
       "</dd><dt>report written</dt><dd>" + TimeUtc(d.generated_at_ms) + "</dd></dl>";
  return h + "</section>\n";
}

}  // namespace

std::string HtmlEscape(std::string_view text) { return EscapeMarkup(text); }

std::string GroupDigits(uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    out += digits[i];
    if (i + 1 < n && (n - i - 1) % 3 == 0) out += ',';
  }
  return out;
}

std::string RenderReportHtml(const ReportData& d) {
  const JobStatus& s = d.status;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
      "<meta name=\"generator\" content=\"tokenmill\"><title>tokenmill report: " +
      HtmlEscape(d.title) + "</title><style>" + kStyle + "</style></head>\n<body><main>";
  h += "<header><h1>" + HtmlEscape(d.title) + StateBadge(s) + "</h1><dl class=\"facts\">";
  for (const auto& [k, v] : d.facts) {
    h += "<dt>" + HtmlEscape(k) + "</dt><dd>" + HtmlEscape(v) + "</dd>";
  }
  h += "</dl></header>\n";
  if (!s.complete) h += ProgressSection(s);
  h += TotalsSection(s);
  h += FailuresSection(s);
  h += ContentSection(d);
  h += FleetSection(d);
  h += "<footer>Written by tokenmill " TOKENMILL_VERSION
       ". This page is self-contained: it loads nothing from any server.</footer>";
  h += "</main></body></html>\n";
  return h;
}

}  // namespace tokenmill
