// File: replay/report/html_plots.h
//
// The chart sections of report.html (docs/report.md), drawn with html_chart.h: the distribution
// of time to admission, utilisation over time, quota utilisation by flavor, and the small charts
// per ClusterQueue. Each
// appends an <h2> section, or nothing when the report has no data for it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "replay/sim/replay_report.h"

namespace replay::internal {

// At most this many ClusterQueues get their own line or charts: the longest waits.
inline constexpr size_t kMaxPlottedClusterQueues = 12;
// At most this many (flavor, resource) pairs get their own chart: the largest shares of quota.
inline constexpr size_t kMaxPlottedFlavors = 12;

// `names` (ClusterQueues of `report`) in the order people look for them (issue 24): a queue that
// admitted nothing while workloads were pending at the end first (it waits without end), then
// worst p90 time to admission, then most pending at the end, then most admissions; ties keep the
// order of `names`.
std::vector<std::string_view> ByLongestWait(const ReplayReport& report,
                                            std::vector<std::string_view> names);

// Time-to-admission CDF, overall and per ClusterQueue, on a log time axis.
void AppendWaitCdf(std::string& out, const ReplayReport& report);

// Nominal-quota utilisation over time per ClusterQueue and their mean, then mean utilisation by
// flavor and resource over all ClusterQueues.
void AppendUtilisation(std::string& out, const ReplayReport& report);

// Nominal quota over time stacked as own, lent and idle (plus borrowed from Cohorts' quota):
// cluster-wide per resource, then per (flavor, resource) (html_flavor_plots.cc).
void AppendFlavorUtilisation(std::string& out, const ReplayReport& report);

// Per ClusterQueue: pending workloads, utilisation and mean time to admission over time.
void AppendClusterQueuePlots(std::string& out, const ReplayReport& report);

}  // namespace replay::internal
