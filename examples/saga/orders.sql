-- The order service's (orchestrator's) tables: run in its schema after inbox.sql and outbox.sql.
-- One row per saga. Its state advances only in the transaction that writes the next command (or
-- the final event) to the outbox, so the two can never disagree.
CREATE TABLE IF NOT EXISTS orders (
  order_id     text        PRIMARY KEY,
  sku          text        NOT NULL,
  quantity     integer     NOT NULL,
  amount       bigint      NOT NULL,  -- in cents
  card         text        NOT NULL,  -- 'declined': the payment service refuses the charge
  -- RESERVING, CHARGING, VOIDING, RELEASING (a reply awaited), CONFIRMED, CANCELLED (done)
  state        text        NOT NULL,
  step_cause   uuid,                  -- the message that started the step: its commands' causation
  step_command uuid,                  -- the step's latest command (the outbox row's id)
  attempts     integer     NOT NULL DEFAULT 1,  -- sends of the step's command
  deadline     timestamptz,           -- when it is sent again or compensated; NULL once done
  -- confirmed, out_of_stock, payment_refused, stock_timeout, payment_timeout
  outcome      text,
  retries      integer     NOT NULL DEFAULT 0,  -- commands sent again after a deadline
  late_replies integer     NOT NULL DEFAULT 0,  -- replies that came after their step: ignored
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX IF NOT EXISTS orders_deadline ON orders (deadline) WHERE deadline IS NOT NULL;
