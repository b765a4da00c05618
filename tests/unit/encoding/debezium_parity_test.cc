// Golden test against real Debezium 3.6.1 records (testdata/debezium-3.6.1, captured from
// Kafka Connect 4.3 by tests/debezium/capture): the rows of rows.sql, rebuilt from the
// StringConverter capture, are mapped under each converter set-up and must give the same
// topic, key bytes, value bytes, headers and (6-partition topic) partition as Debezium's.

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "gtest/gtest.h"
#include "librdkafka/rdkafka.h"
#include "simdjson.h"
#include "support/mapper_test_util.h"

namespace outboxd::outbox {

using encoding::CreateEncoder;
namespace {

using testing::Columns;
using testing::InsertBuilder;
using testing::MakeRelation;

struct Captured {
  std::string topic;
  int partition = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

std::string Base64Decode(std::string_view in) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    if (c == '=') break;
    bits = (bits << 6) | static_cast<uint32_t>(kAlphabet.find(c));
    if ((count += 6) >= 8) out.push_back(static_cast<char>((bits >> (count -= 8)) & 0xFF));
  }
  return out;
}

std::optional<std::string> OptionalBytes(simdjson::dom::element e) {
  if (e.is_null()) return std::nullopt;
  return Base64Decode(std::string_view(e.get_string().value()));
}

// Every record of every topic file of `setup`, in file order.
std::vector<Captured> Load(const std::string& setup) {
  const std::string dir = std::string(OUTBOXD_DBZ_SAMPLES) + "/" + setup;
  std::vector<std::string> files;
  DIR* d = opendir(dir.c_str());
  EXPECT_NE(d, nullptr) << dir;
  if (d == nullptr) return {};
  while (dirent* entry = readdir(d)) {
    const std::string name = entry->d_name;
    if (name.size() > 6 && name.substr(name.size() - 6) == ".jsonl")
      files.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(files.begin(), files.end());
  std::vector<Captured> records;
  simdjson::dom::parser parser;
  for (const std::string& file : files) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      simdjson::dom::element r = parser.parse(line);
      Captured c;
      c.topic = std::string(r["topic"].get_string().value());
      c.partition = static_cast<int>(r["partition"].get_int64().value());
      c.key = OptionalBytes(r["key"]);
      c.value = OptionalBytes(r["value"]);
      for (simdjson::dom::element h : r["headers"].get_array()) {
        c.headers.emplace_back(std::string(h.at(0).get_string().value()), OptionalBytes(h.at(1)));
      }
      records.push_back(std::move(c));
    }
  }
  return records;
}

// The value of header `name` (null for a null value); fails the test when it is absent.
std::optional<std::string> HeaderOf(const Captured& c, std::string_view name) {
  for (const auto& [n, v] : c.headers) {
    if (n == name) return v;
  }
  ADD_FAILURE() << "no header " << name << " in a record of " << c.topic;
  return std::nullopt;
}

// The bytea payloads as rows.sql wrote them, by id (their StringConverter text is useless).
const std::map<std::string, std::optional<std::string>> kByteaById = {
    {"30000000-0000-4000-8000-000000000001", "\\x00ff10e282ac"},
    {"30000000-0000-4000-8000-000000000002", "\\x"},
    {"30000000-0000-4000-8000-000000000003", "\\x7b226a223a20317d"},
    {"30000000-0000-4000-8000-000000000004", std::nullopt},
};

struct Table {
  std::string name;
  RelationId id;
  uint32_t payload_oid;
  bool nullable;
};
const Table kTables[] = {{"outbox_jsonb", RelationId{1}, testing::kJsonb, false},
                         {"outbox_text", RelationId{2}, testing::kText, false},
                         {"outbox_bytea", RelationId{3}, testing::kBytea, false},
                         {"outbox_nulls", RelationId{4}, testing::kJsonb, true}};

const Table& TableFor(std::string_view type) {
  if (type == "texts") return kTables[1];
  if (type == "bytes") return kTables[2];
  if (type == "nulls") return kTables[3];
  return kTables[0];
}

class DebeziumParityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(DebeziumParityTest, SameBytesAsDebezium) {
  const std::string setup = GetParam();
  const std::vector<Captured> source = Load("string");  // The rows, as StringConverter shows them.
  const std::vector<Captured> expected = Load(setup);
  ASSERT_EQ(source.size(), expected.size());
  ASSERT_EQ(expected.size(), 59u);  // rows.sql minus the 100 KB row and the two never published.

