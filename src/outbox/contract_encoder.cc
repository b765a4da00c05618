// Mapper's event-contract formats (README "Event formats"): the row becomes an outboxd.v1.Event
// (proto/outboxd/v1/event.proto), written as protobuf, as its canonical JSON or as a
// CloudEvent; and the W3C trace-context headers, which every format carries.

#include <algorithm>

#include "common/log.h"
#include "fmt/format.h"
#include "outbox/contract_json.h"
#include "outbox/contract_protobuf.h"
#include "outbox/mapper.h"
#include "outbox/timestamp.h"
#include "outbox/trace_context.h"

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

// Sets out.value to what `encode` appends to an empty owned_value. A bytea payload was decoded
// into owned_value itself: then it is encoded into scratch and the two swapped.
template <typename Encode>
void EncodeIntoOwnedValue(const ContractEvent& event, OutboxEvent& out, Encode encode) {
  const bool payload_is_owned = event.payload && event.payload->data() == out.owned_value.data();
  std::string& target = payload_is_owned ? out.scratch : out.owned_value;
  target.clear();
  encode(target);
  if (payload_is_owned) out.owned_value.swap(out.scratch);
  out.value = out.owned_value;
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
  ContractEvent& event = event_;
  auto text = [&](int index) { return TextOrNullValue(Value(index)).value_or(std::string_view()); };
  event.id = text(layout.id);
  event.aggregate_type = text(layout.aggregate_type);
  event.aggregate_id = text(layout.aggregate_id);
  event.type = text(layout.type);
  event.correlation_id = text(layout.correlation_id);
  event.causation_id = text(layout.causation_id);
  event.traceparent = traceparent_.value_or(std::string_view());
  event.tracestate = traceparent_ ? text(layout.tracestate) : std::string_view();
  event.headers.clear();
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != config::Placement::kHeader) continue;
    const ColumnValue value = Value(layout.placements[i]);
    if (value.kind != ColumnKind::kText) continue;
    const std::string_view name = cfg_.additional_placement[i].alias;
    auto same = std::find_if(event.headers.begin(), event.headers.end(),
                             [&](const auto& header) { return header.first == name; });
    if (same == event.headers.end()) {
      event.headers.emplace_back(name, value.data);
    } else {
      same->second = value.data;  // A map keeps a repeated key's last value.
    }
  }
  const ColumnValue content_type = Value(layout.content_type);
  if (content_type.kind == ColumnKind::kText) {
    event.content_type = content_type.data;
  } else if (payload) {
    event.content_type = layout.payload_is_json    ? kJsonType
                         : layout.payload_is_bytea ? kBinaryType
                                                   : kTextType;
  } else {
    event.content_type = {};
  }
  event.payload = payload;

  // A non-transactional logical message has no commit: no xid, no commit time.
  std::optional<int64_t> commit_micros;
  if (source_.commit_time_us != 0) commit_micros = source_.commit_time_us + kPostgresEpochMicros;
  const ColumnValue occurred = Value(layout.occurred_at);
  if (occurred.kind == ColumnKind::kText) {
    event.occurred_at_us = ParseTimestampMicros(occurred.data, layout.occurred_at_has_zone);
    if (!event.occurred_at_us) {
      return absl::InvalidArgumentError(fmt::format(
          "column {} holds \"{}\", which is no ISO timestamp outboxd can read (infinity, a BC "
          "date or a non-ISO DateStyle)",
          cfg_.occurred_at_column.name, occurred.data));
    }
  } else {
    event.occurred_at_us = commit_micros;
  }
  ContractSource& source = event.source;
  source.commit_lsn = source_.commit_lsn.value();
  source.lsn = source_.lsn.value();
  source.xid = source_.xid.value;
  source.commit_time_us = commit_micros;
  source.table = message_prefix_.empty() ? std::string_view(layout.table) : std::string_view();
  source.message_prefix = message_prefix_;
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
  const ContractEvent& event = event_;
  if (cfg_.format == Format::kCloudEvents && (event.id.empty() || event.type.empty())) {
    // CloudEvents requires both attributes non-empty (spec 1.0, "REQUIRED Attributes").
    return absl::InvalidArgumentError(
        fmt::format("column {} is NULL or empty; a CloudEvent needs a non-empty ce_{}",
                    event.id.empty() ? cfg_.id_column : cfg_.type_column.name,
                    event.id.empty() ? "id" : "type"));
  }
  if (tombstone) {
    out.value.reset();
    return absl::OkStatus();
  }
  switch (cfg_.format) {
    case Format::kEnvelopeProtobuf:
      EncodeIntoOwnedValue(event, out, [&](std::string& to) { AppendEventProtobuf(event, to); });
      break;
    case Format::kEnvelopeJson:
      EncodeIntoOwnedValue(
          event, out, [&](std::string& to) { AppendEventJson(event, layout.payload_is_json, to); });
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
  const ContractEvent& event = event_;
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
    EncodeIntoOwnedValue(event, out, [&](std::string& to) {
      AppendCloudEventJson(event, source, layout.payload_is_json, to);
    });
    out.headers.push_back(Header{"content-type", kCloudEventsJsonType});
    return;
  }
  if (event.occurred_at_us) AppendRfc3339(*event.occurred_at_us, owned);
  const std::string_view all = owned;
  auto optional = [&](std::string_view name, std::string_view value) {
    if (!value.empty()) out.headers.push_back(Header{name, value});
  };
  out.headers.push_back(Header{"ce_specversion", "1.0"});
  out.headers.push_back(Header{"ce_id", event.id});
  out.headers.push_back(Header{"ce_source", all.substr(0, source_size)});
  out.headers.push_back(Header{"ce_type", event.type});
  if (event.occurred_at_us) out.headers.push_back(Header{"ce_time", all.substr(source_size)});
  optional("ce_subject", event.aggregate_id);
  optional("content-type", event.content_type);
  optional("ce_correlationid", event.correlation_id);
  optional("ce_causationid", event.causation_id);
  out.value = event.payload;
}

}  // namespace outboxd::outbox
