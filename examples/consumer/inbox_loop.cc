#include "inbox_loop.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>

#include "offsets.h"
#include "outboxd/v1/event.pb.h"

namespace consumer {
namespace {

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

// A consumer subscribed to settings.topics with manual commits; nullptr and `error` on bad
// configuration. `pending` must outlive it (the rebalance callback commits it).
Consumer NewConsumer(const LoopSettings& settings, PendingOffsets& pending, std::string& error) {
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
  bool ok = set("bootstrap.servers", settings.brokers) && set("group.id", settings.group) &&
            set("enable.auto.commit", "false") && set("enable.auto.offset.store", "false") &&
            set("auto.offset.reset", "earliest");
  for (const auto& [key, value] : settings.kafka_properties) ok = ok && set(key, value);
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
      rd_kafka_topic_partition_list_new(static_cast<int>(settings.topics.size()));
  for (const std::string& t : settings.topics) {
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
// they pass or `stop` is set. True when the record is applied or a duplicate; false (after
// logging why) when it must not be skipped and cannot be applied, or when stopping mid-retry.
bool HandleRecord(const char* name, const rd_kafka_message_t& msg, Inbox& inbox,
                  const BusinessWrite& write, const volatile std::sig_atomic_t& stop,
                  Counters& counters) {
  const char* topic = rd_kafka_topic_name(msg.rkt);
  outboxd::v1::Event event;
  if (msg.payload == nullptr || !event.ParseFromArray(msg.payload, static_cast<int>(msg.len)) ||
      event.id().empty()) {
    std::fprintf(stderr,
                 "%s: ERROR record %s/%d@%lld is not an outboxd.v1.Event with an id "
                 "(is outboxd's [outbox] format \"envelope-protobuf\"?); stopping without "
                 "committing its offset, so it is read again after the fix\n",
                 name, topic, msg.partition, static_cast<long long>(msg.offset));
    return false;
  }
  const RecordPosition from{topic, msg.partition, msg.offset};
  auto backoff = std::chrono::milliseconds(100);
  while (true) {
    const ApplyOutcome outcome = inbox.Apply(event, from, write);
    switch (outcome.result) {
      case ApplyResult::kApplied:
        ++counters.applied;
        return true;
      case ApplyResult::kDuplicate:
        ++counters.duplicates;
        return true;
      case ApplyResult::kPermanent:
        std::fprintf(stderr,
                     "%s: ERROR event %s (record %s/%d@%lld) cannot be applied: %s; "
                     "stopping without committing its offset\n",
                     name, event.id().c_str(), topic, msg.partition,
                     static_cast<long long>(msg.offset), outcome.error.c_str());
        return false;
      case ApplyResult::kRetry:
        std::fprintf(stderr, "%s: WARN event %s: %s; retrying in %lld ms\n", name,
                     event.id().c_str(), outcome.error.c_str(),
                     static_cast<long long>(backoff.count()));
        break;
    }
    for (auto slept = std::chrono::milliseconds(0); slept < backoff && stop == 0;
         slept += std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (stop != 0) return false;  // Not applied: the record is read again after the restart.
    backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
  }
}

}  // namespace

int RunInboxLoop(const LoopSettings& settings, Inbox& inbox, const BusinessWrite& write,
                 const volatile std::sig_atomic_t& stop,
                 const std::function<void()>& between_polls) {
  const char* name = settings.name.c_str();
  std::string error;
  PendingOffsets pending;
  Consumer rk = NewConsumer(settings, pending, error);
  if (rk == nullptr) {
    std::fprintf(stderr, "%s: ERROR %s\n", name, error.c_str());
    return kExitUsage;
  }
  std::fprintf(stderr, "%s: INFO consuming as group %s\n", name, settings.group.c_str());
  Counters counters;
  int code = kExitOk;
  auto last_commit = std::chrono::steady_clock::now();
  while (stop == 0 && code == kExitOk) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(rk.get(), 100);
    if (msg != nullptr) {
      if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (!HandleRecord(name, *msg, inbox, write, stop, counters))
          code = stop != 0 ? kExitOk : kExitBadRecord;
        else
          pending.Add(rd_kafka_topic_name(msg->rkt), msg->partition, msg->offset);
      } else if (msg->err == RD_KAFKA_RESP_ERR__FATAL) {
        char reason[512];
        rd_kafka_fatal_error(rk.get(), reason, sizeof reason);
        std::fprintf(stderr, "%s: ERROR fatal Kafka error: %s\n", name, reason);
        code = kExitKafka;
      } else {  // e.g. a subscribed topic that does not exist yet: librdkafka retries
        std::fprintf(stderr, "%s: WARN %s\n", name, rd_kafka_message_errstr(msg));
      }
      rd_kafka_message_destroy(msg);
    }
    if (between_polls && code == kExitOk) between_polls();
    const auto now = std::chrono::steady_clock::now();
    if (now - last_commit >= std::chrono::milliseconds(settings.commit_interval_ms)) {
      pending.Commit(rk.get());
      last_commit = now;
    }
  }
  pending.Commit(rk.get());  // What was applied, never the record that stopped us.
  rd_kafka_consumer_close(rk.get());
  std::fprintf(stderr, "%s: INFO stopped: %ld applied, %ld duplicates skipped\n", name,
               counters.applied, counters.duplicates);
  return code;
}

}  // namespace consumer
