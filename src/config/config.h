#pragma once
// outboxd's configuration: one TOML file plus a few environment overrides, parsed and validated
// once at start-up into a plain Config that the rest of the daemon only reads.
//
// Secrets need not live in the file: string values may hold ${NAME} references to environment
// variables (env_expand.h: "$${" is a literal "${"; not in [outbox] topic), and these
// overrides replace whole values after the file is read:
//   OUTBOXD_POSTGRES_CONNINFO        replaces [postgres] conninfo
//   OUTBOXD_KAFKA_BOOTSTRAP_SERVERS  replaces [kafka] "bootstrap.servers"
//   OUTBOXD_KAFKA_SASL_PASSWORD      replaces [kafka] "sasl.password"
// A key that an override supplies may be left out of the file.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/log.h"

namespace outboxd::config {

inline constexpr std::string_view kEnvConninfo = "OUTBOXD_POSTGRES_CONNINFO";
inline constexpr std::string_view kEnvBootstrapServers = "OUTBOXD_KAFKA_BOOTSTRAP_SERVERS";
inline constexpr std::string_view kEnvSaslPassword = "OUTBOXD_KAFKA_SASL_PASSWORD";

// A table as pgoutput names it. Matched byte for byte against Relation messages, so an
// unquoted (lower-cased by Postgres) identifier must be written in lower case.
struct TableName {
  std::string schema;
  std::string name;

