// table.expand.json.payload, case by case, as Debezium 3.6.1 (EventRouterDelegate,
// JsonSchemaData) and JsonConverter write it.

#include "encoding/debezium/json_expand.h"

#include <limits>
#include <string>

#include "gtest/gtest.h"

namespace outboxd::outbox {

using encoding::AppendJavaDouble;
using encoding::ExpandedPayload;
using encoding::ExpandJsonPayload;
using encoding::ExpandOutcome;
namespace {

struct Expanded {
  ExpandOutcome outcome;
  std::string schema;
  std::string value;
  std::string reason;
};

Expanded Expand(std::string_view text, std::string_view name = "payload") {
  const ExpandedPayload e = ExpandJsonPayload(text, name);
  return {e.outcome, std::string(e.schema_json), std::string(e.value_json), std::string(e.reason)};
}

std::string Double(double d) {
  std::string out;
  AppendJavaDouble(d, out);
  return out;
}

TEST(JsonExpandTest, ScalarsAndTheirSchemas) {
  const Expanded e = Expand(R"({"s": "x", "b": true, "f": false, "i": 1, "l": 3000000000})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema,
            R"({"type":"struct","fields":[{"type":"string","optional":true,"field":"s"},)"
            R"({"type":"boolean","optional":true,"field":"b"},)"
            R"({"type":"boolean","optional":true,"field":"f"},)"
            R"({"type":"int32","optional":true,"field":"i"},)"
            R"({"type":"int64","optional":true,"field":"l"}],"optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, R"({"s":"x","b":true,"f":false,"i":1,"l":3000000000})");
}

TEST(JsonExpandTest, NumberWidthsFollowJacksonsNodes) {
  // int32 up to Integer.MAX_VALUE, int64 to Long.MAX_VALUE, any fraction or exponent float64.
  const Expanded e =
      Expand(R"({"a": 2147483647, "b": 2147483648, "c": -2147483648, "d": -2147483649,)"
             R"( "e": 9223372036854775807, "f": 1.0, "g": 1e2, "h": -0, "i": 0.5})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema,
            R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"a"},)"
            R"({"type":"int64","optional":true,"field":"b"},)"
            R"({"type":"int32","optional":true,"field":"c"},)"
            R"({"type":"int64","optional":true,"field":"d"},)"
            R"({"type":"int64","optional":true,"field":"e"},)"
            R"({"type":"double","optional":true,"field":"f"},)"
            R"({"type":"double","optional":true,"field":"g"},)"
            R"({"type":"int32","optional":true,"field":"h"},)"
            R"({"type":"double","optional":true,"field":"i"}],"optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, R"({"a":2147483647,"b":2147483648,"c":-2147483648,"d":-2147483649,)"
                     R"("e":9223372036854775807,"f":1.0,"g":100.0,"h":0,"i":0.5})");
}

TEST(JsonExpandTest, DoublesAreWrittenAsJavaDoes) {
  EXPECT_EQ(Double(1.0), "1.0");
  EXPECT_EQ(Double(100.0), "100.0");
  EXPECT_EQ(Double(0.001), "0.001");
  EXPECT_EQ(Double(0.0001), "1.0E-4");
  EXPECT_EQ(Double(1234567.0), "1234567.0");
  EXPECT_EQ(Double(12345678.0), "1.2345678E7");
  EXPECT_EQ(Double(1e7), "1.0E7");
  EXPECT_EQ(Double(-2.5e-10), "-2.5E-10");
  EXPECT_EQ(Double(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(Double(0.0), "0.0");
  EXPECT_EQ(Double(-0.0), "-0.0");
  EXPECT_EQ(Double(1.7976931348623157e308), "1.7976931348623157E308");
  EXPECT_EQ(Double(std::numeric_limits<double>::infinity()), "Infinity");
  // A float token beyond double range is Infinity, which Jackson quotes.
  EXPECT_EQ(Expand(R"({"x": 1e400})").value, R"({"x":"Infinity"})");
}

TEST(JsonExpandTest, NullsAndEmptyArraysDropTheirField) {
  const Expanded e = Expand(R"({"a": null, "b": [], "c": 1})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema, R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"c"}],)"
                      R"("optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, R"({"c":1})");
}

TEST(JsonExpandTest, EmptyObjectIsAStructWithoutFields) {
  const Expanded e = Expand("{}");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema, R"({"type":"struct","fields":[],"optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, "{}");
}

TEST(JsonExpandTest, NestedObjectsAreNamedByTheirPath) {
  const Expanded e = Expand(R"({"a": {"b": {"c": "x"}, "n": null}})", "body");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema,
            R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"struct","fields":[)"
            R"({"type":"string","optional":true,"field":"c"}],"optional":true,"name":"body.a.b",)"
            R"("field":"b"}],"optional":true,"name":"body.a","field":"a"}],"optional":true,)"
            R"("name":"body"})");
  EXPECT_EQ(e.value, R"({"a":{"b":{"c":"x"}}})");
}

