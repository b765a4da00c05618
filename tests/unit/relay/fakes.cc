#include "fakes.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "support/pgoutput_encoder.h"

namespace outboxd::relay::testing {

Signal::Signal() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
Signal::~Signal() { ::close(fd_); }

void Signal::Set(bool readable) {
  if (readable == readable_) return;
  uint64_t value = 1;
  if (readable) {
    (void)!::write(fd_, &value, sizeof value);
  } else {
    (void)!::read(fd_, &value, sizeof value);
  }
  readable_ = readable;
}

int FakePoll(FakeClock& clock, pollfd* fds, nfds_t count, int timeout_ms) {
  const int ready = ::poll(fds, count, 0);
  if (ready == 0 && timeout_ms > 0) clock.Advance(std::chrono::milliseconds(timeout_ms));
  return ready;
}

std::string XLogFrame(Lsn wal_start, Lsn wal_end, std::string_view pgoutput_message) {
  outboxd::testing::WireWriter w;
  w.Byte('w').Int64(wal_start.value()).Int64(wal_end.value()).Int64(0).Raw(pgoutput_message);
  return w.Take();
}

std::string KeepaliveFrame(Lsn wal_end, bool reply_requested) {
  outboxd::testing::WireWriter w;
  w.Byte('k').Int64(wal_end.value()).Int64(0).Byte(reply_requested ? 1 : 0);
  return w.Take();
}

Lsn FlushOf(const std::string& status_update) {
  // 'r', written (8 bytes), flushed (8 bytes), applied, clock, reply flag.
  uint64_t flushed = 0;
  for (int i = 9; i < 17; ++i) {
    flushed = (flushed << 8) | static_cast<uint8_t>(status_update[static_cast<size_t>(i)]);
  }
  return Lsn(flushed);
}

absl::StatusOr<std::optional<pg::CopyBuffer>> FakeChannel::Read() {
  if (frames_.empty()) {
    readable_.Set(false);
    return std::optional<pg::CopyBuffer>();
  }
  pg::CopyBuffer buffer(std::move(frames_.front()));
  frames_.pop_front();
  readable_.Set(!frames_.empty() && !log_.quiet_after_first_read);
  return std::optional<pg::CopyBuffer>(std::move(buffer));
}

absl::Status FakeChannel::SendStatus(std::string_view status_message) {
  if (log_.fail_sends_after >= 0 &&
      static_cast<int>(log_.status_updates.size()) >= log_.fail_sends_after) {
    return absl::UnavailableError("fake: connection to Postgres lost");
  }
  log_.status_updates.emplace_back(status_message);
  return absl::OkStatus();
}

absl::Status FakeProducer::Produce(const kafka::Record& record, uint64_t tag) {
  if (topics_[record.topic].refuse_at_produce) {
    return absl::InvalidArgumentError("fake: Kafka refuses records for " + record.topic);
  }
  std::map<std::string, std::string> headers;
  for (const Header& h : record.headers) {
    headers[std::string(h.name)] = h.value ? std::string(*h.value) : "<null>";
  }
  log_.push_back({.topic = record.topic,
                  .key = record.key ? std::optional<std::string>(*record.key) : std::nullopt,
                  .value = record.value ? std::optional<std::string>(*record.value) : std::nullopt,
                  .tag = tag,
                  .headers = std::move(headers)});
  unreported_.push_back(log_.size() - 1);
  if (transactions_ != nullptr) ++transactions_->records;
  ready_.Set(acks_enabled_ && (transactions_ == nullptr || !transactions_->acks_wait_for_flush));
  return absl::OkStatus();
}

void FakeProducer::Report() {
  if (transactions_ != nullptr && transactions_->acks_wait_for_flush && !flushing_) {
    ready_.Set(false);  // Nothing to serve before a Flush.
    return;
  }
  while (acks_enabled_ && !unreported_.empty()) {
    const ProducedRecord& r = log_[unreported_.front()];
    unreported_.pop_front();
    const TopicBehaviour& b = topics_[r.topic];
    if (!b.fail_delivery) {
      handler_.OnDelivered(r.tag);
      continue;
    }
    // Like librdkafka: a failed delivery leaves the open transaction needing an abort.
    if (transactions_ != nullptr) transaction_failed_ = true;
    kafka::DeliveryFailure f{.verdict = *b.fail_delivery,
                             .code = "FAKE_ERROR",
                             .reason = "FAKE_ERROR: injected by the test",
                             .operator_fix = "fix the fake",
                             .topic = r.topic,
                             .key = r.key,
                             .value = r.value,
                             .headers = {}};
    handler_.OnFailed(r.tag, f);
  }
  ready_.Set(acks_enabled_ && !unreported_.empty());
}

void FakeProducer::Poll(bool /*event_fd_readable*/) { Report(); }

bool FakeProducer::Flush(int timeout_ms) {
  flushing_ = true;
  Report();
  flushing_ = false;
  if (!unreported_.empty()) clock_.Advance(std::chrono::milliseconds(timeout_ms));
  return unreported_.empty();
}

absl::Status FakeProducer::InitTransactions(int timeout_ms) {
  if (transactions_ == nullptr) return absl::FailedPreconditionError("fake: not transactional");
  ++transactions_->inits;
  if (transactions_->init_timeouts > 0) {
    --transactions_->init_timeouts;
    clock_.Advance(std::chrono::milliseconds(timeout_ms));
    return absl::DeadlineExceededError("fake: no transaction coordinator answered");
  }
  return absl::OkStatus();
}

absl::Status FakeProducer::BeginTransaction() {
  if (transactions_ == nullptr) return absl::FailedPreconditionError("fake: not transactional");
  ++transactions_->begins;
  transaction_failed_ = false;
  return absl::OkStatus();
}

absl::Status FakeProducer::CommitTransaction(int timeout_ms) {
  if (transactions_ == nullptr) return absl::FailedPreconditionError("fake: not transactional");
  // Like librdkafka: flush first, serving the delivery reports.
  if (!Flush(timeout_ms)) return absl::UnavailableError("fake: commit timed out");
  if (transactions_->fail_commits) return absl::UnavailableError("fake: the commit failed");
  if (transaction_failed_) {
    return absl::UnavailableError("fake: a record failed, the transaction must be aborted");
  }
  transactions_->commits.push_back(log_.size());
  return absl::OkStatus();
}

absl::Status FakeProducer::AbortTransaction(int /*timeout_ms*/) {
  if (transactions_ == nullptr) return absl::FailedPreconditionError("fake: not transactional");
  transactions_->purged_at_abort += unreported_.size();
  unreported_.clear();  // Purged; the test's fake reports nothing for them.
  ++transactions_->aborts;
  return absl::OkStatus();
}

}  // namespace outboxd::relay::testing
