// File: replay/sim/shard_log.h
//
// The decision lines (docs/replay.md) of one shard, with their virtual times, in the order the
// shard produced them (times never decrease). The driver takes the lines that have become final
// and merges the shards' lines by time (replay/sim/simulator.cc).
//
// A shard may write a hundred megabytes between two takes: a batch of a congested trace covers
// hours of virtual time (a 20,000-workload 16-tree trace wrote 126 MB, 541,844 lines, in one).
// Lines are therefore kept back to back in chunks that grow from 4 KiB to 1 MiB (×4 a chunk) and
// then stay at 1 MiB, not in one string: that string was copied whole at every doubling into fresh
// pages (a sixth of all the page faults of that replay) and held twice its size while it grew. The
// 1 MiB chunks come from, and go back to, the process's LineChunkPool (line_chunk_pool.h): a log
// keeps only its small first chunks when emptied.
//
//   ShardLog log;                      // the shard writes:
//   log.Write(now, line);
//   ShardLog taken;                    // the driver, once every line before `t` is final:
//   log.TakeBefore(t, taken);          // taken: the lines before t; log: the rest
//   for (size_t i = 0; i < taken.size(); ++i) write(taken.Line(i));
//   taken.Clear();                     // its first chunks stay, for the next take
//
// Thread safety: none; a log is used by one thread at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/sim/line_chunk_pool.h"

namespace replay {

class ShardLog {
 public:
  ShardLog() = default;
  ShardLog(ShardLog&& other) noexcept { *this = std::move(other); }
  ShardLog& operator=(ShardLog&& other) noexcept;
  ShardLog(const ShardLog&) = delete;
  ShardLog& operator=(const ShardLog&) = delete;
  ~ShardLog();  // its full-size chunks go back to the pool

  void Write(int64_t time, std::string_view line);
  size_t size() const { return ends_.size() - head_; }
  int64_t Time(size_t i) const { return times_[head_ + i]; }
  // Every line's time, in order: Times()[i] == Time(i).
  std::span<const int64_t> Times() const { return {times_.data() + head_, size()}; }
  std::string_view Line(size_t i) const { return LineAt(head_ + i); }
  // Moves the lines older than `time` into `out`, whose lines are dropped first. When most lines
  // go, the two logs trade chunks (a log taken every batch into the same `out` keeps reusing
  // chunks already faulted in) and the few kept are copied back; when few go, they are copied
  // into `out` and dropped from the front of this log. Either way the copy is at most the lines
  // taken: a log that holds many lines past `time` (a shard ahead of the slowest one,
  // final_lines.h) is not copied again at every take.
  void TakeBefore(int64_t time, ShardLog& out);
  // Moves every line of `from` after this log's lines (their times must not be earlier) and
  // leaves `from` empty. Into an empty log the two trade chunks; otherwise `from`'s full-size
  // chunks that are at least 7/8 written move over whole, after this log's, and the lines of its
  // other chunks are copied: a log appended to again and again holds its lines packed. `from`
  // keeps its spare chunks.
  void Append(ShardLog& from);
  // The bytes of the chunks that hold lines (the memory the lines take, with the chunks' unused
  // ends).
  size_t held_bytes() const;
  // Drops the lines. The small chunks (4 to 256 KiB, up to kKeptBytes) stay for the next lines;
  // the full-size ones go back to the pool and any larger one (a line above 1 MiB) is freed: a
  // take of a hundred megabytes does not stay held by one log.
  void Clear();

  static constexpr size_t kFirstChunkBytes = size_t{4} << 10;
  static constexpr size_t kMaxChunkBytes = LineChunkPool::kChunkBytes;
  // The chunks before the first full-size one: 4 + 16 + 64 + 256 KiB.
  static constexpr size_t kKeptBytes = size_t{340} << 10;
  // Append moves a full-size chunk whole when at most 1/kPackedShare of it is unused.
  static constexpr size_t kPackedShare = 8;

