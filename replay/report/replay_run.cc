#include "replay/report/replay_run.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "engine/base/phase_profile.h"
#include "replay/io/parallel_for.h"
#include "replay/io/staged_output_dir.h"
#include "replay/io/text_file.h"
#include "replay/io/time_parse.h"
#include "replay/io/unique_file.h"
#include "replay/report/profile_report.h"
#include "replay/report/report_writers.h"
#include "replay/sim/admission_verify.h"
#include "replay/sim/cluster_state.h"
#include "replay/sim/decision_output.h"
#include "replay/sim/simulator.h"
#include "replay/sim/trace_ties.h"

namespace replay {
namespace {

// SIGINT / SIGTERM during a replay: the replay stops after its current batch and writes what it
// has, marked incomplete. A second signal is not caught (the handler restores the default): it
// ends the process at once, leaving the previous outputs in place (staged_output_dir.h).
std::atomic<bool> g_stop_requested{false};

extern "C" void RequestStop(int signal_number) {
  g_stop_requested.store(true, std::memory_order_relaxed);
  std::signal(signal_number, SIG_DFL);
}

// Installs RequestStop for SIGINT and SIGTERM while at least one replay runs: `tally sweep` runs
// several replays at once, and one signal stops them all (the first to start installs the
// handlers, the last to end restores the previous ones). The request is never cleared: a replay
// started after it (a later sweep variant) stops after its first batch too.
class StopOnSignal {
 public:
  StopOnSignal() {
    Shared& shared = State();
    const std::lock_guard<std::mutex> lock(shared.mutex);
    if (shared.users++ == 0) {
      shared.previous_int = std::signal(SIGINT, RequestStop);
      shared.previous_term = std::signal(SIGTERM, RequestStop);
    }
  }
  ~StopOnSignal() {
    Shared& shared = State();
    const std::lock_guard<std::mutex> lock(shared.mutex);
    if (--shared.users == 0) {
      std::signal(SIGINT, shared.previous_int);
      std::signal(SIGTERM, shared.previous_term);
    }
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  StopOnSignal(StopOnSignal&&) = delete;
  StopOnSignal& operator=(StopOnSignal&&) = delete;

 private:
  // What every StopOnSignal of the process shares: how many are alive, and the handlers the
  // first one replaced.
  struct Shared {
    std::mutex mutex;
    int users = 0;
    void (*previous_int)(int) = SIG_DFL;
    void (*previous_term)(int) = SIG_DFL;
  };
  static Shared& State() {
    static Shared shared;
    return shared;
  }
};

// Keeps `object` alive until the process exits, never destroyed: the command line replays once
// and exits, and freeing the shards' workloads, queues and memos one by one took 25 ms of a
// 0.4 s Kueue large-scale replay (most of it cache misses). The pointer stays reachable from a
// static, so LeakSanitizer does not report it.
template <typename T>
void KeepUntilExit(std::unique_ptr<T> object) {
  static std::mutex mutex;
  static auto* kept = new std::vector<const void*>();  // never destroyed either
  std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(object.release());
}

bool ParseDurationFlag(const char* flag, const std::string& text, int64_t& out) {
  engine::StatusOr<int64_t> d = ParseGoDuration(text);
  if (!d.ok()) {
    std::fprintf(stderr, "error: %s: %s\n", flag, d.status().message().c_str());
    return false;
  }
  out = *d;
  return true;
}

}  // namespace

int RunReplay(const ReplayOptions& options) {
  if (options.profile) {
    engine::PhaseProfile::Enable();
  }
  const ProfileClock profile_clock;  // cheap; read only with --profile
  engine::PhaseScope profile_run(engine::Phase::kOther);
  SimulatorOptions sim;
  sim.strict = options.strict;
  sim.timings = !options.no_timings;
  sim.progress = options.progress && !options.quiet;  // -q: nothing but errors
  sim.progress_tty = isatty(fileno(stderr)) != 0;
  if (!ParseDurationFlag("--pods-ready-delay", options.pods_ready_delay, sim.pods_ready_delay)
      || !ParseDurationFlag("--admission-check-delay", options.admission_check_delay,
                            sim.admission_check_delay)) {
    return 2;
  }
  if (options.control_plane) {
    ControlPlaneModel& cp = sim.control_plane;
    cp.enabled = true;
    cp.max_admissions_per_second = options.max_admissions_per_second;
    if (!ParseDurationFlag("--admit-to-running", options.admit_to_running, cp.admit_to_running)
        || !ParseDurationFlag("--finish-to-release", options.finish_to_release,
                              cp.finish_to_release)
        || !ParseDurationFlag("--cycle-duration", options.cycle_duration, cp.cycle_duration)) {
      return 2;
    }
  }
  if (options.until) {
    engine::StatusOr<int64_t> t = ParseRfc3339(*options.until);
    if (!t.ok()) {
      std::fprintf(stderr, "error: --until: %s\n", t.status().message().c_str());
      return 2;
    }
    sim.until = *t;
  }
  ClusterStateOptions state_options;
  state_options.files = options.manifests;
  state_options.feature_gates = options.feature_gates;
  state_options.scheduler.cohort_generation_resets_scan = !options.kueue_scan_reset;
  state_options.scheduler.nomination_memo =
      options.nomination_memo == "off"      ? engine::NominationMemoMode::kOff
      : options.nomination_memo == "verify" ? engine::NominationMemoMode::kVerify
                                            : engine::NominationMemoMode::kOn;
  state_options.scheduler = ReplaySchedulerOptions(state_options.scheduler);
  sim.scheduler = state_options.scheduler;
  sim.threads = options.threads;
  sim.parallel_nomination_min_heads = options.parallel_nomination_min_heads;
  sim.max_line_bytes = options.max_line_bytes;
  sim.events_in_flight = options.events_in_flight;
  // The whole configuration is built once to check it (and the manifests' Workloads) as
  // `tally validate` would; the replay then builds one engine per shard from the manifests.
  // Large manifests are parsed on the replay's threads (replay/io/yaml_documents.h).
  tbb::task_arena load_arena(options.threads > 0
                                 ? std::min(options.threads, tbb::info::default_concurrency())
                                 : tbb::task_arena::automatic);
  // With two threads or more, a trace that needs a first pass (replay/sim/trace_ties.h: one
  // larger than SimulatorOptions::plan_from_manifests_max_bytes, or an --until or --strict run)
  // has it while the manifests load, since it needs nothing of them: on Kueue's large-scale
  // scenario both took about 80 ms, one after the other, with the second core mostly idle. A
  // smaller trace is read once, planned from the manifests (PlansFromManifests): on the 1,000,000
  // workload moderate trace the pass took a second before the replay could start, since its
  // manifests load in a few milliseconds. Standard input is spooled by the replay first and is
  // not read here; manifests with errors stop the pass.
  std::optional<TraceTies> ties;
  const bool scan_while_loading = load_arena.max_concurrency() > 1 && options.events != "-"
                                  && !PlansFromManifests(sim, options.events);
  // On the heap: with options.teardown off, kept until the process exits (KeepUntilExit).
  // The two run as the two items of a ParallelFor (replay/io/parallel_for.h), whose ThreadSanitizer
  // build uses threads TSan sees: oneTBB's own synchronisation is not instrumented.
  auto state = std::make_unique<ClusterState>(load_arena.execute([&] {
    if (!scan_while_loading) {
      return BuildClusterState(state_options);
    }
    std::atomic<bool> cancel{false};
    std::optional<ClusterState> loaded;
    ParallelFor(load_arena, 2, 1, [&](size_t, size_t item) {
      if (item == 0) {
        loaded.emplace(BuildClusterState(state_options));
        cancel.store(!loaded->ok(), std::memory_order_relaxed);
      } else {
        ties =
            ScanTraceTies(options.events, load_arena, sim.batch_lines, sim.max_line_bytes, &cancel);
      }
    });
    return std::move(*loaded);
  }));
  if (!state->ok()) {
    PrintLoadErrors(*state);
    return 1;
  }
  // All or nothing: the files go to a staging directory beside --out and replace the previous
  // outputs only once all are written (replay/io/staged_output_dir.h).
  StagedOutputDir staged;
  if (std::string error; !staged.Open(options.out, error)) {
    std::fprintf(stderr, "error: %s\n", error.c_str());
    return 1;
  }
  const std::filesystem::path out = staged.path();
  // Closed after the DecisionLog writing it is gone, on every return.
  UniqueFile decisions_file(std::fopen((out / "decisions.jsonl").c_str(), "wb"));
  std::FILE* decisions = decisions_file.get();
  if (decisions == nullptr) {
    std::fprintf(stderr, "error: cannot write %s\n", (out / "decisions.jsonl").c_str());
    return 1;
  }
  ReplayReport report;
  report.manifest_files = options.manifests;
  bool completed = false;
  const StopOnSignal stop_on_signal;
  sim.stop = &g_stop_requested;
  {
    DecisionLog log(decisions);
    auto simulator = std::make_unique<Simulator>(state->load, sim, &log);
    if (ties.has_value()) {
      simulator->UseTraceTies(std::move(*ties));
    }
    engine::StatusOr<bool> run = simulator->Run(options.events, report);
    if (!run.ok()) {
      std::fprintf(stderr, "error: %s\n", run.status().message().c_str());
      return 1;
    }
    completed = *run;
    // Every line in the file before the reports that name the run id: a full disk fails the run
    // here rather than leaving a short decisions.jsonl behind reports that look complete.
    if (std::string error; !log.Close(error)) {
      std::fprintf(stderr, "error: cannot write %s: %s\n", (out / "decisions.jsonl").c_str(),
                   error.c_str());
      return 1;
    }
    report.run_id = log.RunId();
    if (!options.teardown) {
      KeepUntilExit(std::move(simulator));
    }
  }
  for (const LoadError& w : state->load.warnings) {
    report.warnings.push_back(w.ToString());
  }
  if (!options.teardown) {
    KeepUntilExit(std::move(state));
  }
  decisions_file.reset();
  bool written = false;
  {
    // report.html, metrics.prom and report.json are formatted and written side by side, each
    // reading the finished report. With --profile, report.json comes after the other two: it
    // holds the profile, which counts their time. On Kueue's large-scale scenario the three take
    // about 76, 43 and 42 M instructions (callgrind, 2026-12-02), so on two threads report.html
    // runs beside the other two (bench/report_writers_bench times each).
    const bool json_beside = !options.profile;
    bool html_written = false;
    bool prometheus_written = false;
    bool json_written = false;
    ParallelFor(
        load_arena, json_beside ? 3 : 2, 1,
        [&](size_t, size_t item) {
          if (item == 0) {
            html_written = WriteTextFile(out / "report.html", FormatReportHtml(report));
          } else if (item == 1) {
            prometheus_written = WriteTextFile(out / "metrics.prom", FormatPrometheus(report));
          } else {
            json_written = WriteTextFile(out / "report.json", FormatReportJson(report));
          }
        },
        engine::Phase::kOutput);
    if (!json_beside) {
      engine::PhaseScope profile_output(engine::Phase::kOutput);
      // Everything but report.json's own formatting and its write is counted.
      report.profile = BuildProfileReport(engine::PhaseProfile::Collect(), profile_clock, report);
      json_written = WriteTextFile(out / "report.json", FormatReportJson(report));
    }
    written = html_written && prometheus_written && json_written;
  }
  if (report.profile) {
    std::fputs(FormatProfileTable(*report.profile).c_str(), stderr);
  }
  if (!options.quiet) {
    std::fputs(FormatSummaryText(report).c_str(), stdout);
    std::fprintf(stderr, "wrote %s/{decisions.jsonl,report.json,report.html,metrics.prom}\n",
                 options.out.c_str());
  }
  int status = 0;
  if (report.interrupted) {
    std::fprintf(stderr,
                 "interrupted: stopped after %lld events; the outputs are marked incomplete "
                 "(report.json \"complete\": false; tally diff and gate refuse them)\n",
                 static_cast<long long>(report.events_read));
    if (written) {
      if (std::string error; !staged.Commit(error)) {
        std::fprintf(stderr, "error: %s\n", error.c_str());
      }
    }
    return 130;  // 128 + SIGINT, as a shell reports a Ctrl-C
  }
  if (report.nomination_memo.mismatches > 0) {
    std::fprintf(stderr,
                 "error: --nomination-memo verify: %llu kept nominations differed from a fresh "
                 "one (a bug: please report it with the trace)\n",
                 static_cast<unsigned long long>(report.nomination_memo.mismatches));
    status = 1;
  } else if (!completed) {
    std::fprintf(stderr, "error: stopped at the first rejected event (--strict): %s\n",
                 report.errors.empty() ? "?" : report.errors.back().c_str());
    status = 1;
  } else if (!written) {
    return 1;  // the previous outputs stay as they were
  } else if (!options.verify.empty()) {
    engine::StatusOr<AdmissionVerification> v =
        VerifyAdmissions(options.verify, (out / "decisions.jsonl").string());
    if (!v.ok()) {
      std::fprintf(stderr, "error: --verify: %s\n", v.status().message().c_str());
      return 1;
    }
    const std::string text = FormatVerification(*v);
    if (!WriteTextFile(out / "verify.txt", text)) {
      return 1;
    }
    std::fputs(text.c_str(), stdout);
    status = v->differences.empty() ? 0 : 1;
  }
  // A complete set of outputs, even of a run that ends in an error (--strict, a verification
  // difference): they describe that run consistently.
  if (written) {
    if (std::string error; !staged.Commit(error)) {
      std::fprintf(stderr, "error: %s\n", error.c_str());
      return 1;
    }
  }
  return status;
}

}  // namespace replay
