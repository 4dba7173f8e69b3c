// The variants of a `tally sweep` (docs/sweep.md).
#include "replay/sweep/sweep_variants.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <set>
#include <utility>

namespace replay {

std::string OverlayVariantId(std::string_view path) {
  std::string stem = std::filesystem::path(path).stem().string();
  for (char& c : stem) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
    c = ok ? c : '-';
  }
  return stem.empty() ? "overlay" : stem;
}

engine::StatusOr<std::vector<SweepVariant>> EnumerateVariants(
    const std::vector<std::string>& overlays, const std::vector<SetFlag>& sets) {
  std::vector<SweepVariant> out;
  SweepVariant base;
  base.id = "base";
  base.label = "manifests as given";
  out.push_back(std::move(base));
  std::set<std::string> ids = {"base"};
  for (const std::string& file : overlays) {
    SweepVariant v;
    v.index = static_cast<int>(out.size());
    v.id = OverlayVariantId(file);
    v.label = fmt::format("overlay {}", file);
    v.overlay = file;
    if (v.id.starts_with("set-") || !ids.insert(v.id).second) {
      return engine::InvalidArgument(
          fmt::format("--overlay {}: its variant id \"{}\" is {}; rename the file", file, v.id,
                      v.id == "base"             ? "the baseline's"
                      : v.id.starts_with("set-") ? "reserved for --set variants"
                                                 : "already taken by another overlay"));
    }
    out.push_back(std::move(v));
  }
  if (sets.empty()) {
    return out;
  }
  size_t combinations = 1;
  for (const SetFlag& s : sets) {
    combinations *= s.values.size();
    if (combinations > 100000) {
      return engine::InvalidArgument(
          "the --set flags give more than 100000 combinations; split the sweep");
    }
  }
  const int width = std::max<int>(4, static_cast<int>(fmt::format("{}", combinations).size()));
  std::vector<size_t> choice(sets.size(), 0);  // an odometer, the last flag fastest
  for (size_t n = 1; n <= combinations; ++n) {
    SweepVariant v;
    v.index = static_cast<int>(out.size());
    v.id = fmt::format("set-{:0{}}", n, width);
    for (size_t f = 0; f < sets.size(); ++f) {
      v.sets.push_back(sets[f].Assignment(choice[f]));
      v.label += (f == 0 ? "" : ", ") + v.sets.back().Label();
    }
    out.push_back(std::move(v));
    for (size_t f = sets.size(); f-- > 0;) {
      if (++choice[f] < sets[f].values.size()) {
        break;
      }
      choice[f] = 0;
    }
  }
  return out;
}

engine::StatusOr<Manifests> BuildVariantManifests(const Manifests& base,
                                                  const SweepVariant& variant,
                                                  const Manifests* overlay) {
  Manifests m = base.Clone();
  if (!variant.overlay.empty() && overlay != nullptr) {
    if (engine::Status s = m.ApplyOverlay(*overlay); !s.ok()) {
      return engine::InvalidArgument(fmt::format("--overlay {}: {}", variant.overlay, s.message()));
    }
  }
  for (const FieldAssignment& a : variant.sets) {
    if (engine::Status s = m.Set(a); !s.ok()) {
      return engine::InvalidArgument(fmt::format("--set {}: {}", a.Label(), s.message()));
    }
  }
  return m;
}

std::string ShardSpec::ToString() const {
  return fmt::format("{}/{}", index, count);
}

engine::StatusOr<ShardSpec> ParseShard(std::string_view text) {
  auto bad = [&] {
    return engine::InvalidArgument(fmt::format(
        "--shard {}: expected i/N with 0 <= i < N, e.g. 0/4 (the slices are 0/4 to 3/4)", text));
  };
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return bad();
  }
  ShardSpec s;
  const std::string_view i = text.substr(0, slash);
  const std::string_view n = text.substr(slash + 1);
  auto [p1, e1] = std::from_chars(i.data(), i.data() + i.size(), s.index);
  auto [p2, e2] = std::from_chars(n.data(), n.data() + n.size(), s.count);
  if (i.empty() || n.empty() || e1 != std::errc() || e2 != std::errc() || p1 != i.data() + i.size()
      || p2 != n.data() + n.size() || s.count < 1 || s.index < 0 || s.index >= s.count) {
    return bad();
  }
  return s;
}

void Fingerprint::Update(std::string_view bytes) {
  for (char c : bytes) {
    hash_ ^= static_cast<unsigned char>(c);
    hash_ *= 1099511628211ULL;  // FNV prime
  }
}

void Fingerprint::Field(std::string_view bytes) {
  Update(fmt::format("{}:", bytes.size()));
  Update(bytes);
}

engine::Status Fingerprint::UpdateFile(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return engine::NotFound(fmt::format("{}: cannot open the file", path));
  }
  std::string buffer(1 << 20, '\0');
  size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), f)) > 0) {
    Update(std::string_view(buffer.data(), n));
  }
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) {
    return engine::InvalidArgument(fmt::format("{}: read error", path));
  }
  return engine::Status::Ok();
}

std::string Fingerprint::Hex() const {
  return fmt::format("{:016x}", hash_);
}

}  // namespace replay
