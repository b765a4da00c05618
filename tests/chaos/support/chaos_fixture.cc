#include "support/chaos_fixture.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "harness/fixture.h"
#include "harness/kafka_admin.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "support/summary.h"

#ifndef OUTBOXD_CHAOS_DEFAULT_BINARY
#define OUTBOXD_CHAOS_DEFAULT_BINARY ""
#endif

namespace outboxd::chaos {
namespace {

std::atomic<bool> long_mode{false};
std::atomic<bool> exactly_once{false};
std::atomic<int> parallel_slots{0};  // 0: OUTBOXD_CHAOS_PARALLEL_SLOTS or 1.

constexpr int kFailureTailLines = 60;
constexpr int kFailureTailProcesses = 3;
// How long outboxd may take, after the faults, to deliver and confirm the backlog.
constexpr absl::Duration kDrainTimeout = absl::Minutes(3);

std::string Binary() {
  const char* override_binary = std::getenv("OUTBOXD_CHAOS_BINARY");
  if (override_binary != nullptr && *override_binary != '\0') return override_binary;
  return OUTBOXD_CHAOS_DEFAULT_BINARY;
}

}  // namespace

bool LongMode() {
  const char* env = std::getenv("OUTBOXD_CHAOS_LONG");
  return long_mode || (env != nullptr && std::string(env) == "1");
}
void SetLongMode(bool on) { long_mode = on; }
void SetExactlyOnce(bool on) { exactly_once = on; }
void SetParallelSlots(int n) { parallel_slots = n; }

std::string Seconds(absl::Duration d) { return fmt::format("{:.1f} s", absl::ToDoubleSeconds(d)); }

void ChaosTest::SetUp() {
  absl::StatusOr<it::TestEnv> env = it::LoadTestEnv();
  if (!env.ok()) GTEST_FAIL() << env.status().message();
  env_ = *env;
  env_.outboxd_binary = Binary();
  if (env_.outboxd_binary.empty() || !std::filesystem::exists(env_.outboxd_binary)) {
    GTEST_FAIL() << "outboxd binary '" << env_.outboxd_binary
                 << "' does not exist: build the outboxd target (scripts/test does), or set "
                    "OUTBOXD_CHAOS_BINARY";
  }
  tag_ = it::MakeTestTag("ch");
  table_ = tag_ + "_outbox";
  slot_ = tag_;
  publication_ = tag_ + "_pub";
  // --parallel-slots=N or OUTBOXD_CHAOS_PARALLEL_SLOTS=N (label parallel_slots): the same
  // faults on N slots.
  if (const char* n = std::getenv("OUTBOXD_CHAOS_PARALLEL_SLOTS")) {
    config_.parallel_slots = std::atoi(n);
  }
  if (parallel_slots > 0) config_.parallel_slots = parallel_slots;
  ASSERT_GE(config_.parallel_slots, 1) << "the number of parallel slots must be a count";
  SetSlotCount(config_.parallel_slots);
  topic_prefix_ = tag_;
  dead_letter_topic_ = tag_ + ".dlq";
  log_dir_ = (std::filesystem::path(env_.log_dir) / tag_).string();
  std::error_code ec;
  std::filesystem::create_directories(log_dir_, ec);
  ASSERT_FALSE(ec) << "cannot create " << log_dir_ << ": " << ec.message();
  services_ = std::make_unique<Services>(env_, services_log());

  IT_ASSERT_OK_AND_ASSIGN(it::PgClient * admin, Admin());
  IT_ASSERT_OK_AND_ASSIGN(it::PgClient pg, it::PgClient::Connect(env_.pg_conninfo));
  IT_ASSERT_OK(it::CreateOutboxTable(pg, table_));
  (void)admin;

  ChaosLoadSpec spec = LoadSpec(0);
  for (const std::string& type : ChaosLoad::AggregateTypes(spec)) {
    topics_.push_back(fmt::format("{}.{}", topic_prefix_, type));
    IT_ASSERT_OK(it::CreateTopic(env_.kafka_bootstrap, topics_.back(), kPartitions));
  }
  IT_ASSERT_OK(it::CreateTopic(env_.kafka_bootstrap, dead_letter_topic_, 1));
  IT_ASSERT_OK(AddTopic("Sentinel", 1).status());

  config_.pg_conninfo = env_.pg_conninfo;
  config_.slot = slot_;
  config_.publication = publication_;
  config_.tables = {"public." + table_};
  config_.status_interval_ms = 200;
  config_.kafka_bootstrap = env_.kafka_bootstrap;
  config_.topic_pattern = topic_prefix_ + ".${aggregatetype}";
  // --exactly-once or OUTBOXD_CHAOS_DELIVERY=exactly_once (label exactly_once): the same
  // faults, and no duplicate may reach the read_committed consumer.
  if (const char* delivery = std::getenv("OUTBOXD_CHAOS_DELIVERY")) config_.delivery = delivery;
  if (exactly_once) config_.delivery = "exactly_once";
}

namespace {

// The values of `column` in `catalog` equal to `base` or starting with "<base>_".
std::vector<std::string> Names(it::PgClient& admin, const std::string& column,
                               const std::string& catalog, const std::string& base) {
  absl::StatusOr<std::vector<it::PgRow>> rows =
      admin.Query(fmt::format("SELECT {0} FROM {1} WHERE {0} = $1 OR {0} LIKE $2", column, catalog),
                  {base, base + "\\_%"});
  EXPECT_TRUE(rows.ok()) << "listing " << catalog << ": " << rows.status();
  std::vector<std::string> out;
  if (rows.ok()) {
    for (const it::PgRow& row : *rows) out.push_back(row[0].value_or(""));
  }
  return out;
}

}  // namespace

absl::Status ChaosTest::WaitOnlySlotsLeft(absl::Duration timeout) {
  std::vector<std::string> left;
  const bool done = it::WaitUntil(
      [&] {
        absl::StatusOr<it::PgClient*> admin = Admin();
        if (!admin.ok()) return false;
        left = Names(**admin, "slot_name", "pg_replication_slots", slot_);
        std::vector<std::string> expected = slots_;
        std::sort(left.begin(), left.end());
        std::sort(expected.begin(), expected.end());
        return left == expected;
      },
      timeout);
  if (done) return absl::OkStatus();
  return absl::DeadlineExceededError(fmt::format("slots {} still exist, not only {}",
                                                 fmt::join(left, ", "), fmt::join(slots_, ", ")));
}

void ChaosTest::SetSlotCount(int count) {
  config_.parallel_slots = count;
  slots_.clear();
  publications_.clear();
  for (int i = 0; i < count; ++i) {
    slots_.push_back(count == 1 ? slot_ : fmt::format("{}_{}", slot_, i));
    publications_.push_back(count == 1 ? publication_ : fmt::format("{}_{}", publication_, i));
  }
}

void ChaosTest::TearDown() {
  if (HasFailure()) {
    const size_t first =
        processes_.size() > kFailureTailProcesses ? processes_.size() - kFailureTailProcesses : 0;
    for (size_t i = first; i < processes_.size(); ++i) {
      const std::string& path = processes_[i]->log_path();
      std::cerr << "---- last " << kFailureTailLines << " lines of " << path << " ----\n"
                << it::LogTail(path, kFailureTailLines) << "\n---- end of log ----\n";
    }
    std::cerr << "(all logs of this test: " << log_dir_ << ")\n";
  }
  sampler_.reset();
  processes_.clear();  // Kills what still runs.
  // To look into a failure: the table and the topics stay (the slots still go: they pin WAL).
  const bool keep = HasFailure() && std::getenv("OUTBOXD_CHAOS_KEEP_ON_FAILURE") != nullptr;
  if (keep) std::cerr << "OUTBOXD_CHAOS_KEEP_ON_FAILURE: table " << table_ << " and topics kept\n";
  if (services_ != nullptr) {
    const absl::Status restored = services_->Restore();
    EXPECT_TRUE(restored.ok()) << "restarting the services: " << restored;
  }
  if (!env_.pg_admin_conninfo.empty()) {
    absl::StatusOr<it::PgClient*> admin = Admin();
    if (admin.ok()) {
      // Every family a resharding scenario may leave: the configured one and the transit one
      // (pg/reshard.h) of each count. "\_" is a literal underscore in LIKE.
      for (const std::string& name : Names(**admin, "slot_name", "pg_replication_slots", slot_)) {
        IT_EXPECT_OK(it::DropSlotIfExists(**admin, name, absl::Seconds(30)));
      }
      for (const std::string& name : Names(**admin, "pubname", "pg_publication", publication_)) {
        IT_EXPECT_OK(
            (*admin)->Exec(fmt::format("DROP PUBLICATION IF EXISTS {}", it::QuoteIdent(name))));
      }
      if (!keep) {
        IT_EXPECT_OK(
            (*admin)->Exec(fmt::format("DROP TABLE IF EXISTS public.{}", it::QuoteIdent(table_))));
      }
    } else {
      ADD_FAILURE() << "cannot clean up (slot " << slot_ << " may pin WAL): " << admin.status();
    }
  }
  if (!topics_.empty() && !keep) {
    std::vector<std::string> all = topics_;
    all.insert(all.end(), extra_topics_.begin(), extra_topics_.end());
    all.push_back(dead_letter_topic_);
    const absl::Status deleted = it::DeleteTopics(env_.kafka_bootstrap, all);
    if (!deleted.ok()) std::cerr << "note: deleting topics: " << deleted << "\n";
  }
}

absl::StatusOr<it::PgClient*> ChaosTest::Admin() {
  if (admin_.has_value() && admin_->Exec("SELECT 1").ok()) return &*admin_;
  admin_.reset();
  IT_ASSIGN_OR_RETURN(it::PgClient client,
                      ConnectWithRetry(env_.pg_admin_conninfo, absl::Minutes(1)));
  admin_.emplace(std::move(client));
  return &*admin_;
}

ChaosLoadSpec ChaosTest::LoadSpec(uint64_t seed) const {
  ChaosLoadSpec spec;
  spec.conninfo = env_.pg_conninfo;
  spec.table = table_;
  spec.topic_prefix = topic_prefix_;
  spec.writers = 4;
  spec.aggregates = 60;
  spec.max_rows_per_tx = 50;
  spec.rollback_one_in = 10;
  spec.pause_between_tx = absl::Milliseconds(50);
  spec.seed = seed;
  return spec;
}

void ChaosTest::RetireSampler() {
  if (sampler_ == nullptr) return;
  const int64_t kb = sampler_->PeakHwmKb();
  if (kb > retired_peak_kb_) {
    retired_peak_kb_ = kb;
    peak_launch_ = launches();
  }
  sampler_.reset();
}

absl::StatusOr<it::OutboxdProcess*> ChaosTest::Launch() {
  RetireSampler();
  const std::string config_path = log_dir_ + "/outboxd.toml";
  std::ofstream file(config_path, std::ios::trunc);
  file << it::RenderConfig(config_) << "dead_letter_topic = \"" << dead_letter_topic_ << "\"\n";
  file.close();
  if (!file) return absl::InternalError("cannot write " + config_path);
  const std::string log_path = fmt::format("{}/outboxd-{}.log", log_dir_, processes_.size() + 1);
  IT_ASSIGN_OR_RETURN(std::unique_ptr<it::OutboxdProcess> process,
                      it::OutboxdProcess::Start(env_.outboxd_binary, config_path, log_path));
  processes_.push_back(std::move(process));
  sampler_ = std::make_unique<MemorySampler>(processes_.back()->pid(), env_.outboxd_binary);
  return processes_.back().get();
}

absl::Status ChaosTest::WaitStreaming(absl::Duration timeout) {
  IT_ASSIGN_OR_RETURN(it::PgClient * admin, Admin());
  for (size_t i = 0; i < slots_.size(); ++i) {
    IT_RETURN_IF_ERROR(it::WaitForSlotStreaming(*admin, slots_[i], publications_[i], timeout));
  }
  return absl::OkStatus();
}

void ChaosTest::KillCurrent() {
  RetireSampler();
  if (current() != nullptr) current()->Kill();
}

absl::Status ChaosTest::PauseAndTakeOver(absl::Duration paused) {
  it::OutboxdProcess* first = current();
  if (first == nullptr) return absl::FailedPreconditionError("no outboxd to pause");
  // A paused instance that is standing by (starting, or waiting out a fault) holds no slot and
  // writes nothing, so it would never learn that it was fenced: pause it while it streams (it
  // is the only outboxd left running).
  if (auto s = WaitStreaming(); !s.ok()) return s;
  if (::kill(first->pid(), SIGSTOP) != 0) return absl::InternalError("SIGSTOP failed");
  IT_ASSIGN_OR_RETURN(it::OutboxdProcess * second, Launch());
  const bool fenced = config_.delivery == "exactly_once";
  if (fenced && !it::WaitUntil(
                    [&] {
                      return it::CountLinesContaining(second->log_path(),
                                                      "Kafka transactions initialized") > 0;
                    },
                    absl::Seconds(60))) {
    ::kill(first->pid(), SIGCONT);
    return absl::DeadlineExceededError(
        "the second outboxd did not initialize its Kafka transactions within 60 s");
  }
  absl::SleepFor(paused);
  if (::kill(first->pid(), SIGCONT) != 0) return absl::InternalError("SIGCONT failed");
  if (fenced) {
    IT_ASSIGN_OR_RETURN(it::ExitStatus exit, first->WaitForExit(absl::Seconds(60)));
    if (exit.code != 8) {
      return absl::InternalError(
          fmt::format("the resumed outboxd was not fenced (exit 8 expected): {}", exit.ToString()));
    }
    return absl::OkStatus();
  }
  IT_ASSIGN_OR_RETURN(it::ExitStatus exit, first->Stop(absl::Seconds(60)));
  if (!exit.ExitedZero()) {
    return absl::InternalError(
        fmt::format("the resumed outboxd did not hand over cleanly: {}", exit.ToString()));
  }
  return absl::OkStatus();
}

bool ChaosTest::ExpectAlive(const std::string& when) {
  it::OutboxdProcess* process = current();
  if (process == nullptr) return false;
  if (process->Running()) return true;
  ++unexpected_exits_;
  absl::StatusOr<it::ExitStatus> exit = process->WaitForExit(absl::ZeroDuration());
  ADD_FAILURE() << "outboxd (pid " << process->pid() << ") exited on its own " << when << ": "
                << (exit.ok() ? exit->ToString() : exit.status().ToString())
                << "; it must keep retrying. End of its log (" << process->log_path() << "):\n"
                << it::LogTail(process->log_path(), 30);
  absl::StatusOr<it::OutboxdProcess*> relaunched = Launch();
  EXPECT_TRUE(relaunched.ok()) << relaunched.status();
  return false;
}

absl::StatusOr<std::string> ChaosTest::AddTopic(const std::string& aggregatetype, int partitions) {
  const std::string topic = fmt::format("{}.{}", topic_prefix_, aggregatetype);
  IT_RETURN_IF_ERROR(it::CreateTopic(env_.kafka_bootstrap, topic, partitions));
  extra_topics_.push_back(topic);
  return topic;
}

absl::StatusOr<absl::Duration> ChaosTest::WaitAllConfirmed(absl::Duration timeout) {
  const absl::Time start = absl::Now();
  IT_ASSIGN_OR_RETURN(it::PgClient * admin, Admin());
  IT_ASSIGN_OR_RETURN(const int64_t wal_end, it::CurrentWalPosition(*admin));
  {
    IT_ASSIGN_OR_RETURN(it::PgClient pg, ConnectWithRetry(env_.pg_conninfo, absl::Minutes(1)));
    IT_RETURN_IF_ERROR(it::InsertOutboxRows(pg, table_, topic_prefix_,
                                            {it::OutboxRow{"Sentinel", "sentinel", "Sentinel",
                                                           R"({"sentinel": true})"}})
                           .status());
  }
  int64_t confirmed = 0;
  const bool caught_up = it::WaitUntil(
      [&] {
        ExpectAlive("while draining the backlog");
        absl::StatusOr<it::PgClient*> a = Admin();
        if (!a.ok()) return false;
        // The lowest confirmed position over the slots: each must pass the WAL end.
        int64_t lowest = INT64_MAX;
        for (const std::string& slot : slots_) {
          absl::StatusOr<std::optional<int64_t>> c = it::SlotConfirmedPosition(**a, slot);
          lowest = std::min(lowest, c.ok() && c->has_value() ? **c : int64_t{0});
        }
        confirmed = lowest;
        return confirmed >= wal_end;
      },
      timeout, absl::Milliseconds(200));
  if (!caught_up) {
    return absl::DeadlineExceededError(fmt::format(
        "after {} the slot's confirmed_flush_lsn {} is still below {}, the WAL position "
        "before a sentinel row committed",
        Seconds(timeout), it::FormatLsn(confirmed), it::FormatLsn(wal_end)));
  }
  return absl::Now() - start;
}

double ChaosTest::PeakRssMb() {
  int64_t kb = retired_peak_kb_;
  if (sampler_ != nullptr && sampler_->PeakHwmKb() > kb) {
    kb = sampler_->PeakHwmKb();
    peak_launch_ = launches();
  }
  return static_cast<double>(kb) / 1024.0;
}

void ChaosTest::VerifyAndRecord(const std::string& scenario, int64_t faults, ChaosLoad& load,
                                absl::Time started, const std::string& note) {
  const absl::Status load_status = load.Stop();
  EXPECT_TRUE(load_status.ok()) << "load generator: " << load_status;
  const std::vector<it::ExpectedEvent> committed = load.Committed();
  const absl::flat_hash_set<std::string> not_committed = load.NotCommitted();
  const ChaosLoadStats stats = load.Stats();
  EXPECT_GT(committed.size(), 0u) << "the load committed nothing";
  ExpectAlive("after the faults");

  // Everything committed is in Kafka once the slot confirmed the WAL end (invariant 1); a
  // slot stuck below it is reported, and the read-back below then names what is missing.
  absl::StatusOr<absl::Duration> drained = WaitAllConfirmed(kDrainTimeout);
  EXPECT_TRUE(drained.ok()) << drained.status();
  const absl::Duration drain = drained.ok() ? *drained : kDrainTimeout;

  it::ConsumeOptions consume;
  consume.topics = topics_;
  consume.min_records = committed.size();
  consume.timeout = absl::Seconds(120);
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> records,
                          it::ConsumeFromBeginning(env_.kafka_bootstrap, consume));
  const it::DeliveryReport report = it::CheckDelivery(committed, records, not_committed);