 private:
  struct Chunk {
    std::unique_ptr<char[]> bytes;
    size_t capacity = 0;
  };
  // A chunk no log holds any more: to the pool when full-size, else freed.
  static void Release(Chunk& chunk);
  // Every chunk released (destruction and move assignment).
  void ReleaseAll();
  // Makes chunks_[active_] (reused when large enough, else a new one) the one written to, with
  // room for `bytes`.
  void StartChunk(size_t bytes);
  // Line number `i` counted from the first line ever written since the log was last emptied.
  std::string_view LineAt(size_t i) const;
  // Drops the first `n` lines (fewer than size()): chunks left with none become spares, and the
  // per-line index sheds its dropped part once that is larger than what is live.
  void DropFront(size_t n);

  std::vector<Chunk> chunks_;  // [0, active_) hold lines; the rest are spare
  size_t active_ = 0;
  size_t head_ = 0;             // lines before it are dropped (DropFront)
  size_t used_ = 0;             // bytes written into chunks_[active_ - 1]
  std::vector<int64_t> times_;  // per line, dropped ones included
  std::vector<uint32_t> ends_;  // per line: where it ends in its chunk
  std::vector<size_t> firsts_;  // per chunk in use: its first line (the first may be dropped)
};

// MergeByTime's place in one log: its live lines' times, how many, the next one to write, and
// which log it is. Read once per merge: the merge's heap compares only these.
struct MergeHead {
  const int64_t* times = nullptr;
  size_t size = 0;
  size_t next = 0;
  size_t log = 0;
};

// Calls `write(line)` for every line of `logs` (each in time order) in the order (time, index of
// the log, order in the log): the shards' lines merged as decisions.jsonl has them. A merge run
// by run: the earliest head (ties to the lower log) is written with every line after it that
// still comes before the second earliest head. The heads are a heap by (next time, log): a run
// costs two heap steps, about 2 log2(logs) comparisons, where a scan of every head cost one per log
// (20 shards on the moderate trace, whose runs are mostly one line: 1.7 % of its instructions).
// A stable sort of all the lines by time gave the same order, with a temporary buffer as large as
// the lines' index at every write (1.3 % of the 16-tree trace). `heads` is scratch space, kept by
// the caller from one merge to the next.
template <typename Write>
void MergeByTime(const std::vector<ShardLog>& logs, std::vector<MergeHead>& heads, Write&& write) {
  heads.clear();
  for (size_t k = 0; k < logs.size(); ++k) {
    if (logs[k].size() > 0) {
      heads.push_back(MergeHead{logs[k].Times().data(), logs[k].size(), 0, k});
    }
  }
  // std::*_heap put the greatest first: "later" makes the earliest (time, log) the greatest.
  const auto later = [](const MergeHead& a, const MergeHead& b) {
    const int64_t ta = a.times[a.next];
    const int64_t tb = b.times[b.next];
    return ta != tb ? ta > tb : a.log > b.log;
  };
  std::make_heap(heads.begin(), heads.end(), later);
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    MergeHead& h = heads.back();
    const ShardLog& from = logs[h.log];
    if (heads.size() == 1) {  // the last log: the rest of it
      for (; h.next < h.size; ++h.next) {
        write(from.Line(h.next));
      }
      heads.pop_back();
      return;
    }
    // Lines of `h` at the second head's instant go first only when `h` is the lower log.
    const MergeHead& second = heads.front();
    const int64_t second_time = second.times[second.next];
    const bool ties_first = h.log < second.log;
    do {
      write(from.Line(h.next));
      ++h.next;
    } while (h.next < h.size
             && (h.times[h.next] < second_time || (ties_first && h.times[h.next] == second_time)));
    if (h.next == h.size) {
      heads.pop_back();
    } else {
      std::push_heap(heads.begin(), heads.end(), later);
    }
  }
}

}  // namespace replay
