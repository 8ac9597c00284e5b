#!/usr/bin/env bash
# 94_conn_disk.sh: issue 27, "Connections" and "Disk": 2,100 half-open connections from one address (the review's
# slowloris) while pages keep serving, and nginx closing them at client_header_timeout; limit_conn per address;
# downloads never spooled to nginx's temp files; XLSX built under var/ with a byte cap, and the export deadline
# covering the whole workbook.  Loopback only (127.0.0.x), every loop bounded, every connection closed at the end.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${ASKQL_CONF:?}" "${ASKQL:?}" "${VAR:?}"
. "$TOP/scripts/lib.sh"
T=$(mktemp -d /tmp/askql-94c.XXXXXX); chmod 755 "$T"
W=$T/short     # a second pool + nginx whose export_timeout_ms is short
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	nginx_stop "$W" 2>/dev/null; pool_stop "$W" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "$2" | head -20 | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -m 30 -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
signin() {
	local jar=$1 pre b=${4:-$BASE_URL}
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$b/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$b/signin"
	curl -s -b "$jar" "$b/" | field csrf
}
mkrun() {
	q -v sql="$1" -v user="$ADMIN_USER" <<'SQL' | head -1
INSERT INTO askql.runs(user_id, question, status, sql)
SELECT id, 'issue 27: ' || left(:'sql', 40), 'ok', :'sql' FROM askql.users WHERE name = :'user' RETURNING id
SQL
}
PORT=${BASE_URL##*:}
A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
q -c "DELETE FROM askql.signin_throttle" >/dev/null

# ---- 1. slowloris: 2,100 half-open connections from 127.0.0.3 ----
cat >"$T/slow.py" <<'PY'
# slow.py PORT N HOLD_S READY: N connections from 127.0.0.3, each sending part of a request header and then one
# more header line every 2 s (never the blank line); writes READY when all are open, then prints how many the
# server closed within HOLD_S.  Bounded: N sockets, HOLD_S seconds, then every socket is closed.
import resource, selectors, socket, sys, time
port, n, hold = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, n + 256), hard))
sel, socks, failed = selectors.DefaultSelector(), [], 0
for i in range(n):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.bind(("127.0.0.3", 0))
        s.connect(("127.0.0.1", port))
        s.send(b"GET /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-0: x\r\n")
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        socks.append(s)
    except OSError:
        failed += 1
        s.close()
print("open %d failed %d" % (len(socks), failed), flush=True)
open(sys.argv[4], "w").write("open\n")
t0, closed, line, last = time.time(), set(), 1, time.time()
def gone(s):
    closed.add(s)
    sel.unregister(s)
while time.time() - t0 < hold and len(closed) < len(socks):
    if time.time() - last >= 2:
        for s in socks:
            if s not in closed:
                try: s.send(b"X-Slow-%d: x\r\n" % line)
                except OSError: gone(s)
        line, last = line + 1, time.time()
    for key, _ in sel.select(0.2):
        try: data = key.fileobj.recv(4096)
        except OSError: data = b""
        if key.fileobj not in closed:
            gone(key.fileobj)
print("closed %d after %.1f s" % (len(closed), time.time() - t0), flush=True)
for s in socks: s.close()
PY
: >"$VAR/log/nginx-error.log.mark"; ERRLINES=$(wc -l <"$VAR/log/nginx-error.log")
python3 "$T/slow.py" "$PORT" 2100 20 "$T/slow.ready" >"$T/slow.out" 2>&1 &
PIDS+=($!); SLOW=$!
for _ in $(seq 150); do [ -f "$T/slow.ready" ] && break; sleep 0.1; done
check "2,100 half-open connections from 127.0.0.3 are open ($(head -1 "$T/slow.out"))" \
	"[ -f '$T/slow.ready' ] && grep -q '^open 2100 failed 0' '$T/slow.out'"
