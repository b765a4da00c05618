#include "pg/slot_setup.h"

#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

// PG 14's replication grammar has no option list: "(SNAPSHOT 'nothing')" is a syntax error
// there (SQLSTATE 42601), which kept outboxd from starting on 14.
TEST(CreateSlotCommandTest, Pg14UsesTheKeywordForm) {
  EXPECT_EQ(CreateSlotCommand("\"s\"", 140022, /*standby=*/false),
            "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput NOEXPORT_SNAPSHOT");
}

TEST(CreateSlotCommandTest, Pg15And16UseTheOptionList) {
  for (int version : {150019, 160015}) {
    EXPECT_EQ(CreateSlotCommand("\"s\"", version, false),
              "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput (SNAPSHOT 'nothing')")
        << version;
  }
}

TEST(CreateSlotCommandTest, Pg17PrimaryMakesAFailoverSlot) {
  for (int version : {170011, 180006}) {
    EXPECT_EQ(CreateSlotCommand("\"s\"", version, false),
              "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput (SNAPSHOT 'nothing', FAILOVER)")
        << version;
  }
}

// Postgres refuses FAILOVER for a slot created on a standby (logical decoding there, 16+).
TEST(CreateSlotCommandTest, Pg17StandbyMakesAnOrdinarySlot) {
  EXPECT_EQ(CreateSlotCommand("\"s\"", 170011, /*standby=*/true),
            "CREATE_REPLICATION_SLOT \"s\" LOGICAL pgoutput (SNAPSHOT 'nothing')");
}

}  // namespace
}  // namespace outboxd::pg
