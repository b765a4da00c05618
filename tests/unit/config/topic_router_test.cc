// TopicRouter: Kafka Connect's RegexRouter semantics (full match, replaceFirst) on RE2.

#include "config/topic_router.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

std::string RouteOf(std::string_view regex, std::string_view replacement, std::string_view value) {
  absl::StatusOr<TopicRouter> router = TopicRouter::Create(regex, replacement);
  EXPECT_TRUE(router.ok()) << router.status();
  if (!router.ok()) return "<no router>";
  std::string out;
  router->Route(value, out);
  return out;
}

TEST(JavaRegexToRe2Test, TranslatesNamedGroupsOnly) {
  EXPECT_EQ(JavaRegexToRe2("(?<routedByValue>.*)"), "(?P<routedByValue>.*)");
  EXPECT_EQ(JavaRegexToRe2("\\(?<x>"), "\\(?<x>");  // An escaped paren opens no group.
  EXPECT_EQ(JavaRegexToRe2("(?<=a)(?<!b)"), "(?<=a)(?<!b)");
}

TEST(TopicRouterTest, DebeziumDefault) {
  EXPECT_EQ(RouteOf("(?<routedByValue>.*)", "outbox.event.${routedByValue}", "Order"),
            "outbox.event.Order");
  // An empty routing value still matches ".*": Debezium routes it to "outbox.event.".
  EXPECT_EQ(RouteOf("(?<routedByValue>.*)", "outbox.event.${routedByValue}", ""), "outbox.event.");
}

TEST(TopicRouterTest, AggregateTypePlaceholderIsTheWholeValue) {
  EXPECT_EQ(RouteOf("(?<routedByValue>.*)", "outbox.event.${aggregatetype}", "Order"),
            "outbox.event.Order");
  EXPECT_EQ(RouteOf("(?<a>[^.]+)\\.(?<b>.+)", "t.${aggregatetype}.${b}", "x.y"), "t.x.y.y");
}

TEST(TopicRouterTest, NumberedGroupsFollowJava) {
  EXPECT_EQ(RouteOf("(.*)-(.*)", "$2.$1", "a-b"), "b.a");
  // "$10" with one group is group 1 then a literal 0, as in Java.
  EXPECT_EQ(RouteOf("(.*)", "$10", "a"), "a0");
  EXPECT_EQ(RouteOf("(.*)", "\\$1", "a"), "$1");
  // A group that did not take part contributes nothing.
  EXPECT_EQ(RouteOf("(a)?(b)", "[$1][$2]", "b"), "[][b]");
}

TEST(TopicRouterTest, NoMatchKeepsTheValue) {
  EXPECT_EQ(RouteOf("order-(.*)", "orders.$1", "invoice-1"), "invoice-1");
  // RegexRouter uses matches(): a partial match is no match.
  EXPECT_EQ(RouteOf("order", "orders", "order-1"), "order-1");
  // "." stops at a line break, in Java and RE2 alike (and on the default's fast path).
  EXPECT_EQ(RouteOf("(?<routedByValue>.*)", "outbox.event.${routedByValue}", "a\nb"), "a\nb");
}

TEST(TopicRouterTest, FixedAndLiteralText) {
  absl::StatusOr<TopicRouter> fixed = TopicRouter::Create(".*", "events");
  ASSERT_TRUE(fixed.ok());
  EXPECT_TRUE(fixed->fixed());
  EXPECT_EQ(fixed->literal_text(), "events");
  absl::StatusOr<TopicRouter> routed = TopicRouter::Create("(.*)", "a.$1.b");
  ASSERT_TRUE(routed.ok());
  EXPECT_FALSE(routed->fixed());
  EXPECT_EQ(routed->literal_text(), "a..b");
}

TEST(TopicRouterTest, RejectsWhatJavaRejects) {
  EXPECT_FALSE(TopicRouter::Create("(.*)", "a\\").ok());
  EXPECT_FALSE(TopicRouter::Create("(.*)", "${unclosed").ok());
  EXPECT_FALSE(TopicRouter::Create("(.*", "x").ok());
}

}  // namespace
}  // namespace outboxd::config
