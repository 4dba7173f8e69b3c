// File: replay/io/field_values.h
//
// Internal to the manifest loader: typed scalar fields of a manifest object shared by the per-kind
// parsers (replay/io/workload_fields.h, pod_set_fields.h, workload_status_fields.h), and how a
// value is quoted in a message. Every error goes through the ObjectContext, with its path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "replay/io/manifest_context.h"

#include <yaml-cpp/yaml.h>

namespace replay::internal {

// "\"value\"", as Kubernetes quotes a value in a field error.
std::string Quoted(std::string_view s);
// "Invalid value: \"value\": why".
std::string Invalid(std::string_view value, std::string_view why);
// A required string field: nullopt plus a "Required value" error when absent or empty.
std::optional<std::string> RequiredString(ObjectContext& ctx, const YAML::Node& map,
                                          std::string_view key, const std::string& path,
                                          std::string_view what);
// An RFC 3339 timestamp, as microseconds since the epoch.
std::optional<int64_t> Time(ObjectContext& ctx, const YAML::Node& node, const std::string& path);
// A Go duration ("90s", "1h30m"), as microseconds; nullopt without error when absent.
std::optional<int64_t> DurationField(ObjectContext& ctx, const YAML::Node& node,
                                     const std::string& path);
// An int32 field that must be >= `min`.
std::optional<int32_t> Int32AtLeast(ObjectContext& ctx, const YAML::Node& node,
                                    const std::string& path, int32_t min);

}  // namespace replay::internal
