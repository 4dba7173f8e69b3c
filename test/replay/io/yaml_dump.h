// File: test/replay/io/yaml_dump.h
//
// A yaml-cpp tree as one line of text, to compare two trees in a test: every node's type, tag,
// collection style, scalar and position (line:column, 0-based; with `offsets`, the byte offset
// too). Shared by the YAML reader tests.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace replay::testing_yaml {

inline void Dump(const YAML::Node& node, std::string& out, bool offsets = false) {
  out += fmt::format("@{}:{}<{}>", node.Mark().line, node.Mark().column, node.Tag());
  if (offsets) {
    out += fmt::format("+{}", node.Mark().pos);
  }
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out += node.Style() == YAML::EmitterStyle::Flow ? "F{" : "{";
      for (const auto& kv : node) {
        Dump(kv.first, out, offsets);
        out += "=";
        Dump(kv.second, out, offsets);
        out += ",";
      }
      out += "}";
      break;
    case YAML::NodeType::Sequence:
      out += node.Style() == YAML::EmitterStyle::Flow ? "F[" : "[";
      for (const auto& item : node) {
        Dump(item, out, offsets);
        out += ",";
      }
      out += "]";
      break;
    case YAML::NodeType::Scalar:
      out += "'" + node.Scalar() + "'";
      break;
    case YAML::NodeType::Null:
      out += "~";
      break;
    default:
      out += "?undefined";
  }
}

// One line per document.
inline std::string DumpAll(const std::vector<YAML::Node>& docs, bool offsets = false) {
  std::string out;
  for (const YAML::Node& d : docs) {
    Dump(d, out, offsets);
    out += "\n";
  }
  return out;
}

}  // namespace replay::testing_yaml
