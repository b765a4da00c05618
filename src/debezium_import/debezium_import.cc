// Connector JSON -> outboxd TOML -> Config (debezium_import.h).

#include "debezium_import/debezium_import.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_join.h"
#include "debezium_import/debezium_internal.h"
#include "fmt/format.h"
#include "simdjson.h"

namespace outboxd::debezium_import {

using config::Config;
using config::Environment;
using config::ParseConfig;
namespace internal {

bool IsProviderReference(std::string_view value) {
  // ${provider:[path:]key}; ${routedByValue} in route.topic.replacement has no colon.
  const size_t close = value.find('}');
  return value.substr(0, 2) == "${" && close != std::string_view::npos &&
         value.substr(0, close).find(':') != std::string_view::npos;
}

}  // namespace internal

namespace {

using internal::ConnectorOptions;
using internal::TomlSection;

// Connect's REST API takes string values; numbers and booleans are accepted as their text.
absl::StatusOr<std::string> OptionText(std::string_view source, std::string_view name,
                                       simdjson::dom::element value) {
  switch (value.type()) {
    case simdjson::dom::element_type::STRING:
      return std::string(std::string_view(value.get_string().value()));
    case simdjson::dom::element_type::INT64:
    case simdjson::dom::element_type::UINT64:
    case simdjson::dom::element_type::DOUBLE:
    case simdjson::dom::element_type::BOOL:
      return simdjson::minify(value);
    case simdjson::dom::element_type::NULL_VALUE:
    case simdjson::dom::element_type::ARRAY:
    case simdjson::dom::element_type::OBJECT:
      break;
  }
  return absl::InvalidArgumentError(
      fmt::format("{}: option \"{}\" must be a string, got {}; write \"{}\": \"value\"", source,
                  name, simdjson::minify(value), name));
}

// The config map of {"name":…,"config":{…}} or of the bare config; `name` gets "name".
absl::StatusOr<ConnectorOptions::Values> ReadJson(std::string_view json, std::string_view source,
                                                  std::string& name) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto error = parser.parse(json.data(), json.size()).get(root); error) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not valid JSON ({}); give the connector JSON as posted to Kafka "
                    "Connect's REST API",
                    source, simdjson::error_message(error)));
  }
  simdjson::dom::object object;
  simdjson::dom::object config;
  if (root.get(object) != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the top level must be an object: {{\"name\": ..., \"config\": {{...}}}}", source));
  }
  if (object["config"].get(config) != simdjson::SUCCESS) config = object;
  std::string_view n;
  if (object["name"].get(n) == simdjson::SUCCESS) name = std::string(n);
  ConnectorOptions::Values values;
  for (auto [key, value] : config) {
    if (key == "name") continue;  // The connector's name, not an option.
    absl::StatusOr<std::string> text = OptionText(source, key, value);
    if (!text.ok()) return text.status();
    // A key given twice: the last wins, as when Connect reads the JSON into a map.
    values.insert_or_assign(std::string(key), *std::move(text));
  }
  return values;
}

std::string Render(std::string_view source, const std::string& connector,
                   const std::vector<TomlSection>& sections) {
  std::string out = fmt::format(
      "# outboxd config imported from the Debezium connector {}{}\n# Kafka: set "
      "OUTBOXD_KAFKA_BOOTSTRAP_SERVERS or add a [kafka] section with \"bootstrap.servers\".\n",
      source, connector.empty() ? "" : fmt::format(" \"{}\"", connector));
  for (const TomlSection& section : sections) {
    if (section.lines.empty()) continue;
    out += fmt::format("\n[{}]\n{}\n", section.name, absl::StrJoin(section.lines, "\n"));
  }
  return out;
}

