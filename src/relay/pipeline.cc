#include "relay/pipeline.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <variant>

#include "common/log.h"
#include "common/status.h"
#include "common/strings.h"
#include "pg/connection.h"
#include "pg/replication_protocol.h"
#include "pg/slot_setup.h"
#include "pgoutput/decoder.h"

namespace outboxd::relay {
namespace {

constexpr auto kBlockedRetry = std::chrono::milliseconds(20);
// How often a progress line is logged while events flow.
constexpr auto kProgressInterval = std::chrono::seconds(30);

pg::SetupOptions ToSetupOptions(const config::PostgresConfig& pg) {
  pg::SetupOptions options{.slot = pg.slot,
                           .publication = pg.publication,
                           .tables = {},
                           .create_missing = pg.create_slot};
  for (const auto& t : pg.tables) options.tables.push_back({t.schema, t.name});
  return options;
}

}  // namespace

Pipeline::Pipeline(const config::Config& config, const Clock& clock, Metrics& metrics, int stop_fd)
    : config_(config),
      clock_(clock),
      metrics_(metrics),
      stop_fd_(stop_fd),
      mapper_(config.outbox, config.postgres.tables) {}

absl::Status Pipeline::Run() {
  if (auto s = Connect(); !s.ok()) return s;
  return Loop();
}

absl::Status Pipeline::Connect() {
  auto conn = pg::Connection::Open(config_.postgres.conninfo);
  if (!conn.ok()) return conn.status();
  auto identity = pg::PrepareReplication(*conn, ToSetupOptions(config_.postgres));
  if (!identity.ok()) return identity.status();
  auto producer = kafka::Producer::Create(config_.kafka, *this);
  if (!producer.ok()) return producer.status();
  producer_ = std::move(*producer);
  auto stream = pg::ReplicationStream::Start(
      std::move(*conn),
      {.slot = config_.postgres.slot, .publication = config_.postgres.publication});
  if (!stream.ok()) return stream.status();
  stream_.emplace(std::move(*stream));
  log::Info("streaming slot {} of database {} (system {}, timeline {}) to Kafka",
            config_.postgres.slot, identity->database, identity->system_id, identity->timeline);
  next_status_ = clock_.SteadyNow();
  next_progress_ = next_status_ + kProgressInterval;
  progress_published_ = metrics_.events_published;
  return absl::OkStatus();
}

absl::Status Pipeline::Loop() {
  while (!stopping_) {
    if (auto s = PollOnce(); !s.ok()) return s;
    if (producer_->fatal_error()) {
      return absl::UnavailableError(Concat("Kafka producer failed: ", *producer_->fatal_error()));
    }
    // Wrong credentials or TLS settings do not heal by retrying: exit so the operator sees it.
    if (producer_->auth_error()) return absl::PermissionDeniedError(*producer_->auth_error());
    if (restart_reason_) return absl::UnavailableError(*restart_reason_);
  }
  return Shutdown();
}

absl::Status Pipeline::PollOnce() {
  const auto now = clock_.SteadyNow();
  if (now >= next_status_) {
    if (auto s = SendStatus(); !s.ok()) return s;
  }
  if (now >= next_progress_) LogProgress(now);
  const bool reading = !blocked_ && dead_letters_.empty();
  pollfd fds[3] = {
      {.fd = stop_fd_, .events = POLLIN, .revents = 0},
      {.fd = producer_->event_fd(), .events = POLLIN, .revents = 0},
      // Backpressure (invariant 4): while Kafka's queue is full the socket is not read, and
      // Postgres keeps the WAL.
      {.fd = stream_->socket(),
       .events =
           static_cast<short>((reading ? POLLIN : 0) | (stream_->HasPendingOutput() ? POLLOUT : 0)),
       .revents = 0},
  };
  auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_status_ - now);
  if (!reading) wait = std::min<std::chrono::milliseconds>(wait, kBlockedRetry);
  const int timeout_ms = static_cast<int>(std::max<int64_t>(0, wait.count()));
  if (::poll(fds, 3, timeout_ms) < 0 && errno != EINTR) {
    return absl::InternalError(Concat("poll failed: errno ", errno));
  }
  if (fds[0].revents & POLLIN) {
    LogStopSignal();
    stopping_ = true;
    return absl::OkStatus();
  }
  producer_->Poll();
  if (fds[2].revents & POLLOUT) {
    if (auto s = stream_->Flush(); !s.ok()) return s;
  }
  if (auto s = ProduceDeadLetters(); !s.ok()) return s;
  if (blocked_) {
    absl::Status retry = HandleCopyData(*blocked_);
    if (absl::IsResourceExhausted(retry)) return absl::OkStatus();
    blocked_.reset();
    if (!retry.ok()) return retry;
  }
  if (blocked_ || !dead_letters_.empty()) return absl::OkStatus();
  // libpq may hold buffered messages even when the socket is quiet, so always try to read.
  return ReadReplication();
}

