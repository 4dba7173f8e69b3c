// Tables of report.html and their cells (html_table.h).
#include "replay/report/html_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/report/report_writers.h"

namespace replay::internal {

namespace {

// Sorts the rows of each `table.sortable` body on a click on a header cell; a second click
// reverses. Cells with data-sort compare as numbers ("" is no value: below every number), the
// others by text. aria-sort marks the column for assistive technology and for the CSS arrow.
constexpr std::string_view kSortScript = R"(
(function(){
function key(row,col){var c=row.cells[col];if(!c)return '';var k=c.getAttribute('data-sort');
if(k===null)return c.textContent.trim().toLowerCase();return k===''?-Infinity:parseFloat(k);}
document.querySelectorAll('table.sortable').forEach(function(table){
if(!table.tHead||!table.tBodies.length)return;var heads=table.tHead.rows[0].cells;
Array.prototype.forEach.call(heads,function(th,col){
function sort(){var body=table.tBodies[0];var asc=th.getAttribute('aria-sort')!=='ascending';
Array.prototype.forEach.call(heads,function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',asc?'ascending':'descending');
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a,col),y=key(b,col),r;
if(typeof x==='number'&&typeof y==='number'){r=x<y?-1:(x>y?1:0);}
else{r=String(x).localeCompare(String(y));}return asc?r:-r;});
rows.forEach(function(row){body.appendChild(row);});}
th.tabIndex=0;th.addEventListener('click',sort);
th.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();sort();}});
});});})();
)";

bool IsBytes(std::string_view resource) {
  return resource == "memory" || resource == "ephemeral-storage" || resource.ends_with("/memory")
         || resource.ends_with("-memory");
}

bool IsGpu(std::string_view resource) {
  return resource == "gpu" || resource.ends_with("/gpu");  // nvidia.com/gpu, amd.com/gpu
}

}  // namespace

HtmlTable::HtmlTable(std::string& out, std::initializer_list<std::string_view> headers,
                     std::vector<bool> left)
    : out_(out), left_(std::move(left)) {
  left_.resize(headers.size(), false);
  const bool has_header =
      std::any_of(headers.begin(), headers.end(), [](std::string_view h) { return !h.empty(); });
  out_ += has_header ? "<table class=\"sortable\">" : "<table>";
  if (has_header) {
    out_ += "<thead><tr>";
    size_t c = 0;
    for (std::string_view h : headers) {
      out_ += fmt::format("<th{}>{}</th>", left_[c++] ? " class=\"l\"" : "", h);
    }
    out_ += "</tr></thead>";
  }
  out_ += "\n<tbody>\n";
}

HtmlTable::~HtmlTable() {
  out_ += "</tbody></table>\n";
}

void HtmlTable::Row(const std::vector<HtmlCell>& cells) {
  // Appended piece by piece: a format string per cell (and one more for its sort key) was half
  // of report.html's formatting for Kueue's large-scale scenario (1,000 ClusterQueues).
  out_ += "<tr>";
  for (size_t c = 0; c < cells.size(); ++c) {
    const HtmlCell& cell = cells[c];
    out_ += c < left_.size() && left_[c] ? "<td class=\"l name\"" : "<td";
    if (cell.numeric) {
      out_ += " data-sort=\"";
      AppendSortKey(out_, cell.sort_key);
      out_ += '"';
    }
    out_ += '>';
    out_ += cell.html;
    out_ += "</td>";
  }
  out_ += "</tr>\n";
}

void AppendSortKey(std::string& out, double v) {
  if (std::isnan(v)) {
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  fmt::format_to(std::back_inserter(out), "{}", v);
}

HtmlCell IntCell(int64_t v) {
  return {fmt::format("{}", v), static_cast<double>(v)};
}

std::string Percent(double ratio) {
  if (!std::isfinite(ratio)) {
    return "-";
  }
  return fmt::format("{:.1f}%", ratio * 100);
}

HtmlCell PercentCell(double ratio) {
  return {Percent(ratio), ratio};
}

std::string Amount(std::string_view resource, double canonical) {
  if (!std::isfinite(canonical)) {
    return "-";
  }
  const double value = KueueUnits(resource, canonical);
  if (IsBytes(resource)) {
    if (std::abs(value) < 1024) {
      return fmt::format("{:.6g} B", value);
    }
    static constexpr std::string_view kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double scaled = value / 1024;
    size_t unit = 0;
    while (std::abs(scaled) >= 1024 && unit + 1 < std::size(kUnits)) {
      scaled /= 1024;
      ++unit;
    }
    return fmt::format("{:.3g} {}", scaled, kUnits[unit]);
  }
  if (resource == "cpu") {
    return fmt::format("{:.6g} {}", value, value == 1 ? "core" : "cores");
  }
  if (IsGpu(resource)) {
    return fmt::format("{:.6g} {}", value, value == 1 ? "GPU" : "GPUs");
  }
  return fmt::format("{:.6g}", value);
}

HtmlCell AmountCell(std::string_view resource, double canonical) {
  return {Amount(resource, canonical), canonical};
}

AmountUnit AmountUnitFor(std::string_view resource, double max_canonical) {
  const double per_unit = 1 / KueueUnits(resource, 1);  // 1000 for millicores
  if (IsBytes(resource)) {
    static constexpr std::string_view kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const double max_bytes = std::isfinite(max_canonical) ? max_canonical / per_unit : 0;
    size_t unit = 0;
    double scale = 1;
    while (max_bytes / scale >= 1024 && unit + 1 < std::size(kUnits)) {
      scale *= 1024;
      ++unit;
    }
    return {kUnits[unit], per_unit * scale};
  }
  if (resource == "cpu") {
    return {"cores", per_unit};
  }
  if (IsGpu(resource)) {
    return {"GPUs", per_unit};
  }
  return {"", per_unit};
}

std::string_view SortScript() {
  return kSortScript;
}

}  // namespace replay::internal
