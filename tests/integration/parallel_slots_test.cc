// [postgres] parallel_slots against a real Postgres and Kafka: the row filters outboxd creates
// give every row to exactly one slot (NULL aggregate ids included), what does not match the
// count is refused with its fix, each slot has its own metrics, and four slots under load
// survive a kill -9 with nothing missing and per-aggregate order kept (DESIGN.md invariants 1, 3, 6
// and 8 per slot).

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/log_tail.h"
#include "harness/outbox_writer.h"
#include "harness/slot.h"
#include "harness/status_client.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "harness/writer_pool.h"

namespace outboxd::it {
namespace {

constexpr int kSlots = 4;

class ParallelSlotsTest : public OutboxdTest {
 public:
  // For the helpers below, which run on behalf of a test.
  using OutboxdTest::admin;
  using OutboxdTest::config;
  using OutboxdTest::pg;
  using OutboxdTest::Publications;
  using OutboxdTest::StartOutboxd;
  using OutboxdTest::table;
  using OutboxdTest::UniqueName;

 protected:
  // Row filters came in PostgreSQL 15; on 14 (the compat suite) only the refusal is tested.
  void SetUp() override {
    OutboxdTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    absl::StatusOr<int64_t> version = admin().QueryInt("SHOW server_version_num");
    ASSERT_TRUE(version.ok()) << version.status();
    server_version_num_ = *version;
    if (server_version_num_ < 150000 && !IsRefusalTest()) {
      GTEST_SKIP() << "PostgreSQL " << server_version_num_ << " has no publication row filters";
    }
  }

  static bool IsRefusalTest() {
    return absl::string_view(testing::UnitTest::GetInstance()->current_test_info()->name()) ==
           "RowFiltersMissingBefore15AreRefused";
  }

  int64_t server_version_num_ = 0;

  // Starts outboxd with `config()`, expects it to exit on its own with status 3 (server set-up)
  // and returns how many lines of its log hold `needle`.
  int RefusedWith(const std::string& needle) {
    absl::StatusOr<OutboxdProcess*> process = LaunchOutboxd();
    EXPECT_TRUE(process.ok()) << process.status();
    if (!process.ok()) return 0;
    absl::StatusOr<ExitStatus> exit = (*process)->WaitForExit(absl::Seconds(60));
    EXPECT_TRUE(exit.ok()) << "outboxd did not exit: " << exit.status() << "\n" << Tail(**process);
    if (exit.ok()) {
      EXPECT_EQ(exit->code, 3) << exit->ToString() << "\n" << Tail(**process);
    }
    const int lines = CountLinesContaining((*process)->log_path(), needle);
    EXPECT_GT(lines, 0) << "no line holds \"" << needle << "\"\n" << Tail(**process);
    return lines;
  }

  // Reads everything back (ReadBackAndCheck): nothing missing, unexpected or reordered per
  // aggregate; duplicates are only counted in `report`.
  void ReadEverythingBack(OutboxdProcess& process, const std::vector<WriterResult>& results,
                          const std::vector<std::string>& topics,
                          const std::map<std::string, std::string>& consumer,
                          DeliveryReport& report) {
    absl::StatusOr<DeliveryReport> checked = ReadBackAndCheck(results, topics, consumer);
    ASSERT_TRUE(checked.ok()) << checked.status() << "\n" << Tail(process);
    report = *checked;
    EXPECT_GT(report.expected, 0u);
    EXPECT_EQ(report.missing, 0u) << report.Summary();
    EXPECT_EQ(report.unexpected, 0u) << report.Summary();
    EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
    EXPECT_EQ(report.split_aggregates, 0u) << report.Summary();
    EXPECT_EQ(report.order_violations, 0u) << report.Summary();
  }

