#include "replay/io/yaml_simple_subset.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "replay/io/utf8.h"
#include "replay/io/yaml_node_access.h"

#include <yaml-cpp/node/detail/memory.h>
#include <yaml-cpp/node/detail/node.h>

namespace replay::internal {
namespace {

using YamlNode = YAML::detail::node;

// The reader recurses once per nesting level: this bounds its stack whatever --max-yaml-depth
// says (deeper texts go to libfyaml, which is iterative).
constexpr size_t kMaxRecursion = 256;
// YAML 1.2 §7.4.2 limits an implicit key to 1024 characters; libfyaml's handling of longer ones
// is left to libfyaml (test/replay/io/yaml_tree_test.cc, KeysLongerThanAnImplicitKeyAre...).
constexpr size_t kMaxKeyLength = 1000;

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
// A plain word: a key, or an item of a flow sequence. It starts with a letter, a digit, `_` or
// `/`, so it is never a YAML indicator (`-` `.` would start `- `, `---` or `...`).
bool IsWordStart(char c) {
  return IsAlnum(c) || c == '_' || c == '/';
}
bool IsWordChar(char c) {
  return IsWordStart(c) || c == '.' || c == '-';
}

// yaml-cpp's IsNullString (src/null.cpp), as in replay/io/yaml_tree.cc.
bool IsNullText(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// Characters a plain scalar in block context may not start with (YAML 1.2 §7.3.3: the
// indicators, c-indicator), `-` aside: it may start one when a non-blank follows (`-1`).
bool StartsNoPlainScalar(char c) {
  return std::string_view("?:,[]{}#&*!|>'\"%@`").find(c) != std::string_view::npos;
}

// Whether `text`, the part of a comment from its first tab or non-ASCII byte on, is UTF-8 that
// libfyaml reads as it reads ASCII: no C1 control (NEL among them), line or paragraph separator,
// byte order mark or non-character, which YAML may take as a line break or refuse.
bool IsPlainCommentText(std::string_view text) {
  if (FirstInvalidUtf8(text) != text.size()) {
    return false;
  }
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const auto d = static_cast<unsigned char>(text[i + 1]);
    if (c == 0xC2 && d < 0xA0) {
      return false;  // U+0080 to U+009F
    }
    if (i + 2 < text.size()) {
      const auto e = static_cast<unsigned char>(text[i + 2]);
      if ((c == 0xE2 && d == 0x80 && (e == 0xA8 || e == 0xA9))
          || (c == 0xEF && d == 0xBB && e == 0xBF)
          || (c == 0xEF && d == 0xBF && (e == 0xBE || e == 0xBF))) {
        return false;  // U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF
      }
    }
  }
  return true;
}

// Where a comment starts in `line` (its first ` #` outside quotes), or npos when there is none or
// a quote is not closed. Every quote is taken to open a quoted scalar: where YAML reads one inside
// a plain scalar instead, the ` #` found is at or after YAML's comment start (the parsers find
// that one themselves), or inside what YAML reads as a quoted scalar, which the line then ends in
// unclosed, and the reader declines it.
size_t CommentStart(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' || line[i] == '\'') {
      const size_t close = line.find(line[i], i + 1);  // `''` in single quotes: closed, reopened
      if (close == std::string_view::npos) {
        return std::string_view::npos;
      }
      i = close;
    } else if (line[i] == '#' && i > 0 && line[i - 1] == ' ') {
      return i;
    }
  }
  return std::string_view::npos;
}

struct Line {
  size_t begin = 0;   // offset of its first byte in the text
  size_t end = 0;     // offset of its line feed (or of the text's end)
  size_t indent = 0;  // spaces before its first other byte
  int number = 0;     // 0-based, in the text
};

class SimpleReader {
 public:
  SimpleReader(std::string_view text, int first_line, size_t max_depth)
      : text_(text), first_line_(first_line), max_depth_(std::min(max_depth, kMaxRecursion)) {}

