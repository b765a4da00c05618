#pragma once
// Readiness as the stages see it, for /readyz. Each component reports only on a change, so
// the mutex is taken rarely on the loop thread; the HTTP thread reads a copy.

#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace outboxd::metrics {

class Health {
 public:
  struct Component {
    bool ok = false;
    std::string reason;  // Why, in a few words ("streaming slot outboxd", "Kafka unreachable").
  };
  struct Snapshot {
    Component streaming;  // The replication session is connected and streaming.
    Component producer;   // The Kafka producer is healthy (brokers reachable, no fatal error).
    Component slot;       // The slot is safe: WAL reserved, safe_wal_size above the threshold.
    bool Ready() const { return streaming.ok && producer.ok && slot.ok; }
  };

  void SetStreaming(bool ok, std::string reason) {
    Set(&Snapshot::streaming, ok, std::move(reason));
  }
  void SetProducer(bool ok, std::string reason) { Set(&Snapshot::producer, ok, std::move(reason)); }
  void SetSlot(bool ok, std::string reason) { Set(&Snapshot::slot, ok, std::move(reason)); }
  // Called with the new state after every report, under the lock (so calls never overlap), on
  // the reporting thread; it must be quick. Set it before any report, i.e. before the threads.
  void OnChange(std::function<void(const Snapshot&)> observer) { observer_ = std::move(observer); }
  Snapshot Read() const {
    absl::MutexLock lock(&mu_);
    return state_;
  }

 private:
  void Set(Component Snapshot::*which, bool ok, std::string reason) {
    absl::MutexLock lock(&mu_);
    (state_.*which) = Component{ok, std::move(reason)};
    if (observer_) observer_(state_);
  }
  std::function<void(const Snapshot&)> observer_;
  mutable absl::Mutex mu_;
  Snapshot state_ ABSL_GUARDED_BY(mu_) = {
      .streaming = {false, "not connected yet"},
      .producer = {false, "not started yet"},
      .slot = {true, "not checked yet"},
  };
};

}  // namespace outboxd::metrics
