// What every format shares: the converted key, placed headers, trace-context headers and the
// raw envelope's schema name.

#include "encoding/encoder_parts.h"

#include "encoding/debezium/converter.h"
#include "fmt/format.h"

namespace outboxd::encoding::internal {

using outbox::MappedRow;
using outbox::OutboxEvent;
using outbox::internal::RelationLayout;

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

const std::string& EnvelopeSchemaName(const config::OutboxConfig& cfg, const MappedRow& row) {
  RelationLayout& layout = row.layout;
  if (layout.value_schema_name.empty()) {
    const size_t dot = layout.table.find('.');
    layout.value_schema_name =
        fmt::format("{}.{}.{}.{}.Value", cfg.logical_name, layout.table.substr(0, dot),
                    layout.table.substr(dot + 1), row.Value(layout.aggregate_type).data);
  }
  return layout.value_schema_name;
}

}  // namespace outboxd::encoding::internal
