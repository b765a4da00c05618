// The event contract's formats (contract_encoder.cc): envelope-protobuf and envelope-json
// decoded by protobuf's own parsers, CloudEvents headers and JSON, trace-context headers in
// every format, and the rows they refuse.

#include <google/protobuf/util/json_util.h>

#include "encoding/envelope/contract_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "outbox/timestamp.h"
#include "outbox/trace_context.h"
#include "outboxd/v1/event.pb.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using testing::Columns;
using ::testing::Contains;
using ::testing::HasSubstr;
using testing::kBytea;
using testing::kJsonb;
using testing::kOutboxId;
using testing::kText;
using testing::kUuid;
using ::testing::Not;

constexpr uint32_t kTimestamptz = 1184;
constexpr uint32_t kInt4 = 23;
constexpr std::string_view kTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
constexpr std::string_view kId = "7b5a2c1e-2f59-4d3e-9a55-7a1d1bd2b3c4";
// 2026-01-02 03:04:05.123456 UTC in µs since the Unix epoch.
constexpr int64_t kOccurredMicros = 1767323045123456;
// Begin's commit time of the source: 2026-12-02 12:00:00 UTC, in µs since 2000-01-01.
constexpr int64_t kCommitUnixMicros = 1796212800000000;
constexpr int64_t kCommitPgMicros = kCommitUnixMicros - 946684800LL * 1000000;

Columns ContractColumns(uint32_t payload_oid = kJsonb, uint32_t occurred_oid = kTimestamptz) {
  return {{"id", kUuid},           {"aggregatetype", kText},      {"aggregateid", kText},
          {"type", kText},         {"occurred_at", occurred_oid}, {"correlation_id", kText},
          {"causation_id", kText}, {"traceparent", kText},        {"tracestate", kText},
          {"content_type", kText}, {"payload", payload_oid}};
}

using Opt = std::optional<std::string>;

// Microseconds since the Unix epoch of a decoded Timestamp (Postgres has no finer unit).
int64_t UnixMicros(const google::protobuf::Timestamp& time) {
  return time.seconds() * 1000000 + time.nanos() / 1000;
}

class ContractFormatTest : public testing::MapperFixture {
 protected:
  Mapper& StartContract(config::Format format, const Columns& columns = ContractColumns()) {
    cfg_.format = format;
    source_ = {.commit_lsn = Lsn(0x16B3748),
               .lsn = Lsn(0x16B3700),
               .xid = Xid{750},
               .commit_time_us = kCommitPgMicros};
    return Start(columns);
  }
  // A row of ContractColumns(); NULL where nullopt.
  pgoutput::Insert FullRow(Opt payload = R"({"text": "grüße 😀"})",
                           Opt occurred = "2026-01-02 03:04:05.123456+00",
                           Opt traceparent = std::string(kTraceparent)) {
    return inserts_.Make(kOutboxId,
                         {std::string(kId), "order", "order-1", "OrderCreated", occurred, "corr-1",
                          "cause-1", traceparent, "congo=t61", std::nullopt, payload});
  }
  v1::Event MapToProtobuf(const pgoutput::Insert& row) {
    EXPECT_TRUE(mapper_->Map(row, source_, event_).ok());
    v1::Event decoded;
    EXPECT_TRUE(event_.value.has_value());
    EXPECT_TRUE(decoded.ParseFromString(std::string(event_.value.value_or(""))));
    return decoded;
  }
  std::optional<std::string_view> HeaderValue(std::string_view name) const {
    for (const Header& h : event_.headers) {
      if (h.name == name) return h.value;
    }
    return std::nullopt;
  }
  bool HasHeader(std::string_view name) const {
    for (const Header& h : event_.headers) {
      if (h.name == name) return true;
    }
    return false;
  }
};

