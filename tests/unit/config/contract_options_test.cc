// [outbox] format and the event contract's mapping keys (docs/event-formats.md).

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::ParseOutbox;
using ::outboxd::config::testing::WithMinimal;
using ::testing::HasSubstr;

TEST(ContractOptionsTest, DefaultsAreRawAndTheReadmeTablesColumns) {
  const OutboxConfig cfg = ParseOutbox("");
  EXPECT_EQ(cfg.format, Format::kRaw);
  EXPECT_EQ(cfg.cloudevents_mode, CloudEventsMode::kBinary);
  EXPECT_EQ(cfg.cloudevents_source, "");
  EXPECT_EQ(cfg.type_column, (ContractColumn{"type", false}));
  EXPECT_EQ(cfg.occurred_at_column, (ContractColumn{"occurred_at", false}));
  EXPECT_EQ(cfg.correlation_id_column, (ContractColumn{"correlation_id", false}));
  EXPECT_EQ(cfg.causation_id_column, (ContractColumn{"causation_id", false}));
  EXPECT_EQ(cfg.traceparent_column, (ContractColumn{"traceparent", false}));
  EXPECT_EQ(cfg.tracestate_column, (ContractColumn{"tracestate", false}));
  EXPECT_EQ(cfg.content_type_column, (ContractColumn{"content_type", false}));
}

TEST(ContractOptionsTest, ReadsEveryKeyAndMarksExplicitColumnsRequired) {
  const OutboxConfig cfg = ParseOutbox(R"toml(
format = "cloudevents"
cloudevents_mode = "structured"
cloudevents_source = "/orders"
type_column = "event_type"
occurred_at_column = "created_at"
correlation_id_column = "corr"
causation_id_column = "cause"
traceparent_column = "tp"
tracestate_column = "ts"
content_type_column = "ct"
)toml");
  EXPECT_EQ(cfg.format, Format::kCloudEvents);
  EXPECT_EQ(cfg.cloudevents_mode, CloudEventsMode::kStructured);
  EXPECT_EQ(cfg.cloudevents_source, "/orders");
  EXPECT_EQ(cfg.type_column, (ContractColumn{"event_type", true}));
  EXPECT_EQ(cfg.occurred_at_column, (ContractColumn{"created_at", true}));
  EXPECT_EQ(cfg.correlation_id_column, (ContractColumn{"corr", true}));
  EXPECT_EQ(cfg.causation_id_column, (ContractColumn{"cause", true}));
  EXPECT_EQ(cfg.traceparent_column, (ContractColumn{"tp", true}));
  EXPECT_EQ(cfg.tracestate_column, (ContractColumn{"ts", true}));
  EXPECT_EQ(cfg.content_type_column, (ContractColumn{"ct", true}));
}

TEST(ContractOptionsTest, ReadsEachFormat) {
  EXPECT_EQ(ParseOutbox(R"(format = "raw")").format, Format::kRaw);
  EXPECT_EQ(ParseOutbox(R"(format = "envelope-json")").format, Format::kEnvelopeJson);
  EXPECT_EQ(ParseOutbox(R"(format = "envelope-protobuf")").format, Format::kEnvelopeProtobuf);
}

TEST(ContractOptionsTest, RefusesAnUnknownFormatListingTheChoices) {
  const std::string error = ErrorOf(WithMinimal("[outbox]\nformat = \"avro\"\n"));
  EXPECT_THAT(error, HasSubstr("format"));
  EXPECT_THAT(error, HasSubstr("\"avro\""));
  EXPECT_THAT(error, HasSubstr("\"envelope-protobuf\""));
}

TEST(ContractOptionsTest, RefusesCloudEventsKeysWithAnotherFormat) {
  const std::string error =
      ErrorOf(WithMinimal("[outbox]\nformat = \"envelope-json\"\ncloudevents_mode = \"binary\"\n"));
  EXPECT_THAT(error, HasSubstr("cloudevents_mode"));
  EXPECT_THAT(error, HasSubstr("set format = \"cloudevents\""));
}

TEST(ContractOptionsTest, RefusesASourceThatIsNoUriReference) {
  const std::string error = ErrorOf(
      WithMinimal("[outbox]\nformat = \"cloudevents\"\ncloudevents_source = \"/my service\"\n"));
  EXPECT_THAT(error, HasSubstr("cloudevents_source"));
  EXPECT_THAT(error, HasSubstr("URI-reference"));
}

TEST(ContractOptionsTest, RefusesAnEmptyColumnName) {
  const std::string error = ErrorOf(WithMinimal("[outbox]\ntraceparent_column = \"\"\n"));
  EXPECT_THAT(error, HasSubstr("traceparent_column"));
  EXPECT_THAT(error, HasSubstr("is empty"));
}

}  // namespace
}  // namespace outboxd::config