absl::StatusOr<std::string> ReadFile(const std::string& path, std::string_view what) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        fmt::format("{}: cannot open {}: {}; check the path and its permissions", path, what,
                    std::strerror(errno)));
  }
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The sections of the --config file that may accompany a connector ([kafka], [relay],
// [http], [log]); [postgres] and [outbox] come from the connector.
absl::Status CheckCompanion(const std::string& path, std::string_view text) {
  std::istringstream lines{std::string(text)};
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] != '[') continue;
    for (std::string_view section : {"postgres", "outbox"}) {
      if (line.compare(start, section.size() + 1, fmt::format("[{}", section)) == 0) {
        return absl::InvalidArgumentError(fmt::format(
            "{}:{}: [{}] comes from the Debezium connector config; keep only [kafka], [relay], "
            "[http] and [log] in a file given with --debezium-config",
            path, number, section));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<DebeziumImport> ImportDebezium(std::string_view json, std::string_view source) {
  DebeziumImport result;
  absl::StatusOr<ConnectorOptions::Values> values = ReadJson(json, source, result.connector_name);
  if (!values.ok()) return values.status();
  for (const auto& [name, value] : *values) {
    if (internal::IsProviderReference(value) && name != "database.password") {
      return absl::InvalidArgumentError(fmt::format(
          "{}: option \"{}\" is a Kafka Connect config provider reference ({}), which outboxd "
          "cannot resolve; write the value itself",
          source, name, value));
    }
  }
  ConnectorOptions options(std::string(source), *std::move(values));
  std::vector<TomlSection> sections = {{"postgres", {}}, {"outbox", {}}, {"schema_registry", {}}};
  if (auto s = internal::TranslatePostgres(options, sections[0], result.password, result.warnings);
      !s.ok()) {
    return s;
  }
  if (auto s = internal::TranslateOutbox(options, sections[1], result.warnings); !s.ok()) return s;
  if (auto s = internal::TranslateRegistries(options, sections[1], sections[2],
                                             result.registry_password);
      !s.ok()) {
    return s;
  }
  for (const std::string& name : options.Unread()) {
    result.warnings.push_back(fmt::format("{} is not used by outboxd (ignored)", name));
  }
  result.toml = Render(source, result.connector_name, sections);
  return result;
}

absl::StatusOr<DebeziumImport> ImportDebeziumFile(const std::string& path) {
  absl::StatusOr<std::string> json = ReadFile(path, "the Debezium connector config");
  if (!json.ok()) return json.status();
  return ImportDebezium(*json, path);
}

absl::StatusOr<Config> LoadDebeziumConfig(const std::string& json_path,
                                          const std::optional<std::string>& toml_path,
                                          const Environment& env,
                                          std::vector<std::string>& warnings) {
  absl::StatusOr<DebeziumImport> imported = ImportDebeziumFile(json_path);
  if (!imported.ok()) return imported.status();
  std::string toml = imported->toml;
  if (toml_path) {
    absl::StatusOr<std::string> extra = ReadFile(*toml_path, "config file");
    if (!extra.ok()) return extra.status();
    if (auto s = CheckCompanion(*toml_path, *extra); !s.ok()) return s;
    toml += "\n" + *extra;
  }
  // The password reaches the conninfo through the environment, escaped for libpq's quoting.
  const std::string registry_password = imported->registry_password;
  std::string escaped;
  for (char c : imported->password) {
    if (c == '\'' || c == '\\') escaped += '\\';
    escaped += c;
  }
  const Environment with_password =
      [&env, escaped, registry_password](std::string_view name) -> std::optional<std::string> {
    if (name == kEnvPostgresPassword && !escaped.empty()) return escaped;
    if (name == kEnvRegistryPassword && !registry_password.empty()) return registry_password;
    return env(name);
  };
  const std::string source = fmt::format("{} (as outboxd TOML{})", json_path,
                                         toml_path ? " + " + *toml_path : std::string());
  absl::StatusOr<Config> config = ParseConfig(toml, source, with_password);
  if (!config.ok()) return config.status();
  warnings.insert(warnings.end(), imported->warnings.begin(), imported->warnings.end());
  return config;
}

}  // namespace outboxd::debezium_import
