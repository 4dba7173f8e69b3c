// File: test/replay/io/loader_test_support.h
//
// What the manifest and workload loader tests (and the time parser's) share: a substring
// matcher with a readable failure, the load errors as text, and loading a YAML string.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/io/manifest_loader.h"

namespace replay {

inline ::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "\"" << text << "\" does not contain \"" << part << "\"";
}

inline std::string Dump(const std::vector<LoadError>& errors) {
  std::string out;
  for (const LoadError& e : errors) {
    out += e.ToString() + "\n";
  }
  return out;
}

inline LoadResult Load(const std::string& yaml) {
  return LoadManifestString(yaml, "test.yaml");
}

}  // namespace replay
