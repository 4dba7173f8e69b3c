// File: replay/report/run_id_check.cc
#include "replay/report/run_id_check.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <system_error>
#include <vector>

#include "replay/io/content_digest.h"

namespace replay {
namespace {

namespace fs = std::filesystem;

// The value after `marker` up to the next `end`, in the first `limit` bytes of `path`; nullopt
// when the file has no such marker there.
std::optional<std::string> FindTagged(const fs::path& path, std::string_view marker, char end,
                                      size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  const size_t at = text.find(marker);
  if (at == std::string::npos) {
    return std::nullopt;
  }
  const size_t begin = at + marker.size();
  const size_t stop = text.find(end, begin);
  if (stop == std::string::npos) {
    return std::nullopt;
  }
  return text.substr(begin, stop - begin);
}

// The run id metrics.prom ends with: its sample is the last family, so read the tail.
std::optional<std::string> PrometheusRunId(const fs::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  const std::streamoff tail = std::min<std::streamoff>(size, 4096);
  in.seekg(size - tail);
  std::string text(static_cast<size_t>(tail), '\0');
  in.read(text.data(), tail);
  if (tail == size) {
    text.insert(0, 1, '\n');  // the whole file: its first line starts a line too
  }
  constexpr std::string_view kMarker = "\ntally_run_info{run_id=\"";
  const size_t at = text.rfind(kMarker);
  if (at == std::string::npos) {
    return std::nullopt;
  }
  const size_t begin = at + kMarker.size();
  const size_t stop = text.find('"', begin);
  if (stop == std::string::npos) {
    return std::nullopt;
  }
  return text.substr(begin, stop - begin);
}

engine::Status Disagree(const fs::path& file, std::string_view what, const std::string& found,
                        const std::string& run_id) {
  return engine::InvalidArgument(fmt::format(
      "{}: {} {} but report.json says runId {}: the files of this directory come from different "
      "runs (or one was edited); replay again to compare it",
      file.string(), what, found, run_id));
}

}  // namespace

engine::StatusOr<std::string> DigestOfFile(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return engine::NotFound(fmt::format(
        "{}: cannot open: {}", path, std::generic_category().message(errno != 0 ? errno : ENOENT)));
  }
  gzbuffer(file, 1 << 20);
  ContentDigest digest;
  std::vector<char> buffer(size_t{4} << 20);
  for (;;) {
    const int n = gzread(file, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      int errnum = 0;
      std::string message = fmt::format("{}: {}", path, gzerror(file, &errnum));
      gzclose(file);
      return engine::InvalidArgument(message);
    }
    if (n == 0) {
      break;
    }
    digest.Update(std::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  gzclose(file);
  return digest.Hex();
}

engine::Status CheckRunIdsAgree(const std::string& dir, const std::string& run_id,
                                const std::optional<std::string>& decisions_digest) {
  const fs::path root(dir);
  if (run_id.empty()) {
    return engine::InvalidArgument(fmt::format(
        "{}: no runId: not written by tally replay, or by a tally older than run ids, so its "
        "files cannot be shown to belong together; replay again to compare it",
        (root / "report.json").string()));
  }
  std::error_code ec;
  fs::path decisions = root / "decisions.jsonl";
  if (!fs::exists(decisions, ec) && fs::exists(root / "decisions.jsonl.gz", ec)) {
    decisions = root / "decisions.jsonl.gz";
  }
  std::optional<std::string> digest = decisions_digest;
  if (!digest && fs::exists(decisions, ec)) {
    engine::StatusOr<std::string> d = DigestOfFile(decisions.string());
    if (!d.ok()) {
      return d.status();
    }
    digest = *d;
  }
  if (digest && *digest != run_id) {
    return Disagree(decisions, "has digest", *digest, run_id);
  }
  if (const fs::path prom = root / "metrics.prom"; fs::exists(prom, ec)) {
    std::optional<std::string> id = PrometheusRunId(prom);
    if (id != run_id) {
      return Disagree(prom, "tally_run_info run_id", id.value_or("(none)"), run_id);
    }
  }
  if (const fs::path html = root / "report.html"; fs::exists(html, ec)) {
    std::optional<std::string> id =
        FindTagged(html, "<meta name=\"tally-run-id\" content=\"", '"', 1024);
    if (id != run_id) {
      return Disagree(html, "tally-run-id", id.value_or("(none)"), run_id);
    }
  }
  return engine::Status::Ok();
}

}  // namespace replay
