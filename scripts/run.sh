#!/usr/bin/env bash
# run.sh: `make run`: cluster, migrations, demo data, first admin, worker pool and nginx, all under var/.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/lib.sh"
VAR=$TOP/var PORT=${PORT:-8080} PGPORT=${PGPORT:-54329} WORKERS=${WORKERS:-4}
stack_up "$VAR" "$PORT" "$PGPORT" "$WORKERS"
demo_levels "$VAR" "$PGPORT"
echo "askql is running: http://127.0.0.1:$PORT/"
echo "first admin: user 'admin', password in $VAR/admin.password (readable by root only)"
echo "psql and bin/askql against this instance: . var/env.sh"
echo "PostgreSQL passwords: $VAR/pgpass (the app's), $VAR/pgpass.admin (the superuser's); rotate: bash scripts/rotate.sh"
echo "stop everything: make stop"
