// Chaos: outboxd under kill -9, broker kills and outages longer than the producer's message
// timeout, Postgres immediate restarts, walsender termination, start-up with either service
// unreachable, and a pause (SIGSTOP) while a second instance takes over, while writers keep
// committing. Every scenario ends in ChaosTest::VerifyAndRecord:
// every committed event present, nothing of a rolled-back transaction, per-aggregate order of
// first occurrences = commit order; duplicates counted (DESIGN.md invariants 1, 2, 3 and 6).
//
// CI run: a few dozen faults per scenario, about 7 minutes in all. OUTBOXD_CHAOS_LONG=1 (or
// `chaos_test --long`): hundreds. OUTBOXD_CHAOS_SEED=N changes the random schedule (printed).

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "harness/log_tail.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "support/chaos_fixture.h"
#include "support/chaos_load.h"
#include "support/faults.h"

namespace outboxd::chaos {
namespace {

// What outboxd logs when it cannot reach a service (src/kafka/producer.cc, src/pg/connection.cc)
// and when it schedules a retry (src/relay/supervisor.cc).
constexpr char kKafkaUnreachableLine[] = "Kafka is unreachable";
constexpr char kPostgresUnreachableLine[] = "cannot connect to Postgres";
// One slot's stream ("restarting slot S from its confirmed position in N ms") or everything
// ("restarting from the slots' confirmed positions in N ms").
const std::regex kRetryLine(R"(restarting [^;]*confirmed positions? in ([0-9]+) ms)");

uint64_t Seed(uint64_t fallback) {
  const char* env = std::getenv("OUTBOXD_CHAOS_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : fallback;
}

absl::Duration Between(std::mt19937_64& rng, int min_ms, int max_ms) {
  return absl::Milliseconds(std::uniform_int_distribution<int>(min_ms, max_ms)(rng));
}

// The delays of outboxd's retry lines, in log order.
std::vector<int64_t> RetryDelaysMs(const std::string& log_path) {
  std::ifstream log(log_path);
  std::vector<int64_t> delays;
  std::string line;
  std::smatch m;
  while (std::getline(log, line)) {
    if (std::regex_search(line, m, kRetryLine)) delays.push_back(std::stoll(m[1].str()));
  }
  return delays;
}

// The pid of the walsender streaming `slot`, if any.
absl::StatusOr<std::optional<std::string>> ActiveWalsender(it::PgClient& admin,
                                                           const std::string& slot) {
  return admin.QueryOptional(
      "SELECT active_pid::text FROM pg_replication_slots WHERE slot_name = $1", {slot});
}

#define CHAOS_ASSERT_FAULT(expr)                                                   \
  do {                                                                             \
    const absl::StatusOr<absl::Duration> fault_ = (expr);                          \
    ASSERT_TRUE(fault_.ok()) << #expr << ": " << fault_.status()                   \
                             << " (service script log: " << services_log() << ")"; \
  } while (false)

TEST_F(ChaosTest, Kill9AtRandomMoments) {
  const int kills = LongMode() ? 300 : 30;
  const uint64_t seed = Seed(101);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * first, Launch());
  IT_ASSERT_OK(WaitStreaming());
  (void)first;
  ChaosLoad load(LoadSpec(seed));

  for (int i = 0; i < kills; ++i) {
    // Anywhere from start-up (connecting, slot busy, replaying) to mid-stream.
    absl::SleepFor(Between(rng, 100, 2500));
    ExpectAlive(fmt::format("before kill {}", i + 1));
    KillCurrent();
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) absl::SleepFor(Between(rng, 0, 1500));
    IT_ASSERT_OK(Launch().status());
  }
  absl::SleepFor(absl::Seconds(2));
  VerifyAndRecord("kill -9 outboxd", kills, load, started, fmt::format("seed={}", seed));
}

TEST_F(ChaosTest, BrokerKillAndRestart) {
  const int cycles = LongMode() ? 12 : 3;
  const uint64_t seed = Seed(202);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(seed));

