#include "position/position_store.h"

#include <chrono>
#include <map>

#include "common/strings.h"
#include "position/topic_reader.h"

namespace outboxd::position {
namespace {

// Reading the record at start: a local broker answers in milliseconds; an unreachable one
// should be reported (and retried) within seconds, not hold the start-up for long.
constexpr int kTimeoutMs = 5'000;

// Settings that say how to reach and authenticate to the brokers; producer tuning
// (linger.ms, acks, ...) does not apply to this store and would only make librdkafka warn.
bool IsConnectionProperty(const std::string& name) {
  for (std::string_view prefix : {"bootstrap.servers", "security.protocol", "sasl.", "ssl.",
                                  "enable.ssl.", "client.id", "broker.address.family", "socket."}) {
    if (name.starts_with(prefix)) return true;
  }
  return false;
}

absl::Status Unavailable(std::string_view what, rd_kafka_resp_err_t err) {
  return absl::UnavailableError(Concat("position topic: ", what, ": ", rd_kafka_err2str(err),
                                       "; check that the brokers are reachable"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PositionStore>> PositionStore::Create(
    const std::vector<std::pair<std::string, std::string>>& kafka_properties, std::string topic) {
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& p : kafka_properties) {
    if (IsConnectionProperty(p.first)) kept.push_back(p);
  }
  std::unique_ptr<PositionStore> store(new PositionStore(std::move(kept), std::move(topic)));
  auto conf = store->NewConf();  // Rejects bad properties now, not at the first write.
  if (!conf.ok()) return conf.status();
  rd_kafka_conf_destroy(*conf);
  return store;
}

PositionStore::~PositionStore() {
  if (producer_ != nullptr) {
    rd_kafka_purge(producer_, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_destroy(producer_);
  }
}

absl::StatusOr<rd_kafka_conf_t*> PositionStore::NewConf() const {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  for (const auto& [name, value] : properties_) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), errstr, sizeof errstr) !=
        RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return absl::InvalidArgumentError(Concat("[kafka] \"", name, "\": ", errstr));
    }
  }
  return conf;
}

void PositionStore::OnDelivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
  static_cast<PositionStore*>(opaque)->last_delivery_ = message->err;
}

absl::Status PositionStore::EnsureProducer() {
  if (producer_ != nullptr) return absl::OkStatus();
  auto conf = NewConf();
  if (!conf.ok()) return conf.status();
  char errstr[512];
  // acks=all: a record the brokers could lose would make the failover checks lie.
  for (const auto& [name, value] : std::map<std::string, std::string>{
           {"acks", "all"}, {"linger.ms", "0"}, {"message.timeout.ms", "10000"}}) {
    rd_kafka_conf_set(*conf, name.c_str(), value.c_str(), errstr, sizeof errstr);
  }
  rd_kafka_conf_set_opaque(*conf, this);
  rd_kafka_conf_set_dr_msg_cb(*conf, &PositionStore::OnDelivery);
  producer_ = rd_kafka_new(RD_KAFKA_PRODUCER, *conf, errstr, sizeof errstr);
  if (producer_ == nullptr) {
    rd_kafka_conf_destroy(*conf);
    return absl::InternalError(Concat("position topic: cannot create a producer: ", errstr));
  }
  return absl::OkStatus();
}

absl::Status PositionStore::EnsureTopic(int timeout_ms) {
  if (topic_ready_) return absl::OkStatus();
  absl::Status status = CreateCompactedTopic(producer_, topic_, timeout_ms);
  if (status.ok()) topic_ready_ = true;
  return status;
}

absl::Status PositionStore::Save(const PositionRecord& record, int timeout_ms) {
  const std::string value = EncodeRecord(record);
  return Produce(record.slot, &value, timeout_ms);
}

absl::Status PositionStore::Delete(const std::string& slot, int timeout_ms) {
  return Produce(slot, nullptr, timeout_ms);
}

// `value` nullptr produces a tombstone.
absl::Status PositionStore::Produce(const std::string& key, const std::string* value,
                                    int timeout_ms) {
  if (auto s = EnsureProducer(); !s.ok()) return s;
  if (auto s = EnsureTopic(timeout_ms); !s.ok()) return s;
  last_delivery_ = RD_KAFKA_RESP_ERR__IN_PROGRESS;
  const rd_kafka_resp_err_t err = rd_kafka_producev(
      producer_, RD_KAFKA_V_TOPIC(topic_.c_str()), RD_KAFKA_V_KEY(key.data(), key.size()),
      RD_KAFKA_V_VALUE(value ? const_cast<char*>(value->data()) : nullptr,
                       value ? value->size() : 0),
      RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return Unavailable("producing the record", err);
  rd_kafka_flush(producer_, timeout_ms);
  if (last_delivery_ != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Unavailable("writing the record", last_delivery_);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<PositionRecord>> PositionStore::Load(const std::string& slot) {
  auto conf = NewConf();
  if (!conf.ok()) return conf.status();
  auto values = ReadLatestValue(*conf, topic_, slot, kTimeoutMs);
  if (!values.ok()) return values.status();
  if (!values->has_value()) return std::optional<PositionRecord>();
  auto record = DecodeRecord(**values);
  if (!record.ok()) return record.status();
  return std::optional<PositionRecord>(*record);
}

}  // namespace outboxd::position
