// The Avro schemas of Confluent's AvroData (connect.meta.data = true) for the Connect schemas
// Debezium's Event Router gives the converter, as Avro's Schema.toString writes them.

#include "encoding/avro/avro_schema.h"

#include <string>

#include "encoding/avro/avro_datum.h"
#include "gtest/gtest.h"

namespace outboxd::outbox {

using encoding::AppendAvroRecordSchema;
using encoding::AppendAvroSchema;
using encoding::AppendConfluentHeader;
using encoding::AvroDatum;
using encoding::AvroField;
namespace {

std::string SchemaOf(uint32_t oid, bool not_null) {
  std::string out;
  AppendAvroSchema(*SchemaOfType(oid, not_null), out);
  return out;
}

TEST(AvroSchemaTest, TopLevelValuesAreAvroDataUnionsWithTheConnectMetadataOnTheBranch) {
  EXPECT_EQ(
      SchemaOf(3802, false),
      R"(["null",{"type":"string","connect.version":1,"connect.name":"io.debezium.data.Json"}])");
  EXPECT_EQ(SchemaOf(114, true),
            R"({"type":"string","connect.version":1,"connect.name":"io.debezium.data.Json"})");
  EXPECT_EQ(SchemaOf(25, false), R"(["null","string"])");
  EXPECT_EQ(SchemaOf(25, true), R"("string")");
  EXPECT_EQ(SchemaOf(17, false), R"(["null","bytes"])");
  EXPECT_EQ(SchemaOf(2950, true),
            R"({"type":"string","connect.version":1,"connect.name":"io.debezium.data.Uuid"})");
  EXPECT_EQ(SchemaOf(21, true), R"({"type":"int","connect.type":"int16"})");
  EXPECT_EQ(SchemaOf(23, false), R"(["null","int"])");
  EXPECT_EQ(SchemaOf(20, true), R"("long")");
  EXPECT_EQ(SchemaOf(16, false), R"(["null","boolean"])");
}

TEST(AvroSchemaTest, EnvelopeIsARecordNamedAfterTheConnectStructWithNullDefaults) {
  const ColumnSchema payload = *SchemaOfType(3802, false);
  const ColumnSchema type = *SchemaOfType(25, true);
  const AvroField fields[] = {{"payload", &payload}, {"eventType", &type}};
  std::string out;
  AppendAvroRecordSchema("dbserver1.public.outbox.Order.Value", fields, out);
  EXPECT_EQ(out,
            R"({"type":"record","name":"Value","namespace":"dbserver1.public.outbox.Order",)"
            R"("fields":[{"name":"payload","type":["null",{"type":"string","connect.version":1,)"
            R"("connect.name":"io.debezium.data.Json"}],"default":null},)"
            R"({"name":"eventType","type":"string"}],)"
            R"("connect.name":"dbserver1.public.outbox.Order.Value"})");
  EXPECT_TRUE(AvroDatum::Create(out).ok());
}

TEST(AvroSchemaTest, ConfluentHeaderIsMagicZeroAndABigEndianId) {
  std::string out;
  AppendConfluentHeader(0x01020304, out);
  EXPECT_EQ(out, std::string("\0\1\2\3\4", 5));
}

TEST(AvroDatumTest, ANameAvroRefusesIsAnInvalidArgument) {
  const ColumnSchema payload = *SchemaOfType(25, false);
  const AvroField fields[] = {{"payload", &payload}};
  std::string out;
  AppendAvroRecordSchema("p.public.outbox.Order-Line", fields, out);
  // A record's name is [A-Za-z_][A-Za-z0-9_]*; Java's Avro 1.11 refuses it too (like avro-c, it
  // does not check the namespace, so "p.public.outbox.Order-Line.Value" passes both).
  EXPECT_EQ(AvroDatum::Create(out).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AvroDatumTest, NullInARequiredFieldAndMalformedIntegersAreInvalidArguments) {
  std::string json;
  const ColumnSchema int8 = *SchemaOfType(20, true);
  AppendAvroSchema(int8, json);
  auto datum = AvroDatum::Create(json);
  ASSERT_TRUE(datum.ok());
  EXPECT_EQ((*datum)->Set(int8, std::nullopt).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*datum)->Set(int8, "12x").code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE((*datum)->Set(int8, "-1").ok());
  std::string out;
  ASSERT_TRUE((*datum)->AppendFramed(1, out).ok());
  EXPECT_EQ(out, std::string("\0\0\0\0\1\1", 6));  // zigzag(-1) = 1.
}

}  // namespace
}  // namespace outboxd::outbox
