// The table-less outbox: events written with pg_logical_emit_message under a configured prefix
// are published like outbox rows (topic by aggregatetype, key aggregateid, value payload, id
// header), in commit order with the table's rows; rolled-back and foreign-prefix messages never
// are, and a message that is not a JSON object goes to the dead-letter topic.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::it {
namespace {

class TableLessTest : public OutboxdTest {
 protected:
  // Postgres does not flush WAL for a non-transactional message, and a walsender sends only
  // flushed WAL: this commit of an ignored prefix's message flushes it.
  absl::Status FlushWal() { return Emit(true, "another-app", "flush"); }

  absl::Status Emit(bool transactional, const std::string& prefix, const std::string& content) {
    return pg()
        .Query("SELECT pg_logical_emit_message($1::boolean, $2, $3)",
               {transactional ? "true" : "false", prefix, content})
        .status();
  }
};

TEST_F(TableLessTest, MessagesArePublishedLikeRowsInCommitOrder) {
  const std::string prefix = UniqueName("events");
  const std::string topic = Topic("Order");
  config().message_prefixes = {prefix};
  config().dead_letter_topic = Topic("dlq");
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());

  // One transaction mixing a table row and two messages for the same aggregate.
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<ExpectedEvent> row,
      InsertOutboxRows(pg(), table(), topic_prefix(),
                       {OutboxRow{"Order", "order-1", "Created", R"({"n": 1})"}}));
  IT_ASSERT_OK(Emit(true, prefix,
                    R"({"id": "m-2", "aggregatetype": "Order", "aggregateid": "order-1",
                        "type": "Paid", "payload": "{\"n\": 2}"})"));
  IT_ASSERT_OK(Emit(true, prefix,
                    R"({"id": "m-3", "aggregatetype": "Order", "aggregateid": "order-1",
                        "payload": {"n": 3, "lines": ["caf\u00e9", 1.5]}})"));
  IT_ASSERT_OK(Emit(true, "another-app", R"({"id": "x", "aggregatetype": "Order",
                                             "aggregateid": "order-1", "payload": "{}"})"));
  IT_ASSERT_OK(pg().Exec("COMMIT"));
  // Rolled back: never published.
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  IT_ASSERT_OK(Emit(true, prefix, R"({"id": "rolled", "aggregatetype": "Order",
                                       "aggregateid": "order-1", "payload": "{}"})"));
  IT_ASSERT_OK(pg().Exec("ROLLBACK"));
  // Non-transactional: published on its own.
  IT_ASSERT_OK(Emit(false, prefix, R"({"id": "m-4", "aggregatetype": "Order",
                                        "aggregateid": "order-2", "payload": "{\"n\": 4}"})"));
  // Not a JSON object: dead-lettered, and the stream goes on.
  IT_ASSERT_OK(Emit(true, prefix, "not json at all"));
  IT_ASSERT_OK(Emit(true, prefix, R"({"id": "m-5", "aggregatetype": "Order",
                                       "aggregateid": "order-1", "payload": "{\"n\": 5}"})"));

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, 5, absl::Seconds(60)}));
  ASSERT_EQ(records.size(), 5u);
  std::vector<std::string> order_1_ids, order_1_values;
  for (const KafkaRecord& r : records) {
    if (r.key == "order-1") {
      order_1_ids.push_back(r.Header("id").value_or("<none>"));
      order_1_values.push_back(r.value.value_or("<null>"));
    }
  }
  EXPECT_EQ(order_1_ids, (std::vector<std::string>{row[0].id, "m-2", "m-3", "m-5"}));
  EXPECT_EQ(order_1_values,
            (std::vector<std::string>{row[0].value, R"({"n": 2})",
                                      R"({"n":3,"lines":["café",1.5]})", R"({"n": 5})"}));
  bool standalone_seen = false;
  for (const KafkaRecord& r : records) {
    if (r.key != "order-2") continue;
    standalone_seen = true;
    EXPECT_EQ(r.Header("id"), "m-4");
    EXPECT_EQ(r.value, R"({"n": 4})");
  }
  EXPECT_TRUE(standalone_seen) << "the non-transactional message was not published";

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> dead,
      ConsumeFromBeginning(env().kafka_bootstrap, {{Topic("dlq")}, 1, absl::Seconds(30)}));
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].value, "not json at all");
  EXPECT_NE(dead[0].Header("outboxd.error").value_or("").find("not JSON"), std::string::npos);
  EXPECT_TRUE(outboxd->Running());
}

// A non-transactional message is its own unit of confirmation (one past its LSN): once it is
// confirmed, a crash and restart resume after it, so it is not published twice.
TEST_F(TableLessTest, ConfirmedStandaloneMessageIsNotReplayedAfterAKill) {
  const std::string prefix = UniqueName("alone");
  const std::string topic = Topic("Order");
  config().message_prefixes = {prefix};
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(
      int64_t emitted_at,
      pg().QueryInt("SELECT pg_wal_lsn_diff(pg_logical_emit_message(false, $1, $2), "
                    "'0/0')::bigint",
                    {prefix, R"({"id": "m-1", "aggregatetype": "Order", "aggregateid": "a-1",
                                 "payload": "{\"n\": 1}"})"}));
  IT_ASSERT_OK(FlushWal());
  IT_ASSERT_OK(WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        IT_ASSIGN_OR_RETURN(std::optional<int64_t> confirmed, SlotConfirmedPosition(pg(), slot()));
        return confirmed.has_value() && *confirmed >= emitted_at;
      },
      absl::Seconds(30), "the slot to confirm the standalone message"));
  first->Kill();  // No clean shutdown: only the confirmed position decides what is replayed.

  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, StartOutboxd());
  IT_ASSERT_OK(Emit(false, prefix, R"({"id": "m-2", "aggregatetype": "Order",
                                        "aggregateid": "a-1", "payload": "{\"n\": 2}"})"));
  IT_ASSERT_OK(FlushWal());
  // Waits for a third record that must not come, so a replay of m-1 would show.
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, 3, absl::Seconds(10)}));
  std::vector<std::string> ids;
  for (const KafkaRecord& r : records) ids.push_back(r.Header("id").value_or("<none>"));
  EXPECT_EQ(ids, (std::vector<std::string>{"m-1", "m-2"}));
  EXPECT_TRUE(second->Running());
}

TEST_F(TableLessTest, OnlyMessagesNoTableAndAnEmptyPublication) {
  const std::string prefix = UniqueName("only");
  config().tables.clear();
  config().message_prefixes = {prefix};
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(int64_t published_tables,
                          admin().QueryInt("SELECT count(*) FROM pg_publication_tables WHERE "
                                           "pubname = $1",
                                           {publication()}));
  EXPECT_EQ(published_tables, 0) << "a table-less outbox needs no table in its publication";
  // Rows of the fixture's table are not captured: it is not an outbox table now.
  IT_ASSERT_OK(InsertOutboxRows(pg(), table(), topic_prefix(),
                                {OutboxRow{"Order", "order-9", "Created", R"({"n": 0})"}})
                   .status());
  IT_ASSERT_OK(Emit(true, prefix, R"({"id": "m-1", "aggregatetype": "Order",
                                       "aggregateid": "order-9", "payload": "{\"n\": 1}"})"));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{Topic("Order")}, 1, absl::Seconds(60)}));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].Header("id"), "m-1");
  EXPECT_EQ(records[0].value, R"({"n": 1})");
  EXPECT_TRUE(outboxd->Running());
}

}  // namespace
}  // namespace outboxd::it
