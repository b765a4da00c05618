// format = "cloudevents": the contract's event as a CloudEvent 1.0 under the Kafka protocol
// binding, in binary mode (ce_* headers, the payload as the value) or structured mode (one
// application/cloudevents+json value).

#include <memory>
#include <string>

#include "encoding/contract_encoder.h"
#include "encoding/encoder_parts.h"
#include "encoding/envelope/contract_json.h"
#include "fmt/format.h"
#include "outbox/timestamp.h"

namespace outboxd::encoding::internal {

using outbox::AppendRfc3339;
using outbox::ContractEvent;
using outbox::Encoder;
using outbox::MappedRow;
using outbox::OutboxEvent;

namespace {

constexpr std::string_view kCloudEventsJsonType = "application/cloudevents+json";

// What both modes share: no "id" header (ce_id carries it), the required attributes, and
// ce_source.
class CloudEventsEncoder : public ContractEncoder {
 protected:
  explicit CloudEventsEncoder(const config::OutboxConfig& cfg) : ContractEncoder(cfg, false) {}

  absl::Status Check(const ContractEvent& event) const override {
    if (!event.id.empty() && !event.type.empty()) return absl::OkStatus();
    // CloudEvents requires both attributes non-empty (spec 1.0, "REQUIRED Attributes").
    return absl::InvalidArgumentError(
        fmt::format("column {} is NULL or empty; a CloudEvent needs a non-empty ce_{}",
                    event.id.empty() ? cfg_.id_column : cfg_.type_column.name,
                    event.id.empty() ? "id" : "type"));
  }

  // Replaces `owned` with the event's source: cloudevents_source, else "/outboxd/" and the
  // table (or the message prefix).
  void AssignSource(const MappedRow& row, std::string& owned) const {
    owned.clear();
    if (cfg_.cloudevents_source.empty()) {
      owned.append("/outboxd/")
          .append(row.message_prefix.empty() ? row.layout.table : row.message_prefix);
    } else {
      owned.append(cfg_.cloudevents_source);
    }
  }
};

class StructuredEncoder final : public CloudEventsEncoder {
 public:
  explicit StructuredEncoder(const config::OutboxConfig& cfg) : CloudEventsEncoder(cfg) {}

 private:
  void EncodeEvent(const MappedRow& row, OutboxEvent& out) const override {
    const ContractEvent& event = row.contract;
    // ce_source lives in owned_headers; owned_value (and scratch) carry the value.
    AssignSource(row, out.owned_headers);
    const std::string_view source = out.owned_headers;
    EncodeIntoOwnedValue(event, out, [&](std::string& to) {
      AppendCloudEventJson(event, source, row.layout.payload_is_json, to);
    });
    out.headers.push_back(Header{"content-type", kCloudEventsJsonType});
  }
};

class BinaryEncoder final : public CloudEventsEncoder {
 public:
  explicit BinaryEncoder(const config::OutboxConfig& cfg) : CloudEventsEncoder(cfg) {}

 private:
  void EncodeEvent(const MappedRow& row, OutboxEvent& out) const override {
    const ContractEvent& event = row.contract;
    // The header values that are not column views live in owned_headers; views are taken once
    // it is complete, as appending may move it.
    std::string& owned = out.owned_headers;
    AssignSource(row, owned);
    const size_t source_size = owned.size();
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
};

}  // namespace

std::unique_ptr<const Encoder> NewCloudEventsEncoder(const config::OutboxConfig& cfg) {
  switch (cfg.cloudevents_mode) {
    case config::CloudEventsMode::kBinary:
      return std::make_unique<const BinaryEncoder>(cfg);
    case config::CloudEventsMode::kStructured:
      return std::make_unique<const StructuredEncoder>(cfg);
  }
  return nullptr;  // Unreachable: the switch covers every mode.
}

}  // namespace outboxd::encoding::internal
