#include "pg/slot_verdict.h"

#include <algorithm>

#include "common/strings.h"
#include "fmt/format.h"

namespace outboxd::pg {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string_view StatusText(const SlotState& state) {
  if (state.wal_status.empty()) return "NULL (no WAL reserved yet)";
  return state.wal_status;
}

std::string LsnText(Lsn lsn) { return lsn.IsValid() ? lsn.ToString() : "unknown"; }

// "wal_status = extended, safe_wal_size = 3.0 MiB, retained WAL = 14.0 MiB, ..."
std::string Numbers(const SlotState& state) {
  return fmt::format(
      "wal_status = {}, safe_wal_size = {}, retained WAL = {}, confirmed_flush_lsn = {}, {}",
      StatusText(state), FormatWalSize(state.safe_wal_size_bytes),
      state.retained_wal_bytes ? FormatWalSize(state.retained_wal_bytes) : "unknown",
      LsnText(state.confirmed_flush_lsn),
      state.active ? "streamed by a walsender" : "no walsender streams it");
}

bool IsLost(const SlotState& state) {
  // PG 16+ report every invalidation (also rows_removed on a standby) as lost; the reason
  // column (17+) is checked too so no invalidated slot passes as safe.
  return state.wal_status == "lost" || !state.invalidation_reason.empty();
}

SlotVerdict AtRisk(const SlotState& state, const SlotPolicy& policy, const std::string& cause,
                   const std::string& reason) {
  return {
      .risk = SlotRisk::kAtRisk,
      .reason = Concat("slot ", policy.slot, " at risk: ", reason),
      .detail = Concat(
          "replication slot ", policy.slot, " is at risk of losing WAL: ", cause, "; ",
          Numbers(state),
          ". Postgres invalidates the slot at a checkpoint once safe_wal_size reaches 0, and the "
          "events after its confirmed position are then lost; outboxd reports not ready "
          "(/readyz 503) until the slot recovers. Fix: let outboxd catch up (is Kafka reachable? "
          "see outboxd_replication_lag_bytes), end long transactions that hold the slot's "
          "restart_lsn back (the oldest xact_start in pg_stat_activity), or raise "
          "max_slot_wal_keep_size (ALTER SYSTEM SET max_slot_wal_keep_size = '...'; SELECT "
          "pg_reload_conf())")};
}

// Why Postgres invalidated a slot, and how to keep it from recurring, by its
// invalidation_reason (PG 17+; "" before, when WAL removal was the only cause outboxd sees).
struct LossCause {
  std::string what;
  std::string prevention;
};

LossCause CauseOf(std::string_view reason) {
  if (reason == "idle_timeout") {
    return {
        "no walsender streamed it for longer than idle_replication_slot_timeout "
        "(PostgreSQL 18), e.g. while outboxd was stopped",
        "keep outboxd's stops (upgrades, exits that wait for an operator) shorter than "
        "idle_replication_slot_timeout, run a standby instance, or set it to 0 for this server "
        "(ALTER SYSTEM SET idle_replication_slot_timeout = 0; SELECT pg_reload_conf()); "
        "outboxd check warns while it is set"};
  }
  if (reason == "rows_removed") {
    return {
        "the catalog rows its decoding needs were removed (a slot on a standby without "
        "hot_standby_feedback)",
        "set hot_standby_feedback = on on the standby and use a physical slot from it"};
  }
  if (reason == "wal_level_insufficient") {
    return {"wal_level was lowered below logical on the primary",
            "keep wal_level = logical on the primary"};
  }
  return {
      "the WAL after its restart_lsn was removed (more WAL was retained than "
      "max_slot_wal_keep_size allows)",
      "raise max_slot_wal_keep_size and alert on outboxd_slot_safe_wal_size_bytes"};
}

}  // namespace

std::string FormatWalSize(std::optional<int64_t> bytes) {
  if (!bytes) return "unlimited";
  return fmt::format("{:.1f} MiB", static_cast<double>(*bytes) / kMiB);
}

SlotVerdict JudgeSlot(const SlotState& state, const SlotPolicy& policy,
                      const SlotHistory& history) {
  if (!state.exists && !history.seen) {
    return {.risk = SlotRisk::kSafe,
            .reason = Concat("slot ", policy.slot, " not created yet"),
            .detail = Concat("replication slot ", policy.slot,
                             " does not exist yet; outboxd creates it when it starts streaming")};
  }
  if (!state.exists || IsLost(state)) {
    return {.risk = SlotRisk::kLost,
            .reason = Concat("slot ", policy.slot, state.exists ? " lost" : " dropped"),
            .detail = LostSlotMessage(policy.slot, state, history.last_confirmed)};
  }
  if (state.wal_status == "unreserved") {
    return AtRisk(
        state, policy,
        "wal_status is unreserved (the WAL it needs is past max_slot_wal_keep_size and "
        "goes at the next checkpoint)",
        Concat("wal_status unreserved, safe_wal_size ", FormatWalSize(state.safe_wal_size_bytes)));
  }
  const int64_t min_safe = policy.min_safe_wal_size_bytes;
  if (min_safe > 0 && state.safe_wal_size_bytes && *state.safe_wal_size_bytes < min_safe) {
    const std::string compared = Concat(FormatWalSize(state.safe_wal_size_bytes), " < ",
                                        FormatWalSize(min_safe), " (min_safe_wal_size_mb)");
    return AtRisk(state, policy, Concat("safe_wal_size ", compared),
                  Concat("safe_wal_size ", compared));
  }
  return {.risk = SlotRisk::kSafe,
          .reason = Concat("slot ", policy.slot, " safe: wal_status ", StatusText(state),
                           ", safe_wal_size ", FormatWalSize(state.safe_wal_size_bytes)),
          .detail = Concat("replication slot ", policy.slot, " is safe: ", Numbers(state))};
}

int64_t EffectiveMinSafeWal(int64_t configured_bytes, int64_t limit_mb) {
  if (configured_bytes >= 0) return configured_bytes;
  constexpr int64_t kDefault = int64_t{1024} << 20;
  if (limit_mb < 0) return kDefault;
  return std::min(kDefault, (limit_mb << 20) / 4);
}

std::string LostSlotMessage(std::string_view slot, const SlotState& state, Lsn last_confirmed) {
  const Lsn confirmed = state.exists ? state.confirmed_flush_lsn : last_confirmed;
  const LossCause cause = CauseOf(state.invalidation_reason);
  const std::string what =
      state.exists
          ? Concat("replication slot ", slot, " was invalidated by Postgres (wal_status = lost",
                   state.invalidation_reason.empty()
                       ? std::string()
                       : Concat(", invalidation_reason = ", state.invalidation_reason),
                   "): ", cause.what)
          : Concat("replication slot ", slot,
                   " was dropped while outboxd was running (it existed at an earlier check)");
  return Concat(
      what, ", so events committed after confirmed_flush_lsn ", LsnText(confirmed),
      " may never reach Kafka. outboxd does not recreate the slot by itself: a new slot starts "
      "at \"now\" and would hide the gap. To recover: (1) drop the slot and create a new one: "
      "outboxd slot drop --yes, then outboxd slot create (or SELECT pg_drop_replication_slot('",
      slot,
      "') and let outboxd create it with create_slot = true); (2) start outboxd, which publishes "
      "what is committed from the new slot on; (3) backfill the gap, the events committed after ",
      LsnText(confirmed),
      " and before the new slot, from the outbox table if its rows are kept (consumers see them "
      "twice if some were published), otherwise from the services' own data. To keep it from "
      "recurring, ",
      cause.prevention);
}

}  // namespace outboxd::pg