  std::optional<std::vector<YAML::Node>> Read() {
    if (!SplitLines()) {
      return std::nullopt;
    }
    std::vector<YAML::Node> documents;
    documents.reserve(documents_.size());
    for (const auto& [first, last] : documents_) {
      cur_ = first;
      end_ = last;
      memory_ = std::make_shared<YAML::detail::memory_holder>();
      YamlNode* root = ParseDocumentRoot();
      if (root == nullptr || cur_ != end_) {
        return std::nullopt;
      }
      documents.push_back(WrapYamlNode(*root, memory_));
    }
    return documents;
  }

 private:
  // The content lines (neither blank nor a comment), and the documents as ranges of them.
  // False when a byte or a line leaves the subset.
  bool SplitLines() {
    size_t document_start = 0;
    bool explicit_document = false;  // the current document started at a `---` line
    int number = 0;
    for (size_t begin = 0; begin < text_.size(); ++number) {
      size_t end = begin;
      size_t indent = 0;
      bool counting_indent = true;
      size_t first_special = std::string_view::npos;  // a tab or a byte of a non-ASCII character
      for (; end < text_.size() && text_[end] != '\n'; ++end) {
        const auto c = static_cast<unsigned char>(text_[end]);
        if (c < 0x20 || c > 0x7E) {
          if (c != '\t' && c < 0x80) {
            return false;  // CR, a control character or DEL: libfyaml's rules
          }
          first_special = std::min(first_special, end);
        }
        if (counting_indent) {
          if (c == ' ') {
            ++indent;
          } else {
            counting_indent = false;
          }
        }
      }
      const std::string_view line = text_.substr(begin, end - begin);
      const size_t next = end + 1;
      if (first_special != std::string_view::npos) {
        // Tabs and non-ASCII text only in a comment, which the line then ends before.
        if (!IsPlainCommentText(text_.substr(first_special, end - first_special))) {
          return false;
        }
        if (indent < line.size() && line[indent] != '#') {
          const size_t comment = CommentStart(line.substr(0, first_special - begin));
          if (comment == std::string_view::npos) {
            return false;
          }
          end = begin + comment;
        }
      }
      if (indent == line.size() || line[indent] == '#') {
        begin = next;  // blank or a comment
        continue;
      }
      if (indent == 0 && (line.starts_with("---") || line.starts_with("...") || line[0] == '%')) {
        if (line != "---") {
          return false;  // `--- value`, a document end or a directive
        }
        if (lines_.size() > document_start) {
          documents_.emplace_back(document_start, lines_.size());
        } else if (explicit_document) {
          return false;  // an empty document
        }
        explicit_document = true;
        document_start = lines_.size();
        begin = next;
        continue;
      }
      lines_.push_back(Line{begin, end, indent, number});
      begin = next;
    }
    if (lines_.size() > document_start) {
      documents_.emplace_back(document_start, lines_.size());
    } else if (explicit_document) {
      return false;
    }
    return !documents_.empty();
  }

  // Whether line `li` holds a block sequence item (`- ` or `-` at its end) at `column`.
  bool IsSequenceItem(size_t li, size_t offset) const {
    const Line& line = lines_[li];
    return offset < line.end && text_[offset] == '-'
           && (offset + 1 == line.end || text_[offset + 1] == ' ');
  }

  // The offset of the `:` ending a plain-word key that starts at `offset` on line `li`, or npos.
  size_t KeyColon(size_t li, size_t offset) const {
    const Line& line = lines_[li];
    if (offset >= line.end || !IsWordStart(text_[offset])) {
      return std::string_view::npos;
    }
    size_t i = offset + 1;
    while (i < line.end && IsWordChar(text_[i])) {
      ++i;
    }
    if (i < line.end && text_[i] == ':' && (i + 1 == line.end || text_[i + 1] == ' ')
        && i - offset <= kMaxKeyLength) {
      return i;
    }
    return std::string_view::npos;
  }

  YAML::Mark MarkAt(size_t li, size_t offset) const {
    YAML::Mark mark;
    mark.pos = static_cast<int>(offset);
    mark.line = lines_[li].number + first_line_;
    mark.column = static_cast<int>(offset - lines_[li].begin);
    return mark;
  }

