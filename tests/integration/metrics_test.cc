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
