// `tally merge`: the slices of a `tally sweep --shard i/N` back into one table (docs/sweep.md).
#include "replay/sweep/merge.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <utility>

#include "replay/io/json_to_yaml.h"
#include "replay/sweep/sweep_results.h"

namespace replay {
namespace {

namespace fs = std::filesystem;

struct Slice {
  std::string dir;
  SweepRecord record;
};

std::string Describe(const Slice& s) {
  return fmt::format("{} (slice {})", s.dir, s.record.shard.ToString());
}

// Every check of docs/sweep.md "Merge rules"; the first failure as an error.
engine::Status CheckSlices(const std::vector<Slice>& slices) {
  const Slice& first = slices.front();
  for (const Slice& s : slices) {
    if (s.record.fingerprint != first.record.fingerprint) {
      std::string parts;
      for (const auto& [part, hash] : first.record.part_fingerprints) {
        auto it = s.record.part_fingerprints.find(part);
        if (it == s.record.part_fingerprints.end() || it->second != hash) {
          parts += (parts.empty() ? "" : ", ") + part;
        }
      }
      return engine::InvalidArgument(
          fmt::format("{} and {} are slices of different sweeps (fingerprints {} and {}{})",
                      first.dir, s.dir, first.record.fingerprint, s.record.fingerprint,
                      parts.empty() ? "" : fmt::format("; their {} differ", parts)));
    }
    if (s.record.shard.count != first.record.shard.count) {
      return engine::InvalidArgument(
          fmt::format("{} and {} were sliced differently: the slices of one sweep are all i/N "
                      "with the same N",
                      Describe(first), Describe(s)));
    }
    if (s.record.variants.size() != first.record.variants.size()) {
      return engine::InvalidArgument(
          fmt::format("{} and {} list different variants", first.dir, s.dir));
    }
    for (size_t i = 0; i < s.record.variants.size(); ++i) {
      if (s.record.variants[i].id != first.record.variants[i].id
          || s.record.variants[i].index != static_cast<int>(i)) {
        return engine::InvalidArgument(
            fmt::format("{} and {} list different variants (#{}: {} and {})", first.dir, s.dir, i,
                        first.record.variants[i].id, s.record.variants[i].id));
      }
    }
  }
  const int n = first.record.shard.count;
  std::vector<const Slice*> by_index(n, nullptr);
  for (const Slice& s : slices) {
    const Slice*& slot = by_index[s.record.shard.index];
    if (slot != nullptr) {
      return engine::InvalidArgument(fmt::format("slice {} given twice: {} and {}",
                                                 s.record.shard.ToString(), slot->dir, s.dir));
    }
    slot = &s;
  }
  std::string missing;
  int missing_count = 0;
  for (int i = 0; i < n; ++i) {
    if (by_index[i] == nullptr) {
      missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, n);
      ++missing_count;
    }
  }
  if (missing_count > 0) {
    std::string given;
    for (const Slice* s : by_index) {
      if (s != nullptr) {
        given += (given.empty() ? "" : ", ") + Describe(*s);
      }
    }
    return engine::InvalidArgument(fmt::format("missing slice{} {} of the sweep (given: {})",
                                               missing_count == 1 ? "" : "s", missing, given));
  }
  // Each variant replayed by exactly one slice: its own.
  for (size_t i = 0; i < first.record.variants.size(); ++i) {
    const std::string& id = first.record.variants[i].id;
    const Slice* ran = nullptr;
    for (const Slice& s : slices) {
      if (s.record.variants[i].status == VariantStatus::kOtherShard) {
        continue;
      }
      if (ran != nullptr) {
        return engine::InvalidArgument(
            fmt::format("variant {} is in two slices: {} and {}", id, Describe(*ran), Describe(s)));
      }
      ran = &s;
    }
    if (ran == nullptr) {
      return engine::InvalidArgument(
          fmt::format("variant {} is missing: slice {} ({}) did not replay it", id,
                      fmt::format("{}/{}", i % n, n), by_index[i % n]->dir));
    }
  }
  return engine::Status::Ok();
}

// The slices that ran each variant, by variant index.
std::vector<const Slice*> Owners(const std::vector<Slice>& slices) {
  std::vector<const Slice*> owners(slices.front().record.variants.size(), nullptr);
  for (const Slice& s : slices) {
    for (size_t i = 0; i < owners.size(); ++i) {
      if (s.record.variants[i].status != VariantStatus::kOtherShard) {
        owners[i] = &s;
      }
    }
  }
  return owners;
}

}  // namespace

