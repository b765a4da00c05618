// The Encoder seam: one encoder per format, chosen once, shared by the Mappers of several
// streams, each with its own relation cache and scratch.

#include "outbox/encoder.h"

#include <memory>
#include <string>
#include <vector>

#include "encoding/encoder_factory.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {

using encoding::CreateEncoder;
using encoding::ProcessRunId;
namespace {

using testing::DebeziumColumns;
using ::testing::HasSubstr;
using testing::InsertBuilder;
using testing::MakeRelation;

struct Mapped {
  std::string topic;
  std::optional<std::string> key;
  std::optional<std::string> value;
  size_t headers = 0;
  friend bool operator==(const Mapped&, const Mapped&) = default;
};

Mapped Copy(const OutboxEvent& event) {
  return {event.topic, event.key ? std::optional<std::string>(*event.key) : std::nullopt,
          event.value ? std::optional<std::string>(*event.value) : std::nullopt,
          event.headers.size()};
}

TEST(EncoderTest, OneEncoderForEveryFormat) {
  for (auto [format, mode] :
       {std::pair{config::Format::kRaw, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kEnvelopeJson, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kEnvelopeProtobuf, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kCloudEvents, config::CloudEventsMode::kBinary},
        std::pair{config::Format::kCloudEvents, config::CloudEventsMode::kStructured}}) {
    config::OutboxConfig cfg;
    cfg.format = format;
    cfg.cloudevents_mode = mode;
    EXPECT_NE(CreateEncoder(cfg), nullptr);
  }
}

// Two streams' Mappers, interleaved over one encoder, write what each would write alone: the
// relation caches (different OIDs for the same table) and the contract scratch are their own.
TEST(EncoderTest, MappersOfTwoStreamsShareOneEncoder) {
  for (config::Format format : {config::Format::kRaw, config::Format::kEnvelopeJson,
                                config::Format::kEnvelopeProtobuf, config::Format::kCloudEvents}) {
    config::OutboxConfig cfg;
    cfg.format = format;
    const std::unique_ptr<const Encoder> shared = CreateEncoder(cfg, "run");
    const std::vector<config::TableName> tables = {{"public", "outbox"}};
    Mapper first(cfg, tables, *shared);
    Mapper second(cfg, tables, *shared);
    first.OnRelation(MakeRelation(RelationId{1}, "public", "outbox", DebeziumColumns()));
    second.OnRelation(MakeRelation(RelationId{2}, "public", "outbox", DebeziumColumns()));
    const EventSource at_first{
        .commit_lsn = Lsn(20), .lsn = Lsn(10), .xid = Xid{1}, .commit_time_us = 5};
    const EventSource at_second{
        .commit_lsn = Lsn(40), .lsn = Lsn(30), .xid = Xid{2}, .commit_time_us = 6};
    InsertBuilder inserts;
    const pgoutput::Insert a = inserts.Make(RelationId{1}, {"1", "Order", "o-1", "T", "{}"});
    const pgoutput::Insert b = inserts.Make(RelationId{2}, {"2", "Invoice", "i-1", "U", "[1]"});

    OutboxEvent event;
    ASSERT_TRUE(first.Map(a, at_first, event).ok());
    const Mapped a_interleaved = Copy(event);
    ASSERT_TRUE(second.Map(b, at_second, event).ok());
    const Mapped b_interleaved = Copy(event);
    EXPECT_FALSE(first.Map(b, at_first, event).ok());  // Relation 2 is only the second's.

    const std::unique_ptr<const Encoder> own = CreateEncoder(cfg, "run");
    Mapper alone(cfg, tables, *own);
    alone.OnRelation(MakeRelation(RelationId{2}, "public", "outbox", DebeziumColumns()));
    ASSERT_TRUE(alone.Map(b, at_second, event).ok());
    EXPECT_EQ(b_interleaved, Copy(event)) << static_cast<int>(format);
    EXPECT_NE(a_interleaved, b_interleaved);
  }
}

TEST(ProcessRunIdTest, StableVersion7Uuid) {
  const std::string id = ProcessRunId();
  EXPECT_EQ(id, ProcessRunId());
  ASSERT_EQ(id.size(), 36u);
  EXPECT_EQ(id[14], '7');
  EXPECT_THAT(std::string("89ab"), HasSubstr(std::string(1, id[19])));
}

}  // namespace
}  // namespace outboxd::outbox
