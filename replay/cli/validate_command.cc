// File: replay/cli/validate_command.cc
//
// `tally validate`: its flags and help; the work is RunValidate (replay/report/validate.h).
#include <memory>

#include "replay/cli/commands.h"
#include "replay/report/validate.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

Command AddValidateCommand(CLI::App& app) {
  auto validate = std::make_shared<replay::ValidateOptions>();
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "Load Kueue manifests, validate them as Kueue's webhooks do, print the cohort forest");
  CheckManifestPaths(validate_cmd
                         ->add_option("files", validate->files,
                                      "YAML or JSON manifest files or directories, - for stdin")
                         ->required());
  validate_cmd->add_option("-o,--output", validate->output, "Output format")
      ->check(CLI::IsMember({"text", "json", "yaml"}));
  AddInputLimitFlags(validate_cmd, {.yaml = true});
  return {validate_cmd, [validate] { return replay::RunValidate(*validate); }};
}

}  // namespace replay::cli
