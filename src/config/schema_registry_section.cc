// [schema_registry]: the Confluent-compatible schema registry of the "avro" converters
// (docs/configuration.md "[schema_registry]").

#include <array>
#include <utility>

#include "config/sections.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kRegistryKeys[] = {"url",
                                              "username",
                                              "password",
                                              "ca_file",
                                              "auto_register_schemas",
                                              "use_latest_version",
                                              "subject_name_strategy",
                                              "timeout_ms"};
constexpr std::string_view kUrlExample = R"(url = "http://registry:8081")";

constexpr std::array<std::pair<std::string_view, SubjectNameStrategy>, 3> kStrategies = {{
    {"topic", SubjectNameStrategy::kTopic},
    {"record", SubjectNameStrategy::kRecord},
    {"topic_record", SubjectNameStrategy::kTopicRecord},
}};

absl::Status ReadStrings(const SectionReader& reader, SchemaRegistryConfig& out) {
  if (auto s = reader.ReadString("url", kUrlExample, out.url); !s.ok()) return s;
  if (auto s = reader.ReadString("username", R"(username = "outboxd")", out.username); !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadString("password", R"(password = "${REGISTRY_PASSWORD}")", out.password);
      !s.ok()) {
    return s;
  }
  return reader.ReadString("ca_file", R"(ca_file = "/etc/ssl/registry-ca.pem")", out.ca_file);
}

}  // namespace

absl::Span<const std::string_view> SchemaRegistryKeys() { return kRegistryKeys; }

absl::Status ReadSchemaRegistry(const SectionReader& reader, const OutboxConfig& outbox,
                                SchemaRegistryConfig& out) {
  if (auto s = reader.CheckKnownKeys(kRegistryKeys); !s.ok()) return s;
  if (auto s = ReadStrings(reader, out); !s.ok()) return s;
  if (auto s = reader.ReadBool("auto_register_schemas", "auto_register_schemas = true",
                               out.auto_register_schemas);
      !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadBool("use_latest_version", "use_latest_version = false",
                               out.use_latest_version);
      !s.ok()) {
    return s;
  }
  if (auto s = ReadChoice(reader, "subject_name_strategy", kStrategies, out.subject_name_strategy);
      !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadInt("timeout_ms", "timeout_ms = 5000", 100, 600000, out.timeout_ms);
      !s.ok()) {
    return s;
  }
  if (!out.url.empty() && !out.url.starts_with("http://") && !out.url.starts_with("https://")) {
    return reader.Error("url", fmt::format("\"{}\" is not an http:// or https:// URL", out.url),
                        fmt::format("write e.g. {}", kUrlExample));
  }
  if (out.password.empty() != out.username.empty()) {
    return reader.Error(out.username.empty() ? "password" : "username",
                        "is set without the other half of basic auth",
                        "set both username and password, or neither");
  }
  if (UsesAvro(outbox) && out.url.empty()) {
    return reader.Error("url", "is not set, but a converter is \"avro\", which needs the registry",
                        fmt::format("write e.g. {}", kUrlExample));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::config::internal
