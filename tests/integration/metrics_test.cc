// /metrics, /healthz and /readyz of a running outboxd ([http] listen) against what Kafka
// actually holds: the counters must equal what a consumer reads, and readiness must follow
// the broker.

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/broker_guard.h"
#include "harness/delivery_check.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/status_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"

namespace outboxd::it {
namespace {

using ::testing::HasSubstr;

constexpr int kOrders = 30;     // rows on <prefix>.Order
constexpr int kCustomers = 20;  // rows on <prefix>.Customer
constexpr int kRowsPerTx = 5;

class MetricsTest : public OutboxdTest {
 protected:
  void SetUp() override {
    OutboxdTest::SetUp();
    absl::StatusOr<int> port = FreeLocalPort();
    ASSERT_TRUE(port.ok()) << port.status();
    port_ = *port;
    config().http_listen = absl::StrCat("127.0.0.1:", port_);
    config().dead_letter_topic = Topic("dlq");
  }

  absl::StatusOr<std::map<std::string, double>> Scrape() {
    absl::StatusOr<HttpAnswer> page = HttpGet(port_, "/metrics");
    if (!page.ok()) return page.status();
    if (page->status != 200) return absl::InternalError(absl::StrCat("/metrics ", page->status));
    return ParseSamples(page->body);
  }

  // Sum of every sample of `name` (all label values); 0 when there is none.
  static double Sum(const std::map<std::string, double>& samples, const std::string& name) {
    double total = 0;
    for (const auto& [key, value] : samples) {
      if (key == name || key.starts_with(name + "{")) total += value;
    }
    return total;
  }
  static double Get(const std::map<std::string, double>& samples, const std::string& key) {
    auto it = samples.find(key);
    return it == samples.end() ? -1 : it->second;
  }
  std::string Published(const std::string& topic) {
    return absl::StrCat("outboxd_events_published_total{topic=\"", topic, "\"}");
  }

  // Commits kRowsPerTx rows at a time, alternating topics; one poison row (empty
  // aggregatetype, so it has no topic) in the middle.
  void WriteRows(std::vector<ExpectedEvent>& expected) {
    int orders = 0, customers = 0, tx = 0;
    while (orders < kOrders || customers < kCustomers) {
      std::vector<OutboxRow> rows;
      for (int i = 0; i < kRowsPerTx; ++i) {
        const bool order = (tx + i) % 2 == 0 ? orders < kOrders : customers >= kCustomers;
        const int n = order ? orders++ : customers++;
        rows.push_back(OutboxRow{order ? "Order" : "Customer",
                                 absl::StrCat(order ? "order-" : "customer-", n % 4), "Created",
                                 absl::StrFormat(R"({"n": %d})", n)});
      }
      IT_ASSERT_OK(pg().Exec("BEGIN"));
      IT_ASSERT_OK_AND_ASSIGN(std::vector<ExpectedEvent> events,
                              InsertOutboxRows(pg(), table(), topic_prefix(), rows));
      if (tx == 3) {
        IT_ASSERT_OK(
            InsertOutboxRows(pg(), table(), topic_prefix(), {{"", "poison-1", "Created", "{}"}})
                .status());
      }
      IT_ASSERT_OK(pg().Exec("COMMIT"));
      expected.insert(expected.end(), events.begin(), events.end());
      ++tx;
    }
  }

  int port_ = 0;
};

TEST_F(MetricsTest, CountersMatchWhatKafkaHoldsAndReadinessFollowsTheBroker) {
  const std::string orders = Topic("Order"), customers = Topic("Customer");
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());

