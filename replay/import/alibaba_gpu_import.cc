#include "replay/import/alibaba_gpu_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "engine/k8s_names.h"

namespace replay {
namespace {

constexpr std::string_view kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time";
constexpr std::string_view kNodeHeader = "sn,cpu_milli,memory_mib,gpu,model";
constexpr int64_t kEpochMicros = 1672531200LL * 1'000'000;  // 2023-01-01T00:00:00Z
constexpr std::string_view kModelLabel = "alibaba.com/gpu-model";
constexpr std::string_view kGpuResource = "alibaba.com/gpu-milli";
constexpr std::string_view kCpuOnlyFlavor = "cpu-only";

struct QosClass {
  std::string_view qos;
  std::string_view priority_class;
  int32_t value;
};
constexpr QosClass kQosClasses[] = {{"Guaranteed", "alibaba-guaranteed", 1000},
                                    {"LS", "alibaba-ls", 500},
                                    {"Burstable", "alibaba-burstable", 200},
                                    {"BE", "alibaba-be", 100}};

struct Capacity {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int64_t gpu_milli = 0;
};

std::string FlavorOfModel(std::string_view model) {
  std::string name = "gpu-";
  for (char c : model) {
    name += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return name;
}

// Times above this (seconds from the trace start, ~317 years) are refused: they would overflow
// microseconds since the Unix epoch.
constexpr int64_t kMaxSeconds = 10'000'000'000;
// Node capacities above this (millicores, MiB, GPUs) are refused: their sums must not overflow.
constexpr int64_t kMaxNodeField = 1'000'000'000'000;

struct Pod {
  ImportedWorkload workload;
  int64_t deleted_micros = -1;  // a DELETED event (never scheduled)
  int32_t tenant = 0;
};

}  // namespace

engine::StatusOr<ImportOutput> ImportAlibabaGpu(const AlibabaGpuImportOptions& options) {
  if (options.tenants < 1 || options.tenants > 1000) {
    return engine::InvalidArgument("--tenants must be in [1, 1000]");
  }
  if (engine::Status s = CheckCohortOption(options.cohort); !s.ok()) {
    return s;
  }
  // Nodes: the flavors and their capacity. A bad node row stops the import: quotas would be wrong.
  CsvReader node_csv(options.nodes, std::string(kNodeHeader), options.max_line_bytes);
  if (engine::Status s = node_csv.Open(); !s.ok()) {
    return s;
  }
  std::map<std::string, Capacity> flavors;
  std::map<std::string, std::string> flavor_of_model;
  CsvRow node_row;
  while (node_csv.Next(node_row)) {
    const int64_t line_number = node_row.line;
    if (node_row.too_long) {
      return engine::InvalidArgument(
          fmt::format("{}:{}: line longer than {} bytes (--max-line-bytes)", options.nodes,
                      line_number, node_csv.max_line_bytes()));
    }
    const std::vector<std::string_view> f = SplitCsvLine(node_row.text);
    int64_t cpu = 0;
    int64_t memory = 0;
    int64_t gpus = 0;
    if (f.size() != 5 || !ParseWholeNumber(f[1], cpu) || !ParseWholeNumber(f[2], memory)
        || !ParseWholeNumber(f[3], gpus) || cpu < 0 || memory < 0 || gpus < 0 || cpu > kMaxNodeField
        || memory > kMaxNodeField || gpus > kMaxNodeField || (gpus > 0 && f[4].empty())) {
      return engine::InvalidArgument(fmt::format(
          "{}:{}: not a node row ({}: non-negative cpu_milli, memory_mib, gpu; a model when "
          "gpu > 0)",
          options.nodes, line_number, kNodeHeader));
    }
    std::string flavor(kCpuOnlyFlavor);
    if (gpus > 0) {
      flavor = FlavorOfModel(f[4]);
      if (!engine::IsDns1123Label(flavor)) {
        return engine::InvalidArgument(fmt::format("{}:{}: model: \"{}\" is not usable in a name",
                                                   options.nodes, line_number, f[4]));
      }
      flavor_of_model[std::string(f[4])] = flavor;
    }
    Capacity& c = flavors[flavor];
    c.cpu_milli += cpu;
    c.memory_mib += memory;
    c.gpu_milli += gpus * 1000;
  }
  if (engine::Status s = node_csv.Finish(); !s.ok()) {
    return s;
  }
  if (flavors.empty()) {
    return engine::InvalidArgument(fmt::format("{}: no nodes", options.nodes));
  }

  CsvReader pod_csv(options.pods, std::string(kPodHeader), options.max_line_bytes);
  if (engine::Status s = pod_csv.Open(); !s.ok()) {
    return s;
  }
  ImportOutput out;
  std::vector<Pod> pods;
  std::set<std::string, std::less<>> names;
  std::vector<int64_t> tenant_pods(static_cast<size_t>(options.tenants), 0);
  int64_t never_scheduled = 0;
  int64_t constrained = 0;
  int64_t shared_gpu = 0;
  CsvRow pod_row;
  while (pod_csv.Next(pod_row)) {
    ++out.counts.read;
    if (pod_row.too_long) {
      SkipTooLongRow(pod_csv, pod_row, out.counts);
      continue;
    }
    const int64_t line_number = pod_row.line;
    const std::vector<std::string_view> f = SplitCsvLine(pod_row.text);
    auto skip = [&](const char* reason, const std::string& message) {
      out.counts.Skip(reason, fmt::format("{}:{}: {}", options.pods, line_number, message));
    };
    if (f.size() != 11) {
      skip("wrong number of columns",
           fmt::format("{} columns, want 11 ({})", f.size(), kPodHeader));
      continue;
    }
    if (!engine::IsDns1123Label(f[0])) {
      skip("bad name", fmt::format("name: \"{}\" is not a Kubernetes name", f[0]));
      continue;
    }
    if (names.count(f[0]) > 0) {
      skip("duplicate name", fmt::format("name: \"{}\" was already read", f[0]));
      continue;
    }
    int64_t cpu = 0;
    int64_t memory = 0;
    int64_t num_gpu = 0;
    int64_t gpu_milli = 0;
    if (!ParseWholeNumber(f[1], cpu) || cpu < 0) {
      skip("bad cpu_milli", fmt::format("cpu_milli: \"{}\" is not a whole number >= 0", f[1]));
      continue;
    }
    if (!ParseWholeNumber(f[2], memory) || memory < 0) {
      skip("bad memory_mib", fmt::format("memory_mib: \"{}\" is not a whole number >= 0", f[2]));
      continue;
    }
    if (!ParseWholeNumber(f[3], num_gpu) || num_gpu < 0 || num_gpu > 64) {
      skip("bad num_gpu", fmt::format("num_gpu: \"{}\" is not a whole number in [0, 64]", f[3]));
      continue;
    }
    if (!ParseWholeNumber(f[4], gpu_milli) || gpu_milli < 0 || gpu_milli > 1000
        || (num_gpu > 0 && gpu_milli == 0)) {
      skip("bad gpu_milli",
           fmt::format("gpu_milli: \"{}\" is not in [0, 1000] (and > 0 with GPUs)", f[4]));
      continue;
    }
    std::vector<std::string> models;
    bool unknown_model = false;
    for (std::string_view rest = f[5]; !rest.empty();) {
      const size_t bar = rest.find('|');
      const std::string model(rest.substr(0, bar));
      rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
      unknown_model = unknown_model || flavor_of_model.count(model) == 0;
      models.push_back(model);
    }
    if (unknown_model) {
      skip(
          "unknown gpu_spec model",
          fmt::format("gpu_spec: \"{}\" names a GPU model no node of {} has", f[5], options.nodes));
      continue;
    }
    const QosClass* qos = nullptr;
    for (const QosClass& q : kQosClasses) {
      qos = q.qos == f[6] ? &q : qos;
    }
    if (qos == nullptr) {
      skip("bad qos", fmt::format("qos: \"{}\" is not Guaranteed, LS, Burstable or BE", f[6]));
      continue;
    }
    int64_t created = 0;
    int64_t deleted = -1;
    int64_t scheduled = -1;
    auto seconds = [](std::string_view text, int64_t& value) {
      return ParseWholeNumber(text, value) && value >= 0 && value <= kMaxSeconds;
    };
    if (!seconds(f[8], created)) {
      skip("bad creation_time",
           fmt::format("creation_time: \"{}\" is not whole seconds in [0, {}]", f[8], kMaxSeconds));
      continue;
    }
    // Empty: the pod was never deleted (still there at the trace's end) or never scheduled.
    if (!f[9].empty() && !seconds(f[9], deleted)) {
      skip("bad deletion_time",
           fmt::format("deletion_time: \"{}\" is not empty or whole seconds in [0, {}]", f[9],
                       kMaxSeconds));
      continue;
    }
    if (!f[10].empty() && !seconds(f[10], scheduled)) {
      skip("bad scheduled_time",
           fmt::format("scheduled_time: \"{}\" is not empty or whole seconds in [0, {}]", f[10],
                       kMaxSeconds));
      continue;
    }
    if (deleted >= 0 && deleted < created) {
      skip("time before creation",
           fmt::format("deletion_time: {} is before creation_time {}", deleted, created));
      continue;
    }
    if (scheduled >= 0 && scheduled < created) {
      skip("time before creation",
           fmt::format("scheduled_time: {} is before creation_time {}", scheduled, created));
      continue;
    }
    if (scheduled >= 0 && deleted >= 0 && deleted <= scheduled) {
      skip("no running time",
           fmt::format("deletion_time: {} is not after scheduled_time {}", deleted, scheduled));
      continue;
    }
    Pod p;
    p.tenant = static_cast<int32_t>(StableNameHash(f[0]) % static_cast<uint64_t>(options.tenants));
    ImportedWorkload& w = p.workload;
    w.created_micros = kEpochMicros + created * 1'000'000;
    if (scheduled >= 0) {
      w.runtime_micros = deleted >= 0 ? (deleted - scheduled) * 1'000'000 : -1;
    } else {
      ++never_scheduled;
      p.deleted_micros = deleted >= 0 ? kEpochMicros + deleted * 1'000'000 : -1;
    }
    w.name = std::string(f[0]);
    w.namespace_name = fmt::format("tenant-{}", p.tenant);
    w.queue_name = w.namespace_name;
    w.priority_class = std::string(qos->priority_class);
    w.priority = qos->value;
    w.labels["tally.dev/class"] = fmt::format("qos-{}", FlavorOfModel(qos->qos).substr(4));
    w.requests.emplace_back("cpu", fmt::format("{}m", cpu));
    w.requests.emplace_back("memory", fmt::format("{}Mi", memory));
    if (num_gpu > 0) {
      w.requests.emplace_back(std::string(kGpuResource), fmt::format("{}", num_gpu * gpu_milli));
      shared_gpu += gpu_milli < 1000 ? 1 : 0;
    }
    if (!models.empty()) {
      ++constrained;
      w.affinity_key = std::string(kModelLabel);
      w.affinity_values = std::move(models);
    }
    ++tenant_pods[static_cast<size_t>(p.tenant)];
    names.insert(w.name);
    pods.push_back(std::move(p));
  }
  if (engine::Status s = pod_csv.Finish(); !s.ok()) {
    return s;
  }
  out.counts.used = static_cast<int64_t>(pods.size());

  // Flavor order in every ClusterQueue: CPU-only nodes first, so that a pod without GPUs takes
  // them before the CPUs of GPU nodes (a GPU pod skips them: they have no GPU quota), then the GPU
  // models by name.
  std::vector<std::string> order;
  if (flavors.count(std::string(kCpuOnlyFlavor)) > 0) {
    order.emplace_back(kCpuOnlyFlavor);
  }
  for (const auto& [name, c] : flavors) {
    if (name != kCpuOnlyFlavor) {
      order.push_back(name);
    }
  }
  std::vector<double> weights(tenant_pods.begin(), tenant_pods.end());
  // quota[flavor index][resource] per tenant.
  std::vector<std::array<std::vector<int64_t>, 3>> quotas;
  for (const std::string& name : order) {
    const Capacity& c = flavors[name];
    quotas.push_back({SplitProportionally(c.cpu_milli, weights),
                      SplitProportionally(c.memory_mib, weights),
                      SplitProportionally(c.gpu_milli, weights)});
  }

  std::string& m = out.manifests;
  m = fmt::format(
      "# Generated by `tally import alibaba-gpu` from {} and {} (docs/import.md).\n"
      "# One ResourceFlavor per GPU model of the node list; {} tenants (a hash of the pod name),\n"
      "# one ClusterQueue each in Cohort {}, each flavor's node capacity split by pod counts.\n",
      options.pods, options.nodes, options.tenants, options.cohort);
  for (const std::string& name : order) {
    std::string model;
    for (const auto& [mdl, flv] : flavor_of_model) {
      model = flv == name ? mdl : model;
    }
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: {}\n",
        name);
    if (!model.empty()) {
      m += fmt::format("spec:\n  nodeLabels:\n    {}: \"{}\"\n", kModelLabel, model);
    }
  }
  m += fmt::format("---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: {}\n",
                   options.cohort);
  for (const QosClass& q : kQosClasses) {
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n"
        "  name: {}\nvalue: {}\ndescription: \"Alibaba QoS {}\"\n",
        q.priority_class, q.value, q.qos);
  }
  for (int32_t t = 0; t < options.tenants; ++t) {
    const size_t ti = static_cast<size_t>(t);
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n"
        "  name: tenant-{0}\nspec:\n  cohortName: {1}\n  namespaceSelector: {{}}\n"
        "  resourceGroups:\n  - coveredResources: [\"cpu\", \"memory\", \"{2}\"]\n    flavors:\n",
        t, options.cohort, kGpuResource);
    for (size_t fi = 0; fi < order.size(); ++fi) {
      m += fmt::format(
          "    - name: {}\n      resources:\n      - name: cpu\n        nominalQuota: \"{}m\"\n"
          "      - name: memory\n        nominalQuota: \"{}Mi\"\n      - name: \"{}\"\n"
          "        nominalQuota: \"{}\"\n",
          order[fi], quotas[fi][0][ti], quotas[fi][1][ti], kGpuResource, quotas[fi][2][ti]);
    }
    m += fmt::format(
        "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n"
        "  name: tenant-{0}\n  namespace: tenant-{0}\nspec:\n  clusterQueue: tenant-{0}\n",
        t);
  }

  // Events in time order: ADDED at creation, DELETED for pods that gave up waiting.
  std::vector<std::pair<int64_t, std::string>> lines;
  lines.reserve(pods.size() + static_cast<size_t>(never_scheduled));
  for (const Pod& p : pods) {
    std::string line;
    AppendAddedEvent(p.workload, line);
    lines.emplace_back(p.workload.created_micros, std::move(line));
    if (p.deleted_micros >= 0) {
      std::string del;
      AppendDeletedEvent(p.deleted_micros, p.workload.namespace_name, p.workload.name, del);
      lines.emplace_back(p.deleted_micros, std::move(del));
    }
  }
  std::stable_sort(lines.begin(), lines.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  out.events = std::string(kEventsHeader) + "\n";
  for (const auto& [micros, line] : lines) {
    out.events += line;
    out.events += '\n';
  }

  std::string flavor_list;
  for (const std::string& name : order) {
    const Capacity& c = flavors[name];
    flavor_list += fmt::format("{}{} ({} cores, {} GiB, {} GPUs)", flavor_list.empty() ? "" : ", ",
                               name, c.cpu_milli / 1000, c.memory_mib / 1024, c.gpu_milli / 1000);
  }
  out.notes.push_back(fmt::format("{} flavors: {}", order.size(), flavor_list));
  std::string tenant_list;
  for (size_t t = 0; t < tenant_pods.size(); ++t) {
    tenant_list += fmt::format("{}tenant-{} {}", t == 0 ? "" : ", ", t, tenant_pods[t]);
  }
  out.notes.push_back(fmt::format("pods per tenant: {}", tenant_list));
  out.notes.push_back(fmt::format(
      "{} pods never scheduled (ADDED, then DELETED when they gave up), {} with a GPU-model "
      "constraint (node affinity), {} sharing a GPU (gpu_milli < 1000)",
      never_scheduled, constrained, shared_gpu));
  return out;
}

}  // namespace replay