TEST_F(ContractFormatTest, ProtobufCarriesEveryMappedColumnAndTheSource) {
  StartContract(config::Format::kEnvelopeProtobuf);
  const v1::Event e = MapToProtobuf(FullRow());
  EXPECT_EQ(e.id(), kId);
  EXPECT_EQ(e.aggregate_type(), "order");
  EXPECT_EQ(e.aggregate_id(), "order-1");
  EXPECT_EQ(e.type(), "OrderCreated");
  EXPECT_EQ(UnixMicros(e.occurred_at()), kOccurredMicros);
  EXPECT_EQ(e.correlation_id(), "corr-1");
  EXPECT_EQ(e.causation_id(), "cause-1");
  EXPECT_EQ(e.traceparent(), kTraceparent);
  EXPECT_EQ(e.tracestate(), "congo=t61");
  EXPECT_EQ(e.content_type(), "application/json");  // Derived from jsonb.
  EXPECT_EQ(e.payload(), R"({"text": "grüße 😀"})");
  EXPECT_EQ(e.source().commit_lsn(), 0x16B3748u);
  EXPECT_EQ(e.source().lsn(), 0x16B3700u);
  EXPECT_EQ(e.source().xid(), 750u);
  EXPECT_EQ(UnixMicros(e.source().commit_time()), kCommitUnixMicros);
  EXPECT_EQ(e.source().table(), "public.outbox");
  EXPECT_EQ(event_.key, "order-1");
  EXPECT_EQ(event_.topic, "outbox.event.order");
  EXPECT_EQ(HeaderValue("id"), kId);
  EXPECT_EQ(HeaderValue("traceparent"), kTraceparent);
  EXPECT_EQ(HeaderValue("tracestate"), "congo=t61");
}

TEST_F(ContractFormatTest, NullColumnsLeaveFieldsUnsetAndOccurredAtFallsBackToTheCommit) {
  StartContract(config::Format::kEnvelopeProtobuf);
  const v1::Event e = MapToProtobuf(inserts_.Make(
      kOutboxId, {std::string(kId), "order", "order-1", std::nullopt, std::nullopt, std::nullopt,
                  std::nullopt, std::nullopt, "orphan=1", std::nullopt, std::nullopt}));
  EXPECT_EQ(e.type(), "");
  EXPECT_EQ(e.correlation_id(), "");
  EXPECT_EQ(e.traceparent(), "");
  EXPECT_EQ(e.tracestate(), "");  // Not without a traceparent.
  EXPECT_EQ(e.content_type(), "");
  EXPECT_EQ(e.data_case(), v1::Event::DATA_NOT_SET);
  EXPECT_EQ(UnixMicros(e.occurred_at()), kCommitUnixMicros);
  EXPECT_FALSE(HasHeader("traceparent"));
  EXPECT_FALSE(HasHeader("tracestate"));
}

TEST_F(ContractFormatTest, ColumnsAtTheirDefaultNamesMayBeAbsent) {
  StartContract(
      config::Format::kEnvelopeProtobuf,
      {{"id", kUuid}, {"aggregatetype", kText}, {"aggregateid", kText}, {"payload", kBytea}});
  const v1::Event e =
      MapToProtobuf(inserts_.Make(kOutboxId, {std::string(kId), "order", "order-1", "\\x00ff"}));
  EXPECT_EQ(e.payload(), std::string("\x00\xff", 2));
  EXPECT_EQ(e.content_type(), "application/octet-stream");
  EXPECT_EQ(e.type(), "");
}

TEST_F(ContractFormatTest, AnExplicitColumnTheTableLacksFailsEachRowNamingIt) {
  cfg_.correlation_id_column = {"corr", true};
  StartContract(config::Format::kEnvelopeJson);
  EXPECT_THAT(ReasonOf(FullRow()), HasSubstr("column corr not found in public.outbox"));
}

TEST_F(ContractFormatTest, OccurredAtOfAnotherTypeFailsEachRow) {
  StartContract(config::Format::kEnvelopeJson, ContractColumns(kJsonb, kInt4));
  EXPECT_THAT(ReasonOf(FullRow()), HasSubstr("occurred_at_column must name a timestamptz"));
}

