#include "position/position_record.h"

#include "gtest/gtest.h"

namespace outboxd::position {
namespace {

PositionRecord Sample() {
  return {.slot = "outboxd \"main\"",
          .system_id = "7443061393472851234",
          .timeline = 3,
          .lsn = Lsn(0x16B3748),
          .written_unix_ms = 1764650000123};
}

TEST(PositionRecordTest, RoundTrips) {
  auto decoded = DecodeRecord(EncodeRecord(Sample()));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, Sample());
}

TEST(PositionRecordTest, IsReadableJson) {
  EXPECT_EQ(EncodeRecord(Sample()),
            "{\"v\":1,\"slot\":\"outboxd \\\"main\\\"\",\"system_id\":\"7443061393472851234\","
            "\"timeline\":3,\"lsn\":\"0/16B3748\",\"written_unix_ms\":1764650000123}");
}

TEST(PositionRecordTest, APartlyPublishedTransactionRoundTrips) {
  PositionRecord record = Sample();
  record.partial = {.commit_lsn = Lsn(0x16B9000), .events = 50000};
  const std::string text = EncodeRecord(record);
  EXPECT_NE(text.find(",\"partial\":{\"commit_lsn\":\"0/16B9000\",\"events\":50000}}"),
            std::string::npos)
      << text;
  auto decoded = DecodeRecord(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, record);
}

TEST(PositionRecordTest, RejectsWhatItDidNotWrite) {
  for (const char* text :
       {"", "not json",
        "{\"v\":2,\"slot\":\"s\",\"system_id\":\"1\",\"timeline\":1,"
        "\"lsn\":\"0/1\",\"written_unix_ms\":0}",
        "{\"v\":1,\"slot\":\"s\",\"system_id\":\"1\",\"timeline\":1,\"lsn\":\"zz\","
        "\"written_unix_ms\":0}",
        "{\"v\":1,\"slot\":\"s\",\"timeline\":1,\"lsn\":\"0/1\",\"written_unix_ms\":0}",
        "{\"v\":1,\"slot\":\"s\",\"system_id\":\"1\",\"timeline\":1,\"lsn\":\"0/1\","
        "\"written_unix_ms\":0,\"partial\":{\"commit_lsn\":\"0/2\"}}"}) {
    auto decoded = DecodeRecord(text);
    EXPECT_TRUE(absl::IsDataLoss(decoded.status())) << text;
  }
}

}  // namespace
}  // namespace outboxd::position
