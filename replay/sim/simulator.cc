#include "replay/sim/simulator.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "engine/base/phase_profile.h"
#include "engine/shard/shard_plan.h"
#include "replay/io/parallel_for.h"
#include "replay/io/parallel_reader.h"
#include "replay/io/spooled_stdin.h"
#include "replay/io/time_parse.h"
#include "replay/sim/final_lines.h"
#include "replay/sim/latency_histogram.h"
#include "replay/sim/line_chunk_pool.h"
#include "replay/sim/local_queue_routes.h"
#include "replay/sim/progress_bar.h"
#include "replay/sim/replay_stats.h"
#include "replay/sim/routed_batch.h"
#include "replay/sim/shard_pipeline.h"
#include "replay/sim/sharded_replay.h"
#include "replay/sim/time_slices.h"
#include "replay/sim/trace_ties.h"

namespace replay {
namespace {

using engine::TimeMicros;

constexpr TimeMicros kNever = std::numeric_limits<TimeMicros>::max();
// Batches in flight at first (ShardPipeline adapts the limit up to the window).
constexpr int64_t kStartWindowBatches = 2;

int64_t PeakRssBytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

engine::SchedulerOptions ReplaySchedulerOptions(engine::SchedulerOptions options) {
  options.defer_victim_release = true;
  options.explain = false;  // no decision line shows the flavor assigner's reasons
  return options;
}

bool PlansFromManifests(const SimulatorOptions& options, const std::string& path) {
  if (options.until || options.strict || path == "-") {
    return false;
  }
  std::error_code ec;
  const auto bytes =
      std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  return !ec && bytes > 0 && bytes <= options.plan_from_manifests_max_bytes;
}

bool ModelCouplesShards(const SimulatorOptions& options, const engine::ClusterSpec& manifests) {
  const ControlPlaneModel& cp = options.control_plane;
  bool shared_control_plane =
      cp.enabled && (cp.cycle_duration > 0 || cp.max_admissions_per_second > 0);
  return shared_control_plane || manifests.configuration.wait_for_pods_ready.block_admission;
}

struct Simulator::Impl {
  Impl(const LoadResult& m, const SimulatorOptions& o, DecisionLog* l)
      : manifests(m), options(o), log(l) {}

  const LoadResult& manifests;
  SimulatorOptions options;
  DecisionLog* log;
  std::unique_ptr<ShardedReplay> engine;
  std::optional<TraceTies> ties;  // the first pass, when made before Run
  // Set by Run when the plan made from the manifests alone proved wrong: what the trace's lines
  // tie, for Simulator::Run to replay again with (as a first pass made beforehand).
  std::optional<TraceTies> replan;
  bool replayed_twice = false;

  // Writes the shards' decision lines older than `before`, merged by (time, shard, order in the
  // shard), and returns how many. Every shard has been advanced to `before`: nothing older can
  // come any more.
  size_t FlushLines(TimeMicros before) {
    if (log == nullptr) {
      return 0;
    }
    // Reused from one flush to the next, with the shards' buffers they trade (ShardLog).
    flushed_.resize(static_cast<size_t>(engine->num_shards()));
    size_t lines = 0;
    for (int k = 0; k < engine->num_shards(); ++k) {
      ShardLog& taken = flushed_[static_cast<size_t>(k)];
      engine->With(k, [&](ShardSimulator& s) { s.log().TakeBefore(before, taken); });
      lines += taken.size();
    }
    WriteLines(flushed_);
    return lines;
  }

  // Writes lines the shards handed over up to one instant, merged by (time, shard, order in the
  // shard), and empties `taken` (keeping its buffers).
  void WriteLines(std::vector<ShardLog>& taken) {
    if (log == nullptr) {
      return;
    }
    engine::PhaseScope profile(engine::Phase::kOutput);
    size_t lines = 0;
    for (const ShardLog& t : taken) {
      lines += t.size();
    }
    largest_flush = std::max(largest_flush, lines);
    MergeByTime(taken, heads_, [&](std::string_view line) { log->Write(line); });
    for (ShardLog& t : taken) {
      t.Clear();
    }
  }
  std::vector<ShardLog> flushed_;  // FlushLines' logs, by shard
  std::vector<MergeHead> heads_;   // WriteLines: the shards' next lines (MergeByTime's heap)
  size_t largest_flush = 0;        // the most lines WriteLines wrote at once

