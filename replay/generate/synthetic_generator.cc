// Synthetic scenarios: the cluster model (cohort trees, quotas sized from the offered load) and
// the arrival stream. Everything random comes from two xoshiro256** streams seeded from the
// seed: one for the cluster, one for the workloads, so changing --workloads does not change
// the cluster.
#include "replay/generate/synthetic_generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <string_view>
#include <vector>

#include "replay/io/time_parse.h"

namespace replay {
namespace {

// Share of the load the quotas are sized for: 0.85 keeps queues short but non-empty (busy but
// not hopeless) once packing losses and runtime variance are counted.
constexpr double kTargetUtilization = 0.85;
// Share of the capacity held by each root cohort as shared quota (when there are cohorts).
constexpr double kCohortShare = 0.10;
// Log-normal runtime shape: sigma of the underlying normal (mean preserved).
constexpr double kRuntimeSigma = 1.0;
// Event chunk size handed to the writer.
constexpr size_t kChunkBytes = size_t{1} << 20;
// Leaf cohorts get about this many ClusterQueues each.
constexpr int32_t kQueuesPerLeafCohort = 4;

// ---- PRNG: SplitMix64 for seeding, xoshiro256** for the streams (both public-domain
// algorithms by Vigna et al.; written from their published definitions). ----

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream) {
    uint64_t sm = seed ^ (stream * 0xd1b54a32d192ed03ULL);
    for (uint64_t& word : s_) {
      word = SplitMix64(sm);
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1), 53 bits.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Standard normal (Marsaglia's polar method; one value per accepted pair).
  double Normal() {
    while (true) {
      double u = 2.0 * Uniform() - 1.0;
      double v = 2.0 * Uniform() - 1.0;
      double s = u * u + v * v;
      if (s > 0.0 && s < 1.0) {
        return u * std::sqrt(-2.0 * internal::Log(s) / s);  // sqrt is correctly rounded
      }
    }
  }
  // Index into cumulative weights (last element = total).
  size_t Pick(const std::vector<double>& cumulative) {
    double x = Uniform() * cumulative.back();
    auto it = std::upper_bound(cumulative.begin(), cumulative.end(), x);
    return std::min(static_cast<size_t>(it - cumulative.begin()), cumulative.size() - 1);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_{};
};

// ---- The model ----

struct PriorityClass {
  std::string_view name;
  int32_t value;
};
constexpr std::array<PriorityClass, 3> kPriorityClasses = {
    {{"low", 100}, {"standard", 1000}, {"high", 10000}}};

struct WorkloadClass {
  std::string_view name;
  int32_t pods;
  int32_t min_count;                   // 0: never
  double min_count_fraction;           // share of this class's workloads that set minCount
  double mix;                          // share of arrivals
  double runtime_factor;               // relative mean runtime
  int32_t cpu;                         // per pod, cores
  int32_t memory_gi;                   // per pod
  int32_t gpu;                         // per pod
  int32_t extra;                       // per pod, each example.com/res-<i>
  std::array<double, 3> priority_mix;  // over kPriorityClasses
  bool needs_gpu;                      // only offered when the gpu resource exists
};
constexpr std::array<WorkloadClass, 4> kClasses = {{
    {"small", 1, 0, 0.0, 0.55, 0.25, 1, 2, 0, 0, {0.7, 0.3, 0.0}, false},
    {"medium", 4, 0, 0.0, 0.25, 1.0, 2, 8, 0, 1, {0.2, 0.7, 0.1}, false},
    {"large", 16, 8, 0.5, 0.10, 2.0, 4, 16, 0, 1, {0.5, 0.5, 0.0}, false},
    {"gpu", 2, 0, 0.0, 0.10, 3.0, 8, 64, 4, 0, {0.0, 0.5, 0.5}, true},
}};

std::string ResourceName(int32_t r) {
  switch (r) {
    case 0:
      return "cpu";
    case 1:
      return "memory";
    case 2:
      return "nvidia.com/gpu";
    default:
      return fmt::format("example.com/res-{}", r);
  }
}

std::string FormatAmount(int32_t r, int64_t amount) {
  return r == 1 ? fmt::format("{}Gi", amount) : fmt::format("{}", amount);
}

int64_t PerPod(const WorkloadClass& c, int32_t r) {
  switch (r) {
    case 0:
      return c.cpu;
    case 1:
      return c.memory_gi;
    case 2:
      return c.gpu;
    default:
      return c.extra;
  }
}

struct ActiveClass {
  const WorkloadClass* spec = nullptr;
  double mean_runtime_ms = 0;
  std::string requests_json;  // "\"cpu\":\"1\",\"memory\":\"2Gi\""
  std::vector<double> priority_cumulative;
};

struct Model {
  int32_t depth = 0;
  int32_t trees = 1;
  std::vector<std::string> resources;
  std::vector<double> flavor_share;      // sums to 1
  std::vector<double> queue_weight;      // per ClusterQueue
  std::vector<double> queue_cumulative;  // for arrivals
  std::vector<double> capacity;          // per resource, whole units
  std::vector<ActiveClass> classes;
  std::vector<double> class_cumulative;
};

Model BuildModel(const SyntheticOptions& o) {
  Model m;
  m.depth = o.cohort_depth;
  m.trees = o.cohort_depth == 0 ? 1 : o.trees;
  for (int32_t r = 0; r < o.resources; ++r) {
    m.resources.push_back(ResourceName(r));
  }
  double flavor_total = 0;
  for (int32_t f = 0; f < o.flavors; ++f) {
    flavor_total += o.flavors - f;
  }
  for (int32_t f = 0; f < o.flavors; ++f) {
    m.flavor_share.push_back((o.flavors - f) / flavor_total);
  }
  Rng rng(o.seed, 1);
  double total = 0;
  for (int32_t q = 0; q < o.cluster_queues; ++q) {
    double w = 0.5 + rng.Uniform();
    m.queue_weight.push_back(w);
    total += w;
    m.queue_cumulative.push_back(total);
  }

  double mix_total = 0;
  double runtime_norm = 0;
  for (const WorkloadClass& c : kClasses) {
    if (c.needs_gpu && o.resources < 3) {
      continue;
    }
    mix_total += c.mix;
    runtime_norm += c.mix * c.runtime_factor;
  }
  runtime_norm /= mix_total;  // mean runtime factor over the mix
  m.capacity.assign(o.resources, 0.0);
  double concurrency = o.mean_runtime_seconds / o.mean_interarrival_seconds;
  for (const WorkloadClass& c : kClasses) {
    if (c.needs_gpu && o.resources < 3) {
      continue;
    }
    ActiveClass a;
    a.spec = &c;
    double factor = c.runtime_factor / runtime_norm;
    a.mean_runtime_ms = o.mean_runtime_seconds * 1000.0 * factor;
    for (int32_t r = 0; r < o.resources; ++r) {
      int64_t per_pod = PerPod(c, r);
      if (per_pod == 0) {
        continue;
      }
      a.requests_json += fmt::format("{}\"{}\":\"{}\"", a.requests_json.empty() ? "" : ",",
                                     m.resources[r], FormatAmount(r, per_pod));
      m.capacity[r] +=
          concurrency * (c.mix / mix_total) * c.pods * static_cast<double>(per_pod) * factor;
    }
    double p = 0;
    for (double w : c.priority_mix) {
      p += w;
      a.priority_cumulative.push_back(p);
    }
    m.classes.push_back(std::move(a));
    m.class_cumulative.push_back((m.class_cumulative.empty() ? 0 : m.class_cumulative.back())
                                 + c.mix);
  }
  for (double& cap : m.capacity) {
    cap /= kTargetUtilization;
  }
  return m;
}

// Largest single workload's need of resource r (so that every workload fits its own queue's
// first flavor: nothing is hopeless even without borrowing).
int64_t LargestDemand(const Model& m, int32_t r) {
  int64_t most = 0;
  for (const ActiveClass& a : m.classes) {
    most = std::max(most, a.spec->pods * PerPod(*a.spec, r));
  }
  return most;
}

// ---- Cohort trees ----

struct Tree {
  int32_t queues = 0;               // ClusterQueues in the tree
  std::vector<int32_t> level_size;  // cohorts per level, level 0 is the root
  double weight = 0;                // sum of its ClusterQueues' weights
};

std::string CohortName(int32_t tree, int32_t level, int64_t index) {
  return level == 0 ? fmt::format("tree-{}", tree)
                    : fmt::format("tree-{}-{}-{}", tree, level, index);
}

std::vector<Tree> BuildTrees(const SyntheticOptions& o, const Model& m) {
  std::vector<Tree> trees(m.trees);
  for (int32_t q = 0; q < o.cluster_queues; ++q) {
    Tree& t = trees[q % m.trees];
    ++t.queues;
    t.weight += m.queue_weight[q];
  }
  if (m.depth == 0) {
    return trees;
  }
  for (Tree& t : trees) {
    int64_t leaves =
        std::max<int64_t>(1, (t.queues + kQueuesPerLeafCohort - 1) / kQueuesPerLeafCohort);
    // Smallest branching factor b with b^(depth-1) >= leaves; then level k has min(b^k, leaves).
    int64_t b = 1;
    while (true) {
      int64_t reach = 1;
      for (int32_t k = 1; k < m.depth && reach < leaves; ++k) {
        reach *= b;
      }
      if (reach >= leaves || m.depth == 1) {
        break;
      }
      ++b;
    }
    int64_t size = 1;
    for (int32_t k = 0; k < m.depth; ++k) {
      t.level_size.push_back(
          static_cast<int32_t>(k == m.depth - 1 ? leaves : std::min(size, leaves)));
      size = std::min(size * b, leaves);
    }
    if (m.depth == 1) {
      t.level_size = {1};
    }
  }
  return trees;
}

// The leaf cohort of ClusterQueue q.
std::string LeafOf(const std::vector<Tree>& trees, int32_t num_trees, int32_t q) {
  const Tree& t = trees[q % num_trees];
  int64_t local = q / num_trees;
  int32_t level = static_cast<int32_t>(t.level_size.size()) - 1;
  int64_t leaf = local * t.level_size.back() / t.queues;
  return CohortName(q % num_trees, level, leaf);
}

void AppendResourceGroup(fmt::memory_buffer& out, const Model& m, std::string_view indent,
                         const std::function<int64_t(size_t, int32_t)>& nominal,
                         const std::function<void(size_t, int32_t, int64_t)>& limits) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}resourceGroups:\n{}- coveredResources: [", indent, indent);
  for (size_t r = 0; r < m.resources.size(); ++r) {
    fmt::format_to(it, "{}\"{}\"", r == 0 ? "" : ", ", m.resources[r]);
  }
  fmt::format_to(it, "]\n{}  flavors:\n", indent);
  for (size_t f = 0; f < m.flavor_share.size(); ++f) {
    fmt::format_to(it, "{}  - name: flavor-{}\n{}    resources:\n", indent, f, indent);
    for (int32_t r = 0; r < static_cast<int32_t>(m.resources.size()); ++r) {
      int64_t n = nominal(f, r);
      fmt::format_to(it, "{}    - name: \"{}\"\n{}      nominalQuota: \"{}\"\n", indent,
                     m.resources[r], indent, FormatAmount(r, n));
      limits(f, r, n);
    }
  }
}

int64_t Ceil(double x) {
  return static_cast<int64_t>(std::ceil(x));
}

}  // namespace

namespace internal {

double Log(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;  // fdlibm's split of ln 2
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kSqrtHalf = 0.70710678118654752440;
  int e = 0;
  double m = std::frexp(x, &e);  // exact: x = m * 2^e, m in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2.0;
    --e;
  }
  // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716: the series converges fast.
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  double p = 1.0 / 27.0;
  for (int k = 12; k >= 0; --k) {
    p = 1.0 / (2 * k + 1) + s2 * p;
  }
  return e * kLn2Hi + (e * kLn2Lo + 2.0 * s * p);
}

double Exp(double x) {
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  constexpr double kInvLn2 = 1.44269504088896338700e+00;
  x = std::clamp(x, -700.0, 700.0);
  double k = std::floor(x * kInvLn2 + 0.5);
  double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= 0.35
  double p = 1.0;
  for (int n = 18; n >= 1; --n) {
    p = 1.0 + r * p / n;
  }
  return std::ldexp(p, static_cast<int>(k));  // exact scaling
}

size_t FormatRfc3339Micros(int64_t micros, char (&out)[32]) {
  return WriteRfc3339(micros, /*always_fraction=*/true, out);
}

}  // namespace internal

