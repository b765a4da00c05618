// Every way a config file can be wrong: each error must name the file, the key, the problem
// and the fix, because an operator reads it at 3 a.m.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::WithMinimal;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::string_view kKafka = "[kafka]\n\"bootstrap.servers\" = \"k:9092\"\n";

// A file whose [postgres] section is `postgres_body` and whose [kafka] section is valid.
std::string WithPostgres(std::string_view postgres_body) {
  return "[postgres]\n" + std::string(postgres_body) + std::string(kKafka);
}

TEST(ConfigErrorTest, MissingTables) {
  EXPECT_EQ(ErrorOf(WithPostgres("conninfo = \"x=1\"\n")),
            R"(outboxd.toml: [postgres] tables is missing; add tables = ["public.outbox"] )"
            R"((or message_prefixes = ["outbox"]))");
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x=1\"\ntables = []\n")),
              HasSubstr("[postgres] tables is empty; list the outbox tables, e.g. tables = "
                        "[\"public.outbox\"], or the prefixes of pg_logical_emit_message"));
}

TEST(ConfigErrorTest, BadMessagePrefixes) {
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x=1\"\nmessage_prefixes = [\"\"]\n")),
              HasSubstr("[postgres] message_prefixes holds an empty prefix; give the prefix"));
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x=1\"\nmessage_prefixes = [\"a\", \"b\", \"a\"]\n")),
      HasSubstr(R"([postgres] message_prefixes lists "a" twice; remove the duplicate)"));
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x=1\"\nmessage_prefixes = \"outbox\"\n")),
              HasSubstr("[postgres] message_prefixes must be an array of strings"));
}

TEST(ConfigErrorTest, MissingConninfoMentionsEnvironment) {
  EXPECT_THAT(ErrorOf(WithPostgres("tables = [\"outbox\"]\n")),
              AllOf(StartsWith("outboxd.toml: [postgres] conninfo is missing; add conninfo = "),
                    HasSubstr("or set OUTBOXD_POSTGRES_CONNINFO")));
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"\"\ntables = [\"outbox\"]\n")),
              HasSubstr("outboxd.toml:2: [postgres] conninfo is empty; write conninfo ="));
}

TEST(ConfigErrorTest, MissingBootstrapServers) {
  EXPECT_THAT(ErrorOf("[postgres]\nconninfo = \"x=1\"\ntables = [\"outbox\"]\n"),
              AllOf(StartsWith("outboxd.toml: [kafka] \"bootstrap.servers\" is missing; add "),
                    HasSubstr("or set OUTBOXD_KAFKA_BOOTSTRAP_SERVERS")));
}

TEST(ConfigErrorTest, UnknownKeySuggestsClosest) {
  EXPECT_EQ(ErrorOf(WithPostgres("conninfo = \"x=1\"\ntables = [\"outbox\"]\nslott = \"a\"\n")),
            R"(outboxd.toml:4: unknown key [postgres] slott; did you mean "slot"?)");
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\npayload_colum = \"body\"\n")),
              HasSubstr(R"(unknown key [outbox] payload_colum; did you mean "payload_column"?)"));
  EXPECT_THAT(ErrorOf(WithMinimal("[relay]\nshutdown_timeout = 5\n")),
              HasSubstr(R"([relay] shutdown_timeout; did you mean "shutdown_timeout_ms"?)"));
}

TEST(ConfigErrorTest, UnknownKeyFarFromAnyListsKnownKeys) {
  EXPECT_THAT(ErrorOf(WithMinimal("[relay]\nxyz = 5\n")),
              HasSubstr("unknown key [relay] xyz; known keys are shutdown_timeout_ms"));
}

TEST(ConfigErrorTest, TypoedKeyIsReportedBeforeTheMissingKeyItMeant) {
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x=1\"\ntabels = [\"outbox\"]\n")),
              HasSubstr(R"(unknown key [postgres] tabels; did you mean "tables"?)"));
}

TEST(ConfigErrorTest, UnknownSection) {
  EXPECT_THAT(ErrorOf(WithMinimal("[kafak]\nx = 1\n")),
              AllOf(StartsWith("outboxd.toml:8: unknown section [kafak]"),
                    HasSubstr(R"(did you mean "kafka"?)")));
  EXPECT_THAT(ErrorOf("slot = \"x\"\n" + WithMinimal("")),
              HasSubstr("outboxd.toml:1: unknown key slot outside any section; put it under"));
  EXPECT_THAT(ErrorOf("relay = 5\n" + WithMinimal("")),
              HasSubstr("outboxd.toml:1: [relay] must be a table, got integer; write [relay]"));
}

