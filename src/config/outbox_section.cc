// [outbox]: the Outbox Event Router options, plus the Kafka Connect converter and connector
// settings that shape the records (docs/configuration.md "[outbox]").

#include <array>
#include <utility>

#include "absl/strings/match.h"
#include "config/sections.h"
#include "config/topic.h"
#include "config/topic_router.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kOutboxKeys[] = {"topic",
                                            "topic_regex",
                                            "id_column",
                                            "aggregate_type_column",
                                            "aggregate_id_column",
                                            "payload_column",
                                            "timestamp_column",
                                            "additional_placement",
                                            "tombstone_on_empty_payload",
                                            "expand_json_payload",
                                            "op_invalid_behavior",
                                            "key_converter",
                                            "value_converter",
                                            "value_converter_delegate",
                                            "extended_headers",
                                            "position_headers",
                                            "logical_name",
                                            "connector_name",
                                            "empty_keys",
                                            "null_keys",
                                            "dead_letter_topic",
                                            "validate_json",
                                            "format",
                                            "cloudevents_mode",
                                            "cloudevents_source",
                                            "type_column",
                                            "occurred_at_column",
                                            "correlation_id_column",
                                            "causation_id_column",
                                            "traceparent_column",
                                            "tracestate_column",
                                            "content_type_column"};
constexpr std::string_view kTopicExample = R"(topic = "outbox.event.${aggregatetype}")";
constexpr std::string_view kPlacementExample = R"(additional_placement = ["type:header:type"])";

constexpr std::array<std::pair<std::string_view, Converter>, 5> kConverters = {{
    {"string", Converter::kString},
    {"json", Converter::kJson},
    {"json_with_schema", Converter::kJsonWithSchema},
    {"bytes", Converter::kBytes},
    {"avro", Converter::kAvro},
}};
constexpr std::array<std::pair<std::string_view, Converter>, 5> kDelegates = {{
    {"none", Converter::kBytes},
    {"string", Converter::kString},
    {"json", Converter::kJson},
    {"json_with_schema", Converter::kJsonWithSchema},
    {"avro", Converter::kAvro},
}};

// expand_json_payload writes a struct, which the JSON and avro converters are reproduced for.
absl::Status CheckExpandJsonPayload(const SectionReader& reader, const OutboxConfig& out) {
  if (!out.expand_json_payload) return absl::OkStatus();
  const Converter converter = NonBytesValueConverter(out);
  if (converter == Converter::kString || converter == Converter::kBytes) {
    return reader.Error(
        "expand_json_payload",
        "is true, but the value converter is neither JSON nor avro: Debezium's expanded struct "
        "would be written by StringConverter as Struct{...} text (or refused by "
        "ByteArrayConverter), which outboxd does not reproduce",
        "write value_converter = \"json\", \"json_with_schema\" or \"avro\" (or "
        "value_converter_delegate under \"bytes\"), or expand_json_payload = false");
  }
  for (const AdditionalField& field : out.additional_placement) {
    if (field.placement != Placement::kEnvelope) continue;
    return reader.Error("expand_json_payload",
                        fmt::format("is true with the envelope placement of {}: Debezium names "
                                    "that envelope's schema per distinct payload schema, which "
                                    "outboxd does not reproduce yet",
                                    field.column),
                        "place the column as a header, or set expand_json_payload = false");
  }
  return absl::OkStatus();
}

// The avro converters (key, value or the value's delegate) write the raw format only.
absl::Status CheckAvro(const SectionReader& reader, const OutboxConfig& out) {
  if (!UsesAvro(out)) return absl::OkStatus();
  const std::string_view key = out.key_converter == Converter::kAvro ? "key_converter"
                               : out.value_converter == Converter::kAvro
                                   ? "value_converter"
                                   : "value_converter_delegate";
  if (out.format != Format::kRaw) {
    return reader.Error(
        key, "is \"avro\", which writes only format = \"raw\" (the Event Router's record)",
        "write format = \"raw\", or another converter");
  }
  return absl::OkStatus();
}