  // Resharding under load (pg/reshard.h): 1 -> 4 slots at a restart, then 4 -> 2 with a
  // kill -9 in the middle of it; the writers never stop. Reads back with `consumer` settings
  // (ReadEverythingBack) and checks that only the final family of slots is left.
  void ReshardOneToFourToTwo(const std::map<std::string, std::string>& consumer,
                             DeliveryReport& report) {
    config().parallel_slots = 1;
    IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());
    const LoadSpec spec =
        NewRestartLoadSpec(/*writers=*/4, /*aggregates=*/40, absl::Milliseconds(2), /*seed=*/23);
    const std::vector<std::string> topics = LoadTopics();
    std::vector<WriterResult> results;
    WriterPool writers = StartLoadWriters(env().pg_conninfo, spec, results);
    absl::SleepFor(absl::Seconds(3));
    IT_ASSERT_OK_AND_ASSIGN(ExitStatus stopped, first->Stop(absl::Seconds(30)));
    EXPECT_TRUE(stopped.ExitedZero()) << stopped.ToString() << "\n" << Tail(*first);

    config().parallel_slots = 4;
    IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, StartOutboxd(absl::Seconds(90)));
    // Two hops: through the transit family, then back to the configured names.
    EXPECT_GT(CountLinesContaining(
                  second->log_path(),
                  absl::StrCat("from 1 slot(s) ", slot(), " to 4 slot(s) ", slot(), "_reshard")),
              0)
        << Tail(*second);
    EXPECT_GT(
        CountLinesContaining(second->log_path(), absl::StrCat("from 4 slot(s) ", slot(),
                                                              "_reshard to 4 slot(s) ", slot())),
        0)
        << Tail(*second);
    absl::SleepFor(absl::Seconds(3));
    IT_ASSERT_OK_AND_ASSIGN(stopped, second->Stop(absl::Seconds(30)));
    EXPECT_TRUE(stopped.ExitedZero()) << stopped.ToString() << "\n" << Tail(*second);

    config().parallel_slots = 2;
    absl::SleepFor(absl::Seconds(2));  // A backlog for the old slots to publish up to the cut.
    IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * third, LaunchOutboxd());
    const std::string source_streaming = absl::StrCat("streaming slot ", slot(), "_0 ");
    ASSERT_TRUE(
        WaitUntil([&] { return CountLinesContaining(third->log_path(), source_streaming) > 0; },
                  absl::Seconds(30)))
        << Tail(*third);
    absl::SleepFor(absl::Milliseconds(150));  // Inside the old slots' run to the cut.
    std::cout << "[reshard] outboxd #3 kill -9 while resharding 4 -> 2: "
              << third->Kill().ToString() << "\n";
    IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * fourth, StartOutboxd(absl::Seconds(90)));
    absl::SleepFor(absl::Seconds(3));
    writers.RequestStop();
    IT_ASSERT_OK(writers.Join());
    // The resharding ends with only the final family left; its slots are created after the
    // writers' last commit when the kill hit the first hop, so wait for that before reading.
    std::vector<std::string> left;
    EXPECT_TRUE(WaitUntil(
        [&] {
          absl::StatusOr<std::vector<PgRow>> rows = admin().Query(
              "SELECT slot_name FROM pg_replication_slots WHERE slot_name = $1 OR "
              "slot_name LIKE $2 ORDER BY 1",
              {slot(), absl::StrCat(slot(), "\\_%")});
          left.clear();
          if (rows.ok()) {
            for (const PgRow& row : *rows) left.push_back(row[0].value_or(""));
          }
          return left == Slots();
        },
        absl::Seconds(90)))
        << "slots left: " << testing::PrintToString(left) << "\n"
        << Tail(*fourth);
    ReadEverythingBack(*fourth, results, topics, consumer, report);
    EXPECT_TRUE(fourth->Running()) << "outboxd #4 exited\n" << Tail(*fourth);
    IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, fourth->Stop(absl::Seconds(30)));
    EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
  }

  // Four slots under load from four writers; outboxd is killed with SIGKILL after 3 s and a
  // second one takes over. Reads every topic back with `consumer` settings once each slot
  // confirmed the last commit; checks nothing is missing, unexpected or reordered per aggregate.
  void FourSlotsThroughAKill9(const std::map<std::string, std::string>& consumer,
                              DeliveryReport& report) {
    config().parallel_slots = kSlots;
    IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartOutboxd());
    const LoadSpec spec =
        NewRestartLoadSpec(/*writers=*/4, /*aggregates=*/40, absl::Milliseconds(2), /*seed=*/21);
    const std::vector<std::string> topics = LoadTopics();
    std::vector<WriterResult> results;
    WriterPool writers = StartLoadWriters(env().pg_conninfo, spec, results);
    absl::SleepFor(absl::Seconds(3));
    EXPECT_TRUE(first->Running()) << "outboxd #1 exited before it was killed\n" << Tail(*first);
    std::cout << "[parallel] outboxd #1 kill -9: " << first->Kill().ToString() << "\n";
    absl::SleepFor(absl::Seconds(2));  // Writers go on while no outboxd runs.
    IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * second, StartOutboxd());
    absl::SleepFor(absl::Seconds(3));
    writers.RequestStop();
    IT_ASSERT_OK(writers.Join());
    ReadEverythingBack(*second, results, topics, consumer, report);
    // Each slot streamed its share.
    for (const std::string& slot : Slots()) {
      EXPECT_GT(CountLinesContaining(second->log_path(), absl::StrCat("streaming slot ", slot)), 0)
          << Tail(*second);
    }
    EXPECT_TRUE(second->Running()) << "outboxd #2 exited";
    IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, second->Stop(absl::Seconds(30)));
    EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
  }
};

