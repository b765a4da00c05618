# shellcheck shell=bash
# Shared by tests/debezium/capture and tests/debezium/equivalence (source after scripts/lib.sh
# and the services' env): the outbox tables, the connector JSON per converter set-up, the rows.
# shellcheck disable=SC2034  # read by the scripts that source this file
SETUPS=(string string_noext json json_schema bytes json_expanded)
# Confluent's AvroConverter on key and value against OUTBOXD_TEST_SCHEMA_REGISTRY_URL (its jar
# is built from source: scripts/debezium avro-converter); the equivalence test adds them.
# shellcheck disable=SC2034
AVRO_SETUPS=(avro avro_expanded)

psql_app() { psql -X -q -v ON_ERROR_STOP=1 "$OUTBOXD_TEST_PG_CONNINFO" "$@"; }

# kafka_topics BOOTSTRAP ARGS... — Kafka's topic tool.
kafka_topics() {
  local bootstrap=$1
  shift
  java -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
    "$@" >/dev/null
}

create_tables() {
  psql_app <<'SQL'
DROP TABLE IF EXISTS outbox_jsonb, outbox_text, outbox_bytea, outbox_nulls;
CREATE TABLE outbox_jsonb (id uuid PRIMARY KEY, aggregatetype text NOT NULL,
  aggregateid text NOT NULL, type text NOT NULL, payload jsonb);
CREATE TABLE outbox_text (LIKE outbox_jsonb INCLUDING ALL);
ALTER TABLE outbox_text ALTER COLUMN payload TYPE text;
CREATE TABLE outbox_bytea (LIKE outbox_jsonb INCLUDING ALL);
ALTER TABLE outbox_bytea ALTER COLUMN payload TYPE bytea USING NULL;
CREATE TABLE outbox_nulls (id uuid, aggregatetype text, aggregateid text, type text, payload jsonb);
SQL
}

# connector_json SETUP [SLOT PREFIX] — the connector as it would be posted to Connect's REST API
# (slot dbz_SETUP and topic.prefix dbz_SETUP unless given).
connector_json() {
  local setup=$1 slot=${2:-dbz_$1} prefix=${3:-dbz_$1} conv=org.apache.kafka.connect.storage.StringConverter schemas="" ext=""
  local value_conv="" extra='{}'
  case $setup in
    json) conv=org.apache.kafka.connect.json.JsonConverter schemas=false ;;
    json_schema) conv=org.apache.kafka.connect.json.JsonConverter schemas=true ;;
    string_noext) ext=false ;;
    # bytea payloads untouched, anything else through the delegate (JSON without schemas).
    bytes)
      value_conv=io.debezium.converters.BinaryDataConverter
      extra='{"value.converter.delegate.converter.type": "org.apache.kafka.connect.json.JsonConverter",
              "value.converter.delegate.converter.type.schemas.enable": "false"}' ;;
    json_expanded)
      conv=org.apache.kafka.connect.json.JsonConverter schemas=true
      extra='{"transforms.outbox.table.expand.json.payload": "true"}' ;;
    avro | avro_expanded)
      conv=io.confluent.connect.avro.AvroConverter
      extra=$(jq -n --arg url "$OUTBOXD_TEST_SCHEMA_REGISTRY_URL" --arg expand "${setup#avro}" '
        {"key.converter.schema.registry.url": $url, "value.converter.schema.registry.url": $url}
        + (if $expand == "" then {} else {"transforms.outbox.table.expand.json.payload": "true"} end)') ;;
  esac
  jq -n --arg s "$setup" --arg slot "$slot" --arg prefix "$prefix" --arg port "$OUTBOXD_TEST_PG_PORT" --arg conv "$conv" \
    --arg schemas "$schemas" --arg ext "$ext" --arg value_conv "${value_conv:-$conv}" \
    --argjson extra "$extra" '{
    name: ("dbz-" + $s),
    config: ({
      "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
      "database.hostname": "127.0.0.1", "database.port": $port, "database.user": "outboxd",
      "database.password": "outboxd", "database.dbname": "app",
      "topic.prefix": $prefix, "plugin.name": "pgoutput",
      "slot.name": $slot, "publication.name": ("dbz_" + $s + "_pub"),
      "publication.autocreate.mode": "filtered",
      "table.include.list": "public.outbox_jsonb,public.outbox_text,public.outbox_bytea,public.outbox_nulls",
      "snapshot.mode": "no_data", "tombstones.on.delete": "false",
      "transforms": "outbox",
      "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
      "transforms.outbox.route.topic.replacement": ($s + ".outbox.event.${routedByValue}"),
      "key.converter": $conv, "value.converter": $value_conv
    } + (if $schemas == "" then {} else
          {"key.converter.schemas.enable": $schemas, "value.converter.schemas.enable": $schemas} end)
      + (if $ext == "" then {} else {"extended.headers.enabled": $ext} end) + $extra)
  }'
}

