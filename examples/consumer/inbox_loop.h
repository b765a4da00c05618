#pragma once
// The consumer's poll loop: each Kafka record decoded as an outboxd.v1.Event, applied through
// the inbox (inbox.h) with the caller's business write, and only then its offset committed
// (offsets.h). Shared by every example that consumes envelopes.

#include <csignal>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "inbox.h"

namespace consumer {

enum ExitCode { kExitOk = 0, kExitKafka = 1, kExitUsage = 2, kExitBadRecord = 3 };

struct LoopSettings {
  std::string name;                 // the log lines' prefix, e.g. "consumer"
  std::string brokers;              // bootstrap servers
  std::string group;                // the consumer group: its committed offsets are the position
  std::vector<std::string> topics;  // "^regex" subscribes by pattern
  std::vector<std::pair<std::string, std::string>> kafka_properties;  // extra librdkafka ones
  int commit_interval_ms = 1000;  // how often applied offsets are committed
};

// Consumes settings.topics and applies each record with inbox.Apply(..., write), retrying
// transient database failures with backoff, until `stop` becomes non-zero (exit kExitOk), a
// fatal Kafka error (kExitKafka), bad settings (kExitUsage), or a record that cannot be decoded
// or applied (kExitBadRecord; its offset is not committed). `between_polls`, when set, runs on
// this thread after every poll (at least every 100 ms), e.g. for timers of the caller's own.
// Logs "stopped: A applied, D duplicates skipped" at the end. Runs on the calling thread.
int RunInboxLoop(const LoopSettings& settings, Inbox& inbox, const BusinessWrite& write,
                 const volatile std::sig_atomic_t& stop,
                 const std::function<void()>& between_polls = {});

}  // namespace consumer
