// File: replay/cli/feature_gates_flag.cc
//
// The `--feature-gates` flag shared by the commands that schedule (replay/cli/commands.h).
#include <string>
#include <utility>
#include <vector>

#include "engine/feature_gates.h"
#include "replay/cli/commands.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

void AddFeatureGatesFlag(CLI::App* cmd, std::vector<std::pair<std::string, bool>>* out) {
  cmd->add_option_function<std::vector<std::string>>(
         "--feature-gates",
         [out](const std::vector<std::string>& texts) {
           // Repeated flags accumulate; a later value of the same gate wins.
           for (const std::string& text : texts) {
             engine::StatusOr<std::vector<std::pair<std::string, bool>>> gates =
                 engine::ParseFeatureGateList(text);
             if (!gates.ok()) {
               throw CLI::ValidationError("--feature-gates", gates.status().message());
             }
             out->insert(out->end(), gates->begin(), gates->end());
           }
         },
         "Kueue feature gates, Name=true|false,... (overrides the Configuration's featureGates; "
         "docs/feature-gates.md lists the gates and which tally models)")
      ->expected(1)
      ->allow_extra_args(false)  // one value per --feature-gates; the flag may be repeated
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("LIST");
}

}  // namespace replay::cli
