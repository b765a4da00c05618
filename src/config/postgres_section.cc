// [postgres] and [relay].

#include <algorithm>

#include "config/sections.h"
#include "fmt/format.h"

namespace outboxd::config::internal {
namespace {

constexpr std::string_view kPostgresKeys[] = {"conninfo",
                                              "slot",
                                              "publication",
                                              "tables",
                                              "message_prefixes",
                                              "create_slot",
                                              "create_publication",
                                              "status_interval_ms",
                                              "slot_check_interval_ms",
                                              "min_safe_wal_size_mb",
                                              "parallel_slots",
                                              "iam_auth",
                                              "aws_region"};
constexpr std::string_view kRelayKeys[] = {
    "shutdown_timeout_ms",   "delivery",           "transactional_id",    "transaction_max_events",
    "transaction_max_bytes", "transaction_max_ms", "transaction_split_ms"};
constexpr std::string_view kTablesExample = R"(tables = ["public.outbox"])";
constexpr std::string_view kPrefixesExample = R"(message_prefixes = ["outbox"])";

// Postgres' own rule for slot names (ReplicationSlotValidateName).
bool IsValidSlotName(std::string_view name) {
  if (name.empty() || name.size() > 63) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::optional<TableName> ParseTableName(std::string_view text) {
  std::vector<std::string_view> parts = Split(text, '.');
  if (parts.size() == 1) parts.insert(parts.begin(), "public");
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) return std::nullopt;
  return TableName{std::string(parts[0]), std::string(parts[1])};
}

// `tables` may be left out (or empty) only for a table-less outbox fed by message_prefixes.
absl::Status ReadTables(const SectionReader& reader, bool table_less, std::vector<TableName>& out) {
  std::vector<std::string> texts;
  bool present = false;
  if (auto s = reader.ReadStringArray("tables", kTablesExample, texts, present); !s.ok()) return s;
  if (texts.empty() && !table_less) {
    constexpr std::string_view kFix =
        "list the outbox tables, e.g. {}, or the prefixes of pg_logical_emit_message for a "
        "table-less outbox, e.g. {}";
    if (!present) {
      return reader.Missing("tables", fmt::format("{} (or {})", kTablesExample, kPrefixesExample));
    }
    return reader.Error("tables", "is empty", fmt::format(kFix, kTablesExample, kPrefixesExample));
  }
  for (const std::string& text : texts) {
    std::optional<TableName> table = ParseTableName(text);
    if (!table) {
      return reader.Error("tables",
                          fmt::format("entry \"{}\" is not \"schema.table\" or \"table\"", text),
                          "write e.g. \"public.outbox\"");
    }
    if (std::find(out.begin(), out.end(), *table) != out.end()) {
      return reader.Error("tables", fmt::format("lists {} twice", table->ToString()),
                          "remove the duplicate");
    }
    out.push_back(std::move(*table));
  }
  return absl::OkStatus();
}

// Prefixes of the logical decoding messages (pg_logical_emit_message) to publish, matched
// exactly; none = messages are not requested from the server at all.
absl::Status ReadMessagePrefixes(const SectionReader& reader, std::vector<std::string>& out) {
  bool present = false;
  if (auto s = reader.ReadStringArray("message_prefixes", kPrefixesExample, out, present);
      !s.ok()) {
    return s;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].empty()) {
      return reader.Error("message_prefixes", "holds an empty prefix",
                          fmt::format("give the prefix the application passes to "
                                      "pg_logical_emit_message, e.g. {}",
                                      kPrefixesExample));
    }
    if (std::find(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), out[i]) !=
        out.begin() + static_cast<std::ptrdiff_t>(i)) {
      return reader.Error("message_prefixes", fmt::format("lists \"{}\" twice", out[i]),
                          "remove the duplicate");
    }
  }
  return absl::OkStatus();
}

