#!/usr/bin/env bash
# 99_export_deadline.sh: security review issue 14, finding 3 ("downloads starve the pages"): a download ends
# by export_timeout_ms as a whole, a client that hangs up frees its database backend within about a second,
# downloads have their own worker pool so pages answer while they stream, a target database runs at most
# target_max_statements analyst statements at once, and out-of-range values of these settings stop a start.
# A private pool (export_timeout_ms = 3000) and nginx are started beside the test stack for the deadline.
set -uo pipefail
: "${TOP:?}" "${VAR:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL_CONF:?}"
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/scripts/lib.sh"

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
dq() { psql -X -q -tA -d demo -c "$1"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
now_ms() { date +%s%3N; }

W=$(mktemp -d /tmp/askql-99.XXXXXX)
chmod 755 "$W"; mkdir -p "$W/run" "$W/log" "$W/exports"
HOLDER=dl99_$$
BG=()   # curls this test started in the background, ended by pid
cleanup() {
	local p
	for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
	nginx_stop "$W" 2>/dev/null
	pool_stop "$W" downloads 2>/dev/null
	pool_stop "$W" 2>/dev/null
	dq "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$HOLDER'" >/dev/null 2>&1
	[ -n "${LANG0:-}" ] && q -c "UPDATE askql.users SET lang = '$LANG0' WHERE name = '$ADMIN_USER'" >/dev/null 2>&1
	# nothing this test started may keep running on the shared cluster
	dq "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%dl99_%' AND pid <> pg_backend_pid()" >/dev/null 2>&1
	q -c "DELETE FROM askql.runs WHERE question LIKE 'dl99 %'" >/dev/null 2>&1
	rm -rf "$W"
}
trap cleanup EXIT

# slow TAG [FAST]: a query whose rows cost ~5 ms each of server time (a correlated count per row), so
# each FETCH ends well within statement_timeout while the whole result would take minutes; FAST rows
# first (cheap, 40 bytes each) make bytes reach the client before the slow part.  TAG finds its backend.
slow() {
	echo "SELECT g, CASE WHEN g <= ${2:-0} THEN md5(g::text) ELSE (SELECT count(*) FROM generate_series(1, 100000 + g % 2))::text END AS v, '$1' AS tag FROM generate_series(1, 200000) AS s(g)"
}
# mkrun USER SQL: a finished run of USER holding SQL (what a download re-runs); prints its id
mkrun() {
	q -v u="$1" -v sql="$2" <<'SQL' | head -1
INSERT INTO askql.runs(user_id, question, status, sql)
SELECT id, 'dl99 ' || left(:'sql', 60), 'ok', :'sql' FROM askql.users WHERE name = :'u' RETURNING id
SQL
}
# busy: sessions of the executor's role running a statement or inside a transaction.  A download's
# backend shows "FETCH n FROM askql_cur", not its SQL, so they are counted, not named: nothing else
# runs analyst SQL on this cluster while this test does.
busy() {
	dq "SELECT count(*) FROM pg_stat_activity WHERE usename = 'askql_reader' AND (state <> 'idle' OR xact_start IS NOT NULL)"
}
# in_tx: sessions of the executor's role inside a transaction (none once every download ended)
in_tx() { dq "SELECT count(*) FROM pg_stat_activity WHERE usename = 'askql_reader' AND xact_start IS NOT NULL"; }
# wait_busy N: until N such sessions (at most 10 s); prints how many there were
wait_busy() {
	local b=0
	for _ in $(seq 100); do b=$(busy); [ "$b" -ge "$1" ] && break; sleep 0.1; done
	echo "$b"
}
# freed_ms: ms until no such session is left (polled every 0.1 s, at most 8 s)
freed_ms() {
	local t0 b
	t0=$(now_ms)
	for _ in $(seq 80); do b=$(busy); [ "$b" = 0 ] && break; sleep 0.1; done
	[ "$b" = 0 ] && echo $(( $(now_ms) - t0 )) || echo 99999
}
signin() { # signin BASE JAR NAME PASS -> the session's CSRF token
	local pre
	pre=$(curl -s -c "$2" -b "$2" "$1/signin" | field csrf)
	curl -s -o /dev/null -c "$2" -b "$2" --data-urlencode "csrf=$pre" --data-urlencode "name=$3" \
		--data-urlencode "password=$4" "$1/signin"
	curl -s -b "$2" "$1/" | field csrf
}

# the messages are checked in English (the admin's language is restored at the end)
LANG0=$(q -c "SELECT lang FROM askql.users WHERE name = '$ADMIN_USER'")
q -c "UPDATE askql.users SET lang = 'en' WHERE name = '$ADMIN_USER'" >/dev/null
A=$(signin "$BASE_URL" "$W/admin" "$ADMIN_USER" "$ADMIN_PASS")
TOK=$("$ASKQL" user token "$ADMIN_USER" 2>/dev/null | tail -1)
ANA=dl99ana$RANDOM
printf 'pw-%s-secret\n' "$ANA" >"$W/ana.pw"
"$ASKQL" user add "$ANA" analyst --password-file "$W/ana.pw" >/dev/null 2>&1
TOK2=$("$ASKQL" user token "$ANA" 2>/dev/null | tail -1)
check "admin signed in, API tokens for the admin and analyst $ANA" "[ -n '$A' ] && [ -n '$TOK' ] && [ -n '$TOK2' ]"
dl() { # dl TOKEN RUN FORMAT [curl args]: an API download
	local t=$1 id=$2 f=$3; shift 3
	curl -s -H "Authorization: Bearer $t" "$@" "$BASE_URL/api/runs/$id/download?format=$f"
}

# ---- 1. settings: export_timeout_ms, target_max_statements, target_wait_ms are checked at start ---
for kv in EXPORT_TIMEOUT_MS=abc EXPORT_TIMEOUT_MS=0 EXPORT_TIMEOUT_MS=999 EXPORT_TIMEOUT_MS=3600001 \
          EXPORT_TIMEOUT_MS=12s TARGET_MAX_STATEMENTS=-1 TARGET_MAX_STATEMENTS=65 TARGET_WAIT_MS=60001; do
	out=$(env "ASKQL_$kv" "$ASKQL" guard "SELECT 1" 2>&1); rc=$?
	key=$(echo "${kv%%=*}" | tr '[:upper:]' '[:lower:]')
	check "ASKQL_$kv: the CLI refuses to start, naming $key and its range" \
		"[ $rc -ne 0 ] && grep -q '$key' <<<\"\$out\" && grep -q 'whole number from' <<<\"\$out\"" "rc=$rc: $out"
done
out=$(ASKQL_EXPORT_TIMEOUT_MS=0 timeout 5 "$TOP/bin/askql-fcgi" </dev/null 2>&1); rc=$?
check "a worker with export_timeout_ms = 0 refuses to start (exit $rc)" "[ $rc = 1 ] && grep -q export_timeout_ms <<<\"\$out\"" "$out"
echo "export_timeout_ms = 5" >"$W/bad.conf"
out=$("$ASKQL" --conf "$W/bad.conf" guard "SELECT 1" 2>&1); rc=$?
check "export_timeout_ms = 5 in a config file is refused with the file and line (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q 'bad.conf:1' <<<\"\$out\" && grep -q 'from 1000 to 3600000' <<<\"\$out\"" "$out"
out=$(ASKQL_EXPORT_TIMEOUT_MS=3000 ASKQL_TARGET_MAX_STATEMENTS=0 "$ASKQL" guard "SELECT 1" 2>&1); rc=$?
check "values in range are accepted (export_timeout_ms 3000, target_max_statements 0)" "[ $rc = 0 ]" "$out"

# ---- 2. downloads have their own pool ----------------------------------------------------------
check "the test stack runs a downloads pool (pool-downloads.pid alive)" \
	"[ -f '$VAR/run/pool-downloads.pid' ] && kill -0 \$(cat '$VAR/run/pool-downloads.pid') 2>/dev/null"
check "nginx sends /runs/N/download and /api/runs/N/download to the downloads pool" \
	"grep -A3 'download\\\$ {' '$VAR/nginx.conf' | grep -q 'fastcgi_pass askql_downloads' && grep -q 'server unix:$VAR/run/askql-downloads.sock' '$VAR/nginx.conf'" \
	"$(grep -n -B2 -A4 'download' "$VAR/nginx.conf" | head -30)"

# ---- 3. four slow downloads (two users, two each) do not hold the pages --------------------------
R1=$(mkrun "$ADMIN_USER" "$(slow dl99_starve)"); R2=$(mkrun "$ANA" "$(slow dl99_starve)")
for t in "$TOK" "$TOK2"; do
	for _ in 1 2; do
		r=$R1; [ "$t" = "$TOK2" ] && r=$R2
		# curl itself in the background (not a function's subshell): killing it hangs up
		curl -s -o /dev/null -m 40 -H "Authorization: Bearer $t" "$BASE_URL/api/runs/$r/download?format=csv" & BG+=($!)
	done
done
b=$(wait_busy 4)
check "four slow downloads run at once ($b backends)" "[ '$b' = 4 ]"
worst=0 codes=""
for i in 1 2 3; do
	t=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}' -b "$W/admin" "$BASE_URL/history")
	codes="$codes $t;"
	ms=$(awk -v s="${t#* }" 'BEGIN {printf "%d", s * 1000}')
	[ "${t% *}" = 200 ] || ms=99999
	[ "$ms" -gt "$worst" ] && worst=$ms
	sleep 0.2
