#include "pg/partition.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/strings.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace outboxd::pg {
namespace {

// Lower case, without blanks, parentheses, double quotes (libpq quotes every identifier, the
// deparser only those that need it) and "::text" (a no-op cast on a text column, which the
// parser drops; kept, parenthesised, on varchar).
std::string NormalizeFilter(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')' || c == '"') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (size_t at = out.find("::text"); at != std::string::npos; at = out.find("::text", at)) {
    out.erase(at, 6);
  }
  return out;
}

// The index of "<base>_<digits>", or -1 for `base` itself.
int IndexOf(std::string_view base, std::string_view name) {
  if (name.size() <= base.size() + 1) return -1;
  return static_cast<int>(
      std::strtol(std::string(name.substr(base.size() + 1)).c_str(), nullptr, 10));
}

}  // namespace

std::string MemberName(std::string_view base, int count, int index) {
  if (count <= 1) return std::string(base);
  return fmt::format("{}_{}", base, index);
}

std::optional<std::string> HashOf(std::string_view quoted_column, uint32_t type_oid) {
  // pg_type OIDs, fixed since Postgres' first releases (catalog/pg_type.dat).
  constexpr uint32_t kInt8 = 20, kInt2 = 21, kInt4 = 23, kText = 25, kBpchar = 1042,
                     kVarchar = 1043, kUuid = 2950;
  switch (type_oid) {
    case kText:
    case kVarchar:
    case kBpchar:
      return fmt::format("hashtext({}::text)", quoted_column);
    case kUuid:
      return fmt::format("uuid_hash({})", quoted_column);
    case kInt2:
      return fmt::format("hashint2({})", quoted_column);
    case kInt4:
      return fmt::format("hashint4({})", quoted_column);
    case kInt8:
      return fmt::format("hashint8({})", quoted_column);
    default:
      return std::nullopt;
  }
}

std::string PartitionFilter(std::string_view hash, int count, int index) {
  return fmt::format("(coalesce({}, 0) & 2147483647) % {} = {}", hash, count, index);
}

absl::StatusOr<std::vector<std::string>> PartitionFilters(Connection& conn,
                                                          const std::vector<QualifiedTable>& tables,
                                                          const Partition& partition) {
  std::vector<std::string> out;
  if (partition.count <= 1) return out;
  for (const QualifiedTable& t : tables) {
    auto info = LookupTable(conn, t);
    if (!info.ok()) return info.status();
    if (!info->has_value()) {
      out.emplace_back();
      continue;
    }
    const TableInfo& table = **info;
    const auto column = std::find(table.columns.begin(), table.columns.end(), partition.key_column);
    if (column == table.columns.end()) {
      return absl::FailedPreconditionError(fmt::format(
          "outbox table {} has no column {} ([outbox] aggregate_id_column), whose hash splits "
          "the rows between the parallel slots; fix aggregate_id_column or set parallel_slots "
          "= 1",
          t.ToString(), partition.key_column));
    }
    const auto at = static_cast<size_t>(column - table.columns.begin());
    std::optional<std::string> hash =
        HashOf(conn.QuoteIdentifier(partition.key_column), table.type_oids[at]);
    if (!hash) {
      return absl::FailedPreconditionError(fmt::format(
          "column {} of outbox table {} is of type {}, which a row filter cannot hash (a cast "
          "to text is not allowed there); parallel_slots needs a text, varchar, char, uuid, "
          "smallint, integer or bigint aggregate id: change the column's type or set "
          "parallel_slots = 1",
          partition.key_column, t.ToString(), table.type_names[at]));
    }
    out.push_back(PartitionFilter(*hash, partition.count, partition.index));
  }
  return out;
}

bool SameRowFilter(std::string_view expected, std::string_view actual) {
  return NormalizeFilter(expected) == NormalizeFilter(actual);
}

absl::Status CheckRowFilterSupport(int server_version, int count) {
  if (count <= 1 || server_version >= 150000) return absl::OkStatus();
  return absl::FailedPreconditionError(fmt::format(
      "[postgres] parallel_slots = {} needs publication row filters, which PostgreSQL {} lacks "
      "(they came in 15); upgrade Postgres to 15 or later, or set parallel_slots = 1",
      count, server_version / 10000));
}

