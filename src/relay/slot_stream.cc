#include "relay/slot_stream.h"

#include <algorithm>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "pgoutput/decoder.h"
#include "relay/failure.h"

namespace outboxd::relay {
namespace {

constexpr auto kBlockedRetry = std::chrono::milliseconds(20);
// How often a progress line is logged while events flow.
constexpr auto kProgressInterval = std::chrono::seconds(30);
// Bounded batch so delivery reports and status updates keep flowing under load.
constexpr int kMaxMessagesPerRound = 1024;
// exactly_once: how much WAL is read ahead while a Kafka transaction commits, so the walsender
// keeps decoding through the wait for its last acknowledgements (a few of Kafka's 2 MB queues;
// at 400 B rows a drain's commit waited for 1-3 MB of output).
constexpr size_t kReadAheadBytes = 4 << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<SlotStream>> SlotStream::Open(RelayContext& context,
                                                             Publisher& publisher,
                                                             const outbox::Encoder& encoder,
                                                             std::string slot) {
  std::unique_ptr<SlotStream> stream(new SlotStream(context, publisher, encoder, std::move(slot)));
  if (auto s = stream->Connect(); !s.ok()) return s;
  return stream;
}

SlotStream::SlotStream(RelayContext& context, Publisher& publisher, const outbox::Encoder& encoder,
                       std::string slot)
    : ctx_(context),
      publisher_(publisher),
      slot_(std::move(slot)),
      committed_(tracker_, publisher),
      id_(publisher.Attach(tracker_)),
      changes_(context.config, encoder, publisher, id_, tracker_, context.clock, context.metrics,
               slot_) {}

SlotStream::~SlotStream() { publisher_.Detach(id_); }

absl::Status SlotStream::Connect() {
  if (ctx_.connectors.not_null_columns) {
    auto not_null = ctx_.connectors.not_null_columns();
    if (!not_null.ok()) return not_null.status();
    // Before streaming: they apply from each table's next Relation message.
    for (auto& [table, columns] : *not_null) changes_.SetNotNullColumns(table, std::move(columns));
  }
  auto channel = ctx_.connectors.replication();
  if (!channel.ok()) return channel.status();
  // The connect checked the server against the position record: a replay from the slot's
  // confirmed LSN skips what the record says Kafka has.
  if (ctx_.positions != nullptr) {
    changes_.SkipPublishedUpTo(ctx_.positions->published_up_to(),
                               ctx_.positions->published_partial());
  }
  confirm_source_.emplace(
      publisher_.transactional() ? static_cast<const ConfirmSource&>(committed_) : tracker_,
      waiting_);
  session_ = std::make_unique<ReplicationSession>(
      std::move(*channel), *confirm_source_, ctx_.clock,
      std::chrono::milliseconds(ctx_.config.postgres.status_interval_ms), ctx_.metrics,
      ctx_.metrics.Slot(slot_));
  next_progress_ = ctx_.clock.SteadyNow() + kProgressInterval;
  return absl::OkStatus();
}

absl::Status SlotStream::Prepare() {
  if (auto s = session_->SendStatusIfDue(); !s.ok()) return s;
  const auto now = ctx_.clock.SteadyNow();
  if (now >= next_progress_) LogProgress(now);
  WritePositionIfDue(now);
  if (auto s = FinishCommit(/*wait=*/false); !s.ok()) return s;
  return CloseIfDue();
}

bool SlotStream::Reading() const {
  if (at_cut_) return false;
  if (finishing_ && !changes_.InTransaction()) return false;
  if (publisher_.dead_letters_waiting(id_)) return false;
  if (closed_) return waiting_bytes_ < kReadAheadBytes;
  return waiting_.empty();
}

pollfd SlotStream::PollRequest() const {
  // Backpressure (invariant 4): while Kafka's queue is full the socket is not read, and
  // Postgres keeps the WAL.
  return {.fd = session_->socket(),
          .events = static_cast<short>((Reading() ? POLLIN : 0) |
                                       (session_->HasPendingOutput() ? POLLOUT : 0)),
          .revents = 0};
}

bool SlotStream::HeldUpByKafka() const {
  return closed_ || !waiting_.empty() || publisher_.dead_letters_waiting(id_);
}

bool SlotStream::WantsAcks() const {
  return HeldUpByKafka() || ctx_.clock.SteadyNow() >= session_->next_confirm_allowed();
}

std::chrono::steady_clock::time_point SlotStream::Deadline() const {
  const auto now = ctx_.clock.SteadyNow();
  // A round that stopped at kMaxMessagesPerRound may have left whole messages in libpq's
  // buffer while the socket is quiet: waiting in poll() then stalls a drain for nothing.
  if (Reading() && session_->MayHaveBufferedInput()) return now;
  auto deadline = std::min(session_->next_status_due(), next_progress_);
  // A due Kafka transaction is committed at the next Postgres commit, which reading brings:
  // waking for it inside a Postgres transaction would only spin while Kafka holds reading up.
  if (!closed_ && publisher_.transaction_open() && !changes_.InTransaction()) {
    deadline = std::min(deadline, publisher_.transaction_due_at());
  }
  // Wake for the position record only when it has something new to say.
  if (ctx_.positions != nullptr && !publisher_.transactional() &&
      (!position_written_ || session_->confirmable_lsn() > position_lsn_)) {
    deadline = std::min(deadline, next_position_);
  }
  if (HeldUpByKafka()) deadline = std::min(deadline, now + kBlockedRetry);
  if (!WantsAcks() && tracker_.outstanding_records() > 0) {
    deadline = std::min(deadline, session_->next_confirm_allowed());
  }
  return deadline;
}

absl::Status SlotStream::Service(short revents) {
  if (revents & POLLOUT) {
    if (auto s = session_->FlushOutput(); !s.ok()) return s;
  }
  if (auto s = FinishCommit(/*wait=*/false); !s.ok()) return s;
  if (auto s = HandleWaiting(); !s.ok()) return s;
  if (!Reading()) return absl::OkStatus();
  // libpq may hold buffered messages even when the socket is quiet, so always try to read.
  if (auto s = ReadReplication(); !s.ok()) return s;
  CheckKeepaliveCut();
  return absl::OkStatus();
}

bool SlotStream::ReachesCut(const WalMessage& wal) {
  if (!ctx_.stop_at || changes_.InTransaction()) return false;
  auto message = pgoutput::Decode(wal.data);
  if (!message.ok()) return false;  // ChangeHandler reports it.
  Lsn lsn;
  if (const auto* begin = std::get_if<pgoutput::Begin>(&*message)) {
    lsn = begin->final_lsn;
  } else if (const auto* logical = std::get_if<pgoutput::LogicalMessage>(&*message)) {
    lsn = logical->lsn;
  } else {
    return false;
  }
  if (lsn < *ctx_.stop_at) return false;
  log::Info("slot {} reached the resharding cut {}: the new slots publish from {} on", slot_,
            ctx_.stop_at->ToString(), lsn.ToString());
  at_cut_ = true;
  return true;
}

void SlotStream::CheckKeepaliveCut() {
  if (!ctx_.stop_at || at_cut_ || !waiting_.empty() || changes_.InTransaction() ||
      session_->keepalive_lsn() < *ctx_.stop_at) {
    return;
  }
  log::Info("slot {} reached the resharding cut {} (the walsender sent everything before {})",
            slot_, ctx_.stop_at->ToString(), session_->keepalive_lsn().ToString());
  at_cut_ = true;
}

bool SlotStream::SettledAtCut() const {
  return at_cut_ && !HasOutstanding() && !closed_ && !publisher_.transaction_open();
}

absl::Status SlotStream::HandleWaiting() {
  for (int i = 0; i < kMaxMessagesPerRound && !waiting_.empty() && !closed_; ++i) {
    if (finishing_ && !changes_.InTransaction()) break;  // Stopping: no new transaction.
    if (at_cut_ || ReachesCut(waiting_.front())) break;
    absl::Status s = changes_.Handle(waiting_.front());
    if (absl::IsResourceExhausted(s)) return absl::OkStatus();
    waiting_bytes_ -= waiting_.front().data.size();
    waiting_.pop_front();
    if (!s.ok()) return s;
    if (auto c = CloseIfDue(); !c.ok()) return c;
  }
  return absl::OkStatus();
}

void SlotStream::Wait(WalMessage wal) {
  waiting_bytes_ += wal.data.size();
  waiting_.push_back(std::move(wal));
}

absl::Status SlotStream::ReadReplication() {
  for (int i = 0; i < kMaxMessagesPerRound && Reading(); ++i) {
    auto wal = session_->Next();
    if (!wal.ok()) return wal.status();
    if (!wal->has_value()) return absl::OkStatus();
    // Behind a message that waits, or while a commit is under way: in order, after it.
    if (!waiting_.empty() || closed_) {
      Wait(std::move(**wal));
      continue;
    }
    if (ReachesCut(**wal)) return absl::OkStatus();
    absl::Status s = changes_.Handle(**wal);
    if (absl::IsResourceExhausted(s)) {
      Wait(std::move(**wal));
      continue;
    }
    if (!s.ok()) return s;
    if (auto c = CloseIfDue(); !c.ok()) return c;
  }
  return absl::OkStatus();
}

bool SlotStream::HasOutstanding() const {
  return tracker_.outstanding_records() > 0 || publisher_.dead_letters_waiting(id_);
}

absl::Status SlotStream::SendFinalStatus() {
  if (auto s = session_->SendStatus(); !s.ok()) return s;
  for (int i = 0; i < 100 && session_->HasPendingOutput(); ++i) {
    if (auto s = session_->FlushOutput(); !s.ok()) return s;
    pollfd fd{.fd = session_->socket(), .events = POLLOUT, .revents = 0};
    ctx_.connectors.poll(&fd, 1, 10);
  }
  if (!publisher_.transactional()) WritePosition();
  log::Info("stopped slot {}; confirmed {} ({} records still unacknowledged will be replayed)",
            slot_, session_->confirmed_lsn().ToString(), tracker_.outstanding_records());
  return absl::OkStatus();
}

void SlotStream::LogProgress(std::chrono::steady_clock::time_point now) {
  const uint64_t total = tracker_.acknowledged_records();
  const uint64_t published = total - progress_published_;
  if (published > 0 || tracker_.outstanding_records() > 0) {
    const double seconds =
        std::chrono::duration<double>(now - next_progress_ + kProgressInterval).count();
    log::Info(
        "progress of slot {}: {} records acknowledged by Kafka ({:.0f}/s), {} dead-lettered in "
        "total, {} awaiting Kafka, confirmed {}, received {}",
        slot_, published, static_cast<double>(published) / seconds,
        metrics::Sum(ctx_.metrics.dead_lettered), tracker_.outstanding_records(),
        session_->confirmed_lsn().ToString(), session_->received_lsn().ToString());
  }
  progress_published_ = total;
  next_progress_ = now + kProgressInterval;
}

}  // namespace outboxd::relay
