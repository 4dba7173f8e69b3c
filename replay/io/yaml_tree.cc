#include "replay/io/yaml_tree.h"

#include <libfyaml.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "replay/io/yaml_node_access.h"
#include "replay/io/yaml_simple_subset.h"
#include "replay/io/yaml_syntax.h"

namespace replay {
namespace {

std::string_view TokenText(fy_token* token) {
  size_t length = 0;
  const char* text = token != nullptr ? fy_token_get_text(token, &length) : nullptr;
  return text != nullptr ? std::string_view(text, length) : std::string_view();
}

// yaml-cpp's IsNullString (src/null.cpp).
bool IsNullText(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// The steps of yaml-cpp's NodeBuilder (src/nodebuilder.cpp), driven by libfyaml's events.
class TreeBuilder {
 public:
  // `first_line`: the 0-based line of the text's first line in the file it was cut from.
  TreeBuilder(std::string_view text, int first_line) : text_(text), first_line_(first_line) {}

  void OnEvent(fy_event* event) {
    if (!unmarked_.empty()) {
      // yaml-cpp marks an empty node at the token after it (SingleDocParser::HandleNode peeks).
      if (const fy_mark* next = fy_event_start_mark(event)) {
        for (YAML::detail::node* node : unmarked_) {
          node->set_mark(ToMark(next));
        }
        unmarked_.clear();
      }
    }
    switch (event->type) {
      case FYET_DOCUMENT_START:
        memory_ = std::make_shared<YAML::detail::memory_holder>();
        root_ = nullptr;
        anchors_.clear();
        break;
      case FYET_DOCUMENT_END:
        documents_.push_back(root_ != nullptr ? internal::WrapYamlNode(*root_, memory_)
                                              : YAML::Node());
        memory_.reset();
        break;
      case FYET_SCALAR:
        OnScalar(event);
        break;
      case FYET_ALIAS:
        OnAlias(event);
        break;
      case FYET_SEQUENCE_START:
      case FYET_MAPPING_START: {
        const bool is_map = event->type == FYET_MAPPING_START;
        fy_token* tag = is_map ? event->mapping_start.tag : event->sequence_start.tag;
        YAML::detail::node& node = Push(event);
        node.set_type(is_map ? YAML::NodeType::Map : YAML::NodeType::Sequence);
        node.set_tag(tag != nullptr ? std::string(TokenText(tag)) : std::string("?"));
        node.set_style(fy_event_get_node_style(event) == FYNS_FLOW ? YAML::EmitterStyle::Flow
                                                                   : YAML::EmitterStyle::Block);
        if (is_map) {
          ++map_depth_;
        }
        break;
      }
      case FYET_MAPPING_END:
        --map_depth_;
        Pop();
        break;
      case FYET_SEQUENCE_END:
        Pop();
        break;
      default:
        break;
    }
  }

  std::vector<YAML::Node> TakeDocuments() { return std::move(documents_); }

  // libfyaml counts columns in characters, yaml-cpp in bytes: the column is recomputed from the
  // byte offset. The start of the last line seen is kept, so a text costs one pass however many
  // nodes a line holds.
  YAML::Mark ToMark(const fy_mark* mark) {
    YAML::Mark m;
    if (mark == nullptr) {
      return m;
    }
    const size_t pos = std::min(mark->input_pos, text_.size());
    m.pos = static_cast<int>(pos);
    m.line = mark->line + first_line_;
    if (mark->line != line_ || pos < line_start_) {
      size_t start = pos;
      while (start > 0 && text_[start - 1] != '\n' && text_[start - 1] != '\r') {
        --start;
      }
      line_ = mark->line;
      line_start_ = start;
    }
    m.column = static_cast<int>(pos - line_start_);
    return m;
  }

 private:
  void OnScalar(fy_event* event) {
    std::string_view value = ScalarText(event->scalar.value);
    fy_token* tag = event->scalar.tag;
    const bool plain =
        event->scalar.value == nullptr || fy_token_scalar_style(event->scalar.value) == FYSS_PLAIN;
    YAML::detail::node& node = Push(event);
    if (fy_event_start_mark(event) == nullptr && fy_event_get_anchor_token(event) == nullptr
        && tag == nullptr) {
      unmarked_.push_back(&node);
    }
    if (tag == nullptr && plain && IsNullText(value)) {
      node.set_null();
    } else if (const fy_scalar_style style = fy_token_scalar_style(event->scalar.value);
               (style == FYSS_LITERAL || style == FYSS_FOLDED) && value.ends_with('\n')
               && !text_.ends_with('\n') && EndsAtEndOfText(event->scalar.value)) {
      // A block scalar cut by the end of a text without a final line break: libfyaml still ends
      // it with one, yaml-cpp (and YAML 1.2 §8.1.1.2) does not.
      value.remove_suffix(1);
      node.set_scalar(std::string(value));
      node.set_tag(tag != nullptr ? std::string(TokenText(tag)) : std::string("!"));
    } else {
      node.set_scalar(std::string(value));
      node.set_tag(tag != nullptr ? std::string(TokenText(tag)) : std::string(plain ? "?" : "!"));
    }
    Pop();
  }

  void OnAlias(fy_event* event) {
    const std::string_view name = TokenText(event->alias.anchor);
    auto it = anchors_.find(std::string(name));
    if (it == anchors_.end()) {
      // yaml-cpp's message (src/exceptions.h: ErrorMsg::UNKNOWN_ANCHOR).
      throw YAML::ParserException(ToMark(fy_event_start_mark(event)),
                                  "the referenced anchor is not defined: " + std::string(name));
    }
    stack_.push_back(it->second);
    NoteKey();
    Pop();
  }

  // A node for the event, registered under its anchor and pushed. Its mark is that of its first
  // token, as yaml-cpp's (SingleDocParser::HandleNode takes the mark before the properties).
  YAML::detail::node& Push(fy_event* event) {
    YAML::detail::node& node = memory_->create_node();
    const fy_mark* mark = fy_event_start_mark(event);
    fy_token* anchor = fy_event_get_anchor_token(event);
    bool at_anchor = false;  // libfyaml starts an anchor after its `&`, yaml-cpp at it
    for (fy_token* property : {anchor, fy_event_get_tag_token(event)}) {
      const fy_mark* at = property != nullptr ? fy_token_start_mark(property) : nullptr;
      if (at != nullptr && (mark == nullptr || at->input_pos < mark->input_pos)) {
        mark = at;
        at_anchor = property == anchor;
      }
    }
    YAML::Mark at = ToMark(mark);
    if (at_anchor && at.column > 0) {
      --at.pos;
      --at.column;
    }
    if (mark == fy_event_start_mark(event) && event->type == FYET_SCALAR
        && event->scalar.value != nullptr) {
      // libfyaml starts a quoted scalar after its opening quote, yaml-cpp at the quote
      // (src/scantoken.cpp, ScanQuotedScalar).
      const fy_scalar_style style = fy_token_scalar_style(event->scalar.value);
      if ((style == FYSS_SINGLE_QUOTED || style == FYSS_DOUBLE_QUOTED) && at.column > 0) {
        --at.pos;
        --at.column;
      }
    }
    if (mark == fy_event_start_mark(event) && event->type == FYET_SCALAR
        && event->scalar.value != nullptr) {
      const fy_scalar_style style = fy_token_scalar_style(event->scalar.value);
      if (style == FYSS_LITERAL || style == FYSS_FOLDED) {
        at = BlockScalarHeader(at);
      }
    }
    node.set_mark(at);
    if (anchor != nullptr) {
      anchors_[std::string(TokenText(anchor))] = &node;  // a later anchor of that name wins
    }
    stack_.push_back(&node);
    NoteKey();
    return node;
  }

  // libfyaml 0.7.12 leaks the buffer it formats a single-quoted scalar into once it holds five or
  // more '' escapes (fy_token_get_text: 512 B to 1 KiB per such scalar, never freed; a file of
  // them would hold some 30 bytes per byte read). A single-quoted scalar on one line is read here
  // instead: its token spans the text between the quotes, each '' in it one quote (YAML 1.2
  // §7.3.2; nothing to fold on one line). Other scalars keep libfyaml's text.
  std::string_view ScalarText(fy_token* token) {
    if (token == nullptr) {
      return {};
    }
    const fy_scalar_style style = fy_token_scalar_style(token);
    if (style == FYSS_PLAIN || style == FYSS_DOUBLE_QUOTED) {
      if (std::optional<std::string_view> raw = OneLineText(token, style == FYSS_DOUBLE_QUOTED)) {
        return *raw;
      }
    }
    if (style == FYSS_SINGLE_QUOTED) {
      const fy_mark* start = fy_token_start_mark(token);
      const fy_mark* end = fy_token_end_mark(token);
      if (start != nullptr && end != nullptr && start->line == end->line && start->input_pos > 0
          && start->input_pos <= end->input_pos && end->input_pos < text_.size()
          && text_[start->input_pos - 1] == '\'' && text_[end->input_pos] == '\'') {
        const std::string_view raw =
            text_.substr(start->input_pos, end->input_pos - start->input_pos);
        single_quoted_.clear();
        for (size_t i = 0; i < raw.size(); ++i) {
          single_quoted_ += raw[i];
          if (raw[i] == '\'') {
            ++i;  // the second quote of ''
          }
        }
        return single_quoted_;
      }
    }
    return TokenText(token);
  }

  // The text of a scalar on one line that needs no processing, read from the input: a plain
  // scalar (YAML 1.2 §7.3.3: no escapes; only a line break is folded), or a double-quoted one
  // without a backslash (§7.3.1: nothing else is processed on one line); its token spans the text
  // between the quotes. nullopt otherwise. libfyaml's fy_token_get_text formats every scalar into
  // a buffer of its own (about 500 instructions a scalar: a twentieth of loading Kueue's
  // large-scale manifests).
  std::optional<std::string_view> OneLineText(fy_token* token, bool quoted) const {
    const fy_mark* start = fy_token_start_mark(token);
    const fy_mark* end = fy_token_end_mark(token);
    if (start == nullptr || end == nullptr || start->line != end->line
        || start->input_pos > end->input_pos || end->input_pos > text_.size()) {
      return std::nullopt;
    }
    if (quoted
        && (start->input_pos == 0 || end->input_pos >= text_.size()
            || text_[start->input_pos - 1] != '"' || text_[end->input_pos] != '"')) {
      return std::nullopt;
    }
    const std::string_view raw = text_.substr(start->input_pos, end->input_pos - start->input_pos);
    if (quoted && raw.find('\\') != std::string_view::npos) {
      return std::nullopt;
    }
    return raw;
  }

  bool EndsAtEndOfText(fy_token* token) const {
    const fy_mark* end = fy_token_end_mark(token);
    return end != nullptr && end->input_pos >= text_.size();
  }

  // libfyaml starts a block scalar at its content, yaml-cpp at its `|` or `>` indicator: the
  // header is the last non-blank line before the content; its indicator is what is left once a
  // comment, blanks and the chomping and indentation indicators are cut from its end.
  YAML::Mark BlockScalarHeader(YAML::Mark content) const {
    size_t p = std::min(static_cast<size_t>(content.pos), text_.size());
    while (p > 0
           && (text_[p - 1] == ' ' || text_[p - 1] == '\t' || text_[p - 1] == '\n'
               || text_[p - 1] == '\r')) {
      --p;
    }
    const size_t line_start = text_.rfind('\n', p == 0 ? 0 : p - 1);
    const size_t begin = line_start == std::string_view::npos ? 0 : line_start + 1;
    std::string_view line = text_.substr(begin, p - begin);
    if (const size_t hash = line.find(" #"); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    while (!line.empty()
           && std::string_view(" \t-+0123456789").find(line.back()) != std::string_view::npos) {
      line.remove_suffix(1);
    }
    if (line.empty() || (line.back() != '|' && line.back() != '>')) {
      return content;
    }
    YAML::Mark header;
    header.pos = static_cast<int>(begin + line.size() - 1);
    header.column = static_cast<int>(line.size() - 1);
    header.line = content.line
                  - static_cast<int>(std::count(text_.begin() + static_cast<ptrdiff_t>(begin),
                                                text_.begin() + content.pos, '\n'));
    return header;
  }

  // The node just pushed is a key when its parent is a mapping still waiting for one.
  void NoteKey() {
    if (stack_.size() >= 2 && stack_[stack_.size() - 2]->type() == YAML::NodeType::Map
        && keys_.size() < map_depth_) {
      keys_.emplace_back(stack_.back(), false);
    }
  }

  void Pop() {
    if (stack_.size() == 1) {
      root_ = stack_.back();
      stack_.pop_back();
      return;
    }
    YAML::detail::node& node = *stack_.back();
    stack_.pop_back();
    YAML::detail::node& collection = *stack_.back();
    if (collection.type() == YAML::NodeType::Sequence) {
      collection.push_back(node, memory_);
    } else {
      std::pair<YAML::detail::node*, bool>& key = keys_.back();
      if (key.second) {
        collection.insert(*key.first, node, memory_);
        keys_.pop_back();
      } else {
        key.second = true;
      }
    }
  }

  std::string_view text_;
  int first_line_ = 0;
  std::string single_quoted_;  // ScalarText's decoded single-quoted scalar
  int line_ = -1;              // the line of the last mark, and where it starts
  size_t line_start_ = 0;
  YAML::detail::shared_memory_holder memory_;
  YAML::detail::node* root_ = nullptr;
  std::vector<YAML::detail::node*> stack_;
  std::vector<YAML::detail::node*> unmarked_;  // empty nodes waiting for the next token's mark
  std::vector<std::pair<YAML::detail::node*, bool>> keys_;  // key, whether its value follows
  size_t map_depth_ = 0;
  std::unordered_map<std::string, YAML::detail::node*> anchors_;
  std::vector<YAML::Node> documents_;
};

}  // namespace

std::vector<YAML::Node> LoadAllYaml(std::string_view text) {
  return internal::LoadAllYamlFromLine(text, 0);
}

std::vector<YAML::Node> internal::LoadAllYamlFromLine(std::string_view text, int first_line) {
  const size_t max_depth = CurrentInputLimits().yaml_max_depth;
  if (std::optional<std::vector<YAML::Node>> documents =
          internal::LoadSimpleYaml(text, first_line, max_depth)) {
    return std::move(*documents);
  }
  return internal::LoadAllYamlWithLibfyaml(text, first_line);
}

std::vector<YAML::Node> internal::LoadAllYamlWithLibfyaml(std::string_view text, int first_line) {
  TreeBuilder builder(text, first_line);
  std::optional<YamlSyntaxError> error = internal::ForEachYamlEvent(
      text, CurrentInputLimits().yaml_max_depth, [&builder](fy_event* e) { builder.OnEvent(e); });
  if (error) {
    YAML::Mark mark;
    mark.line = error->line - 1 + first_line;
    mark.column = error->column - 1;
    throw YAML::ParserException(mark, error->message);
  }
  return builder.TakeDocuments();
}

YAML::Node LoadYaml(std::string_view text) {
  std::vector<YAML::Node> documents = LoadAllYaml(text);
  return documents.empty() ? YAML::Node() : documents.front();  // a handle: copying is cheap
}

}  // namespace replay
