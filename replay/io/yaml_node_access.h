// File: replay/io/yaml_node_access.h
//
// Wrapping a yaml-cpp detail::node, built by tally's own readers (replay/io/yaml_tree.cc on
// libfyaml's events, replay/io/yaml_simple_subset.cc on its own), in a YAML::Node. yaml-cpp's
// constructor for it is private; its friends are its own NodeBuilder and every specialisation of
// YAML::as_if. This specialisation is the only code of tally that uses it: a node is wrapped
// exactly as yaml-cpp's NodeBuilder::Root wraps its own.
//
//   YAML::Node doc = internal::WrapYamlNode(root, memory);
#pragma once

#include <utility>

#include <yaml-cpp/node/detail/memory.h>
#include <yaml-cpp/node/detail/node.h>
#include <yaml-cpp/yaml.h>

namespace replay::internal {
struct YamlNodeAccess;  // the key of the specialisation below
}  // namespace replay::internal

template <>
struct YAML::as_if<replay::internal::YamlNodeAccess, void> {
  static YAML::Node Wrap(YAML::detail::node& node, YAML::detail::shared_memory_holder memory) {
    return YAML::Node(node, std::move(memory));
  }
};

namespace replay::internal {

inline YAML::Node WrapYamlNode(YAML::detail::node& node,
                               YAML::detail::shared_memory_holder memory) {
  return YAML::as_if<YamlNodeAccess, void>::Wrap(node, std::move(memory));
}

}  // namespace replay::internal
