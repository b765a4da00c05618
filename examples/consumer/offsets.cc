#include "offsets.h"

#include <cstdio>

namespace consumer {

void PendingOffsets::Add(const char* topic, int32_t partition, int64_t offset) {
  rd_kafka_topic_partition_t* entry = rd_kafka_topic_partition_list_find(list_, topic, partition);
  if (entry == nullptr) entry = rd_kafka_topic_partition_list_add(list_, topic, partition);
  entry->offset = offset + 1;  // Kafka's committed offset is the next record to read.
}

void PendingOffsets::Commit(rd_kafka_t* consumer) {
  if (list_->cnt == 0) return;
  const rd_kafka_resp_err_t err = rd_kafka_commit(consumer, list_, /*async=*/0);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::fprintf(stderr,
                 "consumer: WARN offset commit failed (%s); those records will be read "
                 "again and skipped as duplicates\n",
                 rd_kafka_err2str(err));
  }
  rd_kafka_topic_partition_list_destroy(list_);
  list_ = rd_kafka_topic_partition_list_new(8);
}

}  // namespace consumer
