// The Debezium import's [outbox] section: the Outbox Event Router's options, the converters and
// the connector's header options. Anything that would change the records and has no outboxd
// equivalent is an error here, so consumers never see a silent difference.

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "debezium_import/debezium_internal.h"
#include "fmt/format.h"

namespace outboxd::debezium_import::internal {
namespace {

constexpr std::string_view kPostgresConnector =
    "io.debezium.connector.postgresql.PostgresConnector";
constexpr std::string_view kEventRouter = "io.debezium.transforms.outbox.EventRouter";
constexpr std::string_view kDecodeMessageContent =
    "io.debezium.connector.postgresql.transforms.DecodeLogicalDecodingMessageContent";
constexpr std::string_view kStringConverter = "org.apache.kafka.connect.storage.StringConverter";
constexpr std::string_view kJsonConverter = "org.apache.kafka.connect.json.JsonConverter";
constexpr std::string_view kByteArrayConverter =
    "org.apache.kafka.connect.converters.ByteArrayConverter";
constexpr std::string_view kBinaryDataConverter = "io.debezium.converters.BinaryDataConverter";
constexpr std::string_view kAvroConverter = "io.confluent.connect.avro.AvroConverter";
constexpr std::string_view kApicurioAvroConverter =
    "io.apicurio.registry.utils.converter.AvroConverter";

// Event Router option -> [outbox] string key.
constexpr std::pair<std::string_view, std::string_view> kRouterStrings[] = {
    {"table.field.event.id", "id_column"},
    {"table.field.event.key", "aggregate_id_column"},
    {"table.field.event.payload", "payload_column"},
    {"table.field.event.timestamp", "timestamp_column"},
    {"route.by.field", "aggregate_type_column"},
    {"route.topic.regex", "topic_regex"},
};
constexpr std::pair<std::string_view, std::string_view> kRouterBools[] = {
    {"route.tombstone.on.empty.payload", "tombstone_on_empty_payload"},
    {"table.expand.json.payload", "expand_json_payload"},
};
// Router options with no effect on the records outboxd publishes.
constexpr std::string_view kRouterIgnored[] = {
    "tracing.span.context.field", "tracing.operation.name", "tracing.with.context.field.only"};

absl::StatusOr<std::string> Bool(const ConnectorOptions& options, std::string_view name,
                                 const std::string& value) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower == "true" || lower == "false") return lower;
  return options.Error(name, fmt::format("is \"{}\", not a boolean", value),
                       "write \"true\" or \"false\"");
}

// The [outbox] converter choice for the converter class `type` configured under option `name`
// (its own options are `name`.*): "string", "json" or "json_with_schema".
absl::StatusOr<std::string> TextConverter(ConnectorOptions& options, const std::string& name,
                                          const std::string* type) {
  std::string choice;
  if (*type == kStringConverter) {
    choice = "string";
    const std::string encoding = options.Get(name + ".encoding", "UTF-8");
    if (absl::AsciiStrToUpper(encoding) != "UTF-8" && absl::AsciiStrToUpper(encoding) != "UTF8") {
      return options.Error(name + ".encoding", fmt::format("is \"{}\"", encoding),
                           "outboxd writes UTF-8 only: remove it");
    }
  } else if (*type == kJsonConverter) {
    const std::string schemas =
        options.Get(name + ".schemas.enable", "true");  // JsonConverter's default.
    absl::StatusOr<std::string> enabled = Bool(options, name + ".schemas.enable", schemas);
    if (!enabled.ok()) return enabled.status();
    choice = *enabled == "true" ? "json_with_schema" : "json";
  } else if (*type == kAvroConverter) {
    choice = "avro";  // Its registry options: TranslateSchemaRegistry.
  } else if (*type == kApicurioAvroConverter) {
    // Apicurio's converter writes its own framing (the id in headers or 8 bytes by default).
    return options.Error(
        name,
        fmt::format("is \"{}\", whose framing (the schema id in record headers, or an 8-byte "
                    "id) outboxd does not write",
                    *type),
        fmt::format("use {} with schema.registry.url pointing at Apicurio's Confluent-compatible "
                    "API (.../apis/ccompat/v7); outboxd writes that wire format",
                    kAvroConverter));
  } else {
    return options.Error(
        name, fmt::format("is \"{}\", which outboxd does not reproduce", *type),
        fmt::format("use {}, {}, {}, {} or {} (or keep Debezium for this connector)",
                    kStringConverter, kJsonConverter, kAvroConverter, kByteArrayConverter,
                    kBinaryDataConverter));
  }
  return choice;
}

