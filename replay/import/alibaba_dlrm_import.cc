#include "replay/import/alibaba_dlrm_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "engine/k8s_names.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

constexpr std::string_view kDlrmHeader =
    "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,"
    "rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,"
    "creation_time,scheduled_time,deletion_time";
constexpr size_t kColumns = 17;
constexpr int64_t kDlrmEpochMicros = 1735689600LL * 1'000'000;  // 2025-01-01T00:00:00Z
constexpr std::string_view kRoleLabel = "alibaba.com/node-role";
constexpr std::string_view kPriorityClass = "alibaba-ls";
constexpr int32_t kPriority = 500;  // as alibaba-gpu's LS: every instance serves online traffic
// Quantities above this (in the column's unit: vCPUs, GiB, GPUs, percent) are refused: the sums
// of thousands of rows must stay far from overflow.
constexpr int64_t kMaxQuantity = 1'000'000;
// Times above this (seconds from the trace start, ~317 years) are refused.
constexpr int64_t kDlrmMaxSeconds = 10'000'000'000;
constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// The resources a ClusterQueue covers, in quota units: millicores, MiB, GPUs, percent of a NIC.
enum Resource : size_t { kCpu, kMemory, kGpu, kRdma, kNumResources };
constexpr std::array<std::string_view, kNumResources> kResourceNames = {
    "cpu", "memory", "nvidia.com/gpu", "alibaba.com/rdma-percent"};
constexpr std::array<std::string_view, kNumResources> kQuotaSuffix = {"m", "Mi", "", ""};

// Roles, which are the flavors: CN instances run on CPU nodes, HN instances on GPU nodes.
struct Role {
  std::string_view role;
  std::string_view flavor;
};
constexpr std::array<Role, 2> kRoles = {{{"CN", "cn"}, {"HN", "hn"}}};

using Amounts = std::array<int64_t, kNumResources>;

struct Instance {
  ImportedWorkload workload;
  size_t role = 0;
  int32_t tenant = 0;
  Amounts amount{};
  bool admitted_at_start = false;  // running when the trace began
  bool waiting_at_start = false;   // created before the trace, scheduled during it
  int64_t deleted_micros = -1;     // never scheduled: a DELETED event then
  // The interval it holds quota were it placed on arrival: [demand_from, demand_to), micros;
  // demand_from < 0 for an instance that never ran.
  int64_t demand_from = -1;
  int64_t demand_to = kForever;
};

