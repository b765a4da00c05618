#include "position/position_store.h"

#include "common/status.h"
#include "common/strings.h"
#include "kafka/client.h"
#include "kafka/topic_admin.h"
#include "kafka/topic_reader.h"

namespace outboxd::position {
namespace {

// Reading the record at start: a local broker answers in milliseconds; an unreachable one
// should be reported (and retried) within seconds, not hold the start-up for long.
constexpr int kTimeoutMs = 5'000;

}  // namespace

absl::StatusOr<std::unique_ptr<PositionStore>> PositionStore::Create(
    const std::vector<std::pair<std::string, std::string>>& kafka_properties, std::string topic) {
  // Rejects bad properties now, not at the first write.
  if (auto conf = kafka::BuildConf(kafka_properties); !conf.ok()) return conf.status();
  return std::unique_ptr<PositionStore>(new PositionStore(kafka_properties, std::move(topic)));
}

PositionStore::~PositionStore() = default;

void PositionStore::LastDelivery::Await(uint64_t tag) {
  awaited_ = tag;
  outcome_.reset();
}

void PositionStore::LastDelivery::OnDelivered(uint64_t tag) {
  if (tag == awaited_) outcome_ = absl::OkStatus();
}

void PositionStore::LastDelivery::OnFailed(uint64_t tag, const kafka::DeliveryFailure& failure) {
  if (tag != awaited_) return;
  const std::string message = Concat("position topic: writing the record: ", failure.reason);
  outcome_ =
      failure.verdict == kafka::ErrorVerdict::kOperatorError
          ? absl::PermissionDeniedError(Concat(message, "; ", failure.operator_fix))
          : absl::UnavailableError(Concat(message, "; check that the brokers are reachable"));
}

absl::Status PositionStore::EnsureProducer() {
  if (producer_) return absl::OkStatus();
  auto producer = kafka::CreateProducer(properties_, delivery_);
  if (!producer.ok()) return Annotate(producer.status(), "position topic");
  producer_ = *std::move(producer);
  return absl::OkStatus();
}

absl::Status PositionStore::EnsureTopic(int timeout_ms) {
  if (topic_ready_) return absl::OkStatus();
  absl::Status status = kafka::CreateCompactedTopic(properties_, topic_, timeout_ms);
  if (status.ok()) topic_ready_ = true;
  return status;
}

absl::Status PositionStore::Save(const PositionRecord& record, int timeout_ms) {
  const std::string value = EncodeRecord(record);
  return Produce(record.slot, value, timeout_ms);
}

absl::Status PositionStore::Delete(const std::string& slot, int timeout_ms) {
  return Produce(slot, std::nullopt, timeout_ms);
}

// A `value` of nullopt produces a tombstone.
absl::Status PositionStore::Produce(const std::string& key, std::optional<std::string_view> value,
                                    int timeout_ms) {
  if (auto s = EnsureTopic(timeout_ms); !s.ok()) return s;
  if (auto s = EnsureProducer(); !s.ok()) return s;
  const uint64_t tag = next_tag_++;
  delivery_.Await(tag);
  // The producer's queue is bounded far above one record per write; a full one is an outage.
  absl::Status produced =
      producer_->Produce({.topic = topic_, .key = key, .value = value, .headers = {}}, tag);
  if (!produced.ok()) return Annotate(produced, "position topic: producing the record");
  producer_->Flush(timeout_ms);
  if (delivery_.outcome().has_value()) return *delivery_.outcome();
  if (const auto& fatal = producer_->fatal_error()) {
    const std::string message = Concat("position topic: the producer failed: ", *fatal);
    producer_.reset();  // The next write builds a new one.
    return absl::UnavailableError(message);
  }
  if (const auto& refused = producer_->operator_error()) {
    return absl::PermissionDeniedError(Concat("position topic: ", *refused));
  }
  // acks=all not yet received; the producer keeps it queued and may still deliver it.
  return absl::UnavailableError(Concat("position topic ", topic_,
                                       ": the brokers did not acknowledge the record within ",
                                       timeout_ms, " ms; check that the brokers are reachable"));
}

absl::StatusOr<std::optional<PositionRecord>> PositionStore::Load(const std::string& slot) {
  auto latest = kafka::ReadLatestValue(properties_, topic_, slot, kTimeoutMs, &retired_readers_);
  if (!latest.ok()) return latest.status();
  // A topic that exists is not created again: CreateTopics took about a second on a fresh
  // client (its controller look-up), and a principal without CREATE may use a topic made for it.
  if (latest->topic_exists) topic_ready_ = true;
  if (!latest->value) return std::optional<PositionRecord>();
  auto record = DecodeRecord(*latest->value);
  if (!record.ok()) return record.status();
  return std::optional<PositionRecord>(*record);
}

}  // namespace outboxd::position
