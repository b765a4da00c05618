#include "sample_metrics.h"

#include <cmath>

namespace outboxd::metrics::testing {

void Populate(RelayMetrics& m) {
  m.events_published.With("outbox.event.orders").Add(3);
  m.events_published.With("outbox.event.customers").Add(2);
  m.events_published.With("outbox.dlq").Add(1);
  m.bytes_published.With("outbox.event.orders").Add(300);
  m.bytes_published.With("outbox.event.customers").Add(200);
  m.bytes_published.With("outbox.dlq").Add(17);
  m.delivery_errors.With("Local: Message timed out").Add(2);
  m.kafka_retries.Add(4);
  m.dead_lettered.With("payload is not valid JSON: \"x\\y\"\nat 1").Add(1);
  m.events_in_flight.Set(7);
  for (double v : {0.0005, 0.002, 0.004, 0.2, 120.0}) m.commit_to_ack_seconds.Observe(v);
  for (double v : {0.00005, 0.003}) m.stages.acked.Observe(v);
  m.empty_key_events.With("public.outbox").Add(2);
  m.invalid_operations.With("public.outbox").Add(1);
  // Two parallel slots, added out of order: rendered sorted by slot.
  SlotMetrics& second = m.Slot("outboxd_1");
  second.replication_lag_bytes.Set(512);
  second.confirmed_lsn.Set(0x16B0000);
  second.transactions.Add(2);
  second.slot_retained_wal_bytes.Set(2048);
  second.slot_safe_wal_size_bytes.Set(1 << 30);
  second.slot_wal_status.With("extended").Set(1);
  second.slot_wal_status.With("reserved").Set(0);
  SlotMetrics& first = m.Slot("outboxd_0");
  first.replication_lag_bytes.Set(4096);
  first.replication_lag_seconds.Set(0.25);
  first.confirmed_lsn.Set(0x16B3748);
  first.transactions.Add(6);
  first.rows_ignored.Add(9);
  first.slot_retained_wal_bytes.Set(1 << 20);
  first.slot_safe_wal_size_bytes.Set(std::nan(""));
  first.slot_wal_status.With("reserved").Set(1);
  first.slot_wal_status.With("extended").Set(0);
  first.restarts.With("postgres").Add(1);
  m.reconnects.With("postgres").Add(2);
  m.reconnects.With("kafka").Add(1);
}

Health::Snapshot SampleHealth() {
  return {.streaming = {true, "streaming slot outboxd_0"},
          .producer = {false, "Kafka unreachable"},
          .slot = {true, "wal_status reserved"}};
}

}  // namespace outboxd::metrics::testing
