// table.expand.json.payload under AvroConverter: the Avro schema AvroData derives from each
// inference case of json_expand_test.cc, and the value's binary encoding.

#include "encoding/avro/avro_expand.h"

#include <string>

#include "encoding/debezium/json_expand.h"
#include "gtest/gtest.h"

namespace outboxd::outbox {

using encoding::AnythingAvroSchema;
using encoding::AppendAnythingString;
using encoding::AppendExpandedAvroSchema;
using encoding::AppendExpandedAvroValue;
using encoding::ExpandOutcome;
using encoding::InferJsonPayload;
using encoding::InferredPayload;
namespace {

std::string Schema(std::string_view text, std::string_view name = "payload") {
  const InferredPayload inferred = InferJsonPayload(text, name);
  EXPECT_EQ(inferred.outcome, ExpandOutcome::kExpanded) << text;
  std::string out;
  if (auto s = AppendExpandedAvroSchema(inferred, out); !s.ok()) return s.ToString();
  return out;
}

std::string Value(std::string_view text) {
  const InferredPayload inferred = InferJsonPayload(text, "payload");
  EXPECT_EQ(inferred.outcome, ExpandOutcome::kExpanded) << text;
  std::string out;
  if (auto s = AppendExpandedAvroValue(inferred, out); !s.ok()) return s.ToString();
  return out;
}

// The optional field `name` of Avro type `type`, as AvroData writes it.
std::string F(std::string_view name, std::string_view type) {
  return std::string(R"({"name":")") + std::string(name) + R"(","type":["null",)" +
         std::string(type) + R"(],"default":null})";
}

TEST(AvroExpandTest, ScalarsBecomeOptionalFieldsWithNullDefaults) {
  EXPECT_EQ(Schema(R"({"s": "x", "b": true, "i": 1, "l": 3000000000, "d": 1.5})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" + F("s", R"("string")") +
                "," + F("b", R"("boolean")") + "," + F("i", R"("int")") + "," +
                F("l", R"("long")") + "," + F("d", R"("double")") +
                R"(],"connect.name":"payload"}])");
}

TEST(AvroExpandTest, NumberWidthsFollowTheInferredConnectTypes) {
  EXPECT_EQ(Schema(R"({"a": 2147483647, "b": 2147483648, "h": -0, "g": 1e2})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" + F("a", R"("int")") + "," +
                F("b", R"("long")") + "," + F("h", R"("int")") + "," + F("g", R"("double")") +
                R"(],"connect.name":"payload"}])");
}

TEST(AvroExpandTest, NullsAndEmptyArraysHaveNoField) {
  EXPECT_EQ(Schema(R"({"a": null, "b": [], "c": 1})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" + F("c", R"("int")") +
                R"(],"connect.name":"payload"}])");
  EXPECT_EQ(Schema("{}"), R"(["null",{"type":"record","name":"payload","fields":[],)"
                          R"("connect.name":"payload"}])");
}

TEST(AvroExpandTest, NestedObjectsAreRecordsNamespacedByTheirPath) {
  const std::string b = R"({"type":"record","name":"b","namespace":"body.a","fields":[)" +
                        F("c", R"("string")") + R"(],"connect.name":"body.a.b"})";
  const std::string a = R"({"type":"record","name":"a","namespace":"body","fields":[)" + F("b", b) +
                        R"(],"connect.name":"body.a"})";
  EXPECT_EQ(Schema(R"({"a": {"b": {"c": "x"}, "n": null}})", "body"),
            R"(["null",{"type":"record","name":"body","fields":[)" + F("a", a) +
                R"(],"connect.name":"body"}])");
}

TEST(AvroExpandTest, ArraysHaveOptionalItems) {
  EXPECT_EQ(Schema(R"({"a": [null, 1], "n": [[1], [2, 3]]})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" +
                F("a", R"({"type":"array","items":["null","int"]})") + "," +
                F("n", R"({"type":"array","items":["null",{"type":"array","items":)"
                       R"(["null","int"]}]})") +
                R"(],"connect.name":"payload"}])");
}

TEST(AvroExpandTest, ArraysOfObjectsHoldTheMergedRecord) {
  const std::string items = R"({"type":"record","name":"items","namespace":"payload","fields":[)" +
                            F("id", R"("int")") + "," + F("name", R"("string")") +
                            R"(],"connect.name":"payload.items"})";
  // Two shapes: the merged struct is required, so its record is the items without a union.
  EXPECT_EQ(Schema(R"({"items": [{"id": 1, "tags": null}, {"id": 2, "name": "b"}]})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" +
                F("items", R"({"type":"array","items":)" + items + "}") +
                R"(],"connect.name":"payload"}])");
  // One shape: optional, ["null", record].
  const std::string one = R"({"type":"record","name":"items","namespace":"payload","fields":[)" +
                          F("id", R"("int")") + R"(],"connect.name":"payload.items"})";
  EXPECT_EQ(Schema(R"({"items": [{"id": 1}, null, {"id": 2}]})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" +
                F("items", R"({"type":"array","items":["null",)" + one + "]}") +
                R"(],"connect.name":"payload"}])");
}

TEST(AvroExpandTest, UnnamedStructsAreConnectDefaultsAndEqualOnesAreReferences) {
  // Structs inside arrays of arrays have no Connect name; their own fields' structs are named
  // without a namespace, which Avro writes as "" inside ConnectDefault's.
  const std::string k = R"({"type":"record","name":"k","namespace":"","fields":[)" +
                        F("v", R"("int")") + R"(],"connect.name":"k"})";
  const std::string first =
      R"({"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro",)"
      R"("fields":[)" +
      F("k", k) + "]}";
  const std::string second =
      R"({"type":"record","name":"ConnectDefault2","namespace":"io.confluent.connect.avro",)"
      R"("fields":[)" +
      F("x", R"("string")") + "]}";
  auto nested = [](const std::string& record) {
    return R"({"type":"array","items":["null",{"type":"array","items":["null",)" + record + "]}]}";
  };
  EXPECT_EQ(Schema(R"({"m": [[{"k": {"v": 1}}]], "o": [[{"x": "y"}]], "p": [[{"k": {"v": 2}}]]})"),
            R"(["null",{"type":"record","name":"payload","fields":[)" + F("m", nested(first)) +
                "," + F("o", nested(second)) + "," +
                F("p", nested(R"("io.confluent.connect.avro.ConnectDefault")")) +
                R"(],"connect.name":"payload"}])");
}

TEST(AvroExpandTest, WhatAvroRefusesIsAnError) {
  for (const char* text :
       {R"({"first-name": "x"})", R"({"1a": 1})", R"({"": 1})", R"({"a": {"b c": 1}})"}) {
    EXPECT_NE(Schema(text).find("not an Avro"), std::string::npos) << text;
  }
  // Two different structs under one name: AvroData would write the second in the first's record.
  EXPECT_NE(Schema(R"({"m": [[{"k": {"v": 1}}]], "n": [[{"k": {"w": 1}}]]})").find("both named"),
            std::string::npos);
  // Non-ASCII letters are Avro names in Java's Avro; the registry's parser judges them.
  EXPECT_EQ(Schema(R"({"café": 1})").find("not an Avro"), std::string::npos);
}

TEST(AvroExpandTest, ValuesAreAvroBinaryWithUnionBranches) {
  // Top union branch 1; i: branch 1, zigzag(-1) = 1; s: branch 1, length 1, "x"; n: dropped.
  EXPECT_EQ(Value(R"({"i": -1, "s": "x", "n": null})"), std::string("\x02\x02\x01\x02\x02x", 6));
  // An array of two ints, then the end block; a null member is its union's branch 0.
  EXPECT_EQ(Value(R"({"a": [1, null]})"), std::string("\x02\x02\x04\x02\x02\x00\x00", 7));
  // Two shapes: the required merged struct has no branch index; a merged field the member
  // lacks is null; an empty array in an array-typed field is 0.
  EXPECT_EQ(Value(R"({"o": [{"t": []}, {"t": ["x"], "u": true}]})"),
            std::string("\x02\x02\x04\x02\x00\x00\x02\x02\x02\x02x\x00\x02\x01\x00", 15));
  // 1.5 as a little-endian double.
  EXPECT_EQ(Value(R"({"d": 1.5})"), std::string("\x02\x02\x00\x00\x00\x00\x00\x00\xf8\x3f", 10));
  // Java's encoder writes an unpaired surrogate as '?'.
  EXPECT_EQ(Value(R"({"s": "a\ud800b"})"), std::string("\x02\x02\x06"
                                                       "a?b",
                                                       6));
}

TEST(AvroExpandTest, ValuesThatDoNotFitFailAsInTheJsonPath) {
  EXPECT_NE(Value(R"({"a": 12345678901234567890})").find("beyond 64 bits"), std::string::npos);
  EXPECT_NE(Value(R"({"a": [{"x": 1}, {"x": "s"}]})").find("does not fit"), std::string::npos);
  EXPECT_NE(Value(R"({"a": [[1], ["s"]]})").find("does not fit"), std::string::npos);
  EXPECT_NE(Value(R"({"a": [{"x": 1}, {"y": 1}, null]})").find("null member"), std::string::npos);
}

TEST(AvroExpandTest, TopLevelEmptyArrayIsAnAnythingRecord) {
  EXPECT_EQ(InferJsonPayload("[]", "payload").outcome, ExpandOutcome::kNullSchema);
  std::string out;
  AppendAnythingString("[]", out);
  EXPECT_EQ(out, std::string("\x00\x00\x00\x00\x00\x00\x02\x04[]\x00\x00", 12));
  EXPECT_NE(
      AnythingAvroSchema().find(R"("name":"Anything","namespace":"io.confluent.connect.avro")"),
      std::string_view::npos);
}

}  // namespace
}  // namespace outboxd::outbox