done
check "meanwhile /history answers at once (3 tries, slowest $worst ms, under 2000:$codes)" "[ $worst -lt 2000 ]"
b=$(busy)
check "the four downloads were still running then ($b)" "[ '$b' = 4 ]"
# their clients hang up: every backend is freed within about a second
for p in "${BG[@]}"; do kill "$p" 2>/dev/null; done
ms=$(freed_ms)
check "four clients hang up: their four statements end within 2 s ($ms ms)" "[ $ms -lt 2000 ]" "$(busy) left"
wait 2>/dev/null; BG=()

# ---- 4. one client that hangs up (curl --max-time 1), CSV and XLSX --------------------------------
for f in csv xlsx; do
	R=$(mkrun "$ADMIN_USER" "$(slow dl99_gone_$f)")
	curl -s -o /dev/null -m 1 -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$R/download?format=$f" & c=$!
	b=$(wait_busy 1)
	wait $c
	ms=$(freed_ms)
	check "$f: the client gave up after 1 s; its statement (seen running: $b) ended $ms ms later, under 2000" \
		"[ '$b' = 1 ] && [ $ms -lt 2000 ]"
done
tx=$(in_tx)
check "no session of the executor's role is left inside a transaction ($tx)" "[ '$tx' = 0 ]"

# ---- 5. the deadline: a private pool with export_timeout_ms = 3000 --------------------------------
{ grep -v -e '^log_path' -e '^export_dir' "$ASKQL_CONF"; echo "log_path = $W/log/askql.log"; echo "export_dir = $W/exports"; } >"$W/askql.conf"
touch "$W/log/askql.log"; chown -R "$SYSUSER" "$W"
(export ASKQL_EXPORT_TIMEOUT_MS=3000; pool_start "$W" 2; pool_start "$W" 2 downloads)
PORT2=$(free_port)
nginx_start "$W" "$PORT2"
B=http://127.0.0.1:$PORT2
for _ in $(seq 50); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$B/signin")" = 200 ] && break; sleep 0.1; done
check "private pool with export_timeout_ms = 3000 answers" "[ \$(curl -s -o /dev/null -w '%{http_code}' '$B/signin') = 200 ]"
A2=$(signin "$B" "$W/admin2" "$ADMIN_USER" "$ADMIN_PASS")
# deadline TAG FORMAT FAST HOW: download through the private pool, timed; sets code rc size ms
deadline() {
	local R t0 auth=(-b "$W/admin2") url=$B/runs
	R=$(mkrun "$ADMIN_USER" "$(slow "$1" "$3")")
	[ "$4" = api ] && { auth=(-H "Authorization: Bearer $TOK"); url=$B/api/runs; }
	t0=$(now_ms)
	code=$(curl -s "${auth[@]}" -D "$W/h" -o "$W/body" -m 30 -w '%{http_code}' "$url/$R/download?format=$2")
	rc=$?; ms=$(( $(now_ms) - t0 )); size=$(stat -c %s "$W/body" 2>/dev/null || echo 0)
}
deadline dl99_dead_csv csv 0 web
check "CSV, no row before the deadline: ended after $ms ms (deadline 3000), status $code" \
	"[ $ms -ge 2900 ] && [ $ms -lt 5000 ] && [ '$code' = 503 ]" "curl $rc, $size bytes"
