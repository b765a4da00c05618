// The example consumer behind a real outboxd writing [outbox] format = "envelope-protobuf":
// outboxd relays the outbox rows, the consumer is killed with -9 mid-stream, a second outboxd
// re-publishes every row from a slot created before them (a replay from an earlier WAL
// position), and the group is reset to the beginning; each event is still applied once.

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "consumer_fixture.h"
#include "gtest/gtest.h"
#include "harness/config_writer.h"
#include "harness/kafka_consumer.h"
#include "harness/outbox_writer.h"
#include "harness/outboxd_process.h"
#include "harness/slot.h"
#include "harness/status_macros.h"
#include "harness/wait.h"
#include "kafka_tools.h"
#include "outboxd/v1/event.pb.h"

namespace consumer_test {
namespace {

using outboxd::it::OutboxdProcess;

class RelayedConsumerTest : public ConsumerTest {
 protected:
  void TearDown() override {
    outboxd_.clear();  // Kills what still runs, so that its slot can be dropped.
    if (!replay_slot_.empty()) {
      IT_EXPECT_OK(outboxd::it::DropSlotIfExists(admin(), replay_slot_, absl::Seconds(20)));
    }
    ConsumerTest::TearDown();
  }

  // Starts outboxd on `slot` with the envelope format and waits until the slot streams.
  absl::StatusOr<OutboxdProcess*> StartEnvelopeOutboxd(const std::string& slot) {
    outboxd::it::OutboxdConfig config = this->config();
    config.slot = slot;
    config.format = "envelope-protobuf";
    const std::string base =
        absl::StrCat(env().log_dir, "/", UniqueName("outboxd"), "-", outboxd_.size() + 1);
    if (absl::Status written = outboxd::it::WriteConfig(config, base + ".toml"); !written.ok()) {
      return written;
    }
    absl::StatusOr<std::unique_ptr<OutboxdProcess>> process =
        OutboxdProcess::Start(env().outboxd_binary, base + ".toml", base + ".log");
    if (!process.ok()) return process.status();
    outboxd_.push_back(std::move(*process));
    const absl::Status ready =
        outboxd::it::WaitForSlotStreaming(pg(), slot, publication(), absl::Seconds(30));
    if (!ready.ok()) {
      return absl::Status(ready.code(), absl::StrCat(ready.message(), "; outboxd's log:\n",
                                                     ReadFile(base + ".log")));
    }
    return outboxd_.back().get();
  }

  // Waits until `slot` confirmed everything committed so far (Kafka acknowledged it all).
  absl::Status WaitSlotPassedWalEnd(const std::string& slot) {
    absl::StatusOr<int64_t> end = outboxd::it::CurrentWalPosition(pg());
    if (!end.ok()) return end.status();
    return outboxd::it::WaitUntilOk(
        [&]() -> absl::StatusOr<bool> {
          absl::StatusOr<std::optional<int64_t>> c = outboxd::it::SlotConfirmedPosition(pg(), slot);
          if (!c.ok()) return c.status();
          return c->has_value() && **c >= *end;
        },
        absl::Seconds(90), absl::StrCat("slot ", slot, " confirming the WAL end"));
  }

