// The relay (supervisor, loop, one slot stream, publisher) end to end over fakes
// (tests/unit/relay/fakes.h): what it confirms to Postgres, what it hands to Kafka, and how it
// stops, all on a fake clock.

#include <algorithm>
#include <map>
#include <utility>

#include "fakes.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "metrics/health.h"
#include "metrics/health_join.h"
#include "metrics/metrics.h"
#include "relay/context.h"
#include "relay/publisher.h"
#include "relay/supervisor.h"
#include "support/pgoutput_encoder.h"

namespace outboxd::relay {
namespace {

using namespace outboxd::relay::testing;
using ::testing::HasSubstr;

constexpr RelationId kOutbox{16384};
constexpr uint32_t kText = 25;
constexpr uint32_t kJsonb = 3802;
const std::string kTopic = "outbox.event.Order";

config::Config TestConfig() {
  config::Config config;
  config.postgres.conninfo = "unused";
  config.postgres.tables = {{"public", "outbox"}};
  config.postgres.status_interval_ms = 1000;
  config.relay.shutdown_timeout_ms = 5000;
  config.kafka = {{"bootstrap.servers", "unused"}};
  return config;
}

std::string RelationMessage() {
  return outboxd::testing::EncodeRelation(kOutbox, "public", "outbox", 'd',
                                          {{0, "id", kText, -1},
                                           {0, "aggregatetype", kText, -1},
                                           {0, "aggregateid", kText, -1},
                                           {0, "type", kText, -1},
                                           {0, "payload", kJsonb, -1}});
}

std::string InsertMessage(std::optional<std::string> aggregate_id) {
  return outboxd::testing::EncodeInsert(
      kOutbox, outboxd::testing::EncodeTupleData(std::vector<std::optional<std::string>>{
                   "e1", "Order", std::move(aggregate_id), "Created", "{\"n\":1}"}));
}

class RelayRunTest : public ::testing::Test {
 protected:
  RelayRunTest() {
    context_.connectors.replication =
        [this]() -> absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>> {
      ++channel_log_.opened;
      if (heal_on_reopen_ && channel_log_.opened > 1) channel_log_.fail_sends_after = -1;
      if (replay_on_reopen_ && channel_log_.opened > 1) frames_ = *replay_on_reopen_;
      auto channel = std::make_unique<FakeChannel>(frames_, channel_log_);
      channel_ = channel.get();
      return std::unique_ptr<pg::ReplicationChannel>(std::move(channel));
    };
    context_.connectors.producer =
        [this](kafka::DeliveryHandler& handler,
               int slot_index) -> absl::StatusOr<std::unique_ptr<kafka::Producer>> {
      ++producers_created_;
      TransactionLog& transactions =
          slot_index == 0 ? transactions_ : other_slots_transactions_[slot_index];
      return std::unique_ptr<kafka::Producer>(std::make_unique<FakeProducer>(
          handler, clock_, topics_, produced_, acks_enabled_,
          config_.relay.delivery == config::Delivery::kExactlyOnce ? &transactions : nullptr));
    };
    context_.connectors.poll = [this](pollfd* fds, nfds_t n, int timeout_ms) {
      // The test's script: once the clock passes stop_at_, the stop fd fires.
      if (clock_.SteadyNow() >= stop_at_ && !stop_fd_readable_) {
        stop_fd_.Set(true);
        stop_fd_readable_ = true;
        // From the stop on, Postgres accepts no more status updates.
        if (fail_after_stop_)
          channel_log_.fail_sends_after = static_cast<int>(channel_log_.status_updates.size());
      }
      return FakePoll(clock_, fds, n, timeout_ms);
    };
  }

  // One transaction of `rows` outbox inserts; its Commit ends at `end`.
  void QueueTransaction(Lsn end, int rows, std::optional<std::string> aggregate_id = "o-1") {
    frames_.push_back(XLogFrame(Lsn(end.value() - 100), end,
                                outboxd::testing::EncodeBegin(end, kCommitTime, Xid{700})));
    frames_.push_back(XLogFrame(Lsn(end.value() - 90), end, RelationMessage()));
    for (int i = 0; i < rows; ++i) {
      frames_.push_back(XLogFrame(Lsn(end.value() - 80 + i), end, InsertMessage(aggregate_id)));
    }
    frames_.push_back(
        XLogFrame(Lsn(end.value() - 10), end,
                  outboxd::testing::EncodeCommit(Lsn(end.value() - 10), end, kCommitTime)));
  }
  void StopAfter(std::chrono::milliseconds d) { stop_at_ = clock_.SteadyNow() + d; }
  absl::Status Run() { return RunRelay(context_); }
  Lsn LastFlush() const {
    return channel_log_.status_updates.empty() ? Lsn()
                                               : FlushOf(channel_log_.status_updates.back());
  }

