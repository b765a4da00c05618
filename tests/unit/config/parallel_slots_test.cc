// [postgres] parallel_slots: the names it derives and the settings it refuses.

#include "config/config.h"
#include "config_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::config {
namespace {

using ::outboxd::config::testing::ErrorOf;
using ::outboxd::config::testing::Parse;
using ::testing::HasSubstr;

constexpr std::string_view kKafka = "[kafka]\n\"bootstrap.servers\" = \"k:9092\"\n";

std::string WithPostgres(std::string_view postgres_body) {
  return "[postgres]\nconninfo = \"x=1\"\n" + std::string(postgres_body) + std::string(kKafka);
}

TEST(ParallelSlotsTest, DefaultIsOneSlotWithTheConfiguredNames) {
  auto config = Parse(WithPostgres("tables = [\"outbox\"]\nslot = \"s\"\npublication = \"p\"\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.parallel_slots, 1);
  EXPECT_EQ(SlotName(config->postgres, 0), "s");
  EXPECT_EQ(PublicationName(config->postgres, 0), "p");
}

TEST(ParallelSlotsTest, SeveralSlotsAreNumberedFromZero) {
  auto config = Parse(WithPostgres(
      "tables = [\"outbox\"]\nslot = \"s\"\npublication = \"p\"\nparallel_slots = 4\n"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.parallel_slots, 4);
  EXPECT_EQ(SlotName(config->postgres, 0), "s_0");
  EXPECT_EQ(SlotName(config->postgres, 3), "s_3");
  EXPECT_EQ(PublicationName(config->postgres, 3), "p_3");
}

TEST(ParallelSlotsTest, OutOfRangeIsRefused) {
  EXPECT_THAT(ErrorOf(WithPostgres("tables = [\"outbox\"]\nparallel_slots = 0\n")),
              HasSubstr("[postgres] parallel_slots must be between 1 and 64, got 0"));
  EXPECT_THAT(ErrorOf(WithPostgres("tables = [\"outbox\"]\nparallel_slots = 65\n")),
              HasSubstr("[postgres] parallel_slots must be between 1 and 64, got 65"));
}

TEST(ParallelSlotsTest, LogicalMessagesCannotBeSplit) {
  EXPECT_THAT(ErrorOf(WithPostgres("message_prefixes = [\"outbox\"]\nparallel_slots = 2\n")),
              HasSubstr("[postgres] parallel_slots = 2 cannot split logical decoding messages "
                        "(message_prefixes): every slot would publish each one; use "
                        "parallel_slots = 1 with message_prefixes"));
}

TEST(ParallelSlotsTest, NumberedNamesMustFitPostgresLimit) {
  const std::string slot(61, 'a');  // "_9" fits 63 bytes, "_10" does not.
  const std::string fits = "tables = [\"outbox\"]\nslot = \"" + slot + "\"\nparallel_slots = ";
  EXPECT_TRUE(Parse(WithPostgres(fits + "10\n")).ok());
  EXPECT_THAT(ErrorOf(WithPostgres(fits + "11\n")),
              HasSubstr("longer than 63 bytes; shorten [postgres] slot"));
  const std::string publication =
      "tables = [\"outbox\"]\npublication = \"" + slot + "\"\nparallel_slots = 11\n";
  EXPECT_THAT(ErrorOf(WithPostgres(publication)),
              HasSubstr("longer than 63 bytes; shorten [postgres] publication"));
}

TEST(ParallelSlotsTest, ExactlyOnceIsAcceptedWithSeveralSlots) {
  // Each slot gets a transactional producer of its own (relay/supervisor.cc).
  const auto config = Parse(WithPostgres("tables = [\"outbox\"]\nparallel_slots = 2\n") +
                            "[relay]\ndelivery = \"exactly_once\"\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->postgres.parallel_slots, 2);
  EXPECT_EQ(config->relay.delivery, Delivery::kExactlyOnce);
}

}  // namespace
}  // namespace outboxd::config
