#pragma once
// What one relay run is given: the clock, the metrics and health it reports to, the stop
// request, and how it reaches Postgres and Kafka (real connections, or fakes in tests).

#include <poll.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/clock.h"
#include "common/service_notify.h"
#include "common/types.h"
#include "config/config.h"
#include "metrics/health.h"
#include "metrics/metrics.h"
#include "pg/replication_stream.h"
#include "pg/slot_setup.h"
#include "position/position_guard.h"
#include "relay/producer_factory.h"
#include "relay/stop_signal.h"

namespace outboxd::relay {

// The NOT NULL columns of each outbox table, which pgoutput does not carry.
using NotNullColumns = std::vector<std::pair<config::TableName, std::vector<std::string>>>;

struct Connectors {
  // Connects to Postgres, prepares the publication and slot, and starts streaming from the
  // slot's confirmed position. Errors as pg::PrepareReplication and ReplicationStream::Start.
  std::function<absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>>()> replication;
  ProducerFactory producer;
  // Reads NotNullColumns from the catalog; set only when a JSON-with-schema converter needs
  // them (the schemas' "optional" flags), empty otherwise.
  std::function<absl::StatusOr<NotNullColumns>()> not_null_columns;
  // ::poll, or a test's stand-in that advances a fake clock instead of sleeping.
  std::function<int(pollfd* fds, nfds_t count, int timeout_ms)> poll = ::poll;
};

// [relay] transactional_id, or "outboxd-<slot>", and "_<index>" after it with parallel slots:
// stable per slot, so a second instance on the same slot fences the first.
std::string TransactionalIdOf(const config::Config& config, int slot_index);

// What replication set-up checks and creates for stream `index` of [postgres] parallel_slots:
// its slot, its publication (with its row filter when there are several) and the slot family.
pg::SetupOptions SetupOptionsOf(const config::Config& config, int index);

// Real libpq and librdkafka connections for `config`, which must outlive the result.
// `resume_check` (may be empty) runs at every connect before the slot is created or used.
// `replication` reaches stream 0 (the only one with parallel_slots = 1).
Connectors LiveConnectors(const config::Config& config, pg::ResumeCheck resume_check = {});
// Connectors::replication for stream `index`; `config` must outlive the result.
std::function<absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>>()> LiveReplication(
    const config::Config& config, int index, pg::ResumeCheck resume_check = {});

// One of several parallel slots: what differs between their streams.
struct SlotBinding {
  std::string slot;
  std::function<absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>>()> replication = {};
  position::PositionGuard* positions = nullptr;  // This slot's record; nullptr: none.
  metrics::Health* health = nullptr;             // This slot's readiness; nullptr: the run's.
};

// Everything here must outlive the relay run it is given to. Used on the loop thread only,
// except metrics and health, which are thread-safe.
struct RelayContext {
  const config::Config& config;
  const Clock& clock;
  metrics::RelayMetrics& metrics;
  metrics::Health& health;
  StopSignal& stop;
  Connectors connectors;
  // OK while the slot is safe to stream from; the error to stop with once it is lost (checked
  // every loop iteration, so it must be cheap: e.g. an atomic set by the slot monitor).
  std::function<absl::Status()> slot_check = [] { return absl::OkStatus(); };
  // Says which position record to write after a confirmation (written through the events'
  // producer); nullptr writes none (tests without Kafka).
  position::PositionGuard* positions = nullptr;
  // Fed at every turn of the loop (systemd's watchdog); nullptr: none.
  ServiceNotifier* notifier = nullptr;
  // parallel_slots > 1: a stream per entry, each on a copy of this context holding the entry's
  // replication, positions and health. Empty: one stream of [postgres] slot on this context.
  std::vector<SlotBinding> parallel_slots = {};
  // Resharding (pg/reshard.h): the cut. Each stream publishes what commits before it, and the
  // run ends once every stream reached it with all of that acknowledged and confirmed.
  std::optional<Lsn> stop_at = std::nullopt;
};

}  // namespace outboxd::relay
