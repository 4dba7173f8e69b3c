// File: replay/io/spooled_stdin.h
//
// Standard input copied to a temporary file, for a reader that needs its input twice (the replay
// plans its shards in a first pass over the trace, then replays it: a pipe can be read once).
// The file is removed with the object.
//
//   SpooledStdin spool;
//   if (engine::Status s = spool.Spool(); !s.ok()) return s;   // reads stdin to its end
//   ReadTrace(spool.path());
#pragma once

#include <string>

#include "engine/base/status.h"

namespace replay {

class SpooledStdin {
 public:
  SpooledStdin() = default;
  SpooledStdin(const SpooledStdin&) = delete;
  SpooledStdin& operator=(const SpooledStdin&) = delete;
  SpooledStdin(SpooledStdin&&) = delete;
  SpooledStdin& operator=(SpooledStdin&&) = delete;
  ~SpooledStdin();

  // Copies standard input to a new file in the temporary directory (TMPDIR). An error names "-"
  // (a file that cannot be made or read) or the temporary file (one that cannot be written).
  engine::Status Spool();
  // The temporary file; empty before Spool().
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace replay