  YamlNode& NewNode(size_t li, size_t offset) {
    YamlNode& node = memory_->create_node();
    node.set_mark(MarkAt(li, offset));
    return node;
  }

  YamlNode* NewCollection(size_t li, size_t offset, YAML::NodeType::value type,
                          YAML::EmitterStyle::value style) {
    YamlNode& node = NewNode(li, offset);
    node.set_type(type);
    node.set_tag("?");
    node.set_style(style);
    return &node;
  }

  // A scalar node as replay/io/yaml_tree.cc's TreeBuilder::OnScalar makes it.
  YamlNode* NewScalar(size_t li, size_t offset, std::string_view value, bool plain) {
    YamlNode& node = NewNode(li, offset);
    if (plain && IsNullText(value)) {
      node.set_null();
    } else {
      node.set_scalar(std::string(value));
      node.set_tag(plain ? "?" : "!");
    }
    return &node;
  }

  // Whether what follows a value on its line, from `offset`, is blanks and perhaps a comment.
  bool EndsLine(size_t li, size_t offset) const {
    const Line& line = lines_[li];
    const size_t from = offset;
    while (offset < line.end && text_[offset] == ' ') {
      ++offset;
    }
    return offset == line.end || (text_[offset] == '#' && offset > from);
  }

  YamlNode* ParseDocumentRoot() {
    const size_t indent = lines_[cur_].indent;
    const size_t offset = lines_[cur_].begin + indent;
    if (IsSequenceItem(cur_, offset)) {
      return ParseSequence(cur_, offset, 1);
    }
    if (KeyColon(cur_, offset) != std::string_view::npos) {
      return ParseMapping(cur_, offset, 1);
    }
    const size_t li = cur_;
    YamlNode* value = ParseInlineValue(li, offset, 0);
    cur_ = li + 1;
    return value;
  }

  // A block mapping whose first key starts at `offset` on line `li`; its other keys are on the
  // following lines at the same column. `depth`: its nesting, 1 for a document's root.
  YamlNode* ParseMapping(size_t li, size_t offset, size_t depth) {
    if (depth > max_depth_) {
      return nullptr;
    }
    const size_t indent = offset - lines_[li].begin;
    YamlNode* map = NewCollection(li, offset, YAML::NodeType::Map, YAML::EmitterStyle::Block);
    while (true) {
      const size_t colon = KeyColon(li, offset);
      if (colon == std::string_view::npos) {
        return nullptr;
      }
      YamlNode* key = NewScalar(li, offset, text_.substr(offset, colon - offset), true);
      size_t after = colon + 1;
      while (after < lines_[li].end && text_[after] == ' ') {
        ++after;
      }
      YamlNode* value = nullptr;
      if (after == lines_[li].end || text_[after] == '#') {
        // The value is a collection on the following lines: more indented, or a sequence at
        // the key's column. Anything else (an empty value, a scalar below its key) is declined.
        cur_ = li + 1;
        if (cur_ == end_) {
          return nullptr;
        }
        const Line& next = lines_[cur_];
        const size_t next_offset = next.begin + next.indent;
        if (next.indent > indent) {
          if (IsSequenceItem(cur_, next_offset)) {
            value = ParseSequence(cur_, next_offset, depth + 1);
          } else if (KeyColon(cur_, next_offset) != std::string_view::npos) {
            value = ParseMapping(cur_, next_offset, depth + 1);
          }
        } else if (next.indent == indent && IsSequenceItem(cur_, next_offset)) {
          value = ParseSequence(cur_, next_offset, depth + 1);
        }
      } else {
        value = ParseInlineValue(li, after, depth);
        cur_ = li + 1;
      }
      if (value == nullptr) {
        return nullptr;
      }
      map->insert(*key, *value, memory_);
      if (cur_ == end_ || lines_[cur_].indent < indent) {
        return map;
      }
      li = cur_;
      offset = lines_[li].begin + indent;
      if (lines_[li].indent > indent || IsSequenceItem(li, offset)) {
        return nullptr;  // a continuation line, or an item where a key belongs
      }
    }
  }

