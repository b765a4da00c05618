#pragma once
// The life of a row, from the socket to the confirmed LSN:
//   1. pg/replication_stream.cc reads a CopyData message off the walsender's socket;
//   2. relay/replication_session.cc unframes it (pg/replication_protocol.cc), answers
//      keepalives and hands the pgoutput bytes to this loop;
//   3. pgoutput/decoder.cc decodes Begin/Relation/Insert/Commit; this loop opens and commits
//      the transaction in relay/ack_tracker.cc;
//   4. outbox/mapper.cc turns an outbox Insert into an OutboxEvent (topic, key, value, headers);
//   5. relay/publisher.cc hands it to kafka/producer.cc (librdkafka), remembering it in flight;
//      a row that cannot be mapped or produced goes to the dead-letter topic instead;
//   6. the delivery report comes back through Publisher::OnDelivered, which acknowledges the
//      record in the AckTracker;
//   7. once the transaction and all before it are acknowledged, ReplicationSession confirms
//      its Commit.end_lsn to Postgres in the next standby status update.
//
// Pipeline is the thin loop that connects the two stages for one session. It is built anew
// on every (re)start, so all state comes from the slot's confirmed LSN (DESIGN.md
// invariant 6).

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "outbox/mapper.h"
#include "pgoutput/messages.h"
#include "relay/ack_tracker.h"
#include "relay/context.h"
#include "relay/publisher.h"
#include "relay/replication_session.h"

namespace outboxd::relay {

class Pipeline {
 public:
  // `context` must outlive the Pipeline.
  explicit Pipeline(RelayContext& context);

  // Connects, streams until asked to stop or until something fails. After a stop it reads on
  // to the end of an open transaction and drains (both within shutdown_timeout_ms), confirms
  // what Kafka acknowledged and returns OK, or the
  // error that kept it from confirming. Unavailable means "restart me from the confirmed
  // LSN"; any other error is not worth retrying.
  absl::Status Run();

  // Which side failed, for the restarts metric: "postgres", "kafka" or "slot".
  std::string_view failure_cause() const { return failure_cause_; }
  // True once streaming started (the connection and the producer were established).
  bool connected() const { return session_ != nullptr; }

 private:
  absl::Status Connect();
  absl::Status Loop();
  absl::Status PollOnce();
  absl::Status ReadReplication();
  // ResourceExhausted: Kafka's queue is full; keep the message and call again later.
  absl::Status HandleWal(const WalMessage& wal);
  absl::Status HandleMessage(const pgoutput::Message& message, const WalMessage& wal);
  // table.op.invalid.behavior for an UPDATE; non-outbox tables count as ignored rows.
  absl::Status HandleUpdate(const pgoutput::Update& update);
  absl::Status HandleInsert(const pgoutput::Insert& insert, const WalMessage& wal);
  absl::Status DeadLetterRow(const pgoutput::Insert& insert, const RecordOrigin& origin,
                             std::string_view reason, std::string_view label);
  // The origin of a row or message at `lsn` of the current transaction.
  RecordOrigin OriginAt(Lsn lsn, RelationId relation, const WalMessage& wal);
  // Where the record at `origin` was read, for the Mapper.
  outbox::EventSource SourceOf(const RecordOrigin& origin) const;
  // Produces event_ as `mapped` (the mapper's result) left it. What the mapper or the producer
  // refuses goes through `dead_letter(reason, label)`; anything else is returned as it is.
  absl::Status PublishMapped(
      absl::Status mapped, const RecordOrigin& origin,
      absl::FunctionRef<absl::Status(std::string_view reason, std::string_view label)> dead_letter);
  // The table-less outbox (pipeline_messages.cc).
  bool IsOutboxPrefix(std::string_view prefix) const;
  absl::Status HandleLogicalMessage(const pgoutput::LogicalMessage& message, const WalMessage& wal);
  absl::Status PublishMessage(const pgoutput::LogicalMessage& message, const WalMessage& wal);
  absl::Status DeadLetterMessage(const pgoutput::LogicalMessage& message,
                                 const RecordOrigin& origin, std::string_view reason,
                                 std::string_view label);
  // A stop between a transaction's rows reads on to its Commit (until stop_deadline_ or a
  // second stop request), so what was produced of it can be confirmed and a restart after a
  // clean stop repeats nothing. A failure meanwhile is logged and ends the wait: Shutdown
  // then confirms what it can.
  void FinishOpenTransaction();
  absl::Status CheckStages();
  void ReportProducerHealth();
  void LogProgress(std::chrono::steady_clock::time_point now);
  absl::Status Shutdown();

  RelayContext& ctx_;
  const config::Config& config_;
  const std::unique_ptr<const outbox::Encoder> encoder_;
  outbox::Mapper mapper_;
  AckTracker tracker_;
  std::unique_ptr<Publisher> publisher_;
  std::unique_ptr<ReplicationSession> session_;
  outbox::OutboxEvent event_;  // Reused for every row.

  std::optional<WalMessage> blocked_;  // Message waiting for room in Kafka's queue.
  bool stopping_ = false;
  // Set at a stop request: finishing the open transaction and draining share
  // shutdown_timeout_ms.
  std::optional<std::chrono::steady_clock::time_point> stop_deadline_;
  std::string_view failure_cause_ = "postgres";
  std::optional<bool> producer_healthy_;  // Last value reported to Health.

  AckTracker::TxId current_tx_ = 0;
  Xid current_xid_;
  int64_t current_commit_time_us_ = 0;
  Lsn current_commit_lsn_;                // Begin's final_lsn, for the contract's source position.
  bool standalone_message_open_ = false;  // A non-transactional message's own unit is open.
  std::chrono::steady_clock::time_point next_progress_;
  uint64_t progress_published_ = 0;  // Events published at the last progress line.
};

}  // namespace outboxd::relay