  std::string ToString() const { return schema + "." + name; }
  friend bool operator==(const TableName&, const TableName&) = default;
};

// [postgres] iam_auth: where the password of each connection attempt comes from.
enum class IamAuth {
  kNone,    // The conninfo's password (or .pgpass, a client certificate, ...).
  kAwsRds,  // A fresh RDS IAM token per attempt (src/cloud); needs sslmode=verify-full.
};

struct PostgresConfig {
  std::string conninfo;  // libpq string; the pg module adds replication=database itself.
  IamAuth iam_auth = IamAuth::kNone;
  std::string aws_region;  // With kAwsRds: the database's region (aws_region or AWS_REGION).
  std::string slot = "outboxd";
  std::string publication = "outboxd";
  std::vector<TableName> tables;  // No duplicates; empty only when message_prefixes is not.
  // Prefixes of logical decoding messages (pg_logical_emit_message) that carry outbox events:
  // the table-less outbox. Exact matches, no duplicates; empty = no messages requested.
  std::vector<std::string> message_prefixes;
  bool create_slot = true;  // Create the slot and publication when missing.
  // With create_slot: create the publication when missing too. False = Debezium's
  // publication.autocreate.mode = disabled, which governs only the publication.
  bool create_publication = true;
  int32_t status_interval_ms = 1000;
  // The WAL guard (pg::SlotMonitor): how often pg_replication_slots is read, and the
  // safe_wal_size under which the slot counts as at risk (not ready); 0 disables the threshold,
  // kAutomaticMinSafeWal (unset) picks it from the server's max_slot_wal_keep_size.
  static constexpr int32_t kAutomaticMinSafeWal = -1;
  int32_t slot_check_interval_ms = 5000;
  int32_t min_safe_wal_size_mb = kAutomaticMinSafeWal;
  // Parallel slots (PG 15+): N > 1 streams slots "<slot>_<i>" with publications
  // "<publication>_<i>" (i = 0..N-1), whose row filters give each aggregate id to exactly one
  // (pg::PartitionFilter). 1 = the one slot and publication named above.
  int32_t parallel_slots = 1;
};

// The slot and publication of stream `index` (0 <= index < parallel_slots): the configured
// names with one slot, "<name>_<index>" with several.
std::string SlotName(const PostgresConfig& pg, int index);
// Every slot in stream order: the one slot, or "<slot>_0" to "<slot>_<N-1>".
std::vector<std::string> SlotNames(const PostgresConfig& pg);
std::string PublicationName(const PostgresConfig& pg, int index);

// Where table.fields.additional.placement puts a column: a record header, a field of the
// value's envelope next to "payload", or (an integer column) the record's partition.
enum class Placement { kHeader, kEnvelope, kPartition };

// One of Debezium's table.fields.additional.placement entries ("column:placement[:alias]").
struct AdditionalField {
  std::string column;
  std::string alias;  // Header or envelope field name: the alias, else the column name.
  Placement placement = Placement::kHeader;
  friend bool operator==(const AdditionalField&, const AdditionalField&) = default;
};
using HeaderPlacement = AdditionalField;  // The name from when headers were the only placement.

// Kafka Connect's converters, whose bytes outboxd reproduces: StringConverter, JsonConverter
// with schemas.enable=false, and with schemas.enable=true ({"schema":...,"payload":...}); kBytes
// is ByteArrayConverter, or Debezium's BinaryDataConverter with a delegate for values that are
// not bytes (value_converter_delegate); kAvro is Confluent's AvroConverter (Apicurio's in its
// Confluent-compatible mode): the Confluent wire format against [schema_registry].
enum class Converter { kString, kJson, kJsonWithSchema, kBytes, kAvro };

// table.op.invalid.behavior: what an UPDATE of an outbox row does (DELETEs are always skipped).
// kWarn and kError skip it with a log line of that level; kFatal stops outboxd.
enum class InvalidOpBehavior { kWarn, kError, kFatal };

// What happens to a row whose key column (aggregate id) or routing column (aggregate type)
// is empty (empty_keys) or whose id, key or type is NULL (null_keys).
enum class KeyPolicy { kDeadLetter, kPublish };

// [outbox] format: what a record's value and headers carry (docs/event-formats.md).
// kRaw is the Event Router's output (Debezium-compatible); the others follow
// proto/outboxd/v1/event.proto.
enum class Format { kRaw, kEnvelopeJson, kEnvelopeProtobuf, kCloudEvents };
// The CloudEvents Kafka protocol binding's content modes.
enum class CloudEventsMode { kBinary, kStructured };

// A column of the event contract's mapping (type_column, occurred_at_column, ...). A column
// left at its default name that a table lacks leaves its field unset; one set explicitly
// (`required`) must exist, which start-up checks (outbox/mapping_check.h).
struct ContractColumn {
  std::string name;
  bool required = false;
  friend bool operator==(const ContractColumn&, const ContractColumn&) = default;
};

struct OutboxConfig;
// The converter that writes a value that is not bytes: value_converter, or its delegate under
// kBytes (kBytes again when there is none).
Converter NonBytesValueConverter(const OutboxConfig& cfg);
// True when a key or value converter (or the value's delegate) is "avro": the schema registry
// is needed.
bool UsesAvro(const OutboxConfig& cfg);

// Defaults are those of Debezium's Outbox Event Router, except where noted.
struct OutboxConfig {
  // route.topic.replacement, applied to the routing value when topic_regex matches it whole
  // (Java RegexRouter: $n, ${name}; ${aggregatetype} = the whole value). Without a match the
  // topic is the routing value itself, as in Debezium.
  std::string topic = "outbox.event.${aggregatetype}";
  std::string topic_regex = "(?<routedByValue>.*)";  // route.topic.regex, Java syntax.
  std::string id_column = "id";
  std::string aggregate_type_column = "aggregatetype";
  std::string aggregate_id_column = "aggregateid";
  std::string payload_column = "payload";
  // table.field.event.timestamp: a timestamp column whose value becomes the record timestamp
  // (ms); empty = the time outboxd produces the record (Debezium: when it processed the row).
  std::string timestamp_column;
  std::vector<AdditionalField> additional_placement;
  bool tombstone_on_empty_payload = false;
  // table.expand.json.payload: a string payload that is a JSON object becomes a struct with the
  // schema Debezium infers (encoding/debezium/json_expand.h); JSON value converters only.
  bool expand_json_payload = false;
  InvalidOpBehavior op_invalid_behavior = InvalidOpBehavior::kWarn;
  Converter key_converter = Converter::kString;    // Connect's key.converter.
  Converter value_converter = Converter::kString;  // Connect's value.converter.
  // value_converter = kBytes: BinaryDataConverter's delegate.converter.type, which writes a value
  // that is not bytes (a text/json payload, an envelope). kBytes = none (ByteArrayConverter):
  // such a row is dead-lettered, where Debezium's task fails.
  Converter value_converter_delegate = Converter::kBytes;
  // Debezium's extended.headers.enabled: the __debezium.context.* headers first, in
  // Debezium's order. Native default off; a Debezium connector config turns it on.
  bool extended_headers = false;
  // Headers outboxd.slot, outboxd.commit_lsn and outboxd.ordinal on every event: a unique,
  // increasing key for consumers that de-duplicate instead of reading committed.
  bool position_headers = false;
  std::string logical_name;                   // topic.prefix, for connectorLogicalName.
  std::string connector_name = "postgresql";  // The connectorName header (plugin name).
  // Native default dead_letter; Debezium publishes (empty key, topic "outbox.event.").
  KeyPolicy empty_keys = KeyPolicy::kDeadLetter;
  // kPublish = Debezium: NULL aggregate id -> null key, NULL id -> "id" header with a null
  // value. A NULL aggregate type is dead-lettered either way (Debezium's task fails on it).
  KeyPolicy null_keys = KeyPolicy::kDeadLetter;
  std::string dead_letter_topic = "outbox.dlq";
  // Check that payloads of non-JSON column types (text, varchar, ...) are valid JSON; a row
  // whose payload is not goes to the dead-letter topic. json/jsonb are valid by construction
  // and bytea is raw bytes, so neither is checked.
  bool validate_json = false;
  Format format = Format::kRaw;
  CloudEventsMode cloudevents_mode = CloudEventsMode::kBinary;
  // ce_source; empty = "/outboxd/<schema.table>" (the prefix for a table-less event).
  std::string cloudevents_source;
  // The contract's mapped columns. traceparent/tracestate also become W3C trace-context
  // headers in the raw format.
  ContractColumn type_column{"type"};
  ContractColumn occurred_at_column{"occurred_at"};  // timestamptz or timestamp.
  ContractColumn correlation_id_column{"correlation_id"};
  ContractColumn causation_id_column{"causation_id"};
  ContractColumn traceparent_column{"traceparent"};
  ContractColumn tracestate_column{"tracestate"};
  ContractColumn content_type_column{"content_type"};
};

enum class Delivery {
  kAtLeastOnce,  // Idempotent producer; a crash may publish records again.
  // Kafka transactions: whole Postgres transactions with their position record, committed
  // together; read_committed consumers see each event once (docs/operating.md).
  kExactlyOnce,
};

struct RelayConfig {
  int32_t shutdown_timeout_ms = 10000;  // Bounded wait for outstanding deliveries on SIGTERM.
  Delivery delivery = Delivery::kAtLeastOnce;
  // exactly_once: the producer's transactional.id; empty = "outboxd-" + the slot's name.
  std::string transactional_id;
  // exactly_once: a Kafka transaction is committed at the first Postgres commit after it holds
  // this many records, this many bytes, or has been open this long.
  int32_t transaction_max_events = 10000;
  int32_t transaction_max_bytes = 16 << 20;
  int32_t transaction_max_ms = 100;
  // exactly_once: a Postgres transaction whose records have kept one Kafka transaction open
  // this long is split there (the broker aborts one open past transaction.timeout.ms, 60 s).
  int32_t transaction_split_ms = 20000;
};

// Confluent's subject name strategies: TopicNameStrategy ("<topic>-key"/"-value"),
// RecordNameStrategy (the schema's full name), TopicRecordNameStrategy ("<topic>-<name>").
enum class SubjectNameStrategy { kTopic, kRecord, kTopicRecord };

// [schema_registry]: the Confluent-compatible registry of the "avro" converters (Confluent's
// schema.registry.* and the AvroSerializer's settings).
struct SchemaRegistryConfig {
  std::string url;       // "http(s)://host:port[/path]"; empty = none (no avro converter).
  std::string username;  // basic.auth.user.info's user; empty = no basic auth.
  std::string password;
  std::string ca_file;                // PEM bundle for an https url; empty = the system's CAs.
  bool auto_register_schemas = true;  // auto.register.schemas
  bool use_latest_version = false;    // use.latest.version: the subject's latest schema id.
  SubjectNameStrategy subject_name_strategy = SubjectNameStrategy::kTopic;
  int32_t timeout_ms = 5000;  // Connect and read timeout of one request.
};

// The status server (/metrics, /healthz, /readyz).
struct HttpConfig {
  std::string listen;  // "host:port" or "[ipv6]:port", validated; empty = no server.
};

// [log]: unset keys leave the level and format to the flags, the environment or the defaults.
struct LogConfig {
  std::optional<log::Level> level;
  std::optional<log::Format> format;
};

// [kafka] sasl.oauthbearer.method = "aws_msk_iam": outboxd makes Amazon MSK IAM tokens and
// hands them to librdkafka's OAUTHBEARER refresh callback (src/cloud).
struct KafkaIamConfig {
  bool aws_msk_iam = false;
  std::string aws_region;  // The cluster's region ([kafka] aws_region or AWS_REGION).
};

struct Config {
  PostgresConfig postgres;
  // librdkafka producer properties in their string form, sorted by name; always holds
  // "bootstrap.servers". With MSK IAM, sasl.mechanism=OAUTHBEARER and no outboxd-only keys.
  std::vector<std::pair<std::string, std::string>> kafka;
  KafkaIamConfig kafka_iam;
  OutboxConfig outbox;
  SchemaRegistryConfig schema_registry;
  RelayConfig relay;
  HttpConfig http;
  LogConfig log;
  // What the file says that was accepted but should be written otherwise (an enum value in
  // another spelling), each "<file>:<line>: [section] key ...". Logged as warnings; `check`
  // prints them as WARN lines.
  std::vector<std::string> warnings;
};

// Looks up an environment variable; nullopt when unset. Injected so tests never read the real
// environment.
using Environment = std::function<std::optional<std::string>(std::string_view name)>;

// The process environment (getenv). Not thread-safe against concurrent setenv.
Environment ProcessEnvironment();

// Parses and validates `toml_text`. `source_name` (usually the path) prefixes every error.
// Returns InvalidArgument naming the file, line when known, key, problem and fix.
absl::StatusOr<Config> ParseConfig(std::string_view toml_text, std::string_view source_name,
                                   const Environment& env);

// Reads the file at `path` and parses it with `env` (the process environment by default).
// Returns InvalidArgument when the file cannot be read or is invalid.
absl::StatusOr<Config> LoadConfig(const std::string& path);
absl::StatusOr<Config> LoadConfig(const std::string& path, const Environment& env);

}  // namespace outboxd::config
