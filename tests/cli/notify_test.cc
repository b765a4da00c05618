// systemd's notification protocol (sd_notify(3)) as `outboxd run` speaks it under a Type=notify
// unit: the test plays systemd, listening on a unix datagram socket named by NOTIFY_SOCKET, with
// WATCHDOG_USEC set, and reads what a real run against the test services sends.

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cli_fixture.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::cli {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// A bound abstract-namespace datagram socket: what systemd listens on for a unit's messages.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& name) : name_(name) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    // Abstract namespace: a leading NUL instead of the '@' that NOTIFY_SOCKET spells.
    name.copy(addr.sun_path + 1, sizeof(addr.sun_path) - 2);
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    bound_ = fd_ >= 0 && ::bind(fd_, reinterpret_cast<const sockaddr*>(&addr), len) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  bool bound() const { return bound_; }
  std::string env_value() const { return "@" + name_; }

  // Every datagram received until `until` holds for one of them or `timeout` passes, appended
  // to `messages` (one per datagram, as sent).
  // With `times`, the arrival time of each message too.
  void ReadUntil(std::vector<std::string>& messages, absl::Duration timeout,
                 const std::function<bool(const std::string&)>& until,
                 std::vector<absl::Time>* times = nullptr) {
    const absl::Time end = absl::Now() + timeout;
    while (absl::Now() < end) {
      timeval tv{.tv_sec = 0, .tv_usec = 100'000};
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) continue;
      messages.emplace_back(buf, static_cast<size_t>(n));
      if (times != nullptr) times->push_back(absl::Now());
      if (until && until(messages.back())) return;
    }
  }

 private:
  std::string name_;
  int fd_ = -1;
  bool bound_ = false;
};

int Count(const std::vector<std::string>& messages, const std::string& line) {
  int n = 0;
  for (const std::string& m : messages) {
    for (absl::string_view l : absl::StrSplit(m, '\n')) n += l == line ? 1 : 0;
  }
  return n;
}

std::vector<std::string> StatusLines(const std::vector<std::string>& messages) {
  std::vector<std::string> lines;
  for (const std::string& m : messages) {
    for (absl::string_view l : absl::StrSplit(m, '\n')) {
      if (absl::StartsWith(l, "STATUS=")) lines.emplace_back(l);
    }
  }
  return lines;
}

class NotifyTest : public CliTest {
 protected:
  // A 600 ms watchdog: outboxd feeds it every 200 ms, whatever else the loop has to do.
  std::map<std::string, std::string> NotifyEnv(const NotifySocket& socket) {
    return {{"NOTIFY_SOCKET", socket.env_value()}, {"WATCHDOG_USEC", "600000"}};
  }
};

TEST_F(NotifyTest, ReadyOnceStreamingThenStatusAndAFedWatchdog) {
  NotifySocket socket(UniqueName("notify"));
  ASSERT_TRUE(socket.bound());
  CliProcess* run = StartRun(ConfigText(), NotifyEnv(socket));
  ASSERT_NE(run, nullptr);
  std::vector<std::string> messages;
  socket.ReadUntil(messages, absl::Seconds(30),
                   [](const std::string& m) { return absl::StrContains(m, "READY=1"); });
  ASSERT_EQ(Count(messages, "READY=1"), 1) << absl::StrJoin(messages, " | ");
  // READY=1 comes with the streaming status, and not before the slot streams.
  EXPECT_THAT(messages.back(), HasSubstr(absl::StrCat("STATUS=streaming slot ", slot())));
  EXPECT_THAT(StatusLines(messages), Contains(StartsWith("STATUS=starting")));
  // Idle after start-up: the loop still turns often enough to feed the watchdog.
  std::vector<std::string> after;
  socket.ReadUntil(after, absl::Seconds(2), {});
  EXPECT_GE(Count(after, "WATCHDOG=1"), 5) << absl::StrJoin(after, " | ");
  EXPECT_EQ(Count(after, "READY=1"), 0);
  absl::StatusOr<CliResult> ended = run->Terminate(absl::Seconds(30));
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->exit_code, 0);
  EXPECT_THAT(ended->err, HasSubstr("watchdog fed by the relay loop (timeout 600 ms)"));
}

// With Kafka down at start-up the loop is held by bounded waits (the position record's
// metadata timeout, the restart backoff of up to 10 s), not fed every 200 ms: what matters is
// that no gap comes near the shipped unit's WatchdogSec=60s, or systemd would kill a relay that
// is only waiting for its broker.
TEST_F(NotifyTest, WaitingForKafkaIsAStatusNotReadyAndTheWatchdogGapsStayFarBelowTheUnits) {
  config().kafka_bootstrap = "127.0.0.1:1";
  NotifySocket socket(UniqueName("notify"));
  ASSERT_TRUE(socket.bound());
  const absl::Time started = absl::Now();
  CliProcess* run = StartRun(ConfigText(), NotifyEnv(socket));
  ASSERT_NE(run, nullptr);
  std::vector<std::string> messages;
  std::vector<absl::Time> times;
  socket.ReadUntil(messages, absl::Seconds(20), {}, &times);
  const std::string all = absl::StrJoin(messages, " | ");
  EXPECT_EQ(Count(messages, "READY=1"), 0) << all;
  EXPECT_THAT(StatusLines(messages), Contains(HasSubstr("for Kafka"))) << all;
  absl::Time last = started;
  absl::Duration longest;
  int fed = 0;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (messages[i] != "WATCHDOG=1") continue;
    ++fed;
    longest = std::max(longest, times[i] - last);
    last = times[i];
  }
  longest = std::max(longest, absl::Now() - last);
  std::cout << "[watchdog fed " << fed << " times in 20 s, longest gap " << longest << "]\n";
  EXPECT_GE(fed, 3) << all;
  EXPECT_LT(longest, absl::Seconds(30)) << all;
  absl::StatusOr<CliResult> ended = run->Terminate(absl::Seconds(30));
  ASSERT_TRUE(ended.ok()) << ended.status();
}

TEST_F(NotifyTest, NothingIsSentWithoutNotifySocket) {
  // The same run without NOTIFY_SOCKET: no socket is named, and the log says nothing of it.
  CliProcess* run = StartRun(ConfigText(), {{"WATCHDOG_USEC", "600000"}});
  ASSERT_NE(run, nullptr);
  absl::SleepFor(absl::Seconds(2));
  absl::StatusOr<CliResult> ended = run->Terminate(absl::Seconds(30));
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->exit_code, 0);
  EXPECT_THAT(ended->err, Not(HasSubstr("systemd")));
}

}  // namespace
}  // namespace outboxd::cli
