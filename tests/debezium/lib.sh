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

# write_rows FILE [with_null_type] — copies the varied rows of the captured fixture to FILE and
# runs it. The rows after its with_null_type marker (a NULL aggregatetype, and a row after it)
# only with with_null_type: they make Debezium's task FAIL.
ROWS_SQL="$OUTBOXD_REPO_ROOT/tests/unit/outbox/testdata/debezium-3.6.1/rows.sql"
write_rows() {
  local file=$1
  if [[ ${2:-} == with_null_type ]]; then
    cp "$ROWS_SQL" "$file"
  else
    sed '/^-- with_null_type:/,$d' "$ROWS_SQL" >"$file"
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

