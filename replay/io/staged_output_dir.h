// File: replay/io/staged_output_dir.h
//
// An output directory written all or nothing. A run writes its files into a staging directory
// beside `--out` (same parent, so on the same file system) and Commit() puts them in place; a run
// that fails, or is killed, before Commit() leaves the previous outputs as they were, never a new
// decisions.jsonl beside an old report.json (which `tally gate` would then have passed).
//
//   StagedOutputDir dir;
//   if (!dir.Open("out", error)) ...             // creates out/../.out.tally-staging-PID
//   WriteTextFile(dir.path() / "report.json", text);
//   if (!dir.Commit(error)) ...                  // out/ now holds exactly this run's files
//
// Commit: when `--out` does not exist or holds only files tally writes (kTallyOutputFiles), the
// staging directory replaces it by two renames (the old one is moved aside, then removed).
// Otherwise (a directory with the user's own files in it) each staged file is renamed into place
// and the tally files this run did not write are removed: every file is whole, but there is a
// moment when only some are new. Not committed = staging removed by the destructor.
#pragma once

#include <filesystem>
#include <string>

namespace replay {

class StagedOutputDir {
 public:
  StagedOutputDir() = default;
  ~StagedOutputDir();
  StagedOutputDir(const StagedOutputDir&) = delete;
  StagedOutputDir& operator=(const StagedOutputDir&) = delete;
  StagedOutputDir(StagedOutputDir&&) = delete;
  StagedOutputDir& operator=(StagedOutputDir&&) = delete;

  // False with `error` when the staging directory cannot be created.
  bool Open(const std::filesystem::path& out, std::string& error);
  const std::filesystem::path& path() const { return staging_; }
  // False with `error` when the files could not be put in place (the staging directory is kept
  // then, and named in the error, so that nothing is lost).
  bool Commit(std::string& error);

 private:
  std::filesystem::path out_;
  std::filesystem::path staging_;
  bool committed_ = true;  // nothing to clean up until Open
};

}  // namespace replay
