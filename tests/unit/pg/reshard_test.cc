// Resharding's plan (pg/reshard.h) against a model of the slots: from the start and from every
// point a crash can interrupt a hop (after each slot created or dropped), the next starts must
// end with exactly the configured family, never drop a slot that still holds the stream's
// events, never run a slot as a source that never held them, and never use a target that
// streamed before. The procedure itself runs against a real Postgres and Kafka in
// tests/integration/parallel_slots_test.cc (ReshardsOneToFourToTwoUnderLoad).

#include "pg/reshard.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace outboxd::pg {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

SlotFamily Family(std::string slot, int count) {
  return {.slot = slot, .publication = "pub" + slot.substr(7), .count = count};
}

std::vector<std::string> Names(const std::map<std::string, int>& slots) {
  std::vector<std::string> out;
  for (const auto& [name, state] : slots) out.push_back(name);
  return out;
}

// A slot's part in the stream: the model's whole state.
enum State { kFresh, kHolding, kDone };  // Created as a target; holds events; ran to its cut.

class ReshardModel {
 public:
  explicit ReshardModel(std::map<std::string, int> slots) : slots_(std::move(slots)) {}

  // Runs starts until nothing is left to do; `crash_at` > 0 interrupts the first start after
  // that many slot creations and drops. Returns false (with a failure) on a wrong step.
  bool Run(const SlotFamily& configured, int crash_at) {
    int actions = 0;
    for (int start = 0; start < 20; ++start) {
      auto step = PlanReshardStep(configured, Names(slots_));
      if (!step.ok()) {
        ADD_FAILURE() << step.status();
        return false;
      }
      for (const std::string& slot : step->drop) {
        if (slots_[slot] == kHolding) {
          ADD_FAILURE() << "dropped " << slot << ", which holds events";
          return false;
        }
        slots_.erase(slot);
        if (++actions == crash_at) break;
      }
      if (actions == crash_at && crash_at > 0) {
        crash_at = 0;
        continue;
      }
      if (!step->hop) {
        if (step->drop.empty()) return true;
        continue;  // Leftovers gone: plan again.
      }
      if (!RunHop(*step->hop, actions, crash_at)) return false;
      if (crash_at < 0) crash_at = 0;  // Crashed during the hop: start again.
    }
    ADD_FAILURE() << "resharding did not end";
    return false;
  }

  const std::map<std::string, int>& slots() const { return slots_; }

 private:
  // Sets crash_at to -1 when the crash point was reached inside the hop.
  bool RunHop(const ReshardHop& hop, int& actions, int& crash_at) {
    const std::vector<std::string> targets = FamilySlots(hop.target);
    bool any_target = false;
    for (const std::string& t : targets) any_target = any_target || slots_.contains(t);
    if (!any_target) {
      for (auto t = targets.rbegin(); t != targets.rend(); ++t) {
        slots_[*t] = kFresh;
        if (++actions == crash_at) return Crashed(crash_at);
      }
    }
    const std::vector<std::string> sources = FamilySlots(hop.source);
    bool sources_done = true;
    for (const std::string& s : sources) sources_done = sources_done && slots_[s] == kDone;
    for (const std::string& t : targets) {
      // Fresh, or holding what follows the cut once every source ran to it.
      if (!slots_.contains(t) || (slots_[t] != kFresh && !sources_done)) {
        ADD_FAILURE() << "target " << t << " is missing or streamed before";
        return false;
      }
    }
    for (const std::string& s : sources) {
      if (!slots_.contains(s) || slots_[s] == kFresh) {
        ADD_FAILURE() << "source " << s << " is missing or never held the stream";
        return false;
      }
      slots_[s] = kDone;
    }
    // Every source at the cut: from there the targets hold the events.
    for (const std::string& t : targets) slots_[t] = kHolding;
    for (const std::string& s : sources) {
      slots_.erase(s);
      if (++actions == crash_at) return Crashed(crash_at);
    }
    return true;
  }

  static bool Crashed(int& crash_at) {
    crash_at = -1;
    return true;
  }

  std::map<std::string, int> slots_;
};

std::map<std::string, int> Holding(const SlotFamily& family) {
  std::map<std::string, int> out;
  for (const std::string& slot : FamilySlots(family)) out[slot] = kHolding;
  return out;
}

