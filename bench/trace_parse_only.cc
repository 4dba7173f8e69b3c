// trace_parse_only TRACE: the ceiling the replay's reader is held against. Reads a tally.events/v1
// trace (plain or gzip) in 4 MiB blocks, as the replay does, and parses every line with simdjson
// On-Demand, touching `type`, `time` and the object's kind and name — no engine, no manifest
// rules. Prints events, bytes, wall seconds, events/s and MB/s; scripts/bench-replay compares it
// with a full replay of the same file.
#include <fmt/format.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include <simdjson.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: trace_parse_only TRACE\n");
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  gzFile file = gzopen(argv[1], "rb");
  if (file == nullptr) {
    std::fprintf(stderr, "error: cannot open %s\n", argv[1]);
    return 1;
  }
  gzbuffer(file, 1 << 20);
  constexpr size_t kBlock = size_t{4} << 20;
  std::vector<char> buffer(kBlock + simdjson::SIMDJSON_PADDING);
  size_t begin = 0;
  size_t end = 0;
  simdjson::ondemand::parser parser;
  int64_t events = 0;
  int64_t bytes = 0;
  int64_t checksum = 0;  // keeps the parse from being optimised away
  bool eof = false;
  while (true) {
    const char* nl =
        static_cast<const char*>(std::memchr(buffer.data() + begin, '\n', end - begin));
    if (nl == nullptr) {
      if (eof) {
        break;
      }
      std::memmove(buffer.data(), buffer.data() + begin, end - begin);
      end -= begin;
      begin = 0;
      if (end == kBlock) {
        buffer.resize(buffer.size() * 2);
      }
      int n = gzread(file, buffer.data() + end,
                     static_cast<unsigned>(buffer.size() - simdjson::SIMDJSON_PADDING - end));
      if (n <= 0) {
        eof = true;
        if (end > 0 && buffer[end - 1] != '\n') {
          buffer[end++] = '\n';
        }
      } else {
        end += static_cast<size_t>(n);
      }
      continue;
    }
    std::string_view line(buffer.data() + begin, static_cast<size_t>(nl - buffer.data()) - begin);
    begin += line.size() + 1;
    bytes += static_cast<int64_t>(line.size()) + 1;
    if (line.empty()) {
      continue;
    }
    simdjson::padded_string_view view(
        line.data(), line.size(), buffer.size() - static_cast<size_t>(line.data() - buffer.data()));
    simdjson::ondemand::document doc;
    if (parser.iterate(view).get(doc) != simdjson::SUCCESS) {
      continue;
    }
    std::string_view type;
    std::string_view kind;
    std::string_view name;
    simdjson::ondemand::object obj;
    if (doc.get_object().get(obj) != simdjson::SUCCESS) {
      continue;
    }
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) {
        break;
      }
      if (key == "type") {
        if (field.value().get_string().get(type) != simdjson::SUCCESS) {
          type = {};
        }
      } else if (key == "object") {
        simdjson::ondemand::object o;
        if (field.value().get_object().get(o) == simdjson::SUCCESS) {
          if (o["kind"].get_string().get(kind) != simdjson::SUCCESS) {
            kind = {};
          }
          simdjson::ondemand::object meta;
          if (o["metadata"].get_object().get(meta) == simdjson::SUCCESS) {
            if (meta["name"].get_string().get(name) != simdjson::SUCCESS) {
              name = {};
            }
          }
        }
      } else {
        std::string_view raw;
        if (field.value().raw_json_token().get(raw) != simdjson::SUCCESS) {
          break;
        }
      }
    }
    checksum += static_cast<int64_t>(type.size() + kind.size() + name.size());
    ++events;
  }
  gzclose(file);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "parse-only: %lld events, %.1f MB, %.3f s, %.0f events/s, %.0f MB/s (checksum %lld)\n",
      static_cast<long long>(events), static_cast<double>(bytes) / 1e6, seconds,
      static_cast<double>(events) / seconds, static_cast<double>(bytes) / 1e6 / seconds,
      static_cast<long long>(checksum));
  return 0;
}
