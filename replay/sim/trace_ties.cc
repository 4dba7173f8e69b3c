// File: replay/sim/trace_ties.cc
#include "replay/sim/trace_ties.h"

#include <utility>
#include <vector>

#include "replay/io/parallel_reader.h"
#include "replay/sim/sharded_replay.h"

namespace replay {

engine::Status AddTraceTies(const std::string& path, tbb::task_arena& arena, size_t batch_lines,
                            size_t max_line_bytes, engine::ShardPlanner& planner,
                            const std::atomic<bool>* cancel) {
  ParallelEventReader scan(arena, batch_lines, ParallelEventReader::Purpose::kRouting);
  scan.set_max_line_bytes(max_line_bytes);
  if (engine::Status s = scan.Open(path); !s.ok()) {
    return s;
  }
  std::vector<ParsedLine> lines;
  while ((cancel == nullptr || !cancel->load(std::memory_order_relaxed)) && scan.NextBatch(lines)) {
    for (const ParsedLine& l : lines) {
      PlanLine(planner, l);
    }
  }
  return engine::Status::Ok();
}

TraceTies ScanTraceTies(const std::string& path, tbb::task_arena& arena, size_t batch_lines,
                        size_t max_line_bytes, const std::atomic<bool>* cancel) {
  TraceTies ties;
  ties.path = path;
  ties.status = AddTraceTies(path, arena, batch_lines, max_line_bytes, ties.planner, cancel);
  return ties;
}

}  // namespace replay
