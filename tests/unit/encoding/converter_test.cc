// Connect converter primitives (Jackson string escaping, base64, schema objects) and the
// timestamp column parser.

#include "encoding/debezium/converter.h"

#include "gtest/gtest.h"
#include "outbox/timestamp.h"

namespace outboxd::outbox {

using encoding::AppendBase64;
using encoding::AppendJsonString;
using encoding::AppendJsonValue;
using encoding::AppendSchema;
namespace {

std::string Json(std::string_view text) {
  std::string out;
  AppendJsonString(text, out);
  return out;
}

std::string Base64(std::string_view bytes) {
  std::string out;
  AppendBase64(bytes, out);
  return out;
}

TEST(AppendJsonStringTest, EscapesLikeJackson) {
  EXPECT_EQ(Json(""), R"("")");
  EXPECT_EQ(Json("a\"b\\c/"), R"("a\"b\\c/")");
  EXPECT_EQ(Json("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(Json(std::string_view("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001F\x7f\"");
  // BMP characters stay raw UTF-8; a supplementary one becomes an escaped surrogate pair, as
  // in the captured record for key "ключ-ü-😀".
  EXPECT_EQ(Json("ключ-ü-😀"), "\"ключ-ü-\\uD83D\\uDE00\"");
  EXPECT_EQ(Json("✓"), "\"✓\"");
}

TEST(AppendBase64Test, PadsLikeJavaUtilBase64) {
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64(std::string_view("\x00\xff\x10\xe2\x82\xac", 6)), "AP8Q4oKs");  // Captured.
}

TEST(AppendSchemaTest, FieldOrderOfJsonConverter) {
  std::string out;
  AppendSchema(*SchemaOfType(3802, false), out);
  EXPECT_EQ(out, R"({"type":"string","optional":true,"name":"io.debezium.data.Json","version":1})");
  out.clear();
  AppendSchema(*SchemaOfType(25, true), out, "payload");
  EXPECT_EQ(out, R"({"type":"string","optional":false,"field":"payload"})");
  out.clear();
  AppendSchema(*SchemaOfType(17, false), out);
  EXPECT_EQ(out, R"({"type":"bytes","optional":true})");
  out.clear();
  AppendSchema(*SchemaOfType(23, true), out);
  EXPECT_EQ(out, R"({"type":"int32","optional":false})");
  EXPECT_EQ(SchemaOfType(1700, true), std::nullopt);  // numeric: not supported.
}

TEST(AppendJsonValueTest, EachKind) {
  std::string scratch;
  auto value = [&](uint32_t oid, std::optional<std::string_view> text) {
    std::string out;
    EXPECT_TRUE(AppendJsonValue(*SchemaOfType(oid, false), text, scratch, out));
    return out;
  };
  EXPECT_EQ(value(25, std::nullopt), "null");
  EXPECT_EQ(value(25, "x\"y"), R"("x\"y")");
  EXPECT_EQ(value(20, "-12"), "-12");
  EXPECT_EQ(value(16, "t"), "true");
  EXPECT_EQ(value(16, "f"), "false");
  EXPECT_EQ(value(17, "\\x00ff"), R"("AP8=")");
  std::string out;
  EXPECT_FALSE(AppendJsonValue(*SchemaOfType(17, false), "zz", scratch, out));
}

TEST(ParseTimestampMsTest, TimestampAndTimestamptz) {
  EXPECT_EQ(ParseTimestampMs("1970-01-01 00:00:00", false), 0);
  EXPECT_EQ(ParseTimestampMs("2026-12-02 05:16:59.123456", false), 1796188619123);
  EXPECT_EQ(ParseTimestampMs("2026-12-02 05:16:59.1", false), 1796188619100);
  EXPECT_EQ(ParseTimestampMs("2026-12-02 07:16:59+02", true), 1796188619000);
  EXPECT_EQ(ParseTimestampMs("2026-12-02 00:46:59-04:30", true), 1796188619000);
  // Micros / 1000 truncates toward zero, as Java's long division.
  EXPECT_EQ(ParseTimestampMs("1969-12-31 23:59:59.9995", false), 0);
  EXPECT_EQ(ParseTimestampMs("infinity", false), std::nullopt);
  EXPECT_EQ(ParseTimestampMs("0044-03-15 12:00:00 BC", false), std::nullopt);
  EXPECT_EQ(ParseTimestampMs("2026-12-02 05:16:59", true), std::nullopt);  // No zone.
  EXPECT_EQ(ParseTimestampMs("12/02/2026 05:16:59", false), std::nullopt);
}

}  // namespace
}  // namespace outboxd::outbox
