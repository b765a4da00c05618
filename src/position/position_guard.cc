#include "position/position_guard.h"

#include "absl/time/time.h"
#include "common/log.h"
#include "common/status.h"

namespace outboxd::position {

PositionGuard::PositionGuard(PositionStore& store, GuardOptions options)
    : store_(store), options_(std::move(options)) {}

PositionGuard::~PositionGuard() { Stop(); }

absl::Status PositionGuard::Check(const ServerView& server) {
  if (!loaded_) {
    auto loaded = store_.Load(options_.slot);
    if (absl::IsDataLoss(loaded.status()) && options_.allow_new_slot) {
      log::Warn("--allow-new-slot: ignoring the unreadable position record: {}",
                MessageOf(loaded.status()));
      loaded = std::optional<PositionRecord>();
    }
    if (!loaded.ok()) {
      return Annotate(loaded.status(), "reading the last confirmed position before streaming");
    }
    loaded_ = true;
    if (loaded->has_value()) {
      log::Info("last position record of slot {}: {} on system {} timeline {}", options_.slot,
                (*loaded)->lsn.ToString(), (*loaded)->system_id, (*loaded)->timeline);
    }
    absl::MutexLock lock(&mu_);
    last_ = *loaded;
  }
  absl::MutexLock lock(&mu_);
  absl::Status status = CheckResume(last_, server);
  if (!status.ok() && options_.allow_new_slot) {
    // The old record describes a server or slot that is gone: start a new one from here.
    log::Warn("--allow-new-slot: accepting this server anyway: {}", MessageOf(status));
    last_.reset();
    status = absl::OkStatus();
  }
  if (status.ok()) server_ = server;
  return status;
}

void PositionGuard::Start() {
  writer_ = std::thread([this] { WriterLoop(); });
}

void PositionGuard::Stop() {
  if (!writer_.joinable()) return;
  stop_.Notify();
  writer_.join();
  // Short: a shutdown must not wait long on a broker that is down.
  if (auto s = WriteIfMoved(/*timeout_ms=*/2000); !s.ok()) {
    log::Warn("could not write the final position record: {}", MessageOf(s.status()));
  }
}

// Writer thread. Polls quickly until the first record of this run is written, so a failover
// right after start-up already finds one; then writes at most once per interval.
void PositionGuard::WriterLoop() {
  bool written = false;
  auto wait = absl::Milliseconds(200);
  while (!stop_.WaitForNotificationWithTimeout(wait)) {
    absl::StatusOr<bool> wrote = WriteIfMoved(/*timeout_ms=*/10'000);
    if (!wrote.ok()) {
      log::Warn("could not write the position record (retrying in {} ms): {}",
                options_.interval.count(), MessageOf(wrote.status()));
    }
    written = written || (wrote.ok() && *wrote);
    wait = written || !wrote.ok() ? absl::FromChrono(options_.interval) : absl::Milliseconds(200);
  }
}

absl::StatusOr<bool> PositionGuard::WriteIfMoved(int timeout_ms) {
  PositionRecord next;
  {
    absl::MutexLock lock(&mu_);
    if (!server_.has_value()) return false;  // Not streaming yet.
    Lsn lsn = std::max(options_.confirmed(), server_->slot_confirmed);
    if (last_) lsn = std::max(lsn, last_->lsn);
    next = PositionRecord{.slot = options_.slot,
                          .system_id = server_->system_id,
                          .timeline = server_->timeline,
                          .lsn = lsn,
                          .written_unix_ms = absl::ToUnixMillis(absl::Now())};
    // Nothing confirmed yet (a slot just created), or nothing new: leave the record as it is.
    if (!next.lsn.IsValid()) return false;
    if (last_ && last_->lsn == next.lsn && last_->system_id == next.system_id &&
        last_->timeline == next.timeline && written_once_) {
      return false;
    }
  }
  if (auto s = store_.Save(next, timeout_ms); !s.ok()) return s;
  absl::MutexLock lock(&mu_);
  last_ = next;
  written_once_ = true;
  return true;
}

}  // namespace outboxd::position
