#include "harness/config_writer.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace outboxd::it {
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string TomlString(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += absl::StrFormat("\\u%04X", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

std::string RenderConfig(const OutboxdConfig& config) {
  std::vector<std::string> tables, prefixes;
  for (const std::string& t : config.tables) tables.push_back(TomlString(t));
  for (const std::string& p : config.message_prefixes) prefixes.push_back(TomlString(p));
  std::string out = absl::StrCat(
      "[postgres]\n", "conninfo = ", TomlString(config.pg_conninfo), "\n",
      "slot = ", TomlString(config.slot), "\n", "publication = ", TomlString(config.publication),
      "\n", "tables = [", absl::StrJoin(tables, ", "), "]\n",
      prefixes.empty() ? ""
                       : absl::StrCat("message_prefixes = [", absl::StrJoin(prefixes, ", "), "]\n"),
      "status_interval_ms = ", config.status_interval_ms, "\n",
      config.parallel_slots == 1 ? ""
                                 : absl::StrCat("parallel_slots = ", config.parallel_slots, "\n"),
      "\n[kafka]\n", TomlString("bootstrap.servers"), " = ", TomlString(config.kafka_bootstrap),
      "\n");
  for (const auto& [key, value] : config.kafka_properties) {
    absl::StrAppend(&out, TomlString(key), " = ", TomlString(value), "\n");
  }
  if (!config.delivery.empty() || !config.relay_lines.empty()) {
    absl::StrAppend(&out, "\n[relay]\n");
    if (!config.delivery.empty()) {
      absl::StrAppend(&out, "delivery = ", TomlString(config.delivery), "\n");
    }
    for (const std::string& line : config.relay_lines) absl::StrAppend(&out, line, "\n");
  }
  // [outbox] stays last but for [http]: fixtures append [outbox] keys to the rendered text.
  absl::StrAppend(&out, "\n[outbox]\n", "topic = ", TomlString(config.topic_pattern), "\n");
  if (!config.format.empty()) absl::StrAppend(&out, "format = ", TomlString(config.format), "\n");
  if (!config.dead_letter_topic.empty()) {
    absl::StrAppend(&out, "dead_letter_topic = ", TomlString(config.dead_letter_topic), "\n");
  }
  if (!config.http_listen.empty()) {
    absl::StrAppend(&out, "\n[http]\nlisten = ", TomlString(config.http_listen), "\n");
  }
  return out;
}

absl::Status WriteConfig(const OutboxdConfig& config, const std::string& path) {
  std::ofstream file(path, std::ios::trunc);
  file << RenderConfig(config);
  file.close();
  if (!file) return absl::InternalError(absl::StrCat("cannot write config file ", path));
  return absl::OkStatus();
}

}  // namespace outboxd::it
