// Jackson's ObjectMapper.readTree as Debezium 3.6.1's EventRouterDelegate.parseJsonPayload
// calls it: strict JSON, trailing content ignored, a repeated key keeping its first position and
// its last value, Jackson's number and nesting limits. Builds the nodes json_expand_infer.cc
// infers a schema from.

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "encoding/debezium/json_expand_model.h"

namespace outboxd::encoding {
namespace {

using expand::kNone;
using expand::Node;
using expand::NodeType;
using expand::NumberType;
using expand::Scratch;

constexpr size_t kMaxNumberLength = 1000;  // Jackson's StreamReadConstraints.maxNumberLength.
constexpr int kMaxDepth = 1000;            // Jackson's StreamReadConstraints.maxNestingDepth.

void AppendUtf8(uint32_t code, std::string& out) {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// Jackson's strict JSON grammar over `text`; stops after the root value (readTree ignores what
// follows it). False on any syntax error.
class Parser {
 public:
  Parser(std::string_view text, Scratch& scratch) : text_(text), s_(scratch) {}

  bool ParseRoot() { return ParseValue(0) != kNone; }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    // Jackson reads an identifier to its end: "truex" is an error.
    return pos_ >= text_.size() || !std::isalnum(static_cast<unsigned char>(text_[pos_]));
  }

  int32_t NewNode(NodeType type) {
    s_.nodes.push_back(Node{});
    s_.nodes.back().type = type;
    return static_cast<int32_t>(s_.nodes.size() - 1);
  }

  int32_t ParseValue(int depth) {
    if (depth > kMaxDepth) return kNone;
    SkipSpace();
    if (pos_ >= text_.size()) return kNone;
    switch (text_[pos_]) {
      case '{':
        return ParseObject(depth);
      case '[':
        return ParseArray(depth);
      case '"': {
        uint32_t offset = 0;
        uint32_t length = 0;
        if (!ParseString(offset, length)) return kNone;
        const int32_t n = NewNode(NodeType::kString);
        s_.nodes[static_cast<size_t>(n)].text_offset = offset;
        s_.nodes[static_cast<size_t>(n)].text_length = length;
        return n;
      }
      case 't':
      case 'f': {
        const bool truth = text_[pos_] == 't';
        if (!Literal(truth ? "true" : "false")) return kNone;
        const int32_t n = NewNode(NodeType::kBool);
        s_.nodes[static_cast<size_t>(n)].truth = truth;
        return n;
      }
      case 'n':
        return Literal("null") ? NewNode(NodeType::kNull) : kNone;
      default:
        return ParseNumber();
    }
  }

  // Appends a child; a repeated object key replaces the earlier member in place (Jackson's
  // ObjectNode.replace on its LinkedHashMap: first position, last value).
  void AddChild(int32_t parent, int32_t child, bool object) {
    Node& p = s_.nodes[static_cast<size_t>(parent)];
    if (object) {
      const std::string_view key = s_.Key(s_.nodes[static_cast<size_t>(child)]);
      int32_t previous = kNone;
      for (int32_t c = p.first_child; c != kNone; c = s_.nodes[static_cast<size_t>(c)].next) {
        if (s_.Key(s_.nodes[static_cast<size_t>(c)]) == key) {
          s_.nodes[static_cast<size_t>(child)].next = s_.nodes[static_cast<size_t>(c)].next;
          if (previous == kNone) {
            p.first_child = child;
          } else {
            s_.nodes[static_cast<size_t>(previous)].next = child;
          }
          if (p.last_child == c) p.last_child = child;
          return;
        }
        previous = c;
      }
    }
    if (p.last_child == kNone) {
      p.first_child = child;
    } else {
      s_.nodes[static_cast<size_t>(p.last_child)].next = child;
    }
    p.last_child = child;
  }

  int32_t ParseObject(int depth) {
    ++pos_;  // '{'
    const int32_t object = NewNode(NodeType::kObject);
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return object;
    }
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return kNone;
      uint32_t key_offset = 0;
      uint32_t key_length = 0;
      if (!ParseString(key_offset, key_length)) return kNone;
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return kNone;
      ++pos_;
      const int32_t value = ParseValue(depth + 1);
      if (value == kNone) return kNone;
      s_.nodes[static_cast<size_t>(value)].key_offset = key_offset;
      s_.nodes[static_cast<size_t>(value)].key_length = key_length;
      AddChild(object, value, /*object=*/true);
      SkipSpace();
      if (pos_ >= text_.size()) return kNone;
      if (text_[pos_] == '}') {
        ++pos_;
        return object;
      }
      if (text_[pos_] != ',') return kNone;
      ++pos_;
    }
  }

