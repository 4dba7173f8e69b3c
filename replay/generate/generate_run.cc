#include "replay/generate/generate_run.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>
#include <system_error>

#include "replay/generate/kueue_perf_generator.h"
#include "replay/io/time_parse.h"
#include "replay/io/unique_file.h"

namespace replay {
namespace {

constexpr int kExitInput = 1;
constexpr int kExitUsage = 2;
constexpr int64_t kDefaultStartMicros = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z

using File = UniqueFile;

// Opens `path` for writing, with a large stdio buffer (the events arrive in 1 MiB chunks).
File OpenOutput(const std::string& path) {
  File f(std::fopen(path.c_str(), "wb"));
  if (f == nullptr) {
    std::fprintf(stderr, "error: %s: cannot create: %s\n", path.c_str(),
                 std::generic_category().message(errno).c_str());
  }
  return f;
}

bool WriteAll(std::FILE* f, std::string_view data) {
  return std::fwrite(data.data(), 1, data.size(), f) == data.size();
}

// Flushes and closes; false (with a message) when anything failed.
bool Finish(File f, const std::string& path) {
  bool ok = std::ferror(f.get()) == 0;
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "error: %s: write failed: %s\n", path.c_str(),
                 std::generic_category().message(errno).c_str());
  }
  return ok;
}

int RunKueuePerf(const GenerateOptions& o, int64_t start, const std::string& manifests_path,
                 const std::string& events_path) {
  engine::StatusOr<KueuePerfConfig> config = LoadKueuePerfConfig(o.kueue_perf);
  if (!config.ok()) {
    std::fprintf(stderr, "error: %s\n", config.status().message().c_str());
    return kExitInput;
  }
  for (const std::string& w : config->warnings) {
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  }
  KueuePerfScenario s = GenerateKueuePerfScenario(*config, start);
  File m = OpenOutput(manifests_path);
  if (m == nullptr) {
    return kExitInput;
  }
  WriteAll(m.get(), s.manifests);
  if (!Finish(std::move(m), manifests_path)) {
    return kExitInput;
  }
  File e = OpenOutput(events_path);
  if (e == nullptr) {
    return kExitInput;
  }
  WriteAll(e.get(), s.events);
  if (!Finish(std::move(e), events_path)) {
    return kExitInput;
  }
  fmt::print(
      "wrote {} (1 ResourceFlavor, {} Cohorts, {} ClusterQueues, {} LocalQueues, {} Namespaces) "
      "and {} ({} workloads, {} to {})\n",
      manifests_path, s.cohorts, s.cluster_queues, s.local_queues, s.namespaces, events_path,
      s.workloads, s.workloads > 0 ? FormatRfc3339(s.first_event_micros) : "-",
      s.workloads > 0 ? FormatRfc3339(s.last_event_micros) : "-");
  return 0;
}

int RunSynthetic(const GenerateOptions& o, int64_t start, const std::string& manifests_path,
                 const std::string& events_path) {
  SyntheticOptions so = o.synthetic_options;
  so.start_micros = start;
  if (engine::Status st = ValidateSyntheticOptions(so); !st.ok()) {
    std::fprintf(stderr, "error: %s\n", st.message().c_str());
    return kExitUsage;
  }
  File e = OpenOutput(events_path);
  if (e == nullptr) {
    return kExitInput;
  }
  bool write_ok = true;
  std::string manifests;
  SyntheticSummary s = GenerateSynthetic(so, &manifests, [&](std::string_view chunk) {
    write_ok = WriteAll(e.get(), chunk) && write_ok;
  });
  if (!Finish(std::move(e), events_path) || !write_ok) {
    return kExitInput;
  }
  File m = OpenOutput(manifests_path);
  if (m == nullptr) {
    return kExitInput;
  }
  WriteAll(m.get(), manifests);
  if (!Finish(std::move(m), manifests_path)) {
    return kExitInput;
  }
  fmt::print(
      "wrote {} ({} objects: {} Cohorts, {} ClusterQueues) and {} ({} workloads, {} bytes, "
      "{} to {})\n",
      manifests_path, s.objects, s.cohorts, s.cluster_queues, events_path, s.workloads,
      s.event_bytes, s.workloads > 0 ? FormatRfc3339(s.first_event_micros) : "-",
      s.workloads > 0 ? FormatRfc3339(s.last_event_micros) : "-");
  return 0;
}

}  // namespace

int RunGenerate(const GenerateOptions& options) {
  if (options.synthetic == !options.kueue_perf.empty()) {
    std::fprintf(stderr, "error: give exactly one of --kueue-perf FILE and --synthetic\n");
    return kExitUsage;
  }
  int64_t start = kDefaultStartMicros;
  if (!options.start.empty()) {
    engine::StatusOr<int64_t> parsed = ParseRfc3339(options.start);
    if (!parsed.ok()) {
      std::fprintf(stderr, "error: --start: %s\n", parsed.status().message().c_str());
      return kExitUsage;
    }
    start = *parsed;
    if (start < 0) {
      std::fprintf(stderr, "error: --start: must not be before 1970-01-01T00:00:00Z\n");
      return kExitUsage;
    }
  }
  std::error_code ec;
  std::filesystem::create_directories(options.out, ec);
  if (ec) {
    std::fprintf(stderr, "error: %s: cannot create the output directory: %s\n", options.out.c_str(),
                 ec.message().c_str());
    return kExitInput;
  }
  std::string manifests_path = (std::filesystem::path(options.out) / "manifests.yaml").string();
  std::string events_path = (std::filesystem::path(options.out) / "events.jsonl").string();
  return options.synthetic ? RunSynthetic(options, start, manifests_path, events_path)
                           : RunKueuePerf(options, start, manifests_path, events_path);
}

}  // namespace replay
