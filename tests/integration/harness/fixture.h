#pragma once
// The base fixture: one outbox table, slot, publication and topic prefix per test, the
// outboxd processes it starts, and clean-up so nothing of it outlives the test.

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "harness/config_writer.h"
#include "harness/delivery_check.h"
#include "harness/env.h"
#include "harness/outbox_writer.h"
#include "harness/outboxd_process.h"
#include "harness/pg_client.h"

namespace outboxd::it {

// "<prefix>_<test name, lower case, at most 24 chars>_<pid>_<n>": unique per test and valid
// as a slot, table and publication name (<= 63 bytes of [a-z0-9_]) and as a topic prefix.
std::string MakeTestTag(absl::string_view prefix);

class OutboxdTest : public ::testing::Test {
 protected:
  // Fails (never skips) when scripts/test did not set the environment up. Creates the table.
  void SetUp() override;
  // Prints the tail of every outboxd log if the test failed; kills outboxd; drops the slot,
  // publication and tables; deletes the topics named through Topic().
  void TearDown() override;

  const TestEnv& env() const { return env_; }
  PgClient& pg() { return *pg_; }        // role outboxd, database app
  PgClient& admin() { return *admin_; }  // superuser, database app

  const std::string& table() const { return table_; }  // unqualified, schema public
  const std::string& slot() const { return slot_; }
  const std::string& publication() const { return publication_; }
  const std::string& topic_prefix() const { return topic_prefix_; }
  // "<prefix>.<aggregatetype>", remembered for deletion at the end.
  std::string Topic(absl::string_view aggregatetype);
  // A name unique to this test for other objects (e.g. a plain table): "<tag>_<suffix>".
  std::string UniqueName(absl::string_view suffix) const;
  // A load over this test's table and topic prefix by `writers` writers; the other fields keep
  // LoadSpec's defaults for the caller to set.
  LoadSpec NewLoadSpec(int writers) const;
  // The fault tests' steady load: `writers` write until stopped over `aggregates` aggregates,
  // transactions of up to 5 rows 5 ms apart, none rolled back.
  LoadSpec NewSteadyLoadSpec(int writers, int aggregates) const;
  // The restart tests' load: `writers` write until stopped over `aggregates` aggregates,
  // transactions of up to 10 rows `pause` apart, 1 in 10 rolled back, from `seed`.
  LoadSpec NewRestartLoadSpec(int writers, int aggregates, absl::Duration pause,
                              uint64_t seed) const;
  // Topic() of each aggregate type a load writes (AggregateType(0) to AggregateType(4)).
  std::vector<std::string> LoadTopics();
  // Once every slot of config() confirmed the WAL end of now (after the writers stopped: Kafka
  // then acknowledged every event, so the read cannot stop early on a count that includes
  // replays), reads `topics` back with `consumer` settings and checks them against what
  // `results` committed (CheckDelivery). DeadlineExceeded naming the slot that lagged.
  absl::StatusOr<DeliveryReport> ReadBackAndCheck(
      const std::vector<WriterResult>& results, const std::vector<std::string>& topics,
      const std::map<std::string, std::string>& consumer = {});
  // Registers an extra table (unqualified) to drop at the end.
  void DropAtEnd(const std::string& table) { extra_tables_.push_back(table); }

  // The config this test's outboxd runs with; tests may adjust it before StartOutboxd.
  OutboxdConfig& config() { return config_; }

  // The slots and publications config() streams: slot() and publication(), or with
  // parallel_slots = N their "_0" to "_<N-1>".
  std::vector<std::string> Slots() const;
  std::vector<std::string> Publications() const;

  // Writes config() and starts outboxd, then waits until each of its slots streams (rows
  // committed afterwards are captured). The process is owned by the fixture and lives until
  // TearDown unless stopped; the pointer stays valid until then.
  absl::StatusOr<OutboxdProcess*> StartOutboxd(absl::Duration ready_timeout = absl::Seconds(30));
  // Starts outboxd without waiting for anything.
  absl::StatusOr<OutboxdProcess*> LaunchOutboxd();
  // Starts `outboxd <args...>` (config() is not written) without waiting for anything.
  absl::StatusOr<OutboxdProcess*> LaunchOutboxdWith(const std::vector<std::string>& args);
  // The directory of this test's logs and generated files.
  const std::string& log_dir() const { return log_dir_; }

  // The last `lines` lines of `process`'s log, for failure messages.
  static std::string Tail(const OutboxdProcess& process, int lines = 40);

 private:
  TestEnv env_;
  std::unique_ptr<PgClient> pg_;
  std::unique_ptr<PgClient> admin_;
  std::string tag_;
  std::string log_dir_;
  std::string table_, slot_, publication_, topic_prefix_;
  std::set<std::string> topics_;
  std::vector<std::string> extra_tables_;
  OutboxdConfig config_;
  std::vector<std::unique_ptr<OutboxdProcess>> processes_;
};

}  // namespace outboxd::it
