#include "encoding/debezium/converter.h"

#include "fmt/format.h"
#include "outbox/bytea.h"

namespace outboxd::encoding {

using outbox::ColumnSchema;

namespace {

constexpr char kUpperHex[] = "0123456789ABCDEF";

void AppendUnicodeEscape(uint32_t unit, std::string& out) {
  out.append("\\u");
  for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kUpperHex[(unit >> shift) & 0xF]);
}

// Length of the UTF-8 sequence that starts with `lead`; 1 for a stray byte (copied as is).
size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

void AppendJsonString(std::string_view text, std::string& out) {
  out.push_back('"');
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      const size_t length = std::min(SequenceLength(c), text.size() - i);
      if (length == 4) {
        // Jackson writes a supplementary character as its two UTF-16 surrogates, escaped.
        const uint32_t code = ((c & 0x07u) << 18) |
                              ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 12) |
                              ((static_cast<unsigned char>(text[i + 2]) & 0x3Fu) << 6) |
                              (static_cast<unsigned char>(text[i + 3]) & 0x3Fu);
        const uint32_t offset = code - 0x10000;
        AppendUnicodeEscape(0xD800 + (offset >> 10), out);
        AppendUnicodeEscape(0xDC00 + (offset & 0x3FF), out);
      } else {
        out.append(text.substr(i, length));
      }
      i += length;
      continue;
    }
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\b':
        out.append("\\b");
        break;
      case '\f':
        out.append("\\f");
        break;
      case '\n':
        out.append("\\n");
        break;
      case '\r':
        out.append("\\r");
        break;
      case '\t':
        out.append("\\t");
        break;
      default:
        if (c < 0x20) {
          AppendUnicodeEscape(c, out);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out.push_back('"');
}

void AppendBase64(std::string_view bytes, std::string& out) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t n = (static_cast<unsigned char>(bytes[i]) << 16) |
                       (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(n >> shift) & 0x3F]);
  }
  const size_t rest = bytes.size() - i;
  if (rest == 0) return;
  uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
  if (rest == 2) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
  out.push_back(kAlphabet[(n >> 18) & 0x3F]);
  out.push_back(kAlphabet[(n >> 12) & 0x3F]);
  out.push_back(rest == 2 ? kAlphabet[(n >> 6) & 0x3F] : '=');
  out.push_back('=');
}

void AppendSchema(const ColumnSchema& schema, std::string& out,
                  std::optional<std::string_view> field_name) {
  // JsonConverter.asJsonSchema's order: type, optional, name, version; a field adds "field".
  out.append(R"({"type":")").append(schema.type).append(R"(","optional":)");
  out.append(schema.optional ? "true" : "false");
  if (!schema.name.empty()) out.append(R"(,"name":")").append(schema.name).push_back('"');
  if (schema.version != 0)
    fmt::format_to(std::back_inserter(out), R"(,"version":{})", schema.version);
  if (field_name) {
    out.append(R"(,"field":)");
    AppendJsonString(*field_name, out);
  }
  out.push_back('}');
}

bool AppendJsonValue(const ColumnSchema& schema, std::optional<std::string_view> text,
                     std::string& scratch, std::string& out) {
  if (!text) {
    out.append("null");
  } else if (schema.bytea) {
    if (!outbox::DecodeByteaHex(*text, scratch).ok()) return false;
    out.push_back('"');
    AppendBase64(scratch, out);
    out.push_back('"');
  } else if (schema.boolean) {
    out.append(*text == "t" ? "true" : "false");
  } else if (schema.number) {
    out.append(*text);
  } else {
    AppendJsonString(*text, out);
  }
  return true;
}

}  // namespace outboxd::encoding
