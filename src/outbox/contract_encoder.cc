// Mapper's event-contract formats (README "Event formats"): the row becomes an outboxd.v1.Event
// (proto/outboxd/v1/event.proto), written as protobuf, as its canonical JSON or as a
// CloudEvent; and the W3C trace-context headers, which every format carries.

#include "common/log.h"
#include "fmt/format.h"
#include "outbox/contract_json.h"
#include "outbox/mapper.h"
#include "outbox/timestamp.h"
#include "outbox/trace_context.h"
#include "outboxd/v1/event.pb.h"

namespace outboxd::outbox {
namespace {

using config::Format;
using internal::kAbsent;
using internal::RelationLayout;
using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

// From 2000-01-01 (Postgres' epoch) to 1970-01-01, in microseconds.
constexpr int64_t kPostgresEpochMicros = 946684800LL * 1000000;

constexpr std::string_view kJsonType = "application/json";
constexpr std::string_view kTextType = "text/plain; charset=utf-8";
constexpr std::string_view kBinaryType = "application/octet-stream";
constexpr std::string_view kCloudEventsJsonType = "application/cloudevents+json";

std::optional<std::string_view> TextOrNullValue(const ColumnValue& value) {
  if (value.kind != ColumnKind::kText) return std::nullopt;
  return value.data;
}

void SetTime(int64_t unix_micros, google::protobuf::Timestamp& out) {
  int64_t seconds = unix_micros / 1000000;
  int64_t micros = unix_micros % 1000000;
  if (micros < 0) {  // Timestamp's nanos are never negative.
    micros += 1000000;
    --seconds;
  }
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(micros * 1000));
}

}  // namespace

void Mapper::AppendTraceHeaders(RelationLayout& layout, OutboxEvent& out) {
  traceparent_.reset();
  const ColumnValue parent = Value(layout.traceparent);
  if (parent.kind != ColumnKind::kText) return;
  if (!IsValidTraceparent(parent.data)) {
    ++invalid_traceparents_;
    if (!layout.traceparent_warned) {
      layout.traceparent_warned = true;
      log::Warn(
          "{} has a row whose {} column holds \"{}\", which is no W3C traceparent "
          "(00-<32 hex>-<16 hex>-<2 hex>); such values are not propagated (this is logged once "
          "per table)",
          layout.table, cfg_.traceparent_column.name, parent.data.substr(0, 80));
    }
    return;
  }
  traceparent_ = parent.data;
  out.headers.push_back(Header{"traceparent", parent.data});
  // tracestate means nothing without the traceparent it continues (W3C 3.3).
  const ColumnValue state = Value(layout.tracestate);
  if (state.kind == ColumnKind::kText) out.headers.push_back(Header{"tracestate", state.data});
}

absl::Status Mapper::FillEvent(RelationLayout& layout, std::optional<std::string_view> payload) {
  v1::Event& event = *event_;
  // Not Clear(): it deletes the submessages and the payload string, which the next row would
  // allocate again. Emptied strings keep their capacity, so a warm event allocates nothing.
  for (std::string* field :
       {event.mutable_id(), event.mutable_aggregate_type(), event.mutable_aggregate_id(),
        event.mutable_type(), event.mutable_correlation_id(), event.mutable_causation_id(),
        event.mutable_traceparent(), event.mutable_tracestate(), event.mutable_content_type()}) {
    field->clear();
  }
  if (!event.headers().empty()) event.mutable_headers()->clear();
  // Assigning through mutable_x() reuses the field's buffer, where set_x(std::string) would
  // build a temporary per field.
  auto assign = [&](int index, std::string* (v1::Event::*mutable_field)()) {
    const ColumnValue value = Value(index);
    if (value.kind == ColumnKind::kText) (event.*mutable_field)()->assign(value.data);
  };
  assign(layout.id, &v1::Event::mutable_id);
  assign(layout.aggregate_type, &v1::Event::mutable_aggregate_type);
  assign(layout.aggregate_id, &v1::Event::mutable_aggregate_id);
  assign(layout.type, &v1::Event::mutable_type);
  assign(layout.correlation_id, &v1::Event::mutable_correlation_id);
  assign(layout.causation_id, &v1::Event::mutable_causation_id);
  if (traceparent_) {
    event.mutable_traceparent()->assign(*traceparent_);
    assign(layout.tracestate, &v1::Event::mutable_tracestate);
  }
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != config::Placement::kHeader) continue;
    const ColumnValue value = Value(layout.placements[i]);
    if (value.kind != ColumnKind::kText) continue;
    (*event.mutable_headers())[cfg_.additional_placement[i].alias].assign(value.data);
  }
  const ColumnValue content_type = Value(layout.content_type);
  if (content_type.kind == ColumnKind::kText) {
    event.mutable_content_type()->assign(content_type.data);
  } else if (payload) {
    event.mutable_content_type()->assign(layout.payload_is_json    ? kJsonType
                                         : layout.payload_is_bytea ? kBinaryType
                                                                   : kTextType);
  }
  if (payload) {
    event.mutable_payload()->assign(*payload);  // Reuses the string while the oneof holds it.
  } else {
    event.clear_data();
  }

  const int64_t commit_micros = source_.commit_time_us + kPostgresEpochMicros;
  const ColumnValue occurred = Value(layout.occurred_at);
  if (occurred.kind == ColumnKind::kText) {
    const std::optional<int64_t> micros =
        ParseTimestampMicros(occurred.data, layout.occurred_at_has_zone);
    if (!micros) {
      return absl::InvalidArgumentError(fmt::format(
          "column {} holds \"{}\", which is no ISO timestamp outboxd can read (infinity, a BC "
          "date or a non-ISO DateStyle)",
          cfg_.occurred_at_column.name, occurred.data));
    }
    SetTime(*micros, *event.mutable_occurred_at());
  } else if (source_.commit_time_us != 0) {
    SetTime(commit_micros, *event.mutable_occurred_at());
  } else {
    event.clear_occurred_at();
  }
  // A non-transactional logical message has no commit: no xid, no commit time.
  v1::SourcePosition& source = *event.mutable_source();
  source.set_commit_lsn(source_.commit_lsn.value());
  source.set_lsn(source_.lsn.value());
  source.set_xid(source_.xid.value);
  if (source_.commit_time_us != 0) {
    SetTime(commit_micros, *source.mutable_commit_time());
  } else {
    source.clear_commit_time();
  }
  if (message_prefix_.empty()) {
    source.mutable_table()->assign(layout.table);
    source.mutable_message_prefix()->clear();
  } else {
    source.mutable_table()->clear();
    source.mutable_message_prefix()->assign(message_prefix_);
  }
  return absl::OkStatus();
}

