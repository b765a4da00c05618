// The /metrics catalogue: every RelayMetrics field under its exported name. The names follow
// Prometheus's rules: `outboxd_` prefix, base units in the name (_bytes, _seconds), `_total`
// on counters and only on counters.

#include "metrics/prometheus_text.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace outboxd::metrics {
namespace {

void RenderPublisher(const RelayMetrics& m, PrometheusWriter& w) {
  w.AddFamily("outboxd_events_published_total",
              "Records the broker acknowledged, by topic (dead letters included).",
              m.events_published);
  w.AddFamily("outboxd_published_bytes_total",
              "Key plus value bytes of acknowledged records, by topic.", m.bytes_published);
  w.AddFamily("outboxd_delivery_errors_total", "Failed delivery reports, by librdkafka error.",
              m.delivery_errors);
  w.AddCounter("outboxd_kafka_retries_total", "Produce requests librdkafka retried.",
               m.kafka_retries);
  w.AddFamily("outboxd_dead_lettered_events_total",
              "Rows sent to the dead-letter topic instead of their own, by reason.",
              m.dead_lettered);
  w.AddGauge("outboxd_events_in_flight", "Records produced and not yet acknowledged.",
             m.events_in_flight.value());
  w.AddCounter("outboxd_kafka_transactions_committed_total",
               "Kafka transactions committed (delivery = exactly_once).", m.kafka_transactions);
  w.AddCounter("outboxd_kafka_transaction_records_total",
               "Records committed in Kafka transactions, position records included.",
               m.kafka_transaction_records);
  w.AddFamily("outboxd_kafka_transactions_aborted_total",
              "Kafka transactions abandoned before their commit, by cause: postgres (the "
              "stream failed; its successor replays them), kafka (a failed delivery or "
              "commit), fenced (another instance took over).",
              m.kafka_transactions_aborted);
  w.AddHistogram("outboxd_kafka_transaction_commit_seconds",
                 "Time commit_transaction took: flushing the transaction's last records, then "
                 "the commit itself.",
                 m.kafka_commit_seconds);
  w.AddHistogram("outboxd_commit_to_ack_seconds",
                 "Time from the Postgres commit of a row to the broker's acknowledgement of it.",
                 m.commit_to_ack_seconds);
}

// Each slot's SlotMetrics, sorted by slot name.
using Slots = std::vector<std::pair<std::string, const SlotMetrics*>>;

Slots SortedSlots(const RelayMetrics& m) {
  Slots slots = m.slots.Children();
  std::sort(slots.begin(), slots.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return slots;
}

// One (slot, value) pair per slot: what `read` gives of its SlotMetrics.
template <typename Read>
auto PerSlot(const Slots& slots, Read read) {
  std::vector<std::pair<std::string, decltype(read(std::declval<const SlotMetrics&>()))>> out;
  out.reserve(slots.size());
  for (const auto& [slot, metrics] : slots) out.emplace_back(slot, read(*metrics));
  return out;
}

void RenderReplication(const RelayMetrics& m, const Slots& slots, PrometheusWriter& w) {
  w.AddLabelledGauge(
      "outboxd_replication_lag_bytes",
      "Server WAL end minus the flush position confirmed to Postgres, by slot.", "slot",
      PerSlot(slots, [](const SlotMetrics& s) { return s.replication_lag_bytes.value(); }));
  w.AddLabelledGauge(
      "outboxd_replication_lag_seconds",
      "Age of the oldest commit not yet acknowledged by Kafka (0 when none is pending), by slot.",
      "slot",
      PerSlot(slots, [](const SlotMetrics& s) { return s.replication_lag_seconds.value(); }));
  w.AddLabelledGauge(
      "outboxd_confirmed_lsn",
      "Last flush LSN sent to Postgres, as an integer (pg_lsn minus '0/0'), by slot.", "slot",
      PerSlot(slots, [](const SlotMetrics& s) { return s.confirmed_lsn.value(); }));
  w.AddLabelledCounter("outboxd_transactions_total",
                       "Commits decoded from the replication stream, by slot.", "slot",
                       PerSlot(slots, [](const SlotMetrics& s) { return s.transactions.value(); }));
  w.AddLabelledCounter(
      "outboxd_replayed_transactions_skipped_total",
      "Transactions sent again from the slot (after a Postgres crash moved it back) that the "
      "position record shows Kafka already has: not published again.",
      "slot",
      PerSlot(slots, [](const SlotMetrics& s) { return s.replayed_transactions_skipped.value(); }));
  w.AddLabelledCounter("outboxd_rows_ignored_total",
                       "Changes decoded for tables outside the configured outbox tables, by slot.",
                       "slot",
                       PerSlot(slots, [](const SlotMetrics& s) { return s.rows_ignored.value(); }));
  w.AddFamily("outboxd_empty_key_events_total",
              "Rows published with an empty aggregate id or type (empty_keys = publish).",
              m.empty_key_events);
  w.AddFamily("outboxd_invalid_operations_total",
              "UPDATEs of outbox rows, skipped or refused by op_invalid_behavior.",
              m.invalid_operations);
  // Process-wide, over every slot's stream (see RelayMetrics::stages).
  w.AddLabelledHistograms(
      "outboxd_stage_seconds",
      "Time a row spends in each relay stage: received (commit to its transaction read), "
      "produced (read to handed to librdkafka, backpressure included), acked (handed to "
      "delivery report), confirmed (safe to confirmed to Postgres).",
      "stage",
      {{"received", &m.stages.received},
       {"produced", &m.stages.produced},
       {"acked", &m.stages.acked},
       {"confirmed", &m.stages.confirmed}});
  w.AddLabelledHistograms(
      "outboxd_kafka_transaction_phase_seconds",
      "Where an exactly_once Kafka transaction's time goes: first_ack (begun to its first "
      "delivery report), last_ack (closed to its last), commit_call (commit_transaction itself).",
      "phase",
      {{"first_ack", &m.transaction_phases.first_ack},
       {"last_ack", &m.transaction_phases.last_ack},
       {"commit_call", &m.transaction_phases.commit_call}});
}

void RenderSlot(const Slots& slots, PrometheusWriter& w) {
  w.AddLabelledGauge(
      "outboxd_slot_retained_wal_bytes",
      "WAL the slot keeps on the server (current WAL LSN minus restart_lsn), by slot.", "slot",
      PerSlot(slots, [](const SlotMetrics& s) { return s.slot_retained_wal_bytes.value(); }));
  w.AddLabelledGauge(
      "outboxd_slot_safe_wal_size_bytes",
      "pg_replication_slots.safe_wal_size: WAL that can still be written before the slot is "
      "lost; NaN when max_slot_wal_keep_size is unlimited.",
      "slot",
      PerSlot(slots, [](const SlotMetrics& s) { return s.slot_safe_wal_size_bytes.value(); }));
  w.AddNestedFamilies(
      "outboxd_slot_wal_status",
      "pg_replication_slots.wal_status: 1 for the current status, 0 for the others, by slot.",
      "slot", PerSlot(slots, [](const SlotMetrics& s) { return &s.slot_wal_status; }));
}

void RenderSupervisor(const RelayMetrics& m, const Slots& slots, PrometheusWriter& w) {
  w.AddNestedFamilies(
      "outboxd_restarts_total",
      "Restarts of a slot's stream from its confirmed LSN, by slot and cause (a relay restart "
      "counts for every slot).",
      "slot", PerSlot(slots, [](const SlotMetrics& s) { return &s.restarts; }));
  w.AddFamily("outboxd_reconnects_total", "Reconnections, by server (postgres, kafka).",
              m.reconnects);
}

void RenderHealth(const Health::Snapshot& health, PrometheusWriter& w) {
  w.AddGauge("outboxd_ready", "1 when /readyz answers 200 (streaming, producer and slot ok).",
             health.Ready() ? 1 : 0);
  w.AddLabelledGauge("outboxd_health_component_ok",
                     "1 when the readiness component is ok; /readyz gives the reason.", "component",
                     {{"producer", health.producer.ok ? 1 : 0},
                      {"slot", health.slot.ok ? 1 : 0},
                      {"streaming", health.streaming.ok ? 1 : 0}});
}

}  // namespace

std::string RenderPrometheus(const RelayMetrics& metrics, const BuildInfo& build,
                             const Health::Snapshot* health) {
  PrometheusWriter w;
  RenderPublisher(metrics, w);
  const Slots slots = SortedSlots(metrics);
  RenderReplication(metrics, slots, w);
  RenderSlot(slots, w);
  RenderSupervisor(metrics, slots, w);
  if (health != nullptr) RenderHealth(*health, w);
  w.AddInfo("outboxd_build_info",
            "outboxd's version and git commit and the library versions it runs with; always 1.",
            {{"version", build.version},
             {"commit", build.commit},
             {"librdkafka", build.librdkafka},
             {"libpq", build.libpq},
             {"simdjson", build.simdjson}});
  return w.Take();
}

}  // namespace outboxd::metrics
