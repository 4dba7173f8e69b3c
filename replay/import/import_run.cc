#include "replay/import/import_run.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

#include "replay/io/json_writer.h"
#include "replay/io/text_file.h"

namespace replay {
namespace {

std::string ImportJson(const std::string& source, const std::string& input,
                       const ImportOutput& out) {
  JsonWriter j;
  j.BeginObject();
  j.Key("counts");
  j.BeginObject();
  j.Key("read");
  j.Int(out.counts.read);
  j.Key("skipped");
  j.Int(out.counts.skipped());
  j.Key("skippedByReason");
  j.BeginObject();
  for (const auto& [reason, count] : out.counts.skipped_by_reason) {
    j.Key(reason);
    j.Int(count);
  }
  j.EndObject();
  j.Key("used");
  j.Int(out.counts.used);
  j.EndObject();
  j.Key("firstErrors");
  j.BeginArray();
  for (const std::string& e : out.counts.first_errors) {
    j.String(e);
  }
  j.EndArray();
  j.Key("input");
  j.String(input);
  j.Key("notes");
  j.BeginArray();
  for (const std::string& n : out.notes) {
    j.String(n);
  }
  j.EndArray();
  j.Key("schemaVersion");
  j.Int(1);
  j.Key("source");
  j.String(source);
  j.EndObject();
  return j.Take() + "\n";
}

int Finish(const std::string& source, const std::string& input, const ImportOutput& out,
           const ImportCommandOptions& options) {
  std::error_code ec;
  std::filesystem::create_directories(options.out, ec);
  if (ec) {
    std::fprintf(stderr, "error: cannot create %s: %s\n", options.out.c_str(),
                 ec.message().c_str());
    return 1;
  }
  const std::filesystem::path dir(options.out);
  if (!WriteTextFile(dir / "manifests.yaml", out.manifests)
      || !WriteTextFile(dir / "events.jsonl", out.events)
      || !WriteTextFile(dir / "import.json", ImportJson(source, input, out))) {
    return 1;
  }
  std::string written = "manifests.yaml,events.jsonl,import.json";
  for (const auto& [name, text] : out.extra_files) {
    if (!WriteTextFile(dir / name, text)) {
      return 1;
    }
    written += fmt::format(",{}", name);
  }
  for (const std::string& e : out.counts.first_errors) {
    std::fprintf(stderr, "skipped: %s\n", e.c_str());
  }
  if (static_cast<size_t>(out.counts.skipped()) > out.counts.first_errors.size()) {
    std::fprintf(stderr, "... %lld rows skipped in all: by reason below and in import.json\n",
                 static_cast<long long>(out.counts.skipped()));
  }
  std::string reasons;
  for (const auto& [reason, count] : out.counts.skipped_by_reason) {
    reasons += fmt::format("{}{} {}", reasons.empty() ? " (" : ", ", count, reason);
  }
  if (!reasons.empty()) {
    reasons += ")";
  }
  std::printf("tally import %s: %s\n", source.c_str(), input.c_str());
  std::printf("rows: %lld read = %lld used + %lld skipped%s\n",
              static_cast<long long>(out.counts.read), static_cast<long long>(out.counts.used),
              static_cast<long long>(out.counts.skipped()), reasons.c_str());
  for (const std::string& n : out.notes) {
    std::printf("%s\n", n.c_str());
  }
  std::printf("wrote %s/{%s}\n", options.out.c_str(), written.c_str());
  std::printf("next: tally replay --manifests %s/manifests.yaml --events %s/events.jsonl\n",
              options.out.c_str(), options.out.c_str());
  return options.strict && out.counts.skipped() > 0 ? 1 : 0;
}

// Finish, or the importer's error (exit 1) when it could not read its input.
int FinishOrFail(const std::string& source, const std::string& input,
                 const engine::StatusOr<ImportOutput>& out, const ImportCommandOptions& options) {
  if (!out.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  return Finish(source, input, *out, options);
}

}  // namespace

int RunImportAudit(const AuditImportOptions& audit, const ImportCommandOptions& options) {
  engine::StatusOr<ImportOutput> out = ImportAuditLogs(audit);
  if (!out.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  std::string inputs;
  for (const std::string& path : audit.paths) {
    inputs += (inputs.empty() ? "" : " ") + path;
  }
  return Finish("audit", inputs, *out, options);
}

int RunImportAlibabaGpu(const AlibabaGpuImportOptions& alibaba,
                        const ImportCommandOptions& options) {
  return FinishOrFail("alibaba-gpu", alibaba.pods, ImportAlibabaGpu(alibaba), options);
}

int RunImportAlibabaDlrm(const AlibabaDlrmImportOptions& dlrm,
                         const ImportCommandOptions& options) {
  return FinishOrFail("alibaba-dlrm", dlrm.path, ImportAlibabaDlrm(dlrm), options);
}

int RunImportPhilly(const PhillyImportOptions& philly, const ImportCommandOptions& options) {
  engine::StatusOr<ImportOutput> out = ImportPhilly(philly);
  if (!out.ok()) {
    std::fprintf(stderr, "error: %s\n", std::string(out.status().message()).c_str());
    return 1;
  }
  return Finish("philly", philly.path, *out, options);
}

}  // namespace replay