  // A block sequence whose first `-` is at `offset` on line `li`; its other items are on the
  // following lines at the same column.
  YamlNode* ParseSequence(size_t li, size_t offset, size_t depth) {
    if (depth > max_depth_) {
      return nullptr;
    }
    const size_t indent = offset - lines_[li].begin;
    YamlNode* sequence =
        NewCollection(li, offset, YAML::NodeType::Sequence, YAML::EmitterStyle::Block);
    while (true) {
      size_t item_offset = offset + 1;
      while (item_offset < lines_[li].end && text_[item_offset] == ' ') {
        ++item_offset;
      }
      if (item_offset == lines_[li].end || text_[item_offset] == '#'
          || IsSequenceItem(li, item_offset)) {
        return nullptr;  // an item on the next lines, empty, or a sequence on the item's line
      }
      YamlNode* item = nullptr;
      if (KeyColon(li, item_offset) != std::string_view::npos) {
        item = ParseMapping(li, item_offset, depth + 1);
      } else {
        item = ParseInlineValue(li, item_offset, depth);
        cur_ = li + 1;
      }
      if (item == nullptr) {
        return nullptr;
      }
      sequence->push_back(*item, memory_);
      if (cur_ == end_ || lines_[cur_].indent < indent) {
        return sequence;
      }
      li = cur_;
      offset = lines_[li].begin + indent;
      if (lines_[li].indent > indent) {
        return nullptr;
      }
      if (!IsSequenceItem(li, offset)) {
        return sequence;  // a key of the mapping this sequence is a value of
      }
    }
  }

  // A value that ends on its line, starting at `offset` on line `li`: a plain or quoted scalar,
  // a flow sequence of words or quoted scalars, or `{}`. `depth`: the nesting it is in.
  YamlNode* ParseInlineValue(size_t li, size_t offset, size_t depth) {
    const Line& line = lines_[li];
    const char c = text_[offset];
    if (c == '"' || c == '\'') {
      size_t end = offset;
      YamlNode* scalar = ParseQuoted(li, offset, &end);
      return scalar != nullptr && EndsLine(li, end) ? scalar : nullptr;
    }
    if (c == '[' || c == '{') {
      size_t end = offset;
      YamlNode* collection = ParseFlowNode(li, &end, depth);
      return collection != nullptr && EndsLine(li, end) ? collection : nullptr;
    }
    if (StartsNoPlainScalar(c)
        || (c == '-' && (offset + 1 == line.end || text_[offset + 1] == ' '))) {
      return nullptr;
    }
    size_t end = offset;
    for (; end < line.end; ++end) {
      const char d = text_[end];
      if (d == ':' && (end + 1 == line.end || text_[end + 1] == ' ')) {
        return nullptr;  // a mapping where a scalar belongs (libfyaml reports it)
      }
      if (d == '#' && text_[end - 1] == ' ') {
        break;  // a comment
      }
    }
    while (text_[end - 1] == ' ') {
      --end;
    }
    return NewScalar(li, offset, text_.substr(offset, end - offset), true);
  }

  // A quoted scalar on one line starting at `offset`; `*end` is set past its closing quote.
  YamlNode* ParseQuoted(size_t li, size_t offset, size_t* end) {
    const Line& line = lines_[li];
    const char quote = text_[offset];
    size_t i = offset + 1;
    if (quote == '"') {
      while (i < line.end && text_[i] != '"') {
        if (text_[i] == '\\') {
          return nullptr;  // escapes are libfyaml's
        }
        ++i;
      }
      if (i == line.end) {
        return nullptr;  // continues on the next line
      }
      *end = i + 1;
      return NewScalar(li, offset, text_.substr(offset + 1, i - offset - 1), false);
    }
    std::string value;
    while (true) {
      if (i == line.end) {
        return nullptr;
      }
      if (text_[i] == '\'') {
        if (i + 1 < line.end && text_[i + 1] == '\'') {
          value += '\'';
          i += 2;
          continue;
        }
        break;
      }
      value += text_[i];
      ++i;
    }
    *end = i + 1;
    return NewScalar(li, offset, value, false);
  }

