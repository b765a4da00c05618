#pragma once
// One replication session: Postgres slot → mapper → Kafka, confirming only what Kafka has
// acknowledged. Built from scratch on every (re)start, so all state comes from the slot's
// confirmed LSN (DESIGN.md invariant 6).

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "common/clock.h"
#include "common/types.h"
#include "config/config.h"
#include "kafka/producer.h"
#include "outbox/mapper.h"
#include "pg/replication_stream.h"
#include "pgoutput/messages.h"
#include "relay/ack_tracker.h"
#include "relay/dead_letter.h"
#include "relay/metrics.h"

namespace outboxd::relay {

class Pipeline final : private kafka::DeliveryHandler {
 public:
  // `config`, `clock` and `metrics` must outlive the Pipeline. `stop_fd` becomes readable when
  // the process is asked to stop (a signalfd); Run then drains and returns OK.
  Pipeline(const config::Config& config, const Clock& clock, Metrics& metrics, int stop_fd);

  // Connects, streams until asked to stop (OK) or until something fails. Unavailable means
  // "restart me from the confirmed LSN"; any other error is not worth retrying.
  absl::Status Run();

 private:
  absl::Status Connect();
  absl::Status Loop();
  absl::Status PollOnce();
  absl::Status ReadReplication();
  void LogStopSignal();
  // ResourceExhausted: Kafka's queue is full; keep `buffer` and call again later.
  absl::Status HandleCopyData(const pg::CopyBuffer& buffer);
  absl::Status HandleMessage(const pgoutput::Message& message, Lsn wal_start);
  absl::Status HandleInsert(const pgoutput::Insert& insert, Lsn wal_start);
  absl::Status DeadLetterRow(const pgoutput::Insert& insert, const RecordOrigin& origin,
                             std::string_view reason);
  // Hands `record` to Kafka, remembering `origin` until its delivery report.
  absl::Status Produce(const kafka::Record& record, const RecordOrigin& origin);
  absl::Status ProduceDeadLetters();
  absl::Status SendStatus();
  Lsn ConfirmableLsn() const;
  void LogProgress(std::chrono::steady_clock::time_point now);
  absl::Status Shutdown();

  // kafka::DeliveryHandler; called inside Producer::Poll on the loop thread.
  void OnDelivered(uint64_t tag) override;
  void OnFailed(uint64_t tag, rd_kafka_resp_err_t err, const rd_kafka_message_t& message) override;
  void NoteUnknownReport(uint64_t tag);

  const config::Config& config_;
  const Clock& clock_;
  Metrics& metrics_;
  const int stop_fd_;

  std::optional<pg::ReplicationStream> stream_;
  std::unique_ptr<kafka::Producer> producer_;
  outbox::Mapper mapper_;
  AckTracker tracker_;
  outbox::OutboxEvent event_;                  // Reused for every row.
  std::vector<kafka::Header> header_scratch_;  // Views into event_, reused for every row.

  std::optional<pg::CopyBuffer> blocked_;  // Message waiting for room in Kafka's queue.
  std::deque<DeadLetter> dead_letters_;    // Waiting for room in Kafka's queue.
  // Records handed to Kafka and not yet reported on, by the sequence number in their opaque;
  // bounded by the producer's queue size.
  absl::flat_hash_map<uint64_t, RecordOrigin> in_flight_;
  uint64_t next_record_seq_ = 0;
  std::optional<std::string> restart_reason_;  // Set by a delivery failure that needs a replay.
  bool stopping_ = false;

  AckTracker::TxId current_tx_ = 0;
  Xid current_xid_;
  Lsn received_lsn_;   // Newest WAL position received.
  Lsn keepalive_lsn_;  // Newest keepalive WAL end: safe whenever the tracker is idle.
  Lsn confirmed_lsn_;  // Newest flush position sent; never goes back.
  std::chrono::steady_clock::time_point next_status_;
  std::chrono::steady_clock::time_point next_progress_;
  uint64_t progress_published_ = 0;  // events_published at the last progress line.
};

}  // namespace outboxd::relay
