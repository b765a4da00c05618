#include "encoding/envelope/contract_json.h"

#include "encoding/debezium/converter.h"
#include "fmt/format.h"
#include "outbox/timestamp.h"

namespace outboxd::encoding {

using outbox::AppendRfc3339;
using outbox::ContractEvent;
using outbox::ContractSource;

namespace {

// Writes `"name":` preceded by a comma unless it is the object's first member.
class ObjectWriter {
 public:
  explicit ObjectWriter(std::string& out) : out_(out) { out_.push_back('{'); }
  ~ObjectWriter() { out_.push_back('}'); }
  ObjectWriter(const ObjectWriter&) = delete;
  ObjectWriter& operator=(const ObjectWriter&) = delete;

  std::string& Name(std::string_view name) {
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('"');
    out_.append(name);  // Names are fixed ASCII identifiers here; no escaping needed.
    out_.append("\":");
    return out_;
  }
  // A string member, left out when empty (proto3's default).
  void String(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    AppendJsonString(value, Name(name));
  }
  void Time(std::string_view name, int64_t unix_micros) {
    std::string& out = Name(name);
    out.push_back('"');
    AppendRfc3339(unix_micros, out);
    out.push_back('"');
  }
  void Base64(std::string_view name, std::string_view bytes) {
    std::string& out = Name(name);
    out.push_back('"');
    AppendBase64(bytes, out);
    out.push_back('"');
  }

 private:
  std::string& out_;
  bool first_ = true;
};

void AppendSource(const ContractSource& source, std::string& out) {
  ObjectWriter object(out);
  // uint64 is a JSON string in the mapping (JavaScript numbers stop at 2^53).
  if (source.commit_lsn != 0)
    fmt::format_to(std::back_inserter(object.Name("commitLsn")), "\"{}\"", source.commit_lsn);
  if (source.lsn != 0) fmt::format_to(std::back_inserter(object.Name("lsn")), "\"{}\"", source.lsn);
  if (source.xid != 0) fmt::format_to(std::back_inserter(object.Name("xid")), "{}", source.xid);
  if (source.commit_time_us) object.Time("commitTime", *source.commit_time_us);
  object.String("table", source.table);
  object.String("messagePrefix", source.message_prefix);
}

}  // namespace

void AppendEventJson(const ContractEvent& event, bool payload_is_json, std::string& out) {
  ObjectWriter object(out);
  object.String("id", event.id);
  object.String("aggregateType", event.aggregate_type);
  object.String("aggregateId", event.aggregate_id);
  object.String("type", event.type);
  if (event.occurred_at_us) object.Time("occurredAt", *event.occurred_at_us);
  object.String("correlationId", event.correlation_id);
  object.String("causationId", event.causation_id);
  object.String("traceparent", event.traceparent);
  object.String("tracestate", event.tracestate);
  if (!event.headers.empty()) {
    ObjectWriter headers(object.Name("headers"));
    for (const auto& [name, value] : event.headers) AppendJsonString(value, headers.Name(name));
  }
  object.String("contentType", event.content_type);
  if (event.payload) {
    if (payload_is_json) {
      object.Name("payloadJson").append(*event.payload);  // Postgres validated it as JSON.
    } else {
      object.Base64("payload", *event.payload);
    }
  }
  AppendSource(event.source, object.Name("source"));
}

void AppendCloudEventJson(const ContractEvent& event, std::string_view source, bool payload_is_json,
                          std::string& out) {
  ObjectWriter object(out);
  object.Name("specversion").append("\"1.0\"");
  object.String("id", event.id);
  object.String("source", source);
  object.String("type", event.type);
  object.String("subject", event.aggregate_id);
  if (event.occurred_at_us) object.Time("time", *event.occurred_at_us);
  object.String("datacontenttype", event.content_type);
  object.String("correlationid", event.correlation_id);
  object.String("causationid", event.causation_id);
  if (event.payload) {
    if (payload_is_json) {
      object.Name("data").append(*event.payload);
    } else {
      object.Base64("data_base64", *event.payload);
    }
  }
}

}  // namespace outboxd::encoding