TEST(ConfigErrorTest, WrongTypes) {
  EXPECT_EQ(ErrorOf(WithPostgres("conninfo = \"x=1\"\ntables = 5\n")),
            "outboxd.toml:3: [postgres] tables must be an array of strings, got integer; "
            R"(write tables = ["public.outbox"])");
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x=1\"\ntables = [\"a\", 2]\n")),
              HasSubstr("[postgres] tables must be an array of strings, got a integer element"));
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = 1\ntables = [\"a\"]\n")),
              HasSubstr("[postgres] conninfo must be a string, got integer; write conninfo = "));
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\ncreate_slot = \"yes\"\n")),
              HasSubstr("create_slot must be true or false, got string; write create_slot = true"));
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\nstatus_interval_ms = 1.5\n")),
      HasSubstr("status_interval_ms must be an integer, got float; write status_interval_ms = "));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntombstone_on_empty_payload = 1\n")),
              HasSubstr("tombstone_on_empty_payload must be true or false, got integer"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\nadditional_placement = \"type:header\"\n")),
              HasSubstr("additional_placement must be an array of strings, got string"));
}

TEST(ConfigErrorTest, TomlSyntaxErrorHasLineAndColumn) {
  EXPECT_THAT(ErrorOf("[postgres]\nconninfo = \"unterminated\n"),
              AllOf(StartsWith("outboxd.toml:2:"), HasSubstr("invalid TOML")));
  EXPECT_THAT(ErrorOf("[postgres]\n\nslot = = 1\n"), StartsWith("outboxd.toml:3:8: invalid TOML"));
}

TEST(ConfigErrorTest, InvalidSlotName) {
  for (std::string slot : {"Outboxd", "out-boxd", "",
                           "a234567890123456789012345678901234567890123456789012345678901234"}) {
    EXPECT_THAT(
        ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\nslot = \"" + slot + "\"\n")),
        HasSubstr("outboxd.toml:4: [postgres] slot \"" + slot +
                  "\" is not a valid replication slot name; use 1 to 63 characters from "
                  "[a-z0-9_]"));
  }
}

TEST(ConfigErrorTest, InvalidPublicationName) {
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\npublication = \"\"\n")),
              HasSubstr("[postgres] publication must be 1 to 63 characters long; write e.g. "));
}

TEST(ConfigErrorTest, OutOfRangeIntegers) {
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\nstatus_interval_ms = 99\n")),
      HasSubstr("[postgres] status_interval_ms must be between 100 and 30000, got 99; write for "
                "example status_interval_ms = 1000"));
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\nstatus_interval_ms = 30001\n")),
      HasSubstr("between 100 and 30000, got 30001"));
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\nslot_check_interval_ms = 50\n")),
      HasSubstr("[postgres] slot_check_interval_ms must be between 100 and 300000, got 50; write "
                "for example slot_check_interval_ms = 5000"));
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"a\"]\nmin_safe_wal_size_mb = -1\n")),
      HasSubstr("[postgres] min_safe_wal_size_mb must be between 0 and 1048576, got -1"));
  EXPECT_THAT(ErrorOf(WithMinimal("[relay]\nshutdown_timeout_ms = -1\n")),
              HasSubstr("[relay] shutdown_timeout_ms must be between 0 and 600000, got -1"));
}

TEST(ConfigErrorTest, BadTables) {
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x\"\ntables = []\n")),
              HasSubstr(R"([postgres] tables is empty; list the outbox tables, e.g. tables = )"));
  for (std::string table : {"a.b.c", ".outbox", "public.", ""}) {
    EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"" + table + "\"]\n")),
                HasSubstr("[postgres] tables entry \"" + table +
                          R"(" is not "schema.table" or "table"; write e.g. "public.outbox")"));
  }
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x\"\ntables = [\"outbox\", \"public.outbox\"]\n")),
              HasSubstr("[postgres] tables lists public.outbox twice; remove the duplicate"));
}

TEST(ConfigErrorTest, TopicPatternWithUnknownPlaceholder) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"outbox.${aggregateType}\"\n")),
              HasSubstr(R"(outboxd.toml:9: [outbox] topic refers to )"
                        R"(${aggregateType}, which is no named group of the regex; write e.g. )"));
}

TEST(ConfigErrorTest, TopicPatternWithIllegalFixedPart) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"outbox/${aggregatetype}\"\n")),
              HasSubstr("[outbox] topic \"outbox/${aggregatetype}\" cannot make a legal Kafka "
                        "topic: character '/' is not allowed; use only [a-zA-Z0-9._-]"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"\"\n")),
              HasSubstr("cannot make a legal Kafka topic: it is empty"));
  const std::string long_prefix(249, 'a');
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"" + long_prefix + "${aggregatetype}\"\n")),
              HasSubstr("it is 250 characters long; Kafka allows at most 249"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ntopic = \"" + long_prefix + "b\"\n")),
              HasSubstr("it is 250 characters long"));
}

