#include "config/config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "config/env_expand.h"
#include "config/sections.h"
#include "config/toml_guard.h"
#include "fmt/format.h"

namespace outboxd::config {

Converter NonBytesValueConverter(const OutboxConfig& cfg) {
  return cfg.value_converter == Converter::kBytes ? cfg.value_converter_delegate
                                                  : cfg.value_converter;
}
bool UsesAvro(const OutboxConfig& cfg) {
  return cfg.key_converter == Converter::kAvro || NonBytesValueConverter(cfg) == Converter::kAvro;
}

std::string SlotName(const PostgresConfig& pg, int index) {
  if (pg.parallel_slots <= 1) return pg.slot;
  return fmt::format("{}_{}", pg.slot, index);
}

std::vector<std::string> SlotNames(const PostgresConfig& pg) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(pg.parallel_slots));
  for (int i = 0; i < pg.parallel_slots; ++i) names.push_back(SlotName(pg, i));
  return names;
}

std::string PublicationName(const PostgresConfig& pg, int index) {
  if (pg.parallel_slots <= 1) return pg.publication;
  return fmt::format("{}_{}", pg.publication, index);
}

namespace {

constexpr std::string_view kSections[] = {"postgres", "kafka", "outbox", "schema_registry",
                                          "relay",    "http",  "log"};

absl::StatusOr<toml::table> ParseToml(std::string_view text, std::string_view source) {
  if (auto unsafe = internal::FindTomlUnsafeCodePoint(text)) {
    const auto before = text.substr(0, unsafe->offset);
    const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}: character U+{:04X} is not supported: the TOML parser outboxd is built with "
        "mishandles characters in U+00A1-U+0499, U+2D6E-U+3167 and U+FB26-U+FEFE; remove it, or "
        "inside a quoted string write it as \\u{:04X}",
        source, line, static_cast<uint32_t>(unsafe->code_point),
        static_cast<uint32_t>(unsafe->code_point)));
  }
  // toml++ reports syntax errors by exception; they stop here, at the module boundary.
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    return absl::InvalidArgumentError(
        fmt::format("{}:{}:{}: invalid TOML: {}; fix the syntax at that position", source,
                    e.source().begin.line, e.source().begin.column, e.description()));
  }
}

// Unknown sections, and keys outside any section, are typos that must not pass silently.
absl::Status CheckTopLevel(std::string_view source, const toml::table& root) {
  for (const auto& [key, node] : root) {
    const std::string_view name = key.str();
    const bool known =
        std::find(std::begin(kSections), std::end(kSections), name) != std::end(kSections);
    if (known && node.is_table()) continue;
    const std::string where = internal::Where(source, &node);
    if (known) {
      return absl::InvalidArgumentError(fmt::format(
          "{}[{}] must be a table, got {}; write [{}] on a line of its own above its keys", where,
          name, internal::TypeName(node), name));
    }
    if (!node.is_table()) {
      return absl::InvalidArgumentError(fmt::format(
          "{}unknown key {} outside any section; put it under [postgres], [kafka], [outbox], "
          "[schema_registry], [relay], [http] or [log]",
          where, name));
    }
    return absl::InvalidArgumentError(fmt::format("{}unknown section [{}]{}", where, name,
                                                  internal::Suggestion(name, kSections)));
  }
  return absl::OkStatus();
}

}  // namespace

Environment ProcessEnvironment() {
  return [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

absl::StatusOr<Config> ParseConfig(std::string_view toml_text, std::string_view source_name,
                                   const Environment& env) {
  absl::StatusOr<toml::table> root = ParseToml(toml_text, source_name);
  if (!root.ok()) return root.status();
  if (auto s = CheckTopLevel(source_name, *root); !s.ok()) return s;
  if (auto s = internal::ExpandEnvironment(*root, source_name, env); !s.ok()) return s;
  Config config;
  auto section = [&](std::string_view name) {
    return internal::SectionReader(source_name, name, (*root)[name].as_table(), &config.warnings);
  };
  if (auto s = internal::ReadPostgres(section("postgres"), env, config.postgres); !s.ok()) {
    return s;
  }
  if (auto s = internal::ReadKafka(source_name, (*root)["kafka"].as_table(), env, config.kafka);
      !s.ok()) {
    return s;
  }
  if (auto s = internal::ReadKafkaIam(source_name, env, config.kafka, config.kafka_iam); !s.ok()) {
    return s;
  }
  if (auto s = internal::ReadOutbox(section("outbox"), config.outbox); !s.ok()) return s;
  if (auto s = internal::ReadSchemaRegistry(section("schema_registry"), config.outbox,
                                            config.schema_registry);
      !s.ok()) {
    return s;
  }
  if (auto s = internal::ReadRelay(section("relay"), config.relay); !s.ok()) return s;
  if (auto s = internal::ReadHttp(section("http"), config.http); !s.ok()) return s;
  if (auto s = internal::ReadLog(section("log"), config.log); !s.ok()) return s;
  return config;
}

absl::StatusOr<Config> LoadConfig(const std::string& path) {
  return LoadConfig(path, ProcessEnvironment());
}

absl::StatusOr<Config> LoadConfig(const std::string& path, const Environment& env) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::InvalidArgumentError(
        fmt::format("{}: cannot open config file: {}; check the path and its permissions", path,
                    std::strerror(errno)));
  }
  std::ostringstream text;
  text << file.rdbuf();
  if (file.bad()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: cannot read config file: {}", path, std::strerror(errno)));
  }
  return ParseConfig(text.str(), path, env);
}

}  // namespace outboxd::config
