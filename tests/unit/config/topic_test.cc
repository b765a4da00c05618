#include "config/topic.h"

#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

TEST(TopicNameProblemTest, AcceptsKafkaLegalNames) {
  EXPECT_EQ(TopicNameProblem("outbox.event.Order_v2-x"), "");
  EXPECT_EQ(TopicNameProblem(std::string(249, 'a')), "");
}

TEST(TopicNameProblemTest, ExplainsIllegalNames) {
  EXPECT_EQ(TopicNameProblem(""), "it is empty");
  EXPECT_EQ(TopicNameProblem(".."), "\"..\" is reserved");
  EXPECT_EQ(TopicNameProblem(std::string(250, 'a')),
            "it is 250 characters long; Kafka allows at most 249");
  EXPECT_EQ(TopicNameProblem("a b"), "character ' ' is not allowed; use only [a-zA-Z0-9._-]");
  EXPECT_EQ(TopicNameProblem("a\n"), "byte 0x0A is not allowed; use only [a-zA-Z0-9._-]");
  EXPECT_EQ(TopicNameProblem("caf\xC3\xA9"), "byte 0xC3 is not allowed; use only [a-zA-Z0-9._-]");
}

TEST(SplitTopicPatternTest, SplitsAtEitherPlaceholder) {
  TopicTemplate t = SplitTopicPattern("outbox.event.${aggregatetype}.v1");
  EXPECT_TRUE(t.routed);
  EXPECT_EQ(t.prefix, "outbox.event.");
  EXPECT_EQ(t.suffix, ".v1");
  EXPECT_EQ(t.placeholder_count, 1u);
  t = SplitTopicPattern("${routedByValue}");
  EXPECT_TRUE(t.routed);
  EXPECT_EQ(t.prefix, "");
  EXPECT_EQ(t.suffix, "");
}

TEST(SplitTopicPatternTest, FixedTopicRendersAsIs) {
  TopicTemplate t = SplitTopicPattern("events");
  EXPECT_FALSE(t.routed);
  std::string out;
  t.Render("Order", out);
  EXPECT_EQ(out, "events");
}

TEST(SplitTopicPatternTest, RendersRoutedValueCaseKept) {
  std::string out;
  SplitTopicPattern("outbox.event.${aggregatetype}").Render("Order", out);
  EXPECT_EQ(out, "outbox.event.Order");
}

TEST(SplitTopicPatternTest, CountsEveryPlaceholder) {
  EXPECT_EQ(
      SplitTopicPattern("${aggregatetype}${aggregatetype}.${routedByValue}").placeholder_count, 3u);
}

}  // namespace
}  // namespace outboxd::config