absl::Status JudgeSlotFamily(std::string_view base, int count,
                             const std::vector<std::string>& existing) {
  std::vector<std::string> stray;
  bool base_exists = false;
  int highest = -1;
  for (const std::string& name : existing) {
    const int index = IndexOf(base, name);
    if (index < 0) base_exists = true;
    highest = std::max(highest, index);
    if (count > 1 && (index < 0 || index >= count)) stray.push_back(name);
  }
  if (count == 1 && !base_exists && highest >= 0) {
    for (const std::string& name : existing) stray.push_back(name);
  }
  if (stray.empty()) return absl::OkStatus();
  std::sort(stray.begin(), stray.end());
  const int before = base_exists ? 1 : highest + 1;
  std::vector<std::string> drops;
  drops.reserve(stray.size());
  for (const std::string& name : stray) {
    drops.push_back(fmt::format("SELECT pg_drop_replication_slot('{}')", name));
  }
  return absl::FailedPreconditionError(fmt::format(
      "replication slot(s) {} exist, which [postgres] parallel_slots = {} does not use (they "
      "look like parallel_slots = {}) but are no complete family of slots, which resharding "
      "could move: they may hold events not yet published; set parallel_slots = {} again, or, "
      "only once they are drained and no longer needed, drop them: {}",
      fmt::join(stray, ", "), count, before, before, fmt::join(drops, "; ")));
}

absl::Status CheckSlotFamily(Connection& conn, const Partition& partition) {
  // Slot names are [a-z0-9_] (config), so the base needs no escaping inside the pattern.
  auto result =
      conn.Query(Concat("SELECT slot_name FROM pg_catalog.pg_replication_slots WHERE slot_name = ",
                        conn.QuoteLiteral(partition.base_slot), " OR slot_name ~ ",
                        conn.QuoteLiteral(Concat("^", partition.base_slot, "_[0-9]+$"))),
                 "listing the parallel slots");
  if (!result.ok()) return result.status();
  std::vector<std::string> existing;
  existing.reserve(static_cast<size_t>(PQntuples(result->get())));
  for (int i = 0; i < PQntuples(result->get()); ++i) {
    existing.emplace_back(Value(result->get(), i, 0));
  }
  return JudgeSlotFamily(partition.base_slot, partition.count, existing);
}

absl::Status CheckPublicationFilter(Connection& conn, std::string_view publication,
                                    const std::vector<QualifiedTable>& tables,
                                    const Partition& partition) {
  if (partition.count <= 1) return absl::OkStatus();
  auto filters = PartitionFilters(conn, tables, partition);
  if (!filters.ok()) return filters.status();
  for (size_t i = 0; i < tables.size(); ++i) {
    const QualifiedTable& t = tables[i];
    const std::string& expected = (*filters)[i];
    auto result = conn.Query(
        Concat("SELECT rowfilter FROM pg_catalog.pg_publication_tables WHERE pubname = ",
               conn.QuoteLiteral(publication), " AND schemaname = ", conn.QuoteLiteral(t.schema),
               " AND tablename = ", conn.QuoteLiteral(t.name)),
        "reading the publication's row filter");
    if (!result.ok()) return result.status();
    const PGresult* r = result->get();
    // No row: CheckPublication reports the missing table with its fix.
    if (PQntuples(r) == 0) continue;
    const bool filtered = !PQgetisnull(r, 0, 0);
    if (filtered && SameRowFilter(expected, Value(r, 0, 0))) continue;
    const std::string actual =
        filtered ? Concat("filters ", t.ToString(), " with WHERE ", Value(r, 0, 0))
                 : Concat("has no row filter on ", t.ToString());
    const std::string table =
        Concat(conn.QuoteIdentifier(t.schema), ".", conn.QuoteIdentifier(t.name));
    return absl::FailedPreconditionError(fmt::format(
        "publication {} {}, not the filter of parallel slot {} of {} (WHERE {}): some "
        "aggregates would be published twice or never; drop the publication (DROP PUBLICATION "
        "{}) and let outboxd create it, or run: ALTER PUBLICATION {} DROP TABLE {}; ALTER "
        "PUBLICATION {} ADD TABLE {} WHERE ({})",
        publication, actual, partition.index, partition.count, expected,
        conn.QuoteIdentifier(publication), conn.QuoteIdentifier(publication), table,
        conn.QuoteIdentifier(publication), table, expected));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::pg
