#include "replay/io/yaml_syntax.h"

#include <fmt/format.h>
#include <libfyaml.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>

#include "replay/io/utf8.h"

namespace replay {
namespace {

// Errors are collected, never displayed: libfyaml 0.7.12's display of an error's source excerpt
// (fy_diag_error_atom_display) reads wild memory on some inputs (a 2 KB overlay found by
// test/fuzz/overlay_fuzz after 15,000 executions crashed `tally validate` with SIGSEGV, one run
// in ten not). Collected errors are freed here, as the library's destroy does not in 0.7.12.
struct DiagDeleter {
  void operator()(fy_diag* d) const {
    fy_diag_set_collect_errors(d, false);  // frees the collected errors
    fy_diag_destroy(d);
  }
};
struct ParserDeleter {
  void operator()(fy_parser* p) const { fy_parser_destroy(p); }
};

// What libfyaml prints outside a report (fy_vdiag, without a token) is dropped: the first
// collected error says what went wrong.
extern "C" void DropDiagnostic(fy_diag* /*diag*/, void* /*user*/, const char* /*text*/,
                               size_t /*size*/) {}

// The first error collected by `diag`.
YamlSyntaxError FirstCollectedError(fy_diag* diag) {
  void* iter = nullptr;
  while (fy_diag_error* e = fy_diag_errors_iterate(diag, &iter)) {
    if (e->type >= FYET_ERROR) {
      return YamlSyntaxError{std::max(e->line, 0), std::max(e->column, 0),
                             e->msg != nullptr ? std::string(e->msg) : "syntax error"};
    }
  }
  return YamlSyntaxError{0, 0, "syntax error"};
}

// A tag's %-escapes are decoded when libfyaml resolves it, and the emitter writes every tag but
// `!` verbatim, `!<resolved>`: what a tag resolves to must be text libfyaml reads back inside
// `!<...>`. `!a%00b` resolves to a NUL byte, which the emitter cut short (found by
// test/fuzz/overlay_fuzz after 700,909 executions); `!a%23b` to `!a#b`, and libfyaml 0.7.12
// refuses `#` in a verbatim tag ("missing '>' uri terminator"; found by overlay_fuzz after
// 552,332 executions). Tried one by one, libfyaml takes printable ASCII there except space and
// `" # % < > \ ^ ` { | }`, and no byte above 0x7F (even valid UTF-8).
bool TagResolvesToUnwritableText(fy_token* tag) {
  size_t length = 0;
  const char* text = fy_token_get_text(tag, &length);
  if (text == nullptr) {
    return false;
  }
  const std::string_view resolved(text, length);
  constexpr std::string_view kRefusedInVerbatimTag = " \"#%<>\\^`{|}";
  return std::any_of(resolved.begin(), resolved.end(), [&](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte >= 0x7f || kRefusedInVerbatimTag.find(c) != std::string_view::npos;
  });
}

}  // namespace

std::optional<YamlSyntaxError> FindYamlSyntaxError(std::string_view text) {
  return FindYamlSyntaxError(text, CurrentInputLimits().yaml_max_depth);
}

std::optional<YamlSyntaxError> FindYamlSyntaxError(std::string_view text, size_t max_depth) {
  return internal::ForEachYamlEvent(text, max_depth, [](fy_event* /*event*/) {});
}

std::optional<YamlSyntaxError> internal::ForEachYamlEvent(
    std::string_view text, size_t max_depth, const std::function<void(fy_event*)>& on_event) {
  // YAML text is Unicode. libfyaml 0.7.12 lets an invalid byte in a comment swallow the newline
  // after it and reads the rest of the file as that comment, so a stray `,` below it (on which
  // yaml-cpp loops for ever) went unseen: found by test/fuzz/overlay_fuzz.
  // Nor are control characters other than tab and line breaks (YAML's c-printable): a NUL among
  // the first bytes makes yaml-cpp read the text as UTF-16 or UTF-32 and emit code points that
  // are not Unicode (found by test/fuzz/overlay_fuzz).
  const auto where = [&](size_t bad, std::string message) {
    const std::string_view before = text.substr(0, bad);
    const size_t line_start = before.rfind('\n');
    return YamlSyntaxError{
        static_cast<int>(std::count(before.begin(), before.end(), '\n')) + 1,
        static_cast<int>(line_start == std::string_view::npos ? bad + 1 : bad - line_start),
        std::move(message)};
  };
  if (const size_t bad = FirstInvalidUtf8(text); bad < text.size()) {
    return where(bad, fmt::format("invalid UTF-8 (byte 0x{:02X}): YAML text is Unicode",
                                  static_cast<unsigned char>(text[bad])));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F) {
      return where(i, fmt::format("control character 0x{:02X}: not allowed in YAML", c));
    }
  }
  // Errors are collected, never printed (DiagDeleter says why): tally reports them in its own
  // file:line form.
  fy_diag_cfg diag_cfg{};
  fy_diag_cfg_default(&diag_cfg);
  diag_cfg.fp = nullptr;
  diag_cfg.output_fn = DropDiagnostic;
  diag_cfg.colorize = false;
  diag_cfg.level = FYET_ERROR;
  std::unique_ptr<fy_diag, DiagDeleter> diag(fy_diag_create(&diag_cfg));
  if (diag == nullptr) {
    return YamlSyntaxError{0, 0, "out of memory"};
  }
  fy_diag_set_collect_errors(diag.get(), true);
  fy_parse_cfg cfg{};
  cfg.flags = FYPCF_QUIET;
  cfg.diag = diag.get();
  std::unique_ptr<fy_parser, ParserDeleter> parser(fy_parser_create(&cfg));
  if (parser == nullptr || fy_parser_set_string(parser.get(), text.data(), text.size()) != 0) {
    return YamlSyntaxError{0, 0, "out of memory"};
  }
  size_t depth = 0;
  const auto free_event = [&parser](fy_event* e) { fy_parser_event_free(parser.get(), e); };
  while (fy_event* parsed = fy_parser_parse(parser.get())) {
    // Freed however this iteration ends (on_event may throw).
    std::unique_ptr<fy_event, decltype(free_event)> owned(parsed, free_event);
    fy_event* event = owned.get();
    std::optional<YamlSyntaxError> too_deep;  // or another error found on this event
    if (event->type == FYET_MAPPING_START || event->type == FYET_SEQUENCE_START) {
      if (++depth > max_depth) {
        const fy_mark* mark = fy_event_start_mark(event);
        too_deep = YamlSyntaxError{
            mark != nullptr ? mark->line + 1 : 0, mark != nullptr ? mark->column + 1 : 0,
            fmt::format("nested deeper than {} levels (--max-yaml-depth)", max_depth)};
      }
    } else if (event->type == FYET_MAPPING_END || event->type == FYET_SEQUENCE_END) {
      --depth;
    }
    // A tag shorthand holding a flow indicator: libfyaml 0.7.12 takes `!a,b`, yaml-cpp looped
    // for ever on it (found by test/fuzz/manifest_yaml_fuzz in CI). YAML's tag shorthands
    // exclude them, and Kubernetes objects carry no tags at all.
    if (!too_deep) {
      if (fy_token* tag = fy_event_get_tag_token(event)) {
        size_t length = 0;  // the suffix as written: `!!str` resolves to tag:yaml.org,2002:str
        const char* tag_text = fy_tag_token_suffix(tag, &length);
        const std::string_view tag_view =
            tag_text != nullptr ? std::string_view(tag_text, length) : std::string_view();
        size_t handle_length = 0;
        const char* handle = fy_tag_token_handle(tag, &handle_length);
        const std::string_view handle_view =
            handle != nullptr ? std::string_view(handle, handle_length) : std::string_view();
        const char* problem = nullptr;
        // A verbatim tag (`!<...>`, no handle) may hold them: the emitter writes every tag but
        // `!` that way (`!!str` is emitted as `!<tag:yaml.org,2002:str>`), so an overlay with a
        // tag reads back (found by test/fuzz/overlay_fuzz).
        if (!handle_view.empty() && tag_view.find_first_of(",[]{}") != std::string_view::npos) {
          problem = "a tag holds a flow indicator (, [ ] { })";
        } else if (tag_view.empty() && handle_view != "!") {
          // `!!` or `!named!` alone: libfyaml takes it, but what it resolves to (`!!` is
          // "tag:yaml.org,2002:") cannot be written back as YAML (found by
          // test/fuzz/overlay_fuzz); yaml-cpp refused it ("tag handle with no suffix"). `!`
          // alone, the non-specific tag, is fine.
          problem = "a tag handle with no suffix";
        } else if (TagResolvesToUnwritableText(tag)) {
          problem =
              "a tag resolves to text a verbatim tag cannot hold (a control character, a byte "
              "above "
              "0x7F, a space or one of \" # % < > \\ ^ ` { | })";
        }
        if (problem != nullptr) {
          const fy_mark* mark = fy_event_start_mark(event);
          too_deep = YamlSyntaxError{mark != nullptr ? mark->line + 1 : 0,
                                     mark != nullptr ? mark->column + 1 : 0, problem};
        }
      }
    }
    if (too_deep) {
      return too_deep;
    }
    on_event(event);
  }
  if (!fy_parser_get_stream_error(parser.get())) {
    return std::nullopt;
  }
  return FirstCollectedError(diag.get());
}

void ThrowIfNotYaml(std::string_view text) {
  if (std::optional<YamlSyntaxError> e = FindYamlSyntaxError(text)) {
    YAML::Mark mark;
    mark.line = e->line - 1;
    mark.column = e->column - 1;
    throw YAML::ParserException(mark, e->message);
  }
}

}  // namespace replay
