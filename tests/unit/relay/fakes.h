#pragma once
// Deterministic stand-ins for the relay's I/O boundaries: a fake clock, a poll() that
// advances it instead of sleeping, a replication channel fed with walsender frames, and a
// producer whose delivery reports the test releases. Each fake keeps a real eventfd readable
// exactly while it has something to deliver, so the loop's poll() sees what it would see.

#include <poll.h>

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/types.h"
#include "kafka/producer.h"
#include "pg/replication_stream.h"

namespace outboxd::relay::testing {

class FakeClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point SteadyNow() const override { return now_; }
  int64_t PostgresNowMicros() const override {
    return kStartMicros +
           std::chrono::duration_cast<std::chrono::microseconds>(now_.time_since_epoch()).count();
  }
  void Advance(std::chrono::milliseconds d) { now_ += d; }

  static constexpr int64_t kStartMicros = 800'000'000'000'000;  // 2025, in Postgres µs.

 private:
  std::chrono::steady_clock::time_point now_{};
};

// A readable-while-pending eventfd.
class Signal {
 public:
  Signal();
  ~Signal();
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;
  int fd() const { return fd_; }
  void Set(bool readable);

 private:
  int fd_;
  bool readable_ = false;
};

// ::poll on the real fds without waiting; when none is ready, the wait passes on `clock`.
int FakePoll(FakeClock& clock, pollfd* fds, nfds_t count, int timeout_ms);

// Walsender frames, as the replication protocol carries them.
std::string XLogFrame(Lsn wal_start, Lsn wal_end, std::string_view pgoutput_message);
std::string KeepaliveFrame(Lsn wal_end, bool reply_requested);
// The flush position of a standby status update ('r').
Lsn FlushOf(const std::string& status_update);

struct ChannelLog {
  std::vector<std::string> status_updates;
  int opened = 0;
  int fail_sends_after = -1;  // Once this many updates were sent, SendStatus fails (-1: never).
  // Like libpq after one recv() took in every frame: the socket stops being readable after the
  // first Read although frames remain buffered.
  bool quiet_after_first_read = false;
};

class FakeChannel final : public pg::ReplicationChannel {
 public:
  FakeChannel(std::deque<std::string>& frames, ChannelLog& log) : frames_(frames), log_(log) {
    readable_.Set(!frames_.empty());
  }
  int socket() const override { return readable_.fd(); }
  absl::StatusOr<std::optional<pg::CopyBuffer>> Read() override;
  absl::Status SendStatus(std::string_view status_message) override;
  bool HasPendingOutput() const override { return false; }
  absl::Status Flush() override { return absl::OkStatus(); }
  // Call after adding frames while the channel is open.
  void Refresh() { readable_.Set(!frames_.empty()); }

 private:
  std::deque<std::string>& frames_;
  ChannelLog& log_;
  Signal readable_;
};

struct ProducedRecord {
  std::string topic;
  std::optional<std::string> key;
  std::optional<std::string> value;
  uint64_t tag;
  std::map<std::string, std::string> headers{};  // Name -> value ("<null>" for a null one).
};

// What the test wants Kafka to answer for records of one topic.
struct TopicBehaviour {
  bool refuse_at_produce = false;                    // Produce() returns InvalidArgument.
  std::optional<kafka::ErrorVerdict> fail_delivery;  // The report fails with this verdict.
};

// What a transactional FakeProducer was asked to do.
struct TransactionLog {
  int inits = 0;
  int init_timeouts = 0;  // InitTransactions times out this many times first (Kafka down).
  int begins = 0;
  std::vector<size_t> commits;  // The number of records produced before each commit.
  int aborts = 0;
  size_t records = 0;         // Produced by this producer (the record log is shared).
  bool fail_commits = false;  // CommitTransaction fails (after delivering everything).
  // Records are acknowledged only inside Flush (a broker slower than the loop).
  bool acks_wait_for_flush = false;
  size_t purged_at_abort = 0;  // Records still unacknowledged when AbortTransaction came.
};

class FakeProducer final : public kafka::Producer {
 public:
  // With `transactions`, a transactional producer that logs its calls there.
  FakeProducer(kafka::DeliveryHandler& handler, FakeClock& clock,
               std::map<std::string, TopicBehaviour>& topics, std::vector<ProducedRecord>& log,
               bool& acks_enabled, TransactionLog* transactions = nullptr)
      : handler_(handler),
        clock_(clock),
        topics_(topics),
        log_(log),
        acks_enabled_(acks_enabled),
        transactions_(transactions) {}
  absl::Status Produce(const kafka::Record& record, uint64_t tag) override;
  int event_fd() const override { return ready_.fd(); }
  void Poll(bool event_fd_readable) override;
  bool Flush(int timeout_ms) override;
  const std::optional<std::string>& fatal_error() const override { return none_; }
  const std::optional<std::string>& operator_error() const override { return none_; }
  bool brokers_down() const override { return false; }
  uint64_t retries() const override { return 0; }
  absl::Status InitTransactions(int timeout_ms) override;
  absl::Status BeginTransaction() override;
  absl::Status CommitTransaction(int timeout_ms) override;
  absl::Status AbortTransaction(int timeout_ms) override;

 private:
  void Report();
  kafka::DeliveryHandler& handler_;
  FakeClock& clock_;
  std::map<std::string, TopicBehaviour>& topics_;
  std::vector<ProducedRecord>& log_;
  bool& acks_enabled_;
  TransactionLog* transactions_;
  std::deque<size_t> unreported_;  // Indexes into log_.
  Signal ready_;
  std::optional<std::string> none_;
  bool transaction_failed_ = false;  // A record of the open transaction failed.
  bool flushing_ = false;
};

}  // namespace outboxd::relay::testing
