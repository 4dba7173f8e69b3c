// File: replay/io/json_field_reader.h
//
// Reads fields of a parsed JSON document (simdjson DOM) keeping the first error with its path:
// "report.json: outcomes.admissions: missing or not an integer". After the first error every
// read returns a default value, so a reader of a whole document checks failed() once at the end.
//
//   JsonFieldReader r("report.json");
//   int64_t n = r.Int(outcomes, "admissions", "outcomes.admissions");
//   if (r.failed()) return engine::InvalidArgument(r.error());
//
// Documents tally writes with a top-level schemaVersion (report.json, sweep.json) are opened with
// ParseVersionedJson, which names the file in every error and says which version this tally reads.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

#include "engine/base/status.h"

namespace replay {

class JsonFieldReader {
 public:
  explicit JsonFieldReader(std::string_view name) : name_(name) {}

  simdjson::dom::element Get(simdjson::dom::element parent, std::string_view key,
                             std::string_view path) {
    simdjson::dom::element e;
    if (!failed() && parent[key].get(e) != simdjson::SUCCESS) {
      Fail(path, "missing");
    }
    return e;
  }
  int64_t Int(simdjson::dom::element parent, std::string_view key, std::string_view path) {
    int64_t v = 0;
    if (!failed() && parent[key].get_int64().get(v) != simdjson::SUCCESS) {
      Fail(path, "missing or not an integer");
    }
    return v;
  }
  // null (a non-finite figure) reads as NaN.
  double Num(simdjson::dom::element parent, std::string_view key, std::string_view path) {
    if (failed()) {
      return 0;
    }
    simdjson::dom::element e;
    if (parent[key].get(e) != simdjson::SUCCESS) {
      Fail(path, "missing");
      return 0;
    }
    if (e.is_null()) {
      return std::numeric_limits<double>::quiet_NaN();
    }
    double v = 0;
    if (e.get_double().get(v) != simdjson::SUCCESS) {
      Fail(path, "not a number");
    }
    return v;
  }
  std::string Str(simdjson::dom::element parent, std::string_view key, std::string_view path) {
    std::string_view v;
    if (!failed() && parent[key].get_string().get(v) != simdjson::SUCCESS) {
      Fail(path, "missing or not a string");
    }
    return std::string(v);
  }
  simdjson::dom::array Array(simdjson::dom::element parent, std::string_view key,
                             std::string_view path) {
    simdjson::dom::array a;
    if (!failed() && parent[key].get_array().get(a) != simdjson::SUCCESS) {
      Fail(path, "missing or not an array");
    }
    return a;
  }
  std::vector<std::string> Strings(simdjson::dom::element parent, std::string_view key,
                                   std::string_view path) {
    std::vector<std::string> out;
    simdjson::dom::array a;
    if (failed() || parent[key].get_array().get(a) != simdjson::SUCCESS) {
      Fail(path, "missing or not an array");
      return out;
    }
    for (simdjson::dom::element e : a) {
      std::string_view v;
      if (e.get_string().get(v) != simdjson::SUCCESS) {
        Fail(path, "not an array of strings");
        return out;
      }
      out.emplace_back(v);
    }
    return out;
  }
  std::map<std::string, std::string> StringMap(simdjson::dom::element parent, std::string_view key,
                                               std::string_view path) {
    std::map<std::string, std::string> out;
    simdjson::dom::object o;
    if (failed() || parent[key].get_object().get(o) != simdjson::SUCCESS) {
      Fail(path, "missing or not an object");
      return out;
    }
    for (auto field : o) {
      std::string_view v;
      if (field.value.get_string().get(v) != simdjson::SUCCESS) {
        Fail(path, "not an object of strings");
        return out;
      }
      out.emplace(std::string(field.key), std::string(v));
    }
    return out;
  }
  void Fail(std::string_view path, std::string_view what) {
    if (error_.empty()) {
      error_ = fmt::format("{}: {}: {}", name_, path, what);
    }
  }
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }

 private:
  std::string name_;
  std::string error_;
};

// A parsed document and the parser that owns its memory.
struct VersionedJson {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
};

// Parses `json` into `out` and checks that its integer `schemaVersion` is `version`. Errors:
// "<name>: not valid JSON: ...", "<name>: schemaVersion: missing or not an integer",
// "<name>: schemaVersion 2: this tally reads version 1 (<doc_link>)".
engine::Status ParseVersionedJson(std::string_view json, std::string_view name, int64_t version,
                                  std::string_view doc_link, VersionedJson& out);

}  // namespace replay
