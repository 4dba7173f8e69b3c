// File: replay/io/manifest_loader.h
//
// Loads Kueue manifests (multi-document YAML, as written for `kubectl apply` or printed by
// `kubectl get -o yaml`) into an `engine::ClusterSpec`, then validates it as Kueue's webhooks
// would (engine/config_validation.h). Nothing here throws: every problem, from a YAML syntax
// error to a lending limit above the nominal quota, becomes a `LoadError` with the file, the
// document, the line and the field path. docs/manifests.md lists the accepted kinds and versions.
//
//   replay::LoadResult result = replay::LoadManifestFiles({"cluster.yaml", "queues/"});
//   for (const replay::LoadError& e : result.errors) std::puts(e.ToString().c_str());
//   // cluster.yaml:41: document 3 ClusterQueue/team-a:
//   //   spec.resourceGroups[0].flavors[0].resources[1].nominalQuota: quantity "5Qi" has ...
//   if (result.ok()) BuildCluster(result.spec);
//
// Accepted: ResourceFlavor, Cohort, ClusterQueue, LocalQueue, WorkloadPriorityClass, Workload
// and AdmissionCheck in kueue.x-k8s.io/v1beta1 and v1beta2 (Cohort also v1alpha1); Configuration
// in config.kueue.x-k8s.io/v1beta1 and v1beta2; v1 Namespace; `kind: List` (and `<Kind>List`)
// with `items`. Any other kind is counted as skipped.
//
// Objects with errors are still added to `spec` (the offending field left at its default) so
// that references to them resolve and do not cascade into more messages; a result with errors
// must not be used to build a cluster. Thread safety: the functions are reentrant.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster_spec.h"

namespace replay {

struct LoadError {
  std::string file;
  int document = -1;  // 0-based YAML document index in `file`; -1 for a file-level problem
  int line = 0;       // 1-based; 0 if unknown
  std::string kind;   // object kind, empty if unknown
  std::string name;   // object name ("namespace/name" for LocalQueues), empty if unknown
  std::string field_path;
  std::string message;

  // "file.yaml:41: document 3 ClusterQueue/team-a: spec.cohortName: message"; parts that are
  // unknown are left out.
  std::string ToString() const;
};

struct LoadResult {
  engine::ClusterSpec spec;
  std::vector<LoadError> errors;    // the input would be rejected by Kueue (or is not YAML)
  std::vector<LoadError> warnings;  // accepted by Kueue, but probably not what was meant

  int files_read = 0;
  int documents_read = 0;   // YAML documents, empty ones included
  int empty_documents = 0;  // documents with no content (a bare `---`, only comments)
  std::map<std::string, int> loaded_by_kind;   // "ClusterQueue" -> 12
  int skipped_unknown = 0;                     // objects of kinds this loader does not model
  std::map<std::string, int> skipped_by_kind;  // "Job.batch" -> 3 (Kind.group)
  // Always 0: Workloads are parsed now (kept for the `workloadsSkipped` key of `tally validate
  // -o json`, which stays for compatibility).
  int workloads_skipped = 0;

  bool ok() const { return errors.empty(); }
};

// A directory ExpandManifestPaths could not list or found empty, and why ("cannot list
// directory: Permission denied", "holds no .yaml, .yml or .json file").
struct UnlistedDirectory {
  std::string path;
  std::string reason;
};

// `-` as a manifest path: standard input, named <stdin> in messages.
inline constexpr std::string_view kStdinPath = "-";
inline constexpr std::string_view kStdinName = "<stdin>";

// Directories expand to the *.yaml / *.yml / *.json files under them (recursively, sorted by
// path; JSON is read as YAML: one object or List per file, as kubectl get -o json writes);
// other paths stay as given, in order. Directories that cannot be listed, or hold none of those
// files, go to `unlisted`.
std::vector<std::string> ExpandManifestPaths(const std::vector<std::string>& paths,
                                             std::vector<UnlistedDirectory>& unlisted);

// Loads every path in order; a directory is expanded to the *.yaml / *.yml / *.json files under
// it (recursively, sorted by path); `-` reads standard input. Objects from all files go into one
// spec, validated once.
LoadResult LoadManifestFiles(const std::vector<std::string>& paths);

// Loads one YAML text; `file_name` is only used in messages.
LoadResult LoadManifestString(std::string_view yaml, std::string_view file_name);

}  // namespace replay
