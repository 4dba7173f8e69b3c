// File: replay/generate/audit_log_objects.h
//
// The objects of a synthetic audit log (replay/generate/audit_log_writer.h) as the API server
// stores and returns them: the client's object (apiVersion, kind, metadata, body) plus the server's
// fields — uid, resourceVersion, generation, creationTimestamp, managedFields, a Namespace's
// kubernetes.io/metadata.name label and phase — and a Workload's status (admission, conditions
// as apimeta.SetStatusCondition keeps them).
//
//   StoredObject o;
//   ParseObject(element, o);          // from an event's object or a manifest (as JSON)
//   o.uid = ...; o.resource_version = ...;
//   Touch(o, "kueue", "Update", "", o.fields, t);
//   std::string response = StoredJson(o);
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <simdjson.h>

#include "engine/base/status.h"

namespace replay::internal {

// The plural resource and API group of a kind, as in objectRef.
struct ResourceRef {
  std::string_view resource;  // "" for kinds no audit log of a Kueue cluster holds
  std::string_view group;     // "" for the core group
  bool namespaced = false;
};
// False for kinds other than Kueue's and Namespace (FlavorSupply, Configuration, Node, ...).
bool ResourceOf(std::string_view kind, ResourceRef& out);

// metav1.Condition.
struct Condition {
  std::string type;
  std::string status;  // "True", "False", "Unknown"
  std::string reason;
  std::string message;
  int64_t micros = 0;      // lastTransitionTime (µs since the epoch; written in whole seconds)
  int64_t generation = 1;  // observedGeneration
};

// One metadata.managedFields entry.
struct ManagedEntry {
  std::string manager;
  std::string operation;  // Update or Apply
  std::string subresource;
  std::string fields;  // fieldsV1 (a JSON object)
  int64_t micros = 0;  // time
};

// An object as the API server stores it.
struct StoredObject {
  std::string api_version;
  std::string kind;
  ResourceRef ref;
  std::string name;
  std::string namespace_name;  // "default" for a namespaced object that names none
  std::vector<std::pair<std::string, std::string>> labels;  // key, JSON value, client order
  std::string meta_rest;  // ",k:v": client metadata besides name, namespace, labels and the
                          // fields the server sets (annotations, ownerReferences, finalizers)
  std::string body;       // ",k:v": top-level fields besides apiVersion, kind, metadata, status
  std::string fields;     // fieldsV1 of the client's metadata and body
  std::string uid;
  int64_t created = 0;  // creationTimestamp (µs)
  int64_t generation = 1;
  int64_t resource_version = 0;
  // Workloads only.
  std::string admission;  // status.admission (JSON), "" when none
  std::vector<Condition> conditions;
  std::vector<ManagedEntry> managed;

  // "Kind/namespace/name": one live object per key.
  std::string Key() const;
};

// The objects of the manifest files (directories expanded as `tally replay` does, List items
// unpacked), each as JSON, in file order.
engine::Status LoadManifestObjects(const std::vector<std::string>& paths,
                                   std::vector<std::string>& objects);

// A string field of a JSON object, "" when absent or not a string.
std::string_view StringField(simdjson::dom::element e, std::string_view key);

// Reads apiVersion, kind, metadata and body of an object (not its status, not server fields).
engine::Status ParseObject(simdjson::dom::element e, StoredObject& o);
// The status a Workload was created with (admitted or finished before the trace), into `w`;
// conditions without lastTransitionTime are dated `micros`. An admission without QuotaReserved
// counts as reserved (as the replay reads it). False when there is no status.
bool ReadWorkloadStatus(simdjson::dom::element source, StoredObject& w, int64_t micros);

// The object as a client sends it; `identity` adds the uid and resourceVersion it read (an
// update's optimistic concurrency).
std::string ClientObject(const StoredObject& o, bool identity);
// The object as stored and returned; `deleted` >= 0 adds deletionTimestamp (µs).
std::string StoredJson(const StoredObject& o, int64_t deleted = -1);
// A Workload's status as JSON, "" when it has none yet.
std::string StatusJson(const StoredObject& o);
// fieldsV1 of the status a server-side apply of StatusJson owns.
std::string StatusFields(const StoredObject& o);

// Records a write by `manager` in managedFields (one entry per manager, operation, subresource).
void Touch(StoredObject& o, std::string_view manager, std::string_view operation,
           std::string_view subresource, std::string fields, int64_t micros);
// apimeta.SetStatusCondition: a new type is appended; lastTransitionTime changes only with the
// status; observedGeneration is the object's generation.
void SetCondition(StoredObject& o, std::string_view type, std::string_view status,
                  std::string_view reason, std::string message, int64_t micros);
Condition* FindCondition(StoredObject& o, std::string_view type);

// A decision's usage as resource.Quantity.String() writes it: decisions count cpu in millicores
// ("16", "500m") and other resources in base units; memory-like resources take the largest binary
// suffix that divides them (137438953472 -> "128Gi").
std::string QuantityString(std::string_view resource, int64_t amount);
// status.admission of a QuotaReserved or Admitted decision line.
std::string AdmissionJson(simdjson::dom::element decision);

}  // namespace replay::internal