absl::Status Mapper::EncodeContract(RelationLayout& layout, OutboxEvent& out) {
  std::optional<std::string_view> payload;
  bool tombstone = false;
  if (auto s = ReadPayload(layout, out, payload, tombstone); !s.ok()) return s;
  out.headers.erase(out.headers.begin(), out.headers.end());
  if (cfg_.format != Format::kCloudEvents) {
    out.headers.push_back(Header{"id", TextOrNullValue(Value(layout.id))});
  }
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != config::Placement::kHeader) continue;
    out.headers.push_back(
        Header{cfg_.additional_placement[i].alias, TextOrNullValue(Value(layout.placements[i]))});
  }
  AppendTraceHeaders(layout, out);
  if (auto s = FillEvent(layout, payload); !s.ok()) return s;
  const v1::Event& event = *event_;
  if (cfg_.format == Format::kCloudEvents && (event.id().empty() || event.type().empty())) {
    // CloudEvents requires both attributes non-empty (spec 1.0, "REQUIRED Attributes").
    return absl::InvalidArgumentError(
        fmt::format("column {} is NULL or empty; a CloudEvent needs a non-empty ce_{}",
                    event.id().empty() ? cfg_.id_column : cfg_.type_column.name,
                    event.id().empty() ? "id" : "type"));
  }
  if (tombstone) {
    out.value.reset();
    return absl::OkStatus();
  }
  switch (cfg_.format) {
    case Format::kEnvelopeProtobuf:
      event.SerializeToString(&out.owned_value);
      out.value = out.owned_value;
      break;
    case Format::kEnvelopeJson:
      out.owned_value.clear();
      AppendEventJson(event, layout.payload_is_json, out.owned_value);
      out.value = out.owned_value;
      break;
    case Format::kCloudEvents:
      EncodeCloudEvent(layout, out);
      break;
    case Format::kRaw:
      break;
  }
  return absl::OkStatus();
}

void Mapper::EncodeCloudEvent(const RelationLayout& layout, OutboxEvent& out) {
  const v1::Event& event = *event_;
  // The header values that are not column views live in owned_headers; views are taken once
  // it is complete, as appending may move it.
  std::string& owned = out.owned_headers;
  owned.clear();
  if (cfg_.cloudevents_source.empty()) {
    owned.append("/outboxd/").append(message_prefix_.empty() ? layout.table : message_prefix_);
  } else {
    owned.append(cfg_.cloudevents_source);
  }
  const size_t source_size = owned.size();
  const std::string_view source = std::string_view(owned).substr(0, source_size);
  if (cfg_.cloudevents_mode == config::CloudEventsMode::kStructured) {
    out.owned_value.clear();
    AppendCloudEventJson(event, source, layout.payload_is_json, out.owned_value);
    out.value = out.owned_value;
    out.headers.push_back(Header{"content-type", kCloudEventsJsonType});
    return;
  }
  if (event.has_occurred_at()) AppendRfc3339(UnixMicros(event.occurred_at()), owned);
  const std::string_view all = owned;
  auto optional = [&](std::string_view name, const std::string& value) {
    if (!value.empty()) out.headers.push_back(Header{name, value});
  };
  out.headers.push_back(Header{"ce_specversion", "1.0"});
  out.headers.push_back(Header{"ce_id", event.id()});
  out.headers.push_back(Header{"ce_source", all.substr(0, source_size)});
  out.headers.push_back(Header{"ce_type", event.type()});
  if (event.has_occurred_at()) out.headers.push_back(Header{"ce_time", all.substr(source_size)});
  optional("ce_subject", event.aggregate_id());
  optional("content-type", event.content_type());
  optional("ce_correlationid", event.correlation_id());
  optional("ce_causationid", event.causation_id());
  if (event.data_case() == v1::Event::kPayload) {
    out.value = event.payload();
  } else {
    out.value.reset();
  }
}

}  // namespace outboxd::outbox
