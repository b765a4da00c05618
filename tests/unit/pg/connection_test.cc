// libpq's version numbers in the dotted form `outboxd version` and outboxd_build_info show.

#include "pg/connection.h"

#include <libpq-fe.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

TEST(VersionTextTest, TwoPartsSincePostgres10ThreeBefore) {
  EXPECT_EQ(VersionText(150018), "15.18");
  EXPECT_EQ(VersionText(170000), "17.0");
  EXPECT_EQ(VersionText(100023), "10.23");
  EXPECT_EQ(VersionText(90624), "9.6.24");
}

TEST(VersionTextTest, LibraryVersionIsTheLoadedLibpqs) {
  EXPECT_EQ(LibraryVersion(), VersionText(PQlibVersion()));
  EXPECT_THAT(LibraryVersion(), ::testing::MatchesRegex("[0-9]+\\.[0-9]+"));
}

}  // namespace
}  // namespace outboxd::pg
