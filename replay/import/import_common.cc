#include "replay/import/import_common.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <numeric>
#include <system_error>

#include "engine/k8s_names.h"
#include "engine/quantity.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"

namespace replay {

std::vector<std::string_view> SplitCsvLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') {
    line.remove_suffix(1);
  }
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    const size_t comma = line.find(',', begin);
    if (comma == std::string_view::npos) {
      fields.push_back(line.substr(begin));
      return fields;
    }
    fields.push_back(line.substr(begin, comma - begin));
    begin = comma + 1;
  }
}

engine::Status CheckCohortOption(std::string_view cohort) {
  if (!engine::IsDns1123Label(cohort)) {
    return engine::InvalidArgument(
        fmt::format("--cohort \"{}\" is not a valid Cohort name", cohort));
  }
  return engine::Status::Ok();
}

bool ParseWholeNumber(std::string_view text, int64_t& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return !text.empty() && ec == std::errc() && ptr == end;
}

uint64_t StableNameHash(std::string_view name) {
  uint64_t h = 14695981039346656037ULL;
  for (char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  }
  h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
  h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

int64_t ImportCounts::skipped() const {
  int64_t n = 0;
  for (const auto& [reason, count] : skipped_by_reason) {
    n += count;
  }
  return n;
}

void ImportCounts::Skip(const std::string& reason, std::string detail) {
  ++skipped_by_reason[reason];
  if (!detail.empty() && first_errors.size() < kMaxListedErrors) {
    first_errors.push_back(std::move(detail));
  }
}

void SkipTooLongRow(const CsvReader& csv, const CsvRow& row, ImportCounts& counts) {
  counts.Skip("line too long",
              fmt::format("{}:{}: line longer than {} bytes, skipped (--max-line-bytes)",
                          csv.path(), row.line, csv.max_line_bytes()));
}

std::vector<int64_t> SplitProportionally(int64_t total, const std::vector<double>& weights) {
  std::vector<int64_t> parts(weights.size(), 0);
  if (weights.empty() || total <= 0) {
    return parts;
  }
  double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<double> w = weights;
  if (sum <= 0) {
    std::fill(w.begin(), w.end(), 1.0);
    sum = static_cast<double>(w.size());
  }
  std::vector<std::pair<double, size_t>> remainders;
  int64_t given = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    const double exact = static_cast<double>(total) * w[i] / sum;
    parts[i] = static_cast<int64_t>(std::floor(exact));
    given += parts[i];
    remainders.emplace_back(exact - static_cast<double>(parts[i]), i);
  }
  std::stable_sort(remainders.begin(), remainders.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t k = 0; given < total; ++k, ++given) {
    ++parts[remainders[k % remainders.size()].second];
  }
  return parts;
}

