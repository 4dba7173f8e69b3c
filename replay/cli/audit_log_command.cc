// File: replay/cli/audit_log_command.cc
//
// `tally audit-log`: its flags and help; the work is RunAuditLog
// (replay/generate/audit_log_writer.h).
#include <cstdint>
#include <memory>
#include <string>

#include "replay/cli/commands.h"
#include "replay/generate/audit_log_writer.h"

#include <CLI/CLI.hpp>

namespace replay::cli {
namespace {

struct AuditLogFlags {
  replay::AuditLogOptions options;
  std::string out = "audit.log";
  int64_t max_lines = 0;
};

}  // namespace

Command AddAuditLogCommand(CLI::App& app) {
  auto audit_log = std::make_shared<AuditLogFlags>();
  CLI::App* audit_log_cmd = app.add_subcommand(
      "audit-log",
      "A synthetic API server audit log of a replayed scenario (docs/import.md), for tests");
  audit_log_cmd->add_option("--manifests", audit_log->options.manifests, "The scenario's manifests")
      ->required();
  audit_log_cmd->add_option("--events", audit_log->options.events, "The scenario's events")
      ->required()
      ->check(CLI::ExistingFile);
  audit_log_cmd
      ->add_option("--decisions", audit_log->options.decisions,
                   "decisions.jsonl of `tally replay` on those manifests and events")
      ->required()
      ->check(CLI::ExistingFile);
  audit_log_cmd->add_option("--out", audit_log->out, "The log file (the newest, when rotated)")
      ->capture_default_str();
  audit_log_cmd
      ->add_option("--max-lines", audit_log->max_lines,
                   "Rotate after this many lines, as kube-apiserver's --audit-log-maxsize does")
      ->check(CLI::NonNegativeNumber);
  audit_log_cmd
      ->add_option("--api-version", audit_log->options.api_version, "audit.k8s.io/v1 or v1beta1")
      ->capture_default_str();
  audit_log_cmd->add_flag("--noise,!--no-noise", audit_log->options.noise,
                          "Interleave unrelated traffic (leases, reads, Secrets and ConfigMaps "
                          "with canary values, conflicts, a denied request); on by default");
  audit_log_cmd->add_option("--seed", audit_log->options.seed, "Seed of IDs and noise")
      ->capture_default_str();
  return {audit_log_cmd, [audit_log] {
            return replay::RunAuditLog(audit_log->options, audit_log->out, audit_log->max_lines);
          }};
}

}  // namespace replay::cli
