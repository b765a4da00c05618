#include "consumer_fixture.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "kafka_tools.h"
#include "outboxd/v1/event.pb.h"

namespace consumer_test {

using outboxd::it::PgClient;
using outboxd::it::PgRow;
using outboxd::it::QuoteIdent;

Totals ExpectedTotals(const std::vector<TestEvent>& events) {
  Totals totals;
  for (const TestEvent& e : events) {
    auto& t = totals[{e.aggregate_type, e.aggregate_id}];
    t.first += 1;
    t.second += e.amount;
  }
  return totals;
}

std::pair<int64_t, int64_t> StopSummary(const std::string& log) {
  const size_t at = log.rfind("stopped: ");
  if (at == std::string::npos) return {-1, -1};
  const std::vector<std::string> words = absl::StrSplit(log.substr(at + 9), ' ');
  int64_t applied = -1, duplicates = -1;
  if (words.size() < 3 || !absl::SimpleAtoi(words[0], &applied) ||
      !absl::SimpleAtoi(words[2], &duplicates)) {
    return {-1, -1};
  }
  return {applied, duplicates};
}

std::vector<TestEvent> MakeEvents(int n, int aggregates, const std::string& tag) {
  std::vector<TestEvent> events;
  events.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    events.push_back({absl::StrCat(tag, "-", i), "Ledger", absl::StrCat("acct-", i % aggregates),
                      1 + (i * 7) % 13});
  }
  return events;
}

std::vector<std::pair<std::string, std::string>> EnvelopeRecords(
    const std::vector<TestEvent>& events) {
  std::vector<std::pair<std::string, std::string>> records;
  for (const TestEvent& e : events) {
    outboxd::v1::Event event;
    event.set_id(e.id);
    event.set_aggregate_type(e.aggregate_type);
    event.set_aggregate_id(e.aggregate_id);
    event.set_type("MoneyDeposited");
    event.set_content_type("application/json");
    event.set_payload(absl::StrCat("{\"amount\": ", e.amount, "}"));
    records.emplace_back(e.aggregate_id, event.SerializeAsString());
  }
  return records;
}

void ConsumerTest::SetUp() {
  OutboxdTest::SetUp();
  if (HasFatalFailure()) return;
  // The consumer's tables live in a schema of their own, found through search_path, so the
  // test runs the shipped inbox.sql and schema.sql unchanged.
  schema_ = UniqueName("consumer");
  IT_ASSERT_OK(pg().Exec(absl::StrCat("CREATE SCHEMA ", QuoteIdent(schema_))));
  conninfo_ = absl::StrCat(env().pg_conninfo, " options='-csearch_path=", schema_, "'");
  IT_ASSERT_OK_AND_ASSIGN(PgClient db, PgClient::Connect(conninfo_));
  db_ = std::make_unique<PgClient>(std::move(db));
  for (const char* path : {CONSUMER_INBOX_SQL, CONSUMER_SCHEMA_SQL}) {
    const std::string sql = ReadFile(path);
    ASSERT_FALSE(sql.empty()) << "cannot read " << path;
    IT_ASSERT_OK(db_->Exec(sql));
  }
  group_ = UniqueName("group");
  topic_ = Topic("Ledger");
}

void ConsumerTest::TearDown() {
  consumers_.clear();  // Kills what still runs.
  db_.reset();
  if (!schema_.empty()) {
    IT_EXPECT_OK(
        admin().Exec(absl::StrCat("DROP SCHEMA IF EXISTS ", QuoteIdent(schema_), " CASCADE")));
  }
  OutboxdTest::TearDown();
}

std::vector<std::string> ConsumerTest::ConsumerArgs() const {
  return {
      CONSUMER_BINARY, "--brokers", env().kafka_bootstrap,  "--group", group_, "--topic", topic_,
      "--postgres",    conninfo_,   "--commit-interval-ms", "200"};
}

absl::StatusOr<ChildProcess*> ConsumerTest::StartConsumer(const std::vector<std::string>& args) {
  const std::string log =
      absl::StrCat(env().log_dir, "/", UniqueName("consumer"), "-", consumers_.size() + 1, ".log");
  absl::StatusOr<std::unique_ptr<ChildProcess>> child = ChildProcess::Start(args, log);
  if (!child.ok()) return child.status();
  consumers_.push_back(std::move(*child));
  return consumers_.back().get();
}

int64_t ConsumerTest::InboxCount() {
  absl::StatusOr<int64_t> n = db_->QueryInt("SELECT count(*) FROM inbox");
  return n.ok() ? *n : -1;
}

Totals ConsumerTest::ActualTotals() {
  Totals totals;
  absl::StatusOr<std::vector<PgRow>> rows = db_->Query(
      "SELECT aggregate_type, aggregate_id, event_count, amount_total FROM aggregate_totals");
  EXPECT_TRUE(rows.ok()) << rows.status();
  if (!rows.ok()) return totals;
  for (const PgRow& r : *rows) {
    int64_t count = 0, amount = 0;
    EXPECT_TRUE(absl::SimpleAtoi(*r[2], &count) && absl::SimpleAtoi(*r[3], &amount));
    totals[{*r[0], *r[1]}] = {count, amount};
  }
  return totals;
}

void ConsumerTest::ExpectAppliedOnce(const std::vector<TestEvent>& events) {
  absl::StatusOr<std::vector<PgRow>> ids =
      db_->Query("SELECT event_id FROM inbox ORDER BY event_id COLLATE \"C\"");
  IT_ASSERT_OK(ids.status());
  std::vector<std::string> actual, expected;
  for (const PgRow& r : *ids) actual.push_back(*r[0]);
  for (const TestEvent& e : events) expected.push_back(e.id);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(actual, expected);
  EXPECT_EQ(ActualTotals(), ExpectedTotals(events));
}

absl::Status ConsumerTest::WaitCaughtUp(absl::Duration timeout) {
  return outboxd::it::WaitUntilOk(
      [&]() { return GroupCaughtUp(env().kafka_bootstrap, group_, topic_); }, timeout,
      "the consumer group committing the topic's end offsets", absl::Milliseconds(250));
}

}  // namespace consumer_test