// value_converter = "bytes" and its delegate; a key is never bytes.
absl::Status ReadBytesConverter(const SectionReader& reader, OutboxConfig& out) {
  if (out.key_converter == Converter::kBytes) {
    return reader.Error(
        "key_converter",
        "is \"bytes\", but the key (the aggregate id) is text, which "
        "ByteArrayConverter refuses (Debezium's task fails on every row)",
        "write key_converter = \"string\" (or the converter that writes your keys)");
  }
  if (auto s =
          ReadChoice(reader, "value_converter_delegate", kDelegates, out.value_converter_delegate);
      !s.ok()) {
    return s;
  }
  if (out.value_converter_delegate != Converter::kBytes &&
      out.value_converter != Converter::kBytes) {
    return reader.Error("value_converter_delegate",
                        "is set, but value_converter is not \"bytes\" (BinaryDataConverter)",
                        "remove it, or write value_converter = \"bytes\"");
  }
  return absl::OkStatus();
}
constexpr std::array<std::pair<std::string_view, InvalidOpBehavior>, 3> kOpBehaviors = {{
    {"warn", InvalidOpBehavior::kWarn},
    {"error", InvalidOpBehavior::kError},
    {"fatal", InvalidOpBehavior::kFatal},
}};
constexpr std::array<std::pair<std::string_view, KeyPolicy>, 2> kKeyPolicies = {{
    {"dead_letter", KeyPolicy::kDeadLetter},
    {"publish", KeyPolicy::kPublish},
}};
constexpr std::array<std::pair<std::string_view, Placement>, 3> kPlacements = {{
    {"header", Placement::kHeader},
    {"envelope", Placement::kEnvelope},
    {"partition", Placement::kPartition},
}};

constexpr std::array<std::pair<std::string_view, Format>, 4> kFormats = {{
    {"raw", Format::kRaw},
    {"envelope-json", Format::kEnvelopeJson},
    {"envelope-protobuf", Format::kEnvelopeProtobuf},
    {"cloudevents", Format::kCloudEvents},
}};
constexpr std::array<std::pair<std::string_view, CloudEventsMode>, 2> kCloudEventsModes = {{
    {"binary", CloudEventsMode::kBinary},
    {"structured", CloudEventsMode::kStructured},
}};

// Compiles the route like the mapper will and checks the replacement's fixed characters; the
// routed value is checked per row by the mapper.
absl::Status ValidateTopic(const SectionReader& reader, const OutboxConfig& cfg) {
  absl::StatusOr<TopicRouter> router = TopicRouter::Create(cfg.topic_regex, cfg.topic);
  if (!router.ok()) {
    const absl::string_view message = router.status().message();
    // The regex's own errors belong to topic_regex, the rest to the replacement.
    const bool regex_error = absl::StartsWith(message, "does not compile") ||
                             absl::StrContains(message, "capturing groups");
    const std::string_view key = regex_error ? "topic_regex" : "topic";
    return reader.Error(
        key, std::string_view(message.data(), message.size()),
        fmt::format("write e.g. topic_regex = \"(?<routedByValue>.*)\" with {}", kTopicExample));
  }
  std::string fixed = router->literal_text();
  if (!router->fixed()) fixed.append("x");  // A routed value is at least one character.
  if (std::string problem = TopicNameProblem(fixed); !problem.empty()) {
    return reader.Error(
        "topic", fmt::format("\"{}\" cannot make a legal Kafka topic: {}", cfg.topic, problem),
        fmt::format("write e.g. {}", kTopicExample));
  }
  return absl::OkStatus();
}