namespace {

void AppendMetadata(JsonWriter& j, const std::string& namespace_name, const std::string& name) {
  j.Key("apiVersion");
  j.String("kueue.x-k8s.io/v1beta2");
  j.Key("kind");
  j.String("Workload");
  j.Key("metadata");
  j.BeginObject();
  j.Key("name");
  j.String(name);
  j.Key("namespace");
  j.String(namespace_name);
}

// status.admission and the conditions of a Workload admitted at w.created_micros.
void AppendAdmittedStatus(JsonWriter& j, const ImportedWorkload& w,
                          const ImportedAdmission& admission) {
  j.Key("status");
  j.BeginObject();
  j.Key("admission");
  j.BeginObject();
  j.Key("clusterQueue");
  j.String(admission.cluster_queue);
  j.Key("podSetAssignments");
  j.BeginArray();
  j.BeginObject();
  j.Key("name");
  j.String("main");
  j.Key("flavors");
  j.BeginObject();
  for (const auto& [resource, quantity] : w.requests) {
    j.Key(resource);
    j.String(admission.flavor);
  }
  j.EndObject();
  j.Key("resourceUsage");
  j.BeginObject();
  for (const auto& [resource, quantity] : w.requests) {
    j.Key(resource);
    const bool milli = engine::IsMilliResource(resource);
    engine::StatusOr<engine::Quantity> q = engine::ParseCanonicalQuantity(quantity, milli);
    if (!q.ok() || w.pods == 1) {
      j.String(quantity);  // as requested: the loader then names a bad quantity itself
      continue;
    }
    int64_t total = 0;
    if (__builtin_mul_overflow(q->value(), int64_t{w.pods}, &total)) {
      total = engine::Quantity::kMaxValue - 1;  // saturates, as quota arithmetic does
    }
    j.String(milli ? fmt::format("{}m", total) : fmt::format("{}", total));
  }
  j.EndObject();
  j.Key("count");
  j.Int(w.pods);
  j.EndObject();
  j.EndArray();
  j.EndObject();  // admission
  j.Key("conditions");
  j.BeginArray();
  for (const char* type : {"QuotaReserved", "Admitted"}) {
    j.BeginObject();
    j.Key("type");
    j.String(type);
    j.Key("status");
    j.String("True");
    j.Key("reason");
    j.String(type);
    j.Key("message");
    j.String("running when the trace began");
    j.Key("lastTransitionTime");
    j.String(FormatRfc3339(w.created_micros));
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();  // status
}

void AppendAdded(const ImportedWorkload& w, const ImportedAdmission* admission, std::string& out) {
  JsonWriter j;
  j.BeginObject();
  j.Key("type");
  j.String("ADDED");
  j.Key("time");
  j.String(FormatRfc3339(w.created_micros));
  if (w.runtime_micros >= 0) {
    j.Key("runtime");
    j.String(fmt::format("{}ms", w.runtime_micros / 1000));
  }
  j.Key("object");
  j.BeginObject();
  AppendMetadata(j, w.namespace_name, w.name);
  if (!w.labels.empty()) {
    j.Key("labels");
    j.BeginObject();
    for (const auto& [key, value] : w.labels) {
      j.Key(key);
      j.String(value);
    }
    j.EndObject();
  }
  j.EndObject();  // metadata
  j.Key("spec");
  j.BeginObject();
  j.Key("queueName");
  j.String(w.queue_name);
  if (!w.priority_class.empty()) {
    j.Key("priorityClassRef");
    j.BeginObject();
    j.Key("group");
    j.String("kueue.x-k8s.io");
    j.Key("kind");
    j.String("WorkloadPriorityClass");
    j.Key("name");
    j.String(w.priority_class);
    j.EndObject();
    j.Key("priority");
    j.Int(w.priority);
  }
  j.Key("podSets");
  j.BeginArray();
  j.BeginObject();
  j.Key("name");
  j.String("main");
  j.Key("count");
  j.Int(w.pods);
  j.Key("template");
  j.BeginObject();
  j.Key("spec");
  j.BeginObject();
  if (!w.affinity_key.empty()) {
    j.Key("affinity");
    j.BeginObject();
    j.Key("nodeAffinity");
    j.BeginObject();
    j.Key("requiredDuringSchedulingIgnoredDuringExecution");
    j.BeginObject();
    j.Key("nodeSelectorTerms");
    j.BeginArray();
    j.BeginObject();
    j.Key("matchExpressions");
    j.BeginArray();
    j.BeginObject();
    j.Key("key");
    j.String(w.affinity_key);
    j.Key("operator");
    j.String("In");
    j.Key("values");
    j.BeginArray();
    for (const std::string& v : w.affinity_values) {
      j.String(v);
    }
    j.EndArray();
    j.EndObject();
    j.EndArray();
    j.EndObject();
    j.EndArray();
    j.EndObject();
    j.EndObject();
    j.EndObject();
  }
  j.Key("containers");
  j.BeginArray();
  j.BeginObject();
  j.Key("name");
  j.String("main");
  j.Key("resources");
  j.BeginObject();
  j.Key("requests");
  j.BeginObject();
  for (const auto& [resource, quantity] : w.requests) {
    j.Key(resource);
    j.String(quantity);
  }
  j.EndObject();
  j.EndObject();
  j.EndObject();
  j.EndArray();   // containers
  j.EndObject();  // spec
  j.EndObject();  // template
  j.EndObject();  // pod set
  j.EndArray();
  j.EndObject();  // spec
  if (admission != nullptr) {
    AppendAdmittedStatus(j, w, *admission);
  }
  j.EndObject();  // object
  j.EndObject();
  out += j.str();
}

}  // namespace

void AppendAddedEvent(const ImportedWorkload& w, std::string& out) {
  AppendAdded(w, nullptr, out);
}

void AppendAdmittedAddedEvent(const ImportedWorkload& w, const ImportedAdmission& admission,
                              std::string& out) {
  AppendAdded(w, &admission, out);
}

void AppendDeletedEvent(int64_t micros, const std::string& namespace_name, const std::string& name,
                        std::string& out) {
  JsonWriter j;
  j.BeginObject();
  j.Key("type");
  j.String("DELETED");
  j.Key("time");
  j.String(FormatRfc3339(micros));
  j.Key("object");
  j.BeginObject();
  AppendMetadata(j, namespace_name, name);
  j.EndObject();  // metadata
  j.EndObject();  // object
  j.EndObject();
  out += j.str();
}

}  // namespace replay
