#!/usr/bin/env bash
# The official postgres image's entrypoint, reduced to what docker/compose.yaml relies on:
# as root, own the data directory and re-run as postgres; on an empty data directory, initdb
# with POSTGRES_USER/POSTGRES_PASSWORD, allow password logins from the network, create
# POSTGRES_DB, run /docker-entrypoint-initdb.d/* against a server reachable only on its Unix
# socket, stop it; then exec the command (`postgres -c ...`).
set -Eeo pipefail

if [[ ${1:-postgres} == -* ]]; then set -- postgres "$@"; fi
[[ $# -gt 0 ]] || set -- postgres

if [[ $1 == postgres && $(id -u) == 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "${BASH_SOURCE[0]}" "$@"
fi

# run_init_file FILE — as the official image: *.sh executed (or sourced if not executable),
# *.sql and *.sql.gz fed to psql against POSTGRES_DB.
run_init_file() {
  local f=$1
  case $f in
    *.sh)
      # shellcheck disable=SC1090  # the init scripts are the user's
      if [[ -x $f ]]; then echo "$0: running $f"; "$f"; else echo "$0: sourcing $f"; . "$f"; fi ;;
    *.sql) echo "$0: running $f"; psql -v ON_ERROR_STOP=1 --dbname "$POSTGRES_DB" -f "$f" ;;
    *.sql.gz) echo "$0: running $f"; gunzip -c "$f" | psql -v ON_ERROR_STOP=1 --dbname "$POSTGRES_DB" ;;
    *) echo "$0: ignoring $f" ;;
  esac
}

# init_cluster COMMAND... — as the official image, the temporary server takes the command's
# settings (wal_level=logical, ...) and listens on its Unix socket only.
init_cluster() {
  export POSTGRES_USER=${POSTGRES_USER:-postgres}
  export POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
  local auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  if [[ -z ${POSTGRES_PASSWORD:-} && $auth != trust ]]; then
    echo "$0: POSTGRES_PASSWORD is not set (or set POSTGRES_HOST_AUTH_METHOD=trust)" >&2
    exit 1
  fi
  # shellcheck disable=SC2086  # POSTGRES_INITDB_ARGS is a list of flags
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") \
    ${POSTGRES_INITDB_ARGS:-}
  printf '\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"
  shift
  pg_ctl -D "$PGDATA" -o "$(printf '%q ' "$@" -c listen_addresses='' -p 5432)" -w start
  export PGUSER=$POSTGRES_USER PGPASSWORD=${POSTGRES_PASSWORD:-}
  if [[ $POSTGRES_DB != postgres ]]; then
    # Through stdin: psql substitutes :"db" there, not in -c.
    psql -v ON_ERROR_STOP=1 --dbname postgres --set db="$POSTGRES_DB" <<<'CREATE DATABASE :"db"'
  fi
  local f
  for f in /docker-entrypoint-initdb.d/*; do
    [[ -e $f ]] && run_init_file "$f"
  done
  pg_ctl -D "$PGDATA" -m fast -w stop
  unset PGUSER PGPASSWORD
  echo "$0: PostgreSQL init process complete; ready for start up."
}

if [[ $1 == postgres && ! -s $PGDATA/PG_VERSION ]]; then
  init_cluster "$@"
fi
exec "$@"
