#pragma once
// One replication slot's stream: its replication session (socket, keepalives, status updates,
// positions), decoding and transaction framing (ChangeHandler), its AckTracker, the message
// waiting for room in Kafka's queue, and its own failure Status. Records go out through the
// Publisher shared by every stream; nothing here assumes it is the only stream.
//
// A stream is built anew on every (re)start of its slot, so all its state comes from the slot's
// confirmed LSN (DESIGN.md invariant 6).

#include <poll.h>

#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "relay/ack_tracker.h"
#include "relay/change_handler.h"
#include "relay/committed_position.h"
#include "relay/confirm_source.h"
#include "relay/context.h"
#include "relay/publisher.h"
#include "relay/replication_session.h"

namespace outboxd::relay {

// Runs on the loop thread.
class SlotStream {
 public:
  // Reads what the mapping needs from the catalog, connects and starts streaming `slot`.
  // `context`, `publisher` and `encoder` must outlive the stream. Errors as
  // Connectors::replication.
  static absl::StatusOr<std::unique_ptr<SlotStream>> Open(RelayContext& context,
                                                          Publisher& publisher,
                                                          const outbox::Encoder& encoder,
                                                          std::string slot);
  ~SlotStream();  // Detaches from the publisher.
  SlotStream(const SlotStream&) = delete;
  SlotStream& operator=(const SlotStream&) = delete;

  // Before each poll: sends a status update when one is due and logs progress.
  absl::Status Prepare();
  // What to poll the replication socket for, and by when the loop must call again.
  pollfd PollRequest() const;
  std::chrono::steady_clock::time_point Deadline() const;
  // True when a delivery report may matter now: reading waits for Kafka's queue, or a
  // confirmation may go out. Otherwise reports are served without waking for them.
  bool WantsAcks() const;
  // After poll: `revents` for the socket. Flushes output, retries the message waiting for
  // Kafka, and reads what arrived (a bounded batch). Errors end the stream; Unavailable means
  // "restart me from the confirmed LSN".
  absl::Status Service(short revents);

  // From now on read only to the Commit of the open transaction (a stop was requested), so
  // that what was produced of it can be confirmed and a restart repeats nothing.
  void FinishOpenTransaction() { finishing_ = true; }
  bool InTransaction() const { return changes_.InTransaction(); }
  Xid open_xid() const { return changes_.open_xid(); }
  // Records handed to Kafka and not yet acknowledged, including dead letters waiting.
  bool HasOutstanding() const;
  uint64_t outstanding_records() const { return tracker_.outstanding_records(); }
  absl::Status SendStatusIfDue() { return session_->SendStatusIfDue(); }
  // exactly_once, at shutdown: finishes a commit under way, then commits the open Kafka
  // transaction with the position record of the newest Commit it holds; the slot may confirm
  // that from now on. Blocks. Leaves a transaction open when a Postgres transaction is half
  // read (a restart aborts it).
  absl::Status CommitTransaction();
  // Confirms what Kafka acknowledged and pushes it out before the connection closes, then
  // hands the position record for it to the publisher (flush it before the publisher goes).
  absl::Status SendFinalStatus();
  Lsn confirmed_lsn() const { return session_->confirmed_lsn(); }
  // Resharding (RelayContext::stop_at): every transaction committing before the cut was read,
  // nothing after it, and Kafka acknowledged (exactly_once: committed) all of it.
  bool SettledAtCut() const;
  const std::string& slot() const { return slot_; }

 private:
  SlotStream(RelayContext& context, Publisher& publisher, const outbox::Encoder& encoder,
             std::string slot);
  absl::Status Connect();
  // A message waits for room in Kafka's queue or for a commit, a dead letter of this stream
  // waits, or a commit is under way.
  bool HeldUpByKafka() const;
  bool Reading() const;
  // Hands the messages read ahead to the ChangeHandler, in order, while Kafka takes them.
  absl::Status HandleWaiting();
  void Wait(WalMessage wal);
  absl::Status ReadReplication();
  void LogProgress(std::chrono::steady_clock::time_point now);
  // Resharding: true once `wal`, outside a transaction, starts past the cut (a Begin whose
  // commit is at or after it, or a message outside transactions). The stream reads no more:
  // that and what follows belong to the new slots.
  bool ReachesCut(const WalMessage& wal);
  // Resharding: a keepalive past the cut with nothing left to handle also reaches it.
  void CheckKeepaliveCut();
  // Hands the position record for the confirmed LSN to the publisher when it moved: quickly
  // until the first is written (a failover right after start-up already finds one), then at
  // most once per interval.
  void WritePositionIfDue(std::chrono::steady_clock::time_point now);
  void WritePosition();
  // exactly_once: Close once the open Kafka transaction is due at a Postgres commit, or inside
  // a Postgres transaction that kept it open for transaction_split_ms.
  absl::Status CloseIfDue();
  // Closes the open Kafka transaction with the position record of the newest Commit read and
  // `partial`, the part of the open Postgres transaction it holds when split there. Its commit
  // finishes in FinishCommit once Kafka acknowledged its records; reading goes on meanwhile.
  absl::Status Close(position::PartialTransaction partial);
  // Commits the closed transaction once its records are acknowledged (or at once, blocking,
  // with `wait`); the slot may confirm its position from then on.
  absl::Status FinishCommit(bool wait);

  // What the session may confirm: the delivery side's answer (the tracker, or committed_ with
  // exactly_once), but never idle while messages read wait unhandled in waiting_: a keepalive
  // read behind them says the walsender sent them, not that Kafka has them.
  class UnlessWaiting final : public ConfirmSource {
   public:
    UnlessWaiting(const ConfirmSource& delivery, const std::deque<WalMessage>& waiting)
        : delivery_(delivery), waiting_(waiting) {}
    Lsn safe_lsn() const override { return delivery_.safe_lsn(); }
    bool Idle() const override { return delivery_.Idle() && waiting_.empty(); }
    std::optional<int64_t> OldestPendingCommitTime() const override {
      return delivery_.OldestPendingCommitTime();
    }

   private:
    const ConfirmSource& delivery_;
    const std::deque<WalMessage>& waiting_;
  };

  RelayContext& ctx_;
  Publisher& publisher_;
  const std::string slot_;
  AckTracker tracker_;
  CommittedPosition committed_;  // What the slot may confirm in exactly_once mode.
  const StreamId id_;
  ChangeHandler changes_;
  std::unique_ptr<ReplicationSession> session_;
  // Messages read but not yet handled: one waiting for room in Kafka's queue, or those read
  // ahead while a Kafka transaction commits (at most kReadAheadBytes).
  std::deque<WalMessage> waiting_;
  size_t waiting_bytes_ = 0;
  std::optional<UnlessWaiting> confirm_source_;  // Set at Connect; the session's.
  // The closed Kafka transaction whose commit is under way, and what it lets the slot confirm.
  struct ClosedTransaction {
    Lsn lsn;
    std::optional<position::PositionRecord> record;
  };
  std::optional<ClosedTransaction> closed_;
  bool finishing_ = false;     // See FinishOpenTransaction().
  bool at_cut_ = false;        // See ReachesCut().
  bool split_logged_ = false;  // For the open Postgres transaction.
  std::chrono::steady_clock::time_point next_progress_;
  uint64_t progress_published_ = 0;  // Events published at the last progress line.
  std::chrono::steady_clock::time_point next_position_;
  bool position_written_ = false;
  Lsn position_lsn_;  // Of the last position record written.
};

}  // namespace outboxd::relay
