-- The payment service's tables: run in its schema after inbox.sql and outbox.sql.
-- One row per order ever asked about; the primary key makes a retried ChargePayment answer from
-- it instead of charging twice.
CREATE TABLE IF NOT EXISTS payments (
  order_id   text        PRIMARY KEY,
  amount     bigint      NOT NULL,
  -- charged; refused (card declined); voided (the charge refunded, or voided before any charge,
  -- so that a late ChargePayment is refused)
  status     text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Every movement of money, append-only: the audit counts charges and refunds per order.
CREATE TABLE IF NOT EXISTS ledger (
  entry    bigserial   PRIMARY KEY,
  order_id text        NOT NULL,
  kind     text        NOT NULL,  -- charge, refund
  amount   bigint      NOT NULL,
  at       timestamptz NOT NULL DEFAULT now()
);
