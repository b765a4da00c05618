// Schema changes while rows flow: each ALTER makes Postgres re-send the Relation message, and
// outboxd must follow it: no row lost or garbled, no crash, order kept per aggregate.

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/status_macros.h"
#include "harness/writer_pool.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

class SchemaChangeTest : public FaultsTest {};

TEST_F(SchemaChangeTest, AlterTableWhileWritersInsert) {
  const std::string qualified = absl::StrCat("public.", it::QuoteIdent(table()));
  // Start from a text payload (so it can become jsonb) and an unused column to rename and drop.
  IT_ASSERT_OK(pg().Exec(absl::StrCat("ALTER TABLE ", qualified, " ALTER payload TYPE text, ",
                                      "ADD COLUMN unused_a text DEFAULT 'a', ",
                                      "ADD COLUMN unused_b int DEFAULT 1")));
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd,
                          LaunchStreaming(ConfigText({}, {"validate_json = true"})));

  it::LoadSpec spec = NewSteadyLoadSpec(/*writers=*/3, /*aggregates=*/15);
  const std::vector<std::string> topics = LoadTopics();

  std::vector<it::WriterResult> results;
  {
    it::WriterPool writers = it::StartLoadWriters(env().pg_conninfo, spec, results);
    const std::vector<std::string> changes = {
        absl::StrCat("ALTER TABLE ", qualified, " ADD COLUMN added_late text DEFAULT 'late'"),
        absl::StrCat("ALTER TABLE ", qualified, " RENAME COLUMN unused_a TO unused_renamed"),
        absl::StrCat("ALTER TABLE ", qualified, " DROP COLUMN unused_b"),
        absl::StrCat("ALTER TABLE ", qualified, " ALTER payload TYPE jsonb USING payload::jsonb"),
        absl::StrCat("ALTER TABLE ", qualified, " DROP COLUMN unused_renamed"),
    };
    for (const std::string& sql : changes) {
      absl::SleepFor(absl::Milliseconds(700));
      IT_ASSERT_OK(pg().Exec(sql));
    }
    absl::SleepFor(absl::Milliseconds(700));
    writers.RequestStop();
    IT_ASSERT_OK(writers.Join());
  }

  const std::vector<it::ExpectedEvent> expected = it::CommittedEvents(results);
  ASSERT_GT(expected.size(), 100u) << "the writers should have inserted throughout the ALTERs";
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> records,
                          it::ConsumeFromBeginning(env().kafka_bootstrap,
                                                   {topics, expected.size(), absl::Seconds(90)}));
  const it::DeliveryReport report = it::CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();
  EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<it::KafkaRecord> dead,
      it::ConsumeFromBeginning(env().kafka_bootstrap, {{dlq_topic()}, 0, absl::Seconds(5)}));
  EXPECT_TRUE(dead.empty()) << dead.size() << " rows were dead-lettered, first: "
                            << dead.front().Header("outboxd.error").value_or("?");
  EXPECT_TRUE(outboxd->Running()) << Tail(*outboxd);
}

}  // namespace
}  // namespace outboxd::faults
