#include "replay/io/staged_output_dir.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <string_view>
#include <system_error>

namespace replay {
namespace {

namespace fs = std::filesystem;

// Every file a tally command writes into an output directory.
constexpr std::array<std::string_view, 6> kTallyOutputFiles = {
    "decisions.jsonl", "decisions.jsonl.gz", "report.json",
    "report.html",     "metrics.prom",       "verify.txt"};

bool IsTallyOutputFile(const fs::path& name) {
  for (std::string_view f : kTallyOutputFiles) {
    if (name == f) {
      return true;
    }
  }
  return false;
}

// True when `dir` holds nothing but tally's own output files (or is empty).
bool OnlyTallyFiles(const fs::path& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file(ec) || !IsTallyOutputFile(entry.path().filename())) {
      return false;
    }
  }
  return !ec;
}

fs::path Sibling(const fs::path& out, std::string_view what) {
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  return parent / fmt::format(".{}.tally-{}-{}", out.filename().string(), what, ::getpid());
}

}  // namespace

StagedOutputDir::~StagedOutputDir() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

bool StagedOutputDir::Open(const fs::path& out, std::string& error) {
  out_ = out.lexically_normal();
  if (out_.filename().empty()) {  // "out/" -> "out"
    out_ = out_.parent_path();
  }
  staging_ = Sibling(out_, "staging");
  std::error_code ec;
  fs::remove_all(staging_, ec);  // left by a run of the same pid that was killed
  if (out_.has_parent_path()) {
    fs::create_directories(out_.parent_path(), ec);
  }
  if (!fs::create_directory(staging_, ec) || ec) {
    error = fmt::format("cannot create {}: {}", staging_.string(),
                        ec ? ec.message() : "already exists");
    return false;
  }
  committed_ = false;
  return true;
}

bool StagedOutputDir::Commit(std::string& error) {
  std::error_code ec;
  if (!fs::exists(out_, ec) || (fs::is_directory(out_, ec) && OnlyTallyFiles(out_))) {
    const fs::path old = Sibling(out_, "previous");
    const bool had_old = fs::exists(out_, ec);
    if (had_old) {
      fs::remove_all(old, ec);
      fs::rename(out_, old, ec);
    }
    if (!ec) {
      fs::rename(staging_, out_, ec);
    }
    if (ec) {
      if (had_old && !fs::exists(out_)) {
        std::error_code ignored;
        fs::rename(old, out_, ignored);  // put the previous outputs back
      }
      error = fmt::format("cannot move {} to {}: {} (this run's outputs are kept in {})",
                          staging_.string(), out_.string(), ec.message(), staging_.string());
      committed_ = true;  // keep the staging directory: it is all the user has
      return false;
    }
    fs::remove_all(old, ec);
    committed_ = true;
    return true;
  }
  if (!fs::is_directory(out_, ec)) {
    error = fmt::format("{} exists and is not a directory (this run's outputs are kept in {})",
                        out_.string(), staging_.string());
    committed_ = true;
    return false;
  }
  // A directory with the user's own files: file by file, then the stale tally files go.
  for (std::string_view name : kTallyOutputFiles) {
    const fs::path staged = staging_ / name;
    if (fs::exists(staged, ec)) {
      fs::rename(staged, out_ / name, ec);
      if (ec) {
        error = fmt::format("cannot move {} to {}: {}", staged.string(), (out_ / name).string(),
                            ec.message());
        committed_ = true;
        return false;
      }
    } else {
      fs::remove(out_ / name, ec);
    }
  }
  fs::remove_all(staging_, ec);
  committed_ = true;
  return true;
}

}  // namespace replay
