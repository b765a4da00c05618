#pragma once
// Internal to outboxd_config: one reader per top-level section of the file.

#include <string_view>

#include "absl/status/status.h"
#include "config/config.h"
#include "config/section_reader.h"
#include "toml++/toml.h"

namespace outboxd::config::internal {

// Each fills `out` from its section (absent keys keep their defaults) and validates it.
absl::Status ReadPostgres(const SectionReader& reader, const Environment& env, PostgresConfig& out);
absl::Status ReadRelay(const SectionReader& reader, RelayConfig& out);
absl::Status ReadOutbox(const SectionReader& reader, OutboxConfig& out);
absl::Status ReadHttp(const SectionReader& reader, HttpConfig& out);
// `outbox` (already read) says whether an avro converter needs the registry.
absl::Status ReadSchemaRegistry(const SectionReader& reader, const OutboxConfig& outbox,
                                SchemaRegistryConfig& out);
absl::Status ReadLog(const SectionReader& reader, LogConfig& out);
// `table` may be null (no [kafka] section); `source` names the file in errors.
absl::Status ReadKafka(std::string_view source, const toml::table* table, const Environment& env,
                       std::vector<std::pair<std::string, std::string>>& out);
// Takes sasl.oauthbearer.method = "aws_msk_iam" and aws_region out of the [kafka] properties
// `kafka` (sorted; ReadKafka's output) into `out`, setting the SASL properties MSK IAM needs.
absl::Status ReadKafkaIam(std::string_view source, const Environment& env,
                          std::vector<std::pair<std::string, std::string>>& kafka,
                          KafkaIamConfig& out);
// AWS_REGION, else AWS_DEFAULT_REGION, as the AWS SDKs read the region; nullopt when neither.
std::optional<std::string> RegionFromEnvironment(const Environment& env);

// The keys each reader accepts (keys.h gathers them); static storage.
absl::Span<const std::string_view> PostgresKeys();
absl::Span<const std::string_view> RelayKeys();
absl::Span<const std::string_view> OutboxKeys();
absl::Span<const std::string_view> HttpKeys();
absl::Span<const std::string_view> SchemaRegistryKeys();
absl::Span<const std::string_view> LogKeys();

// Reads `name` from `env`: nullopt when unset, InvalidArgument when set but empty (an empty
// override is almost always a deployment mistake, not a wish for an empty value).
absl::StatusOr<std::optional<std::string>> ReadOverride(const Environment& env,
                                                        std::string_view name,
                                                        std::string_view fix);

}  // namespace outboxd::config::internal
