// File: replay/report/html_page.h
//
// What every tally HTML page shares (report.html, `tally diff -o html`): the inline style sheet,
// the head and the end of the page.
// Pages stay self-contained: no URL, no external asset.
#pragma once

#include <string>
#include <string_view>

namespace replay::internal {

// The CSS of tally's pages: tables (html_table.h), charts (html_chart.h), headings and notes.
std::string_view PageStyle();

// The page up to and including <body>: doctype, charset, `head_extra` (already markup: e.g. a
// <meta> line), the title (escaped here) and the style sheet.
void AppendPageStart(std::string& out, std::string_view title, std::string_view head_extra = {});
// The table sort script (html_table.h) and the closing tags.
void AppendPageEnd(std::string& out);

}  // namespace replay::internal
