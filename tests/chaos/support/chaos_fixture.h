#pragma once
// The chaos fixture: one outbox table, slot, publication, topic set and dead-letter topic per
// test; the outboxd processes it launches (with their peak memory); the verification that
// ends every scenario; and clean-up so nothing of it outlives the test, services included.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "harness/config_writer.h"
#include "harness/delivery_check.h"
#include "harness/env.h"
#include "harness/outboxd_process.h"
#include "harness/pg_client.h"
#include "support/chaos_load.h"
#include "support/faults.h"
#include "support/proc_memory.h"

namespace outboxd::chaos {

// True for the long run: OUTBOXD_CHAOS_LONG=1 in the environment, or --long on the command
// line of the test binary (see chaos_main.cc).
bool LongMode();
void SetLongMode(bool on);
// --exactly-once on the command line: [relay] delivery = "exactly_once" (as
// OUTBOXD_CHAOS_DELIVERY=exactly_once; ctest passes an argument more reliably than a second
// environment variable).
void SetExactlyOnce(bool on);
// --parallel-slots=N: [postgres] parallel_slots = N (as OUTBOXD_CHAOS_PARALLEL_SLOTS=N).
void SetParallelSlots(int n);

// "30.2 s".
std::string Seconds(absl::Duration d);

class ChaosTest : public ::testing::Test {
 protected:
  static constexpr int kPartitions = 3;

  // Fails (never skips) when scripts/test did not set the environment up. Creates the table,
  // the topics (kPartitions each) and the dead-letter topic.
  void SetUp() override;
  // Prints the end of the last outboxd logs if the test failed; kills outboxd; restarts any
  // stopped service; drops the slot, publication and table; deletes the topics.
  void TearDown() override;

  const it::TestEnv& env() const { return env_; }
  Services& services() { return *services_; }
  // The superuser connection, reconnected (waiting up to a minute) if Postgres restarted.
  absl::StatusOr<it::PgClient*> Admin();

  const std::string& table() const { return table_; }
  // The slot whose walsender faults target: with OUTBOXD_CHAOS_PARALLEL_SLOTS=N the first of
  // the N "<slot>_<i>", so those faults restart one of several streams.
  const std::string& slot() const { return slots_.front(); }
  const std::string& publication() const { return publications_.front(); }
  // Every slot and publication outboxd streams (one, or N parallel slots).
  const std::vector<std::string>& slots() const { return slots_; }
  const std::string& log_dir() const { return log_dir_; }
  // Topics the load writes to (one per aggregate type) and the dead-letter topic.
  const std::vector<std::string>& topics() const { return topics_; }
  const std::string& dead_letter_topic() const { return dead_letter_topic_; }
  // Creates "<prefix>.<aggregatetype>" (deleted at the end) and returns its name.
  absl::StatusOr<std::string> AddTopic(const std::string& aggregatetype, int partitions);

  // [postgres] parallel_slots for the next Launch, and slots() to match (resharding).
  void SetSlotCount(int count);
  // Waits until the slots of slot()'s families that exist are exactly slots(): a resharding
  // under way has ended (its last slots are created, and its old ones dropped, after the
  // events they publish are all in Kafka).
  absl::Status WaitOnlySlotsLeft(absl::Duration timeout);
  // The config outboxd runs with; adjust before Launch.
  it::OutboxdConfig& config() { return config_; }
  // Defaults for this test's load: 4 writers, 60 aggregates, 1..50 rows, 1 in 10 rolled back,
  // 50 ms between a writer's transactions (about 2,000 rows/s in all).
  ChaosLoadSpec LoadSpec(uint64_t seed) const;

  // Writes the config and starts an outboxd without waiting for anything. It becomes current().
  absl::StatusOr<it::OutboxdProcess*> Launch();
  // Waits until the slot exists, is consistent and is streamed by a walsender.
  absl::Status WaitStreaming(absl::Duration timeout = absl::Seconds(60));
  it::OutboxdProcess* current() { return processes_.empty() ? nullptr : processes_.back().get(); }
  int launches() const { return static_cast<int>(processes_.size()); }
  // kill -9 of current(); nothing is launched in its place.
  void KillCurrent();
  // Once the slot streams: SIGSTOP of current() (a long GC pause, a frozen VM) while a second
  // outboxd is launched in its place; SIGCONT after `paused` (exactly_once: once the second
  // initialized its Kafka transactions, which fences the first). exactly_once: the first must exit
  // 8 on its next write. at_least_once: nothing fences it and it keeps the slot, so SIGTERM hands
  // over (exit 0). The second is current() afterwards.
  absl::Status PauseAndTakeOver(absl::Duration paused);
  // True if current() runs. Otherwise outboxd exited on its own, which it must never do in
  // these scenarios: records a failure naming `when`, with its exit status and log, and
  // launches a replacement so the scenario can still check the data.
  bool ExpectAlive(const std::string& when);
  int unexpected_exits() const { return unexpected_exits_; }

  // Peak VmHWM in MB over every outboxd this test launched (sampled until each ended).
  double PeakRssMb();
  // Which launch (1-based, as in its log's name outboxd-N.log) had that peak.
  int peak_launch() const { return peak_launch_; }

  // Waits until outboxd confirmed every transaction committed so far: their records are then
  // all acknowledged by Kafka (invariant 1). Takes the WAL position P now, commits one more
  // outbox row (aggregate type "Sentinel", its own topic) and waits until the slot's
  // confirmed_flush_lsn reaches P, which the sentinel's commit guarantees without relying on
  // keepalive-driven (idle) confirmation. Returns how long that took; DeadlineExceeded naming
  // both positions after `timeout`.
  absl::StatusOr<absl::Duration> WaitAllConfirmed(absl::Duration timeout);

  // Ends a scenario: stops the load, waits until outboxd confirmed every commit
  // (WaitAllConfirmed), reads every topic back, checks it, stops outboxd
  // with SIGTERM (exit 0 expected), appends the summary row and asserts: nothing missing, no
  // per-aggregate reorder, nothing rolled back or unknown or dead-lettered. Duplicates are
  // reported only.
  void VerifyAndRecord(const std::string& scenario, int64_t faults, ChaosLoad& load,
                       absl::Time started, const std::string& note = "");

  // Log of the service scripts this test ran.
  std::string services_log() const { return log_dir_ + "/services.log"; }

 private:
  void RetireSampler();

  it::TestEnv env_;
  std::unique_ptr<Services> services_;
  std::optional<it::PgClient> admin_;
  std::string tag_, table_, slot_, publication_, topic_prefix_, dead_letter_topic_, log_dir_;
  std::vector<std::string> slots_, publications_;  // slot_ and publication_, or their family
  std::vector<std::string> topics_;
  std::vector<std::string> extra_topics_;
  it::OutboxdConfig config_;
  std::vector<std::unique_ptr<it::OutboxdProcess>> processes_;
  std::unique_ptr<MemorySampler> sampler_;  // of current()
  int64_t retired_peak_kb_ = 0;             // of the processes before it
  int peak_launch_ = 0;
  int unexpected_exits_ = 0;
};

}  // namespace outboxd::chaos
