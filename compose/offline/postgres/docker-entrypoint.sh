#!/bin/sh
# Start PostgreSQL; on the first start initialise PGDATA with POSTGRES_USER (superuser, default
# postgres), POSTGRES_PASSWORD (required) and POSTGRES_DB (default: the user's name).
set -eu
if [ "${1:-postgres}" != postgres ]; then exec "$@"; fi
[ "$#" -gt 0 ] && shift
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  user=${POSTGRES_USER:-postgres}
  db=${POSTGRES_DB:-$user}
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "docker-entrypoint: POSTGRES_PASSWORD is required" >&2; exit 1; }
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  printf "listen_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "docker-entrypoint: initialised $PGDATA (user $user, database $db)"
fi
exec postgres -D "$PGDATA" "$@"