  absl::Duration down_total;
  for (int i = 0; i < cycles; ++i) {
    absl::SleepFor(Between(rng, 1500, 4000));
    const absl::Time down = absl::Now();
    CHAOS_ASSERT_FAULT(services().KafkaKill());
    absl::SleepFor(Between(rng, 500, 3000));
    CHAOS_ASSERT_FAULT(services().KafkaStart());
    down_total += absl::Now() - down;
    ExpectAlive(fmt::format("after broker kill {}", i + 1));
  }
  absl::SleepFor(absl::Seconds(2));
  VerifyAndRecord("kafka kill -9 + restart", cycles, load, started,
                  fmt::format("broker down {} in all; seed={}", Seconds(down_total), seed));
}

TEST_F(ChaosTest, LongBrokerOutages) {
  // outboxd pins message.timeout.ms = 0: with a finite timeout, records that timed out in the
  // queue while newer ones of their partition were still delivered came back out of order on
  // replay (this scenario found it, at 186-1,406 reorders a run). Outages far longer than the
  // old 5 s test timeout must now cost nothing: no record times out, no restart, no reorder.
  // The broker comes back alternately after a clean stop and after a kill.
  const std::vector<int> outages_ms =
      LongMode()
          ? std::vector<int>{6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000, 15000, 20000}
          : std::vector<int>{6000, 8500, 11000, 13500};
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(Seed(303)));

  absl::Duration longest;
  for (size_t i = 0; i < outages_ms.size(); ++i) {
    absl::SleepFor(absl::Seconds(3));
    const absl::Time down = absl::Now();
    CHAOS_ASSERT_FAULT(i % 2 == 0 ? services().KafkaStop() : services().KafkaKill());
    absl::SleepFor(down + absl::Milliseconds(outages_ms[i]) - absl::Now());
    ExpectAlive(fmt::format("with the broker down for {}", Seconds(absl::Now() - down)));
    CHAOS_ASSERT_FAULT(services().KafkaStart());
    longest = std::max(longest, absl::Now() - down);
    ExpectAlive("after the broker came back");
  }
  absl::SleepFor(absl::Seconds(2));
  const std::string log = current()->log_path();
  // The position record (src/position) has its own producer with a finite timeout, retried:
  // its time-outs during an outage are expected and are not relay records.
  const int timeouts =
      it::CountLinesContaining(log, "Message timed out") -
      it::CountLinesContaining(log, "position topic: writing the record: Local: Message timed out");
  EXPECT_EQ(timeouts, 0) << "a record timed out although outboxd sets message.timeout.ms = 0";
  VerifyAndRecord("kafka outages, no local timeout", static_cast<int64_t>(outages_ms.size()), load,
                  started,
                  fmt::format("outages up to {}; {} delivery time-outs logged, {} pipeline "
                              "restarts",
                              Seconds(longest), timeouts, RetryDelaysMs(log).size()));
}

TEST_F(ChaosTest, PostgresImmediateRestart) {
  const int restarts = LongMode() ? 20 : 3;
  const uint64_t seed = Seed(404);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(seed));

  for (int i = 0; i < restarts; ++i) {
    absl::SleepFor(Between(rng, 2000, 5000));
    CHAOS_ASSERT_FAULT(services().PgRestartImmediate());
    ExpectAlive(fmt::format("after Postgres restart {}", i + 1));
  }
  absl::SleepFor(absl::Seconds(3));
  VerifyAndRecord("postgres stop -m immediate", restarts, load, started,
                  fmt::format("seed={}", seed));
}

TEST_F(ChaosTest, WalsenderTerminated) {
  // outboxd backs off after each loss (0.5 s doubling, reset after a healthy minute): each
  // termination waits for the walsender to be back, so every one hits a live stream.
  const int terminations = LongMode() ? 40 : 6;
  const uint64_t seed = Seed(505);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(seed));

  int64_t terminated = 0;
  std::optional<std::string> previous;  // the walsender terminated last
  for (int i = 0; i < terminations; ++i) {
    IT_ASSERT_OK_AND_ASSIGN(it::PgClient * admin, Admin());
    std::optional<std::string> active;
    IT_ASSERT_OK(it::WaitUntilOk(
        [&]() -> absl::StatusOr<bool> {
          IT_ASSIGN_OR_RETURN(active, ActiveWalsender(*admin, slot()));
          return active.has_value() && active != previous;
        },
        absl::Seconds(60), "a new walsender to stream the slot"));
    absl::SleepFor(Between(rng, 200, 1500));
    IT_ASSERT_OK_AND_ASSIGN(const int64_t n, TerminateWalsender(*admin, slot()));
    terminated += n;
    previous = active;
    ExpectAlive(fmt::format("after walsender termination {}", i + 1));
  }
  EXPECT_EQ(terminated, terminations) << "the walsender was not always there to terminate";
  absl::SleepFor(absl::Seconds(2));
  VerifyAndRecord("pg_terminate_backend(walsender)", terminated, load, started,
                  fmt::format("seed={}", seed));
}

