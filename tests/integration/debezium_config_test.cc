// `outboxd run --debezium-config`: a Debezium connector JSON run as it is, against the real
// services. publication.autocreate.mode governs only the publication, as in Debezium
// (PostgresConnectorTask creates a missing slot in every mode).

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "harness/fixture.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/pg_client.h"
#include "harness/slot.h"
#include "harness/status_macros.h"

namespace outboxd::it {
namespace {

// database.* options from the test conninfo ("host=... port=... dbname=... user=...").
std::string DatabaseOptions(const std::string& conninfo) {
  static const std::vector<std::pair<std::string, std::string>> kNames = {
      {"host", "database.hostname"},
      {"port", "database.port"},
      {"dbname", "database.dbname"},
      {"user", "database.user"},
      {"password", "database.password"}};
  std::string out;
  const std::vector<std::string> parts = absl::StrSplit(conninfo, ' ', absl::SkipEmpty());
  for (const std::string& part : parts) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos) continue;
    for (const auto& [keyword, option] : kNames) {
      if (part.substr(0, eq) == keyword) {
        absl::StrAppend(&out, "\"", option, "\": \"", part.substr(eq + 1), "\",\n");
      }
    }
  }
  return out;
}

class DebeziumConfigTest : public OutboxdTest {
 protected:
  // Writes a connector JSON for this test's table, slot, publication and topics and returns
  // its path; `extra` is more "option": "value" lines.
  std::string WriteConnector(const std::string& extra) {
    const std::string path = absl::StrCat(log_dir(), "/connector.json");
    std::ofstream(path) << absl::StrCat(
        "{\"name\": \"outbox\", \"config\": {\n",
        "\"connector.class\": \"io.debezium.connector.postgresql.PostgresConnector\",\n",
        DatabaseOptions(env().pg_conninfo), "\"plugin.name\": \"pgoutput\",\n", "\"slot.name\": \"",
        slot(), "\",\n", "\"publication.name\": \"", publication(), "\",\n",
        "\"table.include.list\": \"public.", table(), "\",\n", "\"snapshot.mode\": \"no_data\",\n",
        "\"topic.prefix\": \"it\",\n",
        "\"key.converter\": \"org.apache.kafka.connect.storage.StringConverter\",\n",
        "\"value.converter\": \"org.apache.kafka.connect.storage.StringConverter\",\n",
        "\"transforms\": \"outbox\",\n",
        "\"transforms.outbox.type\": \"io.debezium.transforms.outbox.EventRouter\",\n",
        "\"transforms.outbox.route.topic.replacement\": \"", topic_prefix(),
        ".${routedByValue}\",\n", extra, "\"tasks.max\": \"1\"}}\n");
    return path;
  }
};

// Before the fix, outboxd created neither publication nor slot under `disabled` and exited 3
// ("replication slot ... does not exist"); Debezium creates the slot.
TEST_F(DebeziumConfigTest, AutocreateDisabledCreatesTheSlotAndUsesTheExistingPublication) {
  const std::string topic = Topic("Order");
  IT_ASSERT_OK(
      pg().Exec(absl::StrCat("CREATE PUBLICATION ", QuoteIdent(publication()), " FOR TABLE public.",
                             QuoteIdent(table()), " WITH (publish = 'insert')")));
  const std::string connector = WriteConnector("\"publication.autocreate.mode\": \"disabled\",\n");
  ASSERT_EQ(setenv("OUTBOXD_KAFKA_BOOTSTRAP_SERVERS", env().kafka_bootstrap.c_str(), 1), 0);
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd,
                          LaunchOutboxdWith({"run", "--debezium-config", connector}));
  const absl::Status streaming =
      WaitForSlotStreaming(pg(), slot(), publication(), absl::Seconds(30));
  ASSERT_TRUE(streaming.ok()) << streaming << "; outboxd "
                              << (outboxd->Running()
                                      ? "still runs"
                                      : outboxd->WaitForExit(absl::ZeroDuration())->ToString());
  IT_ASSERT_OK_AND_ASSIGN(std::vector<ExpectedEvent> expected,
                          InsertOutboxRows(pg(), table(), topic_prefix(),
                                           {OutboxRow{"Order", "order-1", "Created", "{}"}}));
  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, 1, absl::Seconds(30)}));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "order-1");
  EXPECT_EQ(records[0].Header("id"), expected[0].id);
}

// The publication is still never created under `disabled`: its absence is an operator error.
TEST_F(DebeziumConfigTest, AutocreateDisabledWithoutThePublicationExits3) {
  const std::string connector = WriteConnector("\"publication.autocreate.mode\": \"disabled\",\n");
  ASSERT_EQ(setenv("OUTBOXD_KAFKA_BOOTSTRAP_SERVERS", env().kafka_bootstrap.c_str(), 1), 0);
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd,
                          LaunchOutboxdWith({"run", "--debezium-config", connector}));
  IT_ASSERT_OK_AND_ASSIGN(ExitStatus exit, outboxd->WaitForExit(absl::Seconds(30)));
  EXPECT_EQ(exit.code, 3) << exit.ToString();
  IT_ASSERT_OK_AND_ASSIGN(
      int64_t publications,
      pg().QueryInt("SELECT count(*) FROM pg_publication WHERE pubname = $1", {publication()}));
  EXPECT_EQ(publications, 0);
}

}  // namespace
}  // namespace outboxd::it
