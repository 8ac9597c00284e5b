#!/usr/bin/env bash
# 27_conn_deadline.sh: a data source's connection test and registration (Admin -> Data sources, issue 27) end by
# askql's own deadline (target_connect_ms, default 4 s, every host of the connection string together) and run
# in the runs pool, so a tarpit holds no page worker; a failure is worded from a code in the user's language and
# never echoes the peer's bytes; a closed port, a tarpit and a service that is not PostgreSQL get the same words.
# By execution against listeners this test starts on 127.0.0.1 (bounded lifetime): a tarpit that accepts and never
# answers, one that logs anyone in and then trickles a byte a second, one that answers garbage, a closed port.
# The other paths to a target (a run's or a download's statement, indexing from the CLI and Admin -> Catalog) end
# by the same deadline, and a re-index from the catalog page runs in the runs pool too.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
T=$(mktemp -d)
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql "$@"; }
PEERS=
cleanup() {
	[ -n "$PEERS" ] && kill $PEERS 2>/dev/null
	q -c "DELETE FROM askql.targets WHERE name LIKE 'cdl\_%'" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

# ---- the peers: each writes its port into $T/<mode>.port and lives at most 400 s ----
cat >"$T/peer.py" <<'PY'
import socket, struct, sys, threading, time
mode, portfile = sys.argv[1], sys.argv[2]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(64)
open(portfile, "w").write(str(s.getsockname()[1]))
held = []
def startup(c):
    # SSLRequest (8 bytes, code 80877103): answer 'N' and read the startup packet after it
    head = c.recv(8)
    if len(head) == 8 and struct.unpack("!ii", head) == (8, 80877103):
        c.sendall(b"N"); head = c.recv(4)
    n = struct.unpack("!i", head[:4])[0]
    got = len(head) - 4
    while got < n - 4:
        b = c.recv(n - 4 - got)
        if not b: return
        got += len(b)
def serve(c):
    try:
        if mode == "tarpit":            # accepts, reads nothing, answers nothing
            held.append(c); return
        if mode == "garbage":           # a service that is not PostgreSQL: its banner
            c.recv(1024); c.sendall(b"~SSH-2.0-secret-banner\r\n"); c.close(); return
        startup(c)
        c.sendall(b"R" + struct.pack("!ii", 8, 0))              # AuthenticationOk, no password asked
        if mode == "trickle":           # then a parameter of 10,000 bytes, one byte a second
            c.sendall(b"S" + struct.pack("!i", 10004))
            for _ in range(10000):
                c.sendall(b"x"); time.sleep(1)
        if mode == "stall":             # logged in, ready, and then silent on every query
            p = b"server_version\x0015.0\x00"
            c.sendall(b"S" + struct.pack("!i", 4 + len(p)) + p + b"Z" + struct.pack("!i", 5) + b"I")
            held.append(c)
    except OSError:
        pass
threading.Timer(400, lambda: __import__("os")._exit(0)).start()
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
for m in tarpit trickle stall garbage; do
	python3 "$T/peer.py" $m "$T/$m.port" & PEERS+=" $!"
done
for m in tarpit trickle stall garbage; do
	for _ in $(seq 50); do [ -s "$T/$m.port" ] && break; sleep 0.1; done
done
# a closed port: bound once, then let go (nothing listens there)
CLOSED=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
TARPIT=$(cat "$T/tarpit.port") TRICKLE=$(cat "$T/trickle.port") STALL=$(cat "$T/stall.port") GARBAGE=$(cat "$T/garbage.port")

# ---- signed in as the admin, in English ----
pre=$(curl -s -c "$T/jar" -b "$T/jar" "$BASE_URL/signin" | field csrf)
curl -s -o /dev/null -c "$T/jar" -b "$T/jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
A=$(curl -s -b "$T/jar" "$BASE_URL/admin/datasources" | field csrf)
lang() { curl -s -o /dev/null -b "$T/jar" -c "$T/jar" --data-urlencode "csrf=$A" --data-urlencode "lang=$1" --data-urlencode next=/ "$BASE_URL/lang"; }
lang en
check "admin signed in" '[ -n "$A" ]'
# post ARGS...: POST to Admin -> Data sources; the page in $T/out, $code and $ms after
post() {
	local t0; t0=$(now_ms)
	code=$(curl -s -m 40 -o "$T/out" -w '%{http_code}' -b "$T/jar" --data-urlencode "csrf=$A" "$@" "$BASE_URL/admin/datasources")
	ms=$(( $(now_ms) - t0 ))
}
# the reason the test page gives for the indexing connection
reason() { sed -n '/id="check"/,/<\/section>/p' "$T/out" | grep -o '<span class="alert">[^<]*' | head -1 | sed 's/.*">//'; }

# registering: ten tarpit hosts with connect_timeout=10 each were 100 s of one worker before; one deadline now
HOSTS=$(printf '127.0.0.1,%.0s' $(seq 10)); HOSTS=${HOSTS%,}
post --data-urlencode action=add --data-urlencode name=cdl_tarpit \
	--data-urlencode "conninfo=host=$HOSTS port=$TARPIT dbname=x user=x connect_timeout=10"
check "add: a connection string of ten tarpit hosts answers by the deadline (${ms} ms, HTTP $code)" \
	'[ "$code" = 303 ] && [ $ms -lt 8000 ]' "$code $ms ms $(head -c 300 "$T/out")"
for m in trickle stall garbage; do
	p=$(cat "$T/$m.port")
	post --data-urlencode action=add --data-urlencode name=cdl_$m --data-urlencode "conninfo=host=127.0.0.1 port=$p dbname=x user=x"
	check "add: a peer that $m answers by the deadline (${ms} ms, HTTP $code)" '[ "$code" = 303 ] && [ $ms -lt 8000 ]' "$code $ms ms"
done
post --data-urlencode action=add --data-urlencode name=cdl_closed --data-urlencode "conninfo=host=127.0.0.1 port=$CLOSED dbname=x user=x"
check "add: a closed port registers at once (${ms} ms)" '[ "$code" = 303 ] && [ $ms -lt 3000 ]' "$code $ms ms"

# testing: within the deadline, a reason from a code, nothing of the peer's
WORDS="no PostgreSQL server answered at this address within 4 s"
post --data-urlencode action=test --data-urlencode name=cdl_tarpit
r_tarpit=$(reason)
check "test of the ten-host tarpit: answered in ${ms} ms (deadline 4 s) with the reason" \
	'[ "$code" = 200 ] && [ $ms -lt 8000 ] && [[ "$r_tarpit" == "$WORDS"* ]]' "$code $ms ms reason: $r_tarpit"
post --data-urlencode action=test --data-urlencode name=cdl_trickle
check "test of a peer that logs in and trickles a byte a second: ${ms} ms, the same reason" \
	'[ "$code" = 200 ] && [ $ms -lt 8000 ] && [[ "$(reason)" == "$WORDS"* ]] && ! grep -q xxxx "$T/out"' "$code $ms ms reason: $(reason)"
post --data-urlencode action=test --data-urlencode name=cdl_stall
check "test of a peer that logs in and never answers a query: ${ms} ms, 'stopped answering'" \
	'[ "$code" = 200 ] && [ $ms -lt 8000 ] && grep -q "stopped answering during the test" "$T/out"' "$code $ms ms reason: $(reason)"
post --data-urlencode action=test --data-urlencode name=cdl_garbage
r_garbage=$(reason)
check "test of a service that answers garbage: the reason, not one byte of its banner" \
	'[ "$code" = 200 ] && [[ "$r_garbage" == "$WORDS"* ]] && ! grep -qE "~|SSH|banner|negotiation" "$T/out"' "$r_garbage $(grep -oE '.{40}(~|SSH|banner).{20}' "$T/out" | head -3)"
post --data-urlencode action=test --data-urlencode name=cdl_closed
r_closed=$(reason)
check "a closed port, a tarpit and a service that is not PostgreSQL get the very same words (${ms} ms for the closed one)" \
	'[ -n "$r_closed" ] && [ "$r_closed" = "$r_garbage" ] && [ "$r_closed" = "$r_tarpit" ]' \
	"closed: $r_closed
garbage: $r_garbage
tarpit: $r_tarpit"
out=$("$ASKQL" target test cdl_garbage 2>&1)
check "the CLI's test says the same, without the banner" '[[ "$out" == *"$WORDS"* ]] && ! grep -qE "~|SSH|banner" <<<"$out"' "$out"
# a real PostgreSQL server that refuses: a code from its SQLSTATE, not its words
PW=$(awk -F: '$4 == "askql_app" { print $5; exit }' "$VAR/pgpass" 2>/dev/null)
post --data-urlencode action=add --data-urlencode name=cdl_nodb \
	--data-urlencode "conninfo=host=$PGHOST port=$PGPORT dbname=cdl_no_such_db_$$ user=askql_app password=$PW"
post --data-urlencode action=test --data-urlencode name=cdl_nodb
check "a PostgreSQL server without that database: 'no database of that name (SQLSTATE 3D000)'" \
	'[ -n "$PW" ] && grep -q "no database of that name (SQLSTATE 3D000)" "$T/out" && ! grep -q "does not exist" "$T/out"' "$(reason)"
post --data-urlencode action=add --data-urlencode name=cdl_nopw \
	--data-urlencode "conninfo=host=$PGHOST port=$PGPORT dbname=cdl_other_db_$$ user=cdl_nobody_$$"
post --data-urlencode action=test --data-urlencode name=cdl_nopw
check "a PostgreSQL server that asks a password there is none for: 'refused the login' (HTTP $code)" \
	'grep -q "the PostgreSQL server refused the login" "$T/out" && ! grep -q "fe_sendauth" "$T/out"' "$(reason)"

# in the user's language
lang ko
post --data-urlencode action=test --data-urlencode name=cdl_garbage
check "in Korean for a Korean user" 'grep -q "4초 안에 응답한 PostgreSQL 서버가 없습니다" "$T/out"' "$(reason)"
lang en

# the pages keep answering while six tests wait on a tarpit (more than the page pool's workers); the target is
# registered by the CLI, so this holds whatever the web's add does
timeout 30 "$ASKQL" target add cdl_tp1 "host=127.0.0.1 port=$TARPIT dbname=tp1 user=x" >/dev/null 2>&1
check "a one-host tarpit registered through the CLI" '[ "$(q -c "SELECT count(*) FROM askql.targets WHERE name = '"'cdl_tp1'"'")" = 1 ]'
# pages_while PATH FORM...: six POSTs of FORM to PATH in the background, five /history meanwhile; $worst, $codes
pages_while() {
	local path=$1 pids="" k t0 c d
	shift
	for k in 1 2 3 4 5 6; do
		curl -s -m 40 -o /dev/null -b "$T/jar" --data-urlencode "csrf=$A" "$@" "$BASE_URL$path" & pids+=" $!"
	done
	sleep 0.7
	worst=0 codes=""
	for k in 1 2 3 4 5; do
		t0=$(now_ms)
		c=$(curl -s -m 30 -o /dev/null -w '%{http_code}' -b "$T/jar" "$BASE_URL/history")
		d=$(( $(now_ms) - t0 )); codes+="$c "
		[ $d -gt $worst ] && worst=$d
		sleep 0.3
	done
	wait $pids
}
pages_while /admin/datasources --data-urlencode action=test --data-urlencode name=cdl_tp1
check "/history answers while six connection tests wait on a tarpit: slowest of 5 in ${worst} ms" \
	'[ $worst -lt 2000 ] && [ "$codes" = "200 200 200 200 200 " ]' "codes $codes, slowest $worst ms"

# ---- the other paths that connect to a registered target ----
t0=$(now_ms); out=$(timeout 60 "$ASKQL" export --target cdl_tarpit --sql "SELECT 1 AS x" --format csv -o - 2>&1); rc=$?; ms=$(( $(now_ms) - t0 ))
check "a run's or a download's statement against the ten-host tarpit (askql export) gives up in ${ms} ms" \
	'[ $rc -ne 0 ] && [ $ms -lt 8000 ] && grep -q "cannot connect: $WORDS" <<<"$out"' "rc $rc, $ms ms: $out"
t0=$(now_ms); out=$(timeout 60 "$ASKQL" index --target cdl_tarpit 2>&1); rc=$?; ms=$(( $(now_ms) - t0 ))
check "indexing the ten-host tarpit (askql index) gives up in ${ms} ms, in the same words" \
	'[ $rc -ne 0 ] && [ $ms -lt 8000 ] && grep -q "cannot connect: $WORDS" <<<"$out"' "rc $rc, $ms ms: $out"
t0=$(now_ms)
code=$(curl -s -m 40 -o /dev/null -w '%{http_code}' -b "$T/jar" --data-urlencode "csrf=$A" --data-urlencode action=reindex \
	--data-urlencode target=cdl_tarpit "$BASE_URL/admin/catalog")
ms=$(( $(now_ms) - t0 ))
check "Admin -> Catalog re-index of the ten-host tarpit answers in ${ms} ms (HTTP $code)" '[ "$code" = 303 ] && [ $ms -lt 8000 ]' "$code $ms ms"
pages_while /admin/catalog --data-urlencode action=reindex --data-urlencode target=cdl_tp1
check "/history answers while six re-indexes wait on a tarpit (the runs pool): slowest of 5 in ${worst} ms" \
	'[ $worst -lt 2000 ] && [ "$codes" = "200 200 200 200 200 " ]' "codes $codes, slowest $worst ms"
echo "1..$n"
