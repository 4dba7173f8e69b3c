#include "replay/io/yaml_syntax.h"

#include <fmt/format.h>
#include <libfyaml.h>

#include <memory>

namespace replay {
namespace {

struct DiagDeleter {
  void operator()(fy_diag* d) const { fy_diag_unref(d); }
};
struct ParserDeleter {
  void operator()(fy_parser* p) const { fy_parser_destroy(p); }
};

}  // namespace

std::optional<YamlSyntaxError> FindYamlSyntaxError(std::string_view text, size_t max_depth) {
  // Errors are collected, never printed: tally reports them in its own file:line form.
  fy_diag_cfg diag_cfg;
  fy_diag_cfg_default(&diag_cfg);
  diag_cfg.fp = nullptr;
  diag_cfg.colorize = false;
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
  while (fy_event* event = fy_parser_parse(parser.get())) {
    std::optional<YamlSyntaxError> too_deep;
    if (event->type == FYET_MAPPING_START || event->type == FYET_SEQUENCE_START) {
      if (++depth > max_depth) {
        const fy_mark* mark = fy_event_start_mark(event);
        too_deep = YamlSyntaxError{mark != nullptr ? mark->line + 1 : 0,
                                   mark != nullptr ? mark->column + 1 : 0,
                                   fmt::format("nested deeper than {} levels", max_depth)};
      }
    } else if (event->type == FYET_MAPPING_END || event->type == FYET_SEQUENCE_END) {
      --depth;
    }
    fy_parser_event_free(parser.get(), event);
    if (too_deep) {
      return too_deep;
    }
  }
  if (!fy_parser_get_stream_error(parser.get())) {
    return std::nullopt;
  }
  void* iter = nullptr;
  if (const fy_diag_error* e = fy_diag_errors_iterate(diag.get(), &iter)) {
    return YamlSyntaxError{e->line, e->column, e->msg != nullptr ? e->msg : "syntax error"};
  }
  return YamlSyntaxError{0, 0, "syntax error"};
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