TEST_F(ContractFormatTest, JsonParsesWithProtobufsJsonMappingIntoTheSameEvent) {
  StartContract(config::Format::kEnvelopeJson);
  ASSERT_TRUE(mapper_->Map(FullRow(), source_, event_).ok());
  const std::string json(*event_.value);
  v1::Event parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok()) << json;
  EXPECT_EQ(parsed.id(), kId);
  EXPECT_EQ(parsed.aggregate_id(), "order-1");
  EXPECT_EQ(UnixMicros(parsed.occurred_at()), kOccurredMicros);
  EXPECT_EQ(parsed.traceparent(), kTraceparent);
  EXPECT_EQ(parsed.source().commit_lsn(), 0x16B3748u);
  ASSERT_EQ(parsed.data_case(), v1::Event::kPayloadJson);
  EXPECT_EQ(parsed.payload_json().struct_value().fields().at("text").string_value(), "grüße 😀");
  EXPECT_THAT(json, HasSubstr(R"("occurredAt":"2026-01-02T03:04:05.123456Z")"));
  EXPECT_THAT(json, HasSubstr(R"("commitLsn":"23803720")"));             // uint64 as a string.
  EXPECT_THAT(json, HasSubstr(R"("payloadJson":{"text": "grüße 😀"})"));  // Embedded as stored.
}

TEST_F(ContractFormatTest, JsonWritesTextPayloadsAsBase64) {
  StartContract(config::Format::kEnvelopeJson, ContractColumns(kText));
  ASSERT_TRUE(mapper_->Map(FullRow("plain"), source_, event_).ok());
  v1::Event parsed;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(std::string(*event_.value), &parsed).ok());
  EXPECT_EQ(parsed.payload(), "plain");
  EXPECT_EQ(parsed.content_type(), "text/plain; charset=utf-8");
  EXPECT_THAT(std::string(*event_.value), HasSubstr(R"("payload":"cGxhaW4=")"));
}

TEST_F(ContractFormatTest, CloudEventsBinaryPutsAttributesInHeadersAndThePayloadInTheValue) {
  StartContract(config::Format::kCloudEvents);
  ASSERT_TRUE(mapper_->Map(FullRow(), source_, event_).ok());
  EXPECT_EQ(HeaderValue("ce_specversion"), "1.0");
  EXPECT_EQ(HeaderValue("ce_id"), kId);
  EXPECT_EQ(HeaderValue("ce_source"), "/outboxd/public.outbox");
  EXPECT_EQ(HeaderValue("ce_type"), "OrderCreated");
  EXPECT_EQ(HeaderValue("ce_time"), "2026-01-02T03:04:05.123456Z");
  EXPECT_EQ(HeaderValue("ce_subject"), "order-1");
  EXPECT_EQ(HeaderValue("content-type"), "application/json");
  EXPECT_EQ(HeaderValue("ce_correlationid"), "corr-1");
  EXPECT_EQ(HeaderValue("ce_causationid"), "cause-1");
  EXPECT_EQ(HeaderValue("traceparent"), kTraceparent);
  EXPECT_FALSE(HasHeader("id"));
  EXPECT_EQ(event_.value, R"({"text": "grüße 😀"})");
}

TEST_F(ContractFormatTest, CloudEventsStructuredEmbedsJsonDataAndBase64sTheRest) {
  cfg_.cloudevents_mode = config::CloudEventsMode::kStructured;
  cfg_.cloudevents_source = "/orders";
  StartContract(config::Format::kCloudEvents);
  ASSERT_TRUE(mapper_->Map(FullRow(), source_, event_).ok());
  EXPECT_EQ(HeaderValue("content-type"), "application/cloudevents+json");
  const std::string json(*event_.value);
  EXPECT_THAT(json, HasSubstr(R"("specversion":"1.0")"));
  EXPECT_THAT(json, HasSubstr(R"("source":"/orders")"));
  EXPECT_THAT(json, HasSubstr(R"("data":{"text": "grüße 😀"})"));

  StartContract(config::Format::kCloudEvents, ContractColumns(kBytea));
  ASSERT_TRUE(mapper_->Map(FullRow("\\x00ff"), source_, event_).ok());
  EXPECT_THAT(std::string(*event_.value), HasSubstr(R"("data_base64":"AP8=")"));
}

