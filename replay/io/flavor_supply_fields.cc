#include "replay/io/flavor_supply_fields.h"

#include <fmt/format.h>

#include <optional>
#include <string>

#include "replay/io/field_values.h"
#include "replay/io/manifest_fields.h"
#include "replay/io/time_parse.h"

namespace replay::internal {

namespace {

std::optional<int64_t> Duration(ObjectContext& ctx, const YAML::Node& node,
                                const std::string& path) {
  std::optional<std::string> text = ctx.String(node, path);
  if (!text) {
    return std::nullopt;
  }
  engine::StatusOr<int64_t> d = ParseGoDuration(*text);
  if (!d.ok()) {
    ctx.Error(node, path, d.status().message());
    return std::nullopt;
  }
  if (*d < 0) {
    ctx.Error(node, path, fmt::format("Invalid value: \"{}\": must not be negative", *text));
    return std::nullopt;
  }
  return *d;
}

// A stockout window's bound: an RFC 3339 time that must be there.
std::optional<int64_t> RequiredTime(ObjectContext& ctx, const YAML::Node& node,
                                    const std::string& path) {
  if (!Present(node)) {
    ctx.Error(node, path, "Required value");
    return std::nullopt;
  }
  return Time(ctx, node, path);
}

void ParseStockouts(ObjectContext& ctx, const YAML::Node& spec, engine::FlavorSupplySpec& out) {
  std::optional<YAML::Node> list = OptionalSequence(ctx, spec, "stockouts", "spec.stockouts");
  if (!list.has_value()) {
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string path = fmt::format("spec.stockouts[{}]", i);
    const YAML::Node item = (*list)[i];
    if (!ctx.ExpectMap(item, path)) {
      continue;
    }
    ctx.CheckKeys(item, path, {"from", "to"});
    std::optional<int64_t> from = RequiredTime(ctx, Get(item, "from"), Child(path, "from"));
    std::optional<int64_t> to = RequiredTime(ctx, Get(item, "to"), Child(path, "to"));
    if (!from || !to) {
      continue;
    }
    if (*to <= *from) {
      ctx.Error(Get(item, "to"), Child(path, "to"), "Invalid value: must be after `from`");
      continue;
    }
    out.stockouts.push_back({*from, *to});
  }
}

void ParseDelay(ObjectContext& ctx, const YAML::Node& spec, engine::FlavorSupplySpec& out) {
  const YAML::Node node = Get(spec, "podsReadyDelay");
  const std::string path = "spec.podsReadyDelay";
  if (!Present(node)) {
    return;
  }
  if (node.IsScalar()) {
    out.pods_ready_min = out.pods_ready_max = Duration(ctx, node, path);
    return;
  }
  if (!ctx.ExpectMap(node, path)) {
    return;
  }
  ctx.CheckKeys(node, path, {"min", "max"});
  std::optional<int64_t> min = Duration(ctx, Get(node, "min"), Child(path, "min"));
  std::optional<int64_t> max = Duration(ctx, Get(node, "max"), Child(path, "max"));
  if (!min || !max) {
    if (ctx.error_count() == 0) {
      ctx.Error(node, path, "Required value: both min and max (or one duration)");
    }
    return;
  }
  if (*max < *min) {
    ctx.Error(Get(node, "max"), Child(path, "max"), "Invalid value: must be at least min");
    return;
  }
  out.pods_ready_min = min;
  out.pods_ready_max = max;
}

}  // namespace

bool ParseFlavorSupply(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::FlavorSupplySpec out;
  out.name = meta->name;
  out.flavor = meta->name;
  out.source = ctx.source();
  std::optional<YAML::Node> s = SpecOf(ctx, obj);
  if (s.has_value()) {
    ctx.CheckKeys(*s, "spec", {"flavor", "stockouts", "podsReadyDelay", "seed"});
    if (std::optional<std::string> flavor = ctx.String(Get(*s, "flavor"), "spec.flavor")) {
      out.flavor = *flavor;
    }
    ParseStockouts(ctx, *s, out);
    ParseDelay(ctx, *s, out);
    if (std::optional<int32_t> seed = ctx.Int32(Get(*s, "seed"), "spec.seed")) {
      out.seed = static_cast<uint64_t>(*seed);
    }
  }
  spec.flavor_supplies.push_back(std::move(out));
  return true;
}

}  // namespace replay::internal
