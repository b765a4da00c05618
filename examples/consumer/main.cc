// outboxd-example-consumer: the idempotent-consumer side of the outbox pattern (README.md).
// Each record is decoded as an outboxd.v1.Event, applied in one Postgres transaction that
// deduplicates by event id (inbox.cc), and only then is its offset committed (offsets.cc).

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "inbox.h"
#include "offsets.h"
#include "options.h"
#include "outboxd/v1/event.pb.h"

namespace consumer {
namespace {

enum ExitCode { kExitOk = 0, kExitKafka = 1, kExitUsage = 2, kExitBadRecord = 3 };

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

struct ConsumerDeleter {
  void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
};
using Consumer = std::unique_ptr<rd_kafka_t, ConsumerDeleter>;

struct Counters {
  long applied = 0;
  long duplicates = 0;
};

// Runs inside rd_kafka_consumer_poll on the loop thread. Before partitions go to another
// member, commit what was applied so far, so that member replays as little as possible.
void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                 rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    rd_kafka_assign(rk, partitions);
    return;
  }
  static_cast<PendingOffsets*>(opaque)->Commit(rk);
  rd_kafka_assign(rk, nullptr);
}

// A consumer subscribed to options.topics with manual commits; nullptr and `error` on bad
// configuration. `pending` must outlive it (the rebalance callback commits it).
Consumer NewConsumer(const Options& options, PendingOffsets& pending, std::string& error) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  const auto set = [&](const std::string& key, const std::string& value) {
    if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), errstr, sizeof errstr) ==
        RD_KAFKA_CONF_OK) {
      return true;
    }
    error = "Kafka property " + key + "=" + value + ": " + errstr;
    return false;
  };
  // Offsets move only when we say so (PendingOffsets::Commit), after the database commit;
  // a group seen for the first time starts at the oldest record.
  bool ok = set("bootstrap.servers", options.brokers) && set("group.id", options.group) &&
            set("enable.auto.commit", "false") && set("enable.auto.offset.store", "false") &&
            set("auto.offset.reset", "earliest");
  for (const auto& [key, value] : options.kafka_properties) ok = ok && set(key, value);
  if (!ok) {
    rd_kafka_conf_destroy(conf);
    return nullptr;
  }
  rd_kafka_conf_set_rebalance_cb(conf, OnRebalance);
  rd_kafka_conf_set_opaque(conf, &pending);
  Consumer rk(rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr));
  if (rk == nullptr) {  // rd_kafka_new frees conf only on success
    rd_kafka_conf_destroy(conf);
    error = std::string("cannot create the Kafka consumer: ") + errstr;
    return nullptr;
  }
  rd_kafka_poll_set_consumer(rk.get());
  rd_kafka_topic_partition_list_t* topics =
      rd_kafka_topic_partition_list_new(static_cast<int>(options.topics.size()));
  for (const std::string& t : options.topics) {
    rd_kafka_topic_partition_list_add(topics, t.c_str(), RD_KAFKA_PARTITION_UA);
  }
  const rd_kafka_resp_err_t err = rd_kafka_subscribe(rk.get(), topics);
  rd_kafka_topic_partition_list_destroy(topics);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    error = std::string("cannot subscribe to --topic: ") + rd_kafka_err2str(err);
    return nullptr;
  }
  return rk;
}

