#include "position/resume_check.h"

#include "absl/time/time.h"
#include "common/log.h"
#include "common/strings.h"

namespace outboxd::position {
namespace {

constexpr std::string_view kOverride =
    " Once reconciled, start once with --allow-new-slot to accept this server as it is (a "
    "missing slot is then created at the current WAL position).";

std::string Recorded(const PositionRecord& r) {
  const std::string when = absl::FormatTime(
      "%Y-%m-%dT%H:%M:%SZ", absl::FromUnixMillis(r.written_unix_ms), absl::UTCTimeZone());
  return Concat("outboxd last confirmed ", r.lsn.ToString(), " on system ", r.system_id,
                " timeline ", r.timeline, " (slot ", r.slot, ", recorded ", when, ")");
}

absl::Status Refuse(std::string_view what, const PositionRecord& last, std::string_view loss,
                    std::string_view recovery) {
  return absl::Status(kRefusedCode, Concat("refusing to stream: ", what, "; ", Recorded(last), ". ",
                                           loss, " ", recovery, kOverride));
}

absl::Status CheckServer(const PositionRecord& last, const ServerView& server) {
  if (server.system_id != last.system_id) {
    return Refuse(Concat("this server is system ", server.system_id, ", not ", last.system_id),
                  last,
                  "It is another database cluster (restored from a logical dump, rebuilt, or the "
                  "conninfo points elsewhere): its WAL positions mean nothing for the events "
                  "already in Kafka.",
                  "Check [postgres] conninfo; if this cluster replaced the old one, decide from "
                  "the outbox tables which events Kafka is missing and re-insert them.");
  }
  if (server.timeline < last.timeline) {
    return Refuse(
        Concat("this server is on timeline ", server.timeline, ", older than ", last.timeline),
        last,
        "It is likely the old primary after a failover (or a backup restored to an "
        "earlier point): events published from the newer timeline are not in its WAL.",
        "Point [postgres] conninfo at the current primary (target_session_attrs="
        "read-write).");
  }
  return absl::OkStatus();
}

absl::Status CheckSlot(const PositionRecord& last, const ServerView& server) {
  if (!server.slot_exists) {
    return Refuse(Concat("replication slot ", last.slot, " does not exist on this server"), last,
                  "A new slot would start at the current WAL position: every outbox row "
                  "committed after the recorded position and before now would never be "
                  "published (a failover before PG 17 loses the slot; so does a dropped one).",
                  "Publish the outbox rows committed since the recorded time again (they are in "
                  "the tables if not deleted), or accept the gap.");
  }
  if (server.slot_confirmed >= last.lsn) return absl::OkStatus();
  if (server.timeline == last.timeline) {
    // Normal after any stop: the record follows what Kafka acknowledged, the slot's confirm
    // follows it, and Postgres makes a confirm durable only at checkpoints.
    log::Info(
        "slot {} resumes at {}; Kafka already has everything up to {} (position record), so "
        "the transactions in between are skipped, not sent again",
        last.slot, server.slot_confirmed.ToString(), last.lsn.ToString());
    return absl::OkStatus();
  }
  if (server.synced) {
    log::Warn(
        "slot {} is a synchronized failover slot at {}, behind the recorded {}: the "
        "transactions in between are sent again (duplicates, no loss)",
        last.slot, server.slot_confirmed.ToString(), last.lsn.ToString());
    return absl::OkStatus();
  }
  return Refuse(
      Concat("after a promotion (timeline ", last.timeline, " -> ", server.timeline,
             ") replication slot ", last.slot, " confirmed only ", server.slot_confirmed.ToString(),
             " and is not a synchronized failover "
             "slot"),
      last,
      "Events published after that point may belong to transactions the failover "
      "lost, and the slot does not describe what Kafka holds.",
      "Compare the outbox rows committed since the recorded time with Kafka; on PG 17+ "
      "create the slot with failover and set sync_replication_slots on the standby.");
}

}  // namespace

absl::Status CheckResume(const std::optional<PositionRecord>& last, const ServerView& server) {
  if (!last.has_value()) return absl::OkStatus();
  absl::Status status = CheckServer(*last, server);
  if (status.ok()) status = CheckSlot(*last, server);
  if (status.ok() && server.timeline > last->timeline) {
    log::Info("timeline {} -> {} (a promotion): slot {} is at {}, outboxd confirmed {}; resuming",
              last->timeline, server.timeline, last->slot, server.slot_confirmed.ToString(),
              last->lsn.ToString());
  }
  return status;
}

Lsn PublishedUpTo(const std::optional<PositionRecord>& last, const ServerView& server) {
  if (!last || last->system_id != server.system_id || last->timeline != server.timeline) {
    return Lsn();
  }
  return last->lsn;
}

}  // namespace outboxd::position
