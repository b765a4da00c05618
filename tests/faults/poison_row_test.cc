// Poison rows: a row that cannot become a valid record goes to the dead-letter topic with
// headers naming the reason, table, LSN and xid, keeping its id; the good rows around it are
// delivered in order; the slot's confirmed LSN moves past it; outboxd keeps running.

#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/kafka_admin.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "support/faults_fixture.h"

namespace outboxd::faults {
namespace {

using ::testing::HasSubstr;

// A row as inserted, with what its transaction was.
struct Inserted {
  std::string id;
  std::string xid;
  std::optional<std::string> payload;  // payload::text as Postgres returned it
};

std::string Literal(const std::optional<std::string>& value) {
  return value ? it::QuoteLiteral(*value) : "NULL";
}

struct PoisonCase {
  std::vector<std::string> setup_sql;  // run as the table's owner before outboxd starts
  std::vector<std::string> outbox_lines;
  std::map<std::string, std::string> kafka_properties;
  std::vector<std::string> before_poison_sql;  // run between the good rows and the poison row
  std::vector<std::string> after_poison_sql;
  // Inserts the poison row(s); each becomes one dead-letter record.
  std::function<absl::StatusOr<std::vector<Inserted>>()> insert_poison;
  std::string reason;  // expected in outboxd.error
};

class PoisonRowTest : public FaultsTest {
 protected:
  std::string Qualified() const { return absl::StrCat("public.", it::QuoteIdent(table())); }

  // One row in its own transaction; `columns` and `values` are SQL text (values as literals).
  absl::StatusOr<Inserted> InsertRow(const std::string& columns, const std::string& values) {
    IT_RETURN_IF_ERROR(pg().Exec("BEGIN"));
    absl::StatusOr<std::vector<it::PgRow>> rows =
        pg().Query(absl::StrCat("INSERT INTO ", Qualified(), " (", columns, ") VALUES (", values,
                                ") RETURNING id::text, payload::text"));
    if (!rows.ok() || rows->size() != 1) {
      pg().Exec("ROLLBACK").IgnoreError();
      return rows.ok() ? absl::InternalError("INSERT returned no row") : rows.status();
    }
    IT_ASSIGN_OR_RETURN(std::optional<std::string> xid,
                        pg().QueryOptional("SELECT pg_current_xact_id()::text"));
    IT_RETURN_IF_ERROR(pg().Exec("COMMIT"));
    return Inserted{*(*rows)[0][0], xid.value_or(""), (*rows)[0][1]};
  }

  absl::StatusOr<Inserted> InsertOutbox(const std::optional<std::string>& type,
                                        const std::optional<std::string>& aggregate_id,
                                        const std::optional<std::string>& payload) {
    return InsertRow("aggregatetype, aggregateid, type, payload",
                     absl::StrCat(Literal(type), ", ", Literal(aggregate_id), ", 'Created', ",
                                  Literal(payload)));
  }

  // A good row of aggregate "order-7" on topic <prefix>.Order.
  absl::Status InsertGood(int n, std::vector<it::ExpectedEvent>& expected) {
    IT_ASSIGN_OR_RETURN(Inserted row,
                        InsertOutbox("Order", "order-7", absl::StrCat("{\"n\": ", n, "}")));
    expected.push_back(it::ExpectedEvent{row.id, Topic("Order"), "order-7", *row.payload});
    return absl::OkStatus();
  }

