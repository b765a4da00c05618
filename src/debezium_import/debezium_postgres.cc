// The Debezium import's [postgres] section: database.* -> conninfo, the slot, the publication
// and the captured tables.

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "debezium_import/debezium_internal.h"
#include "fmt/format.h"

namespace outboxd::debezium_import::internal {
namespace {

// database.<option> -> libpq keyword, passed through unchanged.
constexpr std::pair<std::string_view, std::string_view> kPassThrough[] = {
    {"database.hostname", "host"},
    {"database.port", "port"},
    {"database.user", "user"},
    {"database.dbname", "dbname"},
    {"database.sslmode", "sslmode"},
    {"database.sslrootcert", "sslrootcert"},
    {"database.sslcert", "sslcert"},
    {"database.sslkey", "sslkey"},
    {"database.sslpassword", "sslpassword"},
};
constexpr std::string_view kRequired[] = {"database.hostname", "database.user", "database.dbname"};

// A libpq conninfo value: single-quoted with \ and ' escaped unless it is a plain word.
std::string ConninfoValue(std::string_view value) {
  const bool plain = !value.empty() && value.find_first_of(" '\\\t\n") == std::string_view::npos;
  if (plain) return std::string(value);
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

absl::StatusOr<std::string> Conninfo(ConnectorOptions& options) {
  for (std::string_view name : kRequired) {
    if (options.Find(name) == nullptr) {
      return options.Error(name, "is missing",
                           fmt::format("add \"{}\" (the connector needs it too)", name));
    }
  }
  std::vector<std::string> parts;
  for (const auto& [option, keyword] : kPassThrough) {
    const std::string* value = options.Find(option);
    if (value != nullptr) parts.push_back(fmt::format("{}={}", keyword, ConninfoValue(*value)));
  }
  if (options.Find("database.port") == nullptr) parts.insert(parts.begin() + 1, "port=5432");
  // Debezium's sslmode default is "prefer", like libpq's: nothing to add.
  return absl::StrJoin(parts, " ");
}

// A table.include.list entry as "schema.table": Debezium's entries are regular expressions,
// outboxd needs the exact names pgoutput reports.
absl::StatusOr<std::string> TableName(const ConnectorOptions& options, std::string_view entry) {
  std::string name;
  for (size_t i = 0; i < entry.size(); ++i) {
    if (entry[i] == '\\' && i + 1 < entry.size() && entry[i + 1] == '.') continue;
    name += entry[i];
  }
  const bool word_chars =
      name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.") ==
      std::string::npos;
  const size_t dot = name.find('.');
  if (!word_chars || dot == std::string::npos || dot == 0 || dot + 1 == name.size() ||
      name.find('.', dot + 1) != std::string::npos) {
    return options.Error(
        "table.include.list",
        fmt::format("entry \"{}\" is not a plain schema.table name (a regular expression, or "
                    "no schema)",
                    entry),
        "list the outbox tables by name, e.g. \"public.outbox,public.orders_outbox\"");
  }
  return name;
}

// message.prefix.include.list (Debezium's regular expressions) as exact message_prefixes.
absl::Status MessagePrefixes(ConnectorOptions& options, TomlSection& out, bool& any) {
  const std::string* list = options.Find("message.prefix.include.list");
  if (list == nullptr) return absl::OkStatus();
  std::string array = "[";
  for (absl::string_view entry : absl::StrSplit(*list, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    if (entry.find_first_of("\\^$.|?*+()[]{}") != absl::string_view::npos) {
      return options.Error(
          "message.prefix.include.list",
          fmt::format("entry \"{}\" is a regular expression; outboxd matches prefixes exactly",
                      std::string_view(entry.data(), entry.size())),
          "list the prefixes the application passes to pg_logical_emit_message, e.g. \"outbox\"");
    }
    array +=
        (array.size() > 1 ? ", " : "") + TomlString(std::string_view(entry.data(), entry.size()));
    any = true;
  }
  if (any) out.Raw("message_prefixes", array + "]", "message.prefix.include.list");
  return absl::OkStatus();
}

absl::Status Tables(ConnectorOptions& options, TomlSection& out, bool table_less) {
  const std::string* list = options.Find("table.include.list");
  if (table_less && (list == nullptr || absl::StripAsciiWhitespace(*list).empty())) {
    return absl::OkStatus();  // A table-less outbox: messages only.
  }
  if (list == nullptr || absl::StripAsciiWhitespace(*list).empty()) {
    return options.Error("table.include.list", "is missing (Debezium would capture every table)",
                         "set it to the outbox table(s), e.g. \"public.outbox\"");
  }
  std::string array = "[";
  for (absl::string_view entry : absl::StrSplit(*list, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    absl::StatusOr<std::string> name =
        TableName(options, std::string_view(entry.data(), entry.size()));
    if (!name.ok()) return name.status();
    array += (array.size() > 1 ? ", " : "") + TomlString(*name);
  }
  out.Raw("tables", array + "]", "table.include.list");
  return absl::OkStatus();
}

absl::Status Plugin(ConnectorOptions& options) {
  const std::string plugin = options.Get("plugin.name", "decoderbufs");
  if (plugin == "pgoutput") return absl::OkStatus();
  return options.Error("plugin.name",
                       fmt::format("is \"{}\"{}, and outboxd decodes only pgoutput", plugin,
                                   options.Find("plugin.name") ? "" : " (Debezium's default)"),
                       "set \"plugin.name\": \"pgoutput\" (a slot made for another plugin cannot "
                       "be taken over: use a new slot.name)");
}

void Publication(ConnectorOptions& options, TomlSection& out, std::vector<std::string>& warnings) {
  out.String("publication", options.Get("publication.name", "dbz_publication"), "publication.name");
  const std::string mode = options.Get("publication.autocreate.mode", "all_tables");
  if (mode == "disabled") {
    // Debezium creates a missing slot in every mode (PostgresConnectorTask.tryToCreateSlot).
    out.Raw("create_publication", "false", "publication.autocreate.mode = disabled");
    warnings.push_back(
        "publication.autocreate.mode=disabled: the publication must exist (outboxd does not "
        "create it); a missing slot is created, as Debezium does");
  } else if (mode != "filtered") {
    warnings.push_back(fmt::format(
        "publication.autocreate.mode={}: outboxd creates a missing publication for the listed "
        "tables only (like filtered); an existing publication is used as it is",
        mode));
  }
}

}  // namespace

absl::Status TranslatePostgres(ConnectorOptions& options, TomlSection& out, std::string& password,
                               std::vector<std::string>& warnings) {
  if (auto s = Plugin(options); !s.ok()) return s;
  absl::StatusOr<std::string> conninfo = Conninfo(options);
  if (!conninfo.ok()) return conninfo.status();
  password = options.Get("database.password", "");
  const bool has_password = !password.empty();
  if (has_password && IsProviderReference(password)) {
    warnings.push_back(fmt::format(
        "database.password is a Kafka Connect config provider reference ({}), which outboxd "
        "cannot resolve: set {} to the password",
        password.substr(0, password.find(':')) + ":...}", "OUTBOXD_POSTGRES_PASSWORD"));
    password.clear();
  }
  // The password is never written out: the TOML reads it from the environment.
  std::string text = TomlString(*conninfo);
  if (has_password) {
    text.pop_back();
    text += " password='${OUTBOXD_POSTGRES_PASSWORD}'\"";
  }
  out.Raw("conninfo", text,
          has_password ? "database.*; export OUTBOXD_POSTGRES_PASSWORD=<database.password>"
                       : "database.*");
  out.String("slot", options.Get("slot.name", "debezium"), "slot.name");
  Publication(options, out, warnings);
  bool table_less = false;
  if (auto s = MessagePrefixes(options, out, table_less); !s.ok()) return s;
  if (auto s = Tables(options, out, table_less); !s.ok()) return s;
  if (const std::string* ms = options.Find("status.update.interval.ms")) {
    out.Raw("status_interval_ms", *ms, "status.update.interval.ms");
  }
  if (options.Get("slot.drop.on.stop", "false") == "true") {
    warnings.push_back("slot.drop.on.stop=true ignored: outboxd never drops its slot");
  }
  const std::string snapshot = options.Get("snapshot.mode", "initial");
  if (snapshot != "no_data" && snapshot != "never") {
    warnings.push_back(fmt::format(
        "snapshot.mode={}: outboxd never snapshots; it streams from the slot (a new slot starts "
        "at the current WAL position, like no_data)",
        snapshot));
  }
  return absl::OkStatus();
}

}  // namespace outboxd::debezium_import::internal
