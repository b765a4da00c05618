-- The inbox of every example consumer (examples/consumer, examples/saga): run once in each
-- consuming service's schema, before its own tables, e.g.
--   psql "$CONNINFO" -f examples/consumer/inbox.sql -f examples/consumer/schema.sql
-- The consumer finds it through its connection's search_path.

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
  applied_at      timestamptz NOT NULL DEFAULT now(),
  deliveries      integer     NOT NULL DEFAULT 1  -- 1 + the duplicates skipped, for audits
);