check "the browser is told why: the download stopped at the time limit, narrow the question" \
	"grep -q 'stopped after 3 seconds' '$W/body' && ! grep -qi '^content-disposition' '$W/h'" "$(head -c 300 "$W/body")"
b=$(busy)
check "its statement is cancelled and its transaction gone ($b left, $(in_tx) in a transaction)" "[ '$b' = 0 ] && [ \$(in_tx) = 0 ]"
deadline dl99_dead_json json 0 api
check "API JSON: 503 in $ms ms with a JSON message" \
	"[ $ms -lt 5000 ] && [ '$code' = 503 ] && grep -q '\"message\":\"The download was stopped after 3 seconds' '$W/body'" "$(head -c 300 "$W/body")"
deadline dl99_dead_xlsx xlsx 0 api
check "XLSX (built before it is sent): 503 in $ms ms, no workbook" "[ $ms -lt 5000 ] && [ '$code' = 503 ]" "curl $rc, $size bytes"
b=$(busy)
check "no statement of these downloads is left ($b)" "[ '$b' = 0 ] && [ \$(in_tx) = 0 ]"
deadline dl99_dead_mid csv 30000 web
check "CSV cut at the deadline mid-stream: an incomplete transfer (curl 18 after $size bytes, $ms ms), never a whole-looking file" \
	"[ $rc = 18 ] && [ $size -gt 100000 ] && [ $ms -lt 5000 ]" "curl $rc, status $code, $size bytes"