  void Run(const PoisonCase& c) {
    for (const std::string& sql : c.setup_sql) IT_ASSERT_OK(pg().Exec(sql));
    for (const auto& [key, value] : c.kafka_properties) config().kafka_properties[key] = value;
    IT_ASSERT_OK_AND_ASSIGN(it::OutboxdProcess * outboxd,
                            LaunchStreaming(ConfigText({}, c.outbox_lines)));

    std::vector<it::ExpectedEvent> expected;
    IT_ASSERT_OK(InsertGood(1, expected));
    IT_ASSERT_OK(InsertGood(2, expected));
    for (const std::string& sql : c.before_poison_sql) IT_ASSERT_OK(pg().Exec(sql));
    IT_ASSERT_OK_AND_ASSIGN(std::vector<Inserted> poison, c.insert_poison());
    IT_ASSERT_OK_AND_ASSIGN(int64_t after_poison, it::CurrentWalPosition(pg()));
    for (const std::string& sql : c.after_poison_sql) IT_ASSERT_OK(pg().Exec(sql));
    IT_ASSERT_OK(InsertGood(3, expected));
    IT_ASSERT_OK(InsertGood(4, expected));

    // The good rows, in order, and nothing else on their topic.
    IT_ASSERT_OK_AND_ASSIGN(
        std::vector<it::KafkaRecord> good,
        it::ConsumeFromBeginning(env().kafka_bootstrap,
                                 {{Topic("Order")}, expected.size(), absl::Seconds(60)}));
    const it::DeliveryReport report = it::CheckDelivery(expected, good, {});
    EXPECT_EQ(report.missing, 0u) << report.Summary();
    EXPECT_EQ(report.unexpected, 0u) << report.Summary();
    EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
    EXPECT_EQ(report.order_violations, 0u) << report.Summary();

    // One dead-letter record per poison row, fully annotated.
    IT_ASSERT_OK_AND_ASSIGN(
        std::vector<it::KafkaRecord> dead,
        it::ConsumeFromBeginning(env().kafka_bootstrap,
                                 {{dlq_topic()}, poison.size(), absl::Seconds(60)}));
    EXPECT_EQ(dead.size(), poison.size());
    for (const Inserted& p : poison) {
      const it::KafkaRecord* record = nullptr;
      for (const it::KafkaRecord& r : dead) {
        if (r.Header("id") == p.id) record = &r;
      }
      ASSERT_NE(record, nullptr) << "no dead-letter record with id " << p.id << " among "
                                 << dead.size();
      EXPECT_THAT(record->Header("outboxd.error").value_or("<missing>"), HasSubstr(c.reason));
      EXPECT_EQ(record->Header("outboxd.table").value_or("<missing>"),
                absl::StrCat("public.", table()));
      EXPECT_TRUE(LooksLikeLsn(record->Header("outboxd.lsn").value_or("<missing>")))
          << record->Header("outboxd.lsn").value_or("<missing>");
      EXPECT_EQ(record->Header("outboxd.xid").value_or("<missing>"), p.xid);
    }

    IT_EXPECT_OK(WaitForConfirmed(after_poison));
    EXPECT_TRUE(outboxd->Running()) << "outboxd exited: " << Tail(*outboxd);
  }
};

TEST_F(PoisonRowTest, NullAggregateType) {
  PoisonCase c;
  c.setup_sql = {absl::StrCat("ALTER TABLE ", Qualified(), " ALTER aggregatetype DROP NOT NULL")};
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted row, InsertOutbox(std::nullopt, "order-7", R"({"bad": 1})"));
    return std::vector<Inserted>{row};
  };
  c.reason = "column aggregatetype is NULL";
  Run(c);
}

TEST_F(PoisonRowTest, EmptyAggregateType) {
  PoisonCase c;
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted row, InsertOutbox("", "order-7", R"({"bad": 1})"));
    return std::vector<Inserted>{row};
  };
  c.reason = "column aggregatetype is empty";
  Run(c);
}

TEST_F(PoisonRowTest, NullAggregateId) {
  PoisonCase c;
  c.setup_sql = {absl::StrCat("ALTER TABLE ", Qualified(), " ALTER aggregateid DROP NOT NULL")};
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted row, InsertOutbox("Order", std::nullopt, R"({"bad": 1})"));
    return std::vector<Inserted>{row};
  };
  c.reason = "column aggregateid is NULL";
  Run(c);
}

