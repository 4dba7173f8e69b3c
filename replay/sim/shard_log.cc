#include "replay/sim/shard_log.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace replay {

ShardLog& ShardLog::operator=(ShardLog&& other) noexcept {
  if (this != &other) {
    ReleaseAll();
    chunks_ = std::move(other.chunks_);
    active_ = std::exchange(other.active_, 0);
    head_ = std::exchange(other.head_, 0);
    used_ = std::exchange(other.used_, 0);
    times_ = std::move(other.times_);
    ends_ = std::move(other.ends_);
    firsts_ = std::move(other.firsts_);
    other.chunks_.clear();
    other.times_.clear();
    other.ends_.clear();
    other.firsts_.clear();
  }
  return *this;
}

ShardLog::~ShardLog() {
  ReleaseAll();
}

void ShardLog::Release(Chunk& chunk) {
  if (chunk.capacity == kMaxChunkBytes) {
    LineChunkPool::Shared().Give(std::move(chunk.bytes));
  }
  chunk.bytes.reset();
  chunk.capacity = 0;
}

void ShardLog::ReleaseAll() {
  for (Chunk& chunk : chunks_) {
    Release(chunk);
  }
  chunks_.clear();
}

void ShardLog::StartChunk(size_t bytes) {
  const size_t next =
      active_ == 0 ? kFirstChunkBytes : std::min(chunks_[active_ - 1].capacity * 4, kMaxChunkBytes);
  const size_t capacity = std::max(next, bytes);
  if (active_ < chunks_.size() && chunks_[active_].capacity >= bytes) {
    ++active_;  // a spare chunk kept by Clear
  } else {
    Chunk chunk{capacity == kMaxChunkBytes ? LineChunkPool::Shared().Take()
                                           : std::make_unique_for_overwrite<char[]>(capacity),
                capacity};
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(active_), std::move(chunk));
    ++active_;
  }
  used_ = 0;
  firsts_.push_back(ends_.size());
}

void ShardLog::Write(int64_t time, std::string_view line) {
  if (active_ == 0 || chunks_[active_ - 1].capacity - used_ < line.size()) {
    StartChunk(line.size());
  }
  char* at = chunks_[active_ - 1].bytes.get() + used_;
  if (!line.empty()) {
    std::memcpy(at, line.data(), line.size());
  }
  used_ += line.size();
  times_.push_back(time);
  ends_.push_back(static_cast<uint32_t>(used_));
}

std::string_view ShardLog::LineAt(size_t i) const {
  // The chunk holding line i: the last one whose first line is at most i.
  const size_t chunk =
      static_cast<size_t>(std::upper_bound(firsts_.begin(), firsts_.end(), i) - firsts_.begin())
      - 1;
  const uint32_t begin = i == firsts_[chunk] ? 0 : ends_[i - 1];
  return {chunks_[chunk].bytes.get() + begin, ends_[i] - begin};
}

void ShardLog::Clear() {
  head_ = 0;
  times_.clear();
  ends_.clear();
  firsts_.clear();
  active_ = 0;
  used_ = 0;
  // The small chunks stay (in their order, up to kKeptBytes); the others are released.
  size_t kept = 0;
  size_t keep = 0;
  for (Chunk& chunk : chunks_) {
    if (chunk.capacity < kMaxChunkBytes && kept + chunk.capacity <= kKeptBytes) {
      kept += chunk.capacity;
      std::swap(chunks_[keep++], chunk);
    } else {
      Release(chunk);
    }
  }
  chunks_.resize(keep);
}

void ShardLog::TakeBefore(int64_t time, ShardLog& out) {
  out.Clear();
  const auto live = times_.begin() + static_cast<std::ptrdiff_t>(head_);
  const size_t n = static_cast<size_t>(std::lower_bound(live, times_.end(), time) - live);
  if (n == 0) {
    return;
  }
  if (n < size() - n) {
    // Few lines go, many stay: copy out the few.
    for (size_t i = 0; i < n; ++i) {
      out.Write(Time(i), Line(i));
    }
    DropFront(n);
    return;
  }
  // Most lines go to `out` with this log's chunks, and this log continues in `out`'s emptied
  // ones. The lines kept (those at `time` or later: usually none or a few) are copied back.
  std::swap(*this, out);
  const size_t first_kept = out.head_ + n;
  for (size_t i = first_kept; i < out.ends_.size(); ++i) {
    Write(out.times_[i], out.LineAt(i));
  }
  out.times_.resize(first_kept);
  out.ends_.resize(first_kept);
  while (out.firsts_.back() >= first_kept) {  // chunks holding only kept lines: spare in `out`
    out.firsts_.pop_back();
  }
  out.active_ = out.firsts_.size();
  out.used_ = out.ends_.back();
}

