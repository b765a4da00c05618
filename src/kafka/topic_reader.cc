#include "kafka/topic_reader.h"

#include <chrono>
#include <vector>

#include "common/strings.h"

namespace outboxd::kafka {
namespace {

absl::Status Timeout(std::string_view what, const std::string& topic) {
  // Said as the relay says it, so an operator (and a log search) sees one cause.
  return absl::UnavailableError(Concat("Kafka is unreachable or too slow: topic ", topic, ": ",
                                       what, " timed out; check that the brokers are reachable"));
}

// Partition ids of `topic`; empty when it does not exist.
absl::StatusOr<std::vector<int32_t>> Partitions(rd_kafka_t* rk, const std::string& topic,
                                                int timeout_ms) {
  const Owned<rd_kafka_topic_t> handle(rd_kafka_topic_new(rk, topic.c_str(), nullptr));
  const rd_kafka_metadata_t* raw = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, handle.get(), &raw, timeout_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return Timeout("reading metadata", topic);
  const Owned<const rd_kafka_metadata_t> md(raw);
  std::vector<int32_t> ids;
  if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) return ids;
  for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
    ids.push_back(md->topics[0].partitions[i].id);
  }
  return ids;
}

// The body of ReadLatestValue on `rk`, a consumer it owns.
absl::StatusOr<LatestValue> ReadFrom(rd_kafka_t* rk, const std::string& topic,
                                     const std::string& key, int timeout_ms) {
  auto ids = Partitions(rk, topic, timeout_ms);
  if (!ids.ok()) return ids.status();
  LatestValue out{.topic_exists = !ids->empty(), .value = std::nullopt};
  Owned<rd_kafka_topic_partition_list_t> assignment(rd_kafka_topic_partition_list_new(1));
  int64_t remaining = 0;
  for (int32_t id : *ids) {
    int64_t low = 0, high = 0;
    if (rd_kafka_query_watermark_offsets(rk, topic.c_str(), id, &low, &high, timeout_ms)) {
      return Timeout("reading offsets", topic);
    }
    if (high <= low) continue;
    rd_kafka_topic_partition_list_add(assignment.get(), topic.c_str(), id)->offset = low;
    remaining += 1;
  }
  std::optional<std::string>& latest = out.value;
  if (remaining == 0) return out;
  rd_kafka_assign(rk, assignment.get());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (remaining > 0) {
    if (std::chrono::steady_clock::now() > deadline) return Timeout("reading records", topic);
    Owned<rd_kafka_message_t> m(rd_kafka_consumer_poll(rk, 200));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      --remaining;
      continue;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    const std::string_view record_key(static_cast<const char*>(m->key), m->key_len);
    if (m->key != nullptr && record_key == key) {
      // A tombstone (null value) deletes the record: an operator's way to reset the checks.
      if (m->payload == nullptr) {
        latest.reset();
      } else {
        latest.emplace(static_cast<const char*>(m->payload), m->len);
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<LatestValue> ReadLatestValue(const Properties& properties, const std::string& topic,
                                            const std::string& key, int timeout_ms,
                                            BackgroundDestroyer* destroyer) {
  std::optional<std::string> operator_error;
  auto rk = NewHelperClient(RD_KAFKA_CONSUMER, properties,
                            {{"enable.auto.commit", "false"},
                             {"group.id", "outboxd-position-reader"},
                             // Exactly-once writes the position record inside transactions.
                             {"isolation.level", "read_committed"},
                             // The end of each partition arrives as an event: robust to
                             // offsets that hold no record (transaction markers, aborted ones).
                             {"enable.partition.eof", "true"},
                             // The end shows as an empty fetch at the high watermark, which
                             // the broker holds for fetch.wait.max.ms (500 ms by default)
                             // hoping for new records: every start-up paid it.
                             {"fetch.wait.max.ms", "10"}},
                            &operator_error);
  if (!rk.ok()) return rk.status();
  auto latest = ReadFrom(rk->get(), topic, key, timeout_ms);
  if (!latest.ok()) {
    rd_kafka_poll(rk->get(), 0);  // Serves the error callback.
    // Permanent (exit 4 with the fix), not worth retrying like an unreachable broker.
    if (operator_error) return absl::PermissionDeniedError(*operator_error);
    return latest;
  }
  NoteBrokerReached();
  rd_kafka_consumer_close(rk->get());
  if (destroyer != nullptr) destroyer->Destroy(*std::move(rk));
  return latest;
}

}  // namespace outboxd::kafka
