// `tally diff -o json` (and -o yaml, converted from it): docs/diff-and-gate.md, "-o json".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"
#include "replay/sweep/diff.h"

namespace replay {

namespace {

void DeltaJson(JsonWriter& w, const Delta& d, bool integer) {
  w.BeginObject();
  w.Key("a");
  integer ? w.Int(static_cast<int64_t>(d.a)) : w.RoundedNumber(d.a);
  w.Key("b");
  integer ? w.Int(static_cast<int64_t>(d.b)) : w.RoundedNumber(d.b);
  w.Key("change");
  integer ? w.Int(static_cast<int64_t>(d.change())) : w.RoundedNumber(d.change());
  w.Key("relative");
  w.RoundedNumber(d.relative());
  w.EndObject();
}

void WaitJson(JsonWriter& w, const WaitDelta& d, bool named) {
  w.BeginObject();
  w.Key("count");
  DeltaJson(w, d.count, true);
  w.Key("inA");
  w.Bool(d.in_a);
  w.Key("inB");
  w.Bool(d.in_b);
  w.Key("max");
  DeltaJson(w, d.max, false);
  w.Key("mean");
  DeltaJson(w, d.mean, false);
  if (named) {
    w.Key("name");
    w.String(d.name);
  }
  w.Key("p50");
  DeltaJson(w, d.p50, false);
  w.Key("p90");
  DeltaJson(w, d.p90, false);
  w.Key("p99");
  DeltaJson(w, d.p99, false);
  w.EndObject();
}

void SideJson(JsonWriter& w, int64_t admitted, const std::string& fate,
              const std::string& flavors) {
  w.BeginObject();
  w.Key("admitted");
  if (admitted == kNeverAdmitted) {
    w.Null();
  } else {
    w.String(FormatRfc3339(admitted));
  }
  w.Key("fate");
  w.String(fate);
  w.Key("flavors");
  w.String(flavors);
  w.EndObject();
}

void ChangesJson(JsonWriter& w, const std::vector<WorkloadChange>& list) {
  w.BeginArray();
  for (const WorkloadChange& c : list) {
    w.BeginObject();
    w.Key("a");
    SideJson(w, c.admitted_a, c.fate_a, c.flavors_a);
    w.Key("b");
    SideJson(w, c.admitted_b, c.fate_b, c.flavors_b);
    w.Key("clusterQueue");
    w.String(c.cluster_queue);
    w.Key("waitChangeSeconds");
    if (c.admitted_a != kNeverAdmitted && c.admitted_b != kNeverAdmitted) {
      w.RoundedNumber(c.wait_change_seconds());
    } else {
      w.Null();
    }
    w.Key("workload");
    w.String(c.workload);
    w.EndObject();
  }
  w.EndArray();
}

void RunJson(JsonWriter& w, const std::string& dir, const std::string& mode,
             const std::string& start, const std::string& trace) {
  w.BeginObject();
  w.Key("dir");
  w.String(dir);
  w.Key("mode");
  w.String(mode);
  w.Key("start");
  w.String(start);
  w.Key("trace");
  w.String(trace);
  w.EndObject();
}

}  // namespace

std::string FormatDiffJson(const ReplayDiff& d) {
  JsonWriter w;
  w.BeginObject();
  w.Key("a");
  RunJson(w, d.dir_a, d.mode_a, d.start_a, d.trace_a);
  w.Key("b");
  RunJson(w, d.dir_b, d.mode_b, d.start_b, d.trace_b);
  w.Key("outcomes");
  {
    std::vector<std::pair<std::string, Delta>> sorted = d.outcomes;
    std::sort(sorted.begin(), sorted.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    w.BeginObject();
    for (const auto& [name, delta] : sorted) {
      w.Key(name);
      DeltaJson(w, delta, true);
    }
    w.EndObject();
  }
  w.Key("timeToAdmission");
  w.BeginObject();
  w.Key("byClass");
  w.BeginArray();
  for (const WaitDelta& g : d.by_class) {
    WaitJson(w, g, true);
  }
  w.EndArray();
  w.Key("byClusterQueue");
  w.BeginArray();
  for (const WaitDelta& g : d.by_cluster_queue) {
    WaitJson(w, g, true);
  }
  w.EndArray();
  w.Key("overall");
  WaitJson(w, d.overall, false);
  w.EndObject();
  if (d.time_to_start.has_value()) {
    w.Key("timeToStart");
    WaitJson(w, *d.time_to_start, false);
  }
  w.Key("usage");
  w.BeginArray();
  for (const UsageDelta& u : d.usage) {
    w.BeginObject();
    w.Key("clusterQueue");
    w.String(u.cluster_queue);
    w.Key("flavor");
    w.String(u.flavor);
    w.Key("nominal");
    DeltaJson(w, u.nominal, true);
    w.Key("resource");
    w.String(u.resource);
    w.Key("utilisation");
    DeltaJson(w, u.utilisation, false);
    w.EndObject();
  }
  w.EndArray();
  w.Key("warnings");
  w.BeginArray();
  for (const std::string& s : d.warnings) {
    w.String(s);
  }
  w.EndArray();
  w.Key("workloads");
  w.BeginObject();
  w.Key("admissionTimeChanged");
  w.Int(d.admission_time_changed);
  w.Key("admittedBoth");
  w.Int(d.admitted_both);
  w.Key("admittedOnlyA");
  w.Int(d.admitted_only_a);
  w.Key("admittedOnlyB");
  w.Int(d.admitted_only_b);
  w.Key("compared");
  w.Int(d.workloads_compared);
  w.Key("fateChanged");
  w.Int(d.fate_changed);
  w.Key("flavorChanged");
  w.Int(d.flavor_changed);
  w.Key("onlyA");
  ChangesJson(w, d.only_a);
  w.Key("onlyB");
  ChangesJson(w, d.only_b);
  w.Key("otherChanged");
  ChangesJson(w, d.other_changed);
  w.Key("topChanged");
  ChangesJson(w, d.top_changed);
  w.EndObject();
  w.EndObject();
  std::string out = w.Take();
  out += '\n';
  return out;
}

}  // namespace replay