// The filters, evaluated by the walsender's pgoutput: each row, NULL aggregate id included, is
// in exactly one of the four publications. Read with a temporary slot of the test's own that
// decodes the same WAL once per publication. `type` is the aggregate id column's type and
// `value` its SQL for row g (generate_series) of that type.
void ExpectEveryRowInExactlyOnePublication(ParallelSlotsTest& test, const std::string& type,
                                           const std::string& value) {
  PgClient& admin = test.admin();
  const std::string table = absl::StrCat("public.", QuoteIdent(test.table()));
  IT_ASSERT_OK(
      admin.Exec(absl::StrCat("ALTER TABLE ", table, " ALTER COLUMN aggregateid TYPE ", type,
                              " USING NULL, ALTER COLUMN aggregateid DROP NOT NULL")));
  test.config().parallel_slots = kSlots;
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, test.StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, outboxd->Stop(absl::Seconds(30)));
  EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();

  const std::string peek_slot = test.UniqueName("peek");
  IT_ASSERT_OK(admin.Exec(absl::StrCat("SELECT pg_create_logical_replication_slot(",
                                       QuoteLiteral(peek_slot), ", 'pgoutput', true)")));
  constexpr int kRows = 400;
  IT_ASSERT_OK(test.pg().Exec(absl::StrCat(
      "INSERT INTO ", table, " (aggregatetype, aggregateid, type, payload) SELECT 'T', ", value,
      ", 'E', '{}' FROM generate_series(1, ", kRows, ") g")));
  // Rows published per publication so far; pgoutput's Insert message starts with 'I' (73).
  const auto count_rows = [&](const std::string& publication) {
    return admin.QueryInt(absl::StrCat(
        "SELECT count(*) FROM pg_logical_slot_peek_binary_changes(", QuoteLiteral(peek_slot),
        ", NULL, NULL, 'proto_version', '1', 'publication_names', ", QuoteLiteral(publication),
        ") WHERE get_byte(data, 0) = 73"));
  };
  int64_t total = 0;
  for (const std::string& publication : test.Publications()) {
    IT_ASSERT_OK_AND_ASSIGN(const int64_t rows, count_rows(publication));
    std::cout << "[parallel] " << type << ": " << publication << ": " << rows << " rows\n";
    EXPECT_GT(rows, 0) << publication << " got no rows of " << kRows;
    total += rows;
  }
  EXPECT_EQ(total, kRows) << "each row must be in exactly one publication";
  // hash(NULL) is NULL: without coalesce the row would be in none.
  IT_ASSERT_OK(test.pg().Exec(absl::StrCat("INSERT INTO ", table,
                                           " (aggregatetype, aggregateid, type, payload) VALUES "
                                           "('T', NULL, 'E', '{}')")));
  int64_t after = 0;
  for (const std::string& publication : test.Publications()) {
    IT_ASSERT_OK_AND_ASSIGN(const int64_t rows, count_rows(publication));
    after += rows;
  }
  EXPECT_EQ(after - total, 1) << "the row with a NULL aggregate id must be in exactly one";
}

