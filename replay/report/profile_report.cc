#include "replay/report/profile_report.h"

#include <fmt/format.h>
#include <sys/resource.h>

namespace replay {
namespace {

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double PerUnit(double value, int64_t units) {
  return units > 0 ? value / static_cast<double>(units) : 0;
}

// The shards' CPU time in their steps, and the busiest shard's (replay/sim/shard_cpu.h).
struct ShardShares {
  double total = 0;
  double busiest = 0;
  size_t busiest_shard = 0;
};
ShardShares SharesOf(const std::vector<ShardCpuTime>& shards) {
  ShardShares s;
  for (size_t k = 0; k < shards.size(); ++k) {
    s.total += shards[k].seconds;
    if (shards[k].seconds > s.busiest) {
      s.busiest = shards[k].seconds;
      s.busiest_shard = k;
    }
  }
  return s;
}

}  // namespace

ProfileClock::ProfileClock()
    : cpu_start_(ProcessCpuSeconds()), wall_start_(std::chrono::steady_clock::now()) {}

double ProfileClock::CpuSeconds() const {
  return ProcessCpuSeconds() - cpu_start_;
}

double ProfileClock::WallSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
}

ProfileReport BuildProfileReport(const engine::PhaseTotals& totals, const ProfileClock& clock,
                                 const ReplayReport& report) {
  ProfileReport p;
  p.cpu_seconds = clock.CpuSeconds();
  p.wall_seconds = clock.WallSeconds();
  p.threads = totals.threads;
  for (size_t i = 0; i < engine::kPhaseCount; ++i) {
    ProfileReport::PhaseRow& row = p.phases.emplace_back();
    row.name = engine::ToString(static_cast<engine::Phase>(i));
    row.calls = totals.calls[i];
    row.seconds = static_cast<double>(totals.nanos[i]) / 1e9;
    p.phase_seconds += row.seconds;
  }
  p.nominations = totals.calls[static_cast<size_t>(engine::Phase::kNominate)];
  p.admissions = report.admissions;
  p.searches = report.preemption_searches;
  p.memo = report.nomination_memo;
  p.pipeline = report.pipeline;
  p.shard_cpu = report.shard_cpu;
  return p;
}

std::string FormatProfileTable(const ProfileReport& p) {
  std::string out = fmt::format("{:<20} {:>12} {:>10} {:>7} {:>12}\n", "phase", "calls", "cpu s",
                                "share", "ns/call");
  for (const ProfileReport::PhaseRow& row : p.phases) {
    out += fmt::format("{:<20} {:>12} {:>10.3f} {:>6.1f}% {:>12.0f}\n", row.name, row.calls,
                       row.seconds, 100.0 * PerUnit(row.seconds, 1) / std::max(p.cpu_seconds, 1e-9),
                       PerUnit(row.seconds * 1e9, row.calls));
  }
  out += fmt::format(
      "{:<20} {:>12} {:>10.3f} {:>6.1f}%   (process CPU {:.3f} s, wall {:.3f} s, {} threads)\n",
      "sum of phases", "", p.phase_seconds, 100.0 * p.phase_seconds / std::max(p.cpu_seconds, 1e-9),
      p.cpu_seconds, p.wall_seconds, p.threads);
  const engine::PreemptionSearchStats& s = p.searches;
  out += fmt::format(
      "admissions {}, nominations {} ({:.1f} per admission), CPU per admission {:.1f} us, per "
      "nomination {:.2f} us\n",
      p.admissions, p.nominations, PerUnit(static_cast<double>(p.nominations), p.admissions),
      PerUnit(p.cpu_seconds * 1e6, p.admissions), PerUnit(p.cpu_seconds * 1e6, p.nominations));
  out += fmt::format(
      "preemption searches {} ({:.2f} per nomination): {} rejected by the O(depth) bound, {} "
      "collected {} candidates ({} lists reused from an earlier search of the same question), {} "
      "found targets; {} answered by the search before (the same question of the same state)\n",
      s.searches, PerUnit(static_cast<double>(s.searches), p.nominations), s.rejected_by_bound,
      s.searches - s.rejected_by_bound, s.candidates, s.lists_reused, s.found, s.answers_reused);
  const engine::NominationMemoStats& m = p.memo;
  out += fmt::format(
      "nomination memo: {} hits, {} misses, {} not memoised (fallback history or resource "
      "classes), hit rate "
      "{:.1f}%; {} stores kept the key without the entry (few hits), {} misses matched such a "
      "key; {} heads nominated while the memo rested (not even keys matching)\n",
      m.hits, m.misses, m.not_memoised,
      100.0
          * PerUnit(static_cast<double>(m.hits),
                    static_cast<int64_t>(m.hits + m.misses + m.not_memoised + m.sat_out)),
      m.key_only_stores, m.key_only_matches, m.sat_out);
  const PipelineWaits& w = p.pipeline;
  if (w.batches > 0) {  // shards that ran free (2 threads or more)
    out += fmt::format(
        "pipeline: {} batches; the reader blocked {} times, {:.3f} s, waiting for the slowest "
        "shard; helpers blocked {} times, {:.3f} s, with no step ready; window grown {} times, "
        "shrunk {}; steps paused {} times; at most {} decision lines waited for the slowest "
        "shard\n",
        w.batches, w.reader_waits, w.reader_wait_seconds, w.helper_waits, w.helper_wait_seconds,
        w.window_grown, w.window_shrunk, w.steps_paused, w.lines_waiting_peak);
  }
  if (const ShardShares shares = SharesOf(p.shard_cpu); shares.busiest > 0) {
    // A shard's steps run one at a time: no number of threads replays the trace faster than its
    // busiest shard's steps take (replay/sim/shard_cpu.h).
    out += fmt::format(
        "shards: {} took {:.3f} s of CPU in their own steps; the busiest, shard {} ({}), {:.3f} s "
        "({:.1f}%), one step at a time: on any number of threads this replay takes at least "
        "{:.3f} s",
        p.shard_cpu.size(), shares.total, shares.busiest_shard,
        p.shard_cpu[shares.busiest_shard].label, shares.busiest,
        100.0 * shares.busiest / shares.total, shares.busiest);
    out += p.threads <= 1 ? fmt::format(", at most {:.2f}x faster than this run on 1 thread\n",
                                        p.cpu_seconds / shares.busiest)
                          : fmt::format(" (this run: {:.3f} s of wall time, {:.2f}x that)\n",
                                        p.wall_seconds, p.wall_seconds / shares.busiest);
  }
  return out;
}

