-- The outbox of each saga service (examples/saga): run once in each service's schema (after
-- examples/consumer/inbox.sql and before the service's own file). outboxd publishes its inserts
-- as envelope-protobuf records; rows are kept, so a run can be audited afterwards.
CREATE TABLE IF NOT EXISTS outbox (
  id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),  -- Event.id: the inbox key
  aggregatetype  text        NOT NULL,  -- routes the topic, <prefix>.<aggregatetype>
  aggregateid    text        NOT NULL,  -- the order id: the record key, one saga in order
  type           text        NOT NULL,  -- Event.type, e.g. ReserveStock
  version        integer     NOT NULL DEFAULT 1,  -- the message schema: Event.headers["version"]
  correlation_id text        NOT NULL,  -- Event.correlation_id: the order (saga) id
  causation_id   text,                  -- Event.causation_id: the message that caused this one
  payload        jsonb       NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);