  IT_ASSERT_OK_AND_ASSIGN(HttpAnswer healthz, HttpGet(port_, "/healthz"));
  EXPECT_EQ(healthz.status, 200);
  EXPECT_THAT(healthz.body, HasSubstr("\"status\":\"alive\""));
  IT_ASSERT_OK(WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        absl::StatusOr<HttpAnswer> ready = HttpGet(port_, "/readyz");
        if (!ready.ok()) return ready.status();
        return ready->status == 200;
      },
      absl::Seconds(30), "/readyz to answer 200 while streaming"));

  std::vector<ExpectedEvent> expected;
  WriteRows(expected);
  if (HasFatalFailure()) return;
  // During the run: a scrape while deliveries may still be in flight parses and never shows
  // more than was written.
  IT_ASSERT_OK_AND_ASSIGN(auto during, Scrape());
  EXPECT_LE(Get(during, Published(orders)), kOrders);
  EXPECT_LE(Get(during, Published(customers)), kCustomers);

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap,
                           {{orders, customers}, expected.size(), absl::Seconds(60)}));
  const DeliveryReport report = CheckDelivery(expected, records, {});
  ASSERT_EQ(report.missing, 0u) << report.Summary();
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> dead,
      ConsumeFromBeginning(env().kafka_bootstrap, {{Topic("dlq")}, 1, absl::Seconds(60)}));
  ASSERT_EQ(dead.size(), 1u);
  size_t read_orders = 0, read_customers = 0;
  for (const KafkaRecord& r : records) (r.topic == orders ? read_orders : read_customers)++;

  // After the run: delivery reports are counted on outboxd's loop, a moment after the broker
  // has the records; wait for the counters to settle, then compare exactly.
  std::map<std::string, double> after;
  IT_EXPECT_OK(WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        absl::StatusOr<std::map<std::string, double>> s = Scrape();
        if (!s.ok()) return s.status();
        after = *s;
        return Get(after, Published(orders)) >= static_cast<double>(read_orders) &&
               Get(after, Published(customers)) >= static_cast<double>(read_customers) &&
               Sum(after, "outboxd_dead_lettered_events_total") >= 1 &&
               Get(after, Published(Topic("dlq"))) >= 1 &&
               Get(after, "outboxd_events_in_flight") == 0;
      },
      absl::Seconds(10), "the counters to reach what Kafka holds"));
  EXPECT_EQ(Get(after, Published(orders)), static_cast<double>(read_orders));
  EXPECT_EQ(Get(after, Published(customers)), static_cast<double>(read_customers));
  EXPECT_EQ(read_orders, static_cast<size_t>(kOrders));
  EXPECT_EQ(read_customers, static_cast<size_t>(kCustomers));
  EXPECT_EQ(Sum(after, "outboxd_dead_lettered_events_total"), 1);
  EXPECT_EQ(Get(after, Published(Topic("dlq"))), 1);
  // One observation per acknowledged record, the dead letter included (as in published).
  EXPECT_EQ(Get(after, "outboxd_commit_to_ack_seconds_count"),
            static_cast<double>(expected.size() + 1));
  EXPECT_EQ(Get(after, "outboxd_commit_to_ack_seconds_bucket{le=\"+Inf\"}"),
            static_cast<double>(expected.size() + 1));
  EXPECT_GT(Get(after, "outboxd_commit_to_ack_seconds_sum"), 0);
  // The one slot's series carry its name (as with parallel slots), and no other slot has any.
  EXPECT_GT(Get(after, SlotSample("outboxd_confirmed_lsn", slot())), 0);
  EXPECT_EQ(SamplesBySlot(after, "outboxd_confirmed_lsn").size(), 1u);
  EXPECT_GE(Get(after, SlotSample("outboxd_transactions_total", slot())), 1);
  EXPECT_EQ(Get(after, "outboxd_events_in_flight"), 0);
  EXPECT_EQ(Sum(after, "outboxd_restarts_total"), 0) << "a restart would have re-published";
  EXPECT_EQ(Get(after, "outboxd_ready"), 1);
  std::cout << "[metrics] published " << read_orders << " + " << read_customers
            << " + 1 dead letter; commit->ack count "
            << Get(after, "outboxd_commit_to_ack_seconds_count") << ", mean "
            << Get(after, "outboxd_commit_to_ack_seconds_sum") /
                   Get(after, "outboxd_commit_to_ack_seconds_count") * 1000
            << " ms; confirmed lsn " << Get(after, SlotSample("outboxd_confirmed_lsn", slot()))
            << "\n";

  // Kafka stopped: still alive, no longer ready, and the body says which component and why.
  BrokerGuard broker(env());
  IT_ASSERT_OK(broker.Stop());
  HttpAnswer not_ready;
  IT_EXPECT_OK(WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        absl::StatusOr<HttpAnswer> a = HttpGet(port_, "/readyz");
        if (!a.ok()) return a.status();
        not_ready = *a;
        return a->status == 503;
      },
      absl::Seconds(60), "/readyz to answer 503 with the broker stopped"));
  EXPECT_EQ(not_ready.status, 503);
  EXPECT_THAT(not_ready.body, HasSubstr("\"producer\":{\"ok\":false,\"reason\":\""));
  IT_ASSERT_OK_AND_ASSIGN(HttpAnswer alive, HttpGet(port_, "/healthz"));
  EXPECT_EQ(alive.status, 200);
  IT_ASSERT_OK_AND_ASSIGN(auto down, Scrape());
  EXPECT_EQ(Get(down, "outboxd_ready"), 0);
  EXPECT_EQ(Get(down, "outboxd_health_component_ok{component=\"producer\"}"), 0);
  std::cout << "[metrics] broker stopped: /readyz " << not_ready.status << " " << not_ready.body;

  IT_ASSERT_OK(broker.Start());
  // Ready again once the broker is back, even with no record to deliver.
  IT_EXPECT_OK(WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        absl::StatusOr<HttpAnswer> a = HttpGet(port_, "/readyz");
        if (!a.ok()) return a.status();
        return a->status == 200;
      },
      absl::Seconds(60), "/readyz to answer 200 again once the broker is back"));
  EXPECT_TRUE(outboxd->Running()) << Tail(*outboxd);
}

TEST_F(MetricsTest, ListenAddressInUseIsAConfigErrorWithTheFix) {
  // Hold the port with a second outboxd's status server: the first one binds it.
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(HttpAnswer alive, HttpGet(port_, "/healthz"));
  ASSERT_EQ(alive.status, 200);
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, LaunchOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, second->WaitForExit(absl::Seconds(30)));
  EXPECT_EQ(exit.code, 2) << exit.ToString() << "\n" << Tail(*second);
  EXPECT_THAT(Tail(*second), HasSubstr(absl::StrCat("[http] listen \"127.0.0.1:", port_,
                                                    "\": cannot listen: Address already in use")));
  EXPECT_TRUE(first->Running());
}

}  // namespace
}  // namespace outboxd::it
