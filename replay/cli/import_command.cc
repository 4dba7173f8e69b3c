// File: replay/cli/import_command.cc
//
// `tally import SOURCE`: the flags of each source; the work is replay/import/import_run.h.
#include <memory>
#include <vector>

#include "replay/cli/commands.h"
#include "replay/import/import_run.h"

#include <CLI/CLI.hpp>

namespace replay::cli {

std::vector<Command> AddImportCommands(CLI::App& app) {
  auto import_options = std::make_shared<replay::ImportCommandOptions>();
  CLI::App* import_cmd = app.add_subcommand(
      "import", "Turn recorded history into manifests and events (docs/import.md)");
  import_cmd->require_subcommand(1);
  auto philly = std::make_shared<replay::PhillyImportOptions>();
  CLI::App* philly_cmd = import_cmd->add_subcommand(
      "philly", "The Microsoft Philly trace (Pollux's philly.csv, plain or gzip)");
  philly_cmd->add_option("file", philly->path, "philly.csv or philly.csv.gz")
      ->required()
      ->check(CLI::ExistingFile);
  philly_cmd
      ->add_option("--total-gpus", philly->total_gpus,
                   "GPUs of the whole cohort (default: mean demand x headroom, whole nodes)")
      ->check(CLI::NonNegativeNumber);
  philly_cmd->add_option("--gpus-per-node", philly->gpus_per_node, "GPUs per node (pod size cap)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  philly_cmd->add_option("--headroom", philly->headroom, "Derived total = mean GPU demand x this")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  philly_cmd->add_option("--cohort", philly->cohort, "Cohort of the VCs' ClusterQueues")
      ->capture_default_str();
  auto audit = std::make_shared<replay::AuditImportOptions>();
  CLI::App* audit_cmd = import_cmd->add_subcommand(
      "audit", "Kubernetes API server audit logs (audit.k8s.io/v1, v1beta1; plain or gzip)");
  audit_cmd->add_option("files", audit->paths, "Audit log files, rotated ones in any order")
      ->required()
      ->check(CLI::ExistingFile);
  auto alibaba = std::make_shared<replay::AlibabaGpuImportOptions>();
  CLI::App* alibaba_cmd = import_cmd->add_subcommand(
      "alibaba-gpu", "Alibaba cluster-trace-gpu-v2023 (openb_pod_list_*.csv and a node list)");
  alibaba_cmd->add_option("pods", alibaba->pods, "openb_pod_list_*.csv")
      ->required()
      ->check(CLI::ExistingFile);
  alibaba_cmd->add_option("--nodes", alibaba->nodes, "openb_node_list_*.csv: flavors and quotas")
      ->required()
      ->check(CLI::ExistingFile);
  alibaba_cmd->add_option("--tenants", alibaba->tenants, "Tenants (a hash of the pod name)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  alibaba_cmd->add_option("--cohort", alibaba->cohort, "Cohort of the tenants' ClusterQueues")
      ->capture_default_str();
  auto dlrm = std::make_shared<replay::AlibabaDlrmImportOptions>();
  CLI::App* dlrm_cmd = import_cmd->add_subcommand(
      "alibaba-dlrm",
      "Alibaba cluster-trace-gpu-v2025 (disaggregated_DLRM_trace.csv, plain or gzip)");
  dlrm_cmd->add_option("file", dlrm->path, "disaggregated_DLRM_trace.csv or .csv.gz")
      ->required()
      ->check(CLI::ExistingFile);
  dlrm_cmd->add_option("--tenants", dlrm->tenants, "Tenants (a hash of app_name)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  dlrm_cmd
      ->add_option("--headroom", dlrm->headroom,
                   "Quotas = peak demand (every instance placed on arrival) x this")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1000.0));
  dlrm_cmd->add_option("--cohort", dlrm->cohort, "Cohort of the tenants' ClusterQueues")
      ->capture_default_str();
  audit_cmd
      ->add_option("--max-line-bytes", audit->max_line_bytes,
                   "Longer audit lines are skipped unread (the logs are streamed)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  for (auto [source, max_line_bytes] : {std::pair{philly_cmd, &philly->max_line_bytes},
                                        std::pair{alibaba_cmd, &alibaba->max_line_bytes},
                                        std::pair{dlrm_cmd, &dlrm->max_line_bytes}}) {
    // The CSVs are streamed: a longer row is read through, not kept, and counted as skipped.
    source->add_option("--max-line-bytes", *max_line_bytes, "Longer CSV rows are skipped unread")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    AddInputLimitFlags(source, {.whole_files = true});
  }
  for (CLI::App* source : {philly_cmd, audit_cmd, alibaba_cmd, dlrm_cmd}) {
    source->add_option("--out", import_options->out, "Output directory")->capture_default_str();
    source->add_flag("--strict", import_options->strict, "Exit 1 when any row was skipped");
  }
  return {
      {philly_cmd,
       [philly, import_options] { return replay::RunImportPhilly(*philly, *import_options); }},
      {audit_cmd,
       [audit, import_options] { return replay::RunImportAudit(*audit, *import_options); }},
      {alibaba_cmd,
       [alibaba, import_options] {
         return replay::RunImportAlibabaGpu(*alibaba, *import_options);
       }},
      {dlrm_cmd,
       [dlrm, import_options] { return replay::RunImportAlibabaDlrm(*dlrm, *import_options); }},
  };
}

}  // namespace replay::cli
