// File: test/fuzz/json_writer_fuzz.cc
//
// The JSON writer every output goes through, round-tripped: the input, cut at NUL bytes into
// strings, is written as keys and values (and its first bytes as numbers); simdjson must parse
// the result (so it is valid UTF-8 JSON whatever bytes came in), and a string that was valid
// UTF-8 must come back unchanged.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <simdjson.h>

#include "replay/io/json_writer.h"
#include "test/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = tally_fuzz::AsText(data, size);
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t nul = text.find('\0', start);
    parts.push_back(text.substr(start, nul == std::string_view::npos ? nul : nul - start));
    if (nul == std::string_view::npos) {
      break;
    }
    start = nul + 1;
  }
  double number = 0;
  int64_t whole = 0;
  if (size >= sizeof number) {
    std::memcpy(&number, data, sizeof number);
    std::memcpy(&whole, data, sizeof whole);
  }

  replay::JsonWriter w;
  w.BeginObject();
  w.Key("values");
  w.BeginArray();
  for (std::string_view p : parts) {
    w.String(p);
  }
  w.EndArray();
  w.Key("numbers");
  w.BeginArray();
  w.RoundedNumber(number);
  w.Int(whole);
  w.EndArray();
  w.Key(parts.front());
  w.Bool(true);
  w.EndObject();
  const std::string out = w.Take();

  static simdjson::dom::parser parser;
  simdjson::dom::element doc;
  FUZZ_CHECK(parser.parse(out).get(doc) == simdjson::SUCCESS);
  simdjson::dom::array values;
  FUZZ_CHECK(doc["values"].get_array().get(values) == simdjson::SUCCESS);
  FUZZ_CHECK(values.size() == parts.size());
  size_t i = 0;
  for (simdjson::dom::element v : values) {
    std::string_view s;
    FUZZ_CHECK(v.get_string().get(s) == simdjson::SUCCESS);
    if (simdjson::validate_utf8(parts[i].data(), parts[i].size())) {
      FUZZ_CHECK(s == parts[i]);
    }
    ++i;
  }
  int64_t whole_again = 0;
  FUZZ_CHECK(doc["numbers"].at(1).get_int64().get(whole_again) == simdjson::SUCCESS);
  FUZZ_CHECK(whole_again == whole);

  // AppendJsonString is what the decision writer uses directly.
  std::string quoted;
  replay::AppendJsonString(text, quoted);
  std::string_view back;
  FUZZ_CHECK(parser.parse(quoted).get_string().get(back) == simdjson::SUCCESS);
  if (simdjson::validate_utf8(text.data(), text.size())) {
    FUZZ_CHECK(back == text);
  }
  return 0;
}
