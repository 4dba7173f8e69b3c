// File: replay/io/json_to_yaml.h
//
// `-o yaml` for every command that prints `-o json` (issue 24): the JSON a command writes, turned
// into YAML by yaml-cpp's emitter (block style, keys in the JSON's order), so the two formats
// always carry the same fields. A JSON string that YAML would read as something else (a number,
// a boolean, null, an empty or padded text) is double-quoted; numbers keep their JSON form.
//
//   std::fputs(ToOutputFormat(json_text, options.output).c_str(), stdout);  // "json" | "yaml"
#pragma once

#include <string>
#include <string_view>

namespace replay {

// `json` (one JSON value, optionally followed by a newline) as a YAML document ending in a
// newline. Text that is not JSON is returned unchanged (JSON is YAML, so it still reads).
std::string JsonToYaml(std::string_view json);

// `json` unchanged for "json", JsonToYaml(json) for "yaml".
std::string ToOutputFormat(std::string json, std::string_view format);

}  // namespace replay
