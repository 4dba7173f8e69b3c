#include "replay/sim/decision_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>

#include "engine/base/small_sort.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

using engine::CycleEntry;
using engine::CycleResult;
using engine::EntryOutcome;

std::string Amount(const engine::Cluster& cluster, engine::ResourceId r, engine::Quantity q) {
  return engine::FormatQuantity(q, cluster.Name(r));
}

const std::string& Key(const ClusterState& s, engine::WorkloadId id) {
  return s.store->Get(id).key;
}

std::vector<engine::CqId> ClusterQueuesByName(const engine::Cluster& cluster) {
  std::vector<engine::CqId> out;
  for (uint32_t i = 0; i < cluster.num_cluster_queues(); ++i) {
    auto id = engine::MakeId<engine::CqId>(i);
    if (cluster.Exists(id)) {
      out.push_back(id);
    }
  }
  std::sort(out.begin(), out.end(),
            [&](engine::CqId a, engine::CqId b) { return cluster.Name(a) < cluster.Name(b); });
  return out;
}

std::vector<std::string> Keys(const ClusterState& s, const std::vector<engine::WorkloadId>& ids) {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (engine::WorkloadId id : ids) {
    out.push_back(Key(s, id));
  }
  return out;
}

void WriteStrings(const std::vector<std::string>& values, JsonWriter& out) {
  out.BeginArray();
  for (const std::string& v : values) {
    out.String(v);
  }
  out.EndArray();
}

void WriteEntryHead(const ClusterState& s, const CycleEntry& e, JsonWriter& out) {
  out.Key("clusterQueue");
  out.String(s.cluster->Name(e.cq));
}

void WriteCycleJson(const ClusterState& s, const CycleResult& c, JsonWriter& out) {
  out.BeginObject();
  out.Key("admitted");
  out.BeginArray();
  for (const CycleEntry& e : c.entries) {
    if (e.outcome != EntryOutcome::kAdmitted) {
      continue;
    }
    out.BeginObject();
    out.Key("borrowing");
    out.Int(e.assignment.borrowing);
    out.Key("checksPending");
    out.Bool(e.checks_pending);
    WriteEntryHead(s, e, out);
    out.Key("partial");
    out.Bool(e.partial);
    out.Key("podSets");
    out.BeginArray();
    for (const engine::PodSetAssignment& ps : e.assignment.pod_sets) {
      WritePodSetAssignmentJson(*s.cluster, ps, out);
    }
    out.EndArray();
    out.Key("workload");
    out.String(Key(s, e.workload));
    out.EndObject();
  }
  out.EndArray();
  out.Key("cycle");
  out.Int(c.cycle);
  out.Key("inadmissible");
  out.BeginArray();
  for (const CycleEntry& e : c.entries) {
    if (e.outcome != EntryOutcome::kInadmissible && e.outcome != EntryOutcome::kNotNominated) {
      continue;
    }
    out.BeginObject();
    WriteEntryHead(s, e, out);
    out.Key("message");
    out.String(e.message);
    if (e.misconfigured) {
      // Only told apart when it is Misconfigured: every other entry keeps its old shape.
      out.Key("quotaReservedReason");
      out.String("Misconfigured");
    }
    out.Key("reason");
    out.String(engine::ToString(e.reason));
    out.Key("workload");
    out.String(Key(s, e.workload));
    out.EndObject();
  }
  out.EndArray();
  out.Key("preempted");
  out.BeginArray();
  for (const engine::Eviction& ev : c.evictions) {
    out.BeginObject();
    out.Key("clusterQueue");
    out.String(s.cluster->Name(s.store->Get(ev.victim).cluster_queue));
    out.Key("preemptor");
    out.String(Key(s, ev.preemptor));
    out.Key("reason");
    out.String(engine::ToString(ev.reason));
    out.Key("workload");
    out.String(Key(s, ev.victim));
    out.EndObject();
  }
  out.EndArray();
  out.Key("preempting");
  out.BeginArray();
  for (const CycleEntry& e : c.entries) {
    if (e.outcome != EntryOutcome::kPreempting) {
      continue;
    }
    out.BeginObject();
    WriteEntryHead(s, e, out);
    out.Key("targets");
    std::vector<std::string> targets;
    for (const engine::PreemptionTarget& t : e.targets) {
      targets.push_back(Key(s, t.workload));
    }
    WriteStrings(targets, out);
    out.Key("workload");
    out.String(Key(s, e.workload));
    out.EndObject();
  }
  out.EndArray();
  out.Key("skipped");
  out.BeginArray();
  for (const CycleEntry& e : c.entries) {
    if (e.outcome != EntryOutcome::kSkipped) {
      continue;
    }
    out.BeginObject();
    WriteEntryHead(s, e, out);
    out.Key("message");
    out.String(e.message);
    out.Key("workload");
    out.String(Key(s, e.workload));
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
}

}  // namespace

