#pragma once
// Parallel slots (DESIGN.md section 8): N slots "<slot>_<i>" whose publications
// "<publication>_<i>" keep, by a row filter on a hash of the aggregate id, the rows of the
// aggregates that belong to slot i. Each aggregate lives in one slot, so its order holds.
// Row filters are PostgreSQL 15+.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pg/catalog.h"
#include "pg/connection.h"

namespace outboxd::pg {

// One stream's share of the aggregates. count = 1: no filter, today's single slot.
struct Partition {
  int count = 1;                // [postgres] parallel_slots
  int index = 0;                // 0 <= index < count
  std::string base_slot = {};   // [postgres] slot: the family "<base_slot>_<i>" belongs to it.
  std::string key_column = {};  // [outbox] aggregate_id_column, which the filter hashes.
};

// `base` with one slot, "<base>_<index>" with several: slot and publication names.
std::string MemberName(std::string_view base, int count, int index);

// The immutable built-in hash of `quoted_column` (already quoted) of type `type_oid`
// (pg_attribute.atttypid), the only kind of function a row filter may call: hashtext for
// text, varchar and char (cast to text), uuid_hash, hashint2/4/8. nullopt for other types: a
// cast to text of those is an I/O coercion, which row filters refuse.
std::optional<std::string> HashOf(std::string_view quoted_column, uint32_t type_oid);

// The row filter of slot `index` of `count` over `hash` (HashOf):
//   (coalesce(<hash>, 0) & 2147483647) % count = index
// `& 2147483647` clears the sign bit, so unlike abs() it cannot overflow on -2147483648 (an
// error in a walsender's row filter stops the slot); coalesce gives a NULL aggregate id slot
// 0, where `hash(NULL) % n` would be NULL and publish the row in no slot at all.
std::string PartitionFilter(std::string_view hash, int count, int index);

// With partition.count > 1: each table's row filter, in order (empty for a table that does not
// exist: set-up reports that itself). Empty with one slot. FailedPrecondition naming the fix
// when a table lacks partition.key_column or its type has no hash (HashOf).
absl::StatusOr<std::vector<std::string>> PartitionFilters(Connection& conn,
                                                          const std::vector<QualifiedTable>& tables,
                                                          const Partition& partition);

// True when `actual` (pg_publication_tables.rowfilter, Postgres' deparsed text) is the filter
// `expected` (PartitionFilter). Compares with case, blanks, parentheses and ::text casts taken
// out (and identifiers' double quotes), which are all that deparsing adds or drops for this
// expression.
bool SameRowFilter(std::string_view expected, std::string_view actual);

// FailedPrecondition naming the fix when `count` slots cannot be served by a server of
// `server_version` (PQserverVersion): row filters need 15+.
absl::Status CheckRowFilterSupport(int server_version, int count);

// Judges the slots named `base` or "<base>_<digits>" that exist (`existing`) against the
// family that parallel_slots = `count` uses. FailedPrecondition naming the fix when slots of
// another count exist (their backlog would be left behind, or read twice): with count > 1 any
// slot outside "<base>_0".."<base>_<count-1>"; with count = 1 numbered slots while `base`
// itself is missing (it would be created at "now").
absl::Status JudgeSlotFamily(std::string_view base, int count,
                             const std::vector<std::string>& existing);

// Reads the slot family of `partition.base_slot` on `conn` and judges it (JudgeSlotFamily).
absl::Status CheckSlotFamily(Connection& conn, const Partition& partition);

// With partition.count > 1: FailedPrecondition naming the fix unless `publication` filters
// each of `tables` with exactly its PartitionFilters entry. No-op for count = 1.
absl::Status CheckPublicationFilter(Connection& conn, std::string_view publication,
                                    const std::vector<QualifiedTable>& tables,
                                    const Partition& partition);

}  // namespace outboxd::pg
