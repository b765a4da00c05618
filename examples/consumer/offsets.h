#pragma once
// The offsets of records whose database transaction has committed, waiting to be committed to
// Kafka. Only Add() after a COMMIT puts an offset here, so a crash before Commit() replays
// those records (and the inbox turns the replay into no-ops): never the other way round.

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <string>

namespace consumer {

// Single-threaded: used from the poll loop and the rebalance callback, which librdkafka runs
// inside rd_kafka_consumer_poll on the same thread.
class PendingOffsets {
 public:
  PendingOffsets() : list_(rd_kafka_topic_partition_list_new(8)) {}
  ~PendingOffsets() { rd_kafka_topic_partition_list_destroy(list_); }
  PendingOffsets(const PendingOffsets&) = delete;
  PendingOffsets& operator=(const PendingOffsets&) = delete;

  // Records that the record at `offset` is applied: consumption resumes after it.
  void Add(const char* topic, int32_t partition, int64_t offset);
  // Commits everything added since the last call (synchronously) and forgets it. A failed
  // commit is logged, not retried: the records are then read again and deduplicated.
  void Commit(rd_kafka_t* consumer);

 private:
  rd_kafka_topic_partition_list_t* list_;
};

}  // namespace consumer
