#include "position/resume_check.h"

#include "gtest/gtest.h"

namespace outboxd::position {
namespace {

const PositionRecord kLast{.slot = "outboxd",
                           .system_id = "7443",
                           .timeline = 2,
                           .lsn = Lsn(0x5000),
                           .written_unix_ms = 1};

ServerView Same() {
  return {.system_id = "7443",
          .timeline = 2,
          .slot_exists = true,
          .slot_confirmed = Lsn(0x5000),
          .synced = false};
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

TEST(ResumeCheckTest, FirstStartHasNoRecord) {
  ServerView server = Same();
  server.slot_exists = false;
  EXPECT_TRUE(CheckResume(std::nullopt, server).ok());
}

TEST(ResumeCheckTest, SameServerAtOrAheadOfTheRecord) {
  ServerView server = Same();
  EXPECT_TRUE(CheckResume(kLast, server).ok());
  server.slot_confirmed = Lsn(0x9000);
  EXPECT_TRUE(CheckResume(kLast, server).ok());
}

// Postgres saves a slot's position at checkpoints: after a crash it replays, no loss.
TEST(ResumeCheckTest, BehindOnTheSameTimelineOnlyReplays) {
  ServerView server = Same();
  server.slot_confirmed = Lsn(0x4000);
  EXPECT_TRUE(CheckResume(kLast, server).ok());
}

TEST(ResumeCheckTest, MissingSlotIsRefused) {
  ServerView server = Same();
  server.slot_exists = false;
  const absl::Status s = CheckResume(kLast, server);
  EXPECT_EQ(s.code(), kRefusedCode);
  EXPECT_NE(Message(s).find("does not exist"), std::string::npos) << s;
  EXPECT_NE(Message(s).find("0/5000"), std::string::npos) << s;
  EXPECT_NE(Message(s).find("recorded 1970-01-01T00:00:00Z"), std::string::npos) << s;
  EXPECT_NE(Message(s).find("--allow-new-slot"), std::string::npos) << s;
}

TEST(ResumeCheckTest, OtherSystemIsRefused) {
  ServerView server = Same();
  server.system_id = "9999";
  const absl::Status s = CheckResume(kLast, server);
  EXPECT_EQ(s.code(), kRefusedCode);
  EXPECT_NE(Message(s).find("system 9999, not 7443"), std::string::npos) << s;
}

TEST(ResumeCheckTest, OlderTimelineIsRefused) {
  ServerView server = Same();
  server.timeline = 1;
  const absl::Status s = CheckResume(kLast, server);
  EXPECT_EQ(s.code(), kRefusedCode);
  EXPECT_NE(Message(s).find("old primary"), std::string::npos) << s;
}

TEST(ResumeCheckTest, PromotionWithTheSlotAheadResumes) {
  ServerView server = Same();
  server.timeline = 3;
  server.slot_confirmed = Lsn(0x6000);
  EXPECT_TRUE(CheckResume(kLast, server).ok());
}

TEST(ResumeCheckTest, PromotionWithASyncedSlotBehindResumes) {
  ServerView server = Same();
  server.timeline = 3;
  server.slot_confirmed = Lsn(0x4000);
  server.synced = true;
  EXPECT_TRUE(CheckResume(kLast, server).ok());
}

TEST(ResumeCheckTest, PromotionWithAnUnsyncedSlotBehindIsRefused) {
  ServerView server = Same();
  server.timeline = 3;
  server.slot_confirmed = Lsn(0x4000);
  const absl::Status s = CheckResume(kLast, server);
  EXPECT_EQ(s.code(), kRefusedCode);
  EXPECT_NE(Message(s).find("not a synchronized failover slot"), std::string::npos) << s;
}

TEST(PublishedUpToTest, TheRecordCoversTheReplayOnTheSameSystemAndTimeline) {
  ServerView server = Same();
  server.slot_confirmed = Lsn(0x4000);  // A crash moved the slot back.
  EXPECT_EQ(PublishedUpTo(kLast, server), kLast.lsn);
}

TEST(PublishedUpToTest, NothingIsKnownWithoutARecordOrOnAnotherTimelineOrSystem) {
  EXPECT_FALSE(PublishedUpTo(std::nullopt, Same()).IsValid());
  ServerView promoted = Same();
  promoted.timeline = 3;  // Past the promotion point the WAL is not the one the record saw.
  EXPECT_FALSE(PublishedUpTo(kLast, promoted).IsValid());
  ServerView other = Same();
  other.system_id = "other";
  EXPECT_FALSE(PublishedUpTo(kLast, other).IsValid());
}

}  // namespace
}  // namespace outboxd::position
