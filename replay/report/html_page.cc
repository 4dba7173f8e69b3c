// File: replay/report/html_page.cc
#include "replay/report/html_page.h"

#include "replay/report/html_table.h"
#include "replay/report/report_writers.h"

namespace replay::internal {

std::string_view PageStyle() {
  static constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2430}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d0d6de}
h3{font-size:14px;margin:16px 0 4px;font-family:ui-monospace,monospace}
p.mode{margin:0 0 12px;color:#4a5566}
table{border-collapse:collapse;font-size:13px;margin:4px 0 8px}
th,td{padding:3px 10px;border-bottom:1px solid #e4e8ee;text-align:right;white-space:nowrap}
th{background:#f3f5f8;font-weight:600}
table.sortable th{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \25B2"}th[aria-sort=descending]::after{content:" \25BC"}
td.l,th.l{text-align:left}td.name{font-family:ui-monospace,monospace}
.plots{display:flex;flex-wrap:wrap;gap:8px}
svg{background:#fbfcfd;border:1px solid #e4e8ee}
svg text{font-size:10px;fill:#4a5566;font-family:system-ui,sans-serif}
svg .title{font-size:11px;fill:#1d2430;font-weight:600}
svg .axis-title{font-size:10px;fill:#1d2430}
.note{color:#4a5566;font-size:13px}ul.errors{font-family:ui-monospace,monospace;font-size:12px}
.worse{color:#b3261e}.better{color:#1b7f3b}
)";
  return kStyle;
}

void AppendPageStart(std::string& out, std::string_view title, std::string_view head_extra) {
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += head_extra;
  out += "<title>";
  out += MarkupEscape(title);
  out += "</title>\n<style>";
  out += PageStyle();
  out += "</style>\n</head>\n<body>\n";
}

void AppendPageEnd(std::string& out) {
  out += "<script>";
  out += SortScript();
  out += "</script>\n</body>\n</html>\n";
}

}  // namespace replay::internal
