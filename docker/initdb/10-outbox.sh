#!/bin/sh
# Run once by the postgres image's entrypoint on an empty data directory, as POSTGRES_USER
# (app_owner, the application's role). Creates the outbox table and its publication as their
# owner, and outboxd's least-privileged role: LOGIN REPLICATION and SELECT on the table,
# nothing else (docs/security.md, "Least-privilege role").
set -eu
psql -v ON_ERROR_STOP=1 -v outboxd_password="$OUTBOXD_PG_PASSWORD" \
  --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE TABLE public.outbox (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    aggregatetype text NOT NULL,
    aggregateid   text NOT NULL,
    type          text NOT NULL,
    payload       jsonb,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE PUBLICATION outboxd FOR TABLE public.outbox WITH (publish = 'insert');
CREATE ROLE outboxd LOGIN REPLICATION PASSWORD :'outboxd_password';
GRANT SELECT ON public.outbox TO outboxd;
SQL