// The [outbox] choice for key.converter or value.converter (`side` "key" or "value").
absl::Status Converter(ConnectorOptions& options, std::string_view side, TomlSection& out) {
  const std::string name = fmt::format("{}.converter", side);
  const std::string* type = options.Find(name);
  if (type == nullptr) {
    return options.Error(
        name,
        "is not set, so the Connect worker's converter applies, which outboxd "
        "cannot see",
        fmt::format("add \"{}\" as the worker sets it (e.g. \"{}\")", name, kJsonConverter));
  }
  const std::string out_key = fmt::format("{}_converter", side);
  if (*type != kByteArrayConverter && *type != kBinaryDataConverter) {
    absl::StatusOr<std::string> choice = TextConverter(options, name, type);
    if (!choice.ok()) return choice.status();
    out.String(out_key, *choice, name);
    return absl::OkStatus();
  }
  // BinaryDataConverter hands what is not bytes to delegate.converter.type, configured with
  // that option's own sub-options (delegate.converter.type.schemas.enable, ...).
  const std::string delegate_name = name + ".delegate.converter.type";
  const std::string* delegate =
      *type == kBinaryDataConverter ? options.Find(delegate_name) : nullptr;
  absl::StatusOr<std::string> delegate_choice = std::string("none");
  if (delegate != nullptr) delegate_choice = TextConverter(options, delegate_name, delegate);
  if (!delegate_choice.ok()) return delegate_choice.status();
  if (side == "key") {
    // The key (aggregate id) is text: never bytes, always the delegate's.
    if (delegate == nullptr) {
      return options.Error(
          name,
          fmt::format("is \"{}\"{}, which fails on every text key", *type,
                      *type == kBinaryDataConverter ? " without a delegate" : ""),
          fmt::format("use {} (Debezium cannot have run with it)", kStringConverter));
    }
    out.String(out_key, *delegate_choice, name);
    return absl::OkStatus();
  }
  out.String(out_key, "bytes", name);
  if (delegate != nullptr) out.String("value_converter_delegate", *delegate_choice, delegate_name);
  return absl::OkStatus();
}

absl::Status Converters(ConnectorOptions& options, TomlSection& out) {
  if (auto s = Converter(options, "key", out); !s.ok()) return s;
  if (auto s = Converter(options, "value", out); !s.ok()) return s;
  const std::string header =
      options.Get("header.converter", "org.apache.kafka.connect.storage.SimpleHeaderConverter");
  if (header != "org.apache.kafka.connect.storage.SimpleHeaderConverter") {
    return options.Error("header.converter", fmt::format("is \"{}\"", header),
                         "outboxd writes headers as SimpleHeaderConverter does: remove it");
  }
  return absl::OkStatus();
}

// The one transform of the chain, which must be the Event Router; returns its alias.
absl::StatusOr<std::string> RouterAlias(ConnectorOptions& options) {
  const std::string chain = options.Get("transforms", "");
  std::vector<std::string> aliases;
  for (absl::string_view a : absl::StrSplit(chain, ',', absl::SkipWhitespace())) {
    aliases.emplace_back(absl::StripAsciiWhitespace(a));
  }
  std::string router;
  for (const std::string& alias : aliases) {
    const std::string type = options.Get(fmt::format("transforms.{}.type", alias), "");
    if (type == kEventRouter && router.empty()) {
      router = alias;
      continue;
    }
    // Turns a logical message's JSON into the row the router reads: what outboxd does for
    // message_prefixes anyway. Its one option (fields.null.include) changes nothing here: a
    // missing field and a null one are both NULL.
    if (type == kDecodeMessageContent && router.empty()) {
      options.TakePrefix(fmt::format("transforms.{}.", alias));
      continue;
    }
    return options.Error(
        fmt::format("transforms.{}.type", alias),
        fmt::format("is \"{}\": outboxd applies the Outbox Event Router only, once", type),
        "remove that transform from \"transforms\", or keep Debezium for this connector");
  }
  if (router.empty()) {
    return options.Error("transforms", "has no io.debezium.transforms.outbox.EventRouter",
                         "outboxd publishes outbox rows: add the Outbox Event Router, e.g. "
                         "\"transforms\": \"outbox\", \"transforms.outbox.type\": "
                         "\"io.debezium.transforms.outbox.EventRouter\"");
  }
  return router;
}