ms=$(freed_ms)
check "and its statement ended with it ($ms ms after)" "[ $ms -lt 1000 ]"
check "the worker's log says why the downloads stopped" \
	"grep -q 'stopped at the time limit for the whole result (3000 ms)' '$W/log/askql.log'" "$(grep -i download "$W/log/askql.log" | tail -3)"
R=$(mkrun "$ADMIN_USER" "SELECT caseid FROM clinical_data_table ORDER BY caseid")
c=$(curl -s -o "$W/ok.csv" -w '%{http_code}' -m 30 -b "$W/admin2" "$B/runs/$R/download?format=csv")
check "a quick download on the same pool is whole ($c, $(wc -l <"$W/ok.csv") lines)" "[ '$c' = 200 ] && [ \$(wc -l <'$W/ok.csv') -gt 10 ]"

# ---- 6. at most target_max_statements (default 8) analyst statements per target ------------------
# The slots are transaction-level advisory locks in the target database (app/sql/exec.c): key
# 0x61737400 ('ast'), slot number 0..N-1.  A session holds them all, as eight busy workers would.
CLASS=$((0x61737400)) MAXS=${ASKQL_TARGET_MAX_STATEMENTS:-8}
PGAPPNAME=$HOLDER psql -X -q -d demo -c "SELECT pg_advisory_lock($CLASS, s) FROM generate_series(0, $MAXS - 1) s; SELECT pg_sleep(60)" \
	>/dev/null 2>&1 & BG+=($!)
held=0
for _ in $(seq 50); do
	held=$(dq "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = '$HOLDER' AND l.locktype = 'advisory' AND l.granted")
	[ "$held" = "$MAXS" ] && break; sleep 0.1
done
check "the target's $MAXS statement slots are held elsewhere" "[ '$held' = '$MAXS' ]" "held $held"
R=$(mkrun "$ADMIN_USER" "SELECT caseid FROM clinical_data_table ORDER BY caseid LIMIT 5")
t0=$(now_ms)
dl "$TOK" "$R" csv -D "$W/h" -o "$W/body" -m 30 >/dev/null; ms=$(( $(now_ms) - t0 ))
check "API download: 429 with Retry-After after waiting target_wait_ms (2 s; $ms ms)" \
	"head -1 '$W/h' | grep -q ' 429' && grep -qiE '^retry-after: [0-9]+' '$W/h' && [ $ms -ge 1900 ] && [ $ms -lt 6000 ]" "$(head -1 "$W/h")"
check "the 429 says why: the database already runs $MAXS queries" "grep -q 'already running $MAXS queries' '$W/body'" "$(head -c 300 "$W/body")"
c=$(curl -s -o "$W/body" -w '%{http_code}' -m 30 -b "$W/admin" "$BASE_URL/runs/$R/download?format=csv")
check "web download: 429 page with the reason ($c)" "[ '$c' = 429 ] && grep -q 'already running $MAXS queries' '$W/body'"
out=$("$ASKQL" export --sql "SELECT 1 AS x" -o - 2>&1); rc=$?
check "the CLI shares the target's slots: askql export refused with the reason (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q target_max_statements <<<\"\$out\"" "$out"
dq "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$HOLDER'" >/dev/null
for _ in $(seq 50); do
	[ "$(dq "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $CLASS")" = 0 ] && break; sleep 0.1
done
c=$(dl "$TOK" "$R" csv -o "$W/body" -w '%{http_code}' -m 30)
check "slots free again: the download works ($c, $(wc -l <"$W/body") lines)" "[ '$c' = 200 ] && [ \$(wc -l <'$W/body') = 6 ]"
left=$(dq "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $CLASS")
check "a finished statement keeps no slot ($left held)" "[ '$left' = 0 ]"

echo "1..$n"
