// File: replay/sim/line_chunk_pool.h
//
// The full-size chunks that decision lines wait in (replay/sim/shard_log.h), shared by every
// ShardLog of the process. With shards that run free, a chunk is filled by a shard on one thread,
// handed over (final_lines.h), merged and emptied by the writer on the other. When each log kept
// its own spare chunks (2 MiB a log, five logs a shard) and freed the rest, the 16-tree trace at
// 2 threads held 200 MiB of chunks for about 65 MB of lines waiting, and allocated 2,681 of them
// over the run: each came back as fresh pages for the kernel to zero. An emptied log now gives its
// full-size chunks back here, and a log that needs one takes it from here, so the chunks in the
// process are at most the most ever in use at once.
//
//   std::unique_ptr<char[]> chunk = LineChunkPool::Shared().Take();   // kChunkBytes bytes
//   ...
//   LineChunkPool::Shared().Give(std::move(chunk));                    // for the next Take
//   LineChunkPool::Shared().Trim();   // a replay is over: the free chunks go back to the allocator
//
// Thread safety: every member from any thread (one mutex; a take or a give per MiB of lines).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace replay {

class LineChunkPool {
 public:
  static constexpr size_t kChunkBytes = size_t{1} << 20;
  // Free chunks kept at most; more given back go back to the allocator, which can use the memory
  // for anything else (a pool that kept every chunk held the peak of the lines and, beside it, the
  // peak of everything else).
  static constexpr size_t kMaxFreeChunks = 32;

  // The process's pool.
  static LineChunkPool& Shared();

  // A chunk of kChunkBytes: a free one when there is one (its bytes are what its last log left),
  // else a new one.
  std::unique_ptr<char[]> Take();
  // `chunk` (kChunkBytes, from Take) is free for the next Take, or freed when kMaxFreeChunks are.
  void Give(std::unique_ptr<char[]> chunk);
  // Frees the free chunks.
  void Trim();

  // Chunks allocated by Take since the process started, and free now (tests, --profile).
  size_t allocated();
  size_t free_chunks();

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<char[]>> free_;
  size_t allocated_ = 0;
};

}  // namespace replay
