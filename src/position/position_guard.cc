#include "position/position_guard.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "common/status.h"

namespace outboxd::position {

PositionGuard::PositionGuard(PositionStore& store, GuardOptions options)
    : store_(store), options_(std::move(options)) {}

PositionGuard::~PositionGuard() {
  if (prefetched_.valid()) prefetched_.wait();
}

void PositionGuard::Prefetch() {
  prefetched_ = std::async(std::launch::async, [this] { return Load(); });
}

PositionGuard::Loaded PositionGuard::Load() {
  const auto started = std::chrono::steady_clock::now();
  Loaded loaded{.record = store_.Load(options_.slot), .topic = absl::OkStatus()};
  // A record read means the topic exists; otherwise make sure it is a compacted one.
  if (loaded.record.ok() && !loaded.record->has_value()) loaded.topic = store_.EnsureTopic();
  log::Info("read the position record of slot {} from Kafka in {} ms", options_.slot,
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  started)
                .count());
  return loaded;
}

void PositionGuard::EnsureTopic(absl::Status known) {
  if (known.ok() && !topic_ready_) known = store_.EnsureTopic();
  topic_ready_ = known.ok();
  if (!known.ok()) {
    log::Warn("position records of slot {} are not written: {}", options_.slot, MessageOf(known));
  }
}

absl::Status PositionGuard::Check(const ServerView& server) {
  if (!loaded_) {
    // A failed prefetch is returned as it is: the relay retries after its backoff, and the
    // next Check reads again (reading again at once doubled the wait while Kafka was down).
    Loaded fetched = prefetched_.valid() ? prefetched_.get() : Load();
    absl::StatusOr<std::optional<PositionRecord>>& loaded = fetched.record;
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
    topic_ready_ = fetched.topic.ok();
    if (!topic_ready_) EnsureTopic(fetched.topic);
  } else if (!topic_ready_) {
    EnsureTopic(absl::OkStatus());  // Failed before: try again at this connect.
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

Lsn PositionGuard::published_up_to() const {
  return server_.has_value() ? PublishedUpTo(last_, *server_) : Lsn();
}

PartialTransaction PositionGuard::published_partial() const {
  return published_up_to().IsValid() ? last_->partial : PartialTransaction{};
}

std::optional<PositionRecord> PositionGuard::Next(Lsn acknowledged,
                                                  PartialTransaction partial) const {
  if (!server_.has_value() || !topic_ready_) return std::nullopt;  // Not streaming yet.
  Lsn lsn = std::max(acknowledged, server_->slot_confirmed);
  if (last_) lsn = std::max(lsn, last_->lsn);
  // Nothing confirmed yet (a slot just created): leave the record as it is.
  if (!lsn.IsValid()) return std::nullopt;
  PositionRecord next{.slot = options_.slot,
                      .system_id = server_->system_id,
                      .timeline = server_->timeline,
                      .lsn = lsn,
                      .written_unix_ms = absl::ToUnixMillis(absl::Now()),
                      .partial = partial};
  if (written_once_ && last_ && last_->lsn == next.lsn && last_->system_id == next.system_id &&
      last_->timeline == next.timeline && last_->partial == next.partial) {
    return std::nullopt;  // Nothing new.
  }
  return next;
}

void PositionGuard::Written(const PositionRecord& record) {
  last_ = record;
  written_once_ = true;
}

}  // namespace outboxd::position