engine::Status ValidateSyntheticOptions(const SyntheticOptions& o) {
  if (o.workloads < 0 || o.workloads > 1'000'000'000) {
    return engine::InvalidArgument("--workloads: must be between 0 and 1000000000");
  }
  if (o.cluster_queues < 1 || o.cluster_queues > 1'000'000) {
    return engine::InvalidArgument("--cluster-queues: must be between 1 and 1000000");
  }
  if (o.cohort_depth < 0 || o.cohort_depth > 32) {
    return engine::InvalidArgument("--cohort-depth: must be between 0 and 32");
  }
  if (o.trees < 1 || o.trees > o.cluster_queues) {
    return engine::InvalidArgument("--trees: must be between 1 and --cluster-queues");
  }
  if (o.cohort_depth == 0 && o.trees != 1) {
    return engine::InvalidArgument("--trees: needs --cohort-depth of at least 1");
  }
  if (o.flavors < 1 || o.flavors > 64) {
    return engine::InvalidArgument(
        "--flavors: must be between 1 and 64 (Kueue's limit per resource group)");
  }
  if (o.resources < 1 || o.resources > 64) {
    return engine::InvalidArgument(
        "--resources: must be between 1 and 64 (Kueue's limit of covered resources)");
  }
  // Also rejects NaN.
  if (!(o.mean_interarrival_seconds >= 1e-6 && o.mean_interarrival_seconds <= 1e7)) {
    return engine::InvalidArgument("--mean-interarrival: must be between 1e-6 and 1e7 seconds");
  }
  if (!(o.mean_runtime_seconds >= 1e-3 && o.mean_runtime_seconds <= 1e7)) {
    return engine::InvalidArgument("--mean-runtime: must be between 0.001 and 1e7 seconds");
  }
  if (o.mean_runtime_seconds / o.mean_interarrival_seconds > 1e9) {
    return engine::InvalidArgument(
        "--mean-runtime / --mean-interarrival: more than 1e9 concurrent workloads");
  }
  if (o.start_micros < 0 || o.start_micros > 200'000'000'000'000'000LL) {
    return engine::InvalidArgument("--start: must be between 1970 and 8000");
  }
  return engine::Status::Ok();
}