  it::ConsumeOptions dlq;
  dlq.topics = {dead_letter_topic_};
  dlq.timeout = absl::Seconds(30);
  IT_ASSERT_OK_AND_ASSIGN(std::vector<it::KafkaRecord> dead,
                          it::ConsumeFromBeginning(env_.kafka_bootstrap, dlq));

  it::OutboxdProcess* last = current();
  const double peak_mb = PeakRssMb();
  if (last != nullptr && last->Running()) {
    IT_ASSERT_OK_AND_ASSIGN(it::ExitStatus exit, last->Stop(absl::Seconds(30)));
    EXPECT_TRUE(exit.ExitedZero()) << "SIGTERM should drain and exit 0, got " << exit.ToString();
  }

  SummaryRow row;
  row.scenario = scenario;
  row.faults = faults;
  row.events = static_cast<int64_t>(report.expected);
  row.received = static_cast<int64_t>(report.received);
  row.missing = static_cast<int64_t>(report.missing);
  row.duplicates = static_cast<int64_t>(report.duplicates);
  row.reorders = static_cast<int64_t>(report.order_violations);
  row.unexpected = static_cast<int64_t>(report.unexpected + report.wrong_content +
                                        report.split_aggregates + dead.size());
  row.seconds = absl::ToDoubleSeconds(absl::Now() - started);
  row.peak_rss_mb = peak_mb;
  row.note = fmt::format(
      "{}{}delivery={} tx={} rolled_back={} lost_pg_connections={} "
      "unanswered_commits(committed/not)={}/{}; "
      "outboxd launches={} unexpected_exits={}; peak RSS in outboxd-{}.log's process; "
      "drain after faults {}",
      note, note.empty() ? "" : "; ", config_.delivery.empty() ? "at_least_once" : config_.delivery,
      stats.transactions, stats.rollbacks, stats.lost_connections, stats.commits_resolved,
      stats.aborts_resolved, launches(), unexpected_exits_, peak_launch(), Seconds(drain));
  AppendSummaryRow(row);
  std::cout << RenderSummary({row}) << "[" << scenario << "] " << report.Summary() << "\n";

  EXPECT_EQ(report.missing, 0u) << report.Summary();
  if (config_.delivery == "exactly_once") {
    EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  }
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();
  EXPECT_EQ(report.rolled_back_seen, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();
  EXPECT_EQ(dead.size(), 0u) << "rows went to the dead-letter topic, e.g. with outboxd.error="
                             << (dead.empty() ? "" : dead[0].Header("outboxd.error").value_or("?"));
  EXPECT_EQ(unexpected_exits_, 0) << "outboxd exited on its own during the scenario";
}

}  // namespace outboxd::chaos
