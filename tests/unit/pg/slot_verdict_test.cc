// The WAL guard's verdict from one pg_replication_slots row and the threshold: what makes a
// slot safe, at risk (not ready) or lost (exit 6), and what the operator is told.

#include "pg/slot_verdict.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int64_t kMiB = 1 << 20;

SlotPolicy Policy(int64_t min_safe_mb) {
  return {.slot = "orders_slot", .min_safe_wal_size_bytes = min_safe_mb * kMiB};
}

SlotState Row(std::string wal_status, std::optional<int64_t> safe_bytes) {
  return {.exists = true,
          .wal_status = std::move(wal_status),
          .safe_wal_size_bytes = safe_bytes,
          .retained_wal_bytes = 12 * kMiB,
          .active = true,
          .confirmed_flush_lsn = Lsn(0x16B374D848),
          .restart_lsn = Lsn(0x16B3000000),
          .invalidation_reason = ""};
}

TEST(SlotVerdictTest, ReservedAboveTheThresholdIsSafe) {
  const SlotVerdict v = JudgeSlot(Row("reserved", 900 * kMiB), Policy(512), {});
  EXPECT_EQ(v.risk, SlotRisk::kSafe);
  EXPECT_EQ(v.reason, "slot orders_slot safe: wal_status reserved, safe_wal_size 900.0 MiB");
}

TEST(SlotVerdictTest, SafeWalSizeBelowTheThresholdIsAtRisk) {
  const SlotVerdict v = JudgeSlot(Row("extended", 7 * kMiB + kMiB / 2), Policy(10), {});
  EXPECT_EQ(v.risk, SlotRisk::kAtRisk);
  EXPECT_EQ(v.reason,
            "slot orders_slot at risk: safe_wal_size 7.5 MiB < 10.0 MiB (min_safe_wal_size_mb)");
  // The numbers, the consequence and the fix.
  EXPECT_THAT(
      v.detail,
      AllOf(HasSubstr("replication slot orders_slot is at risk of losing WAL"),
            HasSubstr("wal_status = extended"), HasSubstr("safe_wal_size = 7.5 MiB"),
            HasSubstr("retained WAL = 12.0 MiB"), HasSubstr("confirmed_flush_lsn = 16/B374D848"),
            HasSubstr("/readyz 503"), HasSubstr("ALTER SYSTEM SET max_slot_wal_keep_size"),
            HasSubstr("pg_stat_activity")));
}

TEST(SlotVerdictTest, ExactlyAtTheThresholdIsStillSafe) {
  EXPECT_EQ(JudgeSlot(Row("reserved", 10 * kMiB), Policy(10), {}).risk, SlotRisk::kSafe);
  EXPECT_EQ(JudgeSlot(Row("reserved", 10 * kMiB - 1), Policy(10), {}).risk, SlotRisk::kAtRisk);
}

TEST(SlotVerdictTest, ZeroThresholdDisablesTheSizeCheck) {
  EXPECT_EQ(JudgeSlot(Row("extended", 1), Policy(0), {}).risk, SlotRisk::kSafe);
}

TEST(SlotVerdictTest, UnlimitedRetentionHasNoSizeToCheck) {
  // max_slot_wal_keep_size = -1: safe_wal_size is NULL and the slot can never be invalidated
  // for size, whatever the threshold.
  const SlotVerdict v = JudgeSlot(Row("extended", std::nullopt), Policy(1024), {});
  EXPECT_EQ(v.risk, SlotRisk::kSafe);
  EXPECT_THAT(v.reason, HasSubstr("safe_wal_size unlimited"));
}

TEST(SlotVerdictTest, UnreservedIsAtRiskEvenWithoutAThreshold) {
  const SlotVerdict v = JudgeSlot(Row("unreserved", -3 * kMiB), Policy(0), {});
  EXPECT_EQ(v.risk, SlotRisk::kAtRisk);
  EXPECT_EQ(v.reason, "slot orders_slot at risk: wal_status unreserved, safe_wal_size -3.0 MiB");
  EXPECT_THAT(v.detail, HasSubstr("next checkpoint"));
}

TEST(SlotVerdictTest, LostSaysWhatWasLostAndWhatToDo) {
  SlotState row = Row("lost", std::nullopt);
  row.restart_lsn = Lsn();  // Postgres clears it on invalidation.
  row.retained_wal_bytes.reset();
  row.active = false;
  const SlotVerdict v = JudgeSlot(row, Policy(10), {.seen = true, .last_confirmed = Lsn(1)});
  EXPECT_EQ(v.risk, SlotRisk::kLost);
  EXPECT_EQ(v.reason, "slot orders_slot lost");
  EXPECT_THAT(
      v.detail,
      AllOf(HasSubstr("replication slot orders_slot was invalidated by Postgres (wal_status = "
                      "lost)"),
            HasSubstr("events committed after confirmed_flush_lsn 16/B374D848 may never reach "
                      "Kafka"),
            HasSubstr("does not recreate the slot"), HasSubstr("outboxd slot drop"),
            HasSubstr("outboxd slot create"),
            HasSubstr("SELECT pg_drop_replication_slot('orders_slot')"), HasSubstr("backfill"),
            HasSubstr("outbox table"), HasSubstr("max_slot_wal_keep_size")));
  EXPECT_EQ(v.detail, LostSlotMessage("orders_slot", row));
}

TEST(SlotVerdictTest, AnInvalidationReasonMeansLostAndIsNamed) {
  // PG 17+ name the cause; rows_removed (a standby's slot) is as lost as wal_removed.
  SlotState row = Row("lost", std::nullopt);
  row.invalidation_reason = "rows_removed";
  const SlotVerdict v = JudgeSlot(row, Policy(0), {});
  EXPECT_EQ(v.risk, SlotRisk::kLost);
  EXPECT_THAT(v.detail, HasSubstr("(wal_status = lost, invalidation_reason = rows_removed)"));
}