  config::OutboxConfig cfg;
  cfg.topic = setup + ".outbox.event.${routedByValue}";
  cfg.key_converter = cfg.value_converter = setup == "json" ? config::Converter::kJson
                                            : setup == "json_schema"
                                                ? config::Converter::kJsonWithSchema
                                                : config::Converter::kString;
  cfg.extended_headers = setup != "string_noext";
  cfg.logical_name = "dbz_" + setup;
  cfg.empty_keys = cfg.null_keys = config::KeyPolicy::kPublish;
  const std::optional<std::string> run_id =
      cfg.extended_headers ? HeaderOf(expected.front(), "__debezium.context.runId") : std::nullopt;
  std::vector<config::TableName> names;
  for (const Table& t : kTables) names.push_back({"public", t.name});
  const std::unique_ptr<const Encoder> encoder = CreateEncoder(cfg, run_id.value_or(""));
  Mapper mapper(cfg, names, *encoder);
  const EventSource at;  // The raw format carries no source position.
  for (const Table& t : kTables) {
    if (!t.nullable) {
      mapper.SetNotNullColumns({"public", t.name}, {"id", "aggregatetype", "aggregateid", "type"});
    } else {
      mapper.SetNotNullColumns({"public", t.name}, {});
    }
    const Columns columns = {{"id", testing::kUuid},
                             {"aggregatetype", testing::kText},
                             {"aggregateid", testing::kText},
                             {"type", testing::kText},
                             {"payload", t.payload_oid}};
    mapper.OnRelation(MakeRelation(t.id, "public", t.name, columns));
  }

  InsertBuilder inserts;
  OutboxEvent event;
  int partitions_checked = 0;
  // Rows by id (one row has a NULL id): record order differs between set-ups wherever the
  // partition (from the converted key) differs.
  std::map<std::optional<std::string>, const Captured*> rows;
  for (const Captured& row : source) rows[HeaderOf(row, "id")] = &row;
  ASSERT_EQ(rows.size(), source.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const Captured& want = expected[i];
    ASSERT_EQ(rows.count(HeaderOf(want, "id")), 1u);
    const Captured& row = *rows[HeaderOf(want, "id")];
    const std::string type = row.topic.substr(std::string("string.outbox.event.").size());
    const Table& table = TableFor(type);
    const std::optional<std::string> id = HeaderOf(row, "id");
    std::optional<std::string> payload = row.value;
    if (&table == &kTables[2]) payload = kByteaById.at(id.value_or(""));
    SCOPED_TRACE(setup + " record " + std::to_string(i) + " id " + id.value_or("NULL"));

    ASSERT_TRUE(
        mapper.Map(inserts.Make(table.id, {id, type, row.key, "T", payload}), at, event).ok());
    EXPECT_EQ(event.topic, want.topic);
    EXPECT_EQ(event.key, want.key);
    if (cfg.value_converter == config::Converter::kString && table.payload_oid == testing::kBytea &&
        want.value) {
      // The intentional difference: raw bytes instead of Java's ByteBuffer.toString().
      EXPECT_EQ(want.value->rfind("java.nio.HeapByteBuffer[", 0), 0u);
    } else {
      EXPECT_EQ(event.value, want.value);
    }
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
    for (const Header& h : event.headers) {
      headers.emplace_back(
          std::string(h.name),
          h.value ? std::optional<std::string>(std::string(*h.value)) : std::nullopt);
    }
    EXPECT_EQ(headers, want.headers);
    if (type == "orders") {  // Pre-created with 6 partitions: Java hashed the converted key.
      ASSERT_TRUE(event.key.has_value());
      EXPECT_EQ(rd_kafka_msg_partitioner_murmur2(nullptr, event.key->data(), event.key->size(), 6,
                                                 nullptr, nullptr),
                want.partition);
      ++partitions_checked;
    }
  }
  EXPECT_EQ(partitions_checked, 40);
}

INSTANTIATE_TEST_SUITE_P(Setups, DebeziumParityTest,
                         ::testing::Values("string", "string_noext", "json", "json_schema"));

// Java's partitioner hashes a 0-byte key like any other; librdkafka must not treat a non-null
// empty key as absent (random) either.
TEST(EmptyKeyPartitionTest, EmptyKeyIsHashedNotRandom) {
  const char empty[1] = {};
  const int32_t first =
      rd_kafka_msg_partitioner_murmur2_random(nullptr, empty, 0, 6, nullptr, nullptr);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(rd_kafka_msg_partitioner_murmur2_random(nullptr, empty, 0, 6, nullptr, nullptr),
              first);
  }
  // Java: Utils.toPositive(Utils.murmur2(new byte[0])) % 6.
  EXPECT_EQ(first, rd_kafka_msg_partitioner_murmur2(nullptr, empty, 0, 6, nullptr, nullptr));
}

}  // namespace
}  // namespace outboxd::outbox
