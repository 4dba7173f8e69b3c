// `tally sweep`: one trace replayed under several policy variants (docs/sweep.md).
//
// The steps, in this order, so that nothing is replayed unless every variant is valid:
//   1. flags: --shard, --set, the model durations (exit 2 when bad);
//   2. the manifests' and overlays' YAML documents, the variant list, every variant's manifests
//      built (a --set or overlay naming no object: exit 2) and validated by the manifest loader
//      (invalid: the loader's file:line:field errors, exit 1), and written to
//      DIR/variants/<id>/manifests.yaml — every variant, in every slice;
//   3. this slice's variants replayed by `tally replay` (RunReplay), `jobs` at once, each on one
//      thread, quiet, without wall-clock figures (so that the outputs are byte-identical however
//      the sweep is sliced); only progress lines go to stderr, one fprintf each;
//   4. DIR/sweep.json, then the table on stdout.
#include "replay/sweep/sweep_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <utility>

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include "engine/base/mutex.h"
#include "replay/io/json_to_yaml.h"
#include "replay/io/manifest_loader.h"
#include "replay/io/manifest_overlay.h"
#include "replay/io/parallel_for.h"
#include "replay/io/text_file.h"
#include "replay/io/time_parse.h"
#include "replay/report/replay_run.h"
#include "replay/sweep/sweep_results.h"
#include "replay/sweep/sweep_variants.h"

namespace replay {
namespace {

namespace fs = std::filesystem;

// The replay model flags as given: recorded in sweep.json and fingerprinted.
std::map<std::string, std::string> Settings(const SweepOptions& o) {
  std::map<std::string, std::string> s;
  s["admission-check-delay"] = o.admission_check_delay;
  s["control-plane"] = o.control_plane ? "true" : "false";
  s["kueue-scan-reset"] = o.kueue_scan_reset ? "true" : "false";
  s["pods-ready-delay"] = o.pods_ready_delay;
  s["until"] = o.until.value_or("");
  if (o.control_plane) {
    s["admit-to-running"] = o.admit_to_running;
    s["cycle-duration"] = o.cycle_duration;
    s["finish-to-release"] = o.finish_to_release;
    s["max-admissions-per-second"] = fmt::format("{}", o.max_admissions_per_second);
  }
  return s;
}

bool CheckFlags(const SweepOptions& o) {
  struct Duration {
    const char* flag;
    const std::string* value;
  };
  const Duration durations[] = {{"--pods-ready-delay", &o.pods_ready_delay},
                                {"--admission-check-delay", &o.admission_check_delay},
                                {"--admit-to-running", &o.admit_to_running},
                                {"--finish-to-release", &o.finish_to_release},
                                {"--cycle-duration", &o.cycle_duration}};
  for (const Duration& d : durations) {
    if (engine::StatusOr<int64_t> v = ParseGoDuration(*d.value); !v.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", d.flag, v.status().message().c_str());
      return false;
    }
  }
  if (o.until) {
    if (engine::StatusOr<int64_t> t = ParseRfc3339(*o.until); !t.ok()) {
      std::fprintf(stderr, "error: --until: %s\n", t.status().message().c_str());
      return false;
    }
  }
  if (o.events == "-") {
    std::fprintf(stderr,
                 "error: --events -: a sweep reads the trace once per variant; give a file\n");
    return false;
  }
  if (o.output != "text" && o.output != "json" && o.output != "yaml") {
    std::fprintf(stderr, "error: -o %s: expected text, json or yaml\n", o.output.c_str());
    return false;
  }
  return true;
}

ReplayOptions VariantReplayOptions(const SweepOptions& o, const fs::path& dir) {
  ReplayOptions r;
  r.manifests = {(dir / "manifests.yaml").string()};
  r.events = o.events;
  r.out = dir.string();
  r.until = o.until;
  r.kueue_scan_reset = o.kueue_scan_reset;
  r.feature_gates = o.feature_gates;
  r.no_timings = true;  // byte-identical outputs, however the sweep is sliced
  r.quiet = true;       // nothing on stdout: parallel variants must not interleave
  r.progress = false;
  r.threads = 1;  // the variants are the parallelism
  r.pods_ready_delay = o.pods_ready_delay;
  r.admission_check_delay = o.admission_check_delay;
  r.control_plane = o.control_plane;
  r.admit_to_running = o.admit_to_running;
  r.finish_to_release = o.finish_to_release;
  r.cycle_duration = o.cycle_duration;
  r.max_admissions_per_second = o.max_admissions_per_second;
  return r;
}

// Progress on stderr, one line per finished variant.
class Progress {
 public:
  explicit Progress(size_t total) : total_(total) {}
  void Done(const SweepVariant& v, int exit_code, double seconds) {
    engine::MutexLock lock(mu_);
    ++done_;
    std::fprintf(stderr, "tally sweep: [%zu/%zu] %s %s (%.1fs wall)\n", done_, total_, v.id.c_str(),
                 exit_code == 0 ? "done" : "FAILED", seconds);
  }