TEST_F(ChaosTest, StartedWhileKafkaIsDown) {
  const absl::Time started = absl::Now();
  // The slot exists first, so rows committed while outboxd waits for the broker are in it.
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, current()->Stop(absl::Seconds(30)));
  ASSERT_TRUE(exit.ExitedZero()) << exit.ToString();

  CHAOS_ASSERT_FAULT(services().KafkaStop());
  ChaosLoad load(LoadSpec(Seed(606)));
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch());
  absl::SleepFor(absl::Seconds(10));
  ASSERT_TRUE(ExpectAlive("while the broker is unreachable"));
  EXPECT_GE(it::CountLinesContaining(outboxd->log_path(), kKafkaUnreachableLine), 1)
      << "no line saying Kafka is unreachable in " << outboxd->log_path() << ":\n"
      << it::LogTail(outboxd->log_path(), 30);
  const std::vector<int64_t> delays = RetryDelaysMs(outboxd->log_path());
  EXPECT_LE(delays.size(), 6u) << "outboxd restarts too often while the broker is down";
  CHAOS_ASSERT_FAULT(services().KafkaStart());
  absl::SleepFor(absl::Seconds(3));
  VerifyAndRecord("start with kafka down", 1, load, started,
                  fmt::format("10 s unreachable: '{}' logged, {} restarts", kKafkaUnreachableLine,
                              delays.size()));
}

TEST_F(ChaosTest, StartedWhilePostgresIsDown) {
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, current()->Stop(absl::Seconds(30)));
  ASSERT_TRUE(exit.ExitedZero()) << exit.ToString();

  CHAOS_ASSERT_FAULT(services().PgStop());
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch());
  constexpr absl::Duration kDown = absl::Seconds(10);
  absl::SleepFor(kDown);
  ASSERT_TRUE(ExpectAlive("while Postgres is unreachable"));
  const std::string log = outboxd->log_path();
  const int unreachable = it::CountLinesContaining(log, kPostgresUnreachableLine);
  const std::vector<int64_t> delays = RetryDelaysMs(log);
  // Back-off from 0.5 s doubling: 0.5 + 1 + 2 + 4 = 7.5 s, so 4 or 5 attempts in 10 s. A
  // crash loop or a fixed short delay would show many more.
  EXPECT_GE(unreachable, 2) << "no retried '" << kPostgresUnreachableLine << "' line:\n"
                            << it::LogTail(log, 30);
  EXPECT_GE(delays.size(), 2u) << it::LogTail(log, 30);
  EXPECT_LE(delays.size(), 8u) << "retrying without back-off:\n" << it::LogTail(log, 30);
  for (size_t i = 1; i < delays.size(); ++i) {
    EXPECT_GE(delays[i], delays[i - 1]) << "back-off shrank:\n" << it::LogTail(log, 30);
  }
  if (delays.size() >= 2) {
    EXPECT_GT(delays.back(), delays.front()) << "no back-off";
  }

  CHAOS_ASSERT_FAULT(services().PgStart());
  ChaosLoad load(LoadSpec(Seed(707)));
  IT_ASSERT_OK(WaitStreaming(absl::Seconds(60)));
  absl::SleepFor(absl::Seconds(5));
  std::string backoff;
  for (const int64_t d : delays) backoff += fmt::format("{}{}", backoff.empty() ? "" : ",", d);
  VerifyAndRecord(
      "start with postgres down", 1, load, started,
      fmt::format("{} s unreachable: {} '{}' lines, retry delays ms [{}]",
                  absl::ToInt64Seconds(kDown), unreachable, kPostgresUnreachableLine, backoff));
}

