#include "kafka_tools.h"

#include <librdkafka/rdkafka.h>

#include <memory>

#include "absl/strings/str_cat.h"

namespace consumer_test {
namespace {

constexpr int kTimeoutMs = 15000;

struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleDeleter>;
struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const {
    rd_kafka_topic_partition_list_destroy(l);
  }
};
using List = std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter>;

absl::StatusOr<Handle> NewHandle(rd_kafka_type_t type, const std::string& bootstrap,
                                 const std::string& group) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  if (rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof errstr) !=
          RD_KAFKA_CONF_OK ||
      (!group.empty() && rd_kafka_conf_set(conf, "group.id", group.c_str(), errstr,
                                           sizeof errstr) != RD_KAFKA_CONF_OK)) {
    rd_kafka_conf_destroy(conf);
    return absl::InvalidArgumentError(errstr);
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, errstr, sizeof errstr);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(errstr);
  }
  return Handle(rk);
}

// The partition count of `topic`; NotFound if the broker does not know it.
absl::StatusOr<int> PartitionCount(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, rkt, &md, kTimeoutMs);
  rd_kafka_topic_destroy(rkt);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::UnavailableError(absl::StrCat("metadata: ", rd_kafka_err2str(err)));
  }
  const int count = md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR
                        ? md->topics[0].partition_cnt
                        : 0;
  rd_kafka_metadata_destroy(md);
  if (count == 0) return absl::NotFoundError(absl::StrCat("topic ", topic, " not found"));
  return count;
}

}  // namespace

absl::Status Produce(const std::string& bootstrap, const std::string& topic,
                     const std::vector<std::pair<std::string, std::string>>& records) {
  absl::StatusOr<Handle> rk = NewHandle(RD_KAFKA_PRODUCER, bootstrap, "");
  if (!rk.ok()) return rk.status();
  for (const auto& [key, value] : records) {
    const rd_kafka_resp_err_t err =
        rd_kafka_producev(rk->get(), RD_KAFKA_V_TOPIC(topic.c_str()),
                          RD_KAFKA_V_KEY(const_cast<char*>(key.data()), key.size()),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return absl::InternalError(absl::StrCat("produce: ", rd_kafka_err2str(err)));
    }
    rd_kafka_poll(rk->get(), 0);
  }
  const rd_kafka_resp_err_t err = rd_kafka_flush(rk->get(), kTimeoutMs);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR || rd_kafka_outq_len(rk->get()) != 0) {
    return absl::DeadlineExceededError(absl::StrCat("flush: ", rd_kafka_err2str(err)));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> GroupCaughtUp(const std::string& bootstrap, const std::string& group,
                                   const std::string& topic) {
  // A consumer handle that never subscribes: it only asks the group coordinator.
  absl::StatusOr<Handle> rk = NewHandle(RD_KAFKA_CONSUMER, bootstrap, group);
  if (!rk.ok()) return rk.status();
  absl::StatusOr<int> partitions = PartitionCount(rk->get(), topic);
  if (!partitions.ok()) return partitions.status();
  List list(rd_kafka_topic_partition_list_new(*partitions));
  for (int p = 0; p < *partitions; ++p)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  const rd_kafka_resp_err_t err = rd_kafka_committed(rk->get(), list.get(), kTimeoutMs);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return absl::UnavailableError(absl::StrCat("committed: ", rd_kafka_err2str(err)));
  }
  for (int i = 0; i < list->cnt; ++i) {
    int64_t low = 0, high = 0;
    const rd_kafka_resp_err_t werr = rd_kafka_query_watermark_offsets(
        rk->get(), topic.c_str(), list->elems[i].partition, &low, &high, kTimeoutMs);
    if (werr != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return absl::UnavailableError(absl::StrCat("watermarks: ", rd_kafka_err2str(werr)));
    }
    // A partition never committed reads as RD_KAFKA_OFFSET_INVALID (-1001).
    const int64_t committed = list->elems[i].offset;
    if (high > 0 && committed < high) return false;
  }
  return true;
}

absl::Status DeleteGroup(const std::string& bootstrap, const std::string& group) {
  absl::StatusOr<Handle> rk = NewHandle(RD_KAFKA_PRODUCER, bootstrap, "");
  if (!rk.ok()) return rk.status();
  rd_kafka_DeleteGroup_t* del = rd_kafka_DeleteGroup_new(group.c_str());
  rd_kafka_queue_t* queue = rd_kafka_queue_new(rk->get());
  rd_kafka_DeleteGroups(rk->get(), &del, 1, nullptr, queue);
  rd_kafka_DeleteGroup_destroy(del);
  rd_kafka_event_t* event = rd_kafka_queue_poll(queue, kTimeoutMs);
  absl::Status status = absl::OkStatus();
  if (event == nullptr) {
    status = absl::DeadlineExceededError("DeleteGroups: no answer");
  } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    status =
        absl::InternalError(absl::StrCat("DeleteGroups: ", rd_kafka_event_error_string(event)));
  } else {
    size_t n = 0;
    const rd_kafka_group_result_t** results =
        rd_kafka_DeleteGroups_result_groups(rd_kafka_event_DeleteGroups_result(event), &n);
    for (size_t i = 0; i < n; ++i) {
      const rd_kafka_error_t* e = rd_kafka_group_result_error(results[i]);
      if (e != nullptr) {
        status = absl::FailedPreconditionError(
            absl::StrCat("DeleteGroups ", group, ": ", rd_kafka_error_string(e)));
      }
    }
  }
  if (event != nullptr) rd_kafka_event_destroy(event);
  rd_kafka_queue_destroy(queue);
  return status;
}

}  // namespace consumer_test
