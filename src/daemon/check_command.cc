#include "daemon/check_command.h"

#include "config/topic.h"
#include "daemon/exit_codes.h"
#include "kafka/broker_checks.h"
#include "outbox/mapping_check.h"
#include "pg/server_checks.h"
#include "registry/registry_check.h"
#include "relay/context.h"
#include "relay/mapping_catalog.h"

namespace outboxd::daemon {
namespace {

pg::ServerCheckOptions ServerOptions(const config::Config& config) {
  pg::ServerCheckOptions options{.conninfo = config.postgres.conninfo,
                                 .slot = config.postgres.slot,
                                 .publication = config.postgres.publication,
                                 .tables = {},
                                 .columns = {},
                                 .create_missing = config.postgres.create_slot,
                                 .create_publication = config.postgres.create_publication,
                                 .check_table = {}};
  for (const auto& t : config.postgres.tables) options.tables.push_back({t.schema, t.name});
  options.partition = relay::SetupOptionsOf(config, 0).partition;
  const config::OutboxConfig& outbox = config.outbox;
  options.columns = {{outbox.id_column, "[outbox] id_column"},
                     {outbox.aggregate_type_column, "[outbox] aggregate_type_column"},
                     {outbox.aggregate_id_column, "[outbox] aggregate_id_column"},
                     {outbox.payload_column, "[outbox] payload_column"}};
  for (const config::HeaderPlacement& p : outbox.additional_placement) {
    options.columns.push_back({p.column, "[outbox] additional_placement"});
  }
  options.check_table = [&outbox](const pg::QualifiedTable& table, const pg::TableInfo& info) {
    return outbox::CheckMapping(outbox, table.ToString(), relay::CatalogColumnsOf(info));
  };
  return options;
}

kafka::BrokerCheckOptions BrokerOptions(const config::Config& config) {
  kafka::BrokerCheckOptions options{.properties = config.kafka, .topics = {}};
  if (config.relay.delivery == config::Delivery::kExactlyOnce) {
    for (int i = 0; i < config.postgres.parallel_slots; ++i) {
      options.transactional_ids.push_back(relay::TransactionalIdOf(config, i));
    }
    options.transaction_split_ms = config.relay.transaction_split_ms;
  }
  options.topics.push_back(config.outbox.dead_letter_topic);
  if (!config::SplitTopicPattern(config.outbox.topic).routed) {
    options.topics.push_back(config.outbox.topic);
  }
  return options;
}

}  // namespace

CheckResults CheckServers(const config::Config& config) {
  CheckResults results = pg::CheckServer(ServerOptions(config));
  CheckResults brokers = kafka::CheckBrokers(BrokerOptions(config));
  results.insert(results.end(), brokers.begin(), brokers.end());
  CheckResults registry = registry::CheckRegistry(config);
  results.insert(results.end(), registry.begin(), registry.end());
  return results;
}

void PrintResults(const CheckResults& results, const Redactor& redactor, std::FILE* out) {
  for (const CheckResult& result : results) {
    const std::string line = redactor.Scrub(FormatCheckLine(result)) + "\n";
    std::fwrite(line.data(), 1, line.size(), out);
  }
  std::fflush(out);
}

int CheckExitCode(const CheckResults& results) {
  for (const CheckResult& result : results) {
    if (result.outcome != CheckOutcome::kFail) continue;
    return result.permission ? kExitPermission : kExitServerSetup;
  }
  return kExitOk;
}

}  // namespace outboxd::daemon