TEST_F(ChaosTest, PausedWhileASecondInstanceTakesOver) {
  const int pauses = LongMode() ? 20 : 4;
  const uint64_t seed = Seed(909);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(seed));

  for (int i = 0; i < pauses; ++i) {
    absl::SleepFor(Between(rng, 500, 3000));
    ExpectAlive(fmt::format("before pause {}", i + 1));
    IT_ASSERT_OK(PauseAndTakeOver(Between(rng, 0, 2000)));
  }
  absl::SleepFor(absl::Seconds(2));
  VerifyAndRecord("SIGSTOP + second instance", pauses, load, started, fmt::format("seed={}", seed));
}

// Resharding (pg/reshard.h) again and again under load: each fault restarts outboxd with
// another parallel_slots, after a clean stop or a kill -9, and half the time kills it again at
// a random moment of the resharding that follows. PostgreSQL 15+ (row filters).
TEST_F(ChaosTest, ReshardedAtRandomMoments) {
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient * admin, Admin());
  IT_ASSERT_OK_AND_ASSIGN(const int64_t version, admin->QueryInt("SHOW server_version_num"));
  if (version < 150000) GTEST_SKIP() << "parallel slots need row filters (PostgreSQL 15+)";
  const int reshards = LongMode() ? 40 : 6;
  const uint64_t seed = Seed(1212);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(seed));

  int count = config().parallel_slots;
  std::string counts = std::to_string(count);
  int kills = 0;
  for (int i = 0; i < reshards; ++i) {
    absl::SleepFor(Between(rng, 500, 3000));
    ExpectAlive(fmt::format("before resharding {}", i + 1));
    int next = count;
    while (next == count) next = std::uniform_int_distribution<int>(1, 4)(rng);
    if (std::uniform_int_distribution<int>(0, 1)(rng) == 0) {
      KillCurrent();
      ++kills;
    } else {
      IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, current()->Stop(absl::Seconds(30)));
      EXPECT_TRUE(exit.ExitedZero())
          << "stopping before resharding " << i + 1 << ": " << exit.ToString();
    }
    SetSlotCount(next);
    IT_ASSERT_OK(Launch().status());
    if (std::uniform_int_distribution<int>(0, 1)(rng) == 0) {
      absl::SleepFor(Between(rng, 50, 1500));  // Anywhere in the resharding, or just after.
      KillCurrent();
      ++kills;
      IT_ASSERT_OK(Launch().status());
    }
    count = next;
    counts += fmt::format(" -> {}", count);
  }
  absl::SleepFor(absl::Seconds(2));
  IT_ASSERT_OK(WaitOnlySlotsLeft(absl::Seconds(120)));
  VerifyAndRecord("resharding at random moments", reshards, load, started,
                  fmt::format("seed={}, parallel_slots {}, {} kill -9", seed, counts, kills));
}

// A resharding due while Postgres is down at start-up: outboxd waits for Postgres as usual
// (back-off, no exit), then reshards once it answers.
TEST_F(ChaosTest, ReshardingStartedWhilePostgresIsDown) {
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient * admin, Admin());
  IT_ASSERT_OK_AND_ASSIGN(const int64_t version, admin->QueryInt("SHOW server_version_num"));
  if (version < 150000) GTEST_SKIP() << "parallel slots need row filters (PostgreSQL 15+)";
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(Seed(1313)));
  absl::SleepFor(absl::Seconds(2));
  IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, current()->Stop(absl::Seconds(30)));
  ASSERT_TRUE(exit.ExitedZero()) << exit.ToString();

  CHAOS_ASSERT_FAULT(services().PgStop());
  SetSlotCount(config().parallel_slots == 2 ? 3 : 2);
  IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd, Launch());
  absl::SleepFor(absl::Seconds(4));
  ASSERT_TRUE(ExpectAlive("while Postgres is unreachable"));
  EXPECT_GE(it::CountLinesContaining(outboxd->log_path(), kPostgresUnreachableLine), 2)
      << it::LogTail(outboxd->log_path(), 30);
  CHAOS_ASSERT_FAULT(services().PgStart());
  IT_ASSERT_OK(WaitOnlySlotsLeft(absl::Seconds(90)));
  EXPECT_GT(it::CountLinesContaining(outboxd->log_path(), "resharding for [postgres]"), 0)
      << it::LogTail(outboxd->log_path(), 30);
  ASSERT_TRUE(ExpectAlive("after resharding"));
  absl::SleepFor(absl::Seconds(2));
  VerifyAndRecord("resharding, postgres down at start", 1, load, started, "seed=1313");
}