SyntheticSummary GenerateSynthetic(const SyntheticOptions& o, std::string* manifests,
                                   const std::function<void(std::string_view)>& write_events) {
  SyntheticSummary summary;
  const Model m = BuildModel(o);
  const std::vector<Tree> trees = BuildTrees(o, m);
  double total_weight = m.queue_cumulative.back();

  // ---- Manifests ----
  fmt::memory_buffer out;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "# Generated by `tally generate --synthetic --seed {} --cluster-queues {} "
                 "--cohort-depth {} --trees {} --flavors {} --resources {} --mean-interarrival {} "
                 "--mean-runtime {}` (see docs/generate.md).\n",
                 o.seed, o.cluster_queues, o.cohort_depth, o.trees, o.flavors, o.resources,
                 o.mean_interarrival_seconds, o.mean_runtime_seconds);
  bool first = true;
  auto begin_doc = [&]() {
    fmt::format_to(it, "{}", first ? "" : "---\n");
    first = false;
    ++summary.objects;
  };
  for (size_t f = 0; f < m.flavor_share.size(); ++f) {
    begin_doc();
    fmt::format_to(it,
                   "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n"
                   "  name: flavor-{}\nspec:\n  nodeLabels:\n    tally.dev/flavor: flavor-{}\n",
                   f, f);
  }
  for (const PriorityClass& pc : kPriorityClasses) {
    begin_doc();
    fmt::format_to(it,
                   "apiVersion: kueue.x-k8s.io/v1beta2\nkind: WorkloadPriorityClass\nmetadata:\n"
                   "  name: {}\nvalue: {}\n",
                   pc.name, pc.value);
  }
  for (int32_t t = 0; t < static_cast<int32_t>(trees.size()); ++t) {
    const Tree& tree = trees[t];
    for (int32_t level = 0; level < static_cast<int32_t>(tree.level_size.size()); ++level) {
      for (int64_t j = 0; j < tree.level_size[level]; ++j) {
        begin_doc();
        ++summary.cohorts;
        fmt::format_to(it,
                       "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: {}\n",
                       CohortName(t, level, j));
        if (level > 0) {
          int64_t parent = j * tree.level_size[level - 1] / tree.level_size[level];
          fmt::format_to(it, "spec:\n  parentName: {}\n", CohortName(t, level - 1, parent));
        } else {
          // The root holds a shared pool: kCohortShare of the capacity, weighted by the tree.
          fmt::format_to(it, "spec:\n");
          AppendResourceGroup(
              out, m, "  ",
              [&](size_t f, int32_t r) {
                return Ceil(m.capacity[r] * kCohortShare * tree.weight / total_weight
                            * m.flavor_share[f]);
              },
              [](size_t, int32_t, int64_t) {});
        }
      }
    }
  }
  double queue_share = m.depth > 0 ? 1.0 - kCohortShare : 1.0;
  for (int32_t q = 0; q < o.cluster_queues; ++q) {
    begin_doc();
    fmt::format_to(it, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns-{}\n", q);
    begin_doc();
    bool in_cohort = m.depth > 0;
    bool borrow_limit = in_cohort && q % 3 == 1;
    bool lend_limit = in_cohort && q % 4 == 2;
    fmt::format_to(it,
                   "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n"
                   "  name: cq-{}\nspec:\n",
                   q);
    if (in_cohort) {
      fmt::format_to(it, "  cohortName: {}\n", LeafOf(trees, m.trees, q));
    }
    fmt::format_to(it,
                   "  namespaceSelector:\n    matchLabels:\n"
                   "      kubernetes.io/metadata.name: ns-{}\n  queueingStrategy: {}\n"
                   "  preemption:\n    reclaimWithinCohort: Any\n    withinClusterQueue: {}\n",
                   q, q % 7 == 0 ? "StrictFIFO" : "BestEffortFIFO",
                   q % 5 == 4 ? "LowerOrNewerEqualPriority" : "LowerPriority");
    if (in_cohort && q % 4 == 3) {
      fmt::format_to(it, "    borrowWithinCohort:\n      policy: LowerPriority\n");
    }
    double share = m.queue_weight[q] / total_weight * queue_share;
    AppendResourceGroup(
        out, m, "  ",
        [&](size_t f, int32_t r) {
          int64_t n = Ceil(m.capacity[r] * share * m.flavor_share[f]);
          return f == 0 ? std::max(n, LargestDemand(m, r)) : n;
        },
        [&](size_t, int32_t r, int64_t nominal) {
          if (borrow_limit) {
            fmt::format_to(it, "        borrowingLimit: \"{}\"\n", FormatAmount(r, nominal));
          }
          if (lend_limit) {
            fmt::format_to(it, "        lendingLimit: \"{}\"\n", FormatAmount(r, nominal / 2));
          }
        });
    begin_doc();
    fmt::format_to(it,
                   "apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n"
                   "  name: queue\n  namespace: ns-{}\nspec:\n  clusterQueue: cq-{}\n",
                   q, q);
  }
  manifests->assign(out.data(), out.size());
  summary.cluster_queues = o.cluster_queues;

  // ---- Events ----
  fmt::memory_buffer ev;
  ev.reserve(kChunkBytes + 4096);
  auto et = std::back_inserter(ev);
  fmt::format_to(et, "{{\"format\":\"tally.events\",\"version\":1}}\n");
  Rng rng(o.seed, 2);
  uint64_t tag_state = o.seed;
  uint32_t uid_tag = static_cast<uint32_t>(SplitMix64(tag_state) >> 32);
  const double mean_gap_us = o.mean_interarrival_seconds * 1e6;
  const double mu = -0.5 * kRuntimeSigma * kRuntimeSigma;
  int64_t now = o.start_micros;
  char time_text[32];
  for (int64_t n = 0; n < o.workloads; ++n) {
    now +=
        static_cast<int64_t>(std::floor(-mean_gap_us * internal::Log(1.0 - rng.Uniform()) + 0.5));
    size_t q = rng.Pick(m.queue_cumulative);
    const ActiveClass& c = m.classes[rng.Pick(m.class_cumulative)];
    const PriorityClass& pc = kPriorityClasses[rng.Pick(c.priority_cumulative)];
    double runtime = c.mean_runtime_ms * internal::Exp(mu + kRuntimeSigma * rng.Normal());
    int64_t runtime_ms =
        std::clamp<int64_t>(static_cast<int64_t>(std::floor(runtime + 0.5)), 1, 1'000'000'000'000);
    bool min_count = c.spec->min_count > 0 && rng.Uniform() < c.spec->min_count_fraction;
    size_t len = internal::FormatRfc3339Micros(now, time_text);
    fmt::format_to(et,
                   "{{\"type\":\"ADDED\",\"time\":\"{}\",\"runtime\":\"{}ms\",\"object\":{{"
                   "\"apiVersion\":\"kueue.x-k8s.io/v1beta2\",\"kind\":\"Workload\","
                   "\"metadata\":{{\"name\":\"wl-{}\",\"namespace\":\"ns-{}\","
                   "\"uid\":\"{:08x}-0000-4000-8000-{:012x}\","
                   "\"labels\":{{\"tally.dev/class\":\"{}\"}}}},"
                   "\"spec\":{{\"queueName\":\"queue\",\"priorityClassRef\":{{\"group\":"
                   "\"kueue.x-k8s.io\",\"kind\":\"WorkloadPriorityClass\",\"name\":\"{}\"}},"
                   "\"priority\":{},\"podSets\":[{{\"name\":\"main\",\"count\":{}",
                   std::string_view(time_text, len), runtime_ms, n, q, uid_tag,
                   static_cast<uint64_t>(n), c.spec->name, pc.name, pc.value, c.spec->pods);
    if (min_count) {
      fmt::format_to(et, ",\"minCount\":{}", c.spec->min_count);
    }
    fmt::format_to(et,
                   ",\"template\":{{\"spec\":{{\"containers\":[{{\"name\":\"c\",\"resources\":"
                   "{{\"requests\":{{{}}}}}}}]}}}}}}]}}}}}}\n",
                   c.requests_json);
    if (n == 0) {
      summary.first_event_micros = now;
    }
    if (ev.size() >= kChunkBytes) {
      write_events(std::string_view(ev.data(), ev.size()));
      summary.event_bytes += static_cast<int64_t>(ev.size());
      ev.clear();
    }
  }
  write_events(std::string_view(ev.data(), ev.size()));
  summary.event_bytes += static_cast<int64_t>(ev.size());
  summary.workloads = o.workloads;
  summary.last_event_micros = o.workloads > 0 ? now : 0;
  return summary;
}

}  // namespace replay
