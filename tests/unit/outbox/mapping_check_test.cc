// The start-up refusals of the contract mapping (mapping_check.h), which `check` prints and
// `run` stops on.

#include "outbox/mapping_check.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::outbox {
namespace {

using ::testing::HasSubstr;

constexpr uint32_t kText = 25;
constexpr uint32_t kTimestamptz = 1184;
constexpr uint32_t kDate = 1082;

std::vector<CatalogColumn> ReadmeTable() {
  return {{"id", 2950, "uuid"},
          {"aggregatetype", kText, "text"},
          {"aggregateid", kText, "text"},
          {"type", kText, "text"},
          {"payload", 3802, "jsonb"}};
}

TEST(MappingCheckTest, TheDefaultsFitTheReadmesTableInEveryFormat) {
  for (config::Format format : {config::Format::kRaw, config::Format::kEnvelopeJson,
                                config::Format::kEnvelopeProtobuf, config::Format::kCloudEvents}) {
    config::OutboxConfig cfg;
    cfg.format = format;
    EXPECT_EQ(CheckMapping(cfg, "public.outbox", ReadmeTable()), std::nullopt);
  }
}

TEST(MappingCheckTest, RefusesAnExplicitColumnTheTableLacksNamingColumnTableAndFix) {
  config::OutboxConfig cfg;
  cfg.format = config::Format::kEnvelopeProtobuf;
  cfg.correlation_id_column = {"corr", true};
  const std::optional<CheckResult> failure = CheckMapping(cfg, "public.outbox", ReadmeTable());
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->outcome, CheckOutcome::kFail);
  EXPECT_THAT(failure->detail, HasSubstr("correlation_id_column = \"corr\""));
  EXPECT_THAT(failure->detail, HasSubstr("public.outbox"));
  EXPECT_THAT(failure->fix, HasSubstr("add the column"));
  const absl::Status status = MappingError(*failure);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);  // Exit code 3.
  EXPECT_THAT(status.message(), HasSubstr("corr"));
}

TEST(MappingCheckTest, RawChecksOnlyTheTraceColumns) {
  config::OutboxConfig cfg;
  cfg.correlation_id_column = {"corr", true};  // Unused by raw.
  EXPECT_EQ(CheckMapping(cfg, "public.outbox", ReadmeTable()), std::nullopt);
  cfg.traceparent_column = {"tp", true};
  ASSERT_TRUE(CheckMapping(cfg, "public.outbox", ReadmeTable()).has_value());
}

TEST(MappingCheckTest, RefusesOccurredAtOfATypeThatCannotCarryATimestamp) {
  config::OutboxConfig cfg;
  cfg.format = config::Format::kEnvelopeJson;
  std::vector<CatalogColumn> columns = ReadmeTable();
  columns.push_back({"occurred_at", kDate, "date"});
  const std::optional<CheckResult> failure = CheckMapping(cfg, "public.outbox", columns);
  ASSERT_TRUE(failure.has_value());
  EXPECT_THAT(failure->detail, HasSubstr("column occurred_at of public.outbox"));
  EXPECT_THAT(failure->detail, HasSubstr("type date"));
  EXPECT_THAT(failure->fix, HasSubstr("timestamptz"));
  columns.back() = {"occurred_at", kTimestamptz, "timestamp with time zone"};
  EXPECT_EQ(CheckMapping(cfg, "public.outbox", columns), std::nullopt);
}

TEST(MappingCheckTest, CloudEventsRefusesATableWithoutATypeColumn) {
  config::OutboxConfig cfg;
  cfg.format = config::Format::kCloudEvents;
  std::vector<CatalogColumn> columns = ReadmeTable();
  columns.erase(columns.begin() + 3);  // "type".
  const std::optional<CheckResult> failure = CheckMapping(cfg, "public.outbox", columns);
  ASSERT_TRUE(failure.has_value());
  EXPECT_THAT(failure->detail, HasSubstr("ce_type"));
  EXPECT_THAT(failure->fix, HasSubstr("type_column"));
}

TEST(MappingCheckTest, OnlyContractFormatsOrExplicitTraceColumnsNeedTheCatalog) {
  config::OutboxConfig cfg;
  EXPECT_FALSE(MappingNeedsCatalog(cfg));
  cfg.tracestate_column.required = true;
  EXPECT_TRUE(MappingNeedsCatalog(cfg));
  cfg = {};
  cfg.format = config::Format::kEnvelopeJson;
  EXPECT_TRUE(MappingNeedsCatalog(cfg));
}

}  // namespace
}  // namespace outboxd::outbox
