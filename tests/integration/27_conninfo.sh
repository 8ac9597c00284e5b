#!/usr/bin/env bash
# 27_conninfo.sh: a data source's connection string (issue 27, "data sources"): only host, hostaddr, port,
# dbname, user, password, sslmode, sslrootcert, application_name and a bounded connect_timeout are accepted
# (options, passfile, service, sslkey, sslpassword ... refused, through the CLI and Admin -> Data sources);
# one database has one identity however its port is spelled (port=054391 is 54391); every secret keyword,
# sslpassword included, is masked in `askql target list`, even in a row written before the allow-list; a connection
# test does not echo the first byte a service on the port answered (27_conn_deadline.sh: the deadline, the words).
set -uo pipefail
: "${TOP:?}" "${PGHOST:?}" "${PGPORT:?}"
ASKQL=${ASKQL:-$TOP/bin/askql}
DB=cinfo_$$
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
appsql() { psql -X -q -tA -d askql -c "$1"; }
cleanup() {
	[ -n "${KEEPDB:-}" ] && return; appsql "DELETE FROM askql.targets WHERE name LIKE 'cinfo\_%'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
}
trap cleanup EXIT
psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
H="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
registered() { appsql "SELECT count(*) FROM askql.targets WHERE name LIKE 'cinfo\_%'"; }

for kw in "options='-c work_mem=4GB'" "passfile=/etc/passwd" "sslkey=/etc/ssl/private/key.pem" "sslpassword=hunter2" \
          "target_session_attrs=any" "keepalives=0" "gssencmode=disable"; do
	out=$("$ASKQL" target add cinfo_x "$H $kw" 2>&1); rc=$?
	check "'${kw%%=*}' in a connection string is refused, naming it" \
		'[ $rc -ne 0 ] && grep -q "may not set '\''${kw%%=*}'\''" <<<"$out" && [ "$(registered)" = 0 ]' "$out"
done
out=$("$ASKQL" target add cinfo_x "postgresql://${PGUSER:-askql}@/$DB?host=$PGHOST&port=$PGPORT&options=-cwork_mem%3D4GB" 2>&1); rc=$?
check "the same through a URI's query" '[ $rc -ne 0 ] && grep -q "may not set '\''options'\''" <<<"$out" && [ "$(registered)" = 0 ]' "$out"
out=$("$ASKQL" target add cinfo_x "$H" --ro "$H sslpassword=x" 2>&1); rc=$?
check "and in the read-only connection" '[ $rc -ne 0 ] && grep -q "sslpassword" <<<"$out" && [ "$(registered)" = 0 ]' "$out"
out=$("$ASKQL" target add cinfo_x "$H connect_timeout=600" 2>&1); rc=$?
check "connect_timeout above 10 s is refused (a tarpit would hold a worker)" \
	'[ $rc -ne 0 ] && grep -q "connect_timeout must be 1 to 10" <<<"$out" && [ "$(registered)" = 0 ]' "$out"

out=$("$ASKQL" target add cinfo_a "$H connect_timeout=5 application_name=askql sslmode=disable password=s3cr3t-pw" 2>&1); rc=$?
check "the allowed keywords register" '[ $rc -eq 0 ] && [ "$(registered)" = 1 ]' "$out"
out=$("$ASKQL" target add cinfo_b "host=$PGHOST port=0$PGPORT dbname=$DB user=${PGUSER:-askql}" 2>&1); rc=$?
check "the same database with its port written 0$PGPORT is the same target" \
	'[ $rc -ne 0 ] && grep -q "already registered as '\''cinfo_a'\''" <<<"$out" && [ "$(registered)" = 1 ]' "$out"
out=$("$ASKQL" target add cinfo_b "host=$PGHOST port=000$PGPORT dbname=$DB user=${PGUSER:-askql}" 2>&1); rc=$?
check "and 000$PGPORT" '[ $rc -ne 0 ] && [ "$(registered)" = 1 ]' "$out"
check "the identity stored is the port as a number" \
	'[ "$(appsql "SELECT ident FROM askql.targets WHERE name = '\''cinfo_a'\''")" = "local:$PGPORT/$DB" ]'

# a row from before the allow-list, holding sslpassword: masked wherever the CLI shows it
appsql "UPDATE askql.targets SET conninfo = conninfo || ' sslpassword=hunter2-old' WHERE name = 'cinfo_a'" >/dev/null
out=$("$ASKQL" target list 2>&1)
check "target list masks password and sslpassword" \
	'grep -q "password=\*\*\*\*" <<<"$out" && grep -q "sslpassword=\*\*\*\*" <<<"$out" && ! grep -qE "s3cr3t-pw|hunter2" <<<"$out"' "$out"

# a connection test does not echo what a peer sent: a service on a port answers '~' to anything
PEER_PY='import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 0)); s.listen(8)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
while True:
    c, _ = s.accept(); c.recv(1024); c.sendall(b"~SSH-2.0-secret-banner\r\n"); c.close()'
PF=$(mktemp); python3 -c "$PEER_PY" "$PF" & PEER=$!
for _ in $(seq 50); do [ -s "$PF" ] && break; sleep 0.1; done
for mode in prefer disable; do
	"$ASKQL" target add cinfo_p$mode "host=127.0.0.1 port=$(cat "$PF") dbname=x$mode user=x sslmode=$mode connect_timeout=3" >/dev/null 2>&1
	out=$("$ASKQL" target test cinfo_p$mode 2>&1)
	check "sslmode=$mode: the connection test says no PostgreSQL server answered, without the peer's byte or banner" \
		'grep -q "no PostgreSQL server answered" <<<"$out" && ! grep -qE "~|SSH|banner|negotiation|received" <<<"$out"' "$out"
done
kill $PEER 2>/dev/null; rm -f "$PF"
appsql "DELETE FROM askql.targets WHERE name LIKE 'cinfo\_p%'" >/dev/null

# through Admin -> Data sources
if [ -n "${BASE_URL:-}" ] && [ -n "${ADMIN_USER:-}" ]; then
	field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
	T=$(mktemp -d)
	pre=$(curl -s -c "$T/jar" -b "$T/jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$T/jar" -b "$T/jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
		--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
	csrf=$(curl -s -b "$T/jar" "$BASE_URL/admin/datasources" | field csrf)
	code=$(curl -s -o "$T/page" -w '%{http_code}' -b "$T/jar" --data-urlencode "csrf=$csrf" --data-urlencode action=add --data-urlencode "name=cinfo_w" \
		--data-urlencode "conninfo=$H options='-c work_mem=4GB'" "$BASE_URL/admin/datasources")
	check "Admin -> Data sources refuses 'options' (HTTP $code), nothing registered" \
		'[ "$code" -ge 400 ] && [ "$code" -lt 500 ] && grep -q "options" "$T/page" && [ "$(registered)" = 1 ]' "$code $(head -c 300 "$T/page")"
	page=$(curl -s -b "$T/jar" "$BASE_URL/admin/datasources")
	check "the data sources page shows neither secret" '! grep -qE "s3cr3t-pw|hunter2" <<<"$page" && grep -q cinfo_a <<<"$page"' "$(grep -oE ".{80}(s3cr3t-pw|hunter2).{20}" <<<"$page" | head -3; grep -c cinfo_a <<<"$page")"
	[ -n "${KEEPDB:-}" ] && echo "# T $T" || rm -rf "$T"
fi
echo "1..$n"
