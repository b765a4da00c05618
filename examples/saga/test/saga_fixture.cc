#include "saga_fixture.h"

#include <fstream>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "harness/config_writer.h"
#include "harness/kafka_admin.h"
#include "harness/kafka_consumer.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "outboxd/v1/event.pb.h"

namespace saga_test {
namespace {

using consumer_test::ChildProcess;
using consumer_test::ReadFile;
using outboxd::it::PgClient;
using outboxd::it::PgRow;
using outboxd::it::QuoteIdent;

constexpr const char* kServices[] = {"orders", "stock", "payment"};
// The topics the services read (suffixes: messages.h).
constexpr const char* kTopics[] = {"StockCommand", "PaymentCommand", "StockReply", "PaymentReply"};

// Messages whose consumer has not applied them (not in its inbox): 0 once all is delivered.
constexpr char kUnapplied[] =
    "SELECT count(*) FROM (SELECT id::text AS id, 'S' AS dest FROM O.outbox"
    "  WHERE aggregatetype = 'StockCommand'"
    " UNION ALL SELECT id::text, 'P' FROM O.outbox WHERE aggregatetype = 'PaymentCommand'"
    " UNION ALL SELECT id::text, 'O' FROM S.outbox UNION ALL SELECT id::text, 'O' FROM P.outbox) m"
    " WHERE NOT EXISTS (SELECT 1 FROM S.inbox i WHERE m.dest = 'S' AND i.event_id = m.id)"
    " AND NOT EXISTS (SELECT 1 FROM P.inbox i WHERE m.dest = 'P' AND i.event_id = m.id)"
    " AND NOT EXISTS (SELECT 1 FROM O.inbox i WHERE m.dest = 'O' AND i.event_id = m.id)";

// Each invariant as a query counting the rows that break it; O, S and P stand for the three
// schemas. Every order is confirmed with stock held and exactly one charge, or cancelled with
// nothing held and no money kept; every message was applied by its consumer exactly once.
constexpr std::pair<const char*, const char*> kInvariants[] = {
    {"unfinished sagas",
     "SELECT count(*) FROM O.orders WHERE state NOT IN ('CONFIRMED', 'CANCELLED')"},
    {"confirmed without stock held and a charge",
     "SELECT count(*) FROM O.orders o LEFT JOIN S.reservations r USING (order_id)"
     " LEFT JOIN P.payments p USING (order_id) WHERE o.state = 'CONFIRMED'"
     " AND (r.status IS DISTINCT FROM 'reserved' OR p.status IS DISTINCT FROM 'charged')"},
    {"confirmed without exactly one charge and no refund",
     "SELECT count(*) FROM O.orders o WHERE o.state = 'CONFIRMED' AND"
     " ((SELECT count(*) FROM P.ledger l WHERE l.order_id = o.order_id AND kind = 'charge') <> 1"
     " OR EXISTS (SELECT 1 FROM P.ledger l WHERE l.order_id = o.order_id AND kind = 'refund'))"},
    {"cancelled with stock still held",
     "SELECT count(*) FROM O.orders o JOIN S.reservations r USING (order_id)"
     " WHERE o.state = 'CANCELLED' AND r.status = 'reserved'"},
    {"cancelled with money kept",
     "SELECT count(*) FROM O.orders o WHERE o.state = 'CANCELLED' AND"
     " ((SELECT count(*) FROM P.ledger l WHERE l.order_id = o.order_id AND kind = 'charge') <>"
     " (SELECT count(*) FROM P.ledger l WHERE l.order_id = o.order_id AND kind = 'refund')"
     " OR EXISTS (SELECT 1 FROM P.payments p WHERE p.order_id = o.order_id"
     " AND p.status = 'charged'))"},
    {"more than one charge for an order",
     "SELECT count(*) FROM (SELECT order_id FROM P.ledger WHERE kind = 'charge'"
     " GROUP BY order_id HAVING count(*) > 1) t"},
    {"declined card confirmed",
     "SELECT count(*) FROM O.orders WHERE card = 'declined' AND state = 'CONFIRMED'"},
    {"stock not conserved (initial - available <> held)",
     "SELECT count(*) FROM S.stock s WHERE s.initial - s.available <> COALESCE((SELECT"
     " sum(quantity) FROM S.reservations r WHERE r.sku = s.sku AND r.status = 'reserved'), 0)"},
    {"message not applied by its consumer", kUnapplied},
    {"inbox row of no message",
     "SELECT (SELECT count(*) FROM S.inbox WHERE event_id NOT IN (SELECT id::text FROM O.outbox))"
     " + (SELECT count(*) FROM P.inbox WHERE event_id NOT IN (SELECT id::text FROM O.outbox))"
     " + (SELECT count(*) FROM O.inbox WHERE event_id NOT IN"
     "  (SELECT id::text FROM S.outbox UNION ALL SELECT id::text FROM P.outbox))"},
    {"message off the contract (correlation, causation, version)",
     "SELECT count(*) FROM (SELECT * FROM O.outbox UNION ALL SELECT * FROM S.outbox"
     " UNION ALL SELECT * FROM P.outbox) m WHERE m.correlation_id <> m.aggregateid"
     " OR m.version <> 1 OR (m.causation_id IS NULL) <> (m.type = 'OrderCreated')"
     " OR (m.causation_id IS NOT NULL AND m.causation_id NOT IN (SELECT id::text FROM O.outbox"
     "  UNION ALL SELECT id::text FROM S.outbox UNION ALL SELECT id::text FROM P.outbox))"},
};

// `sql` with O, S and P (followed by '.') replaced by the quoted schema names.
std::string ForSchemas(const std::string& sql, const std::string& o, const std::string& s,
                       const std::string& p) {
  return absl::StrReplaceAll(
      sql, {{"O.", QuoteIdent(o) + "."}, {"S.", QuoteIdent(s) + "."}, {"P.", QuoteIdent(p) + "."}});
}

}  // namespace

void SagaTest::SetUp() {
  OutboxdTest::SetUp();
  if (HasFatalFailure()) return;
  prefix_ = UniqueName("saga");
  std::vector<std::string> tables;
  for (const char* service : kServices) {
    const std::string schema = Schema(service);
    std::string sql = absl::StrCat("CREATE SCHEMA ", QuoteIdent(schema), "; SET search_path TO ",
                                   QuoteIdent(schema), ";\n");
    const std::vector<std::string> files = {SAGA_INBOX_SQL,
                                            absl::StrCat(SAGA_SQL_DIR, "/outbox.sql"),
                                            absl::StrCat(SAGA_SQL_DIR, "/", service, ".sql")};
    for (const std::string& path : files) {
      const std::string text = ReadFile(path);
      ASSERT_FALSE(text.empty()) << "cannot read " << path;
      absl::StrAppend(&sql, text, "\n");
    }
    IT_ASSERT_OK(pg().Exec(absl::StrCat(sql, "RESET search_path;")));
    tables.push_back(absl::StrCat(schema, ".outbox"));
  }
  // Three partitions each, created before any service subscribes; orders spread over them.
  for (const char* suffix :
       {"StockCommand", "PaymentCommand", "StockReply", "PaymentReply", "Order"}) {
    IT_ASSERT_OK(outboxd::it::CreateTopic(env().kafka_bootstrap, Topic(suffix), 3));
  }
  config().tables = tables;
  config().format = "envelope-protobuf";
}

void SagaTest::TearDown() {
  placers_.clear();  // Kills what still runs.
  services_.clear();
  if (relay_ != nullptr) relay_->Kill();
  for (const char* service : kServices) {
    if (prefix_.empty()) break;
    IT_EXPECT_OK(admin().Exec(
        absl::StrCat("DROP SCHEMA IF EXISTS ", QuoteIdent(Schema(service)), " CASCADE")));
  }
  OutboxdTest::TearDown();
}

void SagaTest::SetDelivery(const std::string& delivery) {
  delivery_ = delivery;
  config().delivery = delivery;
}

std::string SagaTest::Conninfo(const std::string& service) const {
  return absl::StrCat(env().pg_conninfo, " options='-csearch_path=", Schema(service), "'");
}

absl::Status SagaTest::StartRelay(bool wait) {
  // The message version travels as a header (Event.headers["version"]).
  const std::string path = absl::StrCat(log_dir(), "/outboxd-saga.toml");
  std::ofstream(path, std::ios::trunc) << outboxd::it::RenderConfig(config())
                                       << "additional_placement = [\"version:header:version\"]\n";
  IT_ASSIGN_OR_RETURN(relay_, LaunchOutboxdWith({"run", "--config", path}));
  if (!wait) return absl::OkStatus();
  return outboxd::it::WaitForSlotStreaming(pg(), slot(), publication(), absl::Seconds(60));
}

absl::Status SagaTest::StartService(const std::string& role,
                                    const std::vector<std::string>& extra) {
  services_.erase(role);  // SIGKILL of a previous one, if any
  std::vector<std::string> args = {SAGA_BINARY,         role,
                                   "--brokers",         env().kafka_bootstrap,
                                   "--postgres",        Conninfo(role == "order" ? "orders" : role),
                                   "--topic-prefix",    topic_prefix(),
                                   "--step-timeout-ms", absl::StrCat(step_timeout_ms_),
                                   "--max-attempts",    absl::StrCat(max_attempts_)};
  if (delivery_ == "exactly_once") {
    args.insert(args.end(), {"-X", "isolation.level=read_committed"});
  }
  args.insert(args.end(), extra.begin(), extra.end());
  const std::string log = absl::StrCat(log_dir(), "/", role, "-", ++launches_, ".log");
  IT_ASSIGN_OR_RETURN(std::unique_ptr<ChildProcess> child, ChildProcess::Start(args, log));
  services_[role] = std::move(child);
  return absl::OkStatus();
}

absl::StatusOr<ChildProcess*> SagaTest::StartPlacing(int first, int count, int per_second) {
  const std::string log = absl::StrCat(log_dir(), "/place-", ++launches_, ".log");
  IT_ASSIGN_OR_RETURN(
      std::unique_ptr<ChildProcess> child,
      ChildProcess::Start(
          {SAGA_BINARY, "place", "--postgres", Conninfo("orders"), "--orders", absl::StrCat(count),
           "--first", absl::StrCat(first), "--per-second", absl::StrCat(per_second),
           "--step-timeout-ms", absl::StrCat(step_timeout_ms_)},
          log));
  placers_.push_back(std::move(child));
  return placers_.back().get();
}

absl::Status SagaTest::ReconnectPg() {
  for (const auto& [client, conninfo] :
       {std::pair{&pg(), env().pg_conninfo}, std::pair{&admin(), env().pg_admin_conninfo}}) {
    absl::StatusOr<PgClient> fresh = PgClient::Connect(conninfo);
    const absl::Time deadline = absl::Now() + absl::Minutes(1);
    while (!fresh.ok() && absl::Now() < deadline) {
      absl::SleepFor(absl::Milliseconds(200));
      fresh = PgClient::Connect(conninfo);
    }
    if (!fresh.ok()) return fresh.status();
    *client = std::move(*fresh);
  }
  return absl::OkStatus();
}

int64_t SagaTest::SettledOrders() {
  absl::StatusOr<int64_t> n =
      pg().QueryInt(absl::StrCat("SELECT count(*) FROM ", QuoteIdent(Schema("orders")),
                                 ".orders WHERE state IN ('CONFIRMED', 'CANCELLED')"));
  return n.ok() ? *n : -1;
}

absl::Status SagaTest::WaitSettledAndQuiet(int64_t orders, absl::Duration timeout) {
  const std::string unapplied =
      ForSchemas(kUnapplied, Schema("orders"), Schema("stock"), Schema("payment"));
  int64_t settled = -1, left = -1;
  const bool done = outboxd::it::WaitUntil(
      [&] {
        settled = SettledOrders();
        absl::StatusOr<int64_t> n = pg().QueryInt(unapplied);
        left = n.ok() ? *n : -1;
        if (!n.ok()) IT_EXPECT_OK(ReconnectPg());  // Postgres restarted under the test
        return settled == orders && left == 0;
      },
      timeout, absl::Milliseconds(500));
  if (done) return absl::OkStatus();
  return absl::DeadlineExceededError(absl::StrCat(settled, " of ", orders, " orders settled, ",
                                                  left, " messages not applied after ",
                                                  absl::FormatDuration(timeout)));
}

Accounting SagaTest::Audit() {
  Accounting a;
  const std::string o = Schema("orders"), s = Schema("stock"), p = Schema("payment");
  const auto count = [&](const std::string& sql) -> int64_t {
    absl::StatusOr<int64_t> n = pg().QueryInt(ForSchemas(sql, o, s, p));
    EXPECT_TRUE(n.ok()) << n.status() << " in " << sql;
    return n.ok() ? *n : -1;
  };
  a.orders = count("SELECT count(*) FROM O.orders");
  a.confirmed = count("SELECT count(*) FROM O.orders WHERE state = 'CONFIRMED'");
  a.cancelled = count("SELECT count(*) FROM O.orders WHERE state = 'CANCELLED'");
  a.unfinished = a.orders - a.confirmed - a.cancelled;
  a.charges = count("SELECT count(*) FROM P.ledger WHERE kind = 'charge'");
  a.refunds = count("SELECT count(*) FROM P.ledger WHERE kind = 'refund'");
  a.retries = count("SELECT COALESCE(sum(retries), 0) FROM O.orders");
  a.late_replies = count("SELECT COALESCE(sum(late_replies), 0) FROM O.orders");
  a.messages = count(
      "SELECT (SELECT count(*) FROM O.outbox) + (SELECT count(*) FROM S.outbox)"
      " + (SELECT count(*) FROM P.outbox)");
  a.inbox_rows = count(
      "SELECT (SELECT count(*) FROM O.inbox) + (SELECT count(*) FROM S.inbox)"
      " + (SELECT count(*) FROM P.inbox)");
  a.duplicates_skipped = count(
      "SELECT (SELECT COALESCE(sum(deliveries - 1), 0) FROM O.inbox)"
      " + (SELECT COALESCE(sum(deliveries - 1), 0) FROM S.inbox)"
      " + (SELECT COALESCE(sum(deliveries - 1), 0) FROM P.inbox)");
  absl::StatusOr<std::vector<PgRow>> outcomes = pg().Query(ForSchemas(
      "SELECT COALESCE(outcome, '-'), count(*) FROM O.orders GROUP BY 1 ORDER BY 1", o, s, p));
  EXPECT_TRUE(outcomes.ok()) << outcomes.status();
  if (outcomes.ok()) {
    for (const PgRow& row : *outcomes) {
      int64_t n = 0;
      EXPECT_TRUE(absl::SimpleAtoi(*row[1], &n));
      a.outcomes[*row[0]] = n;
    }
  }
  for (const auto& [name, sql] : kInvariants) {
    const int64_t broken = count(sql);
    if (broken != 0) a.violations.push_back(absl::StrCat(name, ": ", broken));
  }
  // Kafka: every message on the services' topics, each at least once (duplicates counted).
  const int64_t addressed = count(
      "SELECT (SELECT count(*) FROM O.outbox WHERE aggregatetype <> 'Order')"
      " + (SELECT count(*) FROM S.outbox) + (SELECT count(*) FROM P.outbox)");
  std::vector<std::string> topics;
  for (const char* topic : kTopics) topics.push_back(absl::StrCat(topic_prefix(), ".", topic));
  std::map<std::string, std::string> properties;
  if (delivery_ == "exactly_once") properties["isolation.level"] = "read_committed";
  absl::StatusOr<std::vector<outboxd::it::KafkaRecord>> records = outboxd::it::ConsumeFromBeginning(
      env().kafka_bootstrap, {topics, static_cast<size_t>(addressed), absl::Seconds(60)},
      properties);
  EXPECT_TRUE(records.ok()) << records.status();
  if (records.ok()) {
    std::set<std::string> ids;
    for (const outboxd::it::KafkaRecord& r : *records) {
      outboxd::v1::Event event;
      if (r.value.has_value() && event.ParseFromString(*r.value)) ids.insert(event.id());
    }
    a.kafka_records = static_cast<int64_t>(records->size());
    if (static_cast<int64_t>(ids.size()) != addressed) {
      a.violations.push_back(
          absl::StrCat("messages on Kafka: ", ids.size(), " distinct of ", addressed, " written"));
    }
  }
  return a;
}

std::string SagaTest::Describe(const Accounting& a) {
  std::string out = absl::StrCat("orders ", a.orders, ": confirmed ", a.confirmed, ", cancelled ",
                                 a.cancelled, ", unfinished ", a.unfinished, "\noutcomes:");
  for (const auto& [outcome, n] : a.outcomes) absl::StrAppend(&out, " ", outcome, "=", n);
  absl::StrAppend(&out, "\nledger: ", a.charges, " charges, ", a.refunds, " refunds\n",
                  "commands sent again after a deadline: ", a.retries,
                  ", late replies ignored: ", a.late_replies, "\nmessages written: ", a.messages,
                  ", inbox rows: ", a.inbox_rows,
                  ", duplicates skipped by the inboxes: ", a.duplicates_skipped,
                  ", Kafka records read: ", a.kafka_records,
                  "\nviolations: ", a.violations.empty() ? "none" : "");
  for (const std::string& v : a.violations) absl::StrAppend(&out, "\n  ", v);
  return out;
}

}  // namespace saga_test
