#include "harness/kafka_admin.h"

#include <librdkafka/rdkafka.h>

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace outboxd::it {
namespace {

constexpr int kTimeoutMs = 15000;

struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
};
struct EventDeleter {
  void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;

absl::StatusOr<Handle> NewAdminHandle(const std::string& bootstrap) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), error, sizeof(error)) !=
      RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    return absl::InvalidArgumentError(error);
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error, sizeof(error));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(absl::StrCat("rd_kafka_new(admin): ", error));
  }
  return Handle(rk);
}

absl::Status TopicResultStatus(const rd_kafka_topic_result_t* const* results, size_t count,
                               bool ignore_unknown) {
  for (size_t i = 0; i < count; ++i) {
    const rd_kafka_resp_err_t err = rd_kafka_topic_result_error(results[i]);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    if (ignore_unknown && err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) continue;
    const std::string message =
        absl::StrCat(rd_kafka_topic_result_name(results[i]), ": ", rd_kafka_err2str(err));
    if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) return absl::AlreadyExistsError(message);
    return absl::InternalError(message);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CreateTopic(const std::string& bootstrap, const std::string& topic, int partitions,
                         const std::map<std::string, std::string>& configs) {
  absl::StatusOr<Handle> rk = NewAdminHandle(bootstrap);
  if (!rk.ok()) return rk.status();
  char error[512];
  rd_kafka_NewTopic_t* new_topic =
      rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, error, sizeof(error));
  if (new_topic == nullptr) return absl::InvalidArgumentError(error);
  for (const auto& [name, value] : configs) {
    if (rd_kafka_NewTopic_set_config(new_topic, name.c_str(), value.c_str()) !=
        RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_NewTopic_destroy(new_topic);
      return absl::InvalidArgumentError(absl::StrCat("topic config ", name));
    }
  }
  std::unique_ptr<rd_kafka_queue_t, QueueDeleter> queue(rd_kafka_queue_new(rk->get()));
  rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(rk->get(), RD_KAFKA_ADMIN_OP_ANY);
  rd_kafka_AdminOptions_set_operation_timeout(options, kTimeoutMs, error, sizeof(error));
  rd_kafka_CreateTopics(rk->get(), &new_topic, 1, options, queue.get());
  rd_kafka_AdminOptions_destroy(options);
  rd_kafka_NewTopic_destroy(new_topic);

  std::unique_ptr<rd_kafka_event_t, EventDeleter> event(
      rd_kafka_queue_poll(queue.get(), kTimeoutMs + 5000));
  if (event == nullptr) return absl::DeadlineExceededError("CreateTopics: no answer");
  if (rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::InternalError(
        absl::StrCat("CreateTopics ", topic, ": ", rd_kafka_event_error_string(event.get())));
  }
  size_t count = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &count);
  return TopicResultStatus(results, count, /*ignore_unknown=*/false);
}

absl::Status DeleteTopics(const std::string& bootstrap, const std::vector<std::string>& topics) {
  if (topics.empty()) return absl::OkStatus();
  absl::StatusOr<Handle> rk = NewAdminHandle(bootstrap);
  if (!rk.ok()) return rk.status();
  std::vector<rd_kafka_DeleteTopic_t*> deletes;
  for (const std::string& t : topics) deletes.push_back(rd_kafka_DeleteTopic_new(t.c_str()));
  std::unique_ptr<rd_kafka_queue_t, QueueDeleter> queue(rd_kafka_queue_new(rk->get()));
  rd_kafka_DeleteTopics(rk->get(), deletes.data(), deletes.size(), nullptr, queue.get());
  rd_kafka_DeleteTopic_destroy_array(deletes.data(), deletes.size());

  std::unique_ptr<rd_kafka_event_t, EventDeleter> event(
      rd_kafka_queue_poll(queue.get(), kTimeoutMs));
  if (event == nullptr) return absl::DeadlineExceededError("DeleteTopics: no answer");
  if (rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::InternalError(
        absl::StrCat("DeleteTopics: ", rd_kafka_event_error_string(event.get())));
  }
  size_t count = 0;
  const rd_kafka_topic_result_t** results =
      rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event.get()), &count);
  return TopicResultStatus(results, count, /*ignore_unknown=*/true);
}

}  // namespace outboxd::it
