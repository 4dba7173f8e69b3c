#include "replay/report/validate.h"

#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "engine/cluster.h"
#include "replay/io/json_to_yaml.h"
#include "replay/io/json_writer.h"
#include "replay/io/manifest_loader.h"
#include "replay/report/forest_report.h"
#include "replay/sim/cluster_state.h"

namespace replay {
namespace {

void WriteIssues(const std::vector<LoadError>& issues, JsonWriter& out) {
  out.BeginArray();
  for (const LoadError& e : issues) {
    out.BeginObject();
    out.Key("document");
    out.Int(e.document);
    out.Key("field");
    out.String(e.field_path);
    out.Key("file");
    out.String(e.file);
    out.Key("kind");
    out.String(e.kind);
    out.Key("line");
    out.Int(e.line);
    out.Key("message");
    out.String(e.message);
    out.Key("name");
    out.String(e.name);
    out.EndObject();
  }
  out.EndArray();
}

void WriteCounts(const LoadResult& result, JsonWriter& out) {
  out.BeginObject();
  out.Key("documents");
  out.Int(result.documents_read);
  out.Key("emptyDocuments");
  out.Int(result.empty_documents);
  out.Key("files");
  out.Int(result.files_read);
  out.Key("loaded");
  out.BeginObject();
  for (const auto& [kind, count] : result.loaded_by_kind) {  // std::map: sorted keys
    out.Key(kind);
    out.Int(count);
  }
  out.EndObject();
  out.Key("skipped");
  out.BeginObject();
  for (const auto& [kind, count] : result.skipped_by_kind) {
    out.Key(kind);
    out.Int(count);
  }
  out.EndObject();
  out.Key("skippedUnknown");
  out.Int(result.skipped_unknown);
  out.Key("workloadsSkipped");
  out.Int(result.workloads_skipped);
  out.EndObject();
}

std::string CountsLine(const LoadResult& result) {
  std::string loaded;
  for (const auto& [kind, count] : result.loaded_by_kind) {
    loaded += fmt::format("{}{} {}", loaded.empty() ? "" : ", ", count, kind);
  }
  std::string line = fmt::format("Read {} file(s), {} document(s): loaded {}", result.files_read,
                                 result.documents_read, loaded.empty() ? "nothing" : loaded);
  if (result.skipped_unknown > 0 || result.workloads_skipped > 0) {
    std::string skipped;
    for (const auto& [kind, count] : result.skipped_by_kind) {
      skipped += fmt::format("{}{} {}", skipped.empty() ? "" : ", ", count, kind);
    }
    if (result.workloads_skipped > 0) {
      skipped +=
          fmt::format("{}{} Workload", skipped.empty() ? "" : ", ", result.workloads_skipped);
    }
    line += fmt::format("; skipped {} object(s) of other kinds ({})",
                        result.skipped_unknown + result.workloads_skipped, skipped);
  }
  return line + "\n";
}

// Seed 001's ResourceClass status: the devices each class selects on the nodes, and how many of
// them the Workloads recorded as admitted in the manifests hold (taken first-fit, as a replay
// takes them when it loads such a Workload).
std::vector<engine::ResourceClassStatus> ClassStatus(const LoadResult& result,
                                                     const engine::Cluster& cluster) {
  if (result.spec.workloads.empty()) {
    return cluster.devices().Status();
  }
  ClusterState state = BuildClusterState(result, ClusterStateOptions{});
  if (!state.ok()) {
    return cluster.devices().Status();  // the workload errors are not validate's to report
  }
  return state.cluster->devices().Status();
}

}  // namespace

int RunValidate(const ValidateOptions& options) {
  LoadResult result = LoadManifestFiles(options.files);
  engine::Cluster bare;
  if (result.ok()) {
    bare.Apply(result.spec);
  }
  // The forest's usage column: the Workloads the manifests record as admitted (status.admission)
  // charged as `schedule` and `explain` charge them. Without Workloads, or when one of them is
  // refused (validate reports manifests, not Workloads), the bare tree.
  std::optional<ClusterState> charged;
  if (result.ok() && !result.spec.workloads.empty()) {
    charged.emplace(BuildClusterState(result, ClusterStateOptions{}));
    if (!charged->ok()) {
      charged.reset();
    }
  }
  const engine::Cluster& cluster = charged ? *charged->cluster : bare;
  if (options.output != "text") {
    JsonWriter out;
    out.BeginObject();
    out.Key("counts");
    WriteCounts(result, out);
    out.Key("errors");
    WriteIssues(result.errors, out);
    out.Key("forest");
    if (result.ok()) {
      WriteForestJson(cluster, out);
    } else {
      out.Null();
    }
    if (result.ok() && cluster.devices().HasClasses()) {
      out.Key("resourceClasses");
      out.BeginArray();
      for (const engine::ResourceClassStatus& c : ClassStatus(result, cluster)) {
        out.BeginObject();
        out.Key("allocatable");
        out.Int(c.allocatable);
        out.Key("name");
        out.String(c.name);
        out.Key("requested");
        out.Int(c.requested);
        out.EndObject();
      }
      out.EndArray();
    }
    out.Key("valid");
    out.Bool(result.ok());
    out.Key("warnings");
    WriteIssues(result.warnings, out);
    out.EndObject();
    std::fputs(ToOutputFormat(out.str() + "\n", options.output).c_str(), stdout);
    return result.ok() ? 0 : 1;
  }
  std::fputs(CountsLine(result).c_str(), stdout);
  for (const LoadError& w : result.warnings) {
    std::fprintf(stdout, "warning: %s\n", w.ToString().c_str());
  }
  if (!result.ok()) {
    for (const LoadError& e : result.errors) {
      std::fprintf(stderr, "error: %s\n", e.ToString().c_str());
    }
    std::fprintf(stderr, "%zu error(s): the manifests are not valid\n", result.errors.size());
    return 1;
  }
  std::fputs("\n", stdout);
  if (charged) {
    std::fprintf(stdout, "Usage: %d admitted Workload(s) charged (status.admission)\n",
                 charged->workloads_reserved);
  }
  std::fputs(FormatForestText(cluster).c_str(), stdout);
  if (cluster.devices().HasClasses()) {
    std::fputs("\nResourceClass status (allocatable / requested devices):\n", stdout);
    for (const engine::ResourceClassStatus& c : ClassStatus(result, cluster)) {
      std::fprintf(stdout, "  %s: allocatable %lld, requested %lld\n", c.name.c_str(),
                   static_cast<long long>(c.allocatable), static_cast<long long>(c.requested));
    }
  }
  return 0;
}

}  // namespace replay
