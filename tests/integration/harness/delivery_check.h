#pragma once
// Compares what Kafka holds with what committed, the way the chaos verifier will.

#include <cstddef>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"

namespace outboxd::it {

struct DeliveryReport {
  size_t expected = 0;               // committed events
  size_t received = 0;               // records read
  size_t distinct = 0;               // distinct expected ids among them
  size_t missing = 0;                // committed, never received
  size_t duplicates = 0;             // received - first occurrences (of expected ids)
  size_t unexpected = 0;             // no id header, or an id nobody committed
  size_t rolled_back_seen = 0;       // ids of rolled-back rows (also counted as unexpected)
  size_t wrong_content = 0;          // first occurrence with wrong topic, key or value
  size_t split_aggregates = 0;       // aggregates whose records sit on more than one partition
  size_t order_violations = 0;       // first occurrences out of per-aggregate commit order
  std::vector<std::string> samples;  // the first few problems, spelled out

  // Everything above on one line, plus the samples.
  std::string Summary() const;
};

// `expected` lists committed events so that, per key (aggregate), their order is commit order.
// Records are taken in (topic, partition, offset) order; each id's first occurrence counts.
DeliveryReport CheckDelivery(const std::vector<ExpectedEvent>& expected,
                             const std::vector<KafkaRecord>& records,
                             const absl::flat_hash_set<std::string>& rolled_back_ids);

}  // namespace outboxd::it