// Debezium's "column:placement[:alias]"; a partition placement ignores the alias.
absl::Status ReadPlacements(const SectionReader& reader, std::vector<AdditionalField>& out) {
  std::vector<std::string> entries;
  bool present = false;
  if (auto s = reader.ReadStringArray("additional_placement", kPlacementExample, entries, present);
      !s.ok()) {
    return s;
  }
  for (const std::string& entry : entries) {
    std::vector<std::string_view> parts = Split(entry, ':');
    const bool shape_ok =
        (parts.size() == 2 || parts.size() == 3) &&
        std::none_of(parts.begin(), parts.end(), [](std::string_view p) { return p.empty(); });
    if (!shape_ok) {
      return reader.Error("additional_placement",
                          fmt::format("entry \"{}\" is not \"column:placement[:alias]\"", entry),
                          fmt::format("write e.g. {} (placement header, envelope or partition)",
                                      kPlacementExample));
    }
    AdditionalField field{std::string(parts[0]),
                          std::string(parts.size() == 3 ? parts[2] : parts[0])};
    auto it = std::find_if(kPlacements.begin(), kPlacements.end(),
                           [&](const auto& p) { return p.first == parts[1]; });
    if (it == kPlacements.end()) {
      return reader.Error(
          "additional_placement",
          fmt::format("entry \"{}\" uses placement \"{}\", which does not exist", entry, parts[1]),
          "use header, envelope or partition, e.g. \"type:header:eventType\"");
    }
    field.placement = it->second;
    out.push_back(std::move(field));
  }
  if (std::count_if(out.begin(), out.end(), [](const AdditionalField& f) {
        return f.placement == Placement::kPartition;
      }) > 1) {
    return reader.Error("additional_placement", "has more than one partition placement",
                        "keep one \"column:partition\" entry");
  }
  return absl::OkStatus();
}

absl::Status ReadColumn(const SectionReader& reader, std::string_view key,
                        std::string_view default_name, std::string& out) {
  const std::string example = fmt::format("{} = \"{}\"", key, default_name);
  if (auto s = reader.ReadString(key, example, out); !s.ok()) return s;
  if (out.empty()) return reader.Error(key, "is empty", fmt::format("write e.g. {}", example));
  return absl::OkStatus();
}

absl::Status ReadColumns(const SectionReader& reader, OutboxConfig& out) {
  const OutboxConfig defaults;
  for (auto [key, field, default_name] : {
           std::tuple{"id_column", &out.id_column, defaults.id_column},
           std::tuple{"aggregate_type_column", &out.aggregate_type_column,
                      defaults.aggregate_type_column},
           std::tuple{"aggregate_id_column", &out.aggregate_id_column,
                      defaults.aggregate_id_column},
           std::tuple{"payload_column", &out.payload_column, defaults.payload_column},
       }) {
    if (auto s = ReadColumn(reader, key, default_name, *field); !s.ok()) return s;
  }
  return reader.ReadString("timestamp_column", R"(timestamp_column = "created_at")",
                           out.timestamp_column);
}

// The event contract's format and mapping keys (docs/event-formats.md).
absl::Status ReadContract(const SectionReader& reader, OutboxConfig& out) {
  if (auto s = ReadChoice(reader, "format", kFormats, out.format); !s.ok()) return s;
  if (auto s = ReadChoice(reader, "cloudevents_mode", kCloudEventsModes, out.cloudevents_mode);
      !s.ok()) {
    return s;
  }
  constexpr std::string_view kSourceExample = R"(cloudevents_source = "/orders-service")";
  if (auto s = reader.ReadString("cloudevents_source", kSourceExample, out.cloudevents_source);
      !s.ok()) {
    return s;
  }
  // A URI-reference has no spaces or control characters (RFC 3986); catch the obvious slips.
  if (std::any_of(out.cloudevents_source.begin(), out.cloudevents_source.end(),
                  [](char c) { return static_cast<unsigned char>(c) <= ' '; })) {
    return reader.Error(
        "cloudevents_source",
        fmt::format("is \"{}\", which is not a URI-reference (it holds a space "
                    "or control character)",
                    out.cloudevents_source),
        fmt::format("write e.g. {} (percent-encode spaces as %20)", kSourceExample));
  }
  if (out.format != Format::kCloudEvents &&
      (reader.Has("cloudevents_mode") || reader.Has("cloudevents_source"))) {
    return reader.Error(reader.Has("cloudevents_mode") ? "cloudevents_mode" : "cloudevents_source",
                        "applies only to format = \"cloudevents\"",
                        "set format = \"cloudevents\" or remove the key");
  }
  for (auto [key, field] : {
           std::pair{"type_column", &out.type_column},
           std::pair{"occurred_at_column", &out.occurred_at_column},
           std::pair{"correlation_id_column", &out.correlation_id_column},
           std::pair{"causation_id_column", &out.causation_id_column},
           std::pair{"traceparent_column", &out.traceparent_column},
           std::pair{"tracestate_column", &out.tracestate_column},
           std::pair{"content_type_column", &out.content_type_column},
       }) {
    const std::string default_name = field->name;
    if (auto s = ReadColumn(reader, key, default_name, field->name); !s.ok()) return s;
    field->required = reader.Has(key);
  }
  return absl::OkStatus();
}

