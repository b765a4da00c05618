#include "relay/replication_session.h"

#include <algorithm>
#include <variant>

#include "common/status.h"
#include "common/strings.h"
#include "pg/replication_protocol.h"

namespace outboxd::relay {

ReplicationSession::ReplicationSession(std::unique_ptr<pg::ReplicationChannel> channel,
                                       const ConfirmSource& confirm_source, const Clock& clock,
                                       std::chrono::milliseconds status_interval,
                                       metrics::RelayMetrics& metrics,
                                       metrics::SlotMetrics& slot_metrics)
    : channel_(std::move(channel)),
      confirm_source_(confirm_source),
      clock_(clock),
      status_interval_(status_interval),
      metrics_(metrics),
      slot_metrics_(slot_metrics),
      next_status_(clock.SteadyNow()),
      last_status_(clock.SteadyNow() - kConfirmGap) {}

absl::StatusOr<std::optional<WalMessage>> ReplicationSession::Next() {
  while (true) {
    auto buffer = channel_->Read();
    if (!buffer.ok()) return buffer.status();
    may_have_input_ = buffer->has_value();
    if (!may_have_input_) return std::optional<WalMessage>();
    auto copy = pg::ParseCopyMessage((*buffer)->view());
    if (!copy.ok()) return copy.status();
    if (const auto* xlog = std::get_if<pg::XLogData>(&*copy)) {
      received_lsn_ = std::max(received_lsn_, xlog->wal_start);
      server_wal_end_ = std::max(server_wal_end_, xlog->wal_end);
      return std::optional<WalMessage>(WalMessage{.buffer = std::move(**buffer),
                                                  .wal_start = xlog->wal_start,
                                                  .data = xlog->data,
                                                  .received = clock_.SteadyNow()});
    }
    const auto& keepalive = std::get<pg::Keepalive>(*copy);
    received_lsn_ = std::max(received_lsn_, keepalive.wal_end);
    server_wal_end_ = std::max(server_wal_end_, keepalive.wal_end);
    // The walsender has sent everything before wal_end, and this keepalive came after it. So
    // once no transaction is open and nothing awaits Kafka, everything before wal_end is safe
    // even if no outbox row changed: the slot moves on (invariant 5). That may be long after
    // this keepalive (a broker outage), and the server sends no new one while we report having
    // received everything, so remember it rather than require idleness now.
    keepalive_lsn_ = std::max(keepalive_lsn_, keepalive.wal_end);
    if (keepalive.reply_requested) {
      if (auto s = SendStatus(); !s.ok()) return s;
    }
  }
}

Lsn ReplicationSession::confirmable_lsn() const {
  Lsn lsn = std::max(confirmed_lsn_, confirm_source_.safe_lsn());
  if (confirm_source_.Idle()) lsn = std::max(lsn, keepalive_lsn_);
  return lsn;
}

std::chrono::steady_clock::time_point ReplicationSession::next_status_due() const {
  if (confirmable_lsn() > confirmed_lsn_) return std::min(next_status_, last_status_ + kConfirmGap);
  return next_status_;
}

absl::Status ReplicationSession::SendStatusIfDue() {
  const auto now = clock_.SteadyNow();
  if (!confirmable_since_ && confirmable_lsn() > confirmed_lsn_) confirmable_since_ = now;
  if (now < next_status_due()) return absl::OkStatus();
  return SendStatus();
}

absl::Status ReplicationSession::SendStatus() {
  const Lsn previous = confirmed_lsn_;
  confirmed_lsn_ = confirmable_lsn();
  last_status_ = clock_.SteadyNow();
  if (confirmable_since_ && confirmed_lsn_ > previous) {
    metrics_.stages.confirmed.Observe(
        std::chrono::duration<double>(last_status_ - *confirmable_since_).count());
    confirmable_since_.reset();
  }
  next_status_ = last_status_ + status_interval_;
  UpdateLagMetrics();
  const Lsn written = std::max(received_lsn_, confirmed_lsn_);
  return channel_->SendStatus(
      pg::EncodeStandbyStatus(written, confirmed_lsn_, clock_.PostgresNowMicros(), false));
}

void ReplicationSession::UpdateLagMetrics() {
  slot_metrics_.confirmed_lsn.Set(static_cast<double>(confirmed_lsn_.value()));
  const uint64_t behind =
      server_wal_end_ > confirmed_lsn_ ? server_wal_end_.value() - confirmed_lsn_.value() : 0;
  slot_metrics_.replication_lag_bytes.Set(static_cast<double>(behind));
  const std::optional<int64_t> oldest = confirm_source_.OldestPendingCommitTime();
  const int64_t age_us = oldest ? std::max<int64_t>(0, clock_.PostgresNowMicros() - *oldest) : 0;
  slot_metrics_.replication_lag_seconds.Set(static_cast<double>(age_us) / 1e6);
}

}  // namespace outboxd::relay
