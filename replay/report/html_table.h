// File: replay/report/html_table.h
//
// Tables of report.html (docs/report.md) and the display of their figures. A table with a header
// row sorts on a click on (or Enter in) a header cell: numerically when the cells carry a
// `data-sort` key (the raw number, so that "16 GiB" sorts by bytes), by text otherwise. The sort
// is done by SortScript(), which the page includes once, inline.
//
//   {
//     HtmlTable t(out, {"ClusterQueue", "admitted"}, {true});
//     t.Row({MarkupEscape(name), IntCell(admitted)});
//   }  // closes the table
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replay::internal {

// One cell, already escaped. A cell built from a string alone sorts by its text.
struct HtmlCell {
  HtmlCell(std::string text) : html(std::move(text)) {}  // NOLINT: text cells read best bare
  HtmlCell(const char* text) : html(text) {}             // NOLINT
  HtmlCell(std::string text, double key) : html(std::move(text)), numeric(true), sort_key(key) {}

  std::string html;
  bool numeric = false;
  double sort_key = 0;  // NaN: no value ("-"), sorts before every number
};

// A table written into `out` from construction to destruction; `left` marks left-aligned
// (name) columns. Headers are already escaped; with every header empty there is no header row
// and nothing to sort (the key/value tables).
class HtmlTable {
 public:
  HtmlTable(std::string& out, std::initializer_list<std::string_view> headers,
            std::vector<bool> left);
  ~HtmlTable();
  HtmlTable(const HtmlTable&) = delete;
  HtmlTable& operator=(const HtmlTable&) = delete;
  HtmlTable(HtmlTable&&) = delete;
  HtmlTable& operator=(HtmlTable&&) = delete;

  void Row(const std::vector<HtmlCell>& cells);

 private:
  std::string& out_;
  std::vector<bool> left_;
};

// Appends the data-sort value of a number to `out`: shortest round-trip decimal, nothing for NaN,
// "Infinity" and "-Infinity" (what JavaScript's parseFloat reads).
void AppendSortKey(std::string& out, double v);

HtmlCell IntCell(int64_t v);
// "12.5%", "-" for a non-finite ratio.
std::string Percent(double ratio);
HtmlCell PercentCell(double ratio);
// An amount for people (issue 24): cpu in cores ("2.5 cores"), memory and storage in binary units
// (KiB ... EiB, three significant digits), GPUs as "GPUs", other resources in their units.
// `canonical` is in the report's units (cpu millicores, memory bytes).
std::string Amount(std::string_view resource, double canonical);
HtmlCell AmountCell(std::string_view resource, double canonical);  // sorts by `canonical`

// The unit a chart's axis shows amounts of `resource` in, up to `max_canonical` (canonical
// units), as Amount() does: "cores" for cpu, for memory and storage the binary unit (B ... EiB)
// that keeps the largest value under 1024, "GPUs" for GPUs, "" (plain units) for others.
struct AmountUnit {
  std::string_view name;
  double canonical_per_unit = 1;  // 1000 for cores (millicores), 2^30 for GiB
};
AmountUnit AmountUnitFor(std::string_view resource, double max_canonical);

// The inline script that sorts every table with a header row (no external resource).
std::string_view SortScript();

}  // namespace replay::internal
