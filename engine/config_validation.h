// File: engine/config_validation.h
//
// Checks a `ClusterSpec` the way Kueue's admission webhooks, CRD schemas (CEL rules, enums,
// min/max items) and configuration validation do (kueue-semantics.md §2, §3.4):
// a spec that passes here is one Kueue would accept. Every problem is reported, not only the
// first, with the object it belongs to and a Kubernetes-style field path.
//
// Errors are what Kueue rejects. Warnings are what Kueue accepts but that leaves part of the
// cluster unusable (a ClusterQueue naming a ResourceFlavor that is not defined is created but
// stays inactive; a LocalQueue pointing to a missing ClusterQueue never admits anything).
//
//   std::vector<ValidationIssue> issues = ValidateClusterSpec(spec);
//   for (const ValidationIssue& issue : issues) std::puts(issue.ToString().c_str());
//   // a.yaml: document 2 (line 7): ClusterQueue/team-a:
//   //   spec.resourceGroups[0].flavors[0].resources[0].lendingLimit:
//   //   Invalid value: "5": must be less than or equal to nominalQuota (4)
//
// Not checked here (they cannot be represented in a ClusterSpec, so the loader reports them):
// unknown enum strings (e.g. a transformation strategy other than Retain/Replace), wrong YAML
// types, missing required scalars, duplicate Configuration objects.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/cluster_spec.h"

namespace engine {

struct ValidationIssue {
  SourceRef source;        // where the offending object was defined
  std::string kind;        // "ClusterQueue", "Cohort", "LocalQueue", "Configuration", ...
  std::string name;        // object name; LocalQueues as "namespace/name"
  std::string field_path;  // e.g. "spec.resourceGroups[0].flavors[1].resources[0].lendingLimit"
  std::string message;     // e.g. "Invalid value: \"-1\": must be greater than or equal to 0"
  bool is_warning = false;

  // "<source>: <kind>/<name>: <field_path>: <message>", with "warning: " in front of warnings.
  std::string ToString() const;
};

// Bounds tally sets on hostile input beyond Kueue's rules (docs/limits.md).
struct ValidationLimits {
  // Cohorts on the path from a root to its deepest Cohort. Kueue sets none; every admission walks
  // its ClusterQueue's path to the root, so a chain of millions is millions of steps per
  // admission. Deeper is an error on the first Cohort past the limit (--max-cohort-depth).
  size_t max_cohort_depth = 100'000;
};

// Validates every object of `spec` and the references between them. Issues come in input order,
// kind by kind (flavors, cohorts, cluster queues, local queues, priority classes, configuration).
// Complexity: O(total fields + objects log objects).
std::vector<ValidationIssue> ValidateClusterSpec(const ClusterSpec& spec,
                                                 const ValidationLimits& limits = {});

// True if any issue is an error (not a warning).
bool HasErrors(const std::vector<ValidationIssue>& issues);

}  // namespace engine