void WriteProfileJson(JsonWriter& w, const ProfileReport& p) {
  const engine::PreemptionSearchStats& s = p.searches;
  w.BeginObject();
  w.Key("admissions");
  w.Int(p.admissions);
  w.Key("cpuPerAdmissionUs");
  w.RoundedNumber(PerUnit(p.cpu_seconds * 1e6, p.admissions));
  w.Key("cpuSeconds");
  w.RoundedNumber(p.cpu_seconds);
  w.Key("nominationMemo");
  w.BeginObject();
  w.Key("hits");
  w.Int(static_cast<int64_t>(p.memo.hits));
  w.Key("keyOnlyMatches");
  w.Int(static_cast<int64_t>(p.memo.key_only_matches));
  w.Key("keyOnlyStores");
  w.Int(static_cast<int64_t>(p.memo.key_only_stores));
  w.Key("misses");
  w.Int(static_cast<int64_t>(p.memo.misses));
  w.Key("notMemoised");
  w.Int(static_cast<int64_t>(p.memo.not_memoised));
  w.Key("satOut");
  w.Int(static_cast<int64_t>(p.memo.sat_out));
  w.EndObject();
  w.Key("nominations");
  w.Int(p.nominations);
  w.Key("nominationsPerAdmission");
  w.RoundedNumber(PerUnit(static_cast<double>(p.nominations), p.admissions));
  w.Key("phaseSeconds");
  w.RoundedNumber(p.phase_seconds);
  w.Key("phases");
  w.BeginArray();
  for (const ProfileReport::PhaseRow& row : p.phases) {
    w.BeginObject();
    w.Key("calls");
    w.Int(row.calls);
    w.Key("name");
    w.String(row.name);
    w.Key("seconds");
    w.RoundedNumber(row.seconds);
    w.EndObject();
  }
  w.EndArray();
  if (p.pipeline.batches > 0) {
    w.Key("pipeline");
    w.BeginObject();
    w.Key("batches");
    w.Int(p.pipeline.batches);
    w.Key("helperWaitSeconds");
    w.RoundedNumber(p.pipeline.helper_wait_seconds);
    w.Key("helperWaits");
    w.Int(p.pipeline.helper_waits);
    w.Key("linesWaitingPeak");
    w.Int(p.pipeline.lines_waiting_peak);
    w.Key("readerWaitSeconds");
    w.RoundedNumber(p.pipeline.reader_wait_seconds);
    w.Key("readerWaits");
    w.Int(p.pipeline.reader_waits);
    w.Key("stepsPaused");
    w.Int(p.pipeline.steps_paused);
    w.Key("windowGrown");
    w.Int(p.pipeline.window_grown);
    w.Key("windowShrunk");
    w.Int(p.pipeline.window_shrunk);
    w.EndObject();
  }
  w.Key("preemptionSearches");
  w.BeginObject();
  w.Key("answersReused");
  w.Int(static_cast<int64_t>(s.answers_reused));
  w.Key("candidates");
  w.Int(static_cast<int64_t>(s.candidates));
  w.Key("found");
  w.Int(static_cast<int64_t>(s.found));
  w.Key("listsReused");
  w.Int(static_cast<int64_t>(s.lists_reused));
  w.Key("rejectedByBound");
  w.Int(static_cast<int64_t>(s.rejected_by_bound));
  w.Key("searches");
  w.Int(static_cast<int64_t>(s.searches));
  w.EndObject();
  w.Key("searchesPerNomination");
  w.RoundedNumber(PerUnit(static_cast<double>(s.searches), p.nominations));
  if (const ShardShares shares = SharesOf(p.shard_cpu); shares.busiest > 0) {
    w.Key("shards");
    w.BeginObject();
    w.Key("busiest");
    w.Int(static_cast<int64_t>(shares.busiest_shard));
    w.Key("busiestCpuSeconds");
    w.RoundedNumber(shares.busiest);
    w.Key("busiestLabel");
    w.String(p.shard_cpu[shares.busiest_shard].label);
    w.Key("count");
    w.Int(static_cast<int64_t>(p.shard_cpu.size()));
    w.Key("cpuSeconds");
    w.RoundedNumber(shares.total);
    w.EndObject();
  }
  w.Key("threads");
  w.Int(p.threads);
  w.Key("wallSeconds");
  w.RoundedNumber(p.wall_seconds);
  w.EndObject();
}

}  // namespace replay