TEST_F(ParallelSlotsTest, EveryRowIsInExactlyOnePublicationText) {
  ExpectEveryRowInExactlyOnePublication(*this, "text", "'agg-' || g");
}

TEST_F(ParallelSlotsTest, EveryRowIsInExactlyOnePublicationVarchar) {
  ExpectEveryRowInExactlyOnePublication(*this, "varchar(255)", "'agg-' || g");
}

// PG 15 refuses hashtext(col::text) on these (an I/O cast): their own hashes serve instead.
TEST_F(ParallelSlotsTest, EveryRowIsInExactlyOnePublicationUuid) {
  ExpectEveryRowInExactlyOnePublication(*this, "uuid", "gen_random_uuid()");
}

TEST_F(ParallelSlotsTest, EveryRowIsInExactlyOnePublicationBigint) {
  ExpectEveryRowInExactlyOnePublication(*this, "bigint", "g * 7919");
}

// `check` and `slot status` list every slot and publication of the family.
TEST_F(ParallelSlotsTest, CheckAndSlotStatusListEachSlot) {
  config().parallel_slots = kSlots;
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, outboxd->Stop(absl::Seconds(30)));
  EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
  const std::string config_path = absl::StrCat(log_dir(), "/outboxd.toml");
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * check,
                          LaunchOutboxdWith({"check", "--config", config_path}));
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus checked, check->WaitForExit(absl::Seconds(60)));
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * status,
                          LaunchOutboxdWith({"slot", "status", "--config", config_path}));
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus listed, status->WaitForExit(absl::Seconds(60)));
  EXPECT_EQ(listed.code, 0) << Tail(*status);
  EXPECT_EQ(CountLinesContaining(check->log_path(), "PASS parallel_slots = 4: slots "), 1)
      << Tail(*check, 60);
  for (int i = 0; i < kSlots; ++i) {
    EXPECT_EQ(CountLinesContaining(check->log_path(),
                                   absl::StrCat("PASS publication ", publication(), "_", i,
                                                ": covers the tables, inserts only, WHERE")),
              1)
        << Tail(*check, 60);
    EXPECT_EQ(CountLinesContaining(check->log_path(), absl::StrCat("slot ", slot(), "_", i, ": ")),
              1)
        << Tail(*check, 60);
    EXPECT_EQ(CountLinesContaining(status->log_path(), absl::StrCat("slot ", slot(), "_", i)), 1)
        << Tail(*status);
  }
  std::cout << "[parallel] check exited " << checked.ToString() << "\n";
}