TEST_F(ChaosTest, AllFaultsMixed) {
  constexpr int kLongOutageMs = 12000;
  const int faults = LongMode() ? 120 : 30;
  const uint64_t seed = Seed(808);
  std::mt19937_64 rng(seed);
  const absl::Time started = absl::Now();
  IT_ASSERT_OK(Launch().status());
  IT_ASSERT_OK(WaitStreaming());
  ChaosLoad load(LoadSpec(seed));

  enum Kind { kKill9, kBrokerKill, kBrokerLongOutage, kPgRestart, kWalsender, kPauseTakeOver };
  const std::vector<Kind> bag = {
      kKill9,        kKill9,     kKill9,     kKill9,     kBrokerKill,
      kPgRestart,    kPgRestart, kWalsender, kWalsender, kBrokerLongOutage,
      kPauseTakeOver};
  std::map<std::string, int> done;
  for (int i = 0; i < faults; ++i) {
    absl::SleepFor(Between(rng, 300, 2500));
    // Kill the current outboxd after an outage only rarely, so most faults hit a running one.
    const Kind kind = bag[std::uniform_int_distribution<size_t>(0, bag.size() - 1)(rng)];
    switch (kind) {
      case kKill9:
        ExpectAlive(fmt::format("before fault {} (kill -9)", i + 1));
        KillCurrent();
        IT_ASSERT_OK(Launch().status());
        ++done["kill -9 outboxd"];
        break;
      case kBrokerKill:
        CHAOS_ASSERT_FAULT(services().KafkaKill());
        absl::SleepFor(Between(rng, 0, 3000));
        CHAOS_ASSERT_FAULT(services().KafkaStart());
        ++done["kafka kill"];
        break;
      case kBrokerLongOutage:
        CHAOS_ASSERT_FAULT(services().KafkaStop());
        absl::SleepFor(absl::Milliseconds(kLongOutageMs));
        // Sometimes outboxd dies too while the broker is away.
        if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
          ExpectAlive("before kill -9 during a broker outage");
          KillCurrent();
          IT_ASSERT_OK(Launch().status());
          ++done["kill -9 outboxd"];
        }
        CHAOS_ASSERT_FAULT(services().KafkaStart());
        ++done["kafka long outage"];
        break;
      case kPgRestart:
        CHAOS_ASSERT_FAULT(services().PgRestartImmediate());
        ++done["pg immediate restart"];
        break;
      case kPauseTakeOver:
        ExpectAlive(fmt::format("before fault {} (SIGSTOP)", i + 1));
        IT_ASSERT_OK(PauseAndTakeOver(Between(rng, 0, 2000)));
        ++done["SIGSTOP + second instance"];
        break;
      case kWalsender: {
        IT_ASSERT_OK_AND_ASSIGN(it::PgClient * admin, Admin());
        IT_ASSERT_OK_AND_ASSIGN(const int64_t n, TerminateWalsender(*admin, slot()));
        if (n > 0) ++done["walsender terminated"];
        break;
      }
    }
    ExpectAlive(fmt::format("after fault {}", i + 1));
  }
  absl::SleepFor(absl::Seconds(2));
  int64_t total = 0;
  std::string mix;
  for (const auto& [name, count] : done) {
    total += count;
    mix += fmt::format("{}{} {}", mix.empty() ? "" : ", ", count, name);
  }
  VerifyAndRecord("all faults mixed", total, load, started, fmt::format("{}; seed={}", mix, seed));
}

}  // namespace
}  // namespace outboxd::chaos