TEST(SlotVerdictTest, IdleTimeoutIsNamedWithItsOwnCauseAndFix) {
  // PG 18 invalidates a slot left unstreamed past idle_replication_slot_timeout: the message
  // must not blame max_slot_wal_keep_size, which has nothing to do with it.
  SlotState row = Row("lost", std::nullopt);
  row.invalidation_reason = "idle_timeout";
  const SlotVerdict v = JudgeSlot(row, Policy(0), {});
  EXPECT_EQ(v.risk, SlotRisk::kLost);
  EXPECT_THAT(v.detail,
              AllOf(HasSubstr("(wal_status = lost, invalidation_reason = idle_timeout): no "
                              "walsender streamed it for longer than "
                              "idle_replication_slot_timeout (PostgreSQL 18)"),
                    HasSubstr("ALTER SYSTEM SET idle_replication_slot_timeout = 0"),
                    HasSubstr("outboxd slot drop"), Not(HasSubstr("max_slot_wal_keep_size"))));
}

TEST(SlotVerdictTest, OtherCausesAreNamedToo) {
  SlotState row = Row("lost", std::nullopt);
  row.invalidation_reason = "wal_level_insufficient";
  EXPECT_THAT(LostSlotMessage("s", row), HasSubstr("wal_level was lowered below logical"));
  row.invalidation_reason = "rows_removed";
  EXPECT_THAT(LostSlotMessage("s", row), HasSubstr("hot_standby_feedback"));
  row.invalidation_reason = "wal_removed";
  EXPECT_THAT(LostSlotMessage("s", row), HasSubstr("raise max_slot_wal_keep_size"));
}

TEST(SlotVerdictTest, NotCreatedYetIsSafe) {
  // outboxd creates the slot after the monitor's first look.
  const SlotVerdict v = JudgeSlot(SlotState{}, Policy(10), {});
  EXPECT_EQ(v.risk, SlotRisk::kSafe);
  EXPECT_EQ(v.reason, "slot orders_slot not created yet");
}

TEST(SlotVerdictTest, DroppedAfterBeingSeenIsLost) {
  const SlotVerdict v =
      JudgeSlot(SlotState{}, Policy(10), {.seen = true, .last_confirmed = Lsn(0x2A000060)});
  EXPECT_EQ(v.risk, SlotRisk::kLost);
  EXPECT_EQ(v.reason, "slot orders_slot dropped");
  EXPECT_THAT(v.detail, AllOf(HasSubstr("was dropped while outboxd was running"),
                              HasSubstr("after confirmed_flush_lsn 0/2A000060"),
                              Not(HasSubstr("invalidated by Postgres"))));
}

TEST(SlotVerdictTest, NullWalStatusBeforeAnyWalIsReservedIsSafe) {
  SlotState row = Row("", std::nullopt);
  row.restart_lsn = Lsn();
  EXPECT_EQ(JudgeSlot(row, Policy(10), {}).risk, SlotRisk::kSafe);
}

TEST(SlotVerdictTest, FormatsSizes) {
  EXPECT_EQ(FormatWalSize(std::nullopt), "unlimited");
  EXPECT_EQ(FormatWalSize(0), "0.0 MiB");
  EXPECT_EQ(FormatWalSize(1536 * 1024), "1.5 MiB");
  EXPECT_EQ(FormatWalSize(-kMiB), "-1.0 MiB");
}

TEST(SlotStateSqlTest, ReadsInvalidationReasonOnlyFromPostgres17) {
  EXPECT_THAT(SlotStateSql("'s'", 150004),
              AllOf(HasSubstr("s.safe_wal_size"), HasSubstr("s.wal_status"),
                    Not(HasSubstr("invalidation_reason")), HasSubstr("slot_name = 's'")));
  EXPECT_THAT(SlotStateSql("'s'", 170000), HasSubstr("s.invalidation_reason"));
}

// Unset, the threshold follows the server's cap: 1 GiB, but never more than a quarter of
// max_slot_wal_keep_size, else a caught-up slot (safe_wal_size about the cap) is never safe.
TEST(EffectiveMinSafeWalTest, AutomaticUnlessConfigured) {
  EXPECT_EQ(EffectiveMinSafeWal(-1, -1), 1024 * kMiB);     // Unlimited WAL: the default.
  EXPECT_EQ(EffectiveMinSafeWal(-1, 65536), 1024 * kMiB);  // 64 GB cap: the default.
  EXPECT_EQ(EffectiveMinSafeWal(-1, 1024), 256 * kMiB);    // 1 GB cap: a quarter.
  EXPECT_EQ(EffectiveMinSafeWal(-1, 16), 4 * kMiB);
  EXPECT_EQ(EffectiveMinSafeWal(512 * kMiB, 1024), 512 * kMiB);  // Configured: kept as is.
  EXPECT_EQ(EffectiveMinSafeWal(0, 1024), 0);                    // 0: off.
}

TEST(EffectiveMinSafeWalTest, CaughtUpSlotUnderASmallCapIsSafeByDefault) {
  // max_slot_wal_keep_size = 1GB and a caught-up slot: safe_wal_size is about 1 GB.
  const SlotPolicy policy{.slot = "orders_slot",
                          .min_safe_wal_size_bytes = EffectiveMinSafeWal(-1, 1024)};
  EXPECT_EQ(JudgeSlot(Row("reserved", 1000 * kMiB), policy, {}).risk, SlotRisk::kSafe);
  EXPECT_EQ(JudgeSlot(Row("reserved", 100 * kMiB), policy, {}).risk, SlotRisk::kAtRisk);
}

}  // namespace
}  // namespace outboxd::pg
