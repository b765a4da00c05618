#include "position/position_guard.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "common/status.h"

namespace outboxd::position {

PositionGuard::PositionGuard(PositionStore& store, GuardOptions options)
    : store_(store), options_(std::move(options)) {}

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
    last_ = *loaded;
    // A record read means the topic exists.
    topic_ready_ = last_.has_value();
  }
  if (!topic_ready_) {
    absl::Status created = store_.EnsureTopic();
    topic_ready_ = created.ok();
    if (!created.ok()) {
      log::Warn("position records of slot {} are not written: {}", options_.slot,
                MessageOf(created));
    }
  }
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

std::optional<PositionRecord> PositionGuard::Next(Lsn confirmed) const {
  if (!server_.has_value() || !topic_ready_) return std::nullopt;  // Not streaming yet.
  Lsn lsn = std::max(confirmed, server_->slot_confirmed);
  if (last_) lsn = std::max(lsn, last_->lsn);
  // Nothing confirmed yet (a slot just created): leave the record as it is.
  if (!lsn.IsValid()) return std::nullopt;
  PositionRecord next{.slot = options_.slot,
                      .system_id = server_->system_id,
                      .timeline = server_->timeline,
                      .lsn = lsn,
                      .written_unix_ms = absl::ToUnixMillis(absl::Now())};
  if (written_once_ && last_ && last_->lsn == next.lsn && last_->system_id == next.system_id &&
      last_->timeline == next.timeline) {
    return std::nullopt;  // Nothing new.
  }
  return next;
}

void PositionGuard::Written(const PositionRecord& record) {
  last_ = record;
  written_once_ = true;
}

}  // namespace outboxd::position