void PrintLoadErrors(const ClusterState& state) {
  for (const LoadError& e : state.load.errors) {
    std::fprintf(stderr, "error: %s\n", e.ToString().c_str());
  }
  for (const std::string& e : state.workload_errors) {
    std::fprintf(stderr, "error: %s\n", e.c_str());
  }
  std::fprintf(stderr, "%zu error(s): nothing scheduled\n",
               state.load.errors.size() + state.workload_errors.size());
}

bool CycleHasPendingScans(const ClusterState& state, const CycleResult& cycle) {
  for (const CycleEntry& e : cycle.entries) {
    if (e.outcome != EntryOutcome::kAdmitted
        && state.store->Get(e.workload).scan->HasPendingFlavors()) {
      return true;
    }
  }
  return false;
}

void WritePodSetAssignmentJson(const engine::Cluster& cluster, const engine::PodSetAssignment& ps,
                               JsonWriter& out) {
  thread_local std::string text;
  text.clear();
  AppendPodSetAssignmentJson(cluster, ps, text);
  out.Raw(text);
}

void AppendPodSetAssignmentJson(const engine::Cluster& cluster, const engine::PodSetAssignment& ps,
                                std::string& out) {
  out += "{\"count\":";
  char count[24];
  out.append(count, std::to_chars(count, count + sizeof count, ps.count).ptr);
  // By resource name; a resource given twice keeps its last choice. A handful per pod set:
  // sorted in a small vector (one line per decision, no map nodes).
  struct Row {
    std::string_view resource;
    std::string_view flavor;
    int64_t amount;
  };
  thread_local std::vector<Row> rows;
  rows.clear();
  for (const engine::FlavorChoice& c : ps.flavors) {
    rows.push_back({cluster.Name(c.resource), cluster.Name(c.flavor), c.amount.value()});
  }
  engine::SmallStableSort(rows.begin(), rows.end(),
                          [](const Row& a, const Row& b) { return a.resource < b.resource; });
  auto last_of_name = [](size_t i) {
    return i + 1 == rows.size() || rows[i + 1].resource != rows[i].resource;
  };
  out += ",\"flavors\":{";
  const char* separator = "";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (last_of_name(i)) {
      out += separator;
      separator = ",";
      AppendJsonString(rows[i].resource, out);
      out += ':';
      AppendJsonString(rows[i].flavor, out);
    }
  }
  out += "},\"name\":";
  AppendJsonString(ps.name, out);
  out += ",\"resourceUsage\":{";
  separator = "";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (last_of_name(i)) {
      out += separator;
      separator = ",";
      AppendJsonString(rows[i].resource, out);
      out += ':';
      char amount[24];
      out.append(amount, std::to_chars(amount, amount + sizeof amount, rows[i].amount).ptr);
    }
  }
  out += "}}";
}

bool PodSetJsonCache::Matches(const Entry& e, const engine::PodSetAssignment& ps) const {
  if (e.count != ps.count || e.choices.size() != ps.flavors.size() || e.name != ps.name) {
    return false;
  }
  for (size_t i = 0; i < ps.flavors.size(); ++i) {
    const engine::FlavorChoice& c = ps.flavors[i];
    if (e.choices[i] != Choice{c.resource, c.flavor, c.amount.value()}) {
      return false;
    }
  }
  return true;
}

