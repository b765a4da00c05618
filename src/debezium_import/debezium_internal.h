#pragma once
// Internal to the Debezium import (debezium_import.h): the connector's options and the TOML
// being written from them.

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace outboxd::debezium_import::internal {

// The connector's "config" map, values as text, with a record of which options were read so
// that every option left over can be named in a warning.
class ConnectorOptions {
 public:
  using Values = std::map<std::string, std::string, std::less<>>;
  ConnectorOptions(std::string source, Values values)
      : source_(std::move(source)), values_(std::move(values)) {}

  // The value of `name` (marked as read), or nullptr when absent.
  const std::string* Find(std::string_view name);
  // The value of `name`, or `fallback` when absent.
  std::string Get(std::string_view name, std::string_view fallback);
  // Marks every option starting with `prefix` as read and returns their names.
  std::vector<std::string> TakePrefix(std::string_view prefix);
  // Options never read, in name order.
  std::vector<std::string> Unread() const;
  // InvalidArgument "<source>: option <name> <problem>; <fix>".
  absl::Status Error(std::string_view name, std::string_view problem, std::string_view fix) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  Values values_;
  std::set<std::string, std::less<>> read_;
};

// The TOML written for one section, key by key.
struct TomlSection {
  std::string name;
  std::vector<std::string> lines;  // `key = value  # comment`

  void String(std::string_view key, std::string_view value, std::string_view comment = "");
  void Raw(std::string_view key, std::string_view value, std::string_view comment = "");
};

// `text` as a TOML basic string: quoted, with ", \ and control characters escaped, non-ASCII
// as \uXXXX / \UXXXXXXXX (the TOML parser mishandles some raw code points), and, when
// `literal_dollar`, "${" written as "$${" so ParseConfig's ${VAR} expansion leaves it alone.
// `text` must be valid UTF-8.
std::string TomlString(std::string_view text, bool literal_dollar = true);

// True for a Kafka Connect config provider reference such as "${file:/path:key}".
bool IsProviderReference(std::string_view value);

// Fill [postgres] from database.*, slot.name, publication.name, table.include.list, ...
// `password` receives database.password (kept out of the TOML).
absl::Status TranslatePostgres(ConnectorOptions& options, TomlSection& out, std::string& password,
                               std::vector<std::string>& warnings);
// Fill [outbox] from the converters, the Event Router transform and the connector's
// header options.
absl::Status TranslateOutbox(ConnectorOptions& options, TomlSection& out,
                             std::vector<std::string>& warnings);

// True when [outbox] `out` got `side`_converter = "avro", or "avro" as the delegate of "bytes".
bool UsesAvroConverter(const TomlSection& out, std::string_view side);
// Where `side`.converter's AvroConverter options are: "<side>.converter.", or under
// BinaryDataConverter "<side>.converter.delegate.converter.type.".
std::string AvroOptionPrefix(ConnectorOptions& options, std::string_view side);
// Fill [schema_registry] `out` from the avro converters of [outbox] `outbox` (none: nothing);
// with both avro, their registry options must agree (outboxd has one registry).
absl::Status TranslateRegistries(ConnectorOptions& options, const TomlSection& outbox,
                                 TomlSection& out, std::string& password);
// Fill [schema_registry] from `side`.converter's AvroConverter options ("key" or "value"), or
// those of its BinaryDataConverter's delegate;
// `password` receives basic.auth.user.info's password (kept out of the TOML).
absl::Status TranslateSchemaRegistry(ConnectorOptions& options, std::string_view side,
                                     TomlSection& out, std::string& password);

}  // namespace outboxd::debezium_import::internal