absl::Status RouterOption(ConnectorOptions& options, const std::string& full,
                          std::string_view option, TomlSection& out,
                          std::vector<std::string>& warnings) {
  const std::string value = *options.Find(full);
  for (const auto& [name, key] : kRouterStrings) {
    if (option == name) return out.String(key, value, full), absl::OkStatus();
  }
  for (const auto& [name, key] : kRouterBools) {
    if (option != name) continue;
    absl::StatusOr<std::string> b = Bool(options, full, value);
    if (!b.ok()) return b.status();
    return out.Raw(key, *b, full), absl::OkStatus();
  }
  for (std::string_view name : kRouterIgnored) {
    if (option == name) {
      warnings.push_back(fmt::format("{} ignored: outboxd does not trace", full));
      return absl::OkStatus();
    }
  }
  if (option == "type") return absl::OkStatus();
  if (option == "route.topic.replacement") {
    // Not expanded by ParseConfig: ${routedByValue} is the routing placeholder.
    return out.Raw("topic", TomlString(value, false), full), absl::OkStatus();
  }
  if (option == "table.fields.additional.placement") {
    std::string array = "[";
    for (absl::string_view e : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      e = absl::StripAsciiWhitespace(e);
      array += (array.size() > 1 ? ", " : "") + TomlString(std::string_view(e.data(), e.size()));
    }
    return out.Raw("additional_placement", array + "]", full), absl::OkStatus();
  }
  if (option == "table.op.invalid.behavior" || option == "debezium.op.invalid.behavior") {
    return out.String("op_invalid_behavior", value, full), absl::OkStatus();
  }
  if (option == "table.json.payload.null.behavior" && value == "ignore") {
    return absl::OkStatus();  // Debezium's default: a NULL payload stays a null value.
  }
  if (option == "table.fields.additional.error.on.missing") {
    warnings.push_back(
        fmt::format("{} ignored: outboxd checks at start that every listed column exists", full));
    return absl::OkStatus();
  }
  return options.Error(full, "is not supported by outboxd and may change the records",
                       "remove it, or keep Debezium for this connector "
                       "(docs/migrating-from-debezium.md lists every Event Router option)");
}

absl::Status Router(ConnectorOptions& options, TomlSection& out,
                    std::vector<std::string>& warnings) {
  absl::StatusOr<std::string> alias = RouterAlias(options);
  if (!alias.ok()) return alias.status();
  const std::string prefix = fmt::format("transforms.{}.", *alias);
  for (const std::string& full : options.TakePrefix(prefix)) {
    const std::string_view option = std::string_view(full).substr(prefix.size());
    if (option == "predicate" || option == "negate") {
      return options.Error(full, "applies the Event Router conditionally",
                           "outboxd routes every row of the listed tables: remove it");
    }
    if (auto s = RouterOption(options, full, option, out, warnings); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Connector options that change the records and that outboxd does not reproduce.
absl::Status Unsupported(ConnectorOptions& options) {
  const std::string binary = options.Get("binary.handling.mode", "bytes");
  if (binary != "bytes") {
    return options.Error("binary.handling.mode", fmt::format("is \"{}\"", binary),
                         "outboxd publishes bytea payloads as bytes: remove it");
  }
  for (std::string_view prefix : {"column.", "predicates", "message.key.columns"}) {
    std::vector<std::string> names = options.TakePrefix(prefix);
    if (!names.empty()) {
      return options.Error(names.front(), "is not supported by outboxd and may change the records",
                           "remove it, or keep Debezium for this connector");
    }
  }
  return absl::OkStatus();
}

}  // namespace

bool UsesAvroConverter(const TomlSection& out, std::string_view side) {
  const std::string line = fmt::format("{}_converter = \"avro\"", side);
  const std::string delegate = fmt::format("{}_converter_delegate = \"avro\"", side);
  for (const std::string& l : out.lines) {
    if (l.starts_with(line) || l.starts_with(delegate)) return true;
  }
  return false;
}

std::string AvroOptionPrefix(ConnectorOptions& options, std::string_view side) {
  const std::string name = fmt::format("{}.converter", side);
  const std::string* type = options.Find(name);
  // BinaryDataConverter configures its delegate with the options under its type's name.
  if (type != nullptr && *type == kBinaryDataConverter) return name + ".delegate.converter.type.";
  return name + ".";
}

absl::Status TranslateOutbox(ConnectorOptions& options, TomlSection& out,
                             std::vector<std::string>& warnings) {
  const std::string cls = options.Get("connector.class", "");
  if (cls != kPostgresConnector && cls != "PostgresConnector") {
    return options.Error("connector.class", fmt::format("is \"{}\"", cls),
                         fmt::format("outboxd replaces {} only", kPostgresConnector));
  }
  if (auto s = Router(options, out, warnings); !s.ok()) return s;
  if (auto s = Converters(options, out); !s.ok()) return s;
  if (auto s = Unsupported(options); !s.ok()) return s;
  absl::StatusOr<std::string> extended =
      Bool(options, "extended.headers.enabled", options.Get("extended.headers.enabled", "true"));
  if (!extended.ok()) return extended.status();
  out.Raw("extended_headers", *extended, "extended.headers.enabled (Debezium's default: true)");
  if (const std::string* prefix = options.Find("topic.prefix")) {
    out.String("logical_name", *prefix, "topic.prefix");
  } else {
    return options.Error("topic.prefix", "is missing", "add it (Debezium requires it too)");
  }
  // What Debezium does with empty and NULL keys (docs/migrating-from-debezium.md).
  out.String("empty_keys", "publish", "as Debezium");
  out.String("null_keys", "publish", "as Debezium");
  return absl::OkStatus();
}

}  // namespace outboxd::debezium_import::internal