// /metrics with parallel slots: each slot's stream has its own series under a `slot` label, and
// each slot's outboxd_confirmed_lsn moves past the rows it got (not whichever stream wrote last).
TEST_F(ParallelSlotsTest, MetricsHaveOneSamplePerSlot) {
  config().parallel_slots = kSlots;
  IT_ASSERT_OK_AND_ASSIGN(const int port, FreeLocalPort());
  config().http_listen = absl::StrCat("127.0.0.1:", port);
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());
  // 40 aggregates: the row filters give every slot some of them.
  std::vector<OutboxRow> rows;
  for (int i = 0; i < 40; ++i) {
    rows.push_back(OutboxRow{"Order", absl::StrCat("order-", i), "Created", "{}"});
  }
  IT_ASSERT_OK(pg().Exec("BEGIN"));
  IT_ASSERT_OK(InsertOutboxRows(pg(), table(), topic_prefix(), rows).status());
  IT_ASSERT_OK(pg().Exec("COMMIT"));
  IT_ASSERT_OK_AND_ASSIGN(const int64_t end, CurrentWalPosition(pg()));

  std::map<std::string, double> samples, confirmed;
  IT_EXPECT_OK(WaitUntilOk(
      [&]() -> absl::StatusOr<bool> {
        absl::StatusOr<HttpAnswer> page = HttpGet(port, "/metrics");
        if (!page.ok()) return page.status();
        absl::StatusOr<std::map<std::string, double>> parsed = ParseSamples(page->body);
        if (!parsed.ok()) return parsed.status();
        samples = *std::move(parsed);
        confirmed = SamplesBySlot(samples, "outboxd_confirmed_lsn");
        if (confirmed.size() != static_cast<size_t>(kSlots)) return false;
        for (const auto& [slot, lsn] : confirmed) {
          if (lsn < static_cast<double>(end)) return false;
        }
        return true;
      },
      absl::Seconds(60), "every slot's outboxd_confirmed_lsn to pass the rows"));
  std::vector<std::string> labelled;
  for (const auto& [slot, lsn] : confirmed) labelled.push_back(slot);
  EXPECT_EQ(labelled, Slots());
  EXPECT_FALSE(samples.contains("outboxd_confirmed_lsn")) << "an unlabelled sample";
  const std::map<std::string, double> transactions =
      SamplesBySlot(samples, "outboxd_transactions_total");
  const std::map<std::string, double> retained =
      SamplesBySlot(samples, "outboxd_slot_retained_wal_bytes");
  for (const std::string& slot : Slots()) {
    EXPECT_GE(confirmed[slot], static_cast<double>(end)) << slot;
    EXPECT_GE(transactions.contains(slot) ? transactions.at(slot) : 0, 1) << slot << " got no rows";
    EXPECT_TRUE(retained.contains(slot)) << slot << " has no slot monitor gauge";
    std::cout << "[parallel] " << slot << ": confirmed lsn "
              << FormatLsn(static_cast<int64_t>(confirmed[slot])) << "\n";
  }
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, outboxd->Stop(absl::Seconds(30)));
  EXPECT_TRUE(exit.ExitedZero()) << exit.ToString();
}

// Why the filter masks the sign bit instead of abs(): hashtext can return -2147483648, whose
// abs() is an error, and an error inside a walsender's row filter stops the slot.
TEST_F(ParallelSlotsTest, TheFilterArithmeticCannotFailWhereAbsDoes) {
  IT_ASSERT_OK_AND_ASSIGN(
      const int64_t masked,
      pg().QueryInt("SELECT (coalesce((-2147483648)::int4, 0) & 2147483647) % 4"));
  EXPECT_EQ(masked, 0);
  EXPECT_THAT(pg().Exec("SELECT abs((-2147483648)::int4) % 4").ToString(),
              ::testing::HasSubstr("integer out of range"));
  IT_ASSERT_OK_AND_ASSIGN(const int64_t null_slot,
                          pg().QueryInt("SELECT (coalesce(hashtext(NULL), 0) & 2147483647) % 4"));
  EXPECT_EQ(null_slot, 0);
}

// On PostgreSQL 14 outboxd refuses parallel slots at start-up and names both fixes.
TEST_F(ParallelSlotsTest, RowFiltersMissingBefore15AreRefused) {
  if (server_version_num_ >= 150000) GTEST_SKIP() << "row filters exist here";
  config().parallel_slots = kSlots;
  EXPECT_GT(RefusedWith("lacks (they came in 15); upgrade Postgres to 15 or later, or set "
                        "parallel_slots = 1"),
            0);
}