# write_rows FILE [with_null_type] — copies the varied rows of the captured fixture to FILE and
# runs it. The rows after its with_null_type marker (a NULL aggregatetype, and a row after it)
# only with with_null_type: they make Debezium's task FAIL.
ROWS_SQL="$OUTBOXD_REPO_ROOT/tests/unit/encoding/testdata/debezium-3.6.1/rows.sql"
write_rows() {
  local file=$1
  if [[ ${2:-} == with_null_type ]]; then
    cp "$ROWS_SQL" "$file"
  else
    sed '/^-- with_null_type:/,$d' "$ROWS_SQL" >"$file"
  fi
  psql_app -f "$file"
}

# write_expand_rows — 9 more rows (topic outbox.event.expand) for table.expand.json.payload's
# cases that Debezium handles deterministically and without failing its task: nulls and empty
# arrays dropped, number widths, nested structs, arrays of structs and of arrays, payloads left
# unexpanded, a repeated key and trailing text (text column), and "[]" (a null schema) last.
write_expand_rows() {
  psql_app <<'SQL'
INSERT INTO outbox_text VALUES
  ('60000000-0000-4000-8000-000000000001', 'expand', 'x-1', 'Duplicate', '{"dup": 1, "dup": "two", "o": 3}'),
  ('60000000-0000-4000-8000-000000000002', 'expand', 'x-1', 'Leading', ' {"lead": 1}'),
  ('60000000-0000-4000-8000-000000000003', 'expand', 'x-2', 'Trailing', '{"x": 1.25} trailing');
INSERT INTO outbox_jsonb VALUES
  ('60000000-0000-4000-8000-000000000004', 'expand', 'x-2', 'Scalars',
   '{"n": null, "e": [], "z": {}, "s": "x", "t": true, "i": 2147483647, "l": 2147483648,
     "neg": -9223372036854775808, "f": 1e-5, "g": 12345678.9, "h": 0.001}'),
  ('60000000-0000-4000-8000-000000000005', 'expand', 'x-3', 'Nested',
   '{"a": {"b": {"c": [1, 2, null]}}, "arr": [{"id": 1, "tags": ["x"]}, {"id": 2, "tags": ["y", "z"]}],
     "m": [[1, 2], [3]], "same": [{"id": 1}, {"id": 2, "extra": null}]}'),
  ('60000000-0000-4000-8000-000000000006', 'expand', 'x-3', 'OnlyNulls', '{"k": [null, null]}'),
  ('60000000-0000-4000-8000-000000000007', 'expand', 'x-4', 'Escapes',
   '{"u": "\ud83d\ude00 \u00e9 \"q\" \\ \/ \t"}'),
  ('60000000-0000-4000-8000-000000000008', 'expand', 'x-4', 'Mixed', '{"v": [1, 2.5]}');
INSERT INTO outbox_jsonb VALUES
  ('60000000-0000-4000-8000-000000000009', 'expand', 'x-5', 'EmptyArray', '[]');
SQL
}

# topics_of BOOTSTRAP SETUP — the topics of SETUP's routing ("SETUP.outbox.event.*").
topics_of() {
  kcat -b "$1" -L -J 2>/dev/null | jq -r --arg p "$2.outbox.event." \
    '.topics[].topic | select(startswith($p))' | sort
}

# dump_setup DUMP BOOTSTRAP SETUP OUT_DIR — every topic of SETUP into OUT_DIR/<topic>.jsonl.
dump_setup() {
  local dump=$1 bootstrap=$2 setup=$3 out=$4 t
  mkdir -p "$out"
  rm -f "$out"/*.jsonl
  for t in $(topics_of "$bootstrap" "$setup"); do "$dump" "$bootstrap" "$t" >"$out/$t.jsonl"; done
}

