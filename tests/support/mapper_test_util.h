#pragma once
// Builders shared by the outbox tests: Relation and Insert messages as pgoutput sends them,
// with tuple bytes from the test-only encoder.

#include <deque>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "encoding/encoder_factory.h"
#include "gtest/gtest.h"
#include "outbox/mapper.h"
#include "pgoutput/messages.h"
#include "support/pgoutput_encoder.h"

namespace outboxd {

// Lets gmock print headers; found by ADL.
inline void PrintTo(const Header& h, std::ostream* os) {
  *os << h.name << "=" << (h.value ? std::string(*h.value) : std::string("<null>"));
}

}  // namespace outboxd

namespace outboxd::outbox::testing {

// pg_type OIDs used by the tests.
inline constexpr uint32_t kUuid = 2950;
inline constexpr uint32_t kVarchar = 1043;
inline constexpr uint32_t kText = 25;
inline constexpr uint32_t kJson = 114;
inline constexpr uint32_t kJsonb = 3802;
inline constexpr uint32_t kBytea = 17;

inline constexpr RelationId kOutboxId{16384};

using Columns = std::vector<std::pair<std::string_view, uint32_t>>;

// Debezium's documented outbox table.
inline Columns DebeziumColumns() {
  return {{"id", kUuid},
          {"aggregatetype", kVarchar},
          {"aggregateid", kVarchar},
          {"type", kVarchar},
          {"payload", kJsonb}};
}

inline pgoutput::Relation MakeRelation(RelationId id, std::string_view schema,
                                       std::string_view name, const Columns& columns) {
  pgoutput::Relation relation{id, schema, name, 'd', {}};
  for (const auto& [column, oid] : columns) {
    relation.columns.push_back(pgoutput::RelationColumn{0, column, oid, -1});
  }
  return relation;
}

// Owns the tuple bytes that Insert messages point into, as the WAL buffer would.
class InsertBuilder {
 public:
  pgoutput::Insert Make(RelationId id, const std::vector<outboxd::testing::TestColumn>& columns) {
    const std::string& bytes = buffers_.emplace_back(outboxd::testing::EncodeTupleData(columns));
    // EncodeTupleData starts with the Int16 column count; TupleData::raw is what follows.
    return pgoutput::Insert{id, pgoutput::TupleData{static_cast<uint16_t>(columns.size()),
                                                    std::string_view(bytes).substr(2)}};
  }
  // Every value as text, nullopt as NULL.
  pgoutput::Insert Make(RelationId id, const std::vector<std::optional<std::string>>& values) {
    std::vector<outboxd::testing::TestColumn> columns;
    for (const auto& v : values) columns.push_back(outboxd::testing::TestColumn{v});
    return Make(id, columns);
  }

 private:
  std::deque<std::string> buffers_;
};

// A Mapper over `cfg` (configurable before Start) and its encoder for public.outbox, fed the
// Debezium relation. Rows are mapped at `source_`.
class MapperFixture : public ::testing::Test {
 protected:
  Mapper& Start(const Columns& columns = DebeziumColumns()) {
    Create();
    mapper_->OnRelation(MakeRelation(kOutboxId, "public", "outbox", columns));
    return *mapper_;
  }

  // A Mapper over `cfg_` for `tables`, with an encoder of its own; no relation seen yet.
  Mapper& Create(std::vector<config::TableName> tables = {{"public", "outbox"}},
                 std::string run_id = encoding::ProcessRunId()) {
    mapper_.reset();
    encoder_ = encoding::CreateEncoder(cfg_, std::move(run_id));
    return mapper_.emplace(cfg_, std::move(tables), *encoder_);
  }

  // A Debezium-shaped row: id, aggregatetype, aggregateid, type, payload.
  pgoutput::Insert Row(std::optional<std::string> id, std::optional<std::string> type,
                       std::optional<std::string> aggregate_id, std::optional<std::string> payload,
                       std::optional<std::string> event_type = "OrderCreated") {
    return inserts_.Make(kOutboxId, {id, type, aggregate_id, event_type, payload});
  }

  // The InvalidArgument reason for mapping `insert`.
  std::string ReasonOf(const pgoutput::Insert& insert) {
    absl::Status status = mapper_->Map(insert, source_, event_);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    return std::string(status.message());
  }

  config::OutboxConfig cfg_;
  EventSource source_;
  std::unique_ptr<const Encoder> encoder_;
  std::optional<Mapper> mapper_;
  InsertBuilder inserts_;
  OutboxEvent event_;
};

}  // namespace outboxd::outbox::testing
