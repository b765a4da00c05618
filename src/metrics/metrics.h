#pragma once
// What outboxd counts (DESIGN.md section 8): a few thread-safe primitives that the stages
// update on the loop thread and the HTTP thread reads. Updates are relaxed atomics; a labelled
// family takes a short lock only to add a child or to list its children, so a scrape never
// makes the loop wait for more than that copy.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/node_hash_map.h"
#include "absl/synchronization/mutex.h"

namespace outboxd::metrics {

// Monotonic count; rendered with a `_total` name.
class Counter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Cumulative histogram over fixed upper bounds (Prometheus `le` buckets, +Inf implied).
class Histogram {
 public:
  // `upper_bounds` must be sorted ascending.
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double v);

  struct Snapshot {
    std::vector<double> upper_bounds;
    std::vector<uint64_t> cumulative_counts;  // One per bound, then +Inf (= count).
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot Read() const;

 private:
  const std::vector<double> upper_bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // Per bound, then +Inf; not cumulative.
  std::atomic<double> sum_{0};
};

// Children of one metric told apart by the value of a single label. References returned by
// With() stay valid for the family's life, so a caller may keep them.
template <typename Metric>
class Family {
 public:
  explicit Family(std::string label_name) : label_name_(std::move(label_name)) {}
  const std::string& label_name() const { return label_name_; }

  Metric& With(std::string_view label_value) {
    absl::MutexLock lock(&mu_);
    // Debian's abseil has its own string_view; look up through it without a copy.
    auto& slot = children_[absl::string_view(label_value.data(), label_value.size())];
    if (!slot) slot = std::make_unique<Metric>();
    return *slot;
  }
  // (label value, child) pairs, in no particular order; for rendering.
  std::vector<std::pair<std::string, const Metric*>> Children() const {
    absl::MutexLock lock(&mu_);
    std::vector<std::pair<std::string, const Metric*>> out;
    out.reserve(children_.size());
    for (const auto& [label, child] : children_) out.emplace_back(label, child.get());
    return out;
  }

 private:
  const std::string label_name_;
  mutable absl::Mutex mu_;
  absl::node_hash_map<std::string, std::unique_ptr<Metric>> children_ ABSL_GUARDED_BY(mu_);
};

// The sum over all children of a counter family (e.g. events published to any topic).
inline uint64_t Sum(const Family<Counter>& family) {
  uint64_t total = 0;
  for (const auto& [label, child] : family.Children()) total += child->value();
  return total;
}

// Buckets of the stage histograms: 100 µs to 30 s.
inline std::vector<double> StageBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
          0.1,    0.25,    0.5,    1,     2.5,    5,     10,   30};
}

// Where a row waits on its way, one histogram per stage, exported as
// outboxd_stage_seconds{stage="..."}. Each costs one clock read where the stage ends.
struct StageMetrics {
  // Postgres commit to the Begin of its transaction read off the socket (the walsender's
  // decoding and our reading; per transaction; Postgres's clock against ours).
  Histogram received{StageBounds()};
  // CopyData read to the record handed to librdkafka (decode, map, and any wait for room in
  // Kafka's queue: backpressure shows here; per record).
  Histogram produced{StageBounds()};
  // Handed to librdkafka to its delivery report (linger, broker round trip, acks=all; per
  // record).
  Histogram acked{StageBounds()};
  // The safe position moving to the standby status update that confirms it (per update).
  Histogram confirmed{StageBounds()};
};

// What describes one replication slot's stream, exported with a `slot` label (the slot's name,
// also with parallel_slots = 1) so that each of [postgres] parallel_slots streams has its own
// series. Held by RelayMetrics::slots.
struct SlotMetrics {
  // Replication session stage (src/relay/replication_session.cc, change_handler.cc).
  Gauge replication_lag_bytes;    // outboxd_replication_lag_bytes: server WAL end - confirmed
  Gauge replication_lag_seconds;  // outboxd_replication_lag_seconds: oldest unacked commit age
  Gauge confirmed_lsn;            // outboxd_confirmed_lsn: last flush position sent (as integer)
  Counter transactions;           // outboxd_transactions_total: commits decoded
  // outboxd_replayed_transactions_skipped_total: sent again after the slot moved back (a
  // Postgres crash) but already in Kafka by the position record, so not published again.
  Counter replayed_transactions_skipped;
  Counter rows_ignored;  // outboxd_rows_ignored_total: changes outside the outbox set

