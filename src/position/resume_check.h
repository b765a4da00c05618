#pragma once
// The failover checks (DESIGN.md invariant 8): before outboxd streams from, or creates, its
// slot, the server it reached is compared with the last position record. Pure: no I/O.

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "common/types.h"
#include "position/position_record.h"

namespace outboxd::position {

// What the server outboxd connected to says about itself and the slot.
struct ServerView {
  std::string system_id;
  int timeline = 0;
  bool slot_exists = false;
  Lsn slot_confirmed;   // confirmed_flush_lsn; meaningful when slot_exists.
  bool synced = false;  // A slot synchronized from a primary (PG 17+ failover slot).
};

// OK when streaming may go on: no record yet (first start), or the server and slot hold
// everything outboxd confirmed (a slot behind the record on the same timeline only replays:
// Postgres makes a slot's position durable at checkpoints, so a crash moves it back). Else
// OutOfRange (exit 7, docs/operating.md "Failover") naming what changed, what may be lost and the
// recovery: the slot is missing (a failover before PG 17, a dropped or recreated slot), the
// server is another system, its timeline went back, or after a promotion the slot is behind
// and was not synchronized. (--allow-new-slot overrides a refusal: PositionGuard.)
absl::Status CheckResume(const std::optional<PositionRecord>& last, const ServerView& server);

// The LSN up to which Kafka already holds every transaction this server sends again: the last
// record's, when it was written on this same system and timeline; invalid otherwise (no record,
// or another timeline, whose WAL past the promotion point is not the WAL the record describes).
// A replay from the slot skips each transaction whose commit ends at or below it, so a slot
// that a Postgres crash moved back publishes nothing twice.
Lsn PublishedUpTo(const std::optional<PositionRecord>& last, const ServerView& server);

// Exit 7's status code; used for nothing else.
inline constexpr absl::StatusCode kRefusedCode = absl::StatusCode::kOutOfRange;

}  // namespace outboxd::position
