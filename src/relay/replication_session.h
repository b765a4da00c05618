#pragma once
// The replication side of one slot: reads WAL messages off the CopyBoth channel, answers
// keepalives, and owns the positions (what was received, where the server's WAL ends, what was
// confirmed). It confirms what its ConfirmSource says Kafka has covered (DESIGN.md invariants 1
// and 5): as soon as that moves (at most one update per kConfirmGap), on a timer as a
// heartbeat, and whenever the server asks. Prompt confirms bound what a kill -9 replays and
// end a drain when its last record is acknowledged, not at the next heartbeat.

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "common/types.h"
#include "metrics/metrics.h"
#include "pg/replication_stream.h"
#include "relay/confirm_source.h"

namespace outboxd::relay {

// One pgoutput message as the walsender sent it. `data` points into `buffer`, which moves
// with the message.
struct WalMessage {
  pg::CopyBuffer buffer;
  Lsn wal_start;
  std::string_view data;
  std::chrono::steady_clock::time_point received;  // When it was read (stage metrics).
};

class ReplicationSession {
 public:
  // Least time between two status updates sent because the confirmable position moved.
  static constexpr std::chrono::milliseconds kConfirmGap{50};

  // `confirm_source`, `clock`, `metrics` and `slot_metrics` (the slot's, for its lag and
  // confirmed LSN) must outlive the session. Runs on the loop thread.
  ReplicationSession(std::unique_ptr<pg::ReplicationChannel> channel,
                     const ConfirmSource& confirm_source, const Clock& clock,
                     std::chrono::milliseconds status_interval, metrics::RelayMetrics& metrics,
                     metrics::SlotMetrics& slot_metrics);

  // The next WAL message, answering keepalives on the way; nullopt when nothing more has
  // arrived. DataLoss on malformed framing; Unavailable when the stream ends or breaks.
  absl::StatusOr<std::optional<WalMessage>> Next();

  // Sends a status update when the heartbeat interval has elapsed since the last one, or when
  // the confirmable position moved and kConfirmGap has.
  absl::Status SendStatusIfDue();
  // Confirms the newest safe position now (never lower than one already sent).
  absl::Status SendStatus();

  int socket() const { return channel_->socket(); }
  // True unless the last Next() found nothing: libpq may then still hold whole messages it
  // read off the socket, which poll() cannot see, so the loop must not wait before reading.
  bool MayHaveBufferedInput() const { return may_have_input_; }
  bool HasPendingOutput() const { return channel_->HasPendingOutput(); }
  absl::Status FlushOutput() { return channel_->Flush(); }
  // When SendStatusIfDue() will next have something to do: the loop's poll deadline.
  std::chrono::steady_clock::time_point next_status_due() const;
  // Before this no acknowledgement can be confirmed (kConfirmGap after the last update).
  std::chrono::steady_clock::time_point next_confirm_allowed() const {
    return last_status_ + kConfirmGap;
  }
  Lsn confirmed_lsn() const { return confirmed_lsn_; }
  // The newest position Kafka has covered, confirmed or not yet (at most kConfirmGap ahead).
  Lsn confirmable_lsn() const;
  Lsn received_lsn() const { return received_lsn_; }
  // The newest keepalive's WAL end: the walsender had sent every transaction committing
  // before it.
  Lsn keepalive_lsn() const { return keepalive_lsn_; }

 private:
  void UpdateLagMetrics();

  std::unique_ptr<pg::ReplicationChannel> channel_;
  const ConfirmSource& confirm_source_;
  const Clock& clock_;
  const std::chrono::milliseconds status_interval_;
  metrics::RelayMetrics& metrics_;
  metrics::SlotMetrics& slot_metrics_;

  Lsn received_lsn_;            // Newest WAL position received.
  Lsn keepalive_lsn_;           // Newest keepalive WAL end: safe whenever the tracker is idle.
  Lsn server_wal_end_;          // Newest end of WAL the server reported.
  Lsn confirmed_lsn_;           // Newest flush position sent; never goes back.
  bool may_have_input_ = true;  // See MayHaveBufferedInput().
  std::chrono::steady_clock::time_point next_status_;  // Heartbeat deadline.
  std::chrono::steady_clock::time_point last_status_;  // When the last update was sent.
  // Since when the confirmable position is ahead of the confirmed one (stage metrics).
  std::optional<std::chrono::steady_clock::time_point> confirmable_since_;
};

}  // namespace outboxd::relay