  static constexpr int64_t kCommitTime = FakeClock::kStartMicros - 2'000'000;  // 2 s ago.

  // The metrics of the one slot's stream ([postgres] slot).
  metrics::SlotMetrics& slot_metrics() { return metrics_.Slot(config_.postgres.slot); }

  config::Config config_ = TestConfig();
  FakeClock clock_;
  metrics::RelayMetrics metrics_;
  metrics::Health health_;
  Signal stop_fd_;
  StopSignal stop_{stop_fd_.fd()};
  RelayContext context_{.config = config_,
                        .clock = clock_,
                        .metrics = metrics_,
                        .health = health_,
                        .stop = stop_,
                        .connectors = {}};
  std::deque<std::string> frames_;
  ChannelLog channel_log_;
  FakeChannel* channel_ = nullptr;
  std::map<std::string, TopicBehaviour> topics_;
  std::vector<ProducedRecord> produced_;
  bool acks_enabled_ = true;
  bool stop_fd_readable_ = false;
  bool fail_after_stop_ = false;
  bool heal_on_reopen_ = false;  // A reopened channel accepts status updates again.
  // What the slot sends again from its confirmed LSN when reopened (nothing was confirmed).
  std::optional<std::deque<std::string>> replay_on_reopen_;
  int producers_created_ = 0;
  TransactionLog transactions_;                             // Slot 0's, or the only producer's.
  std::map<int, TransactionLog> other_slots_transactions_;  // exactly_once: slot i > 0's.
  std::chrono::steady_clock::time_point stop_at_ = std::chrono::steady_clock::time_point::max();
};

TEST_F(RelayRunTest, PublishesRowsAndConfirmsTheirCommit) {
  QueueTransaction(Lsn(0x5000), 3);
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(produced_.size(), 3u);
  EXPECT_EQ(produced_[0].topic, kTopic);
  EXPECT_EQ(produced_[0].key, "o-1");
  EXPECT_EQ(produced_[0].value, "{\"n\":1}");
  EXPECT_EQ(LastFlush(), Lsn(0x5000));
  EXPECT_EQ(metrics_.events_published.With(kTopic).value(), 3u);
  EXPECT_EQ(metrics_.commit_to_ack_seconds.Read().count, 3u);
  EXPECT_EQ(slot_metrics().transactions.value(), 1u);
  EXPECT_EQ(slot_metrics().confirmed_lsn.value(), 0x5000);
}

// Under json_with_schema the key schema's "optional" follows the column's nullability, which
// pgoutput does not carry: the pipeline reads it from the catalog before streaming.
TEST_F(RelayRunTest, JsonSchemaKeyIsOptionalWhenTheCatalogSaysTheColumnIsNullable) {
  config_.outbox.key_converter = config::Converter::kJsonWithSchema;
  int reads = 0;
  context_.connectors.not_null_columns = [&reads]() -> absl::StatusOr<NotNullColumns> {
    ++reads;
    return NotNullColumns{{config::TableName{"public", "outbox"}, {"id", "aggregatetype"}}};
  };
  QueueTransaction(Lsn(0x5000), 1);
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(reads, 1);
  ASSERT_EQ(produced_.size(), 1u);
  EXPECT_EQ(produced_[0].key, R"({"schema":{"type":"string","optional":true},"payload":"o-1"})");
}

TEST_F(RelayRunTest, JsonSchemaKeyIsRequiredWhenTheColumnIsNotNull) {
  config_.outbox.key_converter = config::Converter::kJsonWithSchema;
  context_.connectors.not_null_columns = []() -> absl::StatusOr<NotNullColumns> {
    return NotNullColumns{
        {config::TableName{"public", "outbox"}, {"id", "aggregatetype", "aggregateid"}}};
  };
  QueueTransaction(Lsn(0x5000), 1);
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(produced_.size(), 1u);
  EXPECT_EQ(produced_[0].key, R"({"schema":{"type":"string","optional":false},"payload":"o-1"})");
}

// The clock field of a standby status update: when it was sent, in Postgres µs.
int64_t SentAtOf(const std::string& status_update) {
  // 'r', written, flushed, applied (8 bytes each), then the clock.
  uint64_t clock = 0;
  for (size_t i = 25; i < 33; ++i) clock = (clock << 8) | static_cast<uint8_t>(status_update[i]);
  return static_cast<int64_t>(clock);
}

TEST_F(RelayRunTest, ConfirmsAsSoonAsKafkaAcknowledgesNotAtTheNextHeartbeat) {
  // A kill -9 replays everything unconfirmed, and a drain ends only when its last commit is
  // confirmed: waiting for the 1 s heartbeat cost both a second.
  QueueTransaction(Lsn(0x5000), 3);
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  const auto first =
      std::find_if(channel_log_.status_updates.begin(), channel_log_.status_updates.end(),
                   [](const std::string& update) { return FlushOf(update) == Lsn(0x5000); });
  ASSERT_NE(first, channel_log_.status_updates.end());
  const int64_t delay_us = SentAtOf(*first) - FakeClock::kStartMicros;
  EXPECT_LE(delay_us, 2 * 50'000) << "confirmed " << delay_us << " µs after the start";
  // Every stage saw the rows: one transaction received, three records produced and acked.
  EXPECT_EQ(metrics_.stages.received.Read().count, 1u);
  EXPECT_EQ(metrics_.stages.produced.Read().count, 3u);
  EXPECT_EQ(metrics_.stages.acked.Read().count, 3u);
  EXPECT_GE(metrics_.stages.confirmed.Read().count, 1u);
}

TEST_F(RelayRunTest, NeverConfirmsWhatKafkaHasNotAcknowledged) {
  acks_enabled_ = false;
  QueueTransaction(Lsn(0x5000), 2);
  config_.relay.shutdown_timeout_ms = 100;
  StopAfter(std::chrono::seconds(5));
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(produced_.size(), 2u);
  ASSERT_GE(channel_log_.status_updates.size(), 5u);  // One a second, and the final one.
  for (const auto& update : channel_log_.status_updates) EXPECT_LT(FlushOf(update), Lsn(0x5000));
  EXPECT_GT(slot_metrics().replication_lag_seconds.value(), 2.0);
  EXPECT_EQ(slot_metrics().replication_lag_bytes.value(), 0x5000);
}

TEST_F(RelayRunTest, ReadsWhatLibpqBufferedWithoutWaitingForTheSocket) {
  // One recv() can bring in more messages than a read round takes; the rest sit in libpq's
  // buffer and poll() sees a quiet socket. Waiting then stalled a drain until the next
  // status update (1 s here) although the messages were already in memory.
  acks_enabled_ = false;  // No delivery reports to wake the loop either.
  channel_log_.quiet_after_first_read = true;
  QueueTransaction(Lsn(0x100000), 3000);
  config_.relay.shutdown_timeout_ms = 100;
  StopAfter(std::chrono::milliseconds(500));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(produced_.size(), 3000u);
  EXPECT_EQ(slot_metrics().transactions.value(), 1u);
}

TEST_F(RelayRunTest, DoesNotWakeForDeliveryReportsWhileNoConfirmCanGoOut) {
  // Reports are served every round anyway; waking for each one between two confirms cost a
  // context switch per event at low rates. So within kConfirmGap of a status update the loop
  // must not ask poll() for the producer's event fd.
  acks_enabled_ = false;  // The records stay outstanding: acknowledgements are awaited.
  QueueTransaction(Lsn(0x5000), 2);
  config_.relay.shutdown_timeout_ms = 100;
  std::vector<std::pair<int64_t, short>> polls;  // (clock, events asked of the event fd)
  auto poll = context_.connectors.poll;
  context_.connectors.poll = [&](pollfd* fds, nfds_t n, int timeout_ms) {
    if (n == 3) polls.emplace_back(clock_.PostgresNowMicros(), fds[1].events);
    return poll(fds, n, timeout_ms);
  };
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  int within_gap = 0;
  for (const auto& [at, events] : polls) {
    std::optional<int64_t> last_status;  // The newest update sent at or before this poll.
    for (const auto& update : channel_log_.status_updates) {
      if (SentAtOf(update) <= at) last_status = std::max(last_status.value_or(0), SentAtOf(update));
    }
    if (!last_status || at - *last_status >= 50'000) continue;
    ++within_gap;
    EXPECT_EQ(events & POLLIN, 0) << "asked for delivery reports " << at - *last_status
                                  << " µs after a status update";
  }
  EXPECT_GT(within_gap, 0);
}

TEST_F(RelayRunTest, IdleOutboxStillConfirmsTheKeepaliveWalEnd) {
  frames_.push_back(KeepaliveFrame(Lsn(0x9000), false));
  StopAfter(std::chrono::seconds(2));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(LastFlush(), Lsn(0x9000));
}

TEST_F(RelayRunTest, KeepsConfirmingWhileDrainingOnStop) {
  // Kafka answers nothing during a 5 s drain: without status updates meanwhile, a
  // wal_sender_timeout shorter than shutdown_timeout_ms would end the connection.
  acks_enabled_ = false;
  QueueTransaction(Lsn(0x5000), 1);
  StopAfter(std::chrono::milliseconds(100));
  ASSERT_TRUE(Run().ok());
  EXPECT_GE(channel_log_.status_updates.size(), 5u);
}

TEST_F(RelayRunTest, StopInsideATransactionReadsOnToItsCommitSoARestartRepeatsNothing) {
  // A SIGTERM between two rows of one transaction: the first is already in Kafka, but only a
  // whole transaction can be confirmed. Stopping there made the restart publish it again.
  QueueTransaction(Lsn(0x5000), 2);
  std::deque<std::string> after_stop(frames_.end() - 2, frames_.end());  // Row 2, Commit.
  frames_.erase(frames_.end() - 2, frames_.end());
  auto poll = context_.connectors.poll;
  context_.connectors.poll = [&](pollfd* fds, nfds_t n, int timeout_ms) {
    const int ready = poll(fds, n, timeout_ms);
    if (stop_fd_readable_ && !after_stop.empty() && channel_ != nullptr) {
      frames_.insert(frames_.end(), after_stop.begin(), after_stop.end());
      after_stop.clear();
      channel_->Refresh();
    }
    return ready;
  };
  StopAfter(std::chrono::milliseconds(100));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(produced_.size(), 2u);
  EXPECT_EQ(LastFlush(), Lsn(0x5000));
  EXPECT_EQ(slot_metrics().transactions.value(), 1u);
}

TEST_F(RelayRunTest, AStopInsideATransactionThatNeverEndsStillStopsInTime) {
  QueueTransaction(Lsn(0x5000), 2);
  frames_.pop_back();  // The Commit never arrives.
  config_.relay.shutdown_timeout_ms = 300;
  StopAfter(std::chrono::milliseconds(100));
  const auto started = clock_.SteadyNow();
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(produced_.size(), 2u);
  EXPECT_LT(LastFlush(), Lsn(0x5000));
  EXPECT_LE(clock_.SteadyNow() - started, std::chrono::milliseconds(100 + 300 + 1000));
}

TEST_F(RelayRunTest, StopEndsTheRunEvenWhenTheFinalConfirmationFails) {
  QueueTransaction(Lsn(0x5000), 1);
  fail_after_stop_ = true;
  StopAfter(std::chrono::milliseconds(500));
  const absl::Status status = Run();
  EXPECT_TRUE(absl::IsUnavailable(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("stopping without confirming"));
  EXPECT_EQ(channel_log_.opened, 1);  // Not restarted.
}

TEST_F(RelayRunTest, UnmappableRowGoesToTheDeadLetterTopicAndTheStreamMovesOn) {
  QueueTransaction(Lsn(0x5000), 1, std::nullopt);  // NULL aggregate id.
  QueueTransaction(Lsn(0x6000), 1);
  StopAfter(std::chrono::seconds(2));
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(produced_.size(), 2u);
  EXPECT_EQ(produced_[0].topic, config_.outbox.dead_letter_topic);
  EXPECT_EQ(produced_[1].topic, kTopic);
  EXPECT_EQ(LastFlush(), Lsn(0x6000));
  EXPECT_EQ(metrics_.dead_lettered.With(kUnmappable).value(), 1u);
}

TEST_F(RelayRunTest, DeadLetterTopicRefusingRecordsEndsTheRunInsteadOfRestarting) {
  topics_[config_.outbox.dead_letter_topic].refuse_at_produce = true;
  QueueTransaction(Lsn(0x5000), 1, std::nullopt);
  const absl::Status status = Run();
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("refuses even a record without value"));
  EXPECT_EQ(channel_log_.opened, 1);
  EXPECT_LT(LastFlush(), Lsn(0x5000));
}

TEST_F(RelayRunTest, AuthorizationFailureStopsWithoutDeadLettering) {
  topics_[kTopic].fail_delivery = kafka::ErrorVerdict::kOperatorError;
  QueueTransaction(Lsn(0x5000), 1);
  const absl::Status status = Run();
  EXPECT_TRUE(absl::IsPermissionDenied(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("fix the fake"));
  ASSERT_EQ(produced_.size(), 1u);  // Nothing went to the dead-letter topic.
  EXPECT_EQ(metrics_.delivery_errors.With("FAKE_ERROR").value(), 1u);
  EXPECT_EQ(channel_log_.opened, 1);
}

TEST_F(RelayRunTest, RetriableDeliveryFailureReplaysFromTheConfirmedPosition) {
  topics_[kTopic].fail_delivery = kafka::ErrorVerdict::kReplay;
  QueueTransaction(Lsn(0x5000), 1);
  StopAfter(std::chrono::seconds(3));  // Past the first restart's 0.5 s backoff.
  ASSERT_TRUE(Run().ok());
  EXPECT_GE(channel_log_.opened, 2);
  EXPECT_EQ(slot_metrics().restarts.With("kafka").value(),
            static_cast<uint64_t>(channel_log_.opened - 1));
  for (const auto& r : produced_) EXPECT_EQ(r.topic, kTopic);  // Never dead-lettered.
  EXPECT_LT(LastFlush(), Lsn(0x5000));
  // A producer failure rebuilds the producer with the streams.
  EXPECT_EQ(producers_created_, channel_log_.opened);
}

TEST_F(RelayRunTest, APostgresFailureRestartsTheStreamButKeepsTheProducer) {
  QueueTransaction(Lsn(0x5000), 2);
  channel_log_.fail_sends_after = 1;  // The confirm after the first heartbeat: connection lost.
  heal_on_reopen_ = true;
  StopAfter(std::chrono::seconds(3));  // Past the stream's 0.5 s backoff.
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(channel_log_.opened, 2);
  EXPECT_EQ(producers_created_, 1);
  EXPECT_EQ(slot_metrics().restarts.With("postgres").value(), 1u);
  EXPECT_EQ(slot_metrics().restarts.With("kafka").value(), 0u);
  EXPECT_EQ(metrics_.reconnects.With("postgres").value(), 1u);
  EXPECT_EQ(produced_.size(), 2u);
}

// parallel_slots: streams on one producer, each with its own channel; a Postgres failure of
// one restarts that one alone, and readiness joins the slots (metrics::HealthJoin).
TEST_F(RelayRunTest, APostgresFailureOfOneParallelSlotRestartsOnlyThatSlot) {
  config_.postgres.parallel_slots = 2;
  QueueTransaction(Lsn(0x5000), 2);  // Slot 0's frames.
  std::deque<std::string> frames_1 = frames_;
  frames_.clear();
  QueueTransaction(Lsn(0x6000), 3);  // Slot 0 gets these; slot 1 the copy above.
  ChannelLog log_1;
  log_1.fail_sends_after = 1;  // Slot 1 loses its connection after the first heartbeat.
  metrics::HealthJoin join(health_, {"s_0", "s_1"});
  context_.parallel_slots = {
      {.slot = "s_0",
       .replication = context_.connectors.replication,
       .positions = nullptr,
       .health = &join.part(0)},
      {.slot = "s_1",
       .replication = [&]() -> absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>> {
         ++log_1.opened;
         if (log_1.opened > 1) log_1.fail_sends_after = -1;
         return std::unique_ptr<pg::ReplicationChannel>(
             std::make_unique<FakeChannel>(frames_1, log_1));
       },
       .positions = nullptr,
       .health = &join.part(1)}};
  bool ready_with_both = false;
  auto poll = context_.connectors.poll;
  context_.connectors.poll = [&](pollfd* fds, nfds_t n, int timeout_ms) {
    const metrics::Health::Snapshot h = health_.Read();
    if (h.streaming.ok) {
      ready_with_both = h.streaming.reason == "streaming slots s_0, s_1";
    }
    return poll(fds, n, timeout_ms);
  };
  StopAfter(std::chrono::seconds(3));  // Past slot 1's 0.5 s backoff.
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(channel_log_.opened, 1);  // Slot 0 streamed on.
  EXPECT_EQ(log_1.opened, 2);
  EXPECT_EQ(producers_created_, 1);
  EXPECT_EQ(metrics_.Slot("s_1").restarts.With("postgres").value(), 1u);
  EXPECT_EQ(metrics_.Slot("s_0").restarts.With("postgres").value(), 0u);
  // Each stream reports its own slot's position, not whichever wrote last: slot 1's reopened
  // stream had nothing to confirm.
  EXPECT_EQ(metrics_.Slot("s_0").confirmed_lsn.value(), 0x6000);
  EXPECT_EQ(metrics_.Slot("s_1").confirmed_lsn.value(), 0);
  EXPECT_EQ(metrics_.Slot("s_0").transactions.value(), 1u);
  EXPECT_EQ(produced_.size(), 3u + 2u);
  EXPECT_EQ(LastFlush(), Lsn(0x6000));
  EXPECT_TRUE(ready_with_both);
}

// Resharding's run to a cut (RelayContext::stop_at): what commits before the cut is
// published and confirmed, the first transaction at or after it is not, and the run ends on
// its own, without a stop request.
TEST_F(RelayRunTest, ARunToACutPublishesWhatCommitsBeforeItAndEnds) {
  QueueTransaction(Lsn(0x1000), 2);
  QueueTransaction(Lsn(0x2000), 3);
  context_.stop_at = Lsn(0x1800);
  StopAfter(std::chrono::seconds(30));  // A safety net the run must not need.
  ASSERT_TRUE(Run().ok());
  EXPECT_FALSE(stop_.requested());
  EXPECT_EQ(produced_.size(), 2u);
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
}

// A slot with nothing of its own past the cut reaches it by a keepalive: the walsender sent
// everything before the keepalive's WAL end.
TEST_F(RelayRunTest, ARunToACutEndsAtAKeepalivePastIt) {
  QueueTransaction(Lsn(0x1000), 2);
  frames_.push_back(KeepaliveFrame(Lsn(0x9000), false));
  context_.stop_at = Lsn(0x5000);
  StopAfter(std::chrono::seconds(30));
  ASSERT_TRUE(Run().ok());
  EXPECT_FALSE(stop_.requested());
  EXPECT_EQ(produced_.size(), 2u);
  EXPECT_GE(LastFlush(), Lsn(0x1000));
}

// delivery = "exactly_once": whole Postgres transactions per Kafka transaction, and the slot
// confirms only what a commit covered.
class ExactlyOnceRunTest : public RelayRunTest {
 protected:
  ExactlyOnceRunTest() {
    config_.relay.delivery = config::Delivery::kExactlyOnce;
    config_.relay.transaction_max_ms = 100;
  }
};

TEST_F(ExactlyOnceRunTest, CommitsWholeTransactionsThenConfirmsThem) {
  QueueTransaction(Lsn(0x1000), 3);
  QueueTransaction(Lsn(0x2000), 2);
  StopAfter(std::chrono::seconds(2));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(transactions_.inits, 1);
  ASSERT_FALSE(transactions_.commits.empty());
  // Every commit falls between Postgres transactions: after 3 or 5 records, never inside.
  for (size_t n : transactions_.commits) EXPECT_TRUE(n == 3 || n == 5) << n;
  EXPECT_EQ(transactions_.commits.back(), 5u);
  EXPECT_EQ(LastFlush(), Lsn(0x2000));
}

TEST_F(ExactlyOnceRunTest, StartedWhileKafkaIsDownItRetriesInShortStepsThenRebuilds) {
  // 30 one-second attempts make one producer's try; the 40th attempt, the rebuilt
  // producer's 10th, finds the coordinator.
  transactions_.init_timeouts = 39;
  QueueTransaction(Lsn(0x1000), 2);
  StopAfter(std::chrono::seconds(60));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(transactions_.inits, 40);
  EXPECT_EQ(producers_created_, 2);
  EXPECT_EQ(slot_metrics().restarts.With("kafka").value(), 1u);
  EXPECT_EQ(produced_.size(), 2u);
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
}

TEST_F(ExactlyOnceRunTest, AStopWhileWaitingForTheCoordinatorEndsTheRunCleanly) {
  // Without the steps a stop waited up to 30 s for init_transactions to give up.
  transactions_.init_timeouts = 1'000;
  QueueTransaction(Lsn(0x1000), 2);
  StopAfter(std::chrono::milliseconds(2'500));
  const auto started = clock_.SteadyNow();
  ASSERT_TRUE(Run().ok());
  EXPECT_LE(clock_.SteadyNow() - started, std::chrono::seconds(4));
  EXPECT_EQ(transactions_.inits, 3);
  EXPECT_EQ(producers_created_, 1);
  EXPECT_TRUE(produced_.empty());
  EXPECT_TRUE(channel_log_.status_updates.empty());
}

// Each parallel slot has a transactional producer of its own: a Kafka transaction never
// mixes slots, so one slot's restart aborts only its own records.
class ExactlyOnceParallelSlotsTest : public ExactlyOnceRunTest {
 protected:
  ExactlyOnceParallelSlotsTest() { config_.postgres.parallel_slots = 2; }
  // Slot 0 streams frames_ through the fixture's channel; slot 1 streams `frames_1`.
  void BindSlots() {
    context_.parallel_slots = {
        {.slot = "s_0", .replication = context_.connectors.replication},
        {.slot = "s_1",
         .replication = [this]() -> absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>> {
           ++log_1.opened;
           if (log_1.opened > 1) log_1.fail_sends_after = -1;  // Heals on reconnecting.
           return std::unique_ptr<pg::ReplicationChannel>(
               std::make_unique<FakeChannel>(frames_1, log_1));
         }}};
  }
  std::deque<std::string> frames_1;
  ChannelLog log_1;
};

TEST_F(ExactlyOnceParallelSlotsTest, EachSlotCommitsItsOwnTransactionsOnItsOwnProducer) {
  QueueTransaction(Lsn(0x2000), 2);
  frames_1 = std::exchange(frames_, {});
  QueueTransaction(Lsn(0x1000), 3);
  BindSlots();
  StopAfter(std::chrono::seconds(2));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(producers_created_, 2);
  const TransactionLog& slot_1 = other_slots_transactions_[1];
  EXPECT_EQ(transactions_.inits, 1);
  EXPECT_EQ(slot_1.inits, 1);
  EXPECT_EQ(transactions_.records, 3u);
  EXPECT_EQ(slot_1.records, 2u);
  EXPECT_FALSE(transactions_.commits.empty());
  EXPECT_FALSE(slot_1.commits.empty());
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
  ASSERT_FALSE(log_1.status_updates.empty());
  EXPECT_EQ(FlushOf(log_1.status_updates.back()), Lsn(0x2000));
}

TEST_F(ExactlyOnceParallelSlotsTest, OneSlotsRestartAbortsOnlyItsOwnTransaction) {
  // Slot 1: a transaction whose Commit never comes before its connection fails.
  frames_.push_back(XLogFrame(Lsn(0x1f00), Lsn(0x2000),
                              outboxd::testing::EncodeBegin(Lsn(0x2000), kCommitTime, Xid{701})));
  frames_.push_back(XLogFrame(Lsn(0x1f10), Lsn(0x2000), RelationMessage()));
  frames_.push_back(XLogFrame(Lsn(0x1f20), Lsn(0x2000), InsertMessage("o-2")));
  frames_1 = std::exchange(frames_, {});
  log_1.fail_sends_after = 1;
  QueueTransaction(Lsn(0x1000), 3);
  BindSlots();
  StopAfter(std::chrono::seconds(3));  // Past slot 1's 0.5 s backoff.
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(producers_created_, 2);  // Neither producer was rebuilt.
  EXPECT_EQ(log_1.opened, 2);
  EXPECT_EQ(other_slots_transactions_[1].aborts, 1);
  EXPECT_EQ(transactions_.aborts, 0);
  EXPECT_EQ(transactions_.records, 3u);
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
}

TEST_F(ExactlyOnceRunTest, NothingIsConfirmedWhileTheCommitFails) {
  transactions_.fail_commits = true;
  QueueTransaction(Lsn(0x1000), 2);
  StopAfter(std::chrono::seconds(3));
  (void)Run();
  // Every record was acknowledged, but no transaction committed: the slot stays before them,
  // and each failed commit rebuilt the producer (whose init aborts the open transaction).
  EXPECT_LT(LastFlush(), Lsn(0x1000));
  EXPECT_GE(producers_created_, 2);
  EXPECT_EQ(transactions_.inits, producers_created_);
  EXPECT_GE(metrics_.kafka_transactions_aborted.With("kafka").value(), 1u);
  EXPECT_EQ(metrics_.kafka_transactions.value(), 0u);
}

TEST_F(ExactlyOnceRunTest, AKafkaTransactionStaysOpenUntilThePostgresCommit) {
  config_.relay.transaction_max_events = 1;  // Due after the first record.
  QueueTransaction(Lsn(0x1000), 4);
  StopAfter(std::chrono::seconds(2));
  ASSERT_TRUE(Run().ok());
  ASSERT_FALSE(transactions_.commits.empty());
  EXPECT_EQ(transactions_.commits.front(), 4u);
  EXPECT_EQ(transactions_.begins, 1);
}

TEST_F(ExactlyOnceRunTest, APostgresFailureAbortsTheOpenTransactionAndKeepsTheProducer) {
  config_.relay.transaction_max_ms = 30000;  // Still open when the connection breaks.
  QueueTransaction(Lsn(0x5000), 2);
  channel_log_.fail_sends_after = 1;
  heal_on_reopen_ = true;
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(transactions_.aborts, 1);
  EXPECT_EQ(metrics_.kafka_transactions_aborted.With("postgres").value(), 1u);
  // Aborting told the coordinator; a new producer's InitTransactions could have fenced an
  // instance that took over meanwhile.
  EXPECT_EQ(producers_created_, 1);
  EXPECT_EQ(transactions_.inits, 1);
  EXPECT_TRUE(transactions_.commits.empty());
  EXPECT_LT(LastFlush(), Lsn(0x5000));
}

TEST_F(ExactlyOnceRunTest, APostgresFailureWaitsForTheRecordsInFlightBeforeAborting) {
  // abort_transaction purges what is queued; a purged batch that already had its sequence
  // numbers made the broker refuse the next transaction (OUT_OF_ORDER_SEQUENCE_NUMBER) and the
  // producer was rebuilt: 6 of 38 walsender terminations in the long chaos run.
  config_.relay.transaction_max_ms = 30000;
  transactions_.acks_wait_for_flush = true;
  QueueTransaction(Lsn(0x5000), 2);
  channel_log_.fail_sends_after = 1;
  heal_on_reopen_ = true;
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(transactions_.aborts, 1);
  EXPECT_EQ(transactions_.purged_at_abort, 0u);
}

TEST_F(ExactlyOnceRunTest, ARecordTheBrokerRejectsIsDeadLetteredByTheReplay) {
  // Invariant 7 under exactly_once: the rejection leaves the Kafka transaction needing an
  // abort, so no dead letter can stand in for the record in it. The transaction is abandoned,
  // and the replay dead-letters the row at once instead of failing the same way forever.
  topics_[kTopic].fail_delivery = kafka::ErrorVerdict::kRecordRejected;
  QueueTransaction(Lsn(0x1000), 1);
  replay_on_reopen_ = frames_;
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
  EXPECT_EQ(producers_created_, 2);
  EXPECT_EQ(metrics_.dead_lettered.With("broker_rejected").value(), 1u);
  ASSERT_EQ(produced_.size(), 2u);  // The rejected record, then its dead letter.
  EXPECT_EQ(produced_[1].topic, "outbox.dlq");
  EXPECT_EQ(transactions_.commits.size(), 1u);
}

TEST_F(ExactlyOnceRunTest, ReadingGoesOnWhileACommitWaitsForItsAcknowledgements) {
  // A commit waits for every record of its transaction; blocking the loop meanwhile stalled the
  // walsender and cost exactly_once a fifth of at_least_once's drain rate (bench/run, 1M rows).
  config_.relay.transaction_max_events = 1;  // Due at the first Postgres commit.
  QueueTransaction(Lsn(0x1000), 2);
  QueueTransaction(Lsn(0x2000), 2);
  acks_enabled_ = false;
  const auto acks_from = clock_.SteadyNow() + std::chrono::seconds(1);
  size_t produced_before_acks = 0;
  bool read_all_before_acks = false;
  size_t commits_before_acks = 1;
  auto poll = context_.connectors.poll;
  context_.connectors.poll = [&, poll](pollfd* fds, nfds_t n, int timeout_ms) {
    if (!acks_enabled_ && clock_.SteadyNow() >= acks_from) {
      produced_before_acks = produced_.size();
      read_all_before_acks = frames_.empty();
      commits_before_acks = transactions_.commits.size();
      acks_enabled_ = true;
    }
    return poll(fds, n, timeout_ms);
  };
  StopAfter(std::chrono::seconds(3));
  ASSERT_TRUE(Run().ok());
  // Until Kafka acknowledged the first transaction: the second read ahead, not produced.
  EXPECT_TRUE(read_all_before_acks);
  EXPECT_EQ(produced_before_acks, 2u);
  EXPECT_EQ(commits_before_acks, 0u);
  // Then both committed, one after the other, and the slot confirmed the second.
  EXPECT_EQ(transactions_.commits, (std::vector<size_t>{2, 4}));
  EXPECT_EQ(producers_created_, 1);
  EXPECT_EQ(LastFlush(), Lsn(0x2000));
}

// A keepalive read while transactions wait, read ahead behind a commit, says the walsender
// sent them, not that Kafka has them: a stop that leaves them unread must not confirm past
// them (the long resharding chaos run lost 420 events so, exactly_once).
TEST_F(ExactlyOnceRunTest, AStopNeverConfirmsPastTransactionsReadAheadButNotHandled) {
  config_.relay.transaction_max_events = 1;  // Due at the first Postgres commit.
  QueueTransaction(Lsn(0x1000), 2);
  QueueTransaction(Lsn(0x2000), 2);
  frames_.push_back(KeepaliveFrame(Lsn(0x9000), false));
  acks_enabled_ = false;
  const auto acks_from = clock_.SteadyNow() + std::chrono::seconds(1);
  bool read_all_before_acks = false;
  auto poll = context_.connectors.poll;
  context_.connectors.poll = [&, poll](pollfd* fds, nfds_t n, int timeout_ms) {
    if (!acks_enabled_ && clock_.SteadyNow() >= acks_from) {
      read_all_before_acks = frames_.empty();
      acks_enabled_ = true;
    }
    return poll(fds, n, timeout_ms);
  };
  // The stop comes with the acknowledgements: the first commit ends in the shutdown, and the
  // second transaction, read ahead, is never handled.
  StopAfter(std::chrono::seconds(1));
  ASSERT_TRUE(Run().ok());
  EXPECT_TRUE(read_all_before_acks);
  ASSERT_FALSE(transactions_.commits.empty());
  EXPECT_EQ(transactions_.commits.back(), 2u);  // Only the first transaction went out.
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
}

TEST_F(ExactlyOnceRunTest, AStopCommitsWhatWasReadToACommit) {
  config_.relay.transaction_max_ms = 30000;  // Never due by time within the run.
  QueueTransaction(Lsn(0x1000), 2);
  StopAfter(std::chrono::milliseconds(500));
  ASSERT_TRUE(Run().ok());
  ASSERT_EQ(transactions_.commits.size(), 1u);
  EXPECT_EQ(LastFlush(), Lsn(0x1000));
}

}  // namespace
}  // namespace outboxd::relay
