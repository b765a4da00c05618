// The status server on a real socket (127.0.0.1, a free port), read with httplib's client.

#include "http/status_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"

namespace outboxd::http {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class StatusServerTest : public ::testing::Test {
 protected:
  void StartServer() {
    const absl::Status s = server_.Start("127.0.0.1:0");
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_GT(server_.port(), 0);
  }
  httplib::Result Get(const std::string& path) {
    httplib::Client client("127.0.0.1", server_.port());
    client.set_connection_timeout(2);
    client.set_read_timeout(5);
    return client.Get(path);
  }

  metrics::RelayMetrics metrics_;
  metrics::Health health_;
  StatusServer server_{metrics_,
                       health_,
                       {.version = "1.2.3",
                        .commit = "abc123",
                        .librdkafka = "2.8.0",
                        .libpq = "15.18",
                        .simdjson = "3.0.1"}};
};

TEST_F(StatusServerTest, MetricsServesThePrometheusTextOfTheLiveValues) {
  StartServer();
  metrics_.events_published.With("outbox.event.orders").Add(41);
  auto res = Get("/metrics");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(res->body,
              HasSubstr("outboxd_events_published_total{topic=\"outbox.event.orders\"} 41\n"));
  EXPECT_THAT(res->body, HasSubstr("outboxd_build_info{version=\"1.2.3\",commit=\"abc123\","
                                   "librdkafka=\"2.8.0\",libpq=\"15.18\",simdjson=\"3.0.1\"} 1\n"));
  EXPECT_THAT(res->body, HasSubstr("outboxd_ready 0\n"));
  metrics_.events_published.With("outbox.event.orders").Add(1);
  auto again = Get("/metrics");
  ASSERT_TRUE(again);
  EXPECT_THAT(again->body, HasSubstr("{topic=\"outbox.event.orders\"} 42\n"));
}

TEST_F(StatusServerTest, HealthzIsAliveWhateverTheReadiness) {
  StartServer();
  auto res = Get("/healthz");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  EXPECT_THAT(res->body, StartsWith("{\"status\":\"alive\",\"version\":\"1.2.3\","));
}

TEST_F(StatusServerTest, ReadyzFollowsTheHealthComponents) {
  StartServer();
  auto before = Get("/readyz");
  ASSERT_TRUE(before) << httplib::to_string(before.error());
  EXPECT_EQ(before->status, 503);
  EXPECT_THAT(before->body,
              HasSubstr("\"streaming\":{\"ok\":false,\"reason\":\"not connected yet\"}"));

  health_.SetStreaming(true, "streaming slot outboxd");
  health_.SetProducer(true, "brokers reachable");
  auto ready = Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  EXPECT_THAT(ready->body, StartsWith("{\"status\":\"ready\","));

  health_.SetSlot(false, "safe_wal_size 1 MiB below the 64 MiB threshold");
  auto at_risk = Get("/readyz");
  ASSERT_TRUE(at_risk);
  EXPECT_EQ(at_risk->status, 503);
  EXPECT_THAT(at_risk->body, HasSubstr("\"slot\":{\"ok\":false,\"reason\":\"safe_wal_size 1 MiB"));
  auto page = Get("/metrics");
  ASSERT_TRUE(page);
  EXPECT_THAT(page->body, HasSubstr("outboxd_health_component_ok{component=\"slot\"} 0\n"));
}

TEST_F(StatusServerTest, UnknownPathIs404) {
  StartServer();
  auto res = Get("/nope");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
}

TEST_F(StatusServerTest, ScrapesSeeMonotonicCountersWhileTheLoopUpdates) {
  StartServer();
  metrics::Counter& counter = metrics_.events_published.With("t");
  std::atomic<bool> stop{false};
  std::thread loop([&] {
    // Not a busy loop: on a loaded machine that would starve the server's threads.
    while (!stop) {
      counter.Add();
      metrics_.commit_to_ack_seconds.Observe(0.003);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    auto res = Get("/metrics");
    ASSERT_TRUE(res) << httplib::to_string(res.error());
    const std::string needle = "outboxd_events_published_total{topic=\"t\"} ";
    const size_t at = res->body.find(needle);
    ASSERT_NE(at, std::string::npos);
    const uint64_t value = std::stoull(res->body.substr(at + needle.size()));
    EXPECT_GE(value, last);
    last = value;
  }
  stop = true;
  loop.join();
  EXPECT_GT(last, 0u);
}

TEST_F(StatusServerTest, StopJoinsAndClosesThePort) {
  StartServer();
  const int port = server_.port();
  {
    // A client holding a keep-alive connection must not hold Stop() up for long.
    httplib::Client client("127.0.0.1", port);
    client.set_keep_alive(true);
    ASSERT_TRUE(client.Get("/healthz"));
    const auto t0 = std::chrono::steady_clock::now();
    server_.Stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  }
  EXPECT_EQ(server_.port(), 0);
  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(1);
  EXPECT_FALSE(client.Get("/healthz"));
  server_.Stop();  // Idempotent.
  StartServer();   // And startable again.
  EXPECT_TRUE(Get("/healthz"));
}

TEST_F(StatusServerTest, StartTwiceIsAnError) {
  StartServer();
  EXPECT_EQ(server_.Start("127.0.0.1:0").code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StatusServerTest, MalformedOrUnresolvableAddressIsInvalidArgument) {
  absl::Status bad = server_.Start("127.0.0.1");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(bad), HasSubstr("[http] listen address \"127.0.0.1\" has no :port"));
  absl::Status unknown = server_.Start("no-such-host.invalid:8587");
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(unknown), HasSubstr("cannot resolve host \"no-such-host.invalid\""));
  EXPECT_EQ(server_.port(), 0);
}

TEST_F(StatusServerTest, PortInUseIsUnavailableNamingTheAddressAndTheFix) {
  StartServer();
  const std::string taken = "127.0.0.1:" + std::to_string(server_.port());
  StatusServer second(metrics_, health_, {});
  const absl::Status s = second.Start(taken);
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(MessageOf(s), HasSubstr("[http] listen \"" + taken + "\": cannot listen"));
  EXPECT_THAT(MessageOf(s), HasSubstr("Address already in use"));
  EXPECT_THAT(MessageOf(s), HasSubstr("choose another port in [http] listen"));
  EXPECT_EQ(second.port(), 0);
}

TEST_F(StatusServerTest, AddressNotOnThisMachineIsUnavailable) {
  // 192.0.2.0/24 is TEST-NET-1: documentation only, never a local address.
  const absl::Status s = server_.Start("192.0.2.1:8587");
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(MessageOf(s), HasSubstr("not one of this machine's"));
}

TEST_F(StatusServerTest, ServesOnIpv6Loopback) {
  const absl::Status s = server_.Start("[::1]:0");
  if (!s.ok()) GTEST_SKIP() << "no IPv6 loopback here: " << s;
  httplib::Client client("::1", server_.port());
  auto res = client.Get("/healthz");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
}

}  // namespace
}  // namespace outboxd::http
