// [outbox]: the Outbox Event Router options.

#include "config/sections.h"
#include "config/topic.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kOutboxKeys[] = {"topic",
                                            "id_column",
                                            "aggregate_type_column",
                                            "aggregate_id_column",
                                            "payload_column",
                                            "additional_placement",
                                            "tombstone_on_empty_payload",
                                            "dead_letter_topic",
                                            "validate_json"};
constexpr std::string_view kTopicExample = R"(topic = "outbox.event.${aggregatetype}")";
constexpr std::string_view kPlacementExample = R"(additional_placement = ["type:header:type"])";

// Checks the fixed parts of the pattern; the routed value is checked per row by the mapper.
absl::Status ValidateTopic(const SectionReader& reader, const std::string& topic) {
  const TopicTemplate parts = SplitTopicPattern(topic);
  if (parts.placeholder_count > 1) {
    return reader.Error("topic", fmt::format("has {} placeholders", parts.placeholder_count),
                        "use ${aggregatetype} once, or none for a fixed topic");
  }
  std::string fixed(parts.prefix);
  fixed.append(parts.suffix);
  if (parts.routed) fixed.append("x");  // The routed value is at least one character.
  if (const size_t brace = fixed.find("${"); brace != std::string::npos) {
    const size_t close = fixed.find('}', brace);
    const size_t length = close == std::string::npos ? std::string::npos : close - brace + 1;
    return reader.Error(
        "topic", fmt::format("has an unknown placeholder \"{}\"", fixed.substr(brace, length)),
        "use ${aggregatetype} (or its alias ${routedByValue})");
  }
  if (std::string problem = TopicNameProblem(fixed); !problem.empty()) {
    return reader.Error("topic",
                        fmt::format("\"{}\" cannot make a legal Kafka topic: {}", topic, problem),
                        fmt::format("write e.g. {}", kTopicExample));
  }
  return absl::OkStatus();
}

// Debezium's "column:placement[:alias]"; only the header placement exists here.
absl::Status ReadPlacements(const SectionReader& reader, std::vector<HeaderPlacement>& out) {
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
                          fmt::format("entry \"{}\" is not \"column:header[:alias]\"", entry),
                          fmt::format("write e.g. {}", kPlacementExample));
    }
    if (parts[1] != "header") {
      // The alias goes through fmt rather than `":" + std::string(alias)`: GCC 12 at -O2/-O3
      // inlines that operator+ into a memcpy it wrongly reports as overlapping (-Wrestrict,
      // GCC bug 105329), which broke the Release build.
      const std::string_view alias_sep = parts.size() == 3 ? ":" : "";
      const std::string_view alias = parts.size() == 3 ? parts[2] : "";
      return reader.Error(
          "additional_placement",
          fmt::format("entry \"{}\" uses placement \"{}\", which outboxd does not support", entry,
                      parts[1]),
          fmt::format("place the column as a header instead: \"{}:header{}{}\"", parts[0],
                      alias_sep, alias));
    }
    out.push_back({std::string(parts[0]), std::string(parts.size() == 3 ? parts[2] : parts[0])});
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

}  // namespace

absl::Status ReadOutbox(const SectionReader& reader, OutboxConfig& out) {
  if (auto s = reader.CheckKnownKeys(kOutboxKeys); !s.ok()) return s;
  if (auto s = reader.ReadString("topic", kTopicExample, out.topic); !s.ok()) return s;
  if (auto s = ValidateTopic(reader, out.topic); !s.ok()) return s;
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
  if (auto s = ReadPlacements(reader, out.additional_placement); !s.ok()) return s;
  if (auto s = reader.ReadBool("tombstone_on_empty_payload", "tombstone_on_empty_payload = false",
                               out.tombstone_on_empty_payload);
      !s.ok()) {
    return s;
  }
  constexpr std::string_view kDlqExample = R"(dead_letter_topic = "outbox.dlq")";
  if (auto s = reader.ReadString("dead_letter_topic", kDlqExample, out.dead_letter_topic);
      !s.ok()) {
    return s;
  }
  if (std::string problem = TopicNameProblem(out.dead_letter_topic); !problem.empty()) {
    return reader.Error("dead_letter_topic", fmt::format("is not a legal Kafka topic: {}", problem),
                        fmt::format("write e.g. {}", kDlqExample));
  }
  return reader.ReadBool("validate_json", "validate_json = false", out.validate_json);
}

}  // namespace outboxd::config::internal
