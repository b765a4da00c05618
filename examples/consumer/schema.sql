-- The consumer's own tables (examples/consumer): run once in the consumer's database, e.g.
--   psql "$CONNINFO" -f examples/consumer/schema.sql
-- The consumer finds them through its connection's search_path.

-- One row per event ever applied. The primary key on event_id is the deduplication: a replayed
-- record inserts nothing (ON CONFLICT DO NOTHING), so its business write is skipped. Rows are
-- written in the same transaction as the business write, so both exist or neither does.
CREATE TABLE IF NOT EXISTS inbox (
  event_id        text        PRIMARY KEY,  -- Event.id (the outbox row's id, usually a uuid)
  aggregate_type  text        NOT NULL,     -- Event.aggregate_type
  aggregate_id    text        NOT NULL,     -- Event.aggregate_id
  event_type      text        NOT NULL,     -- Event.type
  kafka_topic     text        NOT NULL,     -- where the first delivery came from, for audits
  kafka_partition integer     NOT NULL,
  kafka_offset    bigint      NOT NULL,
  applied_at      timestamptz NOT NULL DEFAULT now()
);

-- The business write: a projection of every aggregate's events. Each event adds 1 to
-- event_count and its payload's "amount" (a JSON number; 0 when absent) to amount_total.
CREATE TABLE IF NOT EXISTS aggregate_totals (
  aggregate_type text   NOT NULL,
  aggregate_id   text   NOT NULL,
  event_count    bigint NOT NULL,
  amount_total   bigint NOT NULL,
  PRIMARY KEY (aggregate_type, aggregate_id)
);
