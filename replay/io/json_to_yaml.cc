#include "replay/io/json_to_yaml.h"

#include <fmt/format.h>

#include <cctype>

#include <simdjson.h>

#include <yaml-cpp/yaml.h>

namespace replay {
namespace {

// True when YAML 1.1/1.2 core resolution would not read `s`, written plainly, as this string.
bool NeedsQuotes(std::string_view s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front())) != 0
      || std::isspace(static_cast<unsigned char>(s.back())) != 0) {
    return true;
  }
  const char c = s.front();
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
    return true;  // a number, a date, `-`, `.inf`, ... : quoted rather than guessed
  }
  std::string lower;
  for (char ch : s) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  }
  for (std::string_view word : {"~", "null", "true", "false", "yes", "no", "on", "off", "y", "n"}) {
    if (lower == word) {
      return true;
    }
  }
  return false;
}

void Emit(simdjson::dom::element value, YAML::Emitter& out) {
  switch (value.type()) {
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object object = value.get_object().value_unsafe();
      if (object.size() == 0) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      for (simdjson::dom::key_value_pair field : object) {
        out << YAML::Key;
        const std::string key(field.key);
        if (NeedsQuotes(key)) {
          out << YAML::DoubleQuoted;
        }
        out << key << YAML::Value;
        Emit(field.value, out);
      }
      out << YAML::EndMap;
      return;
    }
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array array = value.get_array().value_unsafe();
      if (array.size() == 0) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (simdjson::dom::element item : array) {
        Emit(item, out);
      }
      out << YAML::EndSeq;
      return;
    }
    case simdjson::dom::element_type::STRING: {
      const std::string text(value.get_string().value_unsafe());
      if (NeedsQuotes(text)) {
        out << YAML::DoubleQuoted;
      }
      out << text;
      return;
    }
    case simdjson::dom::element_type::INT64:
      out << value.get_int64().value_unsafe();
      return;
    case simdjson::dom::element_type::UINT64:
      out << value.get_uint64().value_unsafe();
      return;
    case simdjson::dom::element_type::DOUBLE:
      // The shortest form that reads back to the same double, as the JSON writer prints it.
      out << fmt::format("{}", value.get_double().value_unsafe());
      return;
    case simdjson::dom::element_type::BOOL:
      out << value.get_bool().value_unsafe();
      return;
    case simdjson::dom::element_type::NULL_VALUE:
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string JsonToYaml(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  const simdjson::padded_string padded(json);
  if (parser.parse(padded).get(root) != simdjson::SUCCESS) {
    return std::string(json);
  }
  YAML::Emitter out;
  Emit(root, out);
  std::string text = out.c_str();
  text += '\n';
  return text;
}

std::string ToOutputFormat(std::string json, std::string_view format) {
  if (format == "yaml") {
    return JsonToYaml(json);
  }
  return json;  // moved out, not copied
}

}  // namespace replay
