// Decoding Begin, Commit and Insert must not allocate: they run once per replicated row.
// This binary replaces the global operator new to count allocations around Decode.

#include <cstdlib>
#include <new>
#include <string>

#include "gtest/gtest.h"
#include "pgoutput/decoder.h"
#include "support/pgoutput_encoder.h"

namespace {
thread_local long allocations = 0;  // NOLINT(runtime/int): only counted, never compared to size.
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace outboxd::pgoutput {
namespace {

namespace enc = outboxd::testing;

long AllocationsToDecode(const std::string& bytes) {  // NOLINT(runtime/int)
  const long before = allocations;                    // NOLINT(runtime/int)
  const absl::StatusOr<Message> result = Decode(bytes);
  const long after = allocations;  // NOLINT(runtime/int)
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
