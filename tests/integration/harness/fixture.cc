#include "harness/fixture.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/kafka_admin.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_macros.h"

namespace outboxd::it {

std::string MakeTestTag(absl::string_view prefix) {
  static std::atomic<int> counter{0};
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name;
  for (const char c : std::string(info->name())) {
    if (name.size() >= 24) break;
    name += std::isalnum(static_cast<unsigned char>(c))
                ? static_cast<char>(std::tolower(static_cast<unsigned char>(c)))
                : '_';
  }
  return absl::StrCat(prefix, "_", name, "_", getpid(), "_", counter++);
}
namespace {

constexpr int kFailureTailLines = 60;
// Numbered slots and publications TearDown drops even when the test ran with fewer.
constexpr int kMaxFamilyCleanedUp = 6;

}  // namespace

void OutboxdTest::SetUp() {
  absl::StatusOr<TestEnv> env = LoadTestEnv();
  if (!env.ok()) GTEST_FAIL() << env.status().message();
  env_ = *env;
  const absl::Status binary = CheckOutboxdBinary(env_);
  if (!binary.ok()) GTEST_FAIL() << binary.message();

  tag_ = MakeTestTag("it");
  table_ = absl::StrCat(tag_, "_outbox");
  slot_ = tag_;
  publication_ = absl::StrCat(tag_, "_pub");
  topic_prefix_ = tag_;
  log_dir_ = (std::filesystem::path(env_.log_dir) / tag_).string();
  std::error_code ec;
  std::filesystem::create_directories(log_dir_, ec);
  ASSERT_FALSE(ec) << "cannot create " << log_dir_ << ": " << ec.message();

  IT_ASSERT_OK_AND_ASSIGN(PgClient pg, PgClient::Connect(env_.pg_conninfo));
  pg_ = std::make_unique<PgClient>(std::move(pg));
  IT_ASSERT_OK_AND_ASSIGN(PgClient admin, PgClient::Connect(env_.pg_admin_conninfo));
  admin_ = std::make_unique<PgClient>(std::move(admin));
  IT_ASSERT_OK(CreateOutboxTable(*pg_, table_));

  config_.pg_conninfo = env_.pg_conninfo;
  config_.slot = slot_;
  config_.publication = publication_;
  config_.tables = {absl::StrCat("public.", table_)};
  config_.status_interval_ms = 200;
  config_.kafka_bootstrap = env_.kafka_bootstrap;
  config_.topic_pattern = absl::StrCat(topic_prefix_, ".${aggregatetype}");
}

void OutboxdTest::TearDown() {
  if (HasFailure()) {
    for (const auto& p : processes_) {
      std::cerr << "---- last " << kFailureTailLines << " lines of " << p->log_path() << " ----\n"
                << LogTail(p->log_path(), kFailureTailLines) << "\n---- end of log ----\n";
    }
  }
  processes_.clear();  // Kills what still runs.
  if (admin_ == nullptr) return;
  IT_EXPECT_OK(DropSlotIfExists(*admin_, slot_, absl::Seconds(20)));
  IT_EXPECT_OK(admin_->Exec(absl::StrCat("DROP PUBLICATION IF EXISTS ", QuoteIdent(publication_))));
  // Parallel slots' families, resharding's transit families (pg/reshard.h), and the strays
  // tests make next to them.
  IT_EXPECT_OK(DropSlotIfExists(*admin_, absl::StrCat(slot_, "_reshard"), absl::Seconds(20)));
  for (const std::string infix : {"_", "_reshard_"}) {
    for (int i = 0; i < std::max(config_.parallel_slots, kMaxFamilyCleanedUp); ++i) {
      IT_EXPECT_OK(DropSlotIfExists(*admin_, absl::StrCat(slot_, infix, i), absl::Seconds(20)));
      IT_EXPECT_OK(admin_->Exec(absl::StrCat("DROP PUBLICATION IF EXISTS ",
                                             QuoteIdent(absl::StrCat(publication_, infix, i)))));
    }
  }
  IT_EXPECT_OK(admin_->Exec(absl::StrCat("DROP PUBLICATION IF EXISTS ",
                                         QuoteIdent(absl::StrCat(publication_, "_reshard")))));
  extra_tables_.push_back(table_);
  for (const std::string& t : extra_tables_) {
    IT_EXPECT_OK(admin_->Exec(absl::StrCat("DROP TABLE IF EXISTS public.", QuoteIdent(t))));
  }
  const absl::Status deleted =
      DeleteTopics(env_.kafka_bootstrap, std::vector<std::string>(topics_.begin(), topics_.end()));
  if (!deleted.ok()) std::cerr << "note: deleting topics: " << deleted << "\n";
}

std::string OutboxdTest::Topic(absl::string_view aggregatetype) {
  std::string topic = absl::StrCat(topic_prefix_, ".", aggregatetype);
  topics_.insert(topic);
  return topic;
}

LoadSpec OutboxdTest::NewLoadSpec(int writers) const {
  LoadSpec spec;
  spec.table = table_;
  spec.topic_prefix = topic_prefix_;
  spec.writers = writers;
  return spec;
}

LoadSpec OutboxdTest::NewSteadyLoadSpec(int writers, int aggregates) const {
  LoadSpec spec = NewLoadSpec(writers);
  spec.aggregates = aggregates;
  spec.max_rows_per_tx = 5;
  spec.rollback_one_in = 0;
  spec.rows_per_writer = -1;  // until stopped
  spec.pause_between_tx = absl::Milliseconds(5);
  return spec;
}

LoadSpec OutboxdTest::NewRestartLoadSpec(int writers, int aggregates, absl::Duration pause,
                                         uint64_t seed) const {
  LoadSpec spec = NewLoadSpec(writers);
  spec.aggregates = aggregates;
  spec.max_rows_per_tx = 10;
  spec.rollback_one_in = 10;
  spec.rows_per_writer = -1;  // until stopped
  spec.pause_between_tx = pause;
  spec.seed = seed;
  return spec;
}

std::vector<std::string> OutboxdTest::LoadTopics() {
  std::vector<std::string> topics;
  for (int i = 0; i < 5; ++i) topics.push_back(Topic(AggregateType(i)));
  return topics;
}

absl::StatusOr<DeliveryReport> OutboxdTest::ReadBackAndCheck(
    const std::vector<WriterResult>& results, const std::vector<std::string>& topics,
    const std::map<std::string, std::string>& consumer) {
  std::vector<ExpectedEvent> expected;
  absl::flat_hash_set<std::string> rolled_back;
  for (const WriterResult& r : results) {
    expected.insert(expected.end(), r.committed.begin(), r.committed.end());
    rolled_back.insert(r.rolled_back_ids.begin(), r.rolled_back_ids.end());
  }
  IT_ASSIGN_OR_RETURN(const int64_t end, CurrentWalPosition(pg()));
  for (const std::string& slot : Slots()) {
    if (!WaitForSlotConfirmed(pg(), slot, end, absl::Seconds(90))) {
      return absl::DeadlineExceededError(
          absl::StrCat("slot ", slot, " did not confirm ", FormatLsn(end), " within 90 s"));
    }
  }
  IT_ASSIGN_OR_RETURN(std::vector<KafkaRecord> records,
                      ConsumeFromBeginning(env().kafka_bootstrap,
                                           {topics, expected.size(), absl::Seconds(90)}, consumer));
  return CheckDelivery(expected, records, rolled_back);
}

std::string OutboxdTest::UniqueName(absl::string_view suffix) const {
  return absl::StrCat(tag_, "_", suffix);
}

absl::StatusOr<OutboxdProcess*> OutboxdTest::LaunchOutboxd() {
  const std::string config_path = absl::StrCat(log_dir_, "/outboxd.toml");
  IT_RETURN_IF_ERROR(WriteConfig(config_, config_path));
  const std::string log_path = absl::StrCat(log_dir_, "/outboxd-", processes_.size() + 1, ".log");
  IT_ASSIGN_OR_RETURN(std::unique_ptr<OutboxdProcess> process,
                      OutboxdProcess::Start(env_.outboxd_binary, config_path, log_path));
  processes_.push_back(std::move(process));
  return processes_.back().get();
}

absl::StatusOr<OutboxdProcess*> OutboxdTest::LaunchOutboxdWith(
    const std::vector<std::string>& args) {
  const std::string log_path = absl::StrCat(log_dir_, "/outboxd-", processes_.size() + 1, ".log");
  IT_ASSIGN_OR_RETURN(std::unique_ptr<OutboxdProcess> process,
                      OutboxdProcess::StartWithArgs(env_.outboxd_binary, args, log_path));
  processes_.push_back(std::move(process));
  return processes_.back().get();
}

std::vector<std::string> OutboxdTest::Slots() const {
  if (config_.parallel_slots == 1) return {slot_};
  std::vector<std::string> out;
  for (int i = 0; i < config_.parallel_slots; ++i) out.push_back(absl::StrCat(slot_, "_", i));
  return out;
}

std::vector<std::string> OutboxdTest::Publications() const {
  if (config_.parallel_slots == 1) return {publication_};
  std::vector<std::string> out;
  for (int i = 0; i < config_.parallel_slots; ++i) {
    out.push_back(absl::StrCat(publication_, "_", i));
  }
  return out;
}

absl::StatusOr<OutboxdProcess*> OutboxdTest::StartOutboxd(absl::Duration ready_timeout) {
  IT_ASSIGN_OR_RETURN(OutboxdProcess * process, LaunchOutboxd());
  const std::vector<std::string> slots = Slots();
  const std::vector<std::string> publications = Publications();
  absl::Status ready;
  for (size_t i = 0; i < slots.size() && ready.ok(); ++i) {
    ready = WaitForSlotStreaming(*pg_, slots[i], publications[i], ready_timeout);
  }
  if (!ready.ok()) {
    if (!process->Running()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "outboxd exited during start-up (",
          process->WaitForExit(absl::ZeroDuration())->ToString(), "); its log is printed below"));
    }
    return absl::Status(ready.code(),
                        absl::StrCat(ready.message(), "; outboxd's log is printed below"));
  }
  return process;
}

std::string OutboxdTest::Tail(const OutboxdProcess& process, int lines) {
  return LogTail(process.log_path(), lines);
}

}  // namespace outboxd::it