void PodSetJsonCache::Append(const engine::Cluster& cluster, const engine::PodSetAssignment& ps,
                             LineBuilder& out) {
  for (const Entry& e : entries_) {
    if (Matches(e, ps)) {
      out.Append(e.text);
      return;
    }
  }
  if (entries_.size() < kEntries) {
    entries_.emplace_back();
    next_ = entries_.size() - 1;
  }
  Entry& e = entries_[next_];
  next_ = (next_ + 1) % kEntries;
  e.name = ps.name;
  e.count = ps.count;
  e.choices.clear();
  for (const engine::FlavorChoice& c : ps.flavors) {
    e.choices.push_back(Choice{c.resource, c.flavor, c.amount.value()});
  }
  e.text.clear();
  AppendPodSetAssignmentJson(cluster, ps, e.text);
  out.Append(e.text);
}

void BorrowedJsonCache::Append(const engine::Cluster& cluster, engine::FrSlot slot,
                               engine::Quantity amount, LineBuilder& out) {
  const size_t index = engine::Index(slot);
  if (index >= by_slot_.size()) {
    by_slot_.resize(index + 1);
  }
  Entry& e = by_slot_[index];
  const engine::FlavorResource key = cluster.SlotKey(slot);
  // The slot's first use. A slot names one (flavor, resource) for the cluster's life, so the key
  // is built once; comparing it also keeps the text right if that ever changed.
  if (e.flavor != key.flavor || e.resource != key.resource) {
    e.flavor = key.flavor;
    e.resource = key.resource;
    e.key_text.clear();
    AppendJsonString(fmt::format("{}/{}", cluster.Name(key.flavor), cluster.Name(key.resource)),
                     e.key_text);
    e.key_text += ':';
    e.has_amount = false;
  }
  if (!e.has_amount || e.amount != amount) {
    e.has_amount = true;
    e.amount = amount;
    e.amount_text.clear();
    AppendJsonString(engine::FormatQuantity(amount, cluster.Name(key.resource)), e.amount_text);
  }
  out.Append(e.key_text);
  out.Append(e.amount_text);
}

std::string FormatPodSetAssignment(const engine::Cluster& cluster,
                                   const engine::PodSetAssignment& ps) {
  std::string out = fmt::format("{} x{}:", ps.name, ps.count);
  for (const engine::FlavorChoice& c : ps.flavors) {
    out += fmt::format(" {}={}@{}", cluster.Name(c.resource), Amount(cluster, c.resource, c.amount),
                       cluster.Name(c.flavor));
  }
  return out;
}

