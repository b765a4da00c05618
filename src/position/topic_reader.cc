#include "position/topic_reader.h"

#include <chrono>
#include <memory>
#include <vector>

#include "common/strings.h"
#include "kafka/delivery_error.h"

namespace outboxd::position {
namespace {

struct Deleter {
  void operator()(rd_kafka_t* p) const { rd_kafka_destroy(p); }
  void operator()(rd_kafka_queue_t* p) const { rd_kafka_queue_destroy(p); }
  void operator()(rd_kafka_NewTopic_t* p) const { rd_kafka_NewTopic_destroy(p); }
  void operator()(rd_kafka_event_t* p) const { rd_kafka_event_destroy(p); }
  void operator()(rd_kafka_topic_partition_list_t* p) const {
    rd_kafka_topic_partition_list_destroy(p);
  }
  void operator()(const rd_kafka_metadata_t* p) const { rd_kafka_metadata_destroy(p); }
  void operator()(rd_kafka_message_t* p) const { rd_kafka_message_destroy(p); }
};
template <typename T>
using Owned = std::unique_ptr<T, Deleter>;

// Collects what librdkafka's error callback says; served by rd_kafka_poll on the caller's thread.
struct ErrorSink {
  std::optional<std::string> operator_error;  // TLS, authentication or authorization.
};

void OnError(rd_kafka_t*, int err, const char* reason, void* opaque) {
  auto* sink = static_cast<ErrorSink*>(opaque);
  if (!sink->operator_error) {
    sink->operator_error =
        kafka::OperatorErrorMessage(static_cast<rd_kafka_resp_err_t>(err), reason);
  }
}

// The publisher logs the brokers' complaints once; this short-lived client stays quiet.
void DropLog(const rd_kafka_t*, int, const char*, const char*) {}

absl::Status Timeout(std::string_view what, const std::string& topic) {
  // Said as the relay says it, so an operator (and a log search) sees one cause.
  return absl::UnavailableError(Concat("Kafka is unreachable or too slow: position topic ", topic,
                                       ": ", what,
                                       " timed out; check that the brokers are reachable"));
}

// Partition ids of `topic`; empty when it does not exist.
absl::StatusOr<std::vector<int32_t>> Partitions(rd_kafka_t* rk, const std::string& topic,
                                                int timeout_ms) {
  rd_kafka_topic_t* handle = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* raw = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, handle, &raw, timeout_ms);
  rd_kafka_topic_destroy(handle);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return Timeout("reading metadata", topic);
  Owned<const rd_kafka_metadata_t> md(raw);
  std::vector<int32_t> ids;
  if (md->topic_cnt != 1 || md->topics[0].err != RD_KAFKA_RESP_ERR_NO_ERROR) return ids;
  for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
    ids.push_back(md->topics[0].partitions[i].id);
  }
  return ids;
}

// The body of ReadLatestValue on `rk`, a consumer it owns.
absl::StatusOr<std::optional<std::string>> ReadFrom(rd_kafka_t* rk, const std::string& topic,
                                                    const std::string& key, int timeout_ms) {
  auto ids = Partitions(rk, topic, timeout_ms);
  if (!ids.ok()) return ids.status();
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
  std::optional<std::string> latest;
  if (remaining == 0) return latest;
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
  return latest;
}

}  // namespace

absl::Status CreateCompactedTopic(rd_kafka_t* rk, const std::string& topic, int timeout_ms) {
  char errstr[512];
  Owned<rd_kafka_NewTopic_t> spec(
      rd_kafka_NewTopic_new(topic.c_str(), 1, -1, errstr, sizeof errstr));
  if (!spec) return absl::InternalError(Concat("position topic ", topic, ": ", errstr));
  rd_kafka_NewTopic_set_config(spec.get(), "cleanup.policy", "compact");
  Owned<rd_kafka_queue_t> queue(rd_kafka_queue_new(rk));
  rd_kafka_NewTopic_t* specs[] = {spec.get()};
  rd_kafka_CreateTopics(rk, specs, 1, nullptr, queue.get());
  Owned<rd_kafka_event_t> event(rd_kafka_queue_poll(queue.get(), timeout_ms));
  if (!event) return Timeout("creating the topic", topic);
  if (rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Timeout(rd_kafka_event_error_string(event.get()), topic);
  }
  size_t count = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &count);
  const rd_kafka_resp_err_t err =
      count == 1 ? rd_kafka_topic_result_error(results[0]) : RD_KAFKA_RESP_ERR_NO_ERROR;
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
    return absl::OkStatus();
  }
  if (err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
      err == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED) {
    return absl::PermissionDeniedError(
        Concat("outboxd may not create its position topic ", topic,
               "; create it (cleanup.policy=compact, 1 partition) or grant CREATE on it"));
  }
  return absl::UnavailableError(Concat("position topic ", topic, ": ", rd_kafka_err2str(err)));
}

absl::StatusOr<std::optional<std::string>> ReadLatestValue(rd_kafka_conf_t* conf,
                                                           const std::string& topic,
                                                           const std::string& key, int timeout_ms) {
  char errstr[512];
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "group.id", "outboxd-position-reader", errstr, sizeof errstr);
  // The end of each partition arrives as an event: robust to offsets that hold no record
  // (transaction markers, which exactly-once writes will add).
  rd_kafka_conf_set(conf, "enable.partition.eof", "true", errstr, sizeof errstr);
  ErrorSink sink;
  rd_kafka_conf_set_opaque(conf, &sink);
  rd_kafka_conf_set_error_cb(conf, &OnError);
  rd_kafka_conf_set_log_cb(conf, &DropLog);
  Owned<rd_kafka_t> rk(rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr));
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(Concat("position topic: cannot create a consumer: ", errstr));
  }
  auto latest = ReadFrom(rk.get(), topic, key, timeout_ms);
  if (!latest.ok()) {
    rd_kafka_poll(rk.get(), 0);  // Serves the error callback.
    // Permanent (exit 4 with the fix), not worth retrying like an unreachable broker.
    if (sink.operator_error) return absl::PermissionDeniedError(*sink.operator_error);
    return latest;
  }
  rd_kafka_consumer_close(rk.get());
  return latest;
}

}  // namespace outboxd::position
