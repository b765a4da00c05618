-- The stock service's tables: run in its schema after inbox.sql and outbox.sql.
CREATE TABLE IF NOT EXISTS stock (
  sku       text    PRIMARY KEY,
  initial   integer NOT NULL,                       -- for the audit: initial - available = held
  available integer NOT NULL CHECK (available >= 0)
);
-- Plenty of the common items, little of 'rare': orders for it run out.
INSERT INTO stock VALUES ('sku-0', 100000, 100000), ('sku-1', 100000, 100000),
  ('sku-2', 100000, 100000), ('rare', 20, 20) ON CONFLICT (sku) DO NOTHING;

-- One row per order ever asked about. The primary key makes a retried ReserveStock (a new
-- message id, so the inbox lets it through) answer from this row instead of reserving twice.
CREATE TABLE IF NOT EXISTS reservations (
  order_id   text        PRIMARY KEY,
  sku        text        NOT NULL,
  quantity   integer     NOT NULL,  -- held while 'reserved'
  -- reserved; refused (shortage); released (given back, or released before any reservation,
  -- so that a late ReserveStock cannot reserve for a cancelled order)
  status     text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