absl::Status ReadConninfo(const SectionReader& reader, const Environment& env, std::string& out) {
  constexpr std::string_view kExample = R"(conninfo = "host=127.0.0.1 dbname=app user=outboxd")";
  auto override_value = ReadOverride(env, kEnvConninfo, "unset it or give a libpq string");
  if (!override_value.ok()) return override_value.status();
  if (auto s = reader.ReadString("conninfo", kExample, out); !s.ok()) return s;
  if (override_value->has_value()) {
    out = std::move(**override_value);
    return absl::OkStatus();
  }
  if (out.empty() && reader.Has("conninfo")) {
    return reader.Error("conninfo", "is empty",
                        fmt::format("write {} or set {}", kExample, kEnvConninfo));
  }
  if (out.empty()) {
    return reader.Missing("conninfo", fmt::format("{} or set {}", kExample, kEnvConninfo));
  }
  return absl::OkStatus();
}

// parallel_slots, after slot, publication and message_prefixes, which it constrains.
absl::Status ReadParallelSlots(const SectionReader& reader, PostgresConfig& out) {
  // 64 walsenders decoding the same WAL would cost the server far more than they gain.
  if (auto s = reader.ReadInt("parallel_slots", "parallel_slots = 2", 1, 64, out.parallel_slots);
      !s.ok()) {
    return s;
  }
  const int32_t n = out.parallel_slots;
  if (n == 1) return absl::OkStatus();
  if (!out.message_prefixes.empty()) {
    // A row filter splits table rows only; every slot would receive every logical message.
    return reader.Error("parallel_slots",
                        fmt::format("= {} cannot split logical decoding messages "
                                    "(message_prefixes): every slot would publish each one",
                                    n),
                        "use parallel_slots = 1 with message_prefixes");
  }
  const size_t suffix = fmt::formatted_size("_{}", n - 1);
  if (out.slot.size() + suffix > 63) {
    return reader.Error(
        "parallel_slots",
        fmt::format("= {} makes slot names \"{}_<i>\" longer than 63 bytes", n, out.slot),
        "shorten [postgres] slot");
  }
  if (out.publication.size() + suffix > 63) {
    return reader.Error("parallel_slots",
                        fmt::format("= {} makes publication names \"{}_<i>\" longer than 63 "
                                    "bytes",
                                    n, out.publication),
                        "shorten [postgres] publication");
  }
  return absl::OkStatus();
}

constexpr std::array<std::pair<std::string_view, IamAuth>, 2> kIamAuths = {{
    {"none", IamAuth::kNone},
    {"aws_rds", IamAuth::kAwsRds},
}};

