-- The example consumer's business table (examples/consumer), after the inbox: run once in the
-- consumer's database, e.g.
--   psql "$CONNINFO" -f examples/consumer/inbox.sql -f examples/consumer/schema.sql
-- The consumer finds it through its connection's search_path.

-- The business write: a projection of every aggregate's events. Each event adds 1 to
-- event_count and its payload's "amount" (a JSON number; 0 when absent) to amount_total.
CREATE TABLE IF NOT EXISTS aggregate_totals (
  aggregate_type text   NOT NULL,
  aggregate_id   text   NOT NULL,
  event_count    bigint NOT NULL,
  amount_total   bigint NOT NULL,
  PRIMARY KEY (aggregate_type, aggregate_id)
);