bad="" worst=0
for i in $(seq 20); do
	r=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}' -b "$T/admin" "$BASE_URL/history")
	c=${r% *}; tt=${r#* }
	[ "$c" = 200 ] || bad="$bad [$i: $c]"
	awk "BEGIN{exit !($tt > $worst)}" && worst=$tt
	sleep 0.2
done
check "meanwhile 20 history pages from 127.0.0.1 answer 200 (slowest ${worst}s)" "[ -z '$bad' ] && awk 'BEGIN{exit !($worst < 2)}'" "$bad"
c=$(code "$BASE_URL/signin")
check "and the sign-in page too ($c)" "[ $c = 200 ]"
wait "$SLOW"
closed=$(sed -n 's/^closed \([0-9]*\) after \([0-9.]*\) s$/\1/p' "$T/slow.out")
after=$(sed -n 's/^closed \([0-9]*\) after \([0-9.]*\) s$/\2/p' "$T/slow.out")
check "nginx closed all 2,100 at client_header_timeout, trickled header lines or not (${closed:-?} in ${after:-?} s)" \
	"[ '${closed:-0}' -ge 2100 ] && awk 'BEGIN{exit !(${after:-99} <= 16)}'" "$(cat "$T/slow.out")"
check "nginx never ran out of connections (no 'worker_connections are not enough')" \
	"! tail -n +$((ERRLINES + 1)) '$VAR/log/nginx-error.log' | grep -c 'worker_connections are not enough' >/dev/null"

# ---- 2. limit_conn: 64 requests in progress per address ----
cat >"$T/hold.py" <<'PY'
# hold.py PORT N: N POSTs from 127.0.0.4 with their whole header and no body (each is a request in
# progress for nginx), then one more GET from 127.0.0.4; prints its status line.  Closes all at the end.
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
def conn():
    s = socket.socket(); s.settimeout(5); s.bind(("127.0.0.4", 0)); s.connect(("127.0.0.1", port)); return s
held = []
for i in range(n):
    s = conn()
    s.send(b"POST /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n")
    held.append(s)
time.sleep(0.5)
s = conn()
s.send(b"GET /signin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
print(s.recv(200).split(b"\r\n")[0].decode(), flush=True)
open(sys.argv[3], "w").write("held\n")
time.sleep(float(sys.argv[4]))
for s in held + [s]: s.close()
PY
python3 "$T/hold.py" "$PORT" 64 "$T/hold.ready" 3 >"$T/hold.out" 2>&1 &
PIDS+=($!); HOLD=$!
for _ in $(seq 100); do [ -f "$T/hold.ready" ] && break; sleep 0.1; done
check "with 64 requests in progress from 127.0.0.4, its 65th is refused: $(head -1 "$T/hold.out")" "grep -q '^HTTP/1.1 429' '$T/hold.out'"
c=$(code "$BASE_URL/signin")
check "another address is served meanwhile ($c)" "[ $c = 200 ]"
wait "$HOLD"
sleep 0.5
c=$(code --interface 127.0.0.4 "$BASE_URL/signin")
check "once those end, 127.0.0.4 is served again ($c)" "[ $c = 200 ]"

# ---- 3. downloads are not spooled to disk by nginx ----
BIG=$(mkrun "SELECT g, md5(g::text) AS a, md5((g + 1)::text) AS b FROM generate_series(1, 1500000) AS s(g)")
du0=$(du -sk "$VAR/nginx/fastcgi" 2>/dev/null | cut -f1)
for i in 1 2 3 4; do
	curl -s -o /dev/null -m 6 --limit-rate 100k -b "$T/admin" "$BASE_URL/runs/$BIG/download?format=csv" &
	PIDS+=($!)
done
peak=0
for _ in $(seq 25); do
	k=$(du -sk "$VAR/nginx/fastcgi" 2>/dev/null | cut -f1)
	[ "${k:-0}" -gt "$peak" ] && peak=$k
	sleep 0.2
done
c=$(curl -s -o /dev/null -m 5 -w '%{http_code}' -b "$T/admin" "$BASE_URL/history")
wait
check "four slow CSV downloads of 1.5 M rows: nginx's fastcgi temp directory stays at ${peak} KB (was ${du0:-0} KB; no spooling)" \
	"[ $peak -le $(( ${du0:-0} + 64 )) ]"
check "and pages answer meanwhile ($c)" "[ $c = 200 ]"
check "nginx.conf: no response temp files at all (fastcgi_max_temp_file_size 0)" \
	"grep -q '^[[:space:]]*fastcgi_max_temp_file_size 0;' '$VAR/nginx.conf'"

# ---- 4. XLSX: built under var/, never /tmp; a byte cap; the deadline covers the workbook ----
XR=$(mkrun "SELECT g, md5(g::text) AS a, repeat(md5(g::text), 4) AS b FROM generate_series(1, 300000) AS s(g)")
curl -s -o "$T/x.xlsx" -m 120 -b "$T/admin" "$BASE_URL/runs/$XR/download?format=xlsx" &
XP=$!
# the files this stack's workers hold open while it is built (their environment names this stack's conf)
: >"$T/fds"
for _ in $(seq 100); do
	for pid in $(pgrep -x askql-fcgi); do
		tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "ASKQL_CONF=$ASKQL_CONF" || continue
		ls -l "/proc/$pid/fd" 2>/dev/null | sed 's/.* -> //' >>"$T/fds"
	done
	kill -0 $XP 2>/dev/null || break
	sleep 0.05
done
wait $XP
# (files under var/ are not in /tmp even when the checkout itself lives under /tmp)
invar=$(grep -c "^$VAR/tmp/" "$T/fds"); intmp=$(grep '^/tmp/' "$T/fds" | grep -vc "^$VAR/")
check "a web XLSX is built in var/tmp: the workers held $invar open files there, $intmp in /tmp" "[ $invar -gt 0 ] && [ $intmp = 0 ]" \
	"$(sort -u "$T/fds" | grep -v -e socket: -e pipe: -e /dev/ | head)"
check "the download is a whole workbook" "unzip -l '$T/x.xlsx' 2>/dev/null | grep -c 'xl/worksheets/sheet1.xml' >/dev/null"
check "var/tmp is 0700 and left empty ($(stat -c %a "$VAR/tmp"))" "[ \$(stat -c %a '$VAR/tmp') = 700 ] && [ -z \"\$(ls -A '$VAR/tmp')\" ]"
{ cat "$ASKQL_CONF"; echo "export_tmp_max_bytes = 1048576"; } >"$T/cap.conf"
ASKQL_CONF="$T/cap.conf" "$ASKQL" export --format xlsx --sql "SELECT g, md5(g::text) AS a FROM generate_series(1, 200000) AS s(g)" \
	-o "$T/cap.xlsx" >"$T/cap.log" 2>&1; rc=$?
rows=$(unzip -p "$T/cap.xlsx" xl/worksheets/sheet1.xml 2>/dev/null | grep -o '<row ' | wc -l)
check "with export_tmp_max_bytes 1 MiB a 200,000-row XLSX stops near the cap (exit $rc, $rows rows)" \
	"[ $rc = 0 ] && [ $rows -gt 1000 ] && [ $rows -lt 40000 ]" "$(cat "$T/cap.log")"
check "and says it was cut (provenance: truncated)" \
	"unzip -p '$T/cap.xlsx' xl/worksheets/sheet2.xml 2>/dev/null | grep -c 'yes: the result was cut' >/dev/null"
{ cat "$ASKQL_CONF"; echo "export_tmp_max_bytes = 1000"; } >"$T/cap2.conf"
out=$(ASKQL_CONF="$T/cap2.conf" "$ASKQL" export --format xlsx --sql "SELECT 1" -o "$T/cap2.xlsx" 2>&1); rc=$?
check "export_tmp_max_bytes below 1 MiB stops the program ($rc)" "[ $rc -ne 0 ]" "$out"

# the deadline: a pool whose export_timeout_ms is 3 s, a workbook whose packing alone takes longer
mkdir -p "$W/run" "$W/log" "$W/nginx" "$W/tmp"
{ grep -vE '^(log_path|export_timeout_ms|export_tmp_dir) *=' "$ASKQL_CONF"
  echo "log_path = $W/log/askql.log"; echo "export_timeout_ms = 3000"; echo "export_tmp_dir = $W/tmp"; } >"$W/askql.conf"
chown -R "$SYSUSER" "$W"
pool_start "$W" 1
PORT2=$(free_port)
sed -e "s|@VAR@|$W|g" -e "s|@TOP@|$TOP|g" -e "s|@PORT@|$PORT2|g" -e "s|@SOCK@|$W/run/askql.sock|g" \
	-e "s|@RUNSOCK@|$W/run/askql.sock|g" -e "s|@DLSOCK@|$W/run/askql.sock|g" "$TOP/conf/nginx.conf.in" >"$W/nginx.conf"
nginx -c "$W/nginx.conf" -p "$W/nginx"
B2=http://127.0.0.1:$PORT2
for _ in $(seq 50); do [ "$(code "$B2/signin")" = 200 ] && break; sleep 0.1; done
signin "$T/admin2" "$ADMIN_USER" "$ADMIN_PASS" "$B2" >/dev/null
# ~1 M short rows: the query streams them in well under 3 s, the deflate of the sheet takes longer
DR=$(mkrun "SELECT g, g * 2 AS h, g % 7 AS k, g % 11 AS m FROM generate_series(1, 1000000) AS s(g)")
r0=$(curl -s -o /dev/null -m 60 -w '%{http_code} %{time_total}' -b "$T/admin2" "$B2/runs/$DR/download?format=csv")
check "the same rows as CSV arrive whole within the 3 s ($r0): the query alone fits the deadline" "[ '${r0% *}' = 200 ]"
r=$(curl -s -o "$T/d.xlsx" -m 60 -w '%{http_code} %{time_total}' -b "$T/admin2" "$B2/runs/$DR/download?format=xlsx")
c=${r% *}; tt=${r#* }
check "with export_timeout_ms 3 s a 1,000,000-row XLSX download ends by the deadline ($c after ${tt} s)" \
	"awk 'BEGIN{exit !($tt < 4.5)}'"
check "as a 503 saying why, no partial workbook ($c)" "[ $c = 503 ] && ! unzip -l '$T/d.xlsx' >/dev/null 2>&1"
sleep 0.5
check "the killed packer left nothing in its temp directory" "[ -z \"\$(ls -A '$W/tmp')\" ]"
grep -E 'packing the workbook|time limit' "$W/log/askql.log" | tail -1 | sed 's/.*: //' >"$T/why"
check "the log says where the time ran out: $(cat "$T/why")" "[ -s '$T/why' ]" "$(tail -5 "$W/log/askql.log")"

echo "1..$n"
