// Map runs once per outbox row: once the event and the mapper are warm it must not allocate.
// This binary replaces the global operator new (support/counting_new.cc) to count allocations
// around Map.

#include <cstdint>

#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "support/counting_new.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {
namespace {

using testing::kBytea;
using testing::kOutboxId;
using testing::kText;
using testing::kUuid;
using testing::kVarchar;

class MapperAllocTest : public testing::MapperFixture {
 protected:
  int64_t AllocationsToMap(const pgoutput::Insert& insert) {
    const int64_t before = outboxd::testing::ThreadAllocations();
    const absl::Status status = mapper_->Map(insert, source_, event_);
    const int64_t after = outboxd::testing::ThreadAllocations();
    EXPECT_TRUE(status.ok()) << status;
    return after - before;
  }
};

TEST_F(MapperAllocTest, WarmMapDoesNotAllocate) {
  // Five headers spill the InlinedVector and a bytea payload fills owned_value: the worst case.
  cfg_.additional_placement = {{"type", "type"}, {"a", "a"}, {"b", "b"}, {"c", "c"}};
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"type", kVarchar},
         {"payload", kBytea},
         {"a", kText},
         {"b", kText},
         {"c", kText}});
  const std::string payload = "\\x" + std::string(2000, 'a');
  const pgoutput::Insert first =
      inserts_.Make(kOutboxId, {"1", "Order", "o-1", "T", payload, "a", "b", "c"});
  const pgoutput::Insert second =
      inserts_.Make(kOutboxId, {"2", "Order", "o-2", "T", payload, "a", std::nullopt, "c"});
  EXPECT_GT(AllocationsToMap(first), 0);  // Also proves the counter counts.
  EXPECT_EQ(AllocationsToMap(second), 0);
  EXPECT_EQ(event_.headers.size(), 5u);
}

// The contract's formats reuse one outboxd.v1.Event per Mapper (string fields keep their
// capacity across Clear) and the event's buffers, so a warm row allocates nothing either.
TEST_F(MapperAllocTest, WarmContractFormatsDoNotAllocate) {
  for (auto [format, mode] :
       {std::pair{config::Format::kEnvelopeProtobuf, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kEnvelopeJson, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kCloudEvents, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kCloudEvents, config::CloudEventsMode::kStructured}}) {
    cfg_.format = format;
    cfg_.cloudevents_mode = mode;
    Start({{"id", kUuid},
           {"aggregatetype", kVarchar},
           {"aggregateid", kVarchar},
           {"type", kVarchar},
           {"occurred_at", 1184},
           {"correlation_id", kText},
           {"traceparent", kText},
           {"tracestate", kText},
           {"payload", testing::kJsonb}});
    source_ = {.commit_lsn = Lsn(200), .lsn = Lsn(100), .xid = Xid{7}, .commit_time_us = 1000000};
    const std::string tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const std::string payload = R"({"text": ")" + std::string(2000, 'a') + R"("})";
    const pgoutput::Insert first = inserts_.Make(
        kOutboxId, {"1", "Order", "o-1", "T", "2026-01-02 03:04:05+00", "c", tp, "s", payload});
    const pgoutput::Insert second =
        inserts_.Make(kOutboxId, {"2", "Order", "o-2", "T", std::nullopt, "c", tp, "s", payload});
    EXPECT_GT(AllocationsToMap(first), 0);
    EXPECT_EQ(AllocationsToMap(second), 0) << static_cast<int>(format) << static_cast<int>(mode);
  }
}

TEST_F(MapperAllocTest, WarmJsonValidationDoesNotAllocate) {
  cfg_.validate_json = true;
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"type", kVarchar},
         {"payload", kText}});
  std::string payload = R"({"items": [)";
  for (int i = 0; i < 200; ++i) payload += R"({"sku": "abc", "qty": 1},)";
  payload += R"({"last": true}]})";
  const pgoutput::Insert first = inserts_.Make(kOutboxId, {"1", "Order", "o-1", "T", payload});
  const pgoutput::Insert second =
      inserts_.Make(kOutboxId, {"2", "Order", "o-2", "T", R"({"short": [1, 2, 3]})"});
  const pgoutput::Insert third = inserts_.Make(kOutboxId, {"3", "Order", "o-3", "T", payload});
  EXPECT_GT(AllocationsToMap(first), 0);
  EXPECT_EQ(AllocationsToMap(second), 0);
  EXPECT_EQ(AllocationsToMap(third), 0);
}

TEST_F(MapperAllocTest, WarmJsonConvertersDoNotAllocate) {
  // The most work per row: schema wrappers, an envelope, base64 of a bytea payload, extended
  // and position headers and a routing regex that runs RE2.
  cfg_.key_converter = cfg_.value_converter = config::Converter::kJsonWithSchema;
  cfg_.additional_placement = {{"type", "eventType", config::Placement::kEnvelope}};
  cfg_.extended_headers = true;
  cfg_.position_headers = true;
  cfg_.logical_name = "app";
  cfg_.topic_regex = "(?<kind>[A-Za-z]+)";
  cfg_.topic = "events.${kind}";
  Start({{"id", kUuid},
         {"aggregatetype", kVarchar},
         {"aggregateid", kVarchar},
         {"type", kVarchar},
         {"payload", kBytea}});
  const std::string payload = "\\x" + std::string(2000, 'a');
  std::vector<pgoutput::Insert> rows;
  for (const char* id : {"1", "2", "3"}) {
    rows.push_back(inserts_.Make(kOutboxId, {id, "Order", "o-1", "T\"q", payload}));
  }
  EXPECT_GT(AllocationsToMap(rows[0]), 0);
  AllocationsToMap(rows[1]);  // The two value buffers swap roles: both are warm after two rows.
  EXPECT_EQ(AllocationsToMap(rows[2]), 0);
  EXPECT_EQ(event_.topic, "events.Order");
  EXPECT_EQ(event_.headers.size(), 8u);
}

}  // namespace
}  // namespace outboxd::outbox
