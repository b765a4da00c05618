// Every committed outbox row arrives exactly once, on the right topic, with the right key,
// value and id header, in per-aggregate commit order; rolled-back rows never do.

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/status_macros.h"
#include "harness/writer_pool.h"

namespace outboxd::it {
namespace {

class DeliveryTest : public OutboxdTest {};

void ExpectCleanDelivery(const DeliveryReport& report) {
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.rolled_back_seen, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();
}

TEST_F(DeliveryTest, ConcurrentWritersEveryCommittedRowOnceInCommitOrder) {
  constexpr int kWriters = 4;
  constexpr int kAggregates = 100;
  constexpr int kRows = 10'000;
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());

  LoadSpec spec = NewLoadSpec(kWriters);
  spec.aggregates = kAggregates;
  spec.max_rows_per_tx = 50;
  spec.rollback_one_in = 10;
  spec.rows_per_writer = kRows / kWriters;
  spec.seed = 20240601;
  const std::vector<std::string> topics = LoadTopics();

  std::vector<WriterResult> results;
  const absl::Time start = absl::Now();
  {
    WriterPool writers = StartLoadWriters(env().pg_conninfo, spec, results);
    IT_ASSERT_OK(writers.Join());
  }
  const absl::Time written = absl::Now();

  std::vector<ExpectedEvent> expected;
  absl::flat_hash_set<std::string> rolled_back;
  int64_t transactions = 0, rollbacks = 0;
  for (const WriterResult& r : results) {
    expected.insert(expected.end(), r.committed.begin(), r.committed.end());
    rolled_back.insert(r.rolled_back_ids.begin(), r.rolled_back_ids.end());
    transactions += r.transactions;
    rollbacks += r.rollbacks;
  }
  ASSERT_EQ(expected.size(), static_cast<size_t>(kRows));
  ASSERT_GT(rolled_back.size(), 0u) << "the load should include rolled-back transactions";

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {topics, expected.size(), absl::Seconds(120)}));
  const absl::Time consumed = absl::Now();
  const DeliveryReport report = CheckDelivery(expected, records, rolled_back);
  ExpectCleanDelivery(report);
  EXPECT_TRUE(outboxd->Running()) << "outboxd exited during the load";

  std::cout << absl::StrFormat(
      "[delivery] %d events (%d transactions, %d rolled back with %d rows) from %d writers: "
      "written in %s, all consumed %s after the first insert (%.0f events/s end to end); %s\n",
      expected.size(), transactions, rollbacks, rolled_back.size(), kWriters,
      absl::FormatDuration(written - start), absl::FormatDuration(consumed - start),
      static_cast<double>(expected.size()) / absl::ToDoubleSeconds(consumed - start),
      report.Summary());
}

TEST_F(DeliveryTest, InsertThenDeleteInOneTransactionIsStillPublished) {
  const std::string topic = Topic("Order");
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());
  const std::string qualified = absl::StrCat("public.", QuoteIdent(table()));

  std::vector<ExpectedEvent> expected;
  // The usual outbox style: insert and delete the same row in the transaction.
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<ExpectedEvent> one,
      InsertOutboxRows(pg(), table(), topic_prefix(),
                       {OutboxRow{"Order", "order-1", "Created", R"({"total": 12.5})"}}));
  IT_ASSERT_OK(
      pg().Query(absl::StrCat("DELETE FROM ", qualified, " WHERE id = $1::uuid"), {one[0].id})
          .status());
  IT_ASSERT_OK(pg().Exec("COMMIT"));
  expected.insert(expected.end(), one.begin(), one.end());

  // Several rows, then the whole table emptied, in one transaction.
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<ExpectedEvent> three,
      InsertOutboxRows(pg(), table(), topic_prefix(),
                       {OutboxRow{"Order", "order-2", "Created", R"({"n": 1})"},
                        OutboxRow{"Order", "order-2", "Paid", R"({"n": 2})"},
                        OutboxRow{"Order", "order-3", "Created", R"({"n": 3, "a": [1, "x"]})"}}));
  IT_ASSERT_OK(pg().Exec(absl::StrCat("DELETE FROM ", qualified)));
  IT_ASSERT_OK(pg().Exec("COMMIT"));
  expected.insert(expected.end(), three.begin(), three.end());

  IT_ASSERT_OK_AND_ASSIGN(int64_t left,
                          pg().QueryInt(absl::StrCat("SELECT count(*) FROM ", qualified)));
  EXPECT_EQ(left, 0) << "the outbox table should be empty after the deletes";

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, expected.size(), absl::Seconds(60)}));
  ExpectCleanDelivery(CheckDelivery(expected, records, {}));
  EXPECT_TRUE(outboxd->Running());
}

}  // namespace
}  // namespace outboxd::it
