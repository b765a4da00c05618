#pragma once
// `outboxd check` against the live Postgres: every setting, privilege and object `run` needs,
// as one CheckResult each, naming the fix. Nothing is created or changed.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/check_result.h"
#include "pg/catalog.h"
#include "pg/partition.h"

namespace outboxd::pg {

struct ServerCheckOptions {
  std::string conninfo;
  std::string slot;
  std::string publication;
  std::vector<QualifiedTable> tables;
  // Columns every outbox table must have, each with the config key that names it (for the fix),
  // e.g. {"aggregateid", "[outbox] aggregate_id_column"}.
  std::vector<std::pair<std::string, std::string>> columns;
  bool create_missing = true;      // `run` creates a missing publication and slot.
  bool create_publication = true;  // With create_missing: a missing publication too.
  // Further checks of each existing table (the event contract's mapping, which pg does not
  // know); returns a FAIL or nothing.
  std::function<std::optional<CheckResult>(const QualifiedTable&, const TableInfo&)> check_table;
  // Parallel slots: count > 1 checks PG 15+, the slot family, and each "<slot>_<i>" and
  // "<publication>_<i>" (with its row filter) instead of `slot` and `publication`.
  Partition partition = {};
};

// Connects (an ordinary session, then a replication one) and checks in order: connection,
// role REPLICATION, replication connection, wal_level, max_replication_slots, max_wal_senders,
// max_slot_wal_keep_size, each table (exists, SELECT, columns), publication, slot (with parallel
// slots: the family, then each slot's publication and slot). When the
// first connection fails that is the only result.
CheckResults CheckServer(const ServerCheckOptions& options);

// "1.5 MiB (1572864 bytes)": byte counts as operators read them.
std::string HumanBytes(int64_t bytes);

}  // namespace outboxd::pg