// Decodes and applies one record, retrying transient database failures with backoff until
// they pass or a signal arrives. True when the record is applied or a duplicate; false (after
// logging why) when it must not be skipped and cannot be applied, or when stopping mid-retry.
bool HandleRecord(const rd_kafka_message_t& msg, Inbox& inbox, Counters& counters) {
  const char* topic = rd_kafka_topic_name(msg.rkt);
  outboxd::v1::Event event;
  if (msg.payload == nullptr || !event.ParseFromArray(msg.payload, static_cast<int>(msg.len)) ||
      event.id().empty()) {
    std::fprintf(stderr,
                 "consumer: ERROR record %s/%d@%lld is not an outboxd.v1.Event with an id "
                 "(is outboxd's [outbox] format \"envelope-protobuf\"?); stopping without "
                 "committing its offset, so it is read again after the fix\n",
                 topic, msg.partition, static_cast<long long>(msg.offset));
    return false;
  }
  const RecordPosition from{topic, msg.partition, msg.offset};
  auto backoff = std::chrono::milliseconds(100);
  while (true) {
    const ApplyOutcome outcome = inbox.Apply(event, from);
    switch (outcome.result) {
      case ApplyResult::kApplied:
        ++counters.applied;
        return true;
      case ApplyResult::kDuplicate:
        ++counters.duplicates;
        return true;
      case ApplyResult::kPermanent:
        std::fprintf(stderr,
                     "consumer: ERROR event %s (record %s/%d@%lld) cannot be applied: %s; "
                     "stopping without committing its offset\n",
                     event.id().c_str(), topic, msg.partition, static_cast<long long>(msg.offset),
                     outcome.error.c_str());
        return false;
      case ApplyResult::kRetry:
        std::fprintf(stderr, "consumer: WARN event %s: %s; retrying in %lld ms\n",
                     event.id().c_str(), outcome.error.c_str(),
                     static_cast<long long>(backoff.count()));
        break;
    }
    for (auto slept = std::chrono::milliseconds(0); slept < backoff && !g_stop;
         slept += std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (g_stop) return false;  // Not applied: the record is read again after the restart.
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
  }
}

// The poll loop: until a signal, a fatal Kafka error or a record that cannot be applied.
int Run(const Options& options) {
  std::string error;
  std::unique_ptr<Inbox> inbox = Inbox::Connect(options.postgres, error);
  if (inbox == nullptr) {
    std::fprintf(stderr, "consumer: ERROR %s\n", error.c_str());
    return kExitUsage;
  }
  PendingOffsets pending;
  Consumer rk = NewConsumer(options, pending, error);
  if (rk == nullptr) {
    std::fprintf(stderr, "consumer: ERROR %s\n", error.c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "consumer: INFO consuming as group %s\n", options.group.c_str());
  Counters counters;
  int code = kExitOk;
  auto last_commit = std::chrono::steady_clock::now();
  while (!g_stop && code == kExitOk) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk.get(), 100);
    if (msg != nullptr) {
      if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (!HandleRecord(*msg, *inbox, counters))
          code = g_stop ? kExitOk : kExitBadRecord;
        else
          pending.Add(rd_kafka_topic_name(msg->rkt), msg->partition, msg->offset);
      } else if (msg->err == RD_KAFKA_RESP_ERR__FATAL) {
        char reason[512];
        rd_kafka_fatal_error(rk.get(), reason, sizeof reason);
        std::fprintf(stderr, "consumer: ERROR fatal Kafka error: %s\n", reason);
        code = kExitKafka;
      } else {  // e.g. a subscribed topic that does not exist yet: librdkafka retries
        std::fprintf(stderr, "consumer: WARN %s\n", rd_kafka_message_errstr(msg));
      }
      rd_kafka_message_destroy(msg);
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_commit >= std::chrono::milliseconds(options.commit_interval_ms)) {
      pending.Commit(rk.get());
      last_commit = now;
    }
  }
  pending.Commit(rk.get());  // What was applied, never the record that stopped us.
  rd_kafka_consumer_close(rk.get());
  std::fprintf(stderr, "consumer: INFO stopped: %ld applied, %ld duplicates skipped\n",
               counters.applied, counters.duplicates);
  return code;
}

}  // namespace
}  // namespace consumer

int main(int argc, char** argv) {
  std::string error;
  const std::optional<consumer::Options> options = consumer::ParseOptions(argc, argv, error);
  if (!options.has_value()) {
    std::fprintf(stderr, "outboxd-example-consumer: %s\n%s", error.c_str(), consumer::kUsage);
    return consumer::kExitUsage;
  }
  if (options->help) {
    std::fputs(consumer::kUsage, stdout);
    return consumer::kExitOk;
  }
  std::signal(SIGTERM, consumer::OnSignal);
  std::signal(SIGINT, consumer::OnSignal);
  return consumer::Run(*options);
}
