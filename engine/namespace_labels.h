// File: engine/namespace_labels.h
//
// The labels of every Namespace, by name, as a ClusterQueue's namespaceSelector reads them. A
// namespace's labels include kubernetes.io/metadata.name=<name>, which Kubernetes sets on every
// Namespace; a namespace without an object has no entry here (the scheduler then matches on that
// label alone).
//
// A replay of a thousand-namespace cluster in ten shards held ten copies of the table, one per
// shard's scheduler, and building them was a tenth of that replay's start-up. The table is
// therefore shared: Share() hands out a read-only reference, and a holder that is written to
// (Set, Erase: a Namespace event in one shard) copies it first, so no writer ever changes a table
// another holder reads.
//
//   NamespaceLabels all(spec.namespaces);              // built once
//   std::shared_ptr<const NamespaceLabels::Table> t = all.Share();
//   NamespaceLabels shard = NamespaceLabels::Sharing(t);  // per shard: no copy
//   shard.Set(ns);                                      // copies t, then writes the copy
//   const NamespaceLabels::Labels* labels = shard.Find("team-a");
//
// Thread safety: a shared table is never written, so holders on different threads may read it at
// once; each NamespaceLabels object is used by one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/string_map.h"
#include "engine/workload_spec.h"

namespace engine {

class NamespaceLabels {
 public:
  using Labels = std::map<std::string, std::string>;
  // By name, hashed: never iterated, so the order is free.
  using Table = StringMap<Labels>;

  NamespaceLabels() = default;
  // Not copyable: two writable copies would write one table. Share() is the way to share.
  NamespaceLabels(const NamespaceLabels&) = delete;
  NamespaceLabels& operator=(const NamespaceLabels&) = delete;
  NamespaceLabels(NamespaceLabels&&) = default;
  NamespaceLabels& operator=(NamespaceLabels&&) = default;
  ~NamespaceLabels() = default;
  // Every namespace of `namespaces`; a name given twice: the last one wins.
  explicit NamespaceLabels(const std::vector<NamespaceSpec>& namespaces);
  // Reads `table` until the first write, which copies it.
  static NamespaceLabels Sharing(std::shared_ptr<const Table> table);

  // The labels of namespace `name`, or nullptr when it has no object.
  const Labels* Find(std::string_view name) const;
  // `ns` added or replaced.
  void Set(const NamespaceSpec& ns);
  void Erase(std::string_view name);

  // A read-only reference to the table. This object's next write copies it first.
  std::shared_ptr<const Table> Share();
  // Whether the table is this object's own (tests: a shared one is copied on write only).
  bool owns_table() const { return owned_ != nullptr; }

 private:
  // The table to write: owned_, made a copy of shared_ first if need be.
  Table& Writable();

  std::shared_ptr<const Table> shared_;  // read while owned_ is null
  std::shared_ptr<Table> owned_;         // written; shared_ points to it too
};

}  // namespace engine