TEST(PlanReshardStepTest, TheConfiguredFamilyOrNoneIsLeftAlone) {
  auto step = PlanReshardStep(Family("outboxd", 4), FamilySlots(Family("outboxd", 4)));
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_THAT(step->drop, IsEmpty());
  EXPECT_FALSE(step->hop);
  step = PlanReshardStep(Family("outboxd", 4), {"other", "outboxdx_0"});
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_FALSE(step->hop);
}

TEST(PlanReshardStepTest, AnotherCountGoesThroughTheTransitFamily) {
  auto step = PlanReshardStep(Family("outboxd", 4), {"outboxd"});
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(step->hop);
  EXPECT_EQ(step->hop->source, Family("outboxd", 1));
  EXPECT_EQ(step->hop->target, Family("outboxd_reshard", 4));
  EXPECT_THAT(FamilySlots(step->hop->target),
              ElementsAre("outboxd_reshard_0", "outboxd_reshard_1", "outboxd_reshard_2",
                          "outboxd_reshard_3"));
  step = PlanReshardStep(Family("outboxd", 4), FamilySlots(Family("outboxd_reshard", 4)));
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(step->hop);
  EXPECT_EQ(step->hop->source, Family("outboxd_reshard", 4));
  EXPECT_EQ(step->hop->target, Family("outboxd", 4));
}

// A partial family of the configured name with nothing in transit is not resharding's: set-up
// refuses it with its own message (pg::CheckSlotFamily).
TEST(PlanReshardStepTest, APartialFamilyWithoutTransitIsLeftToSetUp) {
  auto step = PlanReshardStep(Family("outboxd", 2), {"outboxd_1", "outboxd_2"});
  ASSERT_TRUE(step.ok()) << step.status();
  EXPECT_FALSE(step->hop);
  EXPECT_THAT(step->drop, IsEmpty());
}

TEST(PlanReshardStepTest, PartialFamiliesOnBothSidesAreRefusedWithTheirNames) {
  auto step = PlanReshardStep(Family("outboxd", 2), {"outboxd_1", "outboxd_reshard_2"});
  ASSERT_FALSE(step.ok());
  EXPECT_THAT(std::string(step.status().message()),
              ::testing::HasSubstr("outboxd_1 and outboxd_reshard_2"));
}

TEST(ReshardModelTest, EveryCountToEveryOtherEndsWithTheConfiguredFamily) {
  for (int from : {1, 2, 4}) {
    for (int to : {1, 2, 3, 4}) {
      SCOPED_TRACE(testing::Message() << from << " -> " << to);
      ReshardModel model(Holding(Family("outboxd", from)));
      ASSERT_TRUE(model.Run(Family("outboxd", to), 0));
      EXPECT_EQ(model.slots(), Holding(Family("outboxd", to)));
    }
  }
}

TEST(ReshardModelTest, ACrashAfterAnySlotCreatedOrDroppedIsResumed) {
  for (int from : {1, 2, 4}) {
    for (int to : {1, 2, 4}) {
      if (from == to) continue;
      // 1 -> 4 creates 4 + 4 slots and drops 1 + 4: at most 2 * (4 + 4) actions.
      for (int crash_at = 1; crash_at <= 16; ++crash_at) {
        SCOPED_TRACE(testing::Message() << from << " -> " << to << ", crash " << crash_at);
        ReshardModel model(Holding(Family("outboxd", from)));
        ASSERT_TRUE(model.Run(Family("outboxd", to), crash_at));
        EXPECT_EQ(model.slots(), Holding(Family("outboxd", to)));
      }
    }
  }
}

// The operator changes parallel_slots again while a resharding is interrupted: it finishes the
// hop under way, then reshards to the new count.
TEST(ReshardModelTest, ANewCountDuringAnInterruptedReshardingIsReachedToo) {
  for (int crash_at = 1; crash_at <= 10; ++crash_at) {
    SCOPED_TRACE(testing::Message() << "crash " << crash_at);
    ReshardModel model(Holding(Family("outboxd", 1)));
    ASSERT_TRUE(model.Run(Family("outboxd", 4), crash_at));
    ReshardModel again(model.slots());
    ASSERT_TRUE(again.Run(Family("outboxd", 2), 0));
    EXPECT_EQ(again.slots(), Holding(Family("outboxd", 2)));
  }
}

}  // namespace
}  // namespace outboxd::pg
