#include "support/stream_consumer.h"

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <utility>

#include "absl/time/clock.h"
#include "fmt/format.h"

namespace outboxd::chaos {
namespace {

struct ConsumerDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const {
    rd_kafka_topic_partition_list_destroy(l);
  }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};

}  // namespace

absl::StatusOr<int64_t> StreamTopics(const std::string& bootstrap,
                                     const std::vector<std::string>& topics, int64_t min_records,
                                     absl::Duration timeout,
                                     const std::function<void(const StreamedRecord&)>& on_record) {
  char error[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const std::pair<const char*, std::string> settings[] = {
      {"bootstrap.servers", bootstrap},
      {"group.id", fmt::format("outboxd-chaos-{}", absl::ToUnixNanos(absl::Now()))},
      {"enable.auto.commit", "false"},
      {"enable.partition.eof", "true"},
      {"fetch.wait.max.ms", "100"},
      {"allow.auto.create.topics", "false"},
      {"log_level", "3"},
  };
  for (const auto& [name, value] : settings) {
    if (rd_kafka_conf_set(conf, name, value.c_str(), error, sizeof error) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return absl::InvalidArgumentError(fmt::format("consumer config {}: {}", name, error));
    }
  }
  rd_kafka_t* raw = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof error);
  if (raw == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(fmt::format("rd_kafka_new(consumer): {}", error));
  }
  std::unique_ptr<rd_kafka_t, ConsumerDeleter> rk(raw);

  // Partition counts, from the metadata of all topics (asking never creates one).
  std::map<std::pair<std::string, int32_t>, bool> at_end;
  {
    const rd_kafka_metadata_t* metadata = nullptr;
    const rd_kafka_resp_err_t err = rd_kafka_metadata(rk.get(), 1, nullptr, &metadata, 15000);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return absl::UnavailableError(fmt::format("metadata: {}", rd_kafka_err2str(err)));
    }
    for (const std::string& topic : topics) {
      int partitions = 0;
      for (int i = 0; i < metadata->topic_cnt; ++i) {
        if (topic == metadata->topics[i].topic) partitions = metadata->topics[i].partition_cnt;
      }
      for (int32_t p = 0; p < partitions; ++p) at_end[{topic, p}] = false;
      if (partitions == 0) {
        rd_kafka_metadata_destroy(metadata);
        return absl::NotFoundError(fmt::format("topic {} does not exist", topic));
      }
    }
    rd_kafka_metadata_destroy(metadata);
  }
  std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list(
      rd_kafka_topic_partition_list_new(static_cast<int>(at_end.size())));
  for (const auto& [tp, end] : at_end) {
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  if (const rd_kafka_resp_err_t err = rd_kafka_assign(rk.get(), list.get()); err) {
    return absl::InternalError(fmt::format("rd_kafka_assign: {}", rd_kafka_err2str(err)));
  }

  int64_t count = 0;
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    std::unique_ptr<rd_kafka_message_t, MessageDeleter> m(rd_kafka_consumer_poll(rk.get(), 100));
    if (m != nullptr) {
      const std::pair<std::string, int32_t> tp(rd_kafka_topic_name(m->rkt), m->partition);
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        at_end[tp] = true;
      } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        at_end[tp] = false;
        StreamedRecord r;
        r.topic = tp.first;
        r.partition = m->partition;
        r.offset = m->offset;
        if (m->key != nullptr)
          r.key = std::string_view(static_cast<const char*>(m->key), m->key_len);
        if (m->payload != nullptr) {
          r.value = std::string_view(static_cast<const char*>(m->payload), m->len);
        }
        rd_kafka_headers_t* headers = nullptr;
        const void* id = nullptr;
        size_t id_size = 0;
        if (rd_kafka_message_headers(m.get(), &headers) == RD_KAFKA_RESP_ERR_NO_ERROR &&
            rd_kafka_header_get_last(headers, "id", &id, &id_size) == RD_KAFKA_RESP_ERR_NO_ERROR &&
            id != nullptr) {
          r.id = std::string_view(static_cast<const char*>(id), id_size);
        }
        ++count;
        on_record(r);
      }
    }
    if (count >= min_records) {
      bool drained = true;
      for (const auto& [tp, end] : at_end) drained = drained && end;
      if (drained) break;
    }
  }
  return count;
}

}  // namespace outboxd::chaos
