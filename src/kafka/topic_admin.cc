#include "kafka/topic_admin.h"

#include <optional>

#include "common/strings.h"

namespace outboxd::kafka {

absl::Status CreateCompactedTopic(const Properties& properties, const std::string& topic,
                                  int timeout_ms) {
  std::optional<std::string> operator_error;
  auto rk = NewHelperClient(RD_KAFKA_PRODUCER, properties, {}, &operator_error);
  if (!rk.ok()) return rk.status();
  char errstr[512];
  const Owned<rd_kafka_NewTopic_t> spec(
      rd_kafka_NewTopic_new(topic.c_str(), 1, -1, errstr, sizeof errstr));
  if (!spec) return absl::InvalidArgumentError(Concat("topic ", topic, ": ", errstr));
  rd_kafka_NewTopic_set_config(spec.get(), "cleanup.policy", "compact");
  const Owned<rd_kafka_queue_t> queue(rd_kafka_queue_new(rk->get()));
  rd_kafka_NewTopic_t* specs[] = {spec.get()};
  rd_kafka_CreateTopics(rk->get(), specs, 1, nullptr, queue.get());
  const Owned<rd_kafka_event_t> event(rd_kafka_queue_poll(queue.get(), timeout_ms));
  rd_kafka_poll(rk->get(), 0);  // Serves the error callback.
  if (operator_error) return absl::PermissionDeniedError(*operator_error);
  if (!event || rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // Said as the relay says it, so an operator (and a log search) sees one cause.
    return absl::UnavailableError(
        Concat("Kafka is unreachable or too slow: topic ", topic, ": creating it failed (",
               event ? rd_kafka_event_error_string(event.get()) : "timed out",
               "); check that the brokers are reachable"));
  }
  NoteBrokerReached();  // The broker answered the request.
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
        Concat("outboxd may not create its topic ", topic,
               "; create it (cleanup.policy=compact, 1 partition) or grant CREATE on it"));
  }
  return absl::UnavailableError(Concat("topic ", topic, ": ", rd_kafka_err2str(err)));
}

}  // namespace outboxd::kafka
