// Keys land on the partition Java's murmur2 partitioner picks, so outboxd can replace
// Debezium without moving any aggregate to another partition.

#include <map>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "harness/delivery_check.h"
#include "harness/fixture.h"
#include "harness/kafka_admin.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/status_macros.h"
#include "known_partitions.h"

namespace outboxd::it {
namespace {

class PartitionTest : public OutboxdTest {};

TEST_F(PartitionTest, KeysLandOnJavaMurmur2Partitions) {
  const std::string topic = Topic("Part");
  IT_ASSERT_OK(CreateTopic(env().kafka_bootstrap, topic, kKnownPartitionCount));
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * outboxd, StartOutboxd());

  // Three transactions, each with one event per key, so every key has an order to keep.
  std::vector<ExpectedEvent> expected;
  for (int round = 0; round < 3; ++round) {
    std::vector<OutboxRow> rows;
    for (const KnownPartition& k : kJavaMurmur2Partitions) {
      rows.push_back(
          OutboxRow{"Part", k.key, "Created", absl::StrCat(R"({"round": )", round, "}")});
    }
    IT_ASSERT_OK(pg().Exec("BEGIN"));
    IT_ASSERT_OK_AND_ASSIGN(std::vector<ExpectedEvent> events,
                            InsertOutboxRows(pg(), table(), topic_prefix(), rows));
    IT_ASSERT_OK(pg().Exec("COMMIT"));
    expected.insert(expected.end(), events.begin(), events.end());
  }

  IT_ASSERT_OK_AND_ASSIGN(
      std::vector<KafkaRecord> records,
      ConsumeFromBeginning(env().kafka_bootstrap, {{topic}, expected.size(), absl::Seconds(60)}));
  const DeliveryReport report = CheckDelivery(expected, records, {});
  EXPECT_EQ(report.missing, 0u) << report.Summary();
  EXPECT_EQ(report.duplicates, 0u) << report.Summary();
  EXPECT_EQ(report.unexpected, 0u) << report.Summary();
  EXPECT_EQ(report.wrong_content, 0u) << report.Summary();
  EXPECT_EQ(report.order_violations, 0u) << report.Summary();

  std::map<std::string, int32_t> want;
  for (const KnownPartition& k : kJavaMurmur2Partitions) want[k.key] = k.partition;
  int wrong = 0;
  for (const KafkaRecord& r : records) {
    const std::string key = r.key.value_or("<null>");
    ASSERT_TRUE(want.count(key)) << "unexpected key " << key;
    if (r.partition != want[key]) {
      ++wrong;
      ADD_FAILURE() << "key '" << key << "' on partition " << r.partition
                    << ", the Java client puts it on " << want[key];
    }
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_TRUE(outboxd->Running());
}

}  // namespace
}  // namespace outboxd::it
