// The contract formats' shared steps, and the two envelope formats: envelope-protobuf and
// envelope-json.

#include "encoding/contract_encoder.h"

#include <algorithm>
#include <memory>

#include "encoding/encoder_parts.h"
#include "encoding/envelope/contract_json.h"
#include "encoding/envelope/contract_protobuf.h"
#include "fmt/format.h"
#include "outbox/timestamp.h"

namespace outboxd::encoding::internal {

using outbox::ContractEvent;
using outbox::ContractSource;
using outbox::Encoder;
using outbox::MappedRow;
using outbox::OutboxEvent;
using outbox::ParseTimestampMicros;
using outbox::internal::RelationLayout;

namespace {

using pgoutput::ColumnKind;
using pgoutput::ColumnValue;

// From 2000-01-01 (Postgres' epoch) to 1970-01-01, in microseconds.
constexpr int64_t kPostgresEpochMicros = 946684800LL * 1000000;

constexpr std::string_view kJsonType = "application/json";
constexpr std::string_view kTextType = "text/plain; charset=utf-8";
constexpr std::string_view kBinaryType = "application/octet-stream";

class EnvelopeProtobufEncoder final : public ContractEncoder {
 public:
  explicit EnvelopeProtobufEncoder(const config::OutboxConfig& cfg) : ContractEncoder(cfg, true) {}

 private:
  void EncodeEvent(const MappedRow& row, OutboxEvent& out) const override {
    const ContractEvent& event = row.contract;
    EncodeIntoOwnedValue(event, out, [&](std::string& to) { AppendEventProtobuf(event, to); });
  }
};

class EnvelopeJsonEncoder final : public ContractEncoder {
 public:
  explicit EnvelopeJsonEncoder(const config::OutboxConfig& cfg) : ContractEncoder(cfg, true) {}

 private:
  void EncodeEvent(const MappedRow& row, OutboxEvent& out) const override {
    const ContractEvent& event = row.contract;
    EncodeIntoOwnedValue(event, out, [&](std::string& to) {
      AppendEventJson(event, row.layout.payload_is_json, to);
    });
  }
};

}  // namespace

absl::Status ContractEncoder::Encode(const MappedRow& row, OutboxEvent& out) const {
  EncodeKey(cfg_, row, out);
  out.ClearHeaders();
  if (id_header_) out.headers.push_back(Header{"id", row.Text(row.layout.id)});
  AppendPlacementHeaders(cfg_, row, out);
  AppendTraceHeaders(row, out);
  if (auto s = FillEvent(row); !s.ok()) return s;
  if (auto s = Check(row.contract); !s.ok()) return s;
  if (row.tombstone) {
    out.value.reset();
    return absl::OkStatus();
  }
  EncodeEvent(row, out);
  return absl::OkStatus();
}

absl::Status ContractEncoder::Check(const ContractEvent& /*event*/) const {
  return absl::OkStatus();
}

absl::Status ContractEncoder::FillEvent(const MappedRow& row) const {
  const RelationLayout& layout = row.layout;
  ContractEvent& event = row.contract;
  auto text = [&](int index) { return row.Text(index).value_or(std::string_view()); };
  event.id = text(layout.id);
  event.aggregate_type = text(layout.aggregate_type);
  event.aggregate_id = text(layout.aggregate_id);
  event.type = text(layout.type);
  event.correlation_id = text(layout.correlation_id);
  event.causation_id = text(layout.causation_id);
  event.traceparent = row.traceparent.value_or(std::string_view());
  event.tracestate = row.traceparent ? text(layout.tracestate) : std::string_view();
  event.headers.clear();
  for (size_t i = 0; i < layout.placements.size(); ++i) {
    if (cfg_.additional_placement[i].placement != config::Placement::kHeader) continue;
    const ColumnValue value = row.Value(layout.placements[i]);
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
  const ColumnValue content_type = row.Value(layout.content_type);
  if (content_type.kind == ColumnKind::kText) {
    event.content_type = content_type.data;
  } else if (row.payload) {
    event.content_type = layout.payload_is_json    ? kJsonType
                         : layout.payload_is_bytea ? kBinaryType
                                                   : kTextType;
  } else {
    event.content_type = {};
  }
  event.payload = row.payload;

  // A non-transactional logical message has no commit: no xid, no commit time.
  std::optional<int64_t> commit_micros;
  if (row.source.commit_time_us != 0) {
    commit_micros = row.source.commit_time_us + kPostgresEpochMicros;
  }
  const ColumnValue occurred = row.Value(layout.occurred_at);
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
  source.commit_lsn = row.source.commit_lsn.value();
  source.lsn = row.source.lsn.value();
  source.xid = row.source.xid.value;
  source.commit_time_us = commit_micros;
  source.table = row.message_prefix.empty() ? std::string_view(layout.table) : std::string_view();
  source.message_prefix = row.message_prefix;
  return absl::OkStatus();
}

std::unique_ptr<const Encoder> NewEnvelopeProtobufEncoder(const config::OutboxConfig& cfg) {
  return std::make_unique<const EnvelopeProtobufEncoder>(cfg);
}

std::unique_ptr<const Encoder> NewEnvelopeJsonEncoder(const config::OutboxConfig& cfg) {
  return std::make_unique<const EnvelopeJsonEncoder>(cfg);
}

}  // namespace outboxd::encoding::internal