int RunMerge(const MergeOptions& options) {
  if (options.output != "text" && options.output != "json" && options.output != "yaml") {
    std::fprintf(stderr, "error: -o %s: expected text, json or yaml\n", options.output.c_str());
    return 2;
  }
  if (options.dirs.empty()) {
    std::fprintf(stderr, "error: no slices: give the output directories of tally sweep --shard\n");
    return 2;
  }
  std::vector<Slice> slices;
  for (const std::string& dir : options.dirs) {
    engine::StatusOr<SweepRecord> r = LoadSweepRecord(dir);
    if (!r.ok()) {
      std::fprintf(stderr, "error: %s\n", r.status().message().c_str());
      return 2;
    }
    slices.push_back(Slice{dir, std::move(r).value()});
  }
  if (engine::Status s = CheckSlices(slices); !s.ok()) {
    std::fprintf(stderr, "error: %s\n", s.message().c_str());
    return 2;
  }
  const std::vector<const Slice*> owners = Owners(slices);
  SweepRecord merged = slices.front().record;
  merged.shard = ShardSpec{};
  merged.merged_from = options.dirs;
  std::vector<SweepRow> rows;
  int failed = 0;
  for (size_t i = 0; i < merged.variants.size(); ++i) {
    merged.variants[i] = owners[i]->record.variants[i];
    engine::StatusOr<SweepRow> row = LoadSweepRow(owners[i]->dir, merged.variants[i]);
    if (!row.ok()) {
      std::fprintf(stderr, "error: %s: %s\n", Describe(*owners[i]).c_str(),
                   row.status().message().c_str());
      return 2;
    }
    failed += merged.variants[i].status == VariantStatus::kOk ? 0 : 1;
    rows.push_back(std::move(row).value());
  }
  if (!options.out.empty()) {
    std::error_code ec;
    for (const Slice& s : slices) {
      if (fs::equivalent(s.dir, options.out, ec)) {
        std::fprintf(stderr, "error: --out %s is one of the slices\n", options.out.c_str());
        return 2;
      }
    }
    for (size_t i = 0; i < merged.variants.size(); ++i) {
      const fs::path from = fs::path(owners[i]->dir) / "variants" / merged.variants[i].id;
      const fs::path to = fs::path(options.out) / "variants" / merged.variants[i].id;
      fs::create_directories(to, ec);
      if (!ec) {
        fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
      }
      if (ec) {
        std::fprintf(stderr, "error: --out: cannot copy %s to %s: %s\n", from.c_str(), to.c_str(),
                     ec.message().c_str());
        return 1;
      }
    }
    const fs::path json = fs::path(options.out) / "sweep.json";
    std::FILE* f = std::fopen(json.c_str(), "wb");
    const std::string text = FormatSweepJson(merged);
    bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = f != nullptr && std::fclose(f) == 0 && ok;
    if (!ok) {
      std::fprintf(stderr, "error: cannot write %s\n", json.c_str());
      return 1;
    }
  }
  const std::string table = options.output != "text"
                                ? ToOutputFormat(FormatSweepTableJson(merged, rows), options.output)
                                : FormatSweepTable(merged, rows);
  std::fwrite(table.data(), 1, table.size(), stdout);
  return failed == 0 ? 0 : 1;
}

}  // namespace replay
