// File: test/replay/io/shipped_yaml_files.h
//
// Every YAML file shipped in data/ and test/ (`.yaml`, `.yml`), for the YAML reader tests that
// compare two readers on all of them.
//
//   ForEachShippedYamlFile([&](const std::string& name, const std::string& text) { ... });
//   // name: the path from the source directory ("data/samples/cluster.yaml")
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace replay::testing_yaml {

inline std::string ReadWholeFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

template <typename F>
void ForEachShippedYamlFile(F&& f) {
  const std::filesystem::path source(TALLY_SOURCE_DIR);
  for (const char* dir : {"data", "test"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(source / dir)) {
      const std::string ext = entry.path().extension().string();
      if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) {
        f(entry.path().lexically_relative(source).string(), ReadWholeFile(entry.path()));
      }
    }
  }
}

}  // namespace replay::testing_yaml
