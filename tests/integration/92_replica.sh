#!/usr/bin/env bash
# 92_replica.sh: analyst queries routed to a hot-standby replica (pg_basebackup, streaming) while the app schema stays on the primary.
set -uo pipefail
: "${TOP:?}" "${VAR:?}" "${ASKQL_CONF:?}" "${PGPORT:?}"
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/scripts/lib.sh"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
P() { psql -X -q -At -h "$VAR/run" -p "$PGPORT" -U askql "$@" 2>&1; }        # primary
R() { PGPASSFILE=$R/pgpass.admin psql -X -q -At -h "$R/run" -p "$RPORT" -U askql "$@" 2>&1; }   # replica

R=$(mktemp -d /tmp/askql-92.XXXXXX)
chmod 755 "$R"; mkdir -p "$R/run" "$R/log"; chown -R "$SYSUSER" "$R"
RPORT=$(free_port)
cleanup() {
	[ -f "$R/pg/postmaster.pid" ] && as_sys "$PGBIN/pg_ctl" -D "$R/pg" -m immediate -w stop >/dev/null 2>&1
	P -d postgres -c "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'askql_92'" >/dev/null
	P -d postgres -c "DROP ROLE IF EXISTS askql_repl" >/dev/null
	rm -rf "$R"
}
trap cleanup EXIT

# the primary: a replication role with a password (pg_hba's "local replication all scram-sha-256"
# from initdb lets it in), in a password file of the service user's for pg_basebackup and the
# standby's walreceiver; the standby's roles have the primary's passwords (pg_authid is copied)
REPL_PW=$(new_pw)
P -d postgres -c "DO \$\$BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'askql_repl') THEN
	CREATE ROLE askql_repl LOGIN REPLICATION; END IF; END\$\$" >/dev/null
printf "ALTER ROLE askql_repl PASSWORD '%s';\n" "$(echo "$REPL_PW" | scram_verifier)" | P -d postgres >/dev/null
pgpass_write "$R/pgpass.repl" "$SYSUSER" "$VAR" "$PGPORT" "askql_repl=$REPL_PW"
pgpass_write "$R/pgpass.admin" root "$R" "$RPORT" \
	$(for r in askql askql_app askql_reader; do echo "$r=$(pw_of "$VAR/pgpass.admin" $r)"; done)
cat "$VAR/pgpass.admin" >>"$R/pgpass.admin"
export PGPASSFILE=$R/pgpass.admin   # the CLI below reaches both clusters
check "primary allows replication: wal_level=$(P -d postgres -c 'SHOW wal_level'), max_wal_senders=$(P -d postgres -c 'SHOW max_wal_senders')" \
	"[[ '$(P -d postgres -c 'SHOW wal_level')' =~ ^(replica|logical)$ ]] && [ '$(P -d postgres -c 'SHOW max_wal_senders')' -gt 0 ]"

# base backup with a slot, streaming WAL, -R writes primary_conninfo + standby.signal
if PGPASSFILE=$R/pgpass.repl as_sys "$PGBIN/pg_basebackup" -h "$VAR/run" -p "$PGPORT" -U askql_repl -D "$R/pg" -R -X stream \
	-C -S askql_92 -c fast >"$R/log/basebackup.log" 2>&1; then
	ok "pg_basebackup of the test cluster ($(du -sm "$R/pg" | cut -f1) MB)"
else
	nok "pg_basebackup of the test cluster" "$(tail -3 "$R/log/basebackup.log")"
fi
cat >>"$R/pg/postgresql.conf" <<CONF
port = $RPORT
unix_socket_directories = '$R/run'
listen_addresses = ''
hot_standby = on
max_standby_streaming_delay = 30s
CONF
if as_sys "$PGBIN/pg_ctl" -D "$R/pg" -l "$R/log/postgres.log" -w -t 60 start >/dev/null 2>&1; then
	ok "the standby starts on port $RPORT"
else
	nok "the standby starts" "$(tail -5 "$R/log/postgres.log")"
fi
check "the standby is in recovery" "[ '$(R -d demo -c 'SELECT pg_is_in_recovery()')' = t ]"
for _ in $(seq 50); do [ "$(P -d postgres -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")" = 1 ] && break; sleep 0.2; done
check "the primary streams to it" "[ '$(P -d postgres -c "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")' = 1 ]"
w=$(R -d demo -c "CREATE TABLE x92 (a int)")
check "the standby refuses writes" "[[ \"\$w\" == *read-only* ]]" "$w"

# a configuration routing analyst SQL (target_ro_db) to the standby; app_db stays on the primary
{ grep -v '^target_ro_db' "$ASKQL_CONF"
  echo "target_ro_db = host=$R/run port=$RPORT dbname=demo user=askql_reader"; } >"$R/askql.conf"
out=$(ASKQL_CONF=$R/askql.conf "$ASKQL" export --sql "SELECT pg_is_in_recovery() AS standby, count(*) AS n FROM clinical_data_table" \
	--format csv -o - 2>&1)
pn=$(P -d demo -c "SELECT count(*) FROM clinical_data_table")
check "askql export runs on the standby (pg_is_in_recovery() true there, $pn rows as on the primary)" \
	"echo '$out' | tr -d '\r' | grep -qx 't,$pn'" "$out"

stat() { R -d postgres -c "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = 'demo'"; }
s0=$(stat)
runs0=$(P -d askql -c "SELECT count(*) FROM askql.runs")
res=$(ASKQL_CONF=$R/askql.conf "$ASKQL" ask --json --no-cache "how many cases are there" 2>"$R/log/ask.err")
rid=$(echo "$res" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("run_id") or "")' 2>/dev/null)
st=$(echo "$res" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("status") or "")' 2>/dev/null)
sleep 1.5   # the standby's statistics are flushed when the backend ends
s1=$(stat)
check "askql ask through the standby answers (status $st)" "[ '$st' = ok ]" "$res $(tail -3 "$R/log/ask.err")"
check "its SQL ran on the standby (demo transactions there: $s0 -> $s1)" "[ '$s1' -gt '$s0' ]"
check "the run was written to the primary's app schema (run $rid)" \
	"[ -n '$rid' ] && [ '$(P -d askql -c "SELECT count(*) FROM askql.runs WHERE id = ${rid:-0}")' = 1 ] && [ \$(P -d askql -c 'SELECT count(*) FROM askql.runs') -gt $runs0 ]"
for _ in $(seq 50); do [ "$(R -d askql -c "SELECT count(*) FROM askql.runs WHERE id = ${rid:-0}")" = 1 ] && break; sleep 0.1; done
check "and streamed to the standby from there (replication works end to end)" \
	"[ '$(R -d askql -c "SELECT count(*) FROM askql.runs WHERE id = ${rid:-0}")' = 1 ]"
echo "1..$n"
