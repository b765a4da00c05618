#include "common/status.h"

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace outboxd {
namespace {

TEST(SqlStateTest, RoundTripsOnAnError) {
  absl::Status status = absl::FailedPreconditionError("existe déjà");
  SetSqlState(status, "42710");
  EXPECT_EQ(SqlStateOf(status), "42710");
  EXPECT_EQ(MessageOf(status), "existe déjà");
}

TEST(SqlStateTest, EmptyWhenNoneWasSet) {
  EXPECT_EQ(SqlStateOf(absl::UnavailableError("network")), "");
  EXPECT_EQ(SqlStateOf(absl::OkStatus()), "");
}

// Context added on the way up must not lose the code a caller matches.
TEST(SqlStateTest, AnnotateKeepsIt) {
  absl::Status status = absl::UnavailableError("zu viele");
  SetSqlState(status, "53400");
  const absl::Status annotated = Annotate(status, "creating the slot");
  EXPECT_EQ(annotated.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(MessageOf(annotated), "creating the slot: zu viele");
  EXPECT_EQ(SqlStateOf(annotated), "53400");
}

}  // namespace
}  // namespace outboxd
