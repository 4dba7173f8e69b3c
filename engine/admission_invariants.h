// File: engine/admission_invariants.h
//
// Invariants every scheduling cycle must keep (issue 20), checked by DCHECKs in the scheduler in
// debug and sanitizer builds (engine/base/check.h) and asserted explicitly by
// test/engine/scheduler_property_test.cc:
//
//  1. An admitted pod set has a flavor of the ClusterQueue's *current* resource groups for every
//     requested resource that needs one, and the usage charged equals what the assignment chose
//     (per slot, the sum of the pod sets' flavor choices).
//  2. KEP-79's rule T(x,r) >= -BL(x,r) (BL(root) = 0, no BL = unbounded) at every node after every
//     cycle. The tree keeps T as Balance() = S - U. Quota shrinks and tree moves between cycles
//     can leave a node below its floor (debt, kueue-semantics.md §4.1), which no cycle can undo,
//     so the check is relative: per node and slot, headroom T + BL after the cycle is >= 0, or
//     not lower than it was before the cycle. Admissions only use capacity Available() grants,
//     which never reaches a node in debt (docs/quota-tree.md §7), so a cycle cannot make any
//     node's headroom negative or deepen a debt.
//
//   std::vector<Quantity> before = BorrowingHeadroom(tree);
//   ... run the cycle ...
//   std::string error = CheckHeadroomKept(tree, before);   // "" when the invariant holds
//
// Cost: O(nodes x slots) for the headroom functions; O(pod sets x resources x flavors) for
// CheckAdmission. Meant for debug builds and tests.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/base/ids.h"
#include "engine/config.h"
#include "engine/flavor_assigner.h"
#include "engine/quantity.h"
#include "engine/resource_tree.h"

namespace engine {

class Cluster;

// Invariant 1 for an assignment about to be charged (or just charged) to `cq`. Returns "" or a
// description of the first violation.
std::string CheckAdmission(const Cluster& cluster, CqId cq, const Assignment& assignment,
                           QuotaCheckStrategy quota_check);

// T(x) + BL(x) per node and slot ([node * num_slots + slot]); BL(root) = 0, a missing BL gives
// Unlimited. Nodes in a cohort cycle are reported as Unlimited (their values are not maintained).
std::vector<Quantity> BorrowingHeadroom(const ResourceTree& tree);

// Invariant 2: every node and slot has headroom >= min(0, before). REQUIRES: `before` came from
// BorrowingHeadroom of the same tree shape (no node or slot added since). Returns "" or the
// first violation.
std::string CheckHeadroomKept(const ResourceTree& tree, std::span<const Quantity> before);

}  // namespace engine
