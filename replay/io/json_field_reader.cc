#include "replay/io/json_field_reader.h"

namespace replay {

engine::Status ParseVersionedJson(std::string_view json, std::string_view name, int64_t version,
                                  std::string_view doc_link, VersionedJson& out) {
  simdjson::padded_string padded(json);
  if (auto err = out.parser.parse(padded).get(out.doc); err != simdjson::SUCCESS) {
    return engine::InvalidArgument(
        fmt::format("{}: not valid JSON: {}", name, simdjson::error_message(err)));
  }
  JsonFieldReader r(name);
  const int64_t schema = r.Int(out.doc, "schemaVersion", "schemaVersion");
  if (r.failed()) {
    return engine::InvalidArgument(r.error());
  }
  if (schema != version) {
    return engine::InvalidArgument(fmt::format(
        "{}: schemaVersion {}: this tally reads version {} ({})", name, schema, version, doc_link));
  }
  return engine::Status::Ok();
}

}  // namespace replay
