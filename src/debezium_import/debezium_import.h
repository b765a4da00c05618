#pragma once
// Running from a Debezium connector config: the JSON a team posts to Kafka Connect's REST API
// ({"name":…,"config":{…}} or the bare config map) for the Postgres connector with the Outbox
// Event Router, translated into outboxd's own TOML and then parsed by ParseConfig, so both
// paths validate the same way. A connector JSON never holds the Kafka address (that belongs to
// the Connect worker): it comes from OUTBOXD_KAFKA_BOOTSTRAP_SERVERS or the [kafka] section of
// an optional outboxd TOML given beside it.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "config/config.h"

namespace outboxd::debezium_import {

// The environment variable the printed TOML reads database.password from (never printed).
inline constexpr std::string_view kEnvPostgresPassword = "OUTBOXD_POSTGRES_PASSWORD";
// ... and the schema registry's basic auth password (AvroConverter's basic.auth.user.info).
inline constexpr std::string_view kEnvRegistryPassword = "OUTBOXD_SCHEMA_REGISTRY_PASSWORD";

struct DebeziumImport {
  std::string connector_name;  // "name", empty when the bare config has none
  // [postgres] and [outbox] as outboxd TOML; the password as ${OUTBOXD_POSTGRES_PASSWORD}.
  std::string toml;
  std::string password;           // database.password, for running directly (not in `toml`)
  std::string registry_password;  // basic.auth.user.info's password, likewise
  // One line per option outboxd ignores, naming it and why (options that would change what
  // consumers see are errors instead).
  std::vector<std::string> warnings;
};

// Translates connector JSON. InvalidArgument naming `source`, the option and the fix when the
// JSON is malformed, the connector is not Debezium's Postgres connector with pgoutput, or an
// option that would change the published records is not supported.
absl::StatusOr<DebeziumImport> ImportDebezium(std::string_view json, std::string_view source);

// ImportDebezium on the file at `path`; InvalidArgument when it cannot be read.
absl::StatusOr<DebeziumImport> ImportDebeziumFile(const std::string& path);

// Reads the connector JSON at `json_path` and builds the Config to run with: the import's TOML
// plus the [kafka], [relay], [http] and [log] sections of `toml_path` when given ([postgres] and
// [outbox] there are an error: they come from the connector), then ParseConfig with `env`, the
// password supplied through kEnvPostgresPassword. Appends the import's warnings to `warnings`.
absl::StatusOr<config::Config> LoadDebeziumConfig(const std::string& json_path,
                                                  const std::optional<std::string>& toml_path,
                                                  const config::Environment& env,
                                                  std::vector<std::string>& warnings);

}  // namespace outboxd::debezium_import