// A Kubernetes name from a trace id: lowercase, '_' as '-' ("instance_7" -> "instance-7").
std::string KubeName(std::string_view id) {
  std::string name(id);
  for (char& c : name) {
    c = c == '_' ? '-' : c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return name;
}

// A decimal >= 0 (float text such as "937.5" or "475.00000000000006"), in millionths of its unit
// (exact: no float rounding), at most `max` units.
bool ParseMillionths(std::string_view text, int64_t max, int64_t& out) {
  engine::StatusOr<int64_t> v = ParseDecimalSeconds(text);
  if (!v.ok() || *v > max * 1'000'000) {
    return false;
  }
  out = *v;
  return true;
}

// An empty time, or NaN (the trace's "before the start" / "after the end").
bool IsAbsent(std::string_view text) {
  return text.empty() || text == "NaN" || text == "nan" || text == "NAN";
}

int64_t CeilDiv(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

std::string FormatAmount(size_t r, int64_t v) {
  switch (static_cast<Resource>(r)) {
    case kCpu:
      return fmt::format("{:.1f} cores", static_cast<double>(v) / 1000.0);
    case kMemory:
      return v >= int64_t{1024} * 1024
                 ? fmt::format("{:.1f} TiB", static_cast<double>(v) / (1024.0 * 1024.0))
                 : fmt::format("{:.1f} GiB", static_cast<double>(v) / 1024.0);
    case kGpu:
      return fmt::format("{} GPUs", v);
    case kRdma:
      return fmt::format("{} RDMA%", v);
    case kNumResources:
      break;
  }
  return "";
}

// Reads one data row; on failure counts it under its reason and returns false.
bool ParseRow(const std::string& path, const CsvRow& row, const std::set<std::string>& names,
              Instance& in, std::string& app, ImportCounts& counts) {
  const std::vector<std::string_view> f = SplitCsvLine(row.text);
  auto skip = [&](const std::string& reason, const std::string& message) {
    counts.Skip(reason, fmt::format("{}:{}: {}", path, row.line, message));
    return false;
  };
  if (f.size() != kColumns) {
    return skip("wrong number of columns",
                fmt::format("{} columns, want {} ({})", f.size(), kColumns, kDlrmHeader));
  }
  ImportedWorkload& w = in.workload;
  w.name = KubeName(f[0]);
  if (!engine::IsDns1123Label(w.name)) {
    return skip("bad instance_sn",
                fmt::format("instance_sn: \"{}\" is not usable as a Kubernetes name", f[0]));
  }
  if (names.count(w.name) > 0) {
    return skip("duplicate instance_sn",
                fmt::format("instance_sn: \"{}\" was already read (as {})", f[0], w.name));
  }
  size_t role = kRoles.size();
  for (size_t i = 0; i < kRoles.size(); ++i) {
    role = kRoles[i].role == f[1] ? i : role;
  }
  if (role == kRoles.size()) {
    return skip("bad role", fmt::format("role: \"{}\" is not CN or HN", f[1]));
  }
  in.role = role;
  app = KubeName(f[2]);
  if (!engine::IsDns1123Label(app)) {
    return skip("bad app_name",
                fmt::format("app_name: \"{}\" is not usable as a Kubernetes name", f[2]));
  }
  // Every quantity column is read, mapped or not: a row whose numbers are damaged is not trusted.
  static constexpr std::array<std::string_view, 10> kQuantityColumns = {
      "cpu_request", "cpu_limit",      "gpu_request",  "gpu_limit",    "rdma_request",
      "rdma_limit",  "memory_request", "memory_limit", "disk_request", "disk_limit"};
  std::array<int64_t, kQuantityColumns.size()> q{};
  for (size_t i = 0; i < kQuantityColumns.size(); ++i) {
    if (!ParseMillionths(f[3 + i], kMaxQuantity, q[i])) {
      return skip(fmt::format("bad {}", kQuantityColumns[i]),
                  fmt::format("{}: \"{}\" is not a number in [0, {}]", kQuantityColumns[i],
                              f[3 + i], kMaxQuantity));
    }
  }
  const int64_t cpu = q[0];
  const int64_t gpus = q[2];
  const int64_t rdma = q[4];
  const int64_t memory = q[6];
  if (gpus % 1'000'000 != 0) {
    return skip("bad gpu_request",
                fmt::format("gpu_request: \"{}\" is not a whole number of GPUs", f[5]));
  }
  if (rdma % 1'000'000 != 0 || rdma > 100'000'000) {
    return skip("bad rdma_request",
                fmt::format("rdma_request: \"{}\" is not a whole percent in [0, 100]", f[7]));
  }
  int64_t per_node = 0;
  if (!ParseWholeNumber(f[13], per_node) || per_node < -1 || per_node > kMaxQuantity) {
    return skip(
        "bad max_instance_per_node",
        fmt::format("max_instance_per_node: \"{}\" is not -1 (no limit) or a whole number", f[13]));
  }
  in.amount[kCpu] = CeilDiv(cpu, 1000);
  in.amount[kMemory] = CeilDiv(memory * 1024, 1'000'000);
  in.amount[kGpu] = gpus / 1'000'000;
  in.amount[kRdma] = rdma / 1'000'000;

  // Times, in micros from the trace start; -1 when absent.
  std::array<int64_t, 3> t = {-1, -1, -1};
  static constexpr std::array<std::string_view, 3> kTimeColumns = {
      "creation_time", "scheduled_time", "deletion_time"};
  for (size_t i = 0; i < t.size(); ++i) {
    if (!IsAbsent(f[14 + i]) && !ParseMillionths(f[14 + i], kDlrmMaxSeconds, t[i])) {
      return skip(fmt::format("bad {}", kTimeColumns[i]),
                  fmt::format("{}: \"{}\" is not empty, NaN or seconds in [0, {}]", kTimeColumns[i],
                              f[14 + i], kDlrmMaxSeconds));
    }
  }
  const auto [created, scheduled, deleted] = t;
  if (created >= 0 && scheduled >= 0 && scheduled < created) {
    return skip("time before creation",
                fmt::format("scheduled_time: {} is before creation_time {}", f[15], f[14]));
  }
  if (created >= 0 && deleted >= 0 && deleted < created) {
    return skip("time before creation",
                fmt::format("deletion_time: {} is before creation_time {}", f[16], f[14]));
  }
  // Running when the trace began: scheduled at its start.
  const int64_t ran_from = scheduled >= 0 ? scheduled : created < 0 ? 0 : -1;
  if (ran_from >= 0 && deleted >= 0 && deleted <= ran_from) {
    return skip("no running time",
                fmt::format("deletion_time: {} is not after scheduled_time {}", f[16],
                            scheduled >= 0 ? std::string(f[15]) : "(the trace start)"));
  }

  w.created_micros = kDlrmEpochMicros + std::max<int64_t>(created, 0);
  in.admitted_at_start = created < 0 && scheduled < 0;
  in.waiting_at_start = created < 0 && scheduled >= 0;
  if (ran_from >= 0) {
    w.runtime_micros = deleted >= 0 ? deleted - ran_from : -1;
    in.demand_from = std::max<int64_t>(created, 0);
    in.demand_to = deleted >= 0 ? in.demand_from + (deleted - ran_from) : kForever;
  } else if (deleted >= 0) {
    in.deleted_micros = kDlrmEpochMicros + deleted;  // never scheduled: it gave up then
  }
  w.namespace_name = app;
  w.queue_name = app;
  w.priority_class = std::string(kPriorityClass);
  w.priority = kPriority;
  w.labels["tally.dev/class"] = fmt::format("role-{}", kRoles[role].flavor);
  for (size_t r = 0; r < kNumResources; ++r) {
    if (r == kCpu || r == kMemory || in.amount[r] > 0) {
      w.requests.emplace_back(std::string(kResourceNames[r]),
                              fmt::format("{}{}", in.amount[r], kQuotaSuffix[r]));
    }
  }
  w.affinity_key = std::string(kRoleLabel);
  w.affinity_values = {std::string(kRoles[role].role)};
  return true;
}

// The peak of the summed demand of `instances` (all, and per tenant), per role and resource.
struct Peaks {
  std::array<Amounts, kRoles.size()> all{};
  std::vector<std::array<Amounts, kRoles.size()>> tenant;
};
Peaks PeakDemand(const std::vector<Instance>& instances, int32_t tenants) {
  // (time, +1 start / -1 end, index); at one instant ends come first: a finishing instance's
  // quota is free for one arriving then.
  std::vector<std::tuple<int64_t, int, size_t>> edges;
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& in = instances[i];
    if (in.demand_from < 0) {
      continue;
    }
    edges.emplace_back(in.demand_from, 1, i);
    if (in.demand_to != kForever) {
      edges.emplace_back(in.demand_to, -1, i);
    }
  }
  std::sort(edges.begin(), edges.end());
  Peaks peaks;
  peaks.tenant.resize(static_cast<size_t>(tenants));
  std::array<Amounts, kRoles.size()> all_now{};
  std::vector<std::array<Amounts, kRoles.size()>> tenant_now(peaks.tenant.size());
  for (const auto& [time, sign, i] : edges) {
    const Instance& in = instances[i];
    Amounts& a = all_now[in.role];
    Amounts& t = tenant_now[static_cast<size_t>(in.tenant)][in.role];
    for (size_t r = 0; r < kNumResources; ++r) {
      a[r] += sign * in.amount[r];
      t[r] += sign * in.amount[r];
      peaks.all[in.role][r] = std::max(peaks.all[in.role][r], a[r]);
      Amounts& tp = peaks.tenant[static_cast<size_t>(in.tenant)][in.role];
      tp[r] = std::max(tp[r], t[r]);
    }
  }
  return peaks;
}

}  // namespace