absl::Status ReadBools(const SectionReader& reader, OutboxConfig& out) {
  for (auto [key, field] : {
           std::pair{"tombstone_on_empty_payload", &out.tombstone_on_empty_payload},
           std::pair{"expand_json_payload", &out.expand_json_payload},
           std::pair{"extended_headers", &out.extended_headers},
           std::pair{"position_headers", &out.position_headers},
           std::pair{"validate_json", &out.validate_json},
       }) {
    if (auto s = reader.ReadBool(key, fmt::format("{} = false", key), *field); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status ReadChoices(const SectionReader& reader, OutboxConfig& out) {
  if (auto s = ReadChoice(reader, "key_converter", kConverters, out.key_converter); !s.ok()) {
    return s;
  }
  if (auto s = ReadChoice(reader, "value_converter", kConverters, out.value_converter); !s.ok()) {
    return s;
  }
  if (auto s = ReadBytesConverter(reader, out); !s.ok()) return s;
  if (auto s = CheckExpandJsonPayload(reader, out); !s.ok()) return s;
  if (auto s = ReadChoice(reader, "op_invalid_behavior", kOpBehaviors, out.op_invalid_behavior);
      !s.ok()) {
    return s;
  }
  if (auto s = ReadChoice(reader, "empty_keys", kKeyPolicies, out.empty_keys); !s.ok()) return s;
  return ReadChoice(reader, "null_keys", kKeyPolicies, out.null_keys);
}

absl::Status ReadConnector(const SectionReader& reader, OutboxConfig& out) {
  if (auto s = reader.ReadString("logical_name", R"(logical_name = "app")", out.logical_name);
      !s.ok()) {
    return s;
  }
  constexpr std::string_view kConnectorExample = R"(connector_name = "postgresql")";
  if (auto s = reader.ReadString("connector_name", kConnectorExample, out.connector_name);
      !s.ok()) {
    return s;
  }
  if (out.extended_headers && out.logical_name.empty()) {
    return reader.Error("extended_headers",
                        "is true but logical_name (the __debezium.context.connectorLogicalName "
                        "header) is not set",
                        "set logical_name to the connector's topic.prefix, e.g. "
                        "logical_name = \"app\"");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Span<const std::string_view> OutboxKeys() { return kOutboxKeys; }

absl::Status ReadOutbox(const SectionReader& reader, OutboxConfig& out) {
  if (auto s = reader.CheckKnownKeys(kOutboxKeys); !s.ok()) return s;
  if (auto s = reader.ReadString("topic", kTopicExample, out.topic); !s.ok()) return s;
  constexpr std::string_view kRegexExample = R"x(topic_regex = "(?<routedByValue>.*)")x";
  if (auto s = reader.ReadString("topic_regex", kRegexExample, out.topic_regex); !s.ok()) return s;
  if (auto s = ValidateTopic(reader, out); !s.ok()) return s;
  if (auto s = ReadColumns(reader, out); !s.ok()) return s;
  if (auto s = ReadPlacements(reader, out.additional_placement); !s.ok()) return s;
  if (auto s = ReadBools(reader, out); !s.ok()) return s;
  if (auto s = ReadChoices(reader, out); !s.ok()) return s;
  if (auto s = ReadConnector(reader, out); !s.ok()) return s;
  if (auto s = ReadContract(reader, out); !s.ok()) return s;
  if (auto s = CheckAvro(reader, out); !s.ok()) return s;
  constexpr std::string_view kDlqExample = R"(dead_letter_topic = "outbox.dlq")";
  if (auto s = reader.ReadString("dead_letter_topic", kDlqExample, out.dead_letter_topic);
      !s.ok()) {
    return s;
  }
  if (std::string problem = TopicNameProblem(out.dead_letter_topic); !problem.empty()) {
    return reader.Error("dead_letter_topic", fmt::format("is not a legal Kafka topic: {}", problem),
                        fmt::format("write e.g. {}", kDlqExample));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::config::internal
