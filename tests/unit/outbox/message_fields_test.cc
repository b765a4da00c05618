// Reading a table-less outbox event (a logical decoding message's JSON object) into the
// column values the Mapper maps.

#include "outbox/message_fields.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::outbox {
namespace {

using pgoutput::ColumnKind;
using pgoutput::ColumnValue;
using ::testing::HasSubstr;

constexpr std::array<std::string_view, 5> kNames = {"id", "aggregatetype", "aggregateid", "payload",
                                                    "type"};

std::string Text(const ColumnValue& v) {
  return v.kind == ColumnKind::kNull ? "<null>" : std::string(v.data);
}

TEST(MessageFieldsTest, StringsAreUnescapedAndMissingFieldsAreNull) {
  MessageFields fields;
  std::vector<ColumnValue> values;
  ASSERT_TRUE(fields
                  .Parse(R"({"aggregateid": "caf\u00e9 \"1\"", "id": "e-1",
                             "aggregatetype": "order", "payload": "{\"a\":1}", "x": 5})",
                         kNames, values)
                  .ok());
  ASSERT_EQ(values.size(), kNames.size());
  EXPECT_EQ(Text(values[0]), "e-1");
  EXPECT_EQ(Text(values[1]), "order");
  EXPECT_EQ(Text(values[2]), "caf\xc3\xa9 \"1\"");
  EXPECT_EQ(Text(values[3]), R"({"a":1})");
  EXPECT_FALSE(fields.structured(3));
  EXPECT_EQ(values[4].kind, ColumnKind::kNull);
}

TEST(MessageFieldsTest, OtherValuesKeepCompactJsonAndObjectsAreFlagged) {
  MessageFields fields;
  std::vector<ColumnValue> values;
  ASSERT_TRUE(fields
                  .Parse(R"({"id": 42, "aggregatetype": null, "aggregateid": true,
                             "payload": { "lines": [1, 2.5, "x"], "ok": false }, "type": [ ]})",
                         kNames, values)
                  .ok());
  EXPECT_EQ(Text(values[0]), "42");
  EXPECT_EQ(values[1].kind, ColumnKind::kNull);
  EXPECT_EQ(Text(values[2]), "true");
  EXPECT_EQ(Text(values[3]), R"({"lines":[1,2.5,"x"],"ok":false})");
  EXPECT_TRUE(fields.structured(3));
  EXPECT_EQ(Text(values[4]), "[]");
  EXPECT_TRUE(fields.structured(4));
  EXPECT_FALSE(fields.structured(0));
}

TEST(MessageFieldsTest, ValuesOfOneMessageDoNotLeakIntoTheNext) {
  MessageFields fields;
  std::vector<ColumnValue> values;
  ASSERT_TRUE(fields.Parse(R"({"id": 1, "payload": {"a": 1}})", kNames, values).ok());
  ASSERT_TRUE(fields.Parse(R"({"id": "2"})", kNames, values).ok());
  EXPECT_EQ(Text(values[0]), "2");
  EXPECT_EQ(values[3].kind, ColumnKind::kNull);
  EXPECT_FALSE(fields.structured(3));
}

TEST(MessageFieldsTest, ContentThatIsNotAJsonObjectIsRefusedWithTheFix) {
  MessageFields fields;
  std::vector<ColumnValue> values;
  absl::Status not_json = fields.Parse("hello", kNames, values);
  EXPECT_TRUE(absl::IsInvalidArgument(not_json));
  EXPECT_THAT(not_json.message(), HasSubstr("not JSON"));
  EXPECT_THAT(not_json.message(), HasSubstr("emit a JSON object"));
  absl::Status array = fields.Parse("[1, 2]", kNames, values);
  EXPECT_THAT(array.message(), HasSubstr("JSON but not an object"));
  EXPECT_TRUE(absl::IsInvalidArgument(fields.Parse("", kNames, values)));
}

}  // namespace
}  // namespace outboxd::outbox
