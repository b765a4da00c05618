#include "harness/kafka_consumer.h"

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace outboxd::it {
namespace {

struct KafkaDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
using Consumer = std::unique_ptr<rd_kafka_t, KafkaDeleter>;
struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* m) const { rd_kafka_message_destroy(m); }
};

absl::StatusOr<Consumer> NewConsumer(const std::string& bootstrap,
                                     const std::map<std::string, std::string>& extra) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char error[512];
  const std::string group = absl::StrCat("outboxd-it-", absl::ToUnixNanos(absl::Now()));
  const std::pair<const char*, std::string> settings[] = {
      {"bootstrap.servers", bootstrap},      {"group.id", group},
      {"enable.auto.commit", "false"},       {"enable.partition.eof", "true"},
      {"auto.offset.reset", "earliest"},     {"fetch.wait.max.ms", "100"},
      {"allow.auto.create.topics", "false"}, {"log_level", "3"},
  };
  std::vector<std::pair<std::string, std::string>> all(std::begin(settings), std::end(settings));
  all.insert(all.end(), extra.begin(), extra.end());
  for (const auto& [name, value] : all) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), error, sizeof(error)) !=
        RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return absl::InvalidArgumentError(absl::StrCat("consumer config ", name, ": ", error));
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, error, sizeof(error));
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return absl::InternalError(absl::StrCat("rd_kafka_new(consumer): ", error));
  }
  return Consumer(rk);
}

// Partition counts of those `wanted` topics the cluster knows now (metadata of all topics, so
// asking never creates one).
absl::StatusOr<std::map<std::string, int>> ExistingTopics(rd_kafka_t* rk,
                                                          const std::set<std::string>& wanted) {
  const rd_kafka_metadata_t* metadata = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, &metadata, 5000);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return std::map<std::string, int>();  // Retry later.
  std::map<std::string, int> found;
  for (int i = 0; i < metadata->topic_cnt; ++i) {
    const rd_kafka_metadata_topic_t& t = metadata->topics[i];
    if (t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partition_cnt > 0 && wanted.count(t.topic)) {
      found[t.topic] = t.partition_cnt;
    }
  }
  rd_kafka_metadata_destroy(metadata);
  return found;
}

KafkaRecord ToRecord(const rd_kafka_message_t& m) {
  KafkaRecord r;
  r.topic = rd_kafka_topic_name(m.rkt);
  r.partition = m.partition;
  r.offset = m.offset;
  if (m.key != nullptr) r.key = std::string(static_cast<const char*>(m.key), m.key_len);
  if (m.payload != nullptr) r.value = std::string(static_cast<const char*>(m.payload), m.len);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(&m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      std::optional<std::string> v;
      if (value != nullptr) v = std::string(static_cast<const char*>(value), size);
      r.headers.emplace_back(name, std::move(v));
    }
  }
  return r;
}

}  // namespace

std::optional<std::string> KafkaRecord::Header(absl::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (n == name) return v;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<KafkaRecord>> ConsumeFromBeginning(
    const std::string& bootstrap, const ConsumeOptions& options,
    const std::map<std::string, std::string>& client_properties) {
  absl::StatusOr<Consumer> consumer = NewConsumer(bootstrap, client_properties);
  if (!consumer.ok()) return consumer.status();
  rd_kafka_t* rk = consumer->get();

  const std::set<std::string> wanted(options.topics.begin(), options.topics.end());
  std::set<std::string> assigned;
  std::map<std::pair<std::string, int32_t>, bool> at_end;  // per assigned partition
  std::vector<KafkaRecord> records;
  const absl::Time deadline = absl::Now() + options.timeout;
  absl::Time next_metadata = absl::InfinitePast();

  while (absl::Now() < deadline) {
    if (assigned.size() < wanted.size() && absl::Now() >= next_metadata) {
      next_metadata = absl::Now() + absl::Milliseconds(250);
      absl::StatusOr<std::map<std::string, int>> topics = ExistingTopics(rk, wanted);
      if (!topics.ok()) return topics.status();
      std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter> list(
          rd_kafka_topic_partition_list_new(8));
      for (const auto& [topic, partitions] : *topics) {
        if (!assigned.insert(topic).second) continue;
        for (int32_t p = 0; p < partitions; ++p) {
          rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset =
              RD_KAFKA_OFFSET_BEGINNING;
          at_end[{topic, p}] = false;
        }
      }
      if (list->cnt > 0) {
        rd_kafka_error_t* error = rd_kafka_incremental_assign(rk, list.get());
        if (error != nullptr) {
          const std::string message = rd_kafka_error_string(error);
          rd_kafka_error_destroy(error);
          return absl::InternalError(absl::StrCat("rd_kafka_incremental_assign: ", message));
        }
      }
    }
    std::unique_ptr<rd_kafka_message_t, MessageDeleter> m(rd_kafka_consumer_poll(rk, 100));
    if (m != nullptr) {
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        at_end[{rd_kafka_topic_name(m->rkt), m->partition}] = true;
      } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        at_end[{rd_kafka_topic_name(m->rkt), m->partition}] = false;
        records.push_back(ToRecord(*m));
      }
      // Other errors (broker down, leader moves) are transient here: keep polling.
    }
    if (records.size() >= options.min_records && assigned.size() == wanted.size()) {
      bool drained = true;
      for (const auto& [partition, end] : at_end) drained = drained && end;
      if (drained) break;
    }
  }
  return records;
}

}  // namespace outboxd::it