  engine::StatusOr<bool> Run(const std::string& path, ReplayReport& report);
};

Simulator::Simulator(const LoadResult& manifests, const SimulatorOptions& options, DecisionLog* log)
    : impl_(std::make_unique<Impl>(manifests, options, log)) {}

Simulator::~Simulator() = default;

void Simulator::UseTraceTies(TraceTies ties) {
  impl_->ties = std::move(ties);
}

int Simulator::num_shards() const {
  return impl_->engine ? impl_->engine->num_shards() : 0;
}

bool Simulator::replayed_twice() const {
  return impl_->replayed_twice;
}

size_t Simulator::largest_flush() const {
  return impl_->largest_flush;
}

int64_t Simulator::live_workloads() const {
  int64_t live = 0;
  for (int k = 0; k < num_shards(); ++k) {
    live += impl_->engine->With(k, [](ShardSimulator& s) { return s.live_workloads(); });
  }
  return live;
}

engine::StatusOr<bool> Simulator::Run(const std::string& events_path, ReplayReport& report) {
  SpooledStdin spool;
  std::string path = events_path;
  if (events_path == "-") {
    if (engine::Status s = spool.Spool(); !s.ok()) {
      return s;
    }
    path = spool.path();
  }
  const ReplayReport given = report;
  engine::StatusOr<bool> completed = impl_->Run(path, report);
  if (completed.ok() && impl_->replan.has_value()) {
    // The trace ties trees the manifests do not: everything again with the plan its lines gave.
    impl_->ties = std::move(impl_->replan);
    impl_->replan.reset();
    impl_->replayed_twice = true;
    report = given;
    if (impl_->log != nullptr && !impl_->log->Restart()) {
      return engine::InvalidArgument(
          fmt::format("cannot rewrite the decisions: {}",
                      std::error_code(errno, std::generic_category()).message()));
    }
    completed = impl_->Run(path, report);
  }
  report.events_file = events_path;
  return completed;
}

engine::StatusOr<bool> Simulator::Impl::Run(const std::string& path, ReplayReport& report) {
  auto wall_start = std::chrono::steady_clock::now();
  // More threads than cores is allowed (the determinism tests oversubscribe on purpose): TBB
  // caps its workers at the core count unless told otherwise.
  std::optional<tbb::global_control> oversubscribe;
  if (options.threads > tbb::info::default_concurrency()) {
    oversubscribe.emplace(tbb::global_control::max_allowed_parallelism,
                          static_cast<size_t>(options.threads));
  }
  tbb::task_arena arena(options.threads > 0 ? options.threads : tbb::task_arena::automatic);

  // Pass 1: which trees the trace ever ties together (replay/sim/trace_ties.h), unless it was
  // read already (UseTraceTies). The planner holds an entry per Workload name of the trace: it
  // is gone before the replay starts.
  //
  // Or no first pass: a trace file up to SimulatorOptions::plan_from_manifests_max_bytes is
  // planned from the manifests alone, and the replay adds what each of its lines ties to
  // `trace_planner`, read as the first pass reads them (PlanLine). If the two plans differ at
  // the end, nothing of this run is kept: Simulator::Run replays again with the trace's plan.
  // When they are equal, every event was routed as the trace's plan routes it: the same run.
  const bool single = ModelCouplesShards(options, manifests.spec);
  const bool prescanned = ties.has_value() && ties->path == path;
  std::optional<engine::ShardPlanner> trace_planner;
  if (!single && !prescanned && (log == nullptr || log->restartable())
      && PlansFromManifests(options, path)) {
    trace_planner.emplace();
  }
  engine.reset();  // a second run's engine is built without the first's beside it
  engine::StatusOr<engine::ShardPlan> shard_plan = [&]() -> engine::StatusOr<engine::ShardPlan> {
    engine::ShardPlanner planner;
    if (trace_planner.has_value()) {
      // Planned from the manifests alone (below).
    } else if (!single && prescanned) {
      if (!ties->status.ok()) {
        return ties->status;
      }
      planner = std::move(ties->planner);
    } else if (!single) {
      if (engine::Status s =
              AddTraceTies(path, arena, options.batch_lines, options.max_line_bytes, planner);
          !s.ok()) {
        return s;
      }
    }
    ties.reset();
    planner.AddManifests(manifests.spec);
    return planner.Build(single);
  }();
  if (!shard_plan.ok()) {
    return shard_plan.status();
  }
  engine = std::make_unique<ShardedReplay>(manifests, std::move(shard_plan).value(), options,
                                           log != nullptr, &arena);
  const int n = engine->num_shards();
  const engine::ShardPlan& plan = engine->plan();
  LocalQueueRoutes routes(plan, trace_planner.has_value() ? &*trace_planner : nullptr);
  // Heads of a large cycle are nominated on the same threads as the shards (nested loops).
  ArenaLoop nomination_loop(arena);
  class LoopGuard {
   public:
    explicit LoopGuard(ShardedReplay& engine) : engine_(engine) {}
    LoopGuard(const LoopGuard&) = delete;
    LoopGuard& operator=(const LoopGuard&) = delete;
    LoopGuard(LoopGuard&&) = delete;
    LoopGuard& operator=(LoopGuard&&) = delete;
    ~LoopGuard() {
      for (int k = 0; k < engine_.num_shards(); ++k) {
        engine_.With(k, [](ShardSimulator& s) { s.SetNominationLoop(nullptr, 0); });
      }
    }

   private:
    ShardedReplay& engine_;
  } loop_guard(*engine);
  for (int k = 0; k < n; ++k) {
    engine->With(k, [&](ShardSimulator& s) {
      s.SetNominationLoop(&nomination_loop, options.parallel_nomination_min_heads);
    });
  }

  // Pass 2: the replay. --strict reads one line at a time: nothing after the first rejected
  // line may be applied, so it keeps one batch in flight.
  ParallelEventReader reader(arena, options.strict ? 1 : options.batch_lines);
  reader.set_max_line_bytes(options.max_line_bytes);
  reader.set_error_ties(trace_planner.has_value());
  if (engine::Status s = reader.Open(path); !s.ok()) {
    return s;
  }
  ProgressBar progress(options.progress && path != "-", options.progress_tty, path);
  auto reject = [&](const EventError& e) {
    ++report.events_rejected;
    ++report.rejected_by_reason[ToString(e.reason)];
    if (report.errors.size() < ReplayReport::kMaxListedErrors) {
      report.errors.push_back(e.ToString());
    } else {
      ++report.errors_not_listed;
    }
  };
  bool started = false;
  bool stopped = false;
  auto start = [&](TimeMicros t) {
    started = true;
    ForEachShard(*engine, arena, [&](int, ShardSimulator& s) { s.Start(t); });
  };
  // How many batches the shards may be spread over. One thread has no one to run ahead: a
  // wider window would only hold parsed events longer.
  const int64_t window =
      options.strict || arena.max_concurrency() <= 1
          ? 1
          : std::max<int64_t>(1, static_cast<int64_t>(options.events_in_flight
                                                      / std::max<size_t>(1, options.batch_lines)));
  BatchSlots slots(window, n);
  // One shard's part of one batch (routed_batch.h): the shard pauses once it has written
  // `slice_lines` lines (as a slice of one thread does, below) and goes on where it was at its next
  // step. At the end of a step the shard hands its final lines over (final_lines.h).
  const size_t slice_lines = std::max<size_t>(options.slice_lines_per_shard, 1);
  FinalLines final_lines(n);
  ShardPipeline pipeline(
      n, window,
      [&](int k, int64_t number) {
        RoutedBatch& b = slots.Get(number);
        return !b.any_event || WithShard(*engine, k, [&](ShardSimulator& s) {
          return ReplayStep(k, s, b, slice_lines, log != nullptr ? &final_lines : nullptr);
        });
      },
      std::min<int64_t>(window, kStartWindowBatches));
  // The decision lines every shard has made final, written (pipelined batches).
  const bool sliced = window == 1 && !options.strict;
  auto write_final = [&] {
    if (log != nullptr && final_lines.TakeFinal(flushed_)) {
      WriteLines(flushed_);
    }
  };
  // A complete batch back in trace order: the counters and errors, then its decision lines.
  auto finish_batch = [&](RoutedBatch& b) {
    std::vector<size_t> cursor(static_cast<size_t>(n), 0);
    for (size_t i = 0; i < b.used && !stopped; ++i) {
      const ParsedLine& l = b.lines[i];
      ++report.events_read;
      if (l.result == ReadResult::kError) {
        reject(l.error);
        stopped = options.strict;
        continue;
      }
      bool applied = false;
      EventError error;
      if (b.route[i] == engine::ShardPlan::kEveryShard) {
        for (size_t k = 0; k < static_cast<size_t>(n); ++k) {
          const Outcome& o = b.outcomes[k][cursor[k]++];
          applied = applied || o.applied;
          if (k == 0 && !o.applied) {
            error = b.ErrorOf(k, o);
          }
        }
      } else {
        size_t k = static_cast<size_t>(b.route[i]);
        const Outcome& o = b.outcomes[k][cursor[k]++];
        applied = o.applied;
        if (!applied) {
          error = b.ErrorOf(k, o);
        }
      }
      if (applied) {
        ++report.events_applied;
      } else {
        error.file = path;
        error.line = l.event.line;
        reject(error);
        stopped = options.strict;
      }
    }
    if (b.any_event && sliced) {
      FlushLines(b.last_time);
    } else if (b.any_event) {
      write_final();  // at least the lines before b.last_time: every shard got there
    }
    progress.Show(b.file_bytes_read, report.events_read, b.last_time, false);
  };
  // One batch in flight (one thread, not --strict): the batch replayed in slices of virtual
  // time, every shard advanced to the end of a slice and the lines before it written, so that the
  // lines held stay few (replay/sim/time_slices.h). The tail after the last event uses the same.
  TimeSlices slices(*engine, arena, slice_lines,
                    [this](TimeMicros before) { return FlushLines(before); });
  TimeMicros last_time = 0;
  int64_t pushed = 0;
  int64_t finished = 0;
  auto read_all = [&] {
    bool done = false;
    while (!done && !stopped) {
      if (pushed - finished >= pipeline.limit()) {  // the window is full
        if (pipeline.WaitRoom(finished)) {
          finish_batch(slots.Get(finished));
          slots.Release(finished++);
        } else {
          write_final();  // a step paused: its lines may be final now
        }
        continue;
      }
      RoutedBatch& b = slots.Take(pushed);
      if (!reader.NextBatch(b.lines)) {
        slots.Release(pushed);
        break;
      }
      b.used = b.lines.size();
      for (size_t i = 0; i < b.lines.size(); ++i) {
        const ParsedLine& l = b.lines[i];
        if (l.result == ReadResult::kEvent && options.until && l.event.time > *options.until) {
          report.truncated = true;
          b.used = i;
          done = true;
          break;
        }
      }
      engine::PhaseScope route_profile(engine::Phase::kRoute);
      b.route.assign(b.used, 0);
      b.any_event = false;
      for (auto& r : b.routed) {
        r.clear();
      }
      for (size_t i = 0; i < b.used; ++i) {
        const ParsedLine& l = b.lines[i];
        // Routed, and added to the trace's plan when it is checked (a plain Workload event by
        // its LocalQueue's kept route).
        const std::optional<int> route = routes.RouteAndPlan(l);
        if (!route.has_value()) {
          continue;
        }
        if (!started) {
          start(l.event.time);
        }
        b.any_event = true;
        last_time = l.event.time;
        b.route[i] = *route;
        if (b.route[i] == engine::ShardPlan::kEveryShard) {
          for (auto& r : b.routed) {
            r.push_back(i);
          }
        } else {
          b.routed[static_cast<size_t>(b.route[i])].push_back(i);
        }
      }
      b.last_time = last_time;
      b.file_bytes_read = reader.file_bytes_read();
      b.ResetOutcomes();
      if (sliced) {
        if (b.any_event) {
          slices.ReplayBatch(b);
        }
        finish_batch(b);
        slots.Release(pushed++);
        finished = pushed;
      } else {
        pipeline.Push();
        ++pushed;
      }
      if (options.stop != nullptr && options.stop->load(std::memory_order_relaxed)) {
        report.interrupted = true;  // the batches read are replayed; nothing after them
        break;
      }
    }
    pipeline.Close();
    while (finished < pushed) {
      if (pipeline.WaitComplete(finished)) {
        finish_batch(slots.Get(finished));
        slots.Release(finished++);
      } else {
        write_final();
      }
    }
    // Every shard got to the last batch's instant, and every line handed over is before it:
    // the lines still in the shards (FlushLines below) come after all of them.
    if (!final_lines.empty()) {
      throw std::logic_error("decision lines handed over after the last batch");
    }
  };
  std::exception_ptr failure;
  RunWithHelpers(
      arena,
      [&] {
        try {
          read_all();
        } catch (...) {
          failure = std::current_exception();
          pipeline.Close();
        }
      },
      [&] { pipeline.Work(); });
  if (failure) {
    std::rethrow_exception(failure);
  }
  pipeline.Rethrow();
  if (!sliced) {  // one thread replays slice by slice, without the pipeline
    const ShardPipeline::Waits waits = pipeline.waits();
    report.pipeline.batches = pushed;
    report.pipeline.reader_waits = waits.reader_waits;
    report.pipeline.reader_wait_seconds = static_cast<double>(waits.reader_nanos) / 1e9;
    report.pipeline.helper_waits = waits.helper_waits;
    report.pipeline.helper_wait_seconds = static_cast<double>(waits.helper_nanos) / 1e9;
    report.pipeline.window_grown = pipeline.grown();
    report.pipeline.window_shrunk = pipeline.shrunk();
    report.pipeline.steps_paused = pipeline.pauses();
    report.pipeline.lines_waiting_peak = static_cast<int64_t>(final_lines.peak_waiting());
  }
  if (trace_planner.has_value() && !report.interrupted) {
    // Every line was read (an interrupted replay is incomplete whatever its plan, and is kept).
    trace_planner->AddManifests(manifests.spec);
    if (!(trace_planner->Build(single) == plan)) {
      replan = TraceTies{path, engine::Status::Ok(), std::move(*trace_planner)};
      return true;  // Simulator::Run replays again; nothing of this run is reported
    }
  }
  trace_planner.reset();
  stopped = stopped || report.interrupted;
  if (!started) {
    TimeMicros t = 0;
    for (int k = 0; k < n; ++k) {
      t = std::max(t, engine->With(k, [](ShardSimulator& s) { return s.manifests_time(); }));
    }
    start(t);
  }
  if (!stopped) {
    // What follows the last event, in steps of virtual time, so that the decision lines are
    // written as they become final instead of held to the end.
    const TimeMicros horizon = options.until.value_or(kNever);
    slices.DrainBefore(horizon, [&](TimeMicros due) {
      progress.Show(reader.file_bytes_read(), report.events_read, due, false, "draining");
    });
    ForEachShard(*engine, arena, [&](int, ShardSimulator& s) {
      engine::PhaseScope profile(engine::Phase::kSimulate);
      s.AdvanceTo(horizon);
      if (options.until) {
        s.SetNow(*options.until);
      }
    });
  }
  FlushLines(kNever);
  // Every line is written: the free decision-line chunks (up to 32 MiB) go back to the allocator
  // for the reports.
  LineChunkPool::Shared().Trim();
  progress.Show(reader.file_bytes_read(), report.events_read, last_time, true);

  // One end for every shard: the last instant anything changed anywhere (or --until).
  TimeMicros end = std::numeric_limits<TimeMicros>::min();
  for (int k = 0; k < n; ++k) {
    end = std::max(end, engine->With(k, [&](ShardSimulator& s) {
      return options.until && !stopped ? s.now() : s.last_change();
    }));
  }
  // And one sampling grid: a shard that ran further (to a timer past `end`) sampled further,
  // and the merge puts every shard's series against one list of sample times.
  TimeMicros sample_until = std::numeric_limits<TimeMicros>::min();
  for (int k = 0; k < n; ++k) {
    sample_until = std::max(
        sample_until, engine->With(k, [&](ShardSimulator& s) { return s.next_sample_time(); }));
  }
  std::vector<ReplayReport> parts(static_cast<size_t>(n));
  std::vector<RawWaits> waits(static_cast<size_t>(n));
  ForEachShard(*engine, arena, [&](int k, ShardSimulator& s) {
    s.Finish(end, sample_until, parts[static_cast<size_t>(k)], waits[static_cast<size_t>(k)]);
  });
  MergeShardReports(parts, waits, report);
  if (engine::PhaseProfile::Enabled()) {
    report.shard_cpu = ShardCpuTimes(*engine);
  }

  report.shards = n;
  report.timings = options.timings;
  const ControlPlaneModel& cp = options.control_plane;
  report.mode = cp.enabled ? "control-plane" : "policy-only";
  if (cp.enabled) {
    report.model["admitToRunning"] = FormatDuration(cp.admit_to_running);
    report.model["finishToRelease"] = FormatDuration(cp.finish_to_release);
    report.model["cycleDuration"] = FormatDuration(cp.cycle_duration);
    report.model["maxAdmissionsPerSecond"] = fmt::format("{}", cp.max_admissions_per_second);
  }
  report.model["podsReadyDelay"] = FormatDuration(options.pods_ready_delay);
  report.model["admissionCheckDelay"] = FormatDuration(options.admission_check_delay);
  report.model["flavorScanReset"] =
      options.scheduler.cohort_generation_resets_scan ? "clusterQueueAndCohorts" : "clusterQueue";
  LatencyHistogram latency;
  for (int k = 0; k < n; ++k) {
    engine->With(k, [&](ShardSimulator& s) {
      report.decisions += s.decisions();
      latency.Merge(s.decision_latency());
    });
  }
  if (options.timings) {
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    report.wall_seconds = wall;
    report.threads = arena.max_concurrency();
    report.events_per_second = wall > 0 ? static_cast<double>(report.events_read) / wall : 0;
    latency.ForEachNonEmptyBucket([&](int64_t lower_ns, int64_t upper_ns, int64_t count) {
      report.decision_latency.push_back({lower_ns, upper_ns, count});
    });
    report.decision_latency_p50_ns = static_cast<double>(latency.ValueAtPercentile(50));
    report.decision_latency_p90_ns = static_cast<double>(latency.ValueAtPercentile(90));
    report.decision_latency_p99_ns = static_cast<double>(latency.ValueAtPercentile(99));
    report.decision_latency_max_ns = latency.Max();
    report.peak_rss_bytes = PeakRssBytes();
  }
  if (log != nullptr) {
    log->Flush();
  }
  return !stopped || report.interrupted;  // false: --strict stopped at a rejected event
}

}  // namespace replay
