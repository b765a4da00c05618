// Decoding Begin, Commit and Insert must not allocate: they run once per replicated row.
// This binary replaces the global operator new (support/counting_new.cc) to count allocations
// around Decode.

#include <cstdint>
#include <string>

#include "gtest/gtest.h"
#include "pgoutput/decoder.h"
#include "support/counting_new.h"
#include "support/pgoutput_encoder.h"

namespace outboxd::pgoutput {
namespace {

namespace enc = outboxd::testing;

int64_t AllocationsToDecode(const std::string& bytes) {
  const int64_t before = outboxd::testing::ThreadAllocations();
  const absl::StatusOr<Message> result = Decode(bytes);
  const int64_t after = outboxd::testing::ThreadAllocations();
  EXPECT_TRUE(result.ok()) << result.status();
  return after - before;
}

TEST(DecoderAllocTest, HotPathMessagesDoNotAllocate) {
  const std::string tuple =
      enc::EncodeTupleData({std::optional<std::string>(std::string(1000, 'x')), std::nullopt});
  EXPECT_EQ(AllocationsToDecode(enc::EncodeBegin(Lsn(1), 2, Xid{3})), 0);
  EXPECT_EQ(AllocationsToDecode(enc::EncodeCommit(Lsn(1), Lsn(2), 3)), 0);
  EXPECT_EQ(AllocationsToDecode(enc::EncodeInsert(RelationId{1}, tuple)), 0);
  EXPECT_EQ(AllocationsToDecode(enc::EncodeUpdate(RelationId{1}, 'K', tuple, tuple)), 0);
  EXPECT_EQ(AllocationsToDecode(enc::EncodeMessage(true, Lsn(1), "p", "content")), 0);
}

TEST(DecoderAllocTest, CounterSeesAllocations) {
  // Guards the test above against a counter that never counts.
  const std::string truncate = enc::EncodeTruncate(0, {RelationId{1}});
  EXPECT_GT(AllocationsToDecode(truncate), 0);
}

}  // namespace
}  // namespace outboxd::pgoutput
