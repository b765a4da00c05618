#include <chrono>

#include "common/log.h"
#include "common/strings.h"
#include "pg/catalog.h"
#include "pg/connection.h"
#include "pg/slot_setup.h"
#include "relay/context.h"
#include "relay/mapping_catalog.h"

namespace outboxd::relay {
namespace {

// Milliseconds since `since`, for the start-up breakdown in the log.
int64_t MillisSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               since)
      .count();
}

absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>> StartReplication(
    const config::Config& config, int index, const pg::ResumeCheck& resume_check) {
  const config::PostgresConfig& pg = config.postgres;
  const auto started = std::chrono::steady_clock::now();
  auto conn = pg::Connection::Open(pg.conninfo);
  if (!conn.ok()) return conn.status();
  const int64_t connect_ms = MillisSince(started);
  pg::SetupOptions options = SetupOptionsOf(config, index);
  options.resume_check = resume_check;
  const auto prepare_started = std::chrono::steady_clock::now();
  auto identity = pg::PrepareReplication(*conn, options);
  if (!identity.ok()) return identity.status();
  const int64_t prepare_ms = MillisSince(prepare_started);
  const auto start_started = std::chrono::steady_clock::now();
  auto stream =
      pg::ReplicationStream::Start(std::move(*conn), {.slot = options.slot,
                                                      .publication = options.publication,
                                                      .messages = !pg.message_prefixes.empty()});
  if (!stream.ok()) return stream.status();
  log::Info(
      "streaming slot {} of database {} (system {}, timeline {}) to Kafka; start-up: connect {} "
      "ms, server checks, failover checks and slot set-up {} ms, START_REPLICATION {} ms",
      options.slot, identity->database, identity->system_id, identity->timeline, connect_ms,
      prepare_ms, MillisSince(start_started));
  return std::make_unique<pg::ReplicationStream>(std::move(*stream));
}

bool NeedsNullability(const config::OutboxConfig& outbox) {
  // Schema-aware converters write a NOT NULL column's schema without "optional" / a union.
  const config::Converter value = config::NonBytesValueConverter(outbox);
  return outbox.key_converter == config::Converter::kJsonWithSchema ||
         outbox.key_converter == config::Converter::kAvro ||
         value == config::Converter::kJsonWithSchema || value == config::Converter::kAvro;
}

// One catalog read before streaming: the NOT NULL columns (json_with_schema) and the refusal
// of a contract mapping the tables cannot carry (FailedPrecondition, as `check` reports it).
absl::StatusOr<NotNullColumns> ReadTableCatalog(const config::Config& config) {
  const auto started = std::chrono::steady_clock::now();
  auto conn = pg::Connection::OpenOrdinary(config.postgres.conninfo, "outboxd");
  if (!conn.ok()) return conn.status();
  NotNullColumns out;
  for (const config::TableName& t : config.postgres.tables) {
    auto info = pg::LookupTable(*conn, {t.schema, t.name});
    if (!info.ok()) return info.status();
    // A missing table is reported by the slot set-up that follows, with its fix.
    if (!info->has_value()) continue;
    if (std::optional<CheckResult> failure =
            outbox::CheckMapping(config.outbox, t.ToString(), CatalogColumnsOf(**info))) {
      return outbox::MappingError(*failure);
    }
    if (NeedsNullability(config.outbox)) out.emplace_back(t, std::move((*info)->not_null));
  }
  log::Info("read the outbox tables' catalog in {} ms", MillisSince(started));
  return out;
}

}  // namespace

std::string TransactionalIdOf(const config::Config& config, int slot_index) {
  // Concat, not "outboxd-" + std::string: GCC 12 at -O3 warns (-Wrestrict) on that operator+.
  std::string id = config.relay.transactional_id.empty() ? Concat("outboxd-", config.postgres.slot)
                                                         : config.relay.transactional_id;
  // The default is then "outboxd-" + the slot's own name (config::SlotName).
  if (config.postgres.parallel_slots > 1) id += Concat("_", slot_index);
  return id;
}

pg::SetupOptions SetupOptionsOf(const config::Config& config, int index) {
  const config::PostgresConfig& pg = config.postgres;
  pg::SetupOptions options{.slot = config::SlotName(pg, index),
                           .publication = config::PublicationName(pg, index),
                           .tables = {},
                           .create_missing = pg.create_slot,
                           .create_publication = pg.create_publication,
                           .resume_check = {},
                           .partition = {.count = pg.parallel_slots,
                                         .index = index,
                                         .base_slot = pg.slot,
                                         .key_column = config.outbox.aggregate_id_column}};
  for (const auto& t : pg.tables) options.tables.push_back({t.schema, t.name});
  return options;
}

std::function<absl::StatusOr<std::unique_ptr<pg::ReplicationChannel>>()> LiveReplication(
    const config::Config& config, int index, pg::ResumeCheck resume_check) {
  return [&config, index, resume_check = std::move(resume_check)] {
    return StartReplication(config, index, resume_check);
  };
}

Connectors LiveConnectors(const config::Config& config, pg::ResumeCheck resume_check) {
  Connectors connectors{
      .replication = LiveReplication(config, 0, std::move(resume_check)),
      .producer =
          [&config](kafka::DeliveryHandler& handler, int slot_index) {
            if (config.relay.delivery != config::Delivery::kExactlyOnce) {
              return kafka::CreateProducer(config.kafka, handler);
            }
            return kafka::CreateTransactionalProducer(
                config.kafka, TransactionalIdOf(config, slot_index), handler);
          },
      .not_null_columns = {},
  };
  if (NeedsNullability(config.outbox) || outbox::MappingNeedsCatalog(config.outbox)) {
    connectors.not_null_columns = [&config] { return ReadTableCatalog(config); };
  }
  return connectors;
}

}  // namespace outboxd::relay