  size_t SkipBlanks(size_t li, size_t offset) const {
    while (offset < lines_[li].end && text_[offset] == ' ') {
      ++offset;
    }
    return offset;
  }

  // An item of a flow collection at `*offset`: a plain word (or `~`) or a quoted scalar;
  // `*offset` is set past it.
  YamlNode* ParseFlowScalar(size_t li, size_t* offset) {
    const size_t start = *offset;
    if (start == lines_[li].end) {
      return nullptr;
    }
    if (text_[start] == '"' || text_[start] == '\'') {
      return ParseQuoted(li, start, offset);
    }
    if (!IsWordStart(text_[start]) && text_[start] != '~') {  // `~`: null, as `null`
      return nullptr;
    }
    size_t end = start + 1;
    while (end < lines_[li].end && IsWordChar(text_[end])) {
      ++end;
    }
    *offset = end;
    return NewScalar(li, start, text_.substr(start, end - start), true);
  }

  // A flow node at `*offset`, in a collection at nesting `depth`: a flow sequence or mapping, or
  // a flow scalar; `*offset` is set past it.
  YamlNode* ParseFlowNode(size_t li, size_t* offset, size_t depth) {
    if (*offset < lines_[li].end && (text_[*offset] == '[' || text_[*offset] == '{')) {
      return ParseFlowCollection(li, offset, depth + 1);
    }
    return ParseFlowScalar(li, offset);
  }

  // `[a, "b", {c: d}]` or `{a: b, c: [d]}` at `*offset`, on one line: items and values are flow
  // nodes, keys plain words (each followed by `: `). `*offset` is set past its closing bracket.
  YamlNode* ParseFlowCollection(size_t li, size_t* offset, size_t depth) {
    if (depth > max_depth_) {
      return nullptr;
    }
    const bool is_map = text_[*offset] == '{';
    const char closing = is_map ? '}' : ']';
    YamlNode* collection =
        NewCollection(li, *offset, is_map ? YAML::NodeType::Map : YAML::NodeType::Sequence,
                      YAML::EmitterStyle::Flow);
    size_t i = SkipBlanks(li, *offset + 1);
    if (i < lines_[li].end && text_[i] == closing) {
      *offset = i + 1;
      return collection;
    }
    while (true) {
      if (is_map) {
        if (i == lines_[li].end || !IsWordStart(text_[i])) {
          return nullptr;
        }
        YamlNode* key = ParseFlowScalar(li, &i);
        if (i + 1 >= lines_[li].end || text_[i] != ':' || text_[i + 1] != ' ') {
          return nullptr;
        }
        i = SkipBlanks(li, i + 1);
        YamlNode* value = ParseFlowNode(li, &i, depth);
        if (value == nullptr) {
          return nullptr;
        }
        collection->insert(*key, *value, memory_);
      } else {
        YamlNode* item = ParseFlowNode(li, &i, depth);
        if (item == nullptr) {
          return nullptr;
        }
        collection->push_back(*item, memory_);
      }
      // After an entry: `,` and the next one (not a trailing comma), or the closing bracket.
      i = SkipBlanks(li, i);
      if (i < lines_[li].end && text_[i] == closing) {
        *offset = i + 1;
        return collection;
      }
      if (i == lines_[li].end || text_[i] != ',') {
        return nullptr;
      }
      i = SkipBlanks(li, i + 1);
      if (i < lines_[li].end && text_[i] == closing) {
        return nullptr;
      }
    }
  }

  std::string_view text_;
  int first_line_ = 0;
  size_t max_depth_ = 0;
  std::vector<Line> lines_;
  std::vector<std::pair<size_t, size_t>> documents_;  // [first, last) of lines_
  size_t cur_ = 0;                                    // the next line to read
  size_t end_ = 0;                                    // the current document's end
  YAML::detail::shared_memory_holder memory_;
};

}  // namespace

std::optional<std::vector<YAML::Node>> LoadSimpleYaml(std::string_view text, int first_line,
                                                      size_t max_depth) {
  return SimpleReader(text, first_line, max_depth).Read();
}

}  // namespace replay::internal
