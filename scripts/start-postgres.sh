#!/usr/bin/env bash
# Starts Debian's PostgreSQL cluster on this machine (creating one if there is none), makes sure the
# role and database the tests and benchmarks use exist, and prints their connection URL.
# Used by .ci/run and npm run bench:serve; needs root (as CI and the developers' machines have).
set -euo pipefail
cluster=$(pg_lsclusters -h 2>/dev/null | head -n 1)
if [ -z "$cluster" ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  pg_createcluster "$version" main >/dev/null
  cluster=$(pg_lsclusters -h | head -n 1)
fi
read -r pg_version pg_name pg_port pg_status _ <<<"$cluster"
[ "$pg_status" = online ] || pg_ctlcluster "$pg_version" "$pg_name" start >&2
for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p "$pg_port" && break; sleep 1; done
psql_admin() { su postgres -c "psql -p $pg_port -qtAc \"$1\""; }
[ "$(psql_admin "SELECT 1 FROM pg_roles WHERE rolname = 'tariff'")" = 1 ] || psql_admin "CREATE ROLE tariff LOGIN PASSWORD 'tariff' CREATEDB" >&2
[ "$(psql_admin "SELECT 1 FROM pg_database WHERE datname = 'tariff_test'")" = 1 ] || psql_admin "CREATE DATABASE tariff_test OWNER tariff" >&2
echo "postgres://tariff:tariff@127.0.0.1:${pg_port}/tariff_test"
