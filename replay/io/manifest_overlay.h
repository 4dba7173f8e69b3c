// File: replay/io/manifest_overlay.h
//
// Policy variants of a set of Kueue manifests, for `tally sweep` (docs/sweep.md): the manifests'
// YAML documents are loaded as they are (no validation here), edited field by field
// (`--set KIND/NAME:field.path=value`) or by deep-merging overlay documents into them
// (`--overlay FILE`), and written back out as YAML. The written file is then loaded by the
// unchanged manifest loader (replay/io/manifest_loader.h), so a variant goes through exactly the
// same validation as a file a user wrote, with file:line:field errors pointing into the written
// file.
//
//   engine::StatusOr<Manifests> base = Manifests::Load({"manifests.yaml"});
//   engine::StatusOr<SetFlag> flag =
//       ParseSetFlag("ClusterQueue/research-llm:spec.resourceGroups[0].flavors[0]"
//                    ".resources[2].nominalQuota=8,12");
//   Manifests variant = base->Clone();
//   engine::Status s = variant.Set(flag->Assignment(0));   // nominalQuota: 8
//   std::string yaml = variant.Emit();
//
// Scalars keep their style: a quoted scalar ("10", "true") is written quoted and a plain one
// plain, because the loader tells the string "10" from the integer 10. Comments and anchors are
// not kept (aliases are written out in full). Empty documents are dropped.
//
// Thread safety: a Manifests is a value with no shared state (Clone() copies deeply); distinct
// objects may be used from distinct threads. yaml-cpp is reentrant.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace replay {

// One step of a field path: a map key or a list index.
struct FieldPathStep {
  std::string key;  // for a key step
  size_t index = 0;
  bool is_index = false;
};

// Parses "spec.resourceGroups[0].flavors[1].resources[0].nominalQuota": keys separated by dots,
// `[i]` list indices, and `["a.b/c"]` for a key holding dots or brackets
// (`metadata.labels["cloud.example.com/team"]`).
engine::StatusOr<std::vector<FieldPathStep>> ParseFieldPath(std::string_view path);

// One edit: set `path` of the object `kind`/`name` to the YAML scalar `value`.
struct FieldAssignment {
  std::string kind;  // "ClusterQueue"
  std::string name;  // "research-llm", or "namespace/name" for namespaced objects
  std::string path;  // as given
  std::vector<FieldPathStep> steps;
  std::string value;  // YAML scalar text: `8`, `Borrow`, `"5Gi"`, `null`

  // "ClusterQueue/research-llm:spec.preemption.reclaimWithinCohort=Never"
  std::string Label() const;
};

// A parsed `--set KIND/NAME:field.path=v1,v2,...` flag.
struct SetFlag {
  std::string spec;  // as given
  std::string kind;
  std::string name;
  std::string path;
  std::vector<FieldPathStep> steps;
  // One per value, in the order given; split at commas outside quotes. Each is a YAML scalar
  // (checked here): `10`, `Borrow`, `"5Gi"`, `'a,b'`, `null`.
  std::vector<std::string> values;

  // REQUIRES: i < values.size().
  FieldAssignment Assignment(size_t i) const;
};

// Errors name the flag: `--set X: ...`.
engine::StatusOr<SetFlag> ParseSetFlag(std::string_view spec);

// The YAML documents of a list of manifest files, in order.
class Manifests {
 public:
  Manifests();
  ~Manifests();
  Manifests(Manifests&&) noexcept;
  Manifests& operator=(Manifests&&) noexcept;
  Manifests(const Manifests&) = delete;
  Manifests& operator=(const Manifests&) = delete;

  // Reads the files in order; a directory expands to its *.yaml / *.yml files, recursively, sorted
  // (as the manifest loader does). Errors: unreadable file, YAML syntax (file:line).
  static engine::StatusOr<Manifests> Load(const std::vector<std::string>& paths);
  // One YAML text; `file_name` is only used in messages.
  static engine::StatusOr<Manifests> Parse(std::string_view yaml, std::string_view file_name);

  // A deep copy.
  Manifests Clone() const;

  // Sets one field, creating missing map keys on the way (a missing list index is an error, as
  // is a path through a scalar). The object is found by kind and metadata.name (or
  // "namespace/name"); none, or several in different namespaces, is an error. Objects inside a
  // `kind: List` document are found too. An object's identity (apiVersion, kind, metadata.name,
  // metadata.namespace) cannot be set.
  engine::Status Set(const FieldAssignment& assignment);

  // Deep-merges each document of `overlay` into the object with the same kind and metadata.name
  // (and metadata.namespace when given): maps are merged key by key, recursively; lists, scalars
  // and nulls replace what was there. `apiVersion` in an overlay document is ignored. An overlay
  // document naming no object is an error (an overlay edits objects, it does not add them).
  engine::Status ApplyOverlay(const Manifests& overlay);

  // The value at `path` of an object as YAML text (a scalar as written, `~` for null), for tests
  // and messages.
  engine::StatusOr<std::string> GetText(std::string_view kind, std::string_view name,
                                        std::string_view path) const;

  // The documents as one multi-document YAML text, each starting with "---".
  std::string Emit() const;

  size_t documents() const;

 private:
  struct Document;
  std::vector<Document> docs_;
};

}  // namespace replay
