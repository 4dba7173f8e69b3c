// Google Benchmark: the parse floor of a replay (issue 22). One simdjson On-Demand pass over a
// tally.events/v1 trace in memory that extracts only what a replay needs from each line: `type`,
// `time` (the RFC 3339 string, not converted), `runtime` if present, and of the Workload object
// metadata.name, metadata.namespace, spec.queueName, spec.priority and, per podSet, its count and
// its containers' requests (resource name and quantity string). No engine, no manifest rules, no
// time or quantity parsing, no file I/O, no validation beyond what On-Demand does on the way:
// a replay of the same trace cannot read it faster than this, so it is the floor that
// `scripts/bench-replay --only issue22` holds the whole replay against (and bench/trace_parse_only,
// which reads the file too, is its on-disk counterpart).
//
// Fixtures, generated once in process with the synthetic generator (the same bytes as
// `tally generate --synthetic ... --workloads 20000`): the moderate trace shape
// (--trees 20 --cluster-queues 200 --mean-interarrival 10 --seed 7) and its 16-tree shape
// (--trees 16 --cluster-queues 160 --flavors 3 --resources 4 --mean-interarrival 2 --seed 7).
// One ondemand::parser is reused for every line, as the replay's reader does. Every event line is
// checked to yield the fields before timing. items/s = events/s; bytes/s over the whole trace.
//
//   build/bench/trace_parse_floor_bench --benchmark_repetitions=5
//   --benchmark_report_aggregates_only
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <simdjson.h>

#include "replay/generate/synthetic_generator.h"
#include "replay/io/ondemand_walk.h"

namespace {

namespace od = simdjson::ondemand;
using replay::ondemand_walk::ForEachField;
using replay::ondemand_walk::ForEachItem;
using replay::ondemand_walk::RawView;
using simdjson::SUCCESS;

constexpr int64_t kWorkloads = 20'000;

struct Trace {
  simdjson::padded_string text;  // the whole trace, header line included
  int64_t lines = 0;
};

// What the floor extracts from one line; views into the trace or the parser's buffers.
struct Extracted {
  std::string_view type;
  std::string_view time;
  std::string_view runtime;  // empty when absent; a string's bytes or a number's token
  std::string_view name;
  std::string_view name_space;
  std::string_view queue;
  int64_t priority = 0;
  int64_t pod_sets = 0;
  int64_t pods = 0;  // sum of the podSets' counts
  std::vector<std::pair<std::string_view, std::string_view>> requests;  // reused across lines