TEST_F(PoisonRowTest, EmptyAggregateId) {
  PoisonCase c;
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted row, InsertOutbox("Order", "", R"({"bad": 1})"));
    return std::vector<Inserted>{row};
  };
  c.reason = "column aggregateid is empty";
  Run(c);
}

TEST_F(PoisonRowTest, ConfiguredColumnDroppedThenRestored) {
  // Mid-stream: the column goes (new Relation without it), a row arrives, the column returns.
  PoisonCase c;
  c.before_poison_sql = {absl::StrCat("ALTER TABLE ", Qualified(), " DROP COLUMN aggregateid")};
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted row, InsertRow("aggregatetype, type, payload",
                                                R"('Order', 'Created', '{"bad": 1}')"));
    return std::vector<Inserted>{row};
  };
  c.after_poison_sql = {
      absl::StrCat("ALTER TABLE ", Qualified(), " ADD COLUMN aggregateid text NOT NULL DEFAULT ''"),
      absl::StrCat("ALTER TABLE ", Qualified(), " ALTER aggregateid DROP DEFAULT")};
  c.reason = "column aggregateid not found in public.";
  Run(c);
}

TEST_F(PoisonRowTest, IllegalTopicNames) {
  PoisonCase c;
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted slash, InsertOutbox("Bad/Type", "order-7", R"({"bad": 1})"));
    IT_ASSIGN_OR_RETURN(Inserted space, InsertOutbox("Bad Type", "order-7", R"({"bad": 2})"));
    IT_ASSIGN_OR_RETURN(Inserted longer,
                        InsertOutbox(std::string(250, 'L'), "order-7", R"({"bad": 3})"));
    return std::vector<Inserted>{slash, space, longer};
  };
  c.reason = "is not a legal Kafka topic name";
  Run(c);
}

TEST_F(PoisonRowTest, InvalidJsonWithValidateJson) {
  PoisonCase c;
  c.setup_sql = {absl::StrCat("ALTER TABLE ", Qualified(), " ALTER payload TYPE text")};
  c.outbox_lines = {"validate_json = true"};
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted truncated, InsertOutbox("Order", "order-7", R"({"total": 1)"));
    IT_ASSIGN_OR_RETURN(Inserted words, InsertOutbox("Order", "order-7", "not json at all"));
    return std::vector<Inserted>{truncated, words};
  };
  c.reason = "column payload is not valid JSON";
  Run(c);
}

TEST_F(PoisonRowTest, PayloadLargerThanTheTopicAccepts) {
  // The broker refuses it (max.message.bytes of the topic), so the verdict arrives in a
  // delivery report rather than from produce().
  const std::string big_topic = Topic("Big");
  IT_ASSERT_OK(
      it::CreateTopic(env().kafka_bootstrap, big_topic, 1, {{"max.message.bytes", "2048"}}));
  PoisonCase c;
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(Inserted row,
                        InsertOutbox("Big", "order-7",
                                     absl::StrCat(R"({"blob": ")", std::string(8000, 'x'), "\"}")));
    return std::vector<Inserted>{row};
  };
  c.reason = "MSG_SIZE_TOO_LARGE";
  Run(c);
}

TEST_F(PoisonRowTest, PayloadLargerThanTheProducerAccepts) {
  // librdkafka refuses it before sending ([kafka] message.max.bytes), at produce() time.
  PoisonCase c;
  c.kafka_properties = {{"message.max.bytes", "100000"}};
  c.insert_poison = [&]() -> absl::StatusOr<std::vector<Inserted>> {
    IT_ASSIGN_OR_RETURN(
        Inserted row, InsertOutbox("Order", "order-7",
                                   absl::StrCat(R"({"blob": ")", std::string(200000, 'x'), "\"}")));
    return std::vector<Inserted>{row};
  };
  c.reason = "MSG_SIZE_TOO_LARGE";
  Run(c);
}

}  // namespace
}  // namespace outboxd::faults
