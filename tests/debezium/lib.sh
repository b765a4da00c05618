# shellcheck shell=bash
# Shared by tests/debezium/capture and tests/debezium/equivalence (source after scripts/lib.sh
# and the services' env): the outbox tables, the connector JSON per converter set-up, the rows.
SETUPS=(string string_noext json json_schema)

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
  case $setup in
    json) conv=org.apache.kafka.connect.json.JsonConverter schemas=false ;;
    json_schema) conv=org.apache.kafka.connect.json.JsonConverter schemas=true ;;
    string_noext) ext=false ;;
  esac
  jq -n --arg s "$setup" --arg slot "$slot" --arg prefix "$prefix" --arg port "$OUTBOXD_TEST_PG_PORT" --arg conv "$conv" \
    --arg schemas "$schemas" --arg ext "$ext" '{
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
      "key.converter": $conv, "value.converter": $conv
    } + (if $schemas == "" then {} else
          {"key.converter.schemas.enable": $schemas, "value.converter.schemas.enable": $schemas} end)
      + (if $ext == "" then {} else {"extended.headers.enabled": $ext} end))
  }'
}

# write_rows FILE [with_null_type] — writes the varied rows to FILE and runs it. A NULL
# aggregatetype (and a row after it) only with with_null_type: it makes Debezium's task FAIL.
write_rows() {
  local file=$1
  cat >"$file" <<'SQL'
BEGIN;
INSERT INTO outbox_jsonb SELECT ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid,
  'orders', 'order-' || (i % 7), 'OrderCreated', jsonb_build_object('n', i, 'price', 1.50 * i)
  FROM generate_series(1, 40) AS i;
COMMIT;
INSERT INTO outbox_jsonb VALUES
  ('10000000-0000-4000-8000-000000000001', 'customers', 'ключ-ü-😀', 'Unicode',
   '{"text": "héllo ✓ 😀", "esc": "a\"b\\c\n\t/", "ctl": "\u0001"}'),
  ('10000000-0000-4000-8000-000000000002', 'customers', 'c-1', 'Nested',
   '{"a": {"b": [1, 2.50, 1e3, -0, 12345678901234567890, true, null, {"c": []}]}, "z": {}}'),
  ('10000000-0000-4000-8000-000000000003', 'customers', 'c-2', 'Big',
   jsonb_build_object('blob', repeat('x', 100000))),
  ('10000000-0000-4000-8000-000000000004', 'customers', 'c-3', 'NullPayload', NULL),
  ('10000000-0000-4000-8000-000000000005', 'customers', '', 'EmptyKey', '{"k": ""}'),
  ('10000000-0000-4000-8000-000000000006', '', 'e-1', 'EmptyType', '{"t": ""}'),
  ('10000000-0000-4000-8000-000000000007', 'shipments', 's-1', 'Shipped', '"just a string"'),
  ('10000000-0000-4000-8000-000000000008', 'shipments', 's-1', 'Shipped', '[1, "two"]');
INSERT INTO outbox_text VALUES
  ('20000000-0000-4000-8000-000000000001', 'texts', 't-1', 'Json', '{"b": 1,  "a": "spaced"}'),
  ('20000000-0000-4000-8000-000000000002', 'texts', 't-1', 'Plain', 'plain text, not JSON'),
  ('20000000-0000-4000-8000-000000000003', 'texts', 't-2', 'Empty', ''),
  ('20000000-0000-4000-8000-000000000004', 'texts', 't-2', 'Null', NULL),
  ('20000000-0000-4000-8000-000000000005', 'texts', 'ü', 'Unicode', 'ünïcødé 😀 "q"');
INSERT INTO outbox_bytea VALUES
  ('30000000-0000-4000-8000-000000000001', 'bytes', 'b-1', 'Binary', '\x00ff10e282ac'),
  ('30000000-0000-4000-8000-000000000002', 'bytes', 'b-1', 'Empty', '\x'),
  ('30000000-0000-4000-8000-000000000003', 'bytes', 'b-2', 'JsonBytes', convert_to('{"j": 1}', 'UTF8')),
  ('30000000-0000-4000-8000-000000000004', 'bytes', 'b-2', 'Null', NULL);
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000001', 'nulls', NULL, 'NullAggregateId', '{"x": 1}');
INSERT INTO outbox_nulls VALUES (NULL, 'nulls', 'n-1', 'NullId', '{"x": 2}');
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000003', 'nulls', 'n-2', NULL, '{"x": 3}');
SQL
  if [[ ${2:-} == with_null_type ]]; then
    cat >>"$file" <<'SQL'
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000004', NULL, 'n-3', 'NullAggregateType', '{"x": 4}');
INSERT INTO outbox_nulls VALUES
  ('40000000-0000-4000-8000-000000000005', 'nulls', 'n-4', 'AfterNulls', '{"x": 5}');
SQL
  fi
  psql_app -f "$file"
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

