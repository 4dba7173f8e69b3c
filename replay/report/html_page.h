// File: replay/report/html_page.h
//
// What every tally HTML page shares (report.html, `tally diff -o html`): the inline style sheet.
// Pages stay self-contained: no URL, no external asset.
#pragma once

#include <string_view>

namespace replay::internal {

// The CSS of tally's pages: tables (html_table.h), charts (html_chart.h), headings and notes.
std::string_view PageStyle();

}  // namespace replay::internal
