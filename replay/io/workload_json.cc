// One concept in one file (about 660 lines, over the ~600 of STYLE.md on purpose): the simdjson
// On-Demand fast path of a Workload object (replay/io/workload_json.h). Its small helpers are
// templates and one-line readers called once per field of every event; kept in this translation
// unit they are inlined into the one parse (the build has no LTO), which a split would stop.
#include "replay/io/workload_json.h"

#include <algorithm>
#include <charconv>
#include <concepts>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "replay/io/literal_equals.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "engine/k8s_names.h"
#include "engine/quantity.h"
#include "replay/io/input_limits.h"
#include "replay/io/ondemand_walk.h"
#include "replay/io/pod_sets_by_text.h"
#include "replay/io/specs_by_text.h"
#include "replay/io/time_parse.h"

namespace replay {
namespace {

// Every helper returns false to mean "fall back to the slow path"; nothing here reports errors.
namespace od = simdjson::ondemand;
using ondemand_walk::ForEachField;
using ondemand_walk::ForEachItem;
using ondemand_walk::RawView;
using simdjson::SUCCESS;

constexpr std::string_view kClassLabel = "tally.dev/class";  // as replay/io/workload_fields.cc
constexpr std::string_view kExpectedRuntimeAnnotation = "tally.dev/expected-runtime";  // as well
constexpr std::string_view kWorkloadPriorityClassSource = "kueue.x-k8s.io/workloadpriorityclass";
constexpr std::string_view kPodPriorityClassSource = "scheduling.k8s.io/priorityclass";
constexpr size_t kMaxPodSets = 18;  // replay::internal::kMaxPodSets (yaml-cpp free here)

// True when every byte is printable ASCII and none is a backslash: then a JSON string has no
// escapes (its bytes in the input are its value) and YAML reads it exactly as JSON does (no
// line-break folding of U+0085 / U+2028, no escape-set differences).
// Every line of a trace goes through it (perf: 2.4 % of Kueue's large-scale replay byte by byte,
// which g++ -O2 did not vectorise): with SSE2 (every x86-64) 16 bytes a compare, 64 a branch.
bool PlainAscii(std::string_view text) {
  const char* p = text.data();
  const char* const end = p + text.size();
#if defined(__SSE2__)
  if (text.size() >= 16) {
    // Signed bytes: 0x80..0xff are negative, so "> 0x1f" rejects them with the control bytes.
    const __m128i low = _mm_set1_epi8(0x1f);
    const __m128i high = _mm_set1_epi8(0x7f);
    const __m128i backslash = _mm_set1_epi8('\\');
    const auto ok = [&](const char* at) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
      return _mm_andnot_si128(_mm_cmpeq_epi8(v, backslash),
                              _mm_and_si128(_mm_cmpgt_epi8(v, low), _mm_cmplt_epi8(v, high)));
    };
    // 64 bytes a test: a trace line is some 550 bytes, and one branch per 16 of them was most of
    // this function's cost (issue 22: 2 % of the moderate trace's instructions).
    for (; end - p >= 64; p += 64) {
      const __m128i all =
          _mm_and_si128(_mm_and_si128(ok(p), ok(p + 16)), _mm_and_si128(ok(p + 32), ok(p + 48)));
      if (_mm_movemask_epi8(all) != 0xffff) {
        return false;
      }
    }
    for (; end - p >= 16; p += 16) {
      if (_mm_movemask_epi8(ok(p)) != 0xffff) {
        return false;
      }
    }
    // The last bytes in one more test, overlapping bytes already checked (no read past the end).
    return p == end || _mm_movemask_epi8(ok(end - 16)) == 0xffff;
  }
#endif
  bool all_plain = true;
  for (; p < end; ++p) {
    const auto u = static_cast<unsigned char>(*p);
    all_plain &= (u >= 0x20) & (u < 0x7f) & (u != '\\');
  }
  return all_plain;
}

// Marks `bit` in `seen`; false when it was already there (a duplicate key).
bool Once(uint32_t& seen, uint32_t bit) {
  if ((seen & bit) != 0) {
    return false;
  }
  seen |= bit;
  return true;
}

bool String(od::value value, std::string_view& out) {
  od::raw_json_string raw;
  if (value.get_raw_json_string().get(raw) != SUCCESS) {
    return false;  // null, a number, a map...: the slow path decides
  }
  out = RawView(raw);
  return true;
}

// A string field into an owning text: a std::string, an interned name or a uid.
template <typename Text>
requires std::same_as<Text, std::string> || std::same_as<
    Text, engine::InternedName> || std::same_as<Text, engine::WorkloadUid>
bool String(od::value value, Text& out) {
  std::string_view view;
  if (!String(value, view)) {
    return false;
  }
  out.assign(view);
  return true;
}

// The text YAML reads for a JSON number: the token as written (a plain scalar).
bool NumberToken(od::value value, std::string_view& out) {
  od::json_type type;
  if (value.type().get(type) != SUCCESS || type != od::json_type::number) {
    return false;
  }
  out = value.raw_json_token();
  while (!out.empty() && out.back() == ' ') {
    out.remove_suffix(1);
  }
  return !out.empty();
}

// An int32 >= `min`, written as a plain JSON integer (ObjectContext::Int32's rules).
bool Int32(od::value value, int32_t min, int32_t& out) {
  std::string_view text;
  if (!NumberToken(value, text)) {
    return false;
  }
  int64_t parsed = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (ec != std::errc() || ptr != text.data() + text.size() || parsed < min
      || parsed > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  out = static_cast<int32_t>(parsed);
  return true;
}

bool Bool(od::value value, bool& out) {
  return value.get_bool().get(out) == SUCCESS;
}

// A quantity written as a JSON string or number (ObjectContext::Decimal).
bool Decimal(od::value value, engine::DecimalQuantity& out) {
  od::json_type type;
  if (value.type().get(type) != SUCCESS) {
    return false;
  }
  std::string_view text;
  if (type == od::json_type::string) {
    if (!String(value, text)) {
      return false;
    }
  } else if (!NumberToken(value, text)) {
    return false;
  }
  engine::StatusOr<engine::DecimalQuantity> decimal = engine::ParseDecimalQuantity(text);
  if (!decimal.ok()) {
    return false;
  }
  out = *decimal;
  return true;
}

// A ResourceList: resource name -> quantity, kept sorted; a repeated name falls back.
bool ResourceList(od::value value, engine::ResourceList& out) {
  return ForEachField(value, [&](std::string_view name, od::value item) {
    engine::DecimalQuantity amount;
    if (name.empty() || !Decimal(item, amount)) {
      return false;
    }
    auto pos =
        std::lower_bound(out.begin(), out.end(), name,
                         [](const auto& entry, std::string_view n) { return entry.first < n; });
    if (pos != out.end() && pos->first == name) {
      return false;
    }
    out.insert(pos, {std::string(name), amount});
    return true;
  });
}

// A map of strings; repeated keys fall back.
bool StringMap(od::value value, std::map<std::string, std::string>& out) {
  return ForEachField(value, [&](std::string_view key, od::value item) {
    std::string_view text;
    return String(item, text) && out.emplace(std::string(key), std::string(text)).second;
  });
}

bool StringList(od::value value, std::vector<std::string>& out) {
  return ForEachItem(value, [&](od::value item) {
    std::string_view text;
    if (!String(item, text)) {
      return false;
    }
    out.emplace_back(text);
    return true;
  });
}

// `resources: {requests, limits, claims}` of a container or of the pod.
bool Requirements(od::value value, engine::ResourceList& requests, engine::ResourceList& limits) {
  uint32_t seen = 0;
  return ForEachField(value, [&](std::string_view key, od::value item) {
    if (Is(key, "requests")) {
      return Once(seen, 1) && ResourceList(item, requests);
    }
    if (Is(key, "limits")) {
      return Once(seen, 2) && ResourceList(item, limits);
    }
    if (Is(key, "claims")) {
      return Once(seen, 4);  // not read by the slow path either
    }
    return false;
  });
}

// `out` may hold containers reset for reuse (engine::ResetForReuse): they are written in place,
// and the list is truncated to the containers read.
bool Containers(od::value value, bool init, std::vector<engine::ContainerResources>& out) {
  const size_t limit = CurrentInputLimits().max_containers;
  size_t used = 0;
  const bool read = ForEachItem(value, [&](od::value item) {
    if (used >= limit) {
      return false;  // the manifest parsers refuse it with the limit's message
    }
    engine::ContainerResources& c = used < out.size() ? out[used] : out.emplace_back();
    ++used;
    uint32_t seen = 0;
    // A container has many more fields; the slow path reads only these two.
    bool ok = ForEachField(item, [&](std::string_view key, od::value field) {
      if (Is(key, "resources")) {
        return Once(seen, 1) && Requirements(field, c.requests, c.limits);
      }
      if (init && Is(key, "restartPolicy")) {
        std::string_view policy;
        if (!Once(seen, 2) || !String(field, policy) || policy != "Always") {
          return false;  // anything but Always is an error for an init container
        }
        c.restartable_sidecar = true;
      }
      return true;
    });
    return ok && engine::Find(c.requests, "pods") == nullptr;  // `pods` is reserved for Kueue
  });
  out.resize(used);
  return read;
}

bool MatchExpression(od::value value, engine::NodeSelectorRequirement& req) {
  uint32_t seen = 0;
  bool ok = ForEachField(value, [&](std::string_view key, od::value item) {
    if (Is(key, "key")) {
      return Once(seen, 1) && String(item, req.key) && !req.key.empty();
    }
    if (Is(key, "operator")) {
      std::string_view op;
      if (!Once(seen, 2) || !String(item, op)
          || (op != "In" && op != "NotIn" && op != "Exists" && op != "DoesNotExist" && op != "Gt"
              && op != "Lt")) {
        return false;
      }
      req.op.assign(op);
      return true;
    }
    if (Is(key, "values")) {
      return Once(seen, 4) && StringList(item, req.values);
    }
    return false;
  });
  return ok && (seen & 3) == 3;  // key and operator are required
}

// affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.
bool Affinity(od::value value, std::vector<engine::NodeSelectorTerm>& terms) {
  auto terms_list = [&](od::value list) {
    return ForEachItem(list, [&](od::value item) {
      engine::NodeSelectorTerm term;
      uint32_t seen = 0;
      bool ok = ForEachField(item, [&](std::string_view key, od::value field) {
        if (Is(key, "matchExpressions")) {
          return Once(seen, 1) && ForEachItem(field, [&](od::value expr) {
                   engine::NodeSelectorRequirement req;
                   if (!MatchExpression(expr, req)) {
                     return false;
                   }
                   term.match_expressions.push_back(std::move(req));
                   return true;
                 });
        }
        return Is(key, "matchFields") && Once(seen, 2);  // not read by the slow path
      });
      terms.push_back(std::move(term));
      return ok;
    });
  };
  auto required = [&](od::value node) {
    uint32_t seen = 0;
    return ForEachField(node, [&](std::string_view key, od::value field) {
      return Is(key, "nodeSelectorTerms") && Once(seen, 1) && terms_list(field);
    });
  };
  auto node_affinity = [&](od::value node) {
    uint32_t seen = 0;
    return ForEachField(node, [&](std::string_view key, od::value field) {
      if (Is(key, "requiredDuringSchedulingIgnoredDuringExecution")) {
        return Once(seen, 1) && required(field);
      }
      return Is(key, "preferredDuringSchedulingIgnoredDuringExecution") && Once(seen, 2);
    });
  };
  uint32_t seen = 0;
  return ForEachField(value, [&](std::string_view key, od::value field) {
    if (Is(key, "nodeAffinity")) {
      return Once(seen, 1) && node_affinity(field);
    }
    if (Is(key, "podAffinity")) {
      return Once(seen, 2);
    }
    return Is(key, "podAntiAffinity") && Once(seen, 4);
  });
}

bool Tolerations(od::value value, std::vector<engine::Toleration>& out) {
  return ForEachItem(value, [&](od::value item) {
    engine::Toleration t;
    uint32_t seen = 0;
    bool ok = ForEachField(item, [&](std::string_view key, od::value field) {
      if (Is(key, "key")) {
        return Once(seen, 1) && String(field, t.key);
      }
      if (Is(key, "operator")) {
        return Once(seen, 2) && String(field, t.op);
      }
      if (Is(key, "value")) {
        return Once(seen, 4) && String(field, t.value);
      }
      if (Is(key, "effect")) {
        return Once(seen, 8) && String(field, t.effect);
      }
      return Is(key, "tolerationSeconds") && Once(seen, 16);  // not read by the slow path
    });
    if (!ok || (t.op != "Equal" && t.op != "Exists")
        || (!t.effect.empty() && t.effect != "NoSchedule" && t.effect != "PreferNoSchedule"
            && t.effect != "NoExecute")) {
      return false;
    }
    out.push_back(std::move(t));
    return true;
  });
}

// template.spec: only the fields that matter to admission are read; the others are skipped, as
// the slow path does (it does not check a pod spec's keys).
bool PodSpec(od::value value, engine::PodSetSpec& ps) {
  uint32_t seen = 0;
  engine::PodResources& res = ps.resources;
  bool ok = ForEachField(value, [&](std::string_view key, od::value field) {
    if (Is(key, "containers")) {
      return Once(seen, 1) && Containers(field, /*init=*/false, res.containers);
    }
    if (Is(key, "initContainers")) {
      return Once(seen, 2) && Containers(field, /*init=*/true, res.init_containers);
    }
    if (Is(key, "overhead")) {
      return Once(seen, 4) && ResourceList(field, res.overhead);
    }
    if (Is(key, "resources")) {
      return Once(seen, 8) && Requirements(field, res.pod_requests, res.pod_limits);
    }
    if (Is(key, "nodeSelector")) {
      return Once(seen, 16) && StringMap(field, ps.node_selector);
    }
    if (Is(key, "affinity")) {
      return Once(seen, 32) && Affinity(field, ps.required_affinity);
    }
    if (Is(key, "tolerations")) {
      return Once(seen, 64) && Tolerations(field, ps.tolerations);
    }
    if (Is(key, "priorityClassName")) {
      return Once(seen, 128) && String(field, ps.priority_class_name);
    }
    return true;
  });
  return ok && (seen & 1) != 0;  // containers are required
}

bool PodSet(od::value value, engine::PodSetSpec& ps) {
  uint32_t seen = 0;
  bool ok = ForEachField(value, [&](std::string_view key, od::value field) {
    if (Is(key, "name")) {
      return Once(seen, 1) && String(field, ps.name) && engine::IsDns1123Label(ps.name);
    }
    if (Is(key, "count")) {
      return Once(seen, 2) && Int32(field, 0, ps.count);
    }
    if (Is(key, "minCount")) {
      int32_t min_count = 0;
      if (!Once(seen, 4) || !Int32(field, 1, min_count)) {
        return false;
      }
      ps.min_count = min_count;
      return true;
    }
    if (Is(key, "template")) {
      uint32_t template_seen = 0;
      return Once(seen, 8)
             && ForEachField(field,
                             [&](std::string_view k, od::value v) {
                               if (k == "spec") {
                                 return Once(template_seen, 1) && PodSpec(v, ps);
                               }
                               return k == "metadata"
                                      && Once(template_seen, 2);  // not read by the slow path
                             })
             && (template_seen & 1) != 0;
    }
    return Is(key, "topologyRequest") && Once(seen, 16);  // not read by the slow path
  });
  return ok && (seen & 8) != 0 && (!ps.min_count.has_value() || *ps.min_count <= ps.count);
}

// As Containers: pod sets reset for reuse are written in place, the list truncated.
bool PodSets(od::value value, std::vector<engine::PodSetSpec>& out) {
  size_t with_min_count = 0;
  size_t used = 0;
  const bool ok = ForEachItem(value, [&](od::value item) {
    if (used == kMaxPodSets) {
      return false;
    }
    engine::PodSetSpec& ps = used < out.size() ? out[used] : out.emplace_back();
    ++used;
    if (!PodSet(item, ps)) {
      return false;
    }
    with_min_count += ps.min_count.has_value() ? 1 : 0;
    for (size_t i = 0; i + 1 < used; ++i) {
      if (out[i].name == ps.name) {
        return false;
      }
    }
    return true;
  });
  out.resize(used);
  return ok && used > 0 && with_min_count <= 1;
}

// PodSets through the parser's memo: the array's text is looked up first, and read (on the
// memo's own parser: the caller's iteration has gone past it) only when not found.
bool PodSetsByTextOrRead(od::value value, PodSetsByText& memo, engine::PodSetList& out) {
  od::array array;
  std::string_view text;
  if (value.get_array().get(array) != SUCCESS || array.raw_json().get(text) != SUCCESS) {
    return false;
  }
  const uint64_t hash = PodSetsByText::Hash(text);
  if (const engine::PodSetList* kept = memo.Find(text, hash)) {
    out = *kept;
    return true;
  }
  // The text lies inside the caller's padded input, so SIMDJSON_PADDING bytes after it are
  // readable (the rest of the object, then the input's own padding).
  const simdjson::padded_string_view padded(text.data(), text.size(),
                                            text.size() + simdjson::SIMDJSON_PADDING);
  od::document doc;
  od::value root;
  // `out` is not shared here: ParseWorkloadObjectFast's ResetForReuse let go of a shared list.
  if (memo.parser().iterate(padded).get(doc) != SUCCESS || doc.get_value().get(root) != SUCCESS
      || !PodSets(root, out.Mutable())) {
    return false;
  }
  memo.Keep(text, hash, out);
  return true;
}

// The priority-class fields as written, views into the input (or into a kept spec's reading).
using PriorityFields = PriorityClassFields<std::string_view>;

bool PriorityClassRef(od::value value, PriorityFields& pf) {
  uint32_t seen = 0;
  bool ok = ForEachField(value, [&](std::string_view key, od::value field) {
    if (Is(key, "group")) {
      return Once(seen, 1) && String(field, pf.group);
    }
    if (Is(key, "kind")) {
      return Once(seen, 2) && String(field, pf.kind);
    }
    if (Is(key, "name")) {
      return Once(seen, 4) && String(field, pf.name);
    }
    return false;
  });
  return ok && seen == 7;
}

bool SpecFields(od::value value, engine::WorkloadSpec& wl, PriorityFields& pf, PodSetsByText* memo);

// The spec object: taken from `specs` when its bytes are a kept text's (the caller's iteration
// then skips the object it did not read), else read and kept.
bool Spec(od::value value, engine::WorkloadSpec& wl, PriorityFields& pf, PodSetsByText* memo,
          SpecsByText* specs, const char* input_end) {
  if (specs == nullptr || input_end == nullptr || !specs->Active()) {
    return SpecFields(value, wl, pf, memo);
  }
  const char* start = value.raw_json_token().data();  // a peek: the value is not consumed
  if (const SpecsByText::Reading* kept = specs->Find(start, input_end)) {
    kept->ApplyTo(wl, pf);
    return true;
  }
  if (!SpecFields(value, wl, pf, memo)) {
    return false;
  }
  // Read to its end: the iteration stands at the token after the object's closing brace.
  const char* after = nullptr;
  if (value.current_location().get(after) == SUCCESS && after > start) {
    std::string_view text(start, static_cast<size_t>(after - start));
    while (!text.empty()
           && (text.back() == ' ' || text.back() == '\t' || text.back() == '\n'
               || text.back() == '\r')) {
      text.remove_suffix(1);
    }
    if (text.size() >= 2 && text.front() == '{' && text.back() == '}') {
      specs->Keep(text, SpecsByText::Reading::Of(wl, pf));
    }
  }
  return true;
}

bool SpecFields(od::value value, engine::WorkloadSpec& wl, PriorityFields& pf,
                PodSetsByText* memo) {
  uint32_t seen = 0;
  return ForEachField(value, [&](std::string_view key, od::value field) {
    if (Is(key, "podSets")) {
      return Once(seen, 1)
             && (memo != nullptr ? PodSetsByTextOrRead(field, *memo, wl.pod_sets)
                                 : PodSets(field, wl.pod_sets.Mutable()));
    }
    if (Is(key, "queueName")) {
      return Once(seen, 2) && String(field, wl.queue_name)
             && (wl.queue_name.empty() || engine::IsDns1123Subdomain(wl.queue_name));
    }
    if (Is(key, "priority")) {
      int32_t priority = 0;
      if (!Once(seen, 4) || !Int32(field, std::numeric_limits<int32_t>::min(), priority)) {
        return false;
      }
      wl.priority = priority;
      return true;
    }
    if (Is(key, "active")) {
      return Once(seen, 8) && Bool(field, wl.active);
    }
    if (Is(key, "maximumExecutionTimeSeconds")) {
      int32_t seconds = 0;
      if (!Once(seen, 16) || !Int32(field, 1, seconds)) {
        return false;
      }
      wl.maximum_execution_time_seconds = seconds;
      return true;
    }
    if (Is(key, "priorityClassRef")) {
      pf.has_ref = true;
      return Once(seen, 32) && PriorityClassRef(field, pf);
    }
    if (Is(key, "priorityClassName")) {
      pf.has_class_name = true;
      return Once(seen, 64) && String(field, pf.class_name);
    }
    if (Is(key, "priorityClassSource")) {
      pf.has_source = true;
      return Once(seen, 128) && String(field, pf.source);
    }
    return false;
  });
}

// ParsePriorityClassReference of replay/io/workload_fields.cc, minus the error cases.
bool ResolvePriorityClass(const PriorityFields& pf, bool v1beta1, engine::WorkloadSpec& wl) {
  if (v1beta1) {
    if (pf.has_ref) {
      return false;
    }
    if (pf.has_source && pf.source != kWorkloadPriorityClassSource
        && pf.source != kPodPriorityClassSource && !pf.source.empty()) {
      return false;
    }
    if (!pf.class_name.empty()) {
      if (!engine::IsDns1123Subdomain(pf.class_name)) {
        return false;
      }
      wl.priority_class_name.assign(pf.class_name);
      wl.priority_class_kind = pf.source == kWorkloadPriorityClassSource
                                   ? engine::PriorityClassKind::kWorkloadPriorityClass
                                   : engine::PriorityClassKind::kPriorityClass;
    }
  } else {
    if (pf.has_class_name || pf.has_source) {
      return false;
    }
    if (pf.has_ref) {
      const bool kueue = pf.group == "kueue.x-k8s.io" && Is(pf.kind, "WorkloadPriorityClass");
      const bool pod = pf.group == "scheduling.k8s.io" && Is(pf.kind, "PriorityClass");
      if ((!kueue && !pod) || pf.name.empty() || !engine::IsDns1123Subdomain(pf.name)) {
        return false;
      }
      wl.priority_class_name.assign(pf.name);
      wl.priority_class_kind = kueue ? engine::PriorityClassKind::kWorkloadPriorityClass
                                     : engine::PriorityClassKind::kPriorityClass;
    }
  }
  // Either spelling requires spec.priority.
  return wl.priority_class_name.empty() || wl.priority.has_value();
}

bool Metadata(od::value value, engine::WorkloadSpec& wl, bool& has_namespace) {
  uint32_t seen = 0;
  bool ok = ForEachField(value, [&](std::string_view key, od::value field) {
    if (Is(key, "name")) {
      return Once(seen, 1) && String(field, wl.name);
    }
    if (Is(key, "namespace")) {
      has_namespace = true;
      return Once(seen, 2) && String(field, wl.name_space);
    }
    if (Is(key, "uid")) {
      return Once(seen, 4) && String(field, wl.uid);
    }
    if (Is(key, "creationTimestamp")) {
      std::string_view text;
      if (!Once(seen, 8) || !String(field, text)) {
        return false;
      }
      engine::StatusOr<int64_t> t = ParseRfc3339(text);
      if (!t.ok()) {
        return false;
      }
      wl.creation_time = *t;
      return true;
    }
    if (Is(key, "labels")) {
      bool class_seen = false;
      return Once(seen, 16) && ForEachField(field, [&](std::string_view k, od::value v) {
               std::string_view text;
               if (!String(v, text)) {
                 return false;
               }
               if (k == kClassLabel) {
                 if (class_seen) {
                   return false;
                 }
                 class_seen = true;
                 wl.workload_class.assign(text);
               }
               return true;
             });
    }
    if (Is(key, "annotations")) {
      bool runtime_seen = false;
      return Once(seen, 32) && ForEachField(field, [&](std::string_view k, od::value v) {
               std::string_view text;
               if (!String(v, text)) {
                 return false;
               }
               if (k == kExpectedRuntimeAnnotation) {
                 engine::StatusOr<int64_t> runtime = ParseGoDuration(text);
                 if (runtime_seen || !runtime.ok()) {
                   return false;  // the slow path names the error
                 }
                 runtime_seen = true;
                 wl.expected_runtime = *runtime;
               }
               return true;
             });
    }
    return true;  // the slow path reads no other metadata
  });
  return ok && !wl.name.empty();
}

}  // namespace

FastParse ParseWorkloadObjectFast(od::object root, std::string_view file_name,
                                  engine::WorkloadSpec& out, PodSetsByText* pod_sets_by_text,
                                  SpecsByText* specs, const char* input_end) {
  engine::ResetForReuse(out);  // WorkloadSpec{}, but what `out` holds stays allocated
  uint32_t seen = 0;
  bool v1beta1 = false;
  bool has_namespace = false;
  PriorityFields pf;
  for (auto result : root) {
    od::field field;
    if (std::move(result).get(field) != SUCCESS) {
      return FastParse::kFallback;
    }
    const std::string_view key = RawView(field.key());
    od::value value = field.value();
    bool ok = false;
    if (Is(key, "apiVersion")) {
      std::string_view api_version;
      ok = Once(seen, 1) && String(value, api_version)
           && (api_version == "kueue.x-k8s.io/v1beta2" || api_version == "kueue.x-k8s.io/v1beta1");
      v1beta1 = api_version == "kueue.x-k8s.io/v1beta1";
    } else if (Is(key, "kind")) {
      std::string_view kind;
      ok = Once(seen, 2) && String(value, kind) && Is(kind, "Workload");
    } else if (Is(key, "metadata")) {
      ok = Once(seen, 4) && Metadata(value, out, has_namespace);
    } else if (Is(key, "spec")) {
      ok = Once(seen, 8) && Spec(value, out, pf, pod_sets_by_text, specs, input_end);
    }
    // `status` and unknown keys fall back.
    if (!ok) {
      return FastParse::kFallback;
    }
  }
  if (seen != 15 || out.pod_sets.empty() || !ResolvePriorityClass(pf, v1beta1, out)) {
    return FastParse::kFallback;
  }
  if (!has_namespace) {
    out.name_space.assign("default");
  }
  if (!engine::IsDns1123Subdomain(out.name) || !engine::IsDns1123Label(out.name_space)) {
    return FastParse::kFallback;
  }
  if (out.uid.empty()) {
    out.uid.AssignSlashJoined(out.name_space, out.name);
  }
  engine::SourceRef& source = out.source.Mutable();
  source.file.assign(file_name);
  source.document = 0;
  source.line = 1;
  return FastParse::kParsed;
}

bool IsPlainAsciiJson(std::string_view text) {
  return PlainAscii(text);
}

FastParse ParseWorkloadJsonFast(simdjson::ondemand::parser& parser,
                                simdjson::padded_string_view object_json,
                                std::string_view file_name, engine::WorkloadSpec& out) {
  engine::ResetForReuse(out);
  if (!PlainAscii(std::string_view(object_json.data(), object_json.size()))) {
    return FastParse::kFallback;
  }
  od::document doc;
  od::object root;
  if (parser.iterate(object_json).get(doc) != SUCCESS || doc.get_object().get(root) != SUCCESS) {
    return FastParse::kFallback;
  }
  if (ParseWorkloadObjectFast(root, file_name, out) != FastParse::kParsed) {
    return FastParse::kFallback;
  }
  const char* trailing = nullptr;
  if (doc.current_location().get(trailing) == SUCCESS) {
    return FastParse::kFallback;  // content after the object (the caller passes just one)
  }
  return FastParse::kParsed;
}

}  // namespace replay