 private:
  const size_t total_;
  engine::Mutex mu_;
  size_t done_ TALLY_GUARDED_BY(mu_) = 0;
};

}  // namespace

int RunSweep(const SweepOptions& options) {
  if (!CheckFlags(options)) {
    return 2;
  }
  engine::StatusOr<ShardSpec> shard = ParseShard(options.shard);
  if (!shard.ok()) {
    std::fprintf(stderr, "error: %s\n", shard.status().message().c_str());
    return 2;
  }
  std::vector<SetFlag> sets;
  for (const std::string& spec : options.sets) {
    engine::StatusOr<SetFlag> flag = ParseSetFlag(spec);
    if (!flag.ok()) {
      std::fprintf(stderr, "error: %s\n", flag.status().message().c_str());
      return 2;
    }
    sets.push_back(std::move(flag).value());
  }
  if (!fs::is_regular_file(options.events)) {
    std::fprintf(stderr, "error: --events %s: no such file\n", options.events.c_str());
    return 1;
  }

  // 2. Documents, variants, their manifests.
  engine::StatusOr<Manifests> base = Manifests::Load(options.manifests);
  if (!base.ok()) {
    std::fprintf(stderr, "error: --manifests: %s\n", base.status().message().c_str());
    return 1;
  }
  std::map<std::string, Manifests> overlays;
  for (const std::string& file : options.overlays) {
    engine::StatusOr<Manifests> o = Manifests::Load({file});
    if (!o.ok()) {
      std::fprintf(stderr, "error: --overlay %s: %s\n", file.c_str(), o.status().message().c_str());
      return 1;
    }
    overlays.emplace(file, std::move(o).value());
  }
  engine::StatusOr<std::vector<SweepVariant>> variants = EnumerateVariants(options.overlays, sets);
  if (!variants.ok()) {
    std::fprintf(stderr, "error: %s\n", variants.status().message().c_str());
    return 2;
  }
  const fs::path out(options.out);
  std::vector<std::string> texts;
  for (const SweepVariant& v : *variants) {
    auto overlay = overlays.find(v.overlay);
    engine::StatusOr<Manifests> m =
        BuildVariantManifests(*base, v, overlay == overlays.end() ? nullptr : &overlay->second);
    if (!m.ok()) {
      std::fprintf(stderr, "error: %s\n", m.status().message().c_str());
      return 2;
    }
    std::string label = v.label;
    std::replace(label.begin(), label.end(), '\n', ' ');  // the comment stays one line
    texts.push_back(fmt::format("# tally sweep variant {}: {}\n{}", v.id, label, m->Emit()));
  }
  int invalid = 0;
  for (size_t i = 0; i < variants->size(); ++i) {
    const SweepVariant& v = (*variants)[i];
    const std::string file = (out / "variants" / v.id / "manifests.yaml").string();
    LoadResult load = LoadManifestString(texts[i], file);
    if (!load.ok()) {
      ++invalid;
      std::fprintf(stderr, "error: variant %s (%s): invalid manifests:\n", v.id.c_str(),
                   v.label.c_str());
      for (const LoadError& e : load.errors) {
        std::fprintf(stderr, "error: %s\n", e.ToString().c_str());
      }
    }
  }
  std::error_code ec;
  for (size_t i = 0; i < variants->size(); ++i) {
    const fs::path dir = out / "variants" / (*variants)[i].id;
    fs::create_directories(dir, ec);
    if (ec) {
      std::fprintf(stderr, "error: cannot create %s: %s\n", dir.c_str(), ec.message().c_str());
      return 1;
    }
    if (!WriteTextFile(dir / "manifests.yaml", texts[i])) {
      return 1;
    }
  }
  if (invalid > 0) {
    std::fprintf(stderr, "%d of %zu variants have invalid manifests: nothing replayed\n", invalid,
                 variants->size());
    return 1;
  }

  // The record and its fingerprints: content, not paths, so that pods mounting the inputs at
  // other paths still agree.
  SweepRecord record;
  record.shard = *shard;
  record.events = options.events;
  record.manifests = options.manifests;
  record.overlays = options.overlays;
  record.sets = options.sets;
  record.settings = Settings(options);
  {
    Fingerprint events;
    if (engine::Status s = events.UpdateFile(options.events); !s.ok()) {
      std::fprintf(stderr, "error: --events: %s\n", s.message().c_str());
      return 1;
    }
    Fingerprint manifests;
    manifests.Field(base->Emit());
    Fingerprint overlay_fp;
    for (const std::string& file : options.overlays) {
      overlay_fp.Field(OverlayVariantId(file));
      overlay_fp.Field(overlays.at(file).Emit());
    }
    Fingerprint set_fp;
    for (const std::string& s : options.sets) {
      set_fp.Field(s);
    }
    Fingerprint settings_fp;
    for (const auto& [k, v] : record.settings) {
      settings_fp.Field(k);
      settings_fp.Field(v);
    }
    record.part_fingerprints = {{"events", events.Hex()},
                                {"manifests", manifests.Hex()},
                                {"overlays", overlay_fp.Hex()},
                                {"sets", set_fp.Hex()},
                                {"settings", settings_fp.Hex()}};
    Fingerprint all;
    all.Field("tally sweep/1");
    for (const auto& [k, v] : record.part_fingerprints) {
      all.Field(k);
      all.Field(v);
    }
    record.fingerprint = all.Hex();
  }

  // 3. Replays.
  std::vector<const SweepVariant*> todo;
  for (const SweepVariant& v : *variants) {
    if (shard->Runs(v.index)) {
      todo.push_back(&v);
    }
  }
  std::vector<int> exit_codes(todo.size(), 0);
  const int jobs = options.jobs > 0 ? options.jobs : tbb::info::default_concurrency();
  Progress progress(todo.size());
  tbb::task_arena arena(jobs);
  ParallelFor(arena, todo.size(), 1, [&](size_t, size_t i) {
    const auto start = std::chrono::steady_clock::now();
    const fs::path dir = out / "variants" / todo[i]->id;
    exit_codes[i] = RunReplay(VariantReplayOptions(options, dir));
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;
    progress.Done(*todo[i], exit_codes[i], wall.count());
  });

  // 4. sweep.json and the table.
  size_t next = 0;
  int failed = 0;
  for (const SweepVariant& v : *variants) {
    SweepVariantRecord r;
    r.index = v.index;
    r.id = v.id;
    r.label = v.label;
    r.overlay = v.overlay;
    for (const FieldAssignment& a : v.sets) {
      r.sets.push_back(a.Label());
    }
    if (next < todo.size() && todo[next] == &v) {
      r.status = exit_codes[next] == 0 ? VariantStatus::kOk : VariantStatus::kFailed;
      r.exit_code = exit_codes[next];
      failed += exit_codes[next] == 0 ? 0 : 1;
      ++next;
    }
    record.variants.push_back(std::move(r));
  }
  if (!WriteTextFile(out / "sweep.json", FormatSweepJson(record))) {
    return 1;
  }
  std::vector<SweepRow> rows;
  for (const SweepVariantRecord& v : record.variants) {
    if (v.status == VariantStatus::kOtherShard) {
      continue;
    }
    engine::StatusOr<SweepRow> row = LoadSweepRow(options.out, v);
    if (!row.ok()) {
      std::fprintf(stderr, "error: variant %s: %s\n", v.id.c_str(), row.status().message().c_str());
      return 1;
    }
    rows.push_back(std::move(row).value());
  }
  const std::string table = options.output != "text"
                                ? ToOutputFormat(FormatSweepTableJson(record, rows), options.output)
                                : FormatSweepTable(record, rows);
  std::fwrite(table.data(), 1, table.size(), stdout);
  if (shard->count > 1) {
    std::fprintf(stderr,
                 "tally sweep: slice %s replayed %zu of %zu variants into %s; combine the %d "
                 "slices with tally merge\n",
                 shard->ToString().c_str(), todo.size(), variants->size(), options.out.c_str(),
                 shard->count);
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace replay
