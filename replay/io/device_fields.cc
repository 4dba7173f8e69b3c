#include "replay/io/device_fields.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "engine/resource_selector.h"
#include "replay/io/manifest_fields.h"

namespace replay::internal {

namespace {

using engine::DeviceSelectorOp;

std::optional<engine::DeviceSelectorRequirement> ParseRequirement(ObjectContext& ctx,
                                                                  const YAML::Node& item,
                                                                  const std::string& path) {
  if (!ctx.ExpectMap(item, path)) {
    return std::nullopt;
  }
  ctx.CheckKeys(item, path, {"key", "operator", "values"});
  engine::DeviceSelectorRequirement r;
  const YAML::Node key = Get(item, "key");
  if (!Present(key)) {
    ctx.Error(item, Child(path, "key"), "Required value");
    return std::nullopt;
  }
  r.key = ctx.String(key, Child(path, "key")).value_or("");
  const YAML::Node op = Get(item, "operator");
  if (!Present(op)) {
    ctx.Error(item, Child(path, "operator"), "Required value");
    return std::nullopt;
  }
  std::optional<DeviceSelectorOp> parsed =
      ctx.Enum<DeviceSelectorOp>(op, Child(path, "operator"),
                                 {{"In", DeviceSelectorOp::kIn},
                                  {"NotIn", DeviceSelectorOp::kNotIn},
                                  {"Eq", DeviceSelectorOp::kEq},
                                  {"Exists", DeviceSelectorOp::kExists},
                                  {"DoesNotExist", DeviceSelectorOp::kDoesNotExist},
                                  {"Gt", DeviceSelectorOp::kGt},
                                  {"GtEq", DeviceSelectorOp::kGtEq},
                                  {"Lt", DeviceSelectorOp::kLt},
                                  {"LtEq", DeviceSelectorOp::kLtEq}});
  if (!parsed.has_value()) {
    return std::nullopt;
  }
  r.op = *parsed;
  r.values = ctx.StringList(Get(item, "values"), Child(path, "values"))
                 .value_or(std::vector<std::string>{});
  if (engine::Status valid = engine::ValidateRequirement(r); !valid.ok()) {
    ctx.Error(item, path, std::string(valid.message()));
    return std::nullopt;
  }
  return r;
}

void ParseSelectors(ObjectContext& ctx, const YAML::Node& spec, engine::ResourceClassSpec& out) {
  const std::string path = "spec.resourceSelector";
  std::optional<YAML::Node> list = OptionalSequence(ctx, spec, "resourceSelector", path);
  if (!list.has_value()) {
    return;  // no selector: the class selects nothing (the seed's "null or empty selector")
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string item_path = Index(path, i);
    const YAML::Node item = (*list)[i];
    engine::DevicePropertySelector selector;
    if (Present(item) && ctx.ExpectMap(item, item_path)) {
      ctx.CheckKeys(item, item_path, {"matchExpressions"});
      const std::string exprs_path = Child(item_path, "matchExpressions");
      if (std::optional<YAML::Node> exprs =
              OptionalSequence(ctx, item, "matchExpressions", exprs_path)) {
        for (size_t j = 0; j < exprs->size(); ++j) {
          if (std::optional<engine::DeviceSelectorRequirement> r =
                  ParseRequirement(ctx, (*exprs)[j], Index(exprs_path, j))) {
            selector.match_expressions.push_back(std::move(*r));
          }
        }
      }
    }
    out.resource_selector.push_back(std::move(selector));
  }
}

std::optional<engine::DeviceSpec> ParseDevice(ObjectContext& ctx, const YAML::Node& item,
                                              const std::string& path) {
  if (!ctx.ExpectMap(item, path)) {
    return std::nullopt;
  }
  ctx.CheckKeys(item, path, {"name", "kind", "count", "properties"});
  engine::DeviceSpec d;
  const YAML::Node name = Get(item, "name");
  if (!Present(name)) {
    ctx.Error(item, Child(path, "name"), "Required value: the device name allocations record");
    return std::nullopt;
  }
  d.name = ctx.String(name, Child(path, "name")).value_or("");
  d.kind = ctx.String(Get(item, "kind"), Child(path, "kind")).value_or("");
  if (const YAML::Node count = Get(item, "count"); Present(count)) {
    std::optional<int32_t> n = ctx.Int32(count, Child(path, "count"));
    if (n.has_value() && *n < 1) {
      ctx.Error(count, Child(path, "count"),
                fmt::format("Invalid value: {}: must be at least 1", *n));
      return std::nullopt;
    }
    d.count = n.value_or(1);
  }
  d.properties = ctx.StringMap(Get(item, "properties"), Child(path, "properties"))
                     .value_or(std::map<std::string, std::string>{});
  return d;
}

}  // namespace

bool ParseResourceClass(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::ResourceClassSpec rc;
  rc.name = meta->name;
  rc.source = ctx.source();
  if (std::optional<YAML::Node> s = SpecOf(ctx, obj)) {
    ctx.CheckKeys(*s, "spec", {"resourceSelector"});
    ParseSelectors(ctx, *s, rc);
  }
  // status (allocatable / requested) is computed by tally, never read.
  spec.resource_classes.push_back(std::move(rc));
  return true;
}

bool ParseNode(const YAML::Node& obj, ObjectContext& ctx, engine::ClusterSpec& spec) {
  std::optional<Metadata> meta = ParseMetadata(ctx, obj, /*namespaced=*/false);
  if (!meta.has_value()) {
    return false;
  }
  CheckTopLevelKeys(ctx, obj);
  engine::NodeSpec node;
  node.name = meta->name;
  node.source = ctx.source();
  node.labels = ctx.StringMap(Get(Get(obj, "metadata"), "labels"), "metadata.labels")
                    .value_or(std::map<std::string, std::string>{});
  // A `kubectl get node -o yaml` dump carries much more; only labels and devices matter here.
  if (std::optional<YAML::Node> status = OptionalMap(ctx, obj, "status", "status")) {
    const std::string path = "status.devices";
    if (std::optional<YAML::Node> devices = OptionalSequence(ctx, *status, "devices", path)) {
      std::set<std::string> names;
      for (size_t i = 0; i < devices->size(); ++i) {
        const std::string item_path = Index(path, i);
        std::optional<engine::DeviceSpec> d = ParseDevice(ctx, (*devices)[i], item_path);
        if (!d.has_value()) {
          continue;
        }
        if (!names.insert(d->name).second) {
          ctx.Error((*devices)[i], Child(item_path, "name"),
                    fmt::format("Duplicate value: \"{}\" (one entry per device name, with a count)",
                                d->name));
          continue;
        }
        node.devices.push_back(std::move(*d));
      }
    }
  }
  spec.nodes.push_back(std::move(node));
  return true;
}

}  // namespace replay::internal
