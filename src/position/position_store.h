#pragma once
// Reads and writes position records (position_record.h) in a compacted Kafka topic, one record
// per slot keyed by the slot name, on the same brokers and security settings as the events.

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "librdkafka/rdkafka.h"
#include "position/position_record.h"

namespace outboxd::position {

// The topic's name: one per Kafka cluster, shared by every outboxd writing to it.
inline constexpr std::string_view kDefaultTopic = "outboxd.positions";

class PositionStore {
 public:
  // A store on `topic` using the connection settings among `kafka_properties` ([kafka] of the
  // config: bootstrap.servers, security.*, sasl.*, ssl.*, client.id). Connects lazily.
  // InvalidArgument for a property librdkafka rejects.
  static absl::StatusOr<std::unique_ptr<PositionStore>> Create(
      const std::vector<std::pair<std::string, std::string>>& kafka_properties,
      std::string topic = std::string(kDefaultTopic));
  ~PositionStore();
  PositionStore(const PositionStore&) = delete;
  PositionStore& operator=(const PositionStore&) = delete;

  // The newest record for `slot`, nullopt when there is none (or no topic yet). Reads the
  // topic from its start to its end (compaction keeps it small). Unavailable when the brokers
  // do not answer in time; DataLoss for a record that does not parse. Any thread, one at a time.
  absl::StatusOr<std::optional<PositionRecord>> Load(const std::string& slot);

  // Writes `record` (key: its slot) and waits up to `timeout_ms` until the brokers acknowledge
  // it (acks=all). Creates the topic (compacted, one partition) the first time. Unavailable on
  // timeout (the record may still arrive later). Any thread, one at a time.
  absl::Status Save(const PositionRecord& record, int timeout_ms = 10'000);

  // Deletes the record of `slot` (a tombstone: compaction then drops it), for `slot drop`:
  // a slot dropped on purpose must not make the next start refuse. As Save otherwise.
  absl::Status Delete(const std::string& slot, int timeout_ms = 10'000);

  const std::string& topic() const { return topic_; }

 private:
  PositionStore(std::vector<std::pair<std::string, std::string>> properties, std::string topic)
      : properties_(std::move(properties)), topic_(std::move(topic)) {}
  absl::StatusOr<rd_kafka_conf_t*> NewConf() const;
  absl::Status EnsureProducer();
  absl::Status EnsureTopic(int timeout_ms);
  absl::Status Produce(const std::string& key, const std::string* value, int timeout_ms);
  static void OnDelivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque);

  std::vector<std::pair<std::string, std::string>> properties_;  // Connection settings only.
  std::string topic_;
  rd_kafka_t* producer_ = nullptr;
  bool topic_ready_ = false;
  rd_kafka_resp_err_t last_delivery_ = RD_KAFKA_RESP_ERR_NO_ERROR;
};

}  // namespace outboxd::position
