// File: replay/io/workload_json.h
//
// The fast path for Workload objects in event traces: parses the common shape of a
// kueue.x-k8s.io Workload (v1beta1 or v1beta2), given as JSON, straight into an
// engine::WorkloadSpec with simdjson On-Demand, instead of going through the YAML manifest loader
// (replay/io/manifest_loader.h), which costs about 100 times more per object.
//
//   engine::WorkloadSpec wl;
//   if (ParseWorkloadJsonFast(parser, padded_view, "trace.jsonl", wl) == FastParse::kFallback) {
//     LoadResult load = LoadManifestString(json, "trace.jsonl");  // exact errors, field paths
//   }
//
// Contract: kParsed only when the slow path (LoadManifestString, then spec.workloads[0]) would
// accept the object with no error and produce exactly the same WorkloadSpec (same defaults,
// quantity and time parsing, source {file, document 0, line 1}). Anything the fast path does not
// model, or that could be invalid, gives kFallback: an unknown key where the slow path checks
// keys, a duplicate key, a null, a value of another JSON type than the usual one (a number where
// a string is expected, ...), a string with an escape or a byte outside printable ASCII, a bad
// quantity, time or name, the pod set rules (1 to 18, unique names, minCount <= count, ...), and
// any `status` (rare in traces; the slow path handles it). `out` is unspecified after kFallback.
//
// Thread safety: uses `parser` (one per thread); reentrant otherwise.
#pragma once

#include <cstdint>
#include <string_view>

#include <simdjson.h>

#include "engine/workload_spec.h"

namespace replay {

class PodSetsByText;
class SpecsByText;

enum class FastParse : uint8_t { kParsed, kFallback };

// REQUIRES: `object_json` is one JSON object with at least simdjson::SIMDJSON_PADDING readable
// bytes after it (a padded_string_view checks the capacity). Invalidates any document `parser`
// was iterating. `file_name` goes into out.source, as the slow path's file name.
FastParse ParseWorkloadJsonFast(simdjson::ondemand::parser& parser,
                                simdjson::padded_string_view object_json,
                                std::string_view file_name, engine::WorkloadSpec& out);

// The same walk over an object the caller is iterating in place (an event line's "object"), so
// the line is indexed once rather than once more for its object. The caller has checked that
// the object's bytes are plain ASCII (IsPlainAsciiJson; the whole line will do). On kParsed the
// object has been read to its end; on kFallback the iteration is left anywhere (parse again).
// Both write `out` over whatever it held, keeping its storage (engine::ResetForReuse): a reader
// that passes the same spec line after line allocates only when a line needs more room.
// With `pod_sets_by_text`, a podSets array written exactly as one read before shares that list
// (out.pod_sets then shares a buffer with the memo; replay/io/pod_sets_by_text.h). With `specs`
// and `input_end` (one past the input's last byte), a spec object written exactly as one read
// before takes that reading (replay/io/specs_by_text.h).
FastParse ParseWorkloadObjectFast(simdjson::ondemand::object object, std::string_view file_name,
                                  engine::WorkloadSpec& out,
                                  PodSetsByText* pod_sets_by_text = nullptr,
                                  SpecsByText* specs = nullptr, const char* input_end = nullptr);
// True when every byte is printable ASCII and none is a backslash (what the fast path reads).
bool IsPlainAsciiJson(std::string_view text);

}  // namespace replay
