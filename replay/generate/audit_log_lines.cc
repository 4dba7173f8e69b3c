#include "replay/generate/audit_log_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>

#include "engine/base/check.h"
#include "replay/io/json_writer.h"
#include "replay/io/time_parse.h"

namespace replay::internal {

std::string JsonString(std::string_view s) {
  JsonWriter w;
  w.String(s);
  return w.Take();
}

std::string SecondTime(int64_t micros) {
  int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
  }
  return FormatRfc3339(micros - fraction);
}

std::string MicroTime(int64_t micros) {
  int64_t fraction = micros % 1'000'000;
  if (fraction < 0) {
    fraction += 1'000'000;
  }
  std::string t = FormatRfc3339(micros - fraction);  // "...:ssZ"
  t.pop_back();
  return fmt::format("{}.{:06d}Z", t, fraction);
}

AuditLineWriter::AuditLineWriter(std::string api_version, uint64_t seed)
    : api_version_(std::move(api_version)),
      v1beta1_(api_version_ == "audit.k8s.io/v1beta1"),
      rng_(seed) {
  TALLY_CHECK(v1beta1_ || api_version_ == "audit.k8s.io/v1");
}

std::string AuditLineWriter::NewUuid() {
  const uint64_t a = rng_();
  const uint64_t b = rng_();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", a >> 32, (a >> 16) & 0xffff, a & 0xfff,
                     0x8000 | ((b >> 48) & 0x3fff), b & 0xffffffffffffULL);
}

// Everything up to objectRef, in the field order of the API server's JSON encoding.
std::string AuditLineWriter::Head(const AuditRequest& r, std::string_view audit_id,
                                  std::string_view stage, int64_t stage_micros) const {
  std::string ref = fmt::format(R"("resource":{})", JsonString(r.resource));
  if (!r.namespace_name.empty()) {
    ref += fmt::format(R"(,"namespace":{})", JsonString(r.namespace_name));
  }
  if (!r.name.empty()) {
    ref += fmt::format(R"(,"name":{})", JsonString(r.name));
  }
  if (!r.group.empty()) {
    ref += fmt::format(R"(,"apiGroup":{})", JsonString(r.group));
  }
  ref += fmt::format(R"(,"apiVersion":{})", JsonString(r.version));
  if (!r.subresource.empty()) {
    ref += fmt::format(R"(,"subresource":{})", JsonString(r.subresource));
  }
  std::string h = fmt::format(R"({{"kind":"Event","apiVersion":"{}",)", api_version_);
  if (v1beta1_) {
    h += fmt::format(R"("metadata":{{"creationTimestamp":"{}"}},)", SecondTime(stage_micros));
  }
  h += fmt::format(R"("level":"{}",)", r.level);
  if (v1beta1_) {
    h += fmt::format(R"("timestamp":"{}",)", SecondTime(stage_micros));
  }
  h += fmt::format(
      R"("auditID":"{}","stage":"{}","requestURI":{},"verb":"{}","user":{},"sourceIPs":["{}"],)"
      R"("userAgent":{},"objectRef":{{{}}})",
      audit_id, stage, JsonString(r.uri), r.verb, r.user->user, r.user->source_ip,
      JsonString(r.user->user_agent), ref);
  return h;
}

void AuditLineWriter::Emit(const AuditRequest& r) {
  TALLY_CHECK(r.user != nullptr);
  const std::string id = NewUuid();
  int64_t received = r.micros - 800 - static_cast<int64_t>(rng_() % 4200);
  if (!r.object_key.empty()) {
    int64_t& last = last_complete_[r.object_key];
    received = std::min(std::max(received, last), r.micros);
    last = std::max(last, r.micros + r.watch_micros);
  }
  const bool with_request = r.level == "Request" || r.level == "RequestResponse";
  const bool with_response = r.level == "RequestResponse";
  const std::string annotations =
      fmt::format(R"("annotations":{{"authorization.k8s.io/decision":"{}",)"
                  R"("authorization.k8s.io/reason":"{}"}})",
                  r.code == 403 ? "forbid" : "allow", r.code == 403 ? "" : r.user->reason);
  const std::string status =
      fmt::format(R"("responseStatus":{{"metadata":{{}}{},"code":{}}})", r.failure, r.code);
  auto add = [&](int64_t micros, std::string line) {
    pending_.push_back(Pending{micros, static_cast<int64_t>(pending_.size()), std::move(line)});
  };

  add(received, fmt::format(R"({},"requestReceivedTimestamp":"{}","stageTimestamp":"{}"}})",
                            Head(r, id, "RequestReceived", received), MicroTime(received),
                            MicroTime(received)));
  int64_t complete = r.micros;
  if (r.watch_micros > 0) {
    add(r.micros, fmt::format(R"({},{},"requestReceivedTimestamp":"{}","stageTimestamp":"{}",{}}})",
                              Head(r, id, "ResponseStarted", r.micros), status, MicroTime(received),
                              MicroTime(r.micros), annotations));
    complete = r.micros + r.watch_micros;
  }
  std::string line = Head(r, id, "ResponseComplete", complete) + "," + status;
  if (with_request && !r.request_object.empty()) {
    line += fmt::format(R"(,"requestObject":{})", r.request_object);
  }
  if (with_response && !r.response_object.empty()) {
    line += fmt::format(R"(,"responseObject":{})", r.response_object);
  }
  line += fmt::format(R"(,"requestReceivedTimestamp":"{}","stageTimestamp":"{}",{}}})",
                      MicroTime(received), MicroTime(complete), annotations);
  add(complete, std::move(line));
  ++requests_;
}

int64_t AuditLineWriter::LastComplete(const std::string& object_key) const {
  auto it = last_complete_.find(object_key);
  return it == last_complete_.end() ? std::numeric_limits<int64_t>::min() : it->second;
}

std::vector<std::string> AuditLineWriter::TakeLines() {
  std::stable_sort(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) {
    return a.micros != b.micros ? a.micros < b.micros : a.seq < b.seq;
  });
  std::vector<std::string> lines;
  lines.reserve(pending_.size());
  for (Pending& p : pending_) {
    lines.push_back(std::move(p.line));
  }
  pending_.clear();
  return lines;
}

}  // namespace replay::internal
