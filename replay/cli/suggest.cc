// File: replay/cli/suggest.cc
//
// SuggestFixes (replay/cli/commands.h): after CLI11 refused a command line, "did you mean" for a
// mistyped subcommand or flag, from the app's own names (replay/io/closest_match.h).
#include <string>
#include <string_view>
#include <vector>

#include "replay/cli/commands.h"
#include "replay/io/closest_match.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

std::vector<std::string> FlagNames(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& l : option->get_lnames()) {
      names.push_back("--" + l);
    }
    for (const std::string& s : option->get_snames()) {
      names.push_back("-" + s);
    }
  }
  return names;
}

std::vector<std::string> SuggestFixes(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> out;
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands.push_back(sub->get_name());
  }
  const CLI::App* command = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (command == nullptr) {
      if (arg.empty() || arg[0] == '-') {
        continue;
      }
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        if (sub->get_name() == arg) {
          command = sub;
        }
      }
      if (command == nullptr) {
        if (std::optional<std::string> m = ClosestMatch(arg, commands)) {
          out.push_back("tally: '" + std::string(arg) + "' is not a subcommand; did you mean '" + *m
                        + "'?");
        }
        return out;
      }
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
      continue;
    }
    const std::string flag(arg.substr(0, arg.find('=')));
    const std::vector<std::string> names = FlagNames(*command);
    if (std::find(names.begin(), names.end(), flag) != names.end()) {
      continue;
    }
    if (std::optional<std::string> m = ClosestMatch(flag, names)) {
      out.push_back("tally " + command->get_name() + ": no flag " + flag + "; did you mean " + *m
                    + "?");
    }
  }
  return out;
}

}  // namespace replay::cli
