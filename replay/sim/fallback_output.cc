#include "replay/sim/fallback_output.h"

#include <fmt/format.h>

#include <map>

#include "replay/io/time_parse.h"

namespace replay {

void WriteFlavorHistoryJson(const engine::Cluster& cluster, const engine::FlavorHistory& history,
                            JsonWriter& out) {
  std::map<std::string, const engine::FlavorHistoryEntry*> sorted;
  for (const engine::FlavorHistoryEntry& e : history.entries) {
    sorted.emplace(cluster.Name(e.flavor), &e);
  }
  out.BeginObject();
  for (const auto& [name, e] : sorted) {
    out.Key(name);
    out.BeginObject();
    if (e->assignment_time.has_value()) {
      out.Key("assignmentTime");
      out.String(FormatRfc3339(*e->assignment_time));
    }
    out.Key("failed");
    out.Bool(e->failed);
    if (e->failed) {
      out.Key("failedBy");
      out.String(engine::ToString(e->failed_by));
    }
    out.Key("used");
    out.String(FormatDuration(e->used));
    out.EndObject();
  }
  out.EndObject();
}

void AddWastedQuota(const engine::Cluster& cluster, const engine::Workload& w,
                    engine::TimeMicros held, ReplayReport::Fallbacks& fallbacks) {
  const double seconds = static_cast<double>(held) / 1e6;
  for (const engine::SlotAmount& u : w.usage) {
    engine::FlavorResource key = cluster.SlotKey(u.slot);
    double amount = static_cast<double>(u.amount.value());
    if (cluster.IsMilli(u.slot)) {
      amount /= 1000.0;
    }
    fallbacks.wasted_quota_seconds[fmt::format("{}/{}", cluster.Name(key.flavor),
                                               cluster.Name(key.resource))] += amount * seconds;
  }
}

std::string JoinFlavorNames(const engine::Cluster& cluster,
                            const std::vector<engine::FlavorId>& flavors) {
  std::string out;
  for (engine::FlavorId f : flavors) {
    out += out.empty() ? "" : ", ";
    out += cluster.Name(f);
  }
  return out;
}

}  // namespace replay
