// File: replay/report/forest_report.h
//
// Renders the cohort forest of a Cluster: every tree from its root down (roots and children sorted
// by name), each node with its quota, limits, subtree quota, usage, balance T(x,r) and, for
// ClusterQueues, Available() per flavor and resource. Trees caught in a cohort cycle are listed
// apart. Used by `tally validate` (text and `-o json`); the JSON schema is in docs/validate.md.
#pragma once

#include <string>

namespace engine {
class Cluster;
}

namespace replay {

class JsonWriter;

std::string FormatForestText(const engine::Cluster& cluster);
// Writes {"cycles":[...],"roots":[...],"summary":{...}} with keys sorted.
void WriteForestJson(const engine::Cluster& cluster, JsonWriter& out);

}  // namespace replay
