// File: replay/cli/manifest_paths.cc
//
// CheckManifestPaths (replay/cli/commands.h): CLI11's ExistingPath, or `-` (standard input, read
// by replay/io/manifest_loader.cc).
#include <string>

#include "replay/cli/commands.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

CLI::Option* CheckManifestPaths(CLI::Option* option) {
  static const CLI::Validator path_or_stdin(
      [](std::string& value) -> std::string {
        return value == "-" ? std::string() : CLI::ExistingPath(value);
      },
      "PATH or -");
  return option->check(path_or_stdin);
}

}  // namespace replay::cli
