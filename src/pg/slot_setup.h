#pragma once
// Checks the server and prepares the publication and slot that replication needs, turning every
// wrong setting into an error that names the cause and the fix.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/types.h"
#include "pg/catalog.h"
#include "pg/connection.h"
#include "pg/partition.h"

namespace outboxd::pg {

struct ServerIdentity {
  std::string system_id;
  int timeline = 0;
  Lsn wal_position;
  std::string database;
};

// Decides, from the server's identity and its slot (nullopt when missing), whether set-up may
// go on; a non-OK status ends PrepareReplication with it (the failover checks, position/).
using ResumeCheck =
    std::function<absl::Status(const ServerIdentity&, const std::optional<SlotInfo>&)>;

struct SetupOptions {
  std::string slot;
  std::string publication;
  std::vector<QualifiedTable> tables;
  bool create_missing = true;      // Create the publication and slot when they do not exist.
  bool create_publication = true;  // With create_missing: a missing publication too.
  ResumeCheck resume_check;        // Run before the slot is created or used; may be empty.
  // Parallel slots: the publication's row filter and the slot family to check. The default
  // (count 1) is one slot without a filter.
  Partition partition = {};
};

// Verifies wal_level, the tables and the publication's coverage of them (with parallel slots:
// PG 15+, its row filter and the slot family, pg/partition.h), runs
// options.resume_check, creates what is missing (if allowed), and checks the slot is a live
// pgoutput slot of this database.
// Errors: FailedPrecondition (settings/objects, message says the fix), PermissionDenied,
// Aborted (the slot is invalidated: exit 6, message says what was lost and what to do),
// Unavailable (retry).
absl::StatusOr<ServerIdentity> PrepareReplication(Connection& conn, const SetupOptions& options);

// The CREATE_REPLICATION_SLOT command for `quoted_slot` (already quoted) on a server of
// `server_version` (PQserverVersion): the PG 14 keyword form below 15, a failover slot on a
// 17+ primary (`standby` false). No snapshot is exported: outboxd streams from "now".
std::string CreateSlotCommand(std::string_view quoted_slot, int server_version, bool standby);

// What a failed CREATE PUBLICATION means for set-up: OK when another instance created the
// publication first (the checks that follow then accept it), else `failure` (from
// Connection::Query) unchanged.
absl::Status JudgePublicationCreateFailure(absl::Status failure);
// What a failed CREATE_REPLICATION_SLOT means: OK when the slot exists already (another
// instance won the race), FailedPrecondition naming the fix when every slot is in use (a retry
// cannot make room), else `failure` (from Connection::Query) unchanged.
absl::Status JudgeSlotCreateFailure(absl::Status failure);

// For a command on `slot` that failed with `failure`: reads the slot's row on `conn` (an idle
// connection that runs SQL) and returns Aborted with pg::LostSlotMessage when Postgres has
// invalidated the slot (wal_status = lost), else `failure` unchanged. Never recreates anything.
absl::Status LostSlotOr(Connection& conn, std::string_view slot, absl::Status failure);

}  // namespace outboxd::pg