TEST(JsonExpandTest, ArraysOfPrimitivesTakeTheirFirstNonNullMember) {
  const Expanded e = Expand(R"({"a": [null, 1, 2, null], "s": ["x"], "n": [[1], [2, 3]]})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(
      e.schema,
      R"({"type":"struct","fields":[)"
      R"({"type":"array","items":{"type":"int32","optional":true},"optional":true,"field":"a"},)"
      R"({"type":"array","items":{"type":"string","optional":true},"optional":true,"field":"s"},)"
      R"({"type":"array","items":{"type":"array","items":{"type":"int32","optional":true},)"
      R"("optional":true},"optional":true,"field":"n"}],"optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, R"({"a":[null,1,2,null],"s":["x"],"n":[[1],[2,3]]})");
}

TEST(JsonExpandTest, ArraysOfObjectsMergeTheirMembersFields) {
  // Two shapes: Debezium's merge (SchemaUtil.copySchemaBasics) leaves the struct required.
  const Expanded e = Expand(R"({"items": [{"id": 1, "tags": null}, {"id": 2, "name": "b"}]})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema,
            R"({"type":"struct","fields":[{"type":"array","items":{"type":"struct","fields":[)"
            R"({"type":"int32","optional":true,"field":"id"},)"
            R"({"type":"string","optional":true,"field":"name"}],"optional":false,)"
            R"("name":"payload.items"},"optional":true,"field":"items"}],"optional":true,)"
            R"("name":"payload"})");
  EXPECT_EQ(e.value, R"({"items":[{"id":1,"name":null},{"id":2,"name":"b"}]})");
  // So a null member fails Debezium's task (Struct validation).
  const Expanded null_member =
      Expand(R"({"items": [{"id": 1, "tags": null}, {"id": 2, "name": "b"}, null]})");
  EXPECT_EQ(null_member.outcome, ExpandOutcome::kFails);
  EXPECT_NE(null_member.reason.find("null member"), std::string::npos);
  // One shape is not merged: the struct stays optional and takes a null member.
  const Expanded one = Expand(R"({"items": [{"id": 1}, null, {"id": 2}]})");
  ASSERT_EQ(one.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(one.schema,
            R"({"type":"struct","fields":[{"type":"array","items":{"type":"struct","fields":[)"
            R"({"type":"int32","optional":true,"field":"id"}],"optional":true,)"
            R"("name":"payload.items"},"optional":true,"field":"items"}],"optional":true,)"
            R"("name":"payload"})");
  EXPECT_EQ(one.value, R"({"items":[{"id":1},null,{"id":2}]})");
}

TEST(JsonExpandTest, StructsInsideArraysOfArraysHaveNoName) {
  const Expanded e = Expand(R"({"m": [[{"k": {"v": 1}}]]})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema,
            R"({"type":"struct","fields":[{"type":"array","items":{"type":"array","items":)"
            R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32",)"
            R"("optional":true,"field":"v"}],"optional":true,"name":"k","field":"k"}],)"
            R"("optional":true},"optional":true},"optional":true,"field":"m"}],)"
            R"("optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, R"({"m":[[{"k":{"v":1}}]]})");
}

TEST(JsonExpandTest, PayloadsDebeziumLeavesAsStrings) {
  for (const char* text : {
           "",             // charAt(0) throws
           " {\"a\": 1}",  // not trimmed
           "5",
           "\"x\"",
           "null",
           "true",                      // scalars are never parsed
           "{\"a\": }",                 // Jackson refuses it
           "{'a': 1}",                  // single quotes
           "{\"a\": 01}",               // leading zero
           "{\"a\": NaN}",              // non-numeric numbers
           "{\"a\": \"\\x\"}",          // unknown escape
           "{\"a\": [null]}",           // only nulls: unrecognized member schema
           "{\"a\": [[], [1]]}",        // first member has no schema
           "{\"a\": [1, \"x\"]}",       // not homogeneous
           "{\"a\": [1, 2.5]}",         // different number types
           "{\"a\": [1, 3000000000]}",  // int32 and int64
           "[null]",
       }) {
    EXPECT_EQ(Expand(text).outcome, ExpandOutcome::kUnexpanded) << text;
  }
}

TEST(JsonExpandTest, TopLevelArrays) {
  EXPECT_EQ(Expand("[]").outcome, ExpandOutcome::kNullSchema);
  const Expanded e = Expand("[1, 2]");
  EXPECT_EQ(e.outcome, ExpandOutcome::kFails);
  EXPECT_NE(e.reason.find("array"), std::string::npos);
}

TEST(JsonExpandTest, ValuesThatFailDebeziumsTask) {
  // A BigInteger node gets a float64 schema but becomes a BigDecimal.
  EXPECT_EQ(Expand(R"({"a": 12345678901234567890})").outcome, ExpandOutcome::kFails);
  EXPECT_EQ(Expand(R"({"a": [1.5, 12345678901234567890]})").outcome, ExpandOutcome::kFails);
  // Merged struct fields of different types: the first member's schema wins, the second fails.
  EXPECT_EQ(Expand(R"({"a": [{"x": 1}, {"x": "s"}]})").outcome, ExpandOutcome::kFails);
  // Arrays of arrays typed by the first member only.
  EXPECT_EQ(Expand(R"({"a": [[1], ["s"]]})").outcome, ExpandOutcome::kFails);
  EXPECT_EQ(Expand(R"({"a": "\ud800"})").outcome, ExpandOutcome::kFails);
}

TEST(JsonExpandTest, StringsAreDecodedAndWrittenWithJacksonsEscapes) {
  const Expanded e = Expand(R"({"s": "caf\u00e9 \/ \ud83d\ude00 \"q\" \u0001 é"})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.value, "{\"s\":\"caf\xC3\xA9 / \\uD83D\\uDE00 \\\"q\\\" \\u0001 \xC3\xA9\"}");
}

TEST(JsonExpandTest, RepeatedKeysKeepTheFirstPositionAndTheLastValue) {
  const Expanded e = Expand(R"({"a": 1, "b": 2, "a": "x"})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema,
            R"({"type":"struct","fields":[{"type":"string","optional":true,"field":"a"},)"
            R"({"type":"int32","optional":true,"field":"b"}],"optional":true,"name":"payload"})");
  EXPECT_EQ(e.value, R"({"a":"x","b":2})");
}

TEST(JsonExpandTest, TrailingContentAfterTheRootIsIgnored) {
  const Expanded e = Expand(R"({"a": 1} trailing)");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.value, R"({"a":1})");
}

TEST(JsonExpandTest, FieldNamesAreEscaped) {
  const Expanded e = Expand(R"({"a\"b": {"c": 1}})");
  ASSERT_EQ(e.outcome, ExpandOutcome::kExpanded);
  EXPECT_EQ(e.schema, R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32",)"
                      R"("optional":true,"field":"c"}],"optional":true,"name":"payload.a\"b",)"
                      R"("field":"a\"b"}],"optional":true,"name":"payload"})");
}

}  // namespace
}  // namespace outboxd::outbox