  int32_t ParseArray(int depth) {
    ++pos_;  // '['
    const int32_t array = NewNode(NodeType::kArray);
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return array;
    }
    while (true) {
      const int32_t value = ParseValue(depth + 1);
      if (value == kNone) return kNone;
      AddChild(array, value, /*object=*/false);
      SkipSpace();
      if (pos_ >= text_.size()) return kNone;
      if (text_[pos_] == ']') {
        ++pos_;
        return array;
      }
      if (text_[pos_] != ',') return kNone;
      ++pos_;
    }
  }

  bool Hex4(uint32_t& unit) {
    if (pos_ + 4 > text_.size()) return false;
    unit = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      unit <<= 4;
      if (c >= '0' && c <= '9') {
        unit |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        unit |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        unit |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return false;
      }
    }
    return true;
  }

  // A string token, decoded to UTF-8 in s_.strings.
  bool ParseString(uint32_t& offset, uint32_t& length) {
    ++pos_;  // '"'
    std::string& out = s_.strings;
    offset = static_cast<uint32_t>(out.size());
    while (true) {
      if (pos_ >= text_.size()) return false;
      const char c = text_[pos_++];
      if (c == '"') break;
      if (static_cast<unsigned char>(c) < 0x20) return false;  // Unescaped control character.
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= text_.size()) return false;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out.push_back(e);
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          uint32_t unit = 0;
          if (!Hex4(unit)) return false;
          if (unit >= 0xD800 && unit <= 0xDBFF && text_.substr(pos_, 2) == "\\u") {
            const size_t at = pos_;
            pos_ += 2;
            uint32_t low = 0;
            if (!Hex4(low)) return false;
            if (low >= 0xDC00 && low <= 0xDFFF) {
              AppendUtf8(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00), out);
              break;
            }
            pos_ = at;  // Not a pair: the high half stands alone.
          }
          if (unit >= 0xD800 && unit <= 0xDFFF) s_.lone_surrogate = true;
          AppendUtf8(unit, out);
          break;
        }
        default:
          return false;
      }
    }
    length = static_cast<uint32_t>(out.size() - offset);
    return true;
  }

  int32_t ParseNumber() {
    const size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    const size_t int_start = pos_;
    const size_t int_digits = digits();
    if (int_digits == 0) return kNone;
    if (int_digits > 1 && text_[int_start] == '0') return kNone;  // Leading zeros.
    bool real = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) return kNone;
      real = true;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) return kNone;
      real = true;
    }
    const std::string_view token = text_.substr(start, pos_ - start);
    if (token.size() > kMaxNumberLength) return kNone;
    const int32_t n = NewNode(NodeType::kNumber);
    Node& node = s_.nodes[static_cast<size_t>(n)];
    if (real) {
      node.number = NumberType::kDouble;
      // Correctly rounded, as Double.parseDouble; out of range is +-inf or 0 there, which strtod
      // gives too (from_chars leaves the value unset).
      const auto [end, error] =
          std::from_chars(token.data(), token.data() + token.size(), node.real);
      if (error == std::errc::result_out_of_range) {
        char buffer[kMaxNumberLength + 1];
        token.copy(buffer, token.size());
        buffer[token.size()] = '\0';
        node.real = std::strtod(buffer, nullptr);
      }
      return n;
    }
    int64_t value = 0;
    const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
    if (error != std::errc() || end != token.data() + token.size()) {
      node.number = NumberType::kBig;
      return n;
    }
    node.integer = value;
    node.number =
        value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()
            ? NumberType::kInt
            : NumberType::kLong;
    return n;
  }

  std::string_view text_;
  Scratch& s_;
  size_t pos_ = 0;
};

}  // namespace

bool expand::ParseDocument(std::string_view text, Scratch& s) {
  return Parser(text, s).ParseRoot();
}

}  // namespace outboxd::encoding
