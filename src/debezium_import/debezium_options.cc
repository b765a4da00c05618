// ConnectorOptions and the TOML writing helpers of the Debezium import.

#include <cstdint>

#include "debezium_import/debezium_internal.h"
#include "fmt/format.h"

namespace outboxd::debezium_import::internal {

const std::string* ConnectorOptions::Find(std::string_view name) {
  auto it = values_.find(name);
  if (it == values_.end()) return nullptr;
  read_.emplace(name);
  return &it->second;
}

std::string ConnectorOptions::Get(std::string_view name, std::string_view fallback) {
  const std::string* value = Find(name);
  return value != nullptr ? *value : std::string(fallback);
}

std::vector<std::string> ConnectorOptions::TakePrefix(std::string_view prefix) {
  std::vector<std::string> names;
  for (auto it = values_.lower_bound(prefix);
       it != values_.end() && std::string_view(it->first).substr(0, prefix.size()) == prefix;
       ++it) {
    read_.insert(it->first);
    names.push_back(it->first);
  }
  return names;
}

std::vector<std::string> ConnectorOptions::Unread() const {
  std::vector<std::string> names;
  for (const auto& [name, value] : values_) {
    if (read_.count(name) == 0) names.push_back(name);
  }
  return names;
}

absl::Status ConnectorOptions::Error(std::string_view name, std::string_view problem,
                                     std::string_view fix) const {
  return absl::InvalidArgumentError(
      fmt::format("{}: option \"{}\" {}; {}", source_, name, problem, fix));
}

void TomlSection::String(std::string_view key, std::string_view value, std::string_view comment) {
  Raw(key, TomlString(value), comment);
}

void TomlSection::Raw(std::string_view key, std::string_view value, std::string_view comment) {
  lines.push_back(comment.empty() ? fmt::format("{} = {}", key, value)
                                  : fmt::format("{} = {}  # {}", key, value, comment));
}

namespace {

// Decodes one UTF-8 sequence at text[i] (validated by the JSON parser), advancing i.
uint32_t NextCodePoint(std::string_view text, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t lead = byte(i);
  int extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  uint32_t cp = extra == 0 ? lead : lead & (0x3F >> extra);
  for (++i; extra > 0 && i < text.size(); --extra, ++i) cp = (cp << 6) | (byte(i) & 0x3F);
  return cp;
}

}  // namespace

std::string TomlString(std::string_view text, bool literal_dollar) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (static_cast<uint8_t>(c) >= 0x80) {
      const uint32_t cp = NextCodePoint(text, i);
      out += cp > 0xFFFF ? fmt::format("\\U{:08X}", cp) : fmt::format("\\u{:04X}", cp);
      continue;
    }
    ++i;
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<uint8_t>(c) < 0x20 || c == 0x7F) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
    } else if (literal_dollar && c == '$' && i < text.size() && text[i] == '{') {
      out += "$$";
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

}  // namespace outboxd::debezium_import::internal