std::string FormatScheduleText(const ClusterState& s, const std::vector<CycleResult>& cycles) {
  std::string out = fmt::format(
      "At {}: {} workload(s) holding quota, {} pending, {} finished or inactive\n",
      FormatRfc3339(s.now), s.workloads_reserved, s.workloads_queued, s.workloads_ignored);
  if (!s.admitted_to_undefined.empty()) {
    out += fmt::format(
        "{} workload(s) admitted to a ClusterQueue that is not defined (no quota "
        "charged, never queued): {}\n",
        s.admitted_to_undefined.size(), fmt::join(s.admitted_to_undefined, ", "));
  }
  for (const CycleResult& c : cycles) {
    out += fmt::format("\nCycle {}\n", c.cycle);
    for (const CycleEntry& e : c.entries) {
      const std::string& key = Key(s, e.workload);
      const std::string& cq = s.cluster->Name(e.cq);
      switch (e.outcome) {
        case EntryOutcome::kAdmitted: {
          out += fmt::format("  admitted      {} in {}{}{}", key, cq,
                             e.assignment.borrowing > 0
                                 ? fmt::format(" (borrowing level {})", e.assignment.borrowing)
                                 : "",
                             e.partial ? " (partial)" : "");
          if (e.checks_pending) {
            out += " (quota reserved, admission checks pending)";
          }
          out += "\n";
          for (const engine::PodSetAssignment& ps : e.assignment.pod_sets) {
            out += "                  " + FormatPodSetAssignment(*s.cluster, ps) + "\n";
          }
          break;
        }
        case EntryOutcome::kPreempting: {
          std::vector<std::string> targets;
          for (const engine::PreemptionTarget& t : e.targets) {
            targets.push_back(Key(s, t.workload));
          }
          out += fmt::format("  preempting    {} in {}: evicts {}\n", key, cq,
                             fmt::join(targets, ", "));
          break;
        }
        case EntryOutcome::kSkipped:
          out += fmt::format("  skipped       {} in {}: {}\n", key, cq, e.message);
          break;
        case EntryOutcome::kInadmissible:
        case EntryOutcome::kNotNominated:
          out += fmt::format("  {:<13} {} in {} ({}{}): {}\n", "inadmissible", key, cq,
                             engine::ToString(e.reason), e.misconfigured ? ", Misconfigured" : "",
                             e.message);
          break;
      }
    }
    for (const engine::Eviction& ev : c.evictions) {
      out += fmt::format("  preempted     {} in {} by {} ({})\n", Key(s, ev.victim),
                         s.cluster->Name(s.store->Get(ev.victim).cluster_queue),
                         Key(s, ev.preemptor), engine::ToString(ev.reason));
    }
  }
  out += "\nPending after the last cycle:\n";
  bool any = false;
  for (engine::CqId cq : ClusterQueuesByName(*s.cluster)) {
    std::vector<std::string> active = Keys(s, s.queues->PendingActive(cq));
    std::vector<std::string> inadmissible = Keys(s, s.queues->PendingInadmissible(cq));
    if (active.empty() && inadmissible.empty()) {
      continue;
    }
    any = true;
    out += fmt::format("  {}: {} active [{}], {} inadmissible [{}]\n", s.cluster->Name(cq),
                       active.size(), fmt::join(active, ", "), inadmissible.size(),
                       fmt::join(inadmissible, ", "));
  }
  if (!s.unroutable.empty()) {
    any = true;
    out += fmt::format("  no ClusterQueue (LocalQueue missing or pointing nowhere): {}\n",
                       fmt::join(s.unroutable, ", "));
  }
  if (!any) {
    out += "  nothing\n";
  }
  return out;
}

void WriteScheduleJson(const ClusterState& s, const std::vector<CycleResult>& cycles,
                       JsonWriter& out) {
  out.BeginObject();
  out.Key("cycles");
  out.BeginArray();
  for (const CycleResult& c : cycles) {
    WriteCycleJson(s, c, out);
  }
  out.EndArray();
  out.Key("ingest");
  out.BeginObject();
  if (!s.admitted_to_undefined.empty()) {  // only then: older outputs keep their shape
    out.Key("admittedToUndefinedClusterQueue");
    WriteStrings(s.admitted_to_undefined, out);
  }
  out.Key("errors");
  WriteStrings(s.workload_errors, out);
  out.Key("ignored");
  out.Int(s.workloads_ignored);
  out.Key("queued");
  out.Int(s.workloads_queued);
  out.Key("reserved");
  out.Int(s.workloads_reserved);
  out.Key("unroutable");
  WriteStrings(s.unroutable, out);
  out.EndObject();
  out.Key("now");
  out.String(FormatRfc3339(s.now));
  out.Key("pending");
  out.BeginArray();
  for (engine::CqId cq : ClusterQueuesByName(*s.cluster)) {
    std::vector<std::string> active = Keys(s, s.queues->PendingActive(cq));
    std::vector<std::string> inadmissible = Keys(s, s.queues->PendingInadmissible(cq));
    if (active.empty() && inadmissible.empty()) {
      continue;
    }
    out.BeginObject();
    out.Key("active");
    WriteStrings(active, out);
    out.Key("clusterQueue");
    out.String(s.cluster->Name(cq));
    out.Key("inadmissible");
    WriteStrings(inadmissible, out);
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
}

}  // namespace replay
