#include "replay/io/yaml_expansion.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace replay {

std::optional<YamlExpansionIssue> FindYamlExpansionIssue(const YAML::Node& document,
                                                         const InputLimits& limits) {
  std::vector<std::pair<YAML::Node, size_t>> stack;  // node, depth
  stack.emplace_back(document, 1);
  size_t visited = 0;
  while (!stack.empty()) {
    auto [node, depth] = std::move(stack.back());
    stack.pop_back();
    if (!node.IsDefined()) {
      continue;
    }
    const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    if (depth > limits.yaml_max_depth) {
      return YamlExpansionIssue{
          line, fmt::format("YAML nested deeper than {} levels once aliases are followed (an alias "
                            "inside its own anchor nests without end; --max-yaml-depth)",
                            limits.yaml_max_depth)};
    }
    if (++visited > limits.yaml_max_nodes) {
      return YamlExpansionIssue{
          line, fmt::format("YAML expands to more than {} nodes once aliases are followed "
                            "(each alias repeats its anchored node; --max-yaml-nodes)",
                            limits.yaml_max_nodes)};
    }
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) {
        stack.emplace_back(item, depth + 1);
      }
    } else if (node.IsMap()) {
      for (const auto& kv : node) {
        stack.emplace_back(kv.first, depth + 1);
        stack.emplace_back(kv.second, depth + 1);
      }
    }
  }
  return std::nullopt;
}

engine::Status CheckYamlExpansion(const YAML::Node& document, std::string_view file,
                                  const InputLimits& limits) {
  if (std::optional<YamlExpansionIssue> issue = FindYamlExpansionIssue(document, limits)) {
    return engine::InvalidArgument(fmt::format("{}:{}: {}", file, issue->line, issue->message));
  }
  return engine::Status::Ok();
}

}  // namespace replay
