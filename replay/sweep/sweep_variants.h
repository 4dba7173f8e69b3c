// File: replay/sweep/sweep_variants.h
//
// The variants of a `tally sweep` (docs/sweep.md): which policy variants a sweep replays, in which
// order, under which ids, which slice (`--shard i/N`) runs which, and the fingerprint that tells
// whether the slices given to `tally merge` come from the same sweep.
//
// Order and ids are deterministic, so that every slice of a sweep computes the same list:
//   0      base       the manifests as given
//   1..k   <stem>     one per --overlay FILE, in flag order, named by the file's stem
//   k+1..  set-0001.. the cartesian product of the --set flags, the first flag varying slowest
//
//   std::vector<SetFlag> sets = {*ParseSetFlag("ClusterQueue/a:spec.x=1,2"), ...};
//   engine::StatusOr<std::vector<SweepVariant>> v = EnumerateVariants({"fast.yaml"}, sets);
//   // base, fast, set-0001 (x=1), set-0002 (x=2)
//   ShardSpec shard = *ParseShard("1/3");   // runs the variants whose index % 3 == 1
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "replay/io/manifest_overlay.h"

namespace replay {

struct SweepVariant {
  int index = 0;        // position in the sweep; 0 is the baseline
  std::string id;       // "base", an overlay's stem, "set-0001"
  std::string label;    // for people: "manifests as given", the overlay file, the assignments
  std::string overlay;  // the --overlay file, "" for other variants
  std::vector<FieldAssignment> sets;  // for --set variants, one per --set flag, in flag order
};

// The id of an overlay variant: the file name without its last extension, with characters other
// than [A-Za-z0-9._-] replaced by '-'.
std::string OverlayVariantId(std::string_view path);

// base, then the overlays, then the product of the --set flags. Errors: two overlays with the
// same id, or an overlay id that is "base" or "set-NNNN".
engine::StatusOr<std::vector<SweepVariant>> EnumerateVariants(
    const std::vector<std::string>& overlays, const std::vector<SetFlag>& sets);

// The manifests of one variant: a copy of `base` with the overlay merged in (REQUIRES: `overlay`
// is the loaded variant.overlay when it is not empty) or the assignments applied. Errors name the
// --set flag or the overlay file.
engine::StatusOr<Manifests> BuildVariantManifests(const Manifests& base,
                                                  const SweepVariant& variant,
                                                  const Manifests* overlay);

// `--shard i/N`: this run replays the variants with index % count == index.
struct ShardSpec {
  int index = 0;
  int count = 1;

  bool Runs(int variant_index) const { return variant_index % count == index; }
  std::string ToString() const;  // "1/3"
};
engine::StatusOr<ShardSpec> ParseShard(std::string_view text);

// 64-bit FNV-1a, streamed: the fingerprints in sweep.json. Not a cryptographic hash: it tells
// slices of different sweeps apart, nothing more.
class Fingerprint {
 public:
  void Update(std::string_view bytes);
  // A field: its length, then its bytes, so that ("ab","c") and ("a","bc") differ.
  void Field(std::string_view bytes);
  // Hashes a file's bytes as stored (a gzip trace is hashed compressed).
  engine::Status UpdateFile(const std::string& path);
  uint64_t value() const { return hash_; }
  std::string Hex() const;  // 16 lower-case hex digits

 private:
  uint64_t hash_ = 14695981039346656037ULL;  // FNV offset basis
};

}  // namespace replay
