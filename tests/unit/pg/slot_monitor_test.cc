// The slot monitor's thread without a Postgres: Stop() interrupts a connect that the server
// never answers, and a failing monitor keeps the last verdict (readiness unchanged, not lost).
// Its verdicts against a real server are tested in tests/faults/wal_guard_test.cc.

#include "pg/slot_monitor.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A TCP listener on 127.0.0.1 that accepts connections and never says a word, like a hung
// server: libpq connects and then waits for the server's reply.
class SilentServer {
 public:
  SilentServer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 || ::listen(fd_, 4) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    }
    port_ = ntohs(addr.sin_port);
  }
  ~SilentServer() {
    if (client_ >= 0) ::close(client_);
    ::close(fd_);
  }
  int port() const { return port_; }
  // True once a client connected within `timeout`; the connection is kept open, unanswered.
  bool AcceptWithin(milliseconds timeout) {
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return false;
    client_ = ::accept(fd_, nullptr, nullptr);
    return client_ >= 0;
  }

 private:
  int fd_ = -1;
  int client_ = -1;
  int port_ = 0;
};

SlotMonitorOptions Options(int port) {
  return {.conninfo = "host=127.0.0.1 port=" + std::to_string(port) + " dbname=app user=outboxd",
          .slot = "s",
          .interval = milliseconds(100),
          .min_safe_wal_size_bytes = 0};
}

TEST(SlotMonitorTest, StopInterruptsAConnectTheServerNeverAnswers) {
  SilentServer server;
  metrics::RelayMetrics metrics;
  metrics::Health health;
  SlotMonitor monitor(Options(server.port()), metrics, health);
  ASSERT_TRUE(monitor.Start().ok());
  // The monitor is now inside its connect, which would take 10 s to time out.
  ASSERT_TRUE(server.AcceptWithin(milliseconds(10'000)));
  const auto started = steady_clock::now();
  monitor.Stop();
  const auto took = std::chrono::duration_cast<milliseconds>(steady_clock::now() - started);
  EXPECT_LT(took, milliseconds(1000)) << "Stop() waited out the connect";
  EXPECT_FALSE(monitor.lost());
  EXPECT_EQ(monitor.lost_message(), "");
}

TEST(SlotMonitorTest, AnUnreachableServerKeepsTheLastVerdict) {
  int port = 0;
  {
    SilentServer closed;  // A port that was free a moment ago and now refuses connections.
    port = closed.port();
  }
  metrics::RelayMetrics metrics;
  metrics::Health health;
  SlotMonitor monitor(Options(port), metrics, health);
  ASSERT_TRUE(monitor.Start().ok());
  // Long enough for several refused attempts (backoff starts at 0.5 s).
  ::usleep(1'200'000);
  monitor.Stop();
  const metrics::Health::Snapshot snapshot = health.Read();
  EXPECT_TRUE(snapshot.slot.ok);
  EXPECT_EQ(snapshot.slot.reason, "not checked yet");
  EXPECT_FALSE(monitor.lost());
  // Every wal_status has its gauge child from the start, all 0 with nothing read.
  // They are the monitored slot's: no other slot gets any.
  EXPECT_EQ(metrics.slots.Children().size(), 1u);
  EXPECT_EQ(metrics.Slot("s").slot_wal_status.Children().size(), 4u);
  for (const auto& [status, gauge] : metrics.Slot("s").slot_wal_status.Children()) {
    EXPECT_EQ(gauge->value(), 0) << status;
  }
}

TEST(SlotMonitorTest, StopWithoutStartIsHarmless) {
  metrics::RelayMetrics metrics;
  metrics::Health health;
  SlotMonitor monitor(Options(1), metrics, health);
  monitor.Stop();
  monitor.Stop();
  EXPECT_FALSE(monitor.lost());
}

}  // namespace
}  // namespace outboxd::pg
