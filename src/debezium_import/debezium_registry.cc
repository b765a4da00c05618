// The Debezium import's [schema_registry] section: Confluent's AvroConverter options
// (AbstractKafkaSchemaSerDeConfig and AvroDataConfig) under key.converter / value.converter, or
// under their BinaryDataConverter's delegate.converter.type.

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "debezium_import/debezium_import.h"
#include "debezium_import/debezium_internal.h"
#include "fmt/format.h"

namespace outboxd::debezium_import::internal {
namespace {

constexpr std::pair<std::string_view, std::string_view> kStrategies[] = {
    {"io.confluent.kafka.serializers.subject.TopicNameStrategy", "topic"},
    {"io.confluent.kafka.serializers.subject.RecordNameStrategy", "record"},
    {"io.confluent.kafka.serializers.subject.TopicRecordNameStrategy", "topic_record"},
};

absl::Status BoolOption(ConnectorOptions& options, const std::string& name,
                        std::string_view fallback, std::string_view key, TomlSection& out) {
  const std::string value = absl::AsciiStrToLower(options.Get(name, fallback));
  if (value != "true" && value != "false") {
    return options.Error(name, fmt::format("is \"{}\", not a boolean", value),
                         "write \"true\" or \"false\"");
  }
  out.Raw(key, value, name);
  return absl::OkStatus();
}

// Options that change the registered schema from the one outboxd writes.
absl::Status SchemaShape(ConnectorOptions& options, const std::string& prefix) {
  for (const auto& [option, expected] :
       {std::pair{"connect.meta.data", "true"}, std::pair{"enhanced.avro.schema.support", "false"},
        std::pair{"scrub.invalid.names", "false"}}) {
    const std::string name = prefix + option;
    if (absl::AsciiStrToLower(options.Get(name, expected)) != expected) {
      return options.Error(name,
                           "changes the Avro schema from AvroData's default, which is what "
                           "outboxd writes",
                           "remove it");
    }
  }
  return absl::OkStatus();
}

absl::Status Credentials(ConnectorOptions& options, const std::string& prefix, TomlSection& out,
                         std::string& password) {
  const std::string source_name = prefix + "basic.auth.credentials.source";
  const std::string source = options.Get(source_name, "URL");
  const std::string* user_info = options.Find(prefix + "basic.auth.user.info");
  if (user_info == nullptr) return absl::OkStatus();
  if (absl::AsciiStrToUpper(source) != "USER_INFO") {
    return options.Error(source_name,
                         fmt::format("is \"{}\" with basic.auth.user.info set", source),
                         "write \"USER_INFO\" (the only source outboxd reads)");
  }
  const size_t colon = user_info->find(':');
  if (colon == std::string::npos) {
    return options.Error(prefix + "basic.auth.user.info", "is not \"user:password\"",
                         "write \"user:password\"");
  }
  out.String("username", user_info->substr(0, colon), prefix + "basic.auth.user.info");
  password = user_info->substr(colon + 1);
  out.Raw("password", TomlString(fmt::format("${{{}}}", kEnvRegistryPassword), false),
          "basic.auth.user.info's password, from the environment");
  return absl::OkStatus();
}

// The TOML lines without their "  # option" comments, which name each side's options.
std::vector<std::string> Values(const TomlSection& section) {
  std::vector<std::string> out;
  for (const std::string& line : section.lines) out.push_back(line.substr(0, line.find("  # ")));
  return out;
}

}  // namespace

absl::Status TranslateSchemaRegistry(ConnectorOptions& options, std::string_view side,
                                     TomlSection& out, std::string& password) {
  const std::string prefix = AvroOptionPrefix(options, side);
  const std::string url_name = prefix + "schema.registry.url";
  const std::string* url = options.Find(url_name);
  if (url == nullptr) {
    return options.Error(url_name, "is missing (AvroConverter requires it)",
                         "add the registry's URL");
  }
  if (url->find(',') != std::string::npos) {
    return options.Error(url_name, "lists several registries; outboxd takes one",
                         "keep one URL (e.g. a load balancer's)");
  }
  out.String("url", *url, url_name);
  if (auto s = Credentials(options, prefix, out, password); !s.ok()) return s;
  if (options.Find(prefix + "schema.registry.ssl.truststore.location") != nullptr) {
    return options.Error(prefix + "schema.registry.ssl.truststore.location",
                         "is a Java trust store, which outboxd cannot read",
                         "remove it and set [schema_registry] ca_file to the CA's PEM file");
  }
  if (auto s = BoolOption(options, prefix + "auto.register.schemas", "true",
                          "auto_register_schemas", out);
      !s.ok()) {
    return s;
  }
  if (auto s =
          BoolOption(options, prefix + "use.latest.version", "false", "use_latest_version", out);
      !s.ok()) {
    return s;
  }
  const std::string strategy_name = fmt::format("{}{}.subject.name.strategy", prefix, side);
  const std::string strategy =
      options.Get(strategy_name, "io.confluent.kafka.serializers.subject.TopicNameStrategy");
  for (const auto& [cls, choice] : kStrategies) {
    if (strategy == cls) {
      out.String("subject_name_strategy", choice, strategy_name);
      return SchemaShape(options, prefix);
    }
  }
  return options.Error(strategy_name, fmt::format("is \"{}\"", strategy),
                       "use TopicNameStrategy, RecordNameStrategy or TopicRecordNameStrategy");
}

absl::Status TranslateRegistries(ConnectorOptions& options, const TomlSection& outbox,
                                 TomlSection& out, std::string& password) {
  const bool value = UsesAvroConverter(outbox, "value");
  const bool key = UsesAvroConverter(outbox, "key");
  if (!value && !key) return absl::OkStatus();
  if (auto s = TranslateSchemaRegistry(options, value ? "value" : "key", out, password); !s.ok()) {
    return s;
  }
  if (!value || !key) return absl::OkStatus();
  TomlSection key_section;
  std::string key_password;
  if (auto s = TranslateSchemaRegistry(options, "key", key_section, key_password); !s.ok()) {
    return s;
  }
  if (Values(key_section) != Values(out) || key_password != password) {
    return options.Error(AvroOptionPrefix(options, "key") + "schema.registry.url",
                         "or another of key.converter's registry options differs from "
                         "value.converter's; outboxd uses one registry with one set of options",
                         "give key.converter the same registry options as value.converter");
  }
  return absl::OkStatus();
}

}  // namespace outboxd::debezium_import::internal
