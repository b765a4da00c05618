#include "relay/pipeline.h"

#include <algorithm>
#include <variant>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "pgoutput/decoder.h"

namespace outboxd::relay {
namespace {

constexpr auto kBlockedRetry = std::chrono::milliseconds(20);
// How often a progress line is logged while events flow.
constexpr auto kProgressInterval = std::chrono::seconds(30);
// Bounded batch so delivery reports and status updates keep flowing under load.
constexpr int kMaxMessagesPerRound = 1024;

}  // namespace

Pipeline::Pipeline(RelayContext& context)
    : ctx_(context),
      config_(context.config),
      encoder_(outbox::CreateEncoder(config_.outbox)),
      mapper_(config_.outbox, config_.postgres.tables, *encoder_) {}

absl::Status Pipeline::Run() {
  absl::Status s = Connect();
  if (s.ok()) s = Loop();
  ctx_.health.SetStreaming(false, s.ok() ? "stopped" : std::string(MessageOf(s)));
  return s;
}

absl::Status Pipeline::Connect() {
  failure_cause_ = "kafka";
  auto publisher = Publisher::Create(ctx_.connectors.producer, tracker_, mapper_, config_.outbox,
                                     ctx_.clock, ctx_.metrics);
  if (!publisher.ok()) return publisher.status();
  publisher_ = std::move(*publisher);
  failure_cause_ = "postgres";
  if (ctx_.connectors.not_null_columns) {
    auto not_null = ctx_.connectors.not_null_columns();
    if (!not_null.ok()) return not_null.status();
    // Before streaming: they apply from each table's next Relation message.
    for (auto& [table, columns] : *not_null) mapper_.SetNotNullColumns(table, std::move(columns));
  }
  auto channel = ctx_.connectors.replication();
  if (!channel.ok()) return channel.status();
  session_ = std::make_unique<ReplicationSession>(
      std::move(*channel), tracker_, ctx_.clock,
      std::chrono::milliseconds(config_.postgres.status_interval_ms), ctx_.metrics);
  ctx_.health.SetStreaming(true, Concat("streaming slot ", config_.postgres.slot));
  next_progress_ = ctx_.clock.SteadyNow() + kProgressInterval;
  progress_published_ = metrics::Sum(ctx_.metrics.events_published);
  return absl::OkStatus();
}

absl::Status Pipeline::Loop() {
  while (!stopping_) {
    if (auto s = PollOnce(); !s.ok()) return s;
    if (auto s = CheckStages(); !s.ok()) return s;
  }
  stop_deadline_ =
      ctx_.clock.SteadyNow() + std::chrono::milliseconds(config_.relay.shutdown_timeout_ms);
  FinishOpenTransaction();
  return Shutdown();
}

void Pipeline::FinishOpenTransaction() {
  if (!tracker_.InTransaction()) return;
  log::Info("stopping: reading on to the commit of the open transaction (xid {}) first",
            current_xid_.value);
  stopping_ = false;  // PollOnce sets it again on a second stop request, which ends the wait.
  while (tracker_.InTransaction() && !stopping_ && ctx_.clock.SteadyNow() < *stop_deadline_) {
    absl::Status s = PollOnce();
    if (s.ok()) s = CheckStages();
    if (!s.ok()) {  // Stopping anyway: still confirm what Kafka acknowledged.
      log::Warn("stopping: {} while reading on to the commit", MessageOf(s));
      break;
    }
  }
  if (tracker_.InTransaction()) {
    log::Warn(
        "stopping inside transaction xid {}: its rows already in Kafka will be published "
        "again after a restart",
        current_xid_.value);
  }
  stopping_ = true;
}

absl::Status Pipeline::CheckStages() {
  ReportProducerHealth();
  if (auto s = publisher_->status(); !s.ok()) {
    failure_cause_ = "kafka";
    return s;
  }
  if (auto s = ctx_.slot_check(); !s.ok()) {
    failure_cause_ = "slot";
    return s;
  }
  return absl::OkStatus();
}

void Pipeline::ReportProducerHealth() {
  const bool healthy = !publisher_->brokers_down();
  if (producer_healthy_ == healthy) return;
  producer_healthy_ = healthy;
  ctx_.health.SetProducer(healthy, healthy ? "Kafka reachable" : "Kafka unreachable");
}

absl::Status Pipeline::PollOnce() {
  const auto now = ctx_.clock.SteadyNow();
  failure_cause_ = "postgres";
  if (auto s = session_->SendStatusIfDue(); !s.ok()) return s;
  if (now >= next_progress_) LogProgress(now);
  const bool reading = !blocked_ && !publisher_->dead_letters_waiting();
  // Delivery reports are served every round; waking for one only pays while Kafka's queue
  // holds reading up or once a confirm may go out. Waking for each report cost a context
  // switch per event at low rates (about a third of outboxd's CPU at 1k events/s).
  const bool wake_for_acks = !reading || now >= session_->next_confirm_allowed();
  pollfd fds[3] = {
      {.fd = ctx_.stop.fd(), .events = POLLIN, .revents = 0},
      {.fd = publisher_->event_fd(),
       .events = static_cast<short>(wake_for_acks ? POLLIN : 0),
       .revents = 0},
      // Backpressure (invariant 4): while Kafka's queue is full the socket is not read, and
      // Postgres keeps the WAL.
      {.fd = session_->socket(),
       .events = static_cast<short>((reading ? POLLIN : 0) |
                                    (session_->HasPendingOutput() ? POLLOUT : 0)),
       .revents = 0},
  };
  auto wait =
      std::chrono::duration_cast<std::chrono::milliseconds>(session_->next_status_due() - now);
  if (!reading) wait = std::min<std::chrono::milliseconds>(wait, kBlockedRetry);
  if (stop_deadline_) {
    wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(*stop_deadline_ - now));
  }
  if (!wake_for_acks && tracker_.outstanding_records() > 0) {
    wait = std::min(
        wait, std::chrono::ceil<std::chrono::milliseconds>(session_->next_confirm_allowed() - now));
  }
  // A round that stopped at kMaxMessagesPerRound may have left whole messages in libpq's
  // buffer while the socket is quiet: waiting in poll() then stalls a drain for nothing.
  if (reading && session_->MayHaveBufferedInput()) wait = std::chrono::milliseconds(0);
  const int timeout_ms = static_cast<int>(std::max<int64_t>(0, wait.count()));
  if (ctx_.connectors.poll(fds, 3, timeout_ms) < 0 && errno != EINTR) {
    return absl::InternalError(Concat("poll failed: errno ", errno));
  }
  if (fds[0].revents & POLLIN) {
    ctx_.stop.Consume();
    stopping_ = true;
    return absl::OkStatus();
  }
  publisher_->Poll((fds[1].revents & POLLIN) != 0);
  if (fds[2].revents & POLLOUT) {
    if (auto s = session_->FlushOutput(); !s.ok()) return s;
  }
  if (auto s = publisher_->ProduceDeadLetters(); !s.ok()) {
    failure_cause_ = "kafka";
    return s;
  }
  if (blocked_) {
    absl::Status retry = HandleWal(*blocked_);
    if (absl::IsResourceExhausted(retry)) return absl::OkStatus();
    blocked_.reset();
    if (!retry.ok()) return retry;
  }
  if (publisher_->dead_letters_waiting()) return absl::OkStatus();
  // libpq may hold buffered messages even when the socket is quiet, so always try to read.
  return ReadReplication();
}

