// The position record and the refusal paths (docs/operating.md, "Failover"): outboxd records what
// it confirmed in the compacted topic outboxd.positions and, on a server that lacks it (the slot is
// gone, another system, an older timeline), exits 7 without creating anything, unless
// --allow-new-slot. The promotion paths run in failover_test.cc.

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "position/position_store.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

inline constexpr int kExitPositionRefused = 7;

class PositionTest : public FaultsTest {
 protected:
  absl::StatusOr<std::unique_ptr<position::PositionStore>> Store() {
    return position::PositionStore::Create({{"bootstrap.servers", env().kafka_bootstrap}});
  }

  // The running cluster's IDENTIFY_SYSTEM values, read through SQL as the superuser.
  absl::StatusOr<std::pair<std::string, int>> SystemAndTimeline() {
    IT_ASSIGN_OR_RETURN(it::PgClient admin, it::PgClient::Connect(env().pg_admin_conninfo));
    IT_RETURN_IF_ERROR(admin.Exec("CHECKPOINT"));
    IT_ASSIGN_OR_RETURN(std::optional<std::string> system,
                        admin.QueryOptional("SELECT system_identifier::text FROM "
                                            "pg_control_system()"));
    IT_ASSIGN_OR_RETURN(int64_t timeline,
                        admin.QueryInt("SELECT timeline_id FROM pg_control_checkpoint()"));
    return std::make_pair(system.value_or(""), static_cast<int>(timeline));
  }

  absl::Status SaveRecord(const std::string& system_id, int timeline, Lsn lsn) {
    IT_ASSIGN_OR_RETURN(std::unique_ptr<position::PositionStore> store, Store());
    return store->Save({.slot = slot(),
                        .system_id = system_id,
                        .timeline = timeline,
                        .lsn = lsn,
                        .written_unix_ms = 1});
  }

  absl::StatusOr<bool> SlotExists() {
    IT_ASSIGN_OR_RETURN(std::optional<std::string> found,
                        pg().QueryOptional("SELECT 1 FROM pg_replication_slots WHERE "
                                           "slot_name = $1",
                                           {slot()}));
    return found.has_value();
  }

  // A wrapper that runs the daemon with --allow-new-slot (the harness passes no extra flags).
  std::string AllowNewSlotBinary() {
    const std::string path = absl::StrCat(::testing::TempDir(), "/outboxd-allow-", slot());
    std::ofstream(path) << "#!/bin/sh\nexec '" << env().outboxd_binary
                        << "' \"$@\" --allow-new-slot\n";
    ::chmod(path.c_str(), 0755);
    return path;
  }

  std::string WriteConfig(const std::string& text) {
    const std::string path = absl::StrCat(::testing::TempDir(), "/", slot(), ".toml");
    std::ofstream(path, std::ios::trunc) << text;
    return path;
  }

  void TearDown() override {
    if (auto store = Store(); store.ok()) (*store)->Delete(slot()).IgnoreError();
    FaultsTest::TearDown();
  }
};

