// Broker down: outboxd keeps running, the slot's confirmed LSN stays behind rows Kafka has
// not acknowledged (invariant 1); once the broker is back everything arrives and the slot
// moves past them.

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/broker_guard.h"
#include "harness/delivery_check.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::it {
namespace {

class BrokerDownTest : public OutboxdTest {};

TEST_F(BrokerDownTest, SlotWaitsForTheBrokerAndNothingIsLost) {
  const std::string topic = Topic("Order");
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());

  // Warm-up: the topic exists and the producer has a connection before the broker goes away.
  std::vector<ExpectedEvent> expected;
  IT_ASSERT_OK_AND_ASSIGN(
      expected, InsertOutboxRows(pg(), table(), topic_prefix(),
                                 {OutboxRow{"Order", "order-0", "Created", R"({"warm": true})"}}));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> warm,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, 1, absl::Seconds(60)}));
  ASSERT_EQ(warm.size(), 1u) << "the warm-up event did not arrive";

  BrokerGuard broker(env());
  IT_ASSERT_OK(broker.Stop());

  for (int tx = 0; tx < 2; ++tx) {
    std::vector<OutboxRow> rows;
    for (int i = 0; i < 50; ++i) {
      rows.push_back(OutboxRow{"Order", absl::StrCat("order-", i % 7), "Updated",
                               absl::StrFormat(R"({"tx": %d, "i": %d})", tx, i)});
    }
    IT_ASSERT_OK(pg().Exec("BEGIN"));
    IT_ASSERT_OK_AND_ASSIGN(std::vector<ExpectedEvent> events,
                            InsertOutboxRows(pg(), table(), topic_prefix(), rows));
    IT_ASSERT_OK(pg().Exec("COMMIT"));
    expected.insert(expected.end(), events.begin(), events.end());
  }
  // At or past the end of the last commit record: the slot must stay below this.
  IT_ASSERT_OK_AND_ASSIGN(const int64_t rows_lsn, CurrentWalPosition(pg()));
  // Then WAL that holds no outbox row, and no more writes after it: the slot can reach the WAL
  // end only through the keepalives outboxd saw while the rows were still unacknowledged.
  const std::string noise = table() + "_noise";
  DropAtEnd(noise);
  IT_ASSERT_OK(pg().Exec(absl::StrCat("CREATE TABLE public.", QuoteIdent(noise),
                                      " AS SELECT generate_series(1, 1000) AS n")));
  IT_ASSERT_OK_AND_ASSIGN(const int64_t wal_end, CurrentWalPosition(pg()));

  // Watch for 15 status intervals: the confirmed LSN must never pass the unacknowledged rows.
  int64_t highest_confirmed = 0;
  const absl::Time watch_start = absl::Now();
  while (absl::Now() - watch_start < absl::Seconds(3)) {
    IT_ASSERT_OK_AND_ASSIGN(std::optional<int64_t> confirmed, SlotConfirmedPosition(pg(), slot()));
    ASSERT_TRUE(confirmed.has_value());
    highest_confirmed = std::max(highest_confirmed, *confirmed);
    absl::SleepFor(absl::Milliseconds(200));
  }
  EXPECT_LT(highest_confirmed, rows_lsn)
      << "confirmed_flush_lsn reached " << FormatLsn(highest_confirmed)
      << " while rows committed up to " << FormatLsn(rows_lsn)
      << " were not acknowledged by the (stopped) broker";
  ASSERT_TRUE(outboxd->Running()) << "outboxd exited while the broker was down";

  IT_ASSERT_OK(broker.Start());
  const absl::Time back = absl::Now();
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, expected.size(), absl::Seconds(120)}));
  const absl::Duration delivered_after = absl::Now() - back;
  const DeliveryReport report = CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();

  int64_t confirmed_end = 0;
  const bool advanced = WaitUntil(
      [&] {
        absl::StatusOr<std::optional<int64_t>> c = SlotConfirmedPosition(pg(), slot());
        if (c.ok() && c->has_value()) confirmed_end = **c;
        return confirmed_end >= rows_lsn;
      },
      absl::Seconds(30), absl::Milliseconds(100));
  EXPECT_TRUE(advanced) << "confirmed_flush_lsn stayed at " << FormatLsn(confirmed_end)
                        << ", below the delivered rows' " << FormatLsn(rows_lsn);
  // Invariant 5 after an outage: nothing pending, so the idle slot catches up with the WAL
  // within a few status intervals, without waiting for new WAL (the bgwriter logs some every
  // 15 s, which would hide a slot that only moves when the server happens to write).
  const bool caught_up = WaitUntil(
      [&] {
        absl::StatusOr<std::optional<int64_t>> c = SlotConfirmedPosition(pg(), slot());
        if (c.ok() && c->has_value()) confirmed_end = **c;
        return confirmed_end >= wal_end;
      },
      absl::Seconds(5), absl::Milliseconds(100));
  EXPECT_TRUE(caught_up) << "confirmed_flush_lsn stayed at " << FormatLsn(confirmed_end)
                         << ", below the WAL end " << FormatLsn(wal_end)
                         << " although nothing was pending";
  EXPECT_TRUE(outboxd->Running());
  std::cout << "[broker-down] " << expected.size() << " events; slot held at "
            << FormatLsn(highest_confirmed) << " < " << FormatLsn(rows_lsn)
            << " while down; all delivered " << absl::FormatDuration(delivered_after)
            << " after the broker was back; slot then at " << FormatLsn(confirmed_end) << "; "
            << report.Summary() << "\n";
}

}  // namespace
}  // namespace outboxd::it