absl::Status Pipeline::ReadReplication() {
  for (int i = 0; i < kMaxMessagesPerRound; ++i) {
    auto wal = session_->Next();
    if (!wal.ok()) return wal.status();
    if (!wal->has_value()) return absl::OkStatus();
    absl::Status s = HandleWal(**wal);
    if (absl::IsResourceExhausted(s)) {
      blocked_.emplace(std::move(**wal));
      return absl::OkStatus();
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Pipeline::HandleWal(const WalMessage& wal) {
  auto message = pgoutput::Decode(wal.data);
  if (!message.ok()) {
    return Annotate(message.status(), Concat("at WAL ", wal.wal_start.ToString()));
  }
  return HandleMessage(*message, wal);
}

absl::Status Pipeline::HandleMessage(const pgoutput::Message& message, const WalMessage& wal) {
  if (const auto* insert = std::get_if<pgoutput::Insert>(&message)) {
    return HandleInsert(*insert, wal);
  }
  if (const auto* begin = std::get_if<pgoutput::Begin>(&message)) {
    if (tracker_.InTransaction()) {
      return absl::DataLossError("pgoutput: Begin inside a transaction");
    }
    current_tx_ = tracker_.Begin(begin->commit_time_us);
    current_xid_ = begin->xid;
    current_commit_time_us_ = begin->commit_time_us;
    current_commit_lsn_ = begin->final_lsn;
    const int64_t age_us = ctx_.clock.PostgresNowMicros() - begin->commit_time_us;
    ctx_.metrics.stages.received.Observe(static_cast<double>(std::max<int64_t>(age_us, 0)) / 1e6);
  } else if (const auto* commit = std::get_if<pgoutput::Commit>(&message)) {
    if (!tracker_.InTransaction()) {
      return absl::DataLossError("pgoutput: Commit outside a transaction");
    }
    tracker_.Commit(commit->end_lsn);
    ctx_.metrics.transactions.Add();
  } else if (const auto* logical = std::get_if<pgoutput::LogicalMessage>(&message)) {
    return HandleLogicalMessage(*logical, wal);
  } else if (const auto* relation = std::get_if<pgoutput::Relation>(&message)) {
    mapper_.OnRelation(*relation);
  } else if (const auto* update = std::get_if<pgoutput::Update>(&message)) {
    return HandleUpdate(*update);
  } else if (std::holds_alternative<pgoutput::Delete>(message) ||
             std::holds_alternative<pgoutput::Truncate>(message)) {
    ctx_.metrics.rows_ignored.Add();  // Only inserts are events; a shared publication sends more.
  }
  // Origin and Type messages carry nothing outboxd publishes.
  return absl::OkStatus();
}

absl::Status Pipeline::HandleUpdate(const pgoutput::Update& update) {
  if (!mapper_.IsOutboxTable(update.relation)) {
    ctx_.metrics.rows_ignored.Add();  // Only inserts are events; a shared publication sends more.
    return absl::OkStatus();
  }
  // table.op.invalid.behavior: outbox rows are only inserted; an UPDATE is skipped and logged.
  const std::string table = mapper_.TableName(update.relation);
  ctx_.metrics.invalid_operations.With(table).Add();
  if (auto s = mapper_.OnUpdate(update.relation); !s.ok()) return s;
  if (config_.outbox.op_invalid_behavior == config::InvalidOpBehavior::kError) {
    log::Error("skipped an UPDATE of outbox table {}: outbox rows should only be inserted", table);
  } else {
    log::Warn("skipped an UPDATE of outbox table {}: outbox rows should only be inserted", table);
  }
  return absl::OkStatus();
}

absl::Status Pipeline::HandleInsert(const pgoutput::Insert& insert, const WalMessage& wal) {
  if (!tracker_.InTransaction()) {
    return absl::DataLossError("pgoutput: Insert outside a transaction");
  }
  if (!mapper_.IsOutboxTable(insert.relation)) {
    ctx_.metrics.rows_ignored.Add();
    return absl::OkStatus();
  }
  const RecordOrigin origin = OriginAt(wal.wal_start, insert.relation, wal);
  return PublishMapped(mapper_.Map(insert, SourceOf(origin), event_), origin,
                       [&](std::string_view reason, std::string_view label) {
                         return DeadLetterRow(insert, origin, reason, label);
                       });
}

RecordOrigin Pipeline::OriginAt(Lsn lsn, RelationId relation, const WalMessage& wal) {
  return RecordOrigin{.tx = current_tx_,
                      .lsn = lsn,
                      .xid = current_xid_,
                      .relation = relation,
                      .commit_time_us = current_commit_time_us_,
                      .received = wal.received};
}

outbox::EventSource Pipeline::SourceOf(const RecordOrigin& origin) const {
  return {.commit_lsn = current_commit_lsn_,
          .lsn = origin.lsn,
          .xid = origin.xid,
          .commit_time_us = origin.commit_time_us};
}

absl::Status Pipeline::PublishMapped(
    absl::Status mapped, const RecordOrigin& origin,
    absl::FunctionRef<absl::Status(std::string_view reason, std::string_view label)> dead_letter) {
  if (!mapped.ok()) {
    if (!absl::IsInvalidArgument(mapped)) return mapped;
    return dead_letter(MessageOf(mapped), kUnmappable);
  }
  absl::Status produced = publisher_->Publish(event_, origin);
  // Anything but an outright refusal (too large, illegal topic) is success, backpressure
  // (retried with the same WAL message) or a reason to stop.
  if (!absl::IsInvalidArgument(produced)) {
    if (!produced.ok() && !absl::IsResourceExhausted(produced)) failure_cause_ = "kafka";
    return produced;
  }
  return dead_letter(MessageOf(produced), kProducerRefused);
}

absl::Status Pipeline::DeadLetterRow(const pgoutput::Insert& insert, const RecordOrigin& origin,
                                     std::string_view reason, std::string_view label) {
  log::Warn("dead-lettering row of {} at WAL {} (xid {}) to {}: {}",
            mapper_.TableName(insert.relation), origin.lsn.ToString(), origin.xid.value,
            config_.outbox.dead_letter_topic, reason);
  if (auto s = mapper_.MapDeadLetter(insert, SourceOf(origin), reason, event_); !s.ok()) {
    return s;
  }
  // Reading stops until the dead letter is handed to Kafka.
  publisher_->QueueDeadLetter(DeadLetter::FromEvent(event_, origin), label);
  failure_cause_ = "kafka";
  return publisher_->ProduceDeadLetters();
}

void Pipeline::LogProgress(std::chrono::steady_clock::time_point now) {
  const uint64_t total = metrics::Sum(ctx_.metrics.events_published);
  const uint64_t published = total - progress_published_;
  if (published > 0 || tracker_.outstanding_records() > 0) {
    const double seconds =
        std::chrono::duration<double>(now - next_progress_ + kProgressInterval).count();
    log::Info(
        "progress: {} events published ({:.0f}/s), {} dead-lettered in total, {} awaiting "
        "Kafka, confirmed {}, received {}",
        published, published / seconds, metrics::Sum(ctx_.metrics.dead_lettered),
        tracker_.outstanding_records(), session_->confirmed_lsn().ToString(),
        session_->received_lsn().ToString());
  }
  progress_published_ = total;
  next_progress_ = now + kProgressInterval;
}

absl::Status Pipeline::Shutdown() {
  const auto deadline = *stop_deadline_;
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - ctx_.clock.SteadyNow());
  log::Info("stopping: waiting up to {} ms for {} outstanding Kafka deliveries",
            std::max<int64_t>(0, left.count()), tracker_.outstanding_records());
  while (ctx_.clock.SteadyNow() < deadline &&
         (tracker_.outstanding_records() > 0 || publisher_->dead_letters_waiting())) {
    if (auto s = publisher_->ProduceDeadLetters(); !s.ok()) break;
    publisher_->Flush(50);  // Serves delivery reports, which advance the tracker.
    if (!publisher_->status().ok()) break;
    // Keep confirming while draining, so a long drain never trips wal_sender_timeout.
    if (auto s = session_->SendStatusIfDue(); !s.ok()) return s;
  }
  if (auto s = session_->SendStatus(); !s.ok()) return s;
  // Push the final confirmation out before the connection closes.
  for (int i = 0; i < 100 && session_->HasPendingOutput(); ++i) {
    if (auto s = session_->FlushOutput(); !s.ok()) return s;
    pollfd fd{.fd = session_->socket(), .events = POLLOUT, .revents = 0};
    ctx_.connectors.poll(&fd, 1, 10);
  }
  log::Info("stopped; confirmed {} ({} records still unacknowledged will be replayed)",
            session_->confirmed_lsn().ToString(), tracker_.outstanding_records());
  return absl::OkStatus();
}

}  // namespace outboxd::relay
