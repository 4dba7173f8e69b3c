#include "replay/io/field_values.h"

#include <fmt/format.h>

#include "replay/io/time_parse.h"

namespace replay::internal {

std::string Quoted(std::string_view s) {
  return fmt::format("\"{}\"", s);
}

std::string Invalid(std::string_view value, std::string_view why) {
  return fmt::format("Invalid value: \"{}\": {}", value, why);
}

std::optional<std::string> RequiredString(ObjectContext& ctx, const YAML::Node& map,
                                          std::string_view key, const std::string& path,
                                          std::string_view what) {
  YAML::Node node = Get(map, key);
  const int errors_before = ctx.error_count();
  std::optional<std::string> value = ctx.String(node, path);
  if (value.has_value() && !value->empty()) {
    return value;
  }
  if (ctx.error_count() == errors_before) {
    ctx.Error(Present(node) ? node : map, path, fmt::format("Required value: {}", what));
  }
  return std::nullopt;
}

std::optional<int64_t> Time(ObjectContext& ctx, const YAML::Node& node, const std::string& path) {
  std::optional<std::string> text = ctx.String(node, path);
  if (!text.has_value()) {
    return std::nullopt;
  }
  engine::StatusOr<int64_t> t = ParseRfc3339(*text);
  if (!t.ok()) {
    ctx.Error(node, path, t.status().message());
    return std::nullopt;
  }
  return *t;
}

std::optional<int32_t> Int32AtLeast(ObjectContext& ctx, const YAML::Node& node,
                                    const std::string& path, int32_t min) {
  std::optional<int32_t> value = ctx.Int32(node, path);
  if (value.has_value() && *value < min) {
    ctx.Error(node, path,
              fmt::format("Invalid value: {}: must be greater than or equal to {}", *value, min));
    return std::nullopt;
  }
  return value;
}

std::optional<int64_t> DurationField(ObjectContext& ctx, const YAML::Node& node,
                                     const std::string& path) {
  if (!Present(node)) {
    return std::nullopt;
  }
  std::optional<std::string> text = ctx.String(node, path);
  if (!text) {
    return std::nullopt;
  }
  engine::StatusOr<int64_t> d = ParseGoDuration(*text);
  if (!d.ok()) {
    ctx.Error(node, path, d.status().message());
    return std::nullopt;
  }
  return *d;
}

}  // namespace replay::internal
