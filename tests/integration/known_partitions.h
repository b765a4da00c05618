#pragma once
// Known answers: the partition the Java client's default partitioner picks for a key, for a
// topic of 6 partitions.
//
// Obtained once from the real Java client, kafka-clients-4.1.1.jar as scripts/setup caches it
// in ${OUTBOXD_CACHE:-$HOME/.cache/outboxd}/kafka-4.1.1/libs, with:
//   import org.apache.kafka.common.utils.Utils;
//   Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % 6
// (javac + java -cp "libs/*" on a small class printing that for each key below).

#include <cstdint>

namespace outboxd::it {

inline constexpr int kKnownPartitionCount = 6;

struct KnownPartition {
  const char* key;
  int32_t partition;
};

inline constexpr KnownPartition kJavaMurmur2Partitions[] = {
    {"order-1", 4},
    {"order-2", 3},
    {"order-3", 3},
    {"customer-42", 3},
    {"customer-43", 5},
    {"a", 4},
    {"b", 2},
    {"hello", 3},
    {"aggregate-0007", 2},
    {"\xC3\xA9t\xC3\xA9-\xC3\xBC"
     "ber",
     4},  // "été-über" in UTF-8
    {"x-99", 5},
    {"account-12345", 3},
};

}  // namespace outboxd::it
