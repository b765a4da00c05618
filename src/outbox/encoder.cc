// CreateEncoder, the one place that reads [outbox] format, and the parts all formats share.

#include "outbox/encoder.h"

#include <chrono>
#include <random>

#include "fmt/format.h"
#include "outbox/converter.h"
#include "outbox/encoder_parts.h"

namespace outboxd::outbox {

std::string ProcessRunId() {
  static const std::string run_id = [] {
    // RFC 9562 version 7: 48 bits of Unix milliseconds, then random bits.
    const auto ms = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
    std::random_device device;
    std::mt19937_64 random((static_cast<uint64_t>(device()) << 32) ^ device());
    const uint64_t high = (ms << 16) | 0x7000 | (random() & 0x0FFF);
    const uint64_t low = (random() & 0x3FFFFFFFFFFFFFFFull) | 0x8000000000000000ull;
    return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xFFFF,
                       high & 0xFFFF, low >> 48, low & 0xFFFFFFFFFFFFull);
  }();
  return run_id;
}

std::unique_ptr<const Encoder> CreateEncoder(const config::OutboxConfig& cfg, std::string run_id,
                                             SchemaIds* schema_ids) {
  switch (cfg.format) {
    case config::Format::kRaw:
      return internal::NewRawEncoder(cfg, std::move(run_id), schema_ids);
    case config::Format::kEnvelopeJson:
      return internal::NewEnvelopeJsonEncoder(cfg);
    case config::Format::kEnvelopeProtobuf:
      return internal::NewEnvelopeProtobufEncoder(cfg);
    case config::Format::kCloudEvents:
      return internal::NewCloudEventsEncoder(cfg);
  }
  return nullptr;  // Unreachable: the switch covers every Format.
}

namespace internal {

void EncodeKey(const config::OutboxConfig& cfg, const MappedRow& row, OutboxEvent& out) {
  const std::optional<std::string_view> key = row.Text(row.layout.aggregate_id);
  if (cfg.key_converter == config::Converter::kString) {
    out.key = key;  // StringConverter: the text, or a null key.
    return;
  }
  std::string& buffer = out.owned_key;
  buffer.clear();
  const bool with_schema = cfg.key_converter == config::Converter::kJsonWithSchema;
  if (with_schema) {
    buffer.append(R"({"schema":)");
    AppendSchema(*row.layout.key_schema, buffer);
    buffer.append(R"(,"payload":)");
  }
  AppendJsonValue(*row.layout.key_schema, key, out.scratch, buffer);  // Keys are never bytea.
  if (with_schema) buffer.push_back('}');
  out.key = buffer;
}

void AppendPlacementHeaders(const config::OutboxConfig& cfg, const MappedRow& row,
                            OutboxEvent& out) {
  const RelationLayout& layout = row.layout;
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg.additional_placement[i].placement != config::Placement::kHeader) continue;
    out.headers.push_back(
        Header{cfg.additional_placement[i].alias, row.Text(layout.placements[i])});
  }
}

void AppendTraceHeaders(const MappedRow& row, OutboxEvent& out) {
  if (!row.traceparent) return;
  out.headers.push_back(Header{"traceparent", *row.traceparent});
  // tracestate means nothing without the traceparent it continues (W3C 3.3).
  if (std::optional<std::string_view> state = row.Text(row.layout.tracestate)) {
    out.headers.push_back(Header{"tracestate", *state});
  }
}

}  // namespace internal
}  // namespace outboxd::outbox