TEST(ConfigErrorTest, BadDeadLetterTopic) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ndead_letter_topic = \"dead letters\"\n")),
              HasSubstr("[outbox] dead_letter_topic is not a legal Kafka topic: character ' ' "
                        "is not allowed"));
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\ndead_letter_topic = \"\"\n")),
              HasSubstr("dead_letter_topic is not a legal Kafka topic: it is empty; write e.g. "
                        "dead_letter_topic = \"outbox.dlq\""));
}

TEST(ConfigErrorTest, EmptyColumnName) {
  EXPECT_THAT(ErrorOf(WithMinimal("[outbox]\naggregate_id_column = \"\"\n")),
              HasSubstr("[outbox] aggregate_id_column is empty; write e.g. aggregate_id_column = "
                        "\"aggregateid\""));
}

TEST(ConfigErrorTest, UnknownPlacementNamesTheChoices) {
  EXPECT_THAT(
      ErrorOf(WithMinimal("[outbox]\nadditional_placement = [\"type:body:eventType\"]\n")),
      HasSubstr(R"([outbox] additional_placement entry "type:body:eventType" uses placement )"
                R"("body", which does not exist; use header, envelope or partition)"));
  EXPECT_THAT(
      ErrorOf(WithMinimal("[outbox]\nadditional_placement = [\"p:partition\", \"q:partition\"]\n")),
      HasSubstr("has more than one partition placement; keep one"));
}

TEST(ConfigErrorTest, MalformedPlacement) {
  for (std::string entry : {"type", "type:", ":header", "a:header:b:c", "a::b"}) {
    EXPECT_THAT(
        ErrorOf(WithMinimal("[outbox]\nadditional_placement = [\"" + entry + "\"]\n")),
        HasSubstr("entry \"" + entry + "\" is not \"column:placement[:alias]\"; write e.g."))
        << entry;
  }
}

TEST(ConfigErrorTest, KafkaValueOfUnsupportedType) {
  EXPECT_THAT(ErrorOf(WithMinimal("\"sasl.mechanisms\" = [\"PLAIN\"]\n")),
              HasSubstr("outboxd.toml:8: [kafka] \"sasl.mechanisms\" must be a string, integer, "
                        "boolean or float, got array; write \"sasl.mechanisms\" = \"value\""));
}

TEST(ConfigErrorTest, KafkaPropertySetTwice) {
  EXPECT_THAT(ErrorOf(WithMinimal("\"linger.ms\" = 1\nlinger.ms = 2\n")),
              HasSubstr("[kafka] \"linger.ms\" is set twice"));
}

TEST(ConfigErrorTest, EmptyBootstrapServers) {
  EXPECT_THAT(ErrorOf("[postgres]\nconninfo = \"x\"\ntables = [\"a\"]\n[kafka]\n"
                      "\"bootstrap.servers\" = \"\"\n"),
              HasSubstr("[kafka] \"bootstrap.servers\" is empty; add"));
}

TEST(ConfigErrorTest, CharactersTomlPlusPlusMishandlesAreRefusedWithTheirLine) {
  // U+00E9 (é) lies in a range toml++ 3.3.0 reaches undefined behaviour on.
  EXPECT_THAT(
      ErrorOf(WithPostgres("conninfo = \"x=1\"\n# caf\xC3\xA9\ntables = [\"outbox\"]\n")),
      AllOf(HasSubstr("outboxd.toml:3: character U+00E9 is not supported"), HasSubstr("\\u00E9")));
  // Characters outside those ranges (U+00A0, U+20AC) pass through to toml++.
  EXPECT_THAT(ErrorOf(WithPostgres("conninfo = \"x=1\"\n# \xE2\x82\xAC\n")),
              HasSubstr("tables is missing"));
}

TEST(RelayDeliveryTest, ExactlyOnceAndItsTransactionBoundsParse) {
  absl::StatusOr<Config> config = ::outboxd::config::testing::Parse(
      WithMinimal("[relay]\ndelivery = \"exactly_once\"\ntransactional_id = \"orders\"\n"
                  "transaction_max_events = 500\ntransaction_max_ms = 20\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->relay.delivery, Delivery::kExactlyOnce);
  EXPECT_EQ(config->relay.transactional_id, "orders");
  EXPECT_EQ(config->relay.transaction_max_events, 500);
  EXPECT_EQ(config->relay.transaction_max_ms, 20);
}

TEST(RelayDeliveryTest, DefaultsToAtLeastOnceAndNamesTheChoices) {
  absl::StatusOr<Config> config =
      ::outboxd::config::testing::Parse(::outboxd::config::testing::kMinimal);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->relay.delivery, Delivery::kAtLeastOnce);
  EXPECT_THAT(ErrorOf(WithMinimal("[relay]\ndelivery = \"twice\"\n")),
              HasSubstr(R"(write one of "at_least_once", "exactly_once")"));
}

}  // namespace
}  // namespace outboxd::config