TEST_F(PositionTest, RecordsTheConfirmedPositionThenRefusesOnceTheSlotIsGone) {
  const std::string config_text = ConfigText();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * first, LaunchStreaming(config_text));
  IT_ASSERT_OK(pg().Exec(absl::StrCat("INSERT INTO ", table(),
                                      " (aggregatetype, aggregateid, type, payload) VALUES "
                                      "('order', 'o-1', 'Created', '{}')")));
  IT_ASSERT_OK_AND_ASSIGN(int64_t end, it::CurrentWalPosition(pg()));
  IT_ASSERT_OK(WaitForConfirmed(end));
  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus stopped, first->Stop(absl::Seconds(30)));
  EXPECT_TRUE(stopped.ExitedZero()) << stopped.ToString();

  // The final record names this server and at least the position it confirmed.
  IT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<position::PositionStore> store, Store());
  IT_ASSERT_OK_AND_ASSIGN(std::optional<position::PositionRecord> record, store->Load(slot()));
  ASSERT_TRUE(record.has_value()) << "no position record for " << slot();
  IT_ASSERT_OK_AND_ASSIGN(auto identity, SystemAndTimeline());
  EXPECT_EQ(record->system_id, identity.first);
  EXPECT_EQ(record->timeline, identity.second);
  EXPECT_GE(record->lsn.value(), static_cast<uint64_t>(end));
  std::cout << "[position] record " << position::EncodeRecord(*record) << "\n";

  // The slot vanishes (what a failover before PG 17 does): exit 7, nothing created.
  IT_ASSERT_OK(pg().Exec(absl::StrCat("SELECT pg_drop_replication_slot('", slot(), "')")));
  const std::string log = ExpectExit(config_text, kExitPositionRefused);
  EXPECT_NE(log.find("does not exist on this server"), std::string::npos) << log;
  EXPECT_NE(log.find(record->lsn.ToString()), std::string::npos) << log;
  EXPECT_NE(log.find("--allow-new-slot"), std::string::npos) << log;
  IT_ASSERT_OK_AND_ASSIGN(bool exists, SlotExists());
  EXPECT_FALSE(exists) << "outboxd created a slot at \"now\" although it refused";

  // The operator's override creates the slot and streams.
  IT_ASSERT_OK_AND_ASSIGN(
      std::unique_ptr<it::OutboxdProcess> allowed,
      it::OutboxdProcess::Start(AllowNewSlotBinary(), WriteConfig(config_text),
                                absl::StrCat(::testing::TempDir(), "/allow-", slot(), ".log")));
  IT_EXPECT_OK(it::WaitForSlotStreaming(pg(), slot(), publication(), absl::Seconds(30)));
  EXPECT_TRUE(allowed->Running());
}

TEST_F(PositionTest, AnotherSystemIsRefused) {
  IT_ASSERT_OK(SaveRecord("1234567890", 1, Lsn(0x1000)));
  const std::string log = ExpectExit(ConfigText(), kExitPositionRefused);
  EXPECT_NE(log.find("not 1234567890"), std::string::npos) << log;
  EXPECT_NE(log.find("another database cluster"), std::string::npos) << log;
  IT_ASSERT_OK_AND_ASSIGN(bool exists, SlotExists());
  EXPECT_FALSE(exists);
}

TEST_F(PositionTest, AnOlderTimelineIsRefused) {
  IT_ASSERT_OK_AND_ASSIGN(auto identity, SystemAndTimeline());
  IT_ASSERT_OK(SaveRecord(identity.first, identity.second + 5, Lsn(0x1000)));
  const std::string log = ExpectExit(ConfigText(), kExitPositionRefused);
  EXPECT_NE(log.find(absl::StrCat("older than ", identity.second + 5)), std::string::npos) << log;
  EXPECT_NE(log.find("old primary"), std::string::npos) << log;
}

// The deliberate reset: `slot drop --yes` deletes the record with the slot.
TEST_F(PositionTest, SlotDropDeletesTheRecord) {
  IT_ASSERT_OK_AND_ASSIGN(auto identity, SystemAndTimeline());
  IT_ASSERT_OK(SaveRecord(identity.first, identity.second, Lsn(0x1000)));
  const std::string config_path = WriteConfig(ConfigText());
  const std::string command = absl::StrCat(
      "'", env().outboxd_binary, "' slot drop --yes --config '", config_path, "' >/dev/null 2>&1");
  EXPECT_EQ(WEXITSTATUS(std::system(command.c_str())), kExitServerSetup);  // No slot to drop.
  IT_ASSERT_OK_AND_ASSIGN(std::unique_ptr<position::PositionStore> store, Store());
  IT_ASSERT_OK_AND_ASSIGN(std::optional<position::PositionRecord> record, store->Load(slot()));
  EXPECT_FALSE(record.has_value()) << position::EncodeRecord(*record);
  IT_EXPECT_OK(LaunchStreaming(ConfigText()).status());
}

}  // namespace
}  // namespace outboxd::faults
