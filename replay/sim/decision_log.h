// File: replay/sim/decision_log.h
//
// decisions.jsonl as the replay writes it (docs/replay.md): lines buffered and written in blocks
// of about 1 MiB, their digest kept as the run id the other outputs repeat, and the whole file
// started again when a replay planned from the manifests proved wrong (Simulator::Run). The first
// write error is kept and returned by Close (docs/replay.md, "Writing decisions.jsonl").
//
//   DecisionLog log(std::fopen("decisions.jsonl", "wb"));
//   log.Write(R"({"time":...,"type":"Admitted",...})");
//   std::string error;
//   if (!log.Close(error)) fail(error);   // every line in the file, or the first write error
//   std::string id = log.RunId();
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "replay/io/content_digest.h"

namespace replay {

// Writes decisions.jsonl (docs/replay.md): one JSON object per line, keys sorted.
class DecisionLog {
 public:
  explicit DecisionLog(std::FILE* out);
  ~DecisionLog();  // closes (an error then goes unreported: call Close to see it)
  DecisionLog(const DecisionLog&) = delete;
  DecisionLog& operator=(const DecisionLog&) = delete;
  DecisionLog(DecisionLog&&) = delete;
  DecisionLog& operator=(DecisionLog&&) = delete;

  void Write(std::string_view line);  // without newline
  // Digests the buffered lines and hands them to the file.
  void Flush();
  // Flushes the lines and the FILE. True when every line was written; false with the first
  // error in `error` (for example "No space left on device").
  bool Close(std::string& error);
  int64_t lines() const { return lines_; }
  // The run id: the digest of every line written so far (call after Flush), which the other
  // output files repeat (replay/io/content_digest.h).
  std::string RunId() const { return digest_.Hex(); }
  // Whether Restart can take back what was written: no file, or a regular file (truncated back to
  // where the log started). Not a pipe nor a memory stream.
  bool restartable() const { return out_ == nullptr || start_ >= 0; }
  // Forgets every line written (the file is cut back to where the log started): the replay
  // starts again after a plan made from the manifests proved wrong (Simulator::Run).
  bool Restart();

 private:
  std::FILE* out_;
  int64_t start_ = -1;   // the file's offset when the log started, if a regular file
  int write_error_ = 0;  // errno of the first fwrite to out_ that fell short (-1: none given)
  std::string buffer_;
  int64_t lines_ = 0;
  ContentDigest digest_;
};

}  // namespace replay
