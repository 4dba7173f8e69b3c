#include "replay/report/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "engine/quota_advisor.h"
#include "replay/io/closest_match.h"
#include "replay/io/json_to_yaml.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"
#include "replay/report/explain_context.h"
#include "replay/report/explain_eta.h"
#include "replay/report/explain_reason.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/decision_output.h"
#include "replay/sim/fallback_output.h"

namespace replay {
namespace {

using engine::Cluster;

std::string Amount(const Cluster& c, engine::ResourceId r, engine::Quantity q) {
  return engine::FormatQuantity(q, c.Name(r));
}

std::string Status(const engine::Workload& w) {
  if (w.quota_reserved) {
    return "QuotaReserved";
  }
  if (!w.spec->active) {
    return "Inactive";
  }
  return "Pending";
}

// The requests to show: a pending workload's effective requests (from its spec), or what a
// reserved one is charged, as Kueue's Info of an admitted Workload holds them (Kueue
// pkg/workload/workload.go, totalRequestsFromAdmission): per pod set of status.admission, the
// resourceUsage at the admission count, scaled down to ChargedCount when reclaimable pods bring the
// spec count below it.
std::vector<engine::PodSetRequest> ShownRequests(const ClusterState& s, const engine::Workload& w) {
  if (!w.quota_reserved) {
    return w.pod_sets;
  }
  const Cluster& c = *s.cluster;
  std::vector<engine::PodSetRequest> out;
  for (const engine::AdmittedPodSet& ps : w.admitted) {
    engine::PodSetRequest& r = out.emplace_back();
    r.name = ps.name;
    r.count = s.store->ChargedCount(w, ps);
    std::vector<engine::AdmittedPodSet> one = {ps};
    for (const engine::SlotAmount& u : s.store->ChargedUsage(w, one)) {
      engine::ResourceId resource = c.SlotKey(u.slot).resource;
      r.total.push_back({resource, u.amount});
      r.per_pod.push_back(
          {resource, r.count > 0 ? engine::Quantity(u.amount.value() / r.count) : u.amount});
    }
  }
  return out;
}

void WriteAmounts(const Cluster& c, const std::vector<engine::ResourceAmount>& list,
                  JsonWriter& out) {
  std::map<std::string, int64_t> sorted;
  for (const engine::ResourceAmount& a : list) {
    sorted[c.Name(a.resource)] = a.amount.value();
  }
  out.BeginObject();
  for (const auto& [name, v] : sorted) {
    out.Key(name);
    out.Int(v);
  }
  out.EndObject();
}

void WriteReason(const ExplainVerdict& v, JsonWriter& out) {
  out.BeginObject();
  out.Key("code");
  out.String(v.code);
  out.Key("message");
  out.String(v.sentence);
  out.Key("quotaIsTheCause");
  out.Bool(v.quota_is_the_cause);
  out.Key("remedy");
  out.String(v.remedy);
  out.EndObject();
}

void WriteQueueJson(const QueuePosition& q, JsonWriter& out) {
  out.BeginObject();
  out.Key("active");
  out.Int(static_cast<int64_t>(q.active));
  out.Key("ahead");
  out.BeginArray();
  for (const QueueAhead& a : q.ahead) {
    out.BeginObject();
    out.Key("priority");
    out.Int(a.priority);
    out.Key("rule");
    out.String(a.rule);
    out.Key("workload");
    out.String(a.workload);
    out.EndObject();
  }
  out.EndArray();
  out.Key("aheadTotal");
  out.Int(static_cast<int64_t>(q.ahead_total));
  out.Key("inadmissible");
  out.Int(static_cast<int64_t>(q.inadmissible));
  out.Key("location");
  out.String(q.location);
  out.Key("position");
  out.Int(static_cast<int64_t>(q.position));
  out.EndObject();
}

void WriteHoldersJson(const QuotaHolders& h, JsonWriter& out) {
  out.BeginObject();
  out.Key("largest");
  out.BeginArray();
  for (const QuotaHolder& q : h.largest) {
    out.BeginObject();
    out.Key("clusterQueue");
    out.String(q.cluster_queue);
    out.Key("clusterQueueBorrows");
    out.Bool(q.cluster_queue_borrows);
    out.Key("priority");
    out.Int(q.priority);
    out.Key("usage");
    out.BeginObject();
    for (const auto& [slot, amount] : q.usage) {
      out.Key(slot);
      out.Int(amount);
    }
    out.EndObject();
    out.Key("workload");
    out.String(q.workload);
    out.EndObject();
  }
  out.EndArray();
  out.Key("total");
  out.Int(static_cast<int64_t>(h.total));
  out.EndObject();
}

// "flavor/resource" -> the amount in the resource's units ("4", "16Gi").
std::string SlotAmountText(const Cluster& c, const std::string& slot, int64_t amount) {
  const std::string resource = slot.substr(slot.find('/') + 1);  // a flavor name has no '/'
  const std::optional<engine::ResourceId> id = c.FindResource(resource);
  return id ? Amount(c, *id, engine::Quantity(amount)) : std::to_string(amount);
}

// A workload that is not evaluated (no ClusterQueue to evaluate it against): who it is and why.
void WriteUnevaluatedJson(std::string_view key, const engine::Workload* w, const ExplainVerdict& v,
                          JsonWriter& out) {
  out.BeginObject();
  if (w != nullptr) {
    out.Key("localQueue");
    out.String(w->local_queue());
  }
  out.Key("reason");
  WriteReason(v, out);
  out.Key("workload");
  out.String(key);
  out.EndObject();
}

void WriteJson(const ClusterState& s, const engine::Workload& w, const engine::CycleEntry& e,
               const ExplainVerdict& verdict, const std::optional<QueuePosition>& queue,
               const std::optional<QuotaHolders>& holders,
               const std::optional<engine::QuotaSuggestion>& suggestion, const EtaAnswer* eta,
               JsonWriter& out) {
  const Cluster& c = *s.cluster;
  const engine::Assignment& a = e.assignment;
  out.BeginObject();
  out.Key("assignment");
  out.BeginObject();
  out.Key("borrowing");
  out.Int(a.borrowing);
  out.Key("message");
  out.String(e.message);
  out.Key("mode");
  out.String(engine::ToString(a.Mode()));
  if (e.misconfigured) {
    out.Key("quotaReservedReason");  // only when Misconfigured, as in `schedule -o json`
    out.String("Misconfigured");
  }
  out.Key("podSets");
  out.BeginArray();
  for (const engine::PodSetAssignment& ps : a.pod_sets) {
    out.BeginObject();
    out.Key("attempts");
    out.BeginArray();
    for (const engine::FlavorAttempt& at : ps.attempts) {
      out.BeginObject();
      out.Key("borrowingLevel");
      out.Int(at.borrow);
      out.Key("flavor");
      out.String(c.Name(at.flavor));
      out.Key("index");
      out.Int(at.index);
      out.Key("mode");
      out.String(engine::ToString(at.mode));
      out.Key("reasons");
      out.BeginArray();
      for (const std::string& r : at.reasons) {
        out.String(r);
      }
      out.EndArray();
      out.EndObject();
    }
    out.EndArray();
    out.Key("count");
    out.Int(ps.count);
    out.Key("flavors");
    out.BeginArray();
    for (const engine::FlavorChoice& f : ps.flavors) {
      out.BeginObject();
      out.Key("borrowingLevel");
      out.Int(f.borrow);
      out.Key("borrows");
      out.Bool(f.borrow > 0);
      out.Key("flavor");
      out.String(c.Name(f.flavor));
      out.Key("granularMode");
      out.String(engine::ToString(f.granular));
      out.Key("lastTriedFlavorIdx");
      out.Int(f.tried_index);
      out.Key("mode");
      out.String(engine::ToString(f.mode));
      out.Key("request");
      out.Int(f.amount.value());
      out.Key("resource");
      out.String(c.Name(f.resource));
      out.EndObject();
    }
    out.EndArray();
    out.Key("mode");
    out.String(engine::ToString(ps.Mode()));
    out.Key("name");
    out.String(ps.name);
    out.EndObject();
  }
  out.EndArray();
  out.Key("partial");
  out.Bool(e.partial);
  out.EndObject();
  out.Key("clusterQueue");
  out.String(engine::IsValid(w.cluster_queue) ? c.Name(w.cluster_queue) : "");
  if (eta != nullptr) {
    out.Key("eta");
    WriteEtaJson(*eta, out);
  }
  if (!w.fallback->empty()) {
    out.Key("flavorAssignmentHistory");
    WriteFlavorHistoryJson(c, w.fallback, out);
  }
  out.Key("localQueue");
  out.String(w.local_queue());
  out.Key("now");
  out.String(FormatRfc3339(s.now));
  out.Key("priority");
  out.Int(w.priority);
  if (queue) {
    out.Key("queue");
    WriteQueueJson(*queue, out);
  }
  if (holders) {
    out.Key("quotaHolders");
    WriteHoldersJson(*holders, out);
  }
  out.Key("reason");
  WriteReason(verdict, out);
  out.Key("requests");
  out.BeginArray();
  for (const engine::PodSetRequest& ps : ShownRequests(s, w)) {
    out.BeginObject();
    out.Key("count");
    out.Int(ps.count);
    out.Key("name");
    out.String(ps.name);
    out.Key("perPod");
    WriteAmounts(c, ps.per_pod, out);
    out.Key("total");
    WriteAmounts(c, ps.total, out);
    out.EndObject();
  }
  out.EndArray();
  out.Key("status");
  out.String(Status(w));
  out.Key("suggestion");
  if (suggestion) {
    engine::FlavorResource key = c.SlotKey(suggestion->slot);
    out.BeginObject();
    out.Key("flavor");
    out.String(c.Name(key.flavor));
    out.Key("from");
    out.Int(suggestion->current.value());
    out.Key("kind");
    out.String(c.IsClusterQueueNode(suggestion->node) ? "ClusterQueue" : "Cohort");
    out.Key("message");
    out.String(suggestion->message);
    out.Key("name");
    out.String(c.NodeName(suggestion->node));
    out.Key("resource");
    out.String(c.Name(key.resource));
    out.Key("to");
    out.Int(suggestion->proposed.value());
    out.EndObject();
  } else {
    out.Null();
  }
  out.Key("victims");
  out.BeginArray();
  for (const engine::PreemptionTarget& t : e.targets) {
    const engine::Workload& v = s.store->Get(t.workload);
    out.BeginObject();
    out.Key("clusterQueue");
    out.String(c.Name(v.cluster_queue));
    out.Key("priority");
    out.Int(v.priority);
    out.Key("reason");
    out.String(engine::ToString(t.reason));
    out.Key("workload");
    out.String(v.key);
    out.EndObject();
  }
  out.EndArray();
  out.Key("workload");
  out.String(w.key);
  out.EndObject();
}

std::string FormatText(const ClusterState& s, const engine::Workload& w,
                       const engine::CycleEntry& e, const ExplainVerdict& verdict,
                       const std::optional<QueuePosition>& queue,
                       const std::optional<QuotaHolders>& holders,
                       const std::optional<engine::QuotaSuggestion>& suggestion,
                       const EtaAnswer* eta) {
  const Cluster& c = *s.cluster;
  const engine::Assignment& a = e.assignment;
  std::string out = fmt::format(
      "Workload {} ({}), priority {}, LocalQueue {} -> ClusterQueue {}, at {}\n", w.key, Status(w),
      w.priority, w.local_queue(),
      engine::IsValid(w.cluster_queue) ? c.Name(w.cluster_queue) : "<none>", FormatRfc3339(s.now));
  out += fmt::format("Why: {}: {}\n", verdict.code, verdict.sentence);
  if (eta != nullptr) {
    out += FormatEtaText(*eta);
  }
  if (queue) {
    out += fmt::format("\nQueue: {} in ClusterQueue {}", queue->location, c.Name(w.cluster_queue));
    out += queue->position > 0
               ? fmt::format(", position {} of {} in its heap", queue->position, queue->active)
               : fmt::format(" ({} in its heap)", queue->active);
    out += fmt::format(", {} parked as inadmissible\n", queue->inadmissible);
    if (queue->ahead_total > queue->ahead.size()) {
      out += fmt::format("  ... {} more ahead\n", queue->ahead_total - queue->ahead.size());
    }
    for (const QueueAhead& ahead : queue->ahead) {
      out += fmt::format("  ahead: {} (priority {}): {}\n", ahead.workload, ahead.priority,
                         ahead.rule);
    }
  }
  if (holders && holders->total > 0) {
    out += fmt::format(
        "\nWho holds the quota it needs (admitted in its cohort tree, largest first, {} in "
        "all):\n",
        holders->total);
    for (const QuotaHolder& h : holders->largest) {
      std::string usage;
      for (const auto& [slot, amount] : h.usage) {
        usage +=
            fmt::format("{}{}={}", usage.empty() ? "" : " ", slot, SlotAmountText(c, slot, amount));
      }
      out +=
          fmt::format("  {} in {} (priority {}): {}{}\n", h.workload, h.cluster_queue, h.priority,
                      usage, h.cluster_queue_borrows ? ", its ClusterQueue borrows" : "");
    }
  }
  out += w.quota_reserved
             ? "\nCharged requests (status.admission, scaled down for reclaimable pods):\n"
             : "\nEffective requests (after exclusions and transformations):\n";
  for (const engine::PodSetRequest& ps : ShownRequests(s, w)) {
    out += fmt::format("  pod set {} x{}:", ps.name, ps.count);
    for (const engine::ResourceAmount& r : ps.per_pod) {
      out += fmt::format(" {}={} (total {})", c.Name(r.resource), Amount(c, r.resource, r.amount),
                         Amount(c, r.resource, engine::MultiplySaturating(r.amount, ps.count)));
    }
    out += "\n";
  }
  if (!w.fallback->empty()) {
    out += "\nFlavor assignment history (seed 002 fallbacks):\n";
    for (const engine::FlavorHistoryEntry& h : w.fallback->entries) {
      out += fmt::format(
          "  {}: last assigned {}, {} used{}\n", c.Name(h.flavor),
          h.assignment_time ? FormatRfc3339(*h.assignment_time) : std::string("never"),
          FormatDuration(h.used),
          h.failed ? fmt::format(", failed ({}): not assigned again", engine::ToString(h.failed_by))
                   : "");
    }
  }
  out += fmt::format("\nFlavor assignment now: {}, borrowing level {}{}\n",
                     engine::ToString(a.Mode()), a.borrowing, e.partial ? " (partial)" : "");
  for (const engine::PodSetAssignment& ps : a.pod_sets) {
    out += fmt::format("  pod set {} ({}):\n", ps.name, engine::ToString(ps.Mode()));
    for (const engine::FlavorChoice& f : ps.flavors) {
      out +=
          fmt::format("    {} -> {}: {} ({}), {}, last tried flavor index {}\n", c.Name(f.resource),
                      c.Name(f.flavor), engine::ToString(f.mode), engine::ToString(f.granular),
                      f.borrow > 0 ? fmt::format("borrows (level {})", f.borrow) : "no borrowing",
                      f.tried_index);
    }
    for (const engine::FlavorAttempt& at : ps.attempts) {
      out += fmt::format(
          "    considered flavor #{} {}: {}{}{}\n", at.index, c.Name(at.flavor),
          engine::ToString(at.mode),
          at.borrow > 0 ? fmt::format(", borrowing level {}", at.borrow) : "",
          at.reasons.empty() ? "" : " — " + fmt::format("{}", fmt::join(at.reasons, "; ")));
    }
  }
  if (e.misconfigured) {
    out += "  QuotaReserved=False, reason Misconfigured: no flavor is tried\n";
  }
  if (!e.message.empty()) {
    out += "  message: " + e.message + "\n";
  }
  if (!e.targets.empty()) {
    out += "\nPreemption would evict:\n";
    for (const engine::PreemptionTarget& t : e.targets) {
      const engine::Workload& v = s.store->Get(t.workload);
      out += fmt::format("  {} in {} (priority {}, {})\n", v.key, c.Name(v.cluster_queue),
                         v.priority, engine::ToString(t.reason));
    }
  }
  out += "\nWhat would admit it: ";
  out += !verdict.quota_is_the_cause ? verdict.remedy + "\n"
         : suggestion                ? suggestion->message + "\n"
         : !verdict.remedy.empty() ? "no single nominalQuota change found; " + verdict.remedy + "\n"
                                   : std::string("no single nominalQuota change found\n");
  return out;
}

void PrintUnevaluated(const ExplainOptions& options, const std::string& workload,
                      const engine::Workload* w, const ExplainVerdict& v) {
  if (options.output != "text") {
    JsonWriter out;
    WriteUnevaluatedJson(workload, w, v, out);
    std::fputs(ToOutputFormat(out.str() + "\n", options.output).c_str(), stdout);
    return;
  }
  std::printf(
      "Workload %s (%s), LocalQueue %s: not evaluated\nWhy: %s: %s\n\nWhat would admit it: "
      "%s\n",
      workload.c_str(), w == nullptr ? "QuotaReserved" : Status(*w).c_str(),
      w == nullptr ? "-" : w->local_queue().c_str(), v.code.c_str(), v.sentence.c_str(),
      v.remedy.c_str());
}

}  // namespace

// `tally predict`: the Workload of options.submit becomes the one explained (its key into
// `workload`); created at `now` when it has no creationTimestamp (the state is rebuilt then).
// Returns an exit status, 0 when it can be explained.
int PrepareSubmission(const ExplainOptions& options, ClusterState& state, std::string& workload) {
  std::vector<engine::WorkloadSpec*> submitted;
  for (engine::WorkloadSpec& spec : state.load.spec.workloads) {
    if (spec.source->file == options.submit) {
      submitted.push_back(&spec);
    }
  }
  if (submitted.size() != 1) {
    std::fprintf(stderr, "error: %s: wants exactly one Workload to predict, found %zu\n",
                 options.submit.c_str(), submitted.size());
    return 2;
  }
  engine::WorkloadSpec& spec = *submitted.front();
  workload = spec.name_space + "/" + spec.name;
  if (spec.admission) {
    std::fprintf(stderr,
                 "error: %s: Workload %s already holds quota (status.admission): `tally predict` "
                 "is for a workload not yet submitted; use `tally explain --eta`\n",
                 options.submit.c_str(), workload.c_str());
    return 2;
  }
  if (spec.creation_time == 0) {
    spec.creation_time = state.now;
    ClusterStateOptions again;
    again.now = state.now;
    again.feature_gates = options.feature_gates;
    again.scheduler.cohort_generation_resets_scan = !options.kueue_scan_reset;
    LoadResult load = std::move(state.load);
    state = BuildClusterState(std::move(load), again);
  }
  return 0;
}

int RunExplain(const ExplainOptions& options) {
  ClusterState state;
  std::vector<std::string> files = options.files;
  if (!options.submit.empty()) {
    files.push_back(options.submit);
  }
  if (int status = LoadStateForCommand(files, options.now, options.kueue_scan_reset,
                                       options.feature_gates, state);
      status != 0) {
    return status;
  }
  std::string workload = options.workload;
  if (!options.submit.empty()) {
    if (int status = PrepareSubmission(options, state, workload); status != 0) {
      return status;
    }
  }
  std::optional<engine::WorkloadId> id = state.store->Find(workload);
  if (!id
      && std::find(state.admitted_to_undefined.begin(), state.admitted_to_undefined.end(), workload)
             != state.admitted_to_undefined.end()) {
    PrintUnevaluated(options, workload, nullptr, DiagnoseAdmittedToUndefined(workload));
    return 0;
  }
  if (!id) {
    std::fprintf(stderr, "error: no Workload %s in the input (want NAMESPACE/NAME)\n",
                 workload.c_str());
    std::vector<std::string> keys;
    for (uint32_t i = 0; i < state.store->size(); ++i) {
      if (const auto wid = engine::MakeId<engine::WorkloadId>(i); state.store->Contains(wid)) {
        keys.push_back(state.store->Get(wid).key);
      }
    }
    if (std::optional<std::string> m = ClosestMatch(workload, keys)) {
      std::fprintf(stderr, "did you mean %s?\n", m->c_str());
    }
    return 1;
  }
  const engine::Workload& w = state.store->Get(*id);
  if (!engine::IsValid(w.cluster_queue)) {
    // Not an error of the command: why it waits is the answer (LocalQueueNotFound, ...).
    PrintUnevaluated(options, workload, &w, DiagnoseWorkload(state, w, nullptr));
    return 0;
  }
  engine::CycleEntry entry = state.scheduler->Evaluate(*id, state.now);
  const ExplainVerdict verdict = DiagnoseWorkload(state, w, &entry);
  std::optional<engine::QuotaSuggestion> suggestion;
  // Quota advice only when quota is what keeps it waiting (not for a stopped queue, a namespace
  // the ClusterQueue does not select, a Misconfigured or an admitted workload, ...).
  if (verdict.quota_is_the_cause) {
    suggestion = engine::SuggestQuotaChange(*state.cluster, *state.store, *id, entry.assignment);
  }
  // Where it waits (a pending workload), and who holds what it waits for (when quota is the
  // cause).
  std::optional<QueuePosition> queue;
  if (!w.quota_reserved && w.spec->active) {
    queue = FindQueuePosition(state, w);
  }
  std::optional<QuotaHolders> holders;
  if (verdict.quota_is_the_cause) {
    holders = FindQuotaHolders(state, w, entry);
  }
  std::optional<EtaAnswer> eta;
  if (options.eta || !options.runtimes.empty()) {
    eta.emplace();
    eta->runtimes_file = options.runtimes;
    if (EtaApplies(verdict.code)) {
      RuntimeModel model;
      if (!options.runtimes.empty()) {
        engine::StatusOr<RuntimeModel> m = RuntimeModel::FromReportJson(options.runtimes);
        if (!m.ok()) {
          std::fprintf(stderr, "error: --runtimes: %s\n", m.status().message().c_str());
          return 2;
        }
        model = std::move(m).value();
      }
      ClusterStateOptions again;
      again.now = state.now;
      again.feature_gates = options.feature_gates;
      again.scheduler.cohort_generation_resets_scan = !options.kueue_scan_reset;
      eta->prediction = PredictAdmission(state.load, again, workload, model);
    } else {
      eta->reason_code = verdict.code;
    }
  }
  const EtaAnswer* eta_answer = eta ? &*eta : nullptr;
  if (options.output != "text") {
    JsonWriter out;
    WriteJson(state, w, entry, verdict, queue, holders, suggestion, eta_answer, out);
    std::fputs(ToOutputFormat(out.str() + "\n", options.output).c_str(), stdout);
  } else {
    std::fputs(FormatText(state, w, entry, verdict, queue, holders, suggestion, eta_answer).c_str(),
               stdout);
  }
  return 0;
}

}  // namespace replay