TEST_F(ContractFormatTest, CloudEventsRefusesARowWithoutAType) {
  StartContract(config::Format::kCloudEvents);
  EXPECT_THAT(ReasonOf(inserts_.Make(kOutboxId, {std::string(kId), "order", "order-1", std::nullopt,
                                                 std::nullopt, std::nullopt, std::nullopt,
                                                 std::nullopt, std::nullopt, std::nullopt, "{}"})),
              HasSubstr("a CloudEvent needs a non-empty ce_type"));
}

TEST_F(ContractFormatTest, CloudEventsNeedsATypeColumnEvenAtItsDefaultName) {
  StartContract(
      config::Format::kCloudEvents,
      {{"id", kUuid}, {"aggregatetype", kText}, {"aggregateid", kText}, {"payload", kJsonb}});
  EXPECT_THAT(ReasonOf(inserts_.Make(kOutboxId, {std::string(kId), "order", "order-1", "{}"})),
              HasSubstr("column type not found"));
}

TEST_F(ContractFormatTest, RawCarriesTraceHeadersOnlyWhenTheColumnsHoldAValidTraceparent) {
  StartContract(config::Format::kRaw);
  ASSERT_TRUE(mapper_->Map(FullRow(), source_, event_).ok());
  EXPECT_EQ(event_.value, R"({"text": "grüße 😀"})");
  EXPECT_EQ(HeaderValue("traceparent"), kTraceparent);
  EXPECT_EQ(HeaderValue("tracestate"), "congo=t61");

  ASSERT_TRUE(mapper_->Map(FullRow("{}", std::nullopt, "00-bogus"), source_, event_).ok());
  EXPECT_FALSE(HasHeader("traceparent"));
  EXPECT_FALSE(HasHeader("tracestate"));
  EXPECT_EQ(mapper_->invalid_traceparents(), 1u);
}

TEST_F(ContractFormatTest, WarmProtobufMappingReusesTheEventsStorage) {
  StartContract(config::Format::kEnvelopeProtobuf);
  ASSERT_TRUE(mapper_->Map(FullRow(), source_, event_).ok());
  const size_t first = event_.value->size();
  ASSERT_TRUE(mapper_->Map(FullRow(), source_, event_).ok());
  EXPECT_EQ(event_.value->size(), first);  // The same row encodes to the same bytes.
}

TEST(TraceparentTest, AcceptsTheSpecsExampleAndFutureVersions) {
  EXPECT_TRUE(IsValidTraceparent(kTraceparent));
  EXPECT_TRUE(IsValidTraceparent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-xyz"));
}

TEST(TraceparentTest, RefusesMalformedValues) {
  for (std::string_view bad : {
           "",
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",     // Short.
           "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",    // Uppercase.
           "00-00000000000000000000000000000000-00f067aa0ba902b7-01",    // Zero trace id.
           "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",    // Zero parent id.
           "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",    // Version ff.
           "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",  // v00 with more.
           "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",   // No dash after.
       }) {
    EXPECT_FALSE(IsValidTraceparent(bad)) << bad;
  }
}

TEST(Rfc3339Test, WritesProtobufsFractionDigits) {
  std::string out;
  AppendRfc3339(0, out);
  EXPECT_EQ(out, "1970-01-01T00:00:00Z");
  out.clear();
  AppendRfc3339(kOccurredMicros, out);
  EXPECT_EQ(out, "2026-01-02T03:04:05.123456Z");
  out.clear();
  AppendRfc3339(951782400120000, out);  // Leap day 2000, 120 ms.
  EXPECT_EQ(out, "2000-02-29T00:00:00.120Z");
  out.clear();
  AppendRfc3339(-1, out);
  EXPECT_EQ(out, "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace outboxd::outbox
