#pragma once
// Reads and writes position records (position_record.h) in a compacted Kafka topic, one record
// per slot keyed by the slot name, on the same brokers and security settings as the events.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "kafka/client.h"
#include "kafka/producer.h"
#include "position/position_record.h"

namespace outboxd::position {

// The topic's name: one per Kafka cluster, shared by every outboxd writing to it.
inline constexpr std::string_view kDefaultTopic = "outboxd.positions";

class PositionStore {
 public:
  // A store on `topic` using `kafka_properties` ([kafka] of the config): the records are
  // written by a kafka::Producer with the events' settings, read with the connection settings
  // among them. Connects lazily. InvalidArgument for a property librdkafka rejects.
  static absl::StatusOr<std::unique_ptr<PositionStore>> Create(
      const std::vector<std::pair<std::string, std::string>>& kafka_properties,
      std::string topic = std::string(kDefaultTopic));
  ~PositionStore();
  PositionStore(const PositionStore&) = delete;
  PositionStore& operator=(const PositionStore&) = delete;

  // The newest record for `slot`, nullopt when there is none (or no topic yet). Reads the
  // topic from its start to its end (compaction keeps it small); a topic found there counts as
  // created for EnsureTopic. Unavailable when the brokers
  // do not answer in time; DataLoss for a record that does not parse. Any thread, one at a time.
  absl::StatusOr<std::optional<PositionRecord>> Load(const std::string& slot);

  // Writes `record` (key: its slot) and waits up to `timeout_ms` until the brokers acknowledge
  // it (acks=all). Creates the topic (compacted, one partition) the first time. Unavailable on
  // timeout (the record may still arrive later). Any thread, one at a time.
  absl::Status Save(const PositionRecord& record, int timeout_ms = 10'000);

  // Deletes the record of `slot` (a tombstone: compaction then drops it), for `slot drop`:
  // a slot dropped on purpose must not make the next start refuse. As Save otherwise.
  absl::Status Delete(const std::string& slot, int timeout_ms = 10'000);

  // Creates the topic (compacted, one partition) unless it exists or was created by this store.
  // Unavailable on timeout, PermissionDenied when the principal may not create it.
  absl::Status EnsureTopic(int timeout_ms = 10'000);

  const std::string& topic() const { return topic_; }

 private:
  PositionStore(std::vector<std::pair<std::string, std::string>> properties, std::string topic)
      : properties_(std::move(properties)), topic_(std::move(topic)) {}
  absl::Status EnsureProducer();
  absl::Status Produce(const std::string& key, std::optional<std::string_view> value,
                       int timeout_ms);

  // The outcome of the record Produce waits for; reports of earlier records that timed out
  // locally are ignored (the newer record supersedes them). Called inside Flush.
  class LastDelivery final : public kafka::DeliveryHandler {
   public:
    void Await(uint64_t tag);
    // OK once delivered, the failure once failed, nullopt while neither.
    const std::optional<absl::Status>& outcome() const { return outcome_; }
    void OnDelivered(uint64_t tag) override;
    void OnFailed(uint64_t tag, const kafka::DeliveryFailure& failure) override;

   private:
    uint64_t awaited_ = 0;
    std::optional<absl::Status> outcome_;
  };

  std::vector<std::pair<std::string, std::string>> properties_;
  std::string topic_;
  kafka::BackgroundDestroyer retired_readers_;  // Load's consumers, off the start-up's path.
  LastDelivery delivery_;  // Declared before producer_, which calls it until destroyed.
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t next_tag_ = 1;
  bool topic_ready_ = false;
};

}  // namespace outboxd::position