  std::string replay_slot_;
  std::vector<std::unique_ptr<OutboxdProcess>> outboxd_;
};

TEST_F(RelayedConsumerTest, OutboxdEnvelopesAreAppliedOnceThroughReplays) {
  constexpr int kRows = 500;
  IT_ASSERT_OK_AND_ASSIGN(OutboxdProcess * first, StartEnvelopeOutboxd(slot()));
  // A second slot, consistent before any row: a later outboxd on it publishes them all again.
  replay_slot_ = absl::StrCat(slot(), "_replay");
  IT_ASSERT_OK(admin().Exec(
      absl::StrCat("SELECT pg_create_logical_replication_slot('", replay_slot_, "', 'pgoutput')")));

  std::vector<TestEvent> events;
  for (int tx = 0; tx < kRows / 10; ++tx) {
    std::vector<outboxd::it::OutboxRow> rows;
    std::vector<int64_t> amounts;
    for (int i = 0; i < 10; ++i) {
      const int n = tx * 10 + i;
      amounts.push_back(1 + (n * 7) % 13);
      rows.push_back({"Ledger", absl::StrCat("acct-", n % 8), "MoneyDeposited",
                      absl::StrCat("{\"amount\": ", amounts.back(), "}")});
    }
    IT_ASSERT_OK(pg().Exec("BEGIN"));
    IT_ASSERT_OK_AND_ASSIGN(std::vector<outboxd::it::ExpectedEvent> written,
                            outboxd::it::InsertOutboxRows(pg(), table(), topic_prefix(), rows));
    IT_ASSERT_OK(pg().Exec("COMMIT"));
    for (size_t i = 0; i < written.size(); ++i) {
      events.push_back({written[i].id, "Ledger", written[i].key, amounts[i]});
    }
  }

  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * consumer1, StartConsumer());
  ASSERT_TRUE(outboxd::it::WaitUntil([&] { return InboxCount() >= 150; }, absl::Seconds(90)))
      << ReadFile(consumer1->log_path());
  consumer1->Kill();
  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * consumer2, StartConsumer());

  IT_ASSERT_OK(WaitSlotPassedWalEnd(slot()));
  IT_ASSERT_OK_AND_ASSIGN(const outboxd::it::ExitStatus stopped, first->Stop(absl::Seconds(30)));
  EXPECT_TRUE(stopped.ExitedZero()) << stopped.ToString();
  IT_ASSERT_OK(StartEnvelopeOutboxd(replay_slot_).status());
  IT_ASSERT_OK(WaitSlotPassedWalEnd(replay_slot_));

  // outboxd's own records: every one an envelope of a written event, each event at least twice.
  IT_ASSERT_OK_AND_ASSIGN(std::vector<outboxd::it::KafkaRecord> records,
                          outboxd::it::ConsumeFromBeginning(
                              env().kafka_bootstrap, {{topic_}, 2 * kRows, absl::Seconds(60)}));
  ASSERT_GE(records.size(), 2u * kRows);
  std::map<std::string, int> deliveries;
  for (const outboxd::it::KafkaRecord& r : records) {
    outboxd::v1::Event event;
    ASSERT_TRUE(r.value.has_value() && event.ParseFromString(*r.value));
    ++deliveries[event.id()];
  }
  ASSERT_EQ(deliveries.size(), static_cast<size_t>(kRows));

  IT_ASSERT_OK(WaitCaughtUp(absl::Seconds(90)));
  IT_ASSERT_OK_AND_ASSIGN(const int code2, consumer2->Stop(absl::Seconds(30)));
  EXPECT_EQ(code2, 0) << ReadFile(consumer2->log_path());
  const auto [applied2, duplicates2] = StopSummary(ReadFile(consumer2->log_path()));
  EXPECT_GE(duplicates2, kRows) << "the replayed slot's records reach the consumer";
  ExpectAppliedOnce(events);

  IT_ASSERT_OK(DeleteGroup(env().kafka_bootstrap, group_));
  IT_ASSERT_OK_AND_ASSIGN(ChildProcess * consumer3, StartConsumer());
  IT_ASSERT_OK(WaitCaughtUp(absl::Seconds(90)));
  IT_ASSERT_OK_AND_ASSIGN(const int code3, consumer3->Stop(absl::Seconds(30)));
  EXPECT_EQ(code3, 0);
  EXPECT_EQ(StopSummary(ReadFile(consumer3->log_path())),
            std::make_pair(int64_t{0}, static_cast<int64_t>(records.size())));
  ExpectAppliedOnce(events);
  std::cout << "[consumer] outboxd published " << records.size() << " records of " << kRows
            << " events; second consumer " << applied2 << " applied, " << duplicates2
            << " duplicates\n";
}

}  // namespace
}  // namespace consumer_test