  void Clear() {
    type = time = runtime = name = name_space = queue = {};
    priority = pod_sets = pods = 0;
    requests.clear();
  }
};

bool String(od::value value, std::string_view& out) {
  od::raw_json_string raw;
  if (value.get_raw_json_string().get(raw) != SUCCESS) {
    return false;
  }
  out = RawView(raw);
  return true;
}

// podSets[i].template.spec.containers[j].resources.requests
bool Containers(od::value value, Extracted& out) {
  return ForEachItem(value, [&](od::value container) {
    return ForEachField(container, [&](std::string_view key, od::value field) {
      if (key != "resources") {
        return true;
      }
      return ForEachField(field, [&](std::string_view rkey, od::value list) {
        if (rkey != "requests") {
          return true;
        }
        return ForEachField(list, [&](std::string_view resource, od::value quantity) {
          std::string_view amount;
          if (!String(quantity, amount)) {
            return false;
          }
          out.requests.emplace_back(resource, amount);
          return true;
        });
      });
    });
  });
}

bool PodSets(od::value value, Extracted& out) {
  return ForEachItem(value, [&](od::value pod_set) {
    ++out.pod_sets;
    return ForEachField(pod_set, [&](std::string_view key, od::value field) {
      if (key == "count") {
        int64_t count = 0;
        if (field.get_int64().get(count) != SUCCESS) {
          return false;
        }
        out.pods += count;
        return true;
      }
      if (key != "template") {
        return true;
      }
      return ForEachField(field, [&](std::string_view tkey, od::value spec) {
        if (tkey != "spec") {
          return true;
        }
        return ForEachField(spec, [&](std::string_view skey, od::value containers) {
          return skey != "containers" || Containers(containers, out);
        });
      });
    });
  });
}

bool Workload(od::value value, Extracted& out) {
  return ForEachField(value, [&](std::string_view key, od::value field) {
    if (key == "metadata") {
      return ForEachField(field, [&](std::string_view mkey, od::value item) {
        if (mkey == "name") {
          return String(item, out.name);
        }
        if (mkey == "namespace") {
          return String(item, out.name_space);
        }
        return true;
      });
    }
    if (key == "spec") {
      return ForEachField(field, [&](std::string_view skey, od::value item) {
        if (skey == "queueName") {
          return String(item, out.queue);
        }
        if (skey == "priority") {
          return item.get_int64().get(out.priority) == SUCCESS;
        }
        if (skey == "podSets") {
          return PodSets(item, out);
        }
        return true;
      });
    }
    return true;
  });
}

// One trace line; false when it is not a JSON object or a wanted field has another type.
bool ParseLine(od::parser& parser, simdjson::padded_string_view line, Extracted& out) {
  out.Clear();
  od::document doc;
  od::object obj;
  if (parser.iterate(line).get(doc) != SUCCESS || doc.get_object().get(obj) != SUCCESS) {
    return false;
  }
  for (auto result : obj) {
    od::field field;
    if (std::move(result).get(field) != SUCCESS) {
      return false;
    }
    std::string_view key = RawView(field.key());
    od::value value = field.value();
    bool ok = true;
    if (key == "type") {
      ok = String(value, out.type);
    } else if (key == "time") {
      ok = String(value, out.time);
    } else if (key == "runtime") {
      if (!String(value, out.runtime)) {
        out.runtime = value.raw_json_token();  // a number of seconds
      }
      ok = !out.runtime.empty();
    } else if (key == "object") {
      ok = Workload(value, out);
    }
    if (!ok) {
      return false;
    }
  }
  return true;
}

// Calls f(line view) for each non-empty line of `trace`.
template <typename F>
void ForEachLine(const simdjson::padded_string& trace, F&& f) {
  const char* data = trace.data();
  const size_t size = trace.size();
  size_t begin = 0;
  while (begin < size) {
    const void* nl = std::memchr(data + begin, '\n', size - begin);
    size_t end = nl == nullptr ? size : static_cast<size_t>(static_cast<const char*>(nl) - data);
    if (end > begin) {
      f(simdjson::padded_string_view(data + begin, end - begin,
                                     size - begin + simdjson::SIMDJSON_PADDING));
    }
    begin = end + 1;
  }
}

Trace Generate(const replay::SyntheticOptions& options) {
  std::string events;
  std::string manifests;
  replay::GenerateSynthetic(options, &manifests,
                            [&events](std::string_view chunk) { events.append(chunk); });
  Trace trace;
  trace.text = simdjson::padded_string(events);
  ForEachLine(trace.text, [&trace](simdjson::padded_string_view) { ++trace.lines; });
  return trace;
}

const Trace& Fixture(bool sixteen) {
  static const Trace moderate = [] {
    replay::SyntheticOptions o;  // the CLI's defaults for the flags not given
    o.workloads = kWorkloads;
    o.trees = 20;
    o.cluster_queues = 200;
    o.mean_interarrival_seconds = 10;
    o.seed = 7;
    return Generate(o);
  }();
  static const Trace sixteen_trees = [] {
    replay::SyntheticOptions o;
    o.workloads = kWorkloads;
    o.trees = 16;
    o.cluster_queues = 160;
    o.flavors = 3;
    o.resources = 4;
    o.mean_interarrival_seconds = 2;
    o.seed = 7;
    return Generate(o);
  }();
  return sixteen ? sixteen_trees : moderate;
}

// The number of events (lines with a `type`), or -1 (and the benchmark marked failed) unless
// every line parses and every event yields a whole Workload.
int64_t Verify(benchmark::State& state, const Trace& trace) {
  od::parser parser;
  Extracted out;
  int64_t events = 0;
  bool ok = true;
  ForEachLine(trace.text, [&](simdjson::padded_string_view line) {
    if (!ParseLine(parser, line, out)) {
      ok = false;
    } else if (!out.type.empty()) {
      ++events;
      ok = ok && !out.time.empty() && !out.runtime.empty() && !out.name.empty()
           && !out.name_space.empty() && !out.queue.empty() && out.pod_sets > 0 && out.pods > 0
           && !out.requests.empty();
    }
  });
  if (!ok || events != kWorkloads) {
    state.SkipWithError("a fixture line does not yield the replay's fields");
    return -1;
  }
  return events;
}

void Run(benchmark::State& state, bool sixteen) {
  const Trace& trace = Fixture(sixteen);
  const int64_t events = Verify(state, trace);
  if (events < 0) {
    return;
  }
  od::parser parser;
  Extracted out;
  for (auto _ : state) {    // NOLINT(clang-analyzer-deadcode.DeadStores)
    uint64_t checksum = 0;  // keeps the extraction from being optimised away
    ForEachLine(trace.text, [&](simdjson::padded_string_view line) {
      bool ok = ParseLine(parser, line, out);
      checksum += static_cast<uint64_t>(ok) + out.type.size() + out.time.size() + out.runtime.size()
                  + out.name.size() + out.name_space.size() + out.queue.size()
                  + static_cast<uint64_t>(out.priority + out.pods) + out.requests.size();
      for (const auto& [resource, amount] : out.requests) {
        checksum += resource.size() * 31 + amount.size();
      }
    });
    benchmark::DoNotOptimize(checksum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * events);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations())
                          * static_cast<int64_t>(trace.text.size()));
  state.counters["events"] = static_cast<double>(events);
  state.counters["lines"] = static_cast<double>(trace.lines);
  state.counters["traceBytes"] = static_cast<double>(trace.text.size());
}

void BM_TraceParseFloor_Moderate(benchmark::State& state) {
  Run(state, false);
}
void BM_TraceParseFloor_SixteenTrees(benchmark::State& state) {
  Run(state, true);
}

BENCHMARK(BM_TraceParseFloor_Moderate)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TraceParseFloor_SixteenTrees)->Unit(benchmark::kMillisecond);

}  // namespace
