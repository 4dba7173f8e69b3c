// The `tally` command line. Each subcommand lives in replay/<name>_command.{h,cc}; this file only
// wires flags to them.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "replay/audit_log_writer.h"
#include "replay/diff_command.h"
#include "replay/explain_command.h"
#include "replay/gate_command.h"
#include "replay/generate_command.h"
#include "replay/import_command.h"
#include "replay/merge_command.h"
#include "replay/replay_command.h"
#include "replay/schedule_command.h"
#include "replay/sweep_command.h"
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

  replay::ScheduleOptions schedule;
  CLI::App* schedule_cmd = app.add_subcommand(
      "schedule", "Run Kueue scheduling cycles at one instant on a dump of cluster state");
  schedule_cmd->add_option("files", schedule.files, "YAML files or directories")
      ->required()
      ->check(CLI::ExistingPath);
  schedule_cmd
      ->add_option("--cycles", schedule.cycles,
                   "Number of cycles (default: until a cycle changes nothing)")
      ->check(CLI::NonNegativeNumber);
  schedule_cmd->add_option("--now", schedule.now,
                           "The instant, RFC 3339 (default: latest timestamp in the input)");
  schedule_cmd->add_flag("--kueue-scan-reset", schedule.kueue_scan_reset,
                         "Reset flavor scans on ClusterQueue generations only, as Kueue does "
                         "(default: also on ancestor Cohort generations, as seed 003 says)");
  schedule_cmd->add_option("-o,--output", schedule.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  replay::ExplainOptions explain;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "Why is a workload not admitted, and which quota change would admit it");
  explain_cmd
      ->add_option("args", explain.files,
                   "YAML files or directories, then the workload as NAMESPACE/NAME")
      ->required()
      ->expected(1, -1);
  explain_cmd->add_option("--workload,-w", explain.workload,
                          "The workload, NAMESPACE/NAME (instead of the last argument)");
  explain_cmd->add_option("--now", explain.now,
                          "The instant, RFC 3339 (default: latest timestamp in the input)");
  explain_cmd->add_flag("--kueue-scan-reset", explain.kueue_scan_reset,
                        "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  explain_cmd->add_option("-o,--output", explain.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  replay::GenerateOptions generate;
  CLI::App* generate_cmd = app.add_subcommand(
      "generate", "Write a replayable scenario: DIR/manifests.yaml and DIR/events.jsonl");
  generate_cmd
      ->add_option("--kueue-perf", generate.kueue_perf,
                   "Kueue scheduler performance-test generator config (generator.yaml)")
      ->check(CLI::ExistingFile);
  generate_cmd->add_flag("--synthetic", generate.synthetic, "A seeded synthetic scenario");
  generate_cmd->add_option("--out", generate.out, "Output directory")->required();
  generate_cmd->add_option("--start", generate.start,
                           "Time of the configuration, RFC 3339 (default 2026-01-01T00:00:00Z)");
  replay::SyntheticOptions& synth = generate.synthetic_options;
  generate_cmd->add_option("--workloads", synth.workloads, "Synthetic: workloads")
      ->capture_default_str();
  generate_cmd->add_option("--cluster-queues", synth.cluster_queues, "Synthetic: ClusterQueues")
      ->capture_default_str();
  generate_cmd
      ->add_option("--cohort-depth", synth.cohort_depth,
                   "Synthetic: cohort levels per tree (0: no cohorts)")
      ->capture_default_str();
  generate_cmd->add_option("--trees", synth.trees, "Synthetic: independent root cohorts")
      ->capture_default_str();
  generate_cmd->add_option("--flavors", synth.flavors, "Synthetic: ResourceFlavors")
      ->capture_default_str();
  generate_cmd
      ->add_option("--resources", synth.resources,
                   "Synthetic: resources (cpu, memory, nvidia.com/gpu, example.com/res-N...)")
      ->capture_default_str();
  generate_cmd->add_option("--seed", synth.seed, "Synthetic: PRNG seed")->capture_default_str();
  generate_cmd
      ->add_option("--mean-interarrival", synth.mean_interarrival_seconds,
                   "Synthetic: mean time between arrivals, seconds (Poisson)")
      ->capture_default_str();
  generate_cmd
      ->add_option("--mean-runtime", synth.mean_runtime_seconds,
                   "Synthetic: mean runtime, seconds (log-normal)")
      ->capture_default_str();

  replay::ReplayOptions replay_opts;
  CLI::App* replay_cmd = app.add_subcommand(
      "replay", "Replay workload events on a virtual clock and report what admission looked like");
  replay_cmd
      ->add_option("--manifests", replay_opts.manifests,
                   "YAML manifests: the configuration at the start of the trace")
      ->required()
      ->check(CLI::ExistingPath);
  replay_cmd
      ->add_option("--events", replay_opts.events,
                   "Event trace, JSON lines (tally.events/v1), plain or gzip; - for stdin")
      ->required();
  replay_cmd->add_option("--out", replay_opts.out, "Output directory")->capture_default_str();
  replay_cmd->add_flag("--strict", replay_opts.strict, "Stop at the first rejected event");
  replay_cmd->add_option("--until", replay_opts.until, "Stop the virtual clock here (RFC 3339)");
  replay_cmd->add_flag("--kueue-scan-reset", replay_opts.kueue_scan_reset,
                       "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  replay_cmd->add_flag("--no-timings", replay_opts.no_timings,
                       "Leave wall-clock engine cost out of the report (byte-identical reports)");
  replay_cmd->add_flag("--quiet,-q", replay_opts.quiet, "No summary on stdout");
  replay_cmd->add_flag("!--no-progress", replay_opts.progress, "No progress bar on stderr");
  replay_cmd
      ->add_option("--threads,-j", replay_opts.threads,
                   "Worker threads (default: one per core); the output is the same for any number")
      ->check(CLI::NonNegativeNumber);
  replay_cmd
      ->add_option("--parallel-nomination", replay_opts.parallel_nomination_min_heads,
                   "Nominate a cycle's heads in parallel from this many heads (0 = never)")
      ->capture_default_str();
  replay_cmd
      ->add_option("--pods-ready-delay", replay_opts.pods_ready_delay,
                   "Model: admission to pods ready, unless an event gives podsReadyAfter")
      ->capture_default_str();
  replay_cmd
      ->add_option("--admission-check-delay", replay_opts.admission_check_delay,
                   "Model: quota reservation to all admission checks Ready")
      ->capture_default_str();
  replay_cmd->add_flag("--control-plane", replay_opts.control_plane,
                       "Model a real Kueue deployment's latencies (the next four flags)");
  replay_cmd
      ->add_option("--admit-to-running", replay_opts.admit_to_running,
                   "Control plane: Admitted to pods running")
      ->capture_default_str();
  replay_cmd
      ->add_option("--finish-to-release", replay_opts.finish_to_release,
                   "Control plane: pods finished or evicted to quota released")
      ->capture_default_str();
  replay_cmd
      ->add_option("--cycle-duration", replay_opts.cycle_duration,
                   "Control plane: virtual time one scheduling cycle takes")
      ->capture_default_str();
  replay_cmd
      ->add_option("--max-admissions-per-second", replay_opts.max_admissions_per_second,
                   "Control plane: cap on admissions per second (0: none)")
      ->check(CLI::NonNegativeNumber);
  replay_cmd
      ->add_option("--verify", replay_opts.verify,
                   "Compare the decisions with the admissions an imported audit log recorded "
                   "(its admissions.jsonl); exit 1 on any difference")
      ->check(CLI::ExistingFile);

  replay::AuditLogOptions audit_log;
  std::string audit_log_out = "audit.log";
  int64_t audit_log_max_lines = 0;
  CLI::App* audit_log_cmd = app.add_subcommand(
      "audit-log",
      "A synthetic API server audit log of a replayed scenario (docs/import.md), for tests");
  audit_log_cmd->add_option("--manifests", audit_log.manifests, "The scenario's manifests")
      ->required();
  audit_log_cmd->add_option("--events", audit_log.events, "The scenario's events")
      ->required()
      ->check(CLI::ExistingFile);
  audit_log_cmd
      ->add_option("--decisions", audit_log.decisions,
                   "decisions.jsonl of `tally replay` on those manifests and events")
      ->required()
      ->check(CLI::ExistingFile);
  audit_log_cmd->add_option("--out", audit_log_out, "The log file (the newest, when rotated)")
      ->capture_default_str();
  audit_log_cmd
      ->add_option("--max-lines", audit_log_max_lines,
                   "Rotate after this many lines, as kube-apiserver's --audit-log-maxsize does")
      ->check(CLI::NonNegativeNumber);
  audit_log_cmd->add_option("--api-version", audit_log.api_version, "audit.k8s.io/v1 or v1beta1")
      ->capture_default_str();
  audit_log_cmd->add_flag("--noise,!--no-noise", audit_log.noise,
                          "Interleave unrelated traffic (leases, reads, Secrets and ConfigMaps "
                          "with canary values, conflicts, a denied request); on by default");
  audit_log_cmd->add_option("--seed", audit_log.seed, "Seed of IDs and noise")
      ->capture_default_str();

  replay::DiffOptions diff;
  CLI::App* diff_cmd = app.add_subcommand(
      "diff", "Compare two tally replay output directories (docs/diff-and-gate.md)");
  diff_cmd->add_option("a", diff.a, "Replay output directory A")->required();
  diff_cmd->add_option("b", diff.b, "Replay output directory B")->required();
  diff_cmd->add_option("-o,--output", diff.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  diff_cmd->add_option("--top", diff.top, "Workloads listed per change kind")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();

  replay::GateOptions gate;
  CLI::App* gate_cmd = app.add_subcommand(
      "gate", "Fail when a candidate replay is worse than a baseline beyond limits (CI)");
  gate_cmd->add_option("--baseline", gate.baseline, "Baseline replay output directory")->required();
  gate_cmd->add_option("--candidate", gate.candidate, "Candidate replay output directory")
      ->required();
  gate_cmd
      ->add_option("--max", gate.limits,
                   "METRIC[@CLUSTERQUEUE]=LIMIT, e.g. p99_wait=+10% utilisation=-2pp")
      ->required();
  gate_cmd->add_option("--junit", gate.junit, "Also write the checks as JUnit XML to FILE");

  replay::SweepOptions sweep;
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "Replay one trace under several policy variants and compare them (docs/sweep.md)");
  sweep_cmd
      ->add_option("--manifests", sweep.manifests,
                   "YAML manifests: the baseline configuration at the start of the trace")
      ->required()
      ->check(CLI::ExistingPath);
  sweep_cmd->add_option("--events", sweep.events, "Event trace, JSON lines, plain or gzip")
      ->required();
  sweep_cmd
      ->add_option("--overlay", sweep.overlays,
                   "A variant: YAML documents deep-merged into the objects they name (repeatable)")
      ->check(CLI::ExistingFile);
  sweep_cmd->add_option("--set", sweep.sets,
                        "KIND/NAME:field.path=v1,v2,...: variants, the product of all --set flags");
  sweep_cmd->add_option("--out", sweep.out, "Output directory")->capture_default_str();
  sweep_cmd->add_option("--shard", sweep.shard,
                        "i/N: replay only the variants with index % N == i (combine: tally merge)");
  sweep_cmd
      ->add_option("--jobs,-j", sweep.jobs, "Variants replayed at once (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  sweep_cmd->add_option("-o,--output", sweep.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  sweep_cmd->add_option("--until", sweep.until, "Stop the virtual clock here (RFC 3339)");
  sweep_cmd->add_flag("--kueue-scan-reset", sweep.kueue_scan_reset,
                      "Reset flavor scans on ClusterQueue generations only, as Kueue does");
  sweep_cmd
      ->add_option("--pods-ready-delay", sweep.pods_ready_delay,
                   "Model: admission to pods ready, unless an event gives podsReadyAfter")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--admission-check-delay", sweep.admission_check_delay,
                   "Model: quota reservation to all admission checks Ready")
      ->capture_default_str();
  sweep_cmd->add_flag("--control-plane", sweep.control_plane,
                      "Model a real Kueue deployment's latencies (the next four flags)");
  sweep_cmd
      ->add_option("--admit-to-running", sweep.admit_to_running,
                   "Control plane: Admitted to pods running")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--finish-to-release", sweep.finish_to_release,
                   "Control plane: pods finished or evicted to quota released")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--cycle-duration", sweep.cycle_duration,
                   "Control plane: virtual time one scheduling cycle takes")
      ->capture_default_str();
  sweep_cmd
      ->add_option("--max-admissions-per-second", sweep.max_admissions_per_second,
                   "Control plane: cap on admissions per second (0: none)")
      ->check(CLI::NonNegativeNumber);

  replay::MergeOptions merge;
  CLI::App* merge_cmd = app.add_subcommand(
      "merge", "Combine the slices of a tally sweep --shard i/N into one table (docs/sweep.md)");
  merge_cmd->add_option("dirs", merge.dirs, "The slices' output directories")->required();
  merge_cmd->add_option("--out", merge.out,
                        "Also copy the variants into DIR with a merged sweep.json");
  merge_cmd->add_option("-o,--output", merge.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}));

  replay::ImportCommandOptions import_options;
  CLI::App* import_cmd = app.add_subcommand(
      "import", "Turn recorded history into manifests and events (docs/import.md)");
  import_cmd->require_subcommand(1);
  replay::PhillyImportOptions philly;
  CLI::App* philly_cmd = import_cmd->add_subcommand(
      "philly", "The Microsoft Philly trace (Pollux's philly.csv, plain or gzip)");
  philly_cmd->add_option("file", philly.path, "philly.csv or philly.csv.gz")
      ->required()
      ->check(CLI::ExistingFile);
  philly_cmd
      ->add_option("--total-gpus", philly.total_gpus,
                   "GPUs of the whole cohort (default: mean demand x headroom, whole nodes)")
      ->check(CLI::NonNegativeNumber);
  philly_cmd->add_option("--gpus-per-node", philly.gpus_per_node, "GPUs per node (pod size cap)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  philly_cmd->add_option("--headroom", philly.headroom, "Derived total = mean GPU demand x this")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  philly_cmd->add_option("--cohort", philly.cohort, "Cohort of the VCs' ClusterQueues")
      ->capture_default_str();
  replay::AuditImportOptions audit;
  CLI::App* audit_cmd = import_cmd->add_subcommand(
      "audit", "Kubernetes API server audit logs (audit.k8s.io/v1, v1beta1; plain or gzip)");
  audit_cmd->add_option("files", audit.paths, "Audit log files, rotated ones in any order")
      ->required()
      ->check(CLI::ExistingFile);
  replay::AlibabaGpuImportOptions alibaba;
  CLI::App* alibaba_cmd = import_cmd->add_subcommand(
      "alibaba-gpu", "Alibaba cluster-trace-gpu-v2023 (openb_pod_list_*.csv and a node list)");
  alibaba_cmd->add_option("pods", alibaba.pods, "openb_pod_list_*.csv")
      ->required()
      ->check(CLI::ExistingFile);
  alibaba_cmd->add_option("--nodes", alibaba.nodes, "openb_node_list_*.csv: flavors and quotas")
      ->required()
      ->check(CLI::ExistingFile);
  alibaba_cmd->add_option("--tenants", alibaba.tenants, "Tenants (a hash of the pod name)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  alibaba_cmd->add_option("--cohort", alibaba.cohort, "Cohort of the tenants' ClusterQueues")
      ->capture_default_str();
  replay::AlibabaDlrmImportOptions dlrm;
  CLI::App* dlrm_cmd = import_cmd->add_subcommand(
      "alibaba-dlrm",
      "Alibaba cluster-trace-gpu-v2025 (disaggregated_DLRM_trace.csv, plain or gzip)");
  dlrm_cmd->add_option("file", dlrm.path, "disaggregated_DLRM_trace.csv or .csv.gz")
      ->required()
      ->check(CLI::ExistingFile);
  dlrm_cmd->add_option("--tenants", dlrm.tenants, "Tenants (a hash of app_name)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  dlrm_cmd
      ->add_option("--headroom", dlrm.headroom,
                   "Quotas = peak demand (every instance placed on arrival) x this")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 1000.0));
  dlrm_cmd->add_option("--cohort", dlrm.cohort, "Cohort of the tenants' ClusterQueues")
      ->capture_default_str();
  for (CLI::App* source : {philly_cmd, audit_cmd, alibaba_cmd, dlrm_cmd}) {
    source->add_option("--out", import_options.out, "Output directory")->capture_default_str();
    source->add_flag("--strict", import_options.strict, "Exit 1 when any row was skipped");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (audit_log_cmd->parsed()) {
    return replay::RunAuditLog(audit_log, audit_log_out, audit_log_max_lines);
  }
  if (alibaba_cmd->parsed()) {
    return replay::RunImportAlibabaGpu(alibaba, import_options);
  }
  if (dlrm_cmd->parsed()) {
    return replay::RunImportAlibabaDlrm(dlrm, import_options);
  }
  if (audit_cmd->parsed()) {
    return replay::RunImportAudit(audit, import_options);
  }
  if (philly_cmd->parsed()) {
    return replay::RunImportPhilly(philly, import_options);
  }
  if (validate_cmd->parsed()) {
    return replay::RunValidate(validate);
  }
  if (replay_cmd->parsed()) {
    return replay::RunReplay(replay_opts);
  }
  if (schedule_cmd->parsed()) {
    return replay::RunSchedule(schedule);
  }
  if (generate_cmd->parsed()) {
    return replay::RunGenerate(generate);
  }
  if (diff_cmd->parsed()) {
    return replay::RunDiff(diff);
  }
  if (gate_cmd->parsed()) {
    return replay::RunGate(gate);
  }
  if (sweep_cmd->parsed()) {
    return replay::RunSweep(sweep);
  }
  if (merge_cmd->parsed()) {
    return replay::RunMerge(merge);
  }
  if (explain_cmd->parsed()) {
    if (explain.workload.empty()) {
      explain.workload = explain.files.back();
      explain.files.pop_back();
    }
    for (const std::string& f : explain.files) {
      if (!std::filesystem::exists(f)) {
        std::fprintf(stderr, "error: %s: no such file or directory\n", f.c_str());
        return 2;
      }
    }
    return replay::RunExplain(explain);
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