void Pipeline::LogStopSignal() {
  // Naming the sender tells an operator who stopped the relay (a supervisor, a stray pkill).
  signalfd_siginfo info{};
  if (::read(stop_fd_, &info, sizeof info) == sizeof info) {
    log::Info("received {} from pid {}", ::strsignal(static_cast<int>(info.ssi_signo)),
              info.ssi_pid);
  }
}

absl::Status Pipeline::ReadReplication() {
  // Bounded batch so delivery reports and status updates keep flowing under load.
  for (int i = 0; i < 1024; ++i) {
    auto buffer = stream_->Read();
    if (!buffer.ok()) return buffer.status();
    if (!buffer->has_value()) return absl::OkStatus();
    absl::Status s = HandleCopyData(**buffer);
    if (absl::IsResourceExhausted(s)) {
      blocked_.emplace(std::move(**buffer));
      return absl::OkStatus();
    }
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Pipeline::HandleCopyData(const pg::CopyBuffer& buffer) {
  auto copy = pg::ParseCopyMessage(buffer.view());
  if (!copy.ok()) return copy.status();
  if (const auto* keepalive = std::get_if<pg::Keepalive>(&*copy)) {
    received_lsn_ = std::max(received_lsn_, keepalive->wal_end);
    // The walsender has sent everything before wal_end, and this keepalive came after it. So
    // once no transaction is open and nothing awaits Kafka, everything before wal_end is safe
    // even if no outbox row changed: the slot moves on (invariant 5). That may be long after
    // this keepalive (a broker outage), and the server sends no new one while we report having
    // received everything, so remember it rather than require idleness now.
    keepalive_lsn_ = std::max(keepalive_lsn_, keepalive->wal_end);
    return keepalive->reply_requested ? SendStatus() : absl::OkStatus();
  }
  const auto& xlog = std::get<pg::XLogData>(*copy);
  received_lsn_ = std::max(received_lsn_, xlog.wal_start);
  auto message = pgoutput::Decode(xlog.data);
  if (!message.ok())
    return Annotate(message.status(), Concat("at WAL ", xlog.wal_start.ToString()));
  return HandleMessage(*message, xlog.wal_start);
}

absl::Status Pipeline::HandleMessage(const pgoutput::Message& message, Lsn wal_start) {
  if (const auto* insert = std::get_if<pgoutput::Insert>(&message)) {
    return HandleInsert(*insert, wal_start);
  }
  if (const auto* begin = std::get_if<pgoutput::Begin>(&message)) {
    if (tracker_.InTransaction())
      return absl::DataLossError("pgoutput: Begin inside a transaction");
    current_tx_ = tracker_.Begin();
    current_xid_ = begin->xid;
  } else if (const auto* commit = std::get_if<pgoutput::Commit>(&message)) {
    if (!tracker_.InTransaction())
      return absl::DataLossError("pgoutput: Commit outside a transaction");
    tracker_.Commit(commit->end_lsn);
    ++metrics_.transactions;
  } else if (const auto* relation = std::get_if<pgoutput::Relation>(&message)) {
    mapper_.OnRelation(*relation);
  } else if (std::holds_alternative<pgoutput::Update>(message) ||
             std::holds_alternative<pgoutput::Delete>(message) ||
             std::holds_alternative<pgoutput::Truncate>(message)) {
    ++metrics_.rows_ignored;  // Only inserts are events; a shared publication may send more.
  }
  // Origin, Type and logical messages carry nothing outboxd publishes.
  return absl::OkStatus();
}

absl::Status Pipeline::HandleInsert(const pgoutput::Insert& insert, Lsn wal_start) {
  if (!tracker_.InTransaction())
    return absl::DataLossError("pgoutput: Insert outside a transaction");
  if (!mapper_.IsOutboxTable(insert.relation)) {
    ++metrics_.rows_ignored;
    return absl::OkStatus();
  }
  const RecordOrigin origin{
      .tx = current_tx_, .lsn = wal_start, .xid = current_xid_, .relation = insert.relation};
  absl::Status mapped = mapper_.Map(insert, event_);
  if (mapped.ok()) {
    header_scratch_.clear();
    for (const auto& h : event_.headers) header_scratch_.push_back({h.name, h.value});
    absl::Status produced = Produce({.topic = event_.topic,
                                     .key = event_.key,
                                     .value = event_.value,
                                     .headers = header_scratch_},
                                    origin);
    if (produced.ok()) tracker_.AddRecord();
    // Anything but an outright refusal (too large, illegal topic) is success, backpressure
    // (retried with the same WAL message) or a reason to restart.
    if (!absl::IsInvalidArgument(produced)) return produced;
    mapped = produced;
  } else if (!absl::IsInvalidArgument(mapped)) {
    return mapped;
  }
  return DeadLetterRow(insert, origin, MessageOf(mapped));
}

absl::Status Pipeline::DeadLetterRow(const pgoutput::Insert& insert, const RecordOrigin& origin,
                                     std::string_view reason) {
  log::Warn("dead-lettering row of {} at WAL {} (xid {}) to {}: {}",
            mapper_.TableName(insert.relation), origin.lsn.ToString(), origin.xid.value,
            config_.outbox.dead_letter_topic, reason);
  if (auto s = mapper_.MapDeadLetter(insert, reason, origin.lsn, origin.xid, event_); !s.ok()) {
    return s;
  }
  // From here the dead-letter record stands for the row in its transaction's count; reading
  // stops until it is handed to Kafka.
  tracker_.AddRecord();
  dead_letters_.push_back(DeadLetter::FromEvent(event_, origin));
  ++metrics_.events_dead_lettered;
  return ProduceDeadLetters();
}

absl::Status Pipeline::Produce(const kafka::Record& record, const RecordOrigin& origin) {
  const uint64_t seq = next_record_seq_++;
  absl::Status s = producer_->Produce(record, seq);
  if (s.ok()) in_flight_.emplace(seq, origin);
  return s;
}

absl::Status Pipeline::ProduceDeadLetters() {
  std::vector<kafka::Header> scratch;
  while (!dead_letters_.empty()) {
    DeadLetter& dl = dead_letters_.front();
    absl::Status s = Produce(dl.AsRecord(config_.outbox.dead_letter_topic, scratch), dl.origin);
    if (absl::IsResourceExhausted(s)) return absl::OkStatus();
    if (absl::IsInvalidArgument(s) && dl.DropValue()) {
      log::Warn("{}; dead-lettering the row without its value", MessageOf(s));
      continue;
    }
    if (!s.ok()) {
      // The dead-letter topic refuses even a record without value: only a replay is safe.
      return absl::UnavailableError(Concat("cannot write to dead-letter topic ",
                                           config_.outbox.dead_letter_topic, ": ", MessageOf(s)));
    }
    dead_letters_.pop_front();
  }
  return absl::OkStatus();
}

void Pipeline::OnDelivered(uint64_t tag) {
  auto origin = in_flight_.extract(tag);
  if (!origin) return NoteUnknownReport(tag);
  tracker_.Acknowledge(origin.mapped().tx);
  ++metrics_.events_published;
}

void Pipeline::NoteUnknownReport(uint64_t tag) {
  // Cannot happen unless librdkafka reports a record twice; replaying is the safe answer.
  if (!restart_reason_) restart_reason_ = Concat("delivery report for unknown record ", tag);
}

void Pipeline::OnFailed(uint64_t tag, rd_kafka_resp_err_t err, const rd_kafka_message_t& message) {
  auto node = in_flight_.extract(tag);
  if (!node) return NoteUnknownReport(tag);
  const RecordOrigin origin = node.mapped();
  const std::string topic = rd_kafka_topic_name(message.rkt);
  const std::string reason = Concat(rd_kafka_err2name(err), ": ", rd_kafka_err2str(err));
  const bool was_dead_letter = topic == config_.outbox.dead_letter_topic;
  if (kafka::ClassifyDeliveryError(err) == kafka::FailureKind::kRecordRejected) {
    DeadLetter dl = DeadLetter::FromReport(message, was_dead_letter, reason,
                                           mapper_.TableName(origin.relation), origin);
    // A refused dead-letter record gets one more try without its value.
    if (!was_dead_letter || dl.DropValue()) {
      log::Warn("Kafka refused a record for {} ({}); sending it to {}{}", topic, reason,
                config_.outbox.dead_letter_topic, was_dead_letter ? " without its value" : "");
      if (!was_dead_letter) ++metrics_.events_dead_lettered;
      dead_letters_.push_back(std::move(dl));
      return;
    }
  }
  // Leave the record unacknowledged: the confirmed LSN stays before it and the replay re-sends
  // it (invariant 6).
  if (!restart_reason_) {
    restart_reason_ =
        Concat("delivery to ", topic, " failed (", reason, "); replaying from the confirmed LSN");
  }
}

void Pipeline::LogProgress(std::chrono::steady_clock::time_point now) {
  const uint64_t published = metrics_.events_published - progress_published_;
  if (published > 0 || tracker_.outstanding_records() > 0) {
    const double seconds =
        std::chrono::duration<double>(now - next_progress_ + kProgressInterval).count();
    log::Info(
        "progress: {} events published ({:.0f}/s), {} dead-lettered in total, {} awaiting "
        "Kafka, confirmed {}, received {}",
        published, published / seconds, metrics_.events_dead_lettered,
        tracker_.outstanding_records(), confirmed_lsn_.ToString(), received_lsn_.ToString());
  }
  progress_published_ = metrics_.events_published;
  next_progress_ = now + kProgressInterval;
}

Lsn Pipeline::ConfirmableLsn() const {
  Lsn lsn = std::max(confirmed_lsn_, tracker_.safe_lsn());
  if (tracker_.Idle()) lsn = std::max(lsn, keepalive_lsn_);
  return lsn;
}

absl::Status Pipeline::SendStatus() {
  confirmed_lsn_ = ConfirmableLsn();  // Never lower than one already sent.
  metrics_.confirmed_lsn = confirmed_lsn_;
  next_status_ =
      clock_.SteadyNow() + std::chrono::milliseconds(config_.postgres.status_interval_ms);
  const Lsn written = std::max(received_lsn_, confirmed_lsn_);
  return stream_->SendStatus(
      pg::EncodeStandbyStatus(written, confirmed_lsn_, clock_.PostgresNowMicros(), false));
}

absl::Status Pipeline::Shutdown() {
  const int timeout_ms = config_.relay.shutdown_timeout_ms;
  log::Info("stopping: waiting up to {} ms for {} outstanding Kafka deliveries", timeout_ms,
            tracker_.outstanding_records());
  const auto deadline = clock_.SteadyNow() + std::chrono::milliseconds(timeout_ms);
  while (clock_.SteadyNow() < deadline &&
         (tracker_.outstanding_records() > 0 || !dead_letters_.empty())) {
    if (auto s = ProduceDeadLetters(); !s.ok()) break;
    producer_->Flush(50);  // Serves delivery reports, which advance the tracker.
  }
  if (auto s = SendStatus(); !s.ok()) return s;
  // Push the final confirmation out before the connection closes.
  for (int i = 0; i < 100 && stream_->HasPendingOutput(); ++i) {
    if (auto s = stream_->Flush(); !s.ok()) return s;
    ::poll(nullptr, 0, 10);
  }
  log::Info("stopped; confirmed {} ({} records still unacknowledged will be replayed)",
            confirmed_lsn_.ToString(), tracker_.outstanding_records());
  return absl::OkStatus();
}

}  // namespace outboxd::relay
