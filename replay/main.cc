// The `tally` command line. Each subcommand lives in replay/<name>_command.{h,cc}; this file only
// wires flags to them.
#include <cstdio>
#include <exception>

#include "replay/validate_command.h"

#include <CLI/CLI.hpp>

namespace {

int Run(int argc, char** argv) {
  CLI::App app{"tally: admission policy engine and batch-replay benchmark for Kueue-style quotas"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "tally 0.1.0");

  replay::ValidateOptions validate;
  CLI::App* validate_cmd = app.add_subcommand(
      "validate",
      "Load Kueue manifests, validate them as Kueue's webhooks do, print the cohort forest");
  validate_cmd->add_option("files", validate.files, "YAML manifest files or directories")
      ->required()
      ->check(CLI::ExistingPath);
  validate_cmd->add_option("-o,--output", validate.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (validate_cmd->parsed()) {
    return replay::RunValidate(validate);
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Nothing below is expected to throw (errors are values); this only turns an unexpected
  // exception, e.g. std::bad_alloc, into a message and a distinct exit status instead of abort().
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tally: internal error: %s\n", e.what());
    return 3;
  }
}
