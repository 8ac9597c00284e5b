#!/usr/bin/env bash
# eval.sh: `make eval`: load and index the demo and EHRSQL targets, then print both reports of the offline planner.
# Uses the dev stack under var/ when its cluster is running, else a throwaway cluster under build/evalvar
# (stopped again at the end).  Outcome files go to build/eval/.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
. "$TOP/scripts/lib.sh"
ASKQL=$TOP/bin/askql
OUT=$TOP/build/eval
mkdir -p "$OUT"

# The benchmark lives beside the repository (CI clones into a fresh dir with shared/ next to it).
SHARED=$TOP/../shared
[ -d "$SHARED/eval/ehrsql2024" ] || SHARED=/work/shared
EHR=$SHARED/eval/ehrsql2024
[ -f "$EHR/load_pg.sql" ] || { echo "eval: EHRSQL benchmark not found (looked in $TOP/../shared and /work/shared)" >&2; exit 1; }

ensure_sysuser
started=0
if [ -f "$TOP/var/env.sh" ] && as_sys "$PGBIN/pg_ctl" -D "$TOP/var/pg" status >/dev/null 2>&1; then
	VAR=$TOP/var
	PGPORT=$(sed -n 's/.*PGPORT=\([0-9]*\).*/\1/p' "$VAR/env.sh")
	echo "eval: using the running dev cluster ($VAR, port $PGPORT)"
else
	VAR=$TOP/build/evalvar
	PGPORT=$(free_port)
	echo "eval: starting a throwaway cluster in $VAR on port $PGPORT"
	pg_init "$VAR" "$PGPORT"
	pg_start "$VAR"
	started=1
	trap 'pg_stop "$VAR"' EXIT
	db_setup "$VAR" "$PGPORT"
	write_conf "$VAR" "$PGPORT"
	ASKQL_CONF="$VAR/askql.conf" "$ASKQL" migrate >/dev/null
fi
export ASKQL_CONF=$VAR/askql.conf PGHOST=$VAR/run PGPORT PGUSER=askql
SOCK="host=$VAR/run port=$PGPORT"

# ---- the demo target ----
ASKQL_CONF="$VAR/askql.conf" "$ASKQL" index --name demo --quiet >/dev/null 2>&1 ||
	ASKQL_CONF="$VAR/askql.conf" "$ASKQL" index --name demo >"$OUT/index_demo.log" 2>&1 ||
	echo "eval: warning: indexing demo failed (see $OUT/index_demo.log); the planner works from its own schema snapshot" >&2

# ---- the EHRSQL target: load once, read-only role, index (no declared FKs: keys are inferred) ----
if ! psql_su "$VAR" "$PGPORT" postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ehrsql'" | grep -q 1; then
	psql_su "$VAR" "$PGPORT" postgres -c "CREATE DATABASE ehrsql" >/dev/null
fi
if ! psql_su "$VAR" "$PGPORT" ehrsql -tAc "SELECT 1 FROM pg_tables WHERE tablename = 'patients'" | grep -q 1; then
	echo "eval: loading EHRSQL (MIMIC-IV demo) from $EHR"
	(cd "$EHR" && psql_su "$VAR" "$PGPORT" ehrsql -f load_pg.sql >/dev/null 2>"$OUT/load_ehrsql.log")
fi
psql_su "$VAR" "$PGPORT" ehrsql >/dev/null <<'SQL'
REVOKE ALL ON DATABASE ehrsql FROM PUBLIC;
GRANT CONNECT ON DATABASE ehrsql TO askql_reader, askql_app;
GRANT USAGE ON SCHEMA public TO askql_reader, askql_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader, askql_app;
SQL
"$ASKQL" migrate >/dev/null   # the registry of targets (and the configured demo in it)
"$ASKQL" index --name ehrsql --target "$SOCK dbname=ehrsql user=askql" --ro "$SOCK dbname=ehrsql user=askql_reader" \
	>"$OUT/index_ehrsql.log" 2>&1 ||
	echo "eval: warning: indexing ehrsql failed (see $OUT/index_ehrsql.log); the planner works from its own schema snapshot" >&2

# ---- the reports ----
echo
"$ASKQL" eval --name demo --target "$SOCK dbname=demo user=askql_reader" --now '2025-12-31 23:59:00' \
	--out "$OUT/demo_outcomes.jsonl" "$TOP/tests/data/demo_dev.jsonl"
echo
"$ASKQL" eval --name ehrsql --target "$SOCK dbname=ehrsql user=askql_reader" --now '2100-12-31 23:59:00' \
	--out "$OUT/ehrsql_outcomes.jsonl" "$EHR/valid.jsonl"
# the development half (odd lines) and the held-out check half (even lines), reported apart
for h in 1 2; do
	echo
	echo "-- EHRSQL half $h ($( [ $h = 1 ] && echo 'development: odd lines' || echo 'check: even lines, not tuned on'))"
	"$ASKQL" eval --name ehrsql --target "$SOCK dbname=ehrsql user=askql_reader" --now '2100-12-31 23:59:00' \
		--half $h "$EHR/valid.jsonl" | sed -n '3,9p'
done
echo
echo "outcome files: $OUT/demo_outcomes.jsonl $OUT/ehrsql_outcomes.jsonl"