  // Slot monitor (src/pg/slot_monitor.cc), from pg_replication_slots on its own connection.
  Gauge slot_retained_wal_bytes;   // outboxd_slot_retained_wal_bytes
  Gauge slot_safe_wal_size_bytes;  // outboxd_slot_safe_wal_size_bytes (NaN when unlimited)
  Family<Gauge> slot_wal_status{"wal_status"};  // outboxd_slot_wal_status: 1 for the current

  // outboxd_restarts_total: restarts of this slot's stream from its confirmed LSN, by cause
  // (src/relay/stream_supervisor.cc). A restart of the whole relay (a new producer) restarts
  // every slot's stream, so it counts once for each slot (src/relay/supervisor.cc).
  Family<Counter> restarts{"cause"};
};

// Every metric outboxd exports, by the name it is exported under. One instance per process,
// created before the relay starts and outliving it and the HTTP server.
struct RelayMetrics {
  // Publisher stage (src/relay/publisher.cc, publisher_delivery.cc).
  Family<Counter> events_published{"topic"};  // outboxd_events_published_total
  Family<Counter> bytes_published{"topic"};   // outboxd_published_bytes_total (key+value)
  Family<Counter> delivery_errors{"reason"};  // outboxd_delivery_errors_total (librdkafka code)
  Counter kafka_retries;                      // outboxd_kafka_retries_total (librdkafka stats)
  Family<Counter> dead_lettered{"reason"};    // outboxd_dead_lettered_events_total
  Gauge events_in_flight;                     // outboxd_events_in_flight
  // exactly_once (src/relay/publisher.cc).
  Counter kafka_transactions;         // outboxd_kafka_transactions_committed_total
  Counter kafka_transaction_records;  // outboxd_kafka_transaction_records_total (incl. position)
  // outboxd_kafka_transactions_aborted_total: abandoned open, by what ended them.
  Family<Counter> kafka_transactions_aborted{"cause"};
  Histogram kafka_commit_seconds{
      // outboxd_kafka_transaction_commit_seconds
      {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}};
  Histogram commit_to_ack_seconds{
      // outboxd_commit_to_ack_seconds
      {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}};

  // Change handler (src/relay/change_handler.cc), by table: every slot's stream reads the same
  // outbox tables. Rows published with an empty aggregate id or type (empty_keys = "publish").
  Family<Counter> empty_key_events{"table"};  // outboxd_empty_key_events_total
  // UPDATEs of outbox rows skipped or refused (op_invalid_behavior).
  Family<Counter> invalid_operations{"table"};  // outboxd_invalid_operations_total

  // outboxd_stage_seconds{stage}: src/relay's pipeline stages. Process-wide, not per slot:
  // produced and acked belong to the shared producer, and a latency distribution over all
  // streams is what the stages are read for (a slot label would multiply 76 series by N).
  StageMetrics stages;

  // What describes one slot's stream, by slot name, exported with a `slot` label; see
  // SlotMetrics.
  Family<SlotMetrics> slots{"slot"};
  // The metrics of `slot`, created on first use; the reference stays valid for this object's
  // life, so a stream or monitor looks its slot up once. Thread-safe.
  SlotMetrics& Slot(std::string_view slot) { return slots.With(slot); }

  // Streams (src/relay/stream_supervisor.cc) and the producer (src/relay/publisher.cc).
  Family<Counter> reconnects{"server"};  // outboxd_reconnects_total: "postgres" | "kafka"
};

}  // namespace outboxd::metrics