// iam_auth and aws_region: with "aws_rds" the password of each connection attempt is a fresh
// RDS IAM token for the database's region (the sslmode rule is pg's, which parses conninfo).
absl::Status ReadIamAuth(const SectionReader& reader, const Environment& env, PostgresConfig& out) {
  if (auto s = ReadChoice(reader, "iam_auth", kIamAuths, out.iam_auth); !s.ok()) return s;
  if (auto s = reader.ReadString("aws_region", R"(aws_region = "us-east-1")", out.aws_region);
      !s.ok()) {
    return s;
  }
  if (out.iam_auth == IamAuth::kNone) {
    if (!reader.Has("aws_region")) return absl::OkStatus();
    return reader.Error("aws_region", "applies only to iam_auth = \"aws_rds\"",
                        "add iam_auth = \"aws_rds\" or remove aws_region");
  }
  if (out.aws_region.empty()) out.aws_region = RegionFromEnvironment(env).value_or("");
  if (out.aws_region.empty()) {
    return reader.Error("iam_auth", "= \"aws_rds\" needs the database's AWS region",
                        "add aws_region = \"us-east-1\" (your region) under [postgres] or set "
                        "AWS_REGION");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Span<const std::string_view> PostgresKeys() { return kPostgresKeys; }
absl::Span<const std::string_view> RelayKeys() { return kRelayKeys; }

absl::StatusOr<std::optional<std::string>> ReadOverride(const Environment& env,
                                                        std::string_view name,
                                                        std::string_view fix) {
  std::optional<std::string> value = env ? env(name) : std::nullopt;
  if (value && value->empty()) {
    return absl::InvalidArgumentError(
        fmt::format("environment: {} is set but empty; {}", name, fix));
  }
  return value;
}

absl::Status ReadPostgres(const SectionReader& reader, const Environment& env,
                          PostgresConfig& out) {
  if (auto s = reader.CheckKnownKeys(kPostgresKeys); !s.ok()) return s;
  if (auto s = ReadConninfo(reader, env, out.conninfo); !s.ok()) return s;
  if (auto s = ReadIamAuth(reader, env, out); !s.ok()) return s;
  if (auto s = reader.ReadString("slot", R"(slot = "outboxd")", out.slot); !s.ok()) return s;
  if (!IsValidSlotName(out.slot)) {
    return reader.Error("slot",
                        fmt::format("\"{}\" is not a valid replication slot name", out.slot),
                        R"(use 1 to 63 characters from [a-z0-9_], e.g. slot = "outboxd")");
  }
  constexpr std::string_view kPublicationExample = R"(publication = "outboxd")";
  if (auto s = reader.ReadString("publication", kPublicationExample, out.publication); !s.ok()) {
    return s;
  }
  if (out.publication.empty() || out.publication.size() > 63) {
    return reader.Error("publication", "must be 1 to 63 characters long",
                        fmt::format("write e.g. {}", kPublicationExample));
  }
  if (auto s = ReadMessagePrefixes(reader, out.message_prefixes); !s.ok()) return s;
  if (auto s = ReadTables(reader, !out.message_prefixes.empty(), out.tables); !s.ok()) return s;
  if (auto s = reader.ReadBool("create_slot", "create_slot = true", out.create_slot); !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadBool("create_publication", "create_publication = true",
                               out.create_publication);
      !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadInt("status_interval_ms", "status_interval_ms = 1000", 100, 30000,
                              out.status_interval_ms);
      !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadInt("slot_check_interval_ms", "slot_check_interval_ms = 5000", 100,
                              300000, out.slot_check_interval_ms);
      !s.ok()) {
    return s;
  }
  // Up to 1 TiB: any larger is far past a sensible max_slot_wal_keep_size.
  if (auto s = reader.ReadInt("min_safe_wal_size_mb", "min_safe_wal_size_mb = 1024", 0, 1048576,
                              out.min_safe_wal_size_mb);
      !s.ok()) {
    return s;
  }
  return ReadParallelSlots(reader, out);
}

constexpr std::array<std::pair<std::string_view, Delivery>, 2> kDeliveries = {{
    {"at_least_once", Delivery::kAtLeastOnce},
    {"exactly_once", Delivery::kExactlyOnce},
}};

absl::Status ReadRelay(const SectionReader& reader, RelayConfig& out) {
  if (auto s = reader.CheckKnownKeys(kRelayKeys); !s.ok()) return s;
  // Ten minutes is far past any sensible drain; a larger value is likely a unit mistake.
  if (auto s = reader.ReadInt("shutdown_timeout_ms", "shutdown_timeout_ms = 10000", 0, 600000,
                              out.shutdown_timeout_ms);
      !s.ok()) {
    return s;
  }
  if (auto s = ReadChoice(reader, "delivery", kDeliveries, out.delivery); !s.ok()) return s;
  if (auto s = reader.ReadString("transactional_id", R"(transactional_id = "outboxd-orders")",
                                 out.transactional_id);
      !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadInt("transaction_max_events", "transaction_max_events = 10000", 1,
                              1000000, out.transaction_max_events);
      !s.ok()) {
    return s;
  }
  if (auto s = reader.ReadInt("transaction_max_bytes", "transaction_max_bytes = 16777216", 1024,
                              1 << 30, out.transaction_max_bytes);
      !s.ok()) {
    return s;
  }
  // The broker aborts a transaction open longer than transaction.timeout.ms (60 s by default).
  if (auto s = reader.ReadInt("transaction_max_ms", "transaction_max_ms = 100", 1, 30000,
                              out.transaction_max_ms);
      !s.ok()) {
    return s;
  }
  return reader.ReadInt("transaction_split_ms", "transaction_split_ms = 20000", 10, 600000,
                        out.transaction_split_ms);
}

}  // namespace outboxd::config::internal