void ShardLog::DropFront(size_t n) {
  head_ += n;
  // A chunk whose lines are all dropped (the next chunk starts at or before the head) becomes
  // the first spare: the chunks in use move down by one.
  while (firsts_.size() > 1 && firsts_[1] <= head_) {
    std::rotate(chunks_.begin(), chunks_.begin() + 1,
                chunks_.begin() + static_cast<std::ptrdiff_t>(active_));
    --active_;
    firsts_.erase(firsts_.begin());
  }
  // The index of dropped lines goes once it outweighs the live lines; the first chunk's dropped
  // lines stay (a line's start is where the line before it in its chunk ends).
  const size_t dead = firsts_.front();
  if (dead > 4096 && dead >= size()) {
    const auto cut = static_cast<std::ptrdiff_t>(dead);
    times_.erase(times_.begin(), times_.begin() + cut);
    ends_.erase(ends_.begin(), ends_.begin() + cut);
    for (size_t& first : firsts_) {
      first -= dead;
    }
    head_ -= dead;
  }
}

size_t ShardLog::held_bytes() const {
  size_t bytes = 0;
  for (size_t c = 0; c < active_; ++c) {
    bytes += chunks_[c].capacity;
  }
  return bytes;
}

void ShardLog::Append(ShardLog& from) {
  if (size() == 0) {
    std::swap(*this, from);  // `from` gets this log's spare chunks
    from.Clear();
    return;
  }
  if (from.size() == 0) {
    from.Clear();
    return;
  }
  // A chunk of `from` that is full-size and nearly full (or holds a line above the full size) moves
  // over whole, after this log's chunks: its lines are not copied. The lines of any other chunk
  // (the small first chunks of a log, a last chunk partly written, a first chunk whose first lines
  // were dropped, since a chunk's first indexed line starts at its first byte) are copied after
  // this log's lines, into its own last chunk while it has room. A log that holds the lines of
  // many hand-overs then holds them packed: moving every chunk kept each hand-over's small chunks
  // and half-written last chunk, 197 MB of chunks for about 70 MB of lines waiting (16 trees,
  // 2 threads, massif).
  for (size_t c = 0; c < from.active_; ++c) {
    const size_t first = std::max(from.firsts_[c], from.head_);
    const size_t end = c + 1 < from.active_ ? from.firsts_[c + 1] : from.ends_.size();
    if (first >= end) {
      continue;  // every line of it dropped
    }
    Chunk& chunk = from.chunks_[c];
    const bool whole = first == from.firsts_[c];
    const bool full = chunk.capacity > kMaxChunkBytes
                      || (chunk.capacity == kMaxChunkBytes
                          && from.ends_[end - 1] >= kMaxChunkBytes - kMaxChunkBytes / kPackedShare);
    if (!whole || !full) {
      for (size_t i = first; i < end; ++i) {
        Write(from.times_[i], from.LineAt(i));
      }
      continue;
    }
    // Moved out: `from` drops the emptied entry below.
    Chunk moved{std::move(chunk.bytes), std::exchange(chunk.capacity, 0)};
    chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(active_), std::move(moved));
    ++active_;
    firsts_.push_back(ends_.size());
    times_.insert(times_.end(), from.times_.begin() + static_cast<std::ptrdiff_t>(first),
                  from.times_.begin() + static_cast<std::ptrdiff_t>(end));
    ends_.insert(ends_.end(), from.ends_.begin() + static_cast<std::ptrdiff_t>(first),
                 from.ends_.begin() + static_cast<std::ptrdiff_t>(end));
    used_ = ends_.back();
  }
  std::erase_if(from.chunks_, [](const Chunk& chunk) { return chunk.bytes == nullptr; });
  from.active_ = 0;
  from.Clear();
}

}  // namespace replay