// `check` before a resharding says what `run` will do instead of judging slots it will create.
TEST_F(ParallelSlotsTest, CheckSaysARunWillReshard) {
  IT_ASSERT_OK(admin().Exec(absl::StrCat("SELECT pg_create_logical_replication_slot(",
                                         QuoteLiteral(slot()), ", 'pgoutput')")));
  config().parallel_slots = kSlots;
  const std::string config_path = absl::StrCat(log_dir(), "/outboxd.toml");
  IT_ASSERT_OK(WriteConfig(config(), config_path));
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * check,
                          LaunchOutboxdWith({"check", "--config", config_path}));
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus checked, check->WaitForExit(absl::Seconds(60)));
  EXPECT_EQ(CountLinesContaining(check->log_path(),
                                 absl::StrCat("PASS resharding: slots ", slot(),
                                              " exist: run moves them to parallel_slots = 4")),
            1)
      << Tail(*check, 60);
  EXPECT_EQ(CountLinesContaining(check->log_path(), "parallel_slots = 4: replication slot(s)"), 0)
      << Tail(*check, 60);
  std::cout << "[parallel] check before resharding exited " << checked.ToString() << "\n";
}

// A lone slot of another count is no complete family resharding could move from.
TEST_F(ParallelSlotsTest, ASlotOfALargerCountIsRefused) {
  IT_ASSERT_OK(
      admin().Exec(absl::StrCat("SELECT pg_create_logical_replication_slot(",
                                QuoteLiteral(absl::StrCat(slot(), "_4")), ", 'pgoutput')")));
  config().parallel_slots = kSlots;
  RefusedWith(absl::StrCat("replication slot(s) ", slot(), "_4 exist"));
}

TEST_F(ParallelSlotsTest, AnotherRowFilterIsRefused) {
  IT_ASSERT_OK(admin().Exec(
      absl::StrCat("CREATE PUBLICATION ", QuoteIdent(absl::StrCat(publication(), "_0")),
                   " FOR TABLE public.", QuoteIdent(table()),
                   " WHERE (abs(hashtext(aggregateid)) % 4 = 0) WITH (publish = 'insert')")));
  config().parallel_slots = kSlots;
  RefusedWith(
      absl::StrCat("publication ", publication(), "_0 filters public.", table(), " with WHERE"));
}

// Four slots, several writers, a kill -9 in the middle: nothing missing, no aggregate's events
// out of order; duplicates are counted (at-least-once).
TEST_F(ParallelSlotsTest, FourSlotsSurviveKill9UnderLoad) {
  DeliveryReport report;
  FourSlotsThroughAKill9({}, report);
  std::cout << "[parallel] 4 slots, kill -9: " << report.Summary() << " (duplicates allowed)\n";
}

// exactly_once: each slot's transactional producer fences the killed instance's and aborts its
// open transaction; a read_committed consumer sees every event once.
TEST_F(ParallelSlotsTest, FourSlotsExactlyOnceThroughAKill9HaveNoDuplicates) {
  config().delivery = "exactly_once";
  DeliveryReport report;
  FourSlotsThroughAKill9({{"isolation.level", "read_committed"}}, report);
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  std::cout << "[parallel] 4 slots, exactly_once, kill -9: " << report.Summary() << "\n";
}

// Resharding 1 -> 4 -> 2 under load, through a kill -9: nothing missing or reordered within an
// aggregate; the kill -9 may replay (at-least-once).
TEST_F(ParallelSlotsTest, ReshardsOneToFourToTwoUnderLoad) {
  DeliveryReport report;
  ReshardOneToFourToTwo({}, report);
  std::cout << "[reshard] 1 -> 4 -> 2 under load: " << report.Summary()
            << " (duplicates allowed: a kill -9)\n";
}

// exactly_once: each family's slots commit their own transactions with their position records,
// so a read_committed consumer sees every event once, the kill -9 included.
TEST_F(ParallelSlotsTest, ReshardsOneToFourToTwoExactlyOnceWithoutDuplicates) {
  config().delivery = "exactly_once";
  DeliveryReport report;
  ReshardOneToFourToTwo({{"isolation.level", "read_committed"}}, report);
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  std::cout << "[reshard] 1 -> 4 -> 2, exactly_once: " << report.Summary() << "\n";
}

}  // namespace
}  // namespace outboxd::it