engine::StatusOr<ImportOutput> ImportAlibabaDlrm(const AlibabaDlrmImportOptions& options) {
  if (options.tenants < 1 || options.tenants > 1000) {
    return engine::InvalidArgument("--tenants must be in [1, 1000]");
  }
  if (!(options.headroom > 0) || options.headroom > 1000) {
    return engine::InvalidArgument("--headroom must be in (0, 1000]");
  }
  if (engine::Status s = CheckCohortOption(options.cohort); !s.ok()) {
    return s;
  }
  CsvReader csv(options.path, std::string(kDlrmHeader), options.max_line_bytes);
  if (engine::Status s = csv.Open(); !s.ok()) {
    return s;
  }
  ImportOutput out;
  std::vector<Instance> instances;
  std::set<std::string> names;
  std::map<std::string, int32_t> tenant_of_app;  // namespace -> tenant, sorted for the manifests
  CsvRow row;
  while (csv.Next(row)) {
    ++out.counts.read;
    Instance in;
    std::string app;
    if (row.too_long) {
      SkipTooLongRow(csv, row, out.counts);
      continue;
    }
    if (!ParseRow(options.path, row, names, in, app, out.counts)) {
      continue;
    }
    in.tenant = static_cast<int32_t>(StableNameHash(app) % static_cast<uint64_t>(options.tenants));
    tenant_of_app.emplace(app, in.tenant);
    names.insert(in.workload.name);
    instances.push_back(std::move(in));
  }
  if (engine::Status s = csv.Finish(); !s.ok()) {
    return s;
  }
  out.counts.used = static_cast<int64_t>(instances.size());

  const Peaks peaks = PeakDemand(instances, options.tenants);
  // quota[role][resource][tenant]
  std::array<std::array<std::vector<int64_t>, kNumResources>, kRoles.size()> quota;
  for (size_t role = 0; role < kRoles.size(); ++role) {
    for (size_t r = 0; r < kNumResources; ++r) {
      const int64_t total = static_cast<int64_t>(
          std::ceil(static_cast<double>(peaks.all[role][r]) * options.headroom));
      std::vector<double> weights;
      for (const auto& tenant : peaks.tenant) {
        weights.push_back(static_cast<double>(tenant[role][r]));
      }
      quota[role][r] = SplitProportionally(total, weights);
    }
  }

  std::string& m = out.manifests;
  m = fmt::format(
      "# Generated by `tally import alibaba-dlrm` from {} (docs/import.md).\n"
      "# Flavors cn (CPU nodes) and hn (GPU nodes); {} tenants (a hash of app_name), one\n"
      "# ClusterQueue each in Cohort {}; quotas: the peak demand with every instance placed on\n"
      "# arrival, x {} headroom, split by each tenant's own peak. One LocalQueue per app.\n",
      options.path, options.tenants, options.cohort, options.headroom);
  for (const Role& role : kRoles) {
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: {}\n"
        "spec:\n  nodeLabels:\n    {}: \"{}\"\n",
        role.flavor, kRoleLabel, role.role);
  }
  m += fmt::format("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: {}\n",
                   options.cohort);
  m += fmt::format(
      "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n"
      "  name: {}\nvalue: {}\ndescription: \"Alibaba DLRM inference (latency-sensitive)\"\n",
      kPriorityClass, kPriority);
  std::string covered;
  for (std::string_view r : kResourceNames) {
    covered += fmt::format("{}\"{}\"", covered.empty() ? "" : ", ", r);
  }
  for (int32_t t = 0; t < options.tenants; ++t) {
    const size_t ti = static_cast<size_t>(t);
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n"
        "  name: tenant-{}\nspec:\n  cohortName: {}\n  namespaceSelector: {{}}\n"
        "  resourceGroups:\n  - coveredResources: [{}]\n    flavors:\n",
        t, options.cohort, covered);
    for (size_t role = 0; role < kRoles.size(); ++role) {
      m += fmt::format("    - name: {}\n      resources:\n", kRoles[role].flavor);
      for (size_t r = 0; r < kNumResources; ++r) {
        m += fmt::format("      - name: \"{}\"\n        nominalQuota: \"{}{}\"\n",
                         kResourceNames[r], quota[role][r][ti], kQuotaSuffix[r]);
      }
    }
  }
  for (const auto& [app, tenant] : tenant_of_app) {
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n"
        "  name: {0}\n  namespace: {0}\nspec:\n  clusterQueue: tenant-{1}\n",
        app, tenant);
  }

  // Events in time order (ties in input order): ADDED, and DELETED for the never scheduled.
  std::vector<std::pair<int64_t, std::string>> lines;
  lines.reserve(instances.size());
  int64_t at_start = 0;
  int64_t waiting_at_start = 0;
  int64_t never_scheduled = 0;
  int64_t to_the_end = 0;
  std::array<int64_t, kRoles.size()> per_role{};
  for (const Instance& in : instances) {
    const ImportedWorkload& w = in.workload;
    std::string line;
    if (in.admitted_at_start) {
      ++at_start;
      AppendAdmittedAddedEvent(w,
                               ImportedAdmission{fmt::format("tenant-{}", in.tenant),
                                                 std::string(kRoles[in.role].flavor)},
                               line);
    } else {
      AppendAddedEvent(w, line);
    }
    waiting_at_start += in.waiting_at_start ? 1 : 0;
    ++per_role[in.role];
    lines.emplace_back(w.created_micros, std::move(line));
    if (in.demand_from < 0) {
      ++never_scheduled;
      if (in.deleted_micros >= 0) {
        std::string del;
        AppendDeletedEvent(in.deleted_micros, w.namespace_name, w.name, del);
        lines.emplace_back(in.deleted_micros, std::move(del));
      }
    } else if (in.demand_to == kForever) {
      ++to_the_end;
    }
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  out.events.reserve(lines.size() * 900 + 64);
  out.events = std::string(kEventsHeader) + "\n";
  for (const auto& [micros, line] : lines) {
    out.events += line;
    out.events += '\n';
  }

  out.notes.push_back(fmt::format(
      "{} instances ({} CN, {} HN): {} running when the trace began (ADDED admitted at its "
      "start), {} waiting then, {} arriving, {} never scheduled (ADDED, then DELETED); {} run to "
      "the end (no deletion_time)",
      instances.size(), per_role[0], per_role[1], at_start, waiting_at_start,
      static_cast<int64_t>(instances.size()) - at_start - waiting_at_start - never_scheduled,
      never_scheduled, to_the_end));
  for (size_t role = 0; role < kRoles.size(); ++role) {
    std::string list;
    for (size_t r = 0; r < kNumResources; ++r) {
      int64_t total = 0;
      for (int64_t part : quota[role][r]) {
        total += part;
      }
      list += fmt::format("{}{}", list.empty() ? "" : ", ", FormatAmount(r, total));
    }
    out.notes.push_back(
        fmt::format("flavor {} (role {}) quota: {} (peak demand x {} headroom; --headroom sets it)",
                    kRoles[role].flavor, kRoles[role].role, list, options.headroom));
  }
  std::vector<int64_t> apps(static_cast<size_t>(options.tenants), 0);
  std::vector<int64_t> tenant_instances(apps.size(), 0);
  for (const auto& [app, tenant] : tenant_of_app) {
    ++apps[static_cast<size_t>(tenant)];
  }
  for (const Instance& in : instances) {
    ++tenant_instances[static_cast<size_t>(in.tenant)];
  }
  std::string tenant_list;
  for (size_t t = 0; t < apps.size(); ++t) {
    tenant_list += fmt::format("{}tenant-{} {} apps / {} instances", t == 0 ? "" : ", ", t, apps[t],
                               tenant_instances[t]);
  }
  out.notes.push_back(
      fmt::format("{} apps (a LocalQueue each): {}", tenant_of_app.size(), tenant_list));
  return out;
}

}  // namespace replay
