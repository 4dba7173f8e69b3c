// File: engine/base/slash_join.h
//
// "a/b": the keys of namespaced objects ("namespace/name") and of the shard planner's nodes
// ("Kind/name"). Built on hot paths (every workload added, every event routed), where
// fmt::format's runtime format-string parsing cost more than the join itself.
//
//   SlashJoin("team-a", "main") == "team-a/main"
#pragma once

#include <string>
#include <string_view>

namespace engine {

inline std::string SlashJoin(std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(a.size() + 1 + b.size());
  out.append(a);
  out.push_back('/');
  out.append(b);
  return out;
}

}  // namespace engine
