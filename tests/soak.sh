#!/usr/bin/env bash
# soak.sh: `make soak`: the long reliability runs on a throwaway stack: 60 s loads and a 200-run burst
# (bench/load.sh), the fault, scale-out, replica and security tests, a 5-minute mixed load with a worker
# killed every 20 s and the pool checked for leaks, then long fuzzing (FUZZ_SECONDS per target).
# Ends with "N passed, N failed" like make test.  Overrides: DURATION, RUNS_BURST, SOAK_SECONDS, FUZZ_SECONDS.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TOP
. "$TOP/scripts/lib.sh"
VAR=$TOP/build/soakvar
LOGDIR=$TOP/build/soak-logs
rm -rf "$LOGDIR"; mkdir -p "$LOGDIR"
PASS=0 FAIL=0
tap() { # tap NAME LOG RC: count ok / not ok lines
	local ok nok
	ok=$(grep -cE '^ok( [0-9]+)?( -|$)' "$2"); nok=$(grep -cE '^not ok' "$2")
	PASS=$((PASS + ok)); FAIL=$((FAIL + nok))
	[ "$3" -ne 0 ] && [ "$nok" -eq 0 ] && FAIL=$((FAIL + 1)) && echo "FAIL: $1 exited $3"
	grep -E '^not ok' "$2" | sed "s|^|FAIL: $1: |"
	echo "  $1: $ok ok, $nok not ok"
}

ensure_sysuser
stack_down "$VAR" 2>/dev/null; rm -rf "$VAR"; mkdir -p "$VAR"
PGPORT=$(free_port) PORT=$(free_port)
export PG_FSYNC=off
# one address (this machine) drives hundreds of requests at once: above nginx's per-address limit
export NGINX_CONN_PER_ADDR=${NGINX_CONN_PER_ADDR:-4096}
stack_up "$VAR" "$PORT" "$PGPORT" "${WORKERS:-4}" >"$LOGDIR/stack.log" 2>&1 || { cat "$LOGDIR/stack.log"; exit 1; }
trap 'stack_down "$VAR"' EXIT
export ASKQL_CONF=$VAR/askql.conf PGHOST=$VAR/run PGPORT PGUSER=askql PGPASSFILE=$VAR/pgpass.admin ASKQL=$TOP/bin/askql VAR
export BASE_URL=http://127.0.0.1:$PORT ADMIN_USER=admin ADMIN_PASS=$(cat "$VAR/admin.password")
export FAKE_LLM=$TOP/tests/lib/fake_llm.py
for _ in $(seq 50); do curl -s -o /dev/null "$BASE_URL/signin" && break; sleep 0.2; done
echo "soak stack: nginx $PORT, postgres $PGPORT, $(nproc) cores"

echo "== load (60 s per page, ${RUNS_BURST:-200} concurrent runs)"
DURATION=${DURATION:-60} RUNS_BURST=${RUNS_BURST:-200} bash "$TOP/bench/load.sh" | tee "$LOGDIR/load.log"
non2xx=$(awk -F'|' '/askql \// {gsub(/ /, "", $8); s += $8} END {print s + 0}' "$LOGDIR/load.log")
lost=$(awk -F'|' '/pool/ {gsub(/ /, "", $5); gsub(/ /, "", $6); split($6, a, "/"); s += $5 + a[1]} END {print s + 0}' "$LOGDIR/load.log")
{ [ "$non2xx" = 0 ] && echo "ok - load: no non-2xx on askql pages" || echo "not ok - load: $non2xx non-2xx on askql pages"
  [ "$lost" = 0 ] && echo "ok - burst: every run answered and finished ok" || echo "not ok - burst: $lost runs failed, lost or stuck"
} >"$LOGDIR/load.tap"
tap load "$LOGDIR/load.tap" 0

echo "== fault, scale-out, replica and security tests"
for t in 90_faults 91_scaleout 92_replica 93_security; do
	(cd "$TOP" && LOAD_S=30 timeout 900 bash "tests/integration/$t.sh") >"$LOGDIR/$t.log" 2>&1
	tap "$t" "$LOGDIR/$t.log" $?
done

echo "== mixed load for ${SOAK_SECONDS:-300} s, a worker killed every 20 s"
SOAK_SECONDS=${SOAK_SECONDS:-300}
J=$LOGDIR/cj
pre=$(curl -s -c "$J" -b "$J" "$BASE_URL/signin" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
curl -s -o /dev/null -c "$J" -b "$J" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
SID=$(awk '$6 == "askql_sid" {print $7}' "$J")
CSRF=$(curl -s -b "$J" "$BASE_URL/" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
# one pid per line (spawn-fcgi writes its pid file without a newline, so a plain cat would glue them)
pools() { local f; for f in "$VAR/run/pool.pid" "$VAR/run/pool-runs.pid" "$VAR/run/pool-downloads.pid"; do [ -s "$f" ] && echo "$(cat "$f")"; done; }
workers() { for pp in $(pools); do pgrep -P "$pp"; done; }
rss() { local t=0; for p in $(workers); do t=$((t + $(awk '/VmRSS/ {print $2}' "/proc/$p/status"))); done; echo $t; }
fds() { local t=0; for p in $(workers); do t=$((t + $(ls "/proc/$p/fd" | wc -l))); done; echo $t; }
rss0=$(rss); fds0=$(fds)
wrk -t2 -c16 -d"${SOAK_SECONDS}s" -H "Cookie: askql_sid=$SID" "$BASE_URL/history" >"$LOGDIR/soak_wrk.log" 2>&1 &
WRK=$!
end=$(( $(date +%s) + SOAK_SECONDS )) i=0 kills=0
while [ "$(date +%s)" -lt "$end" ]; do
	curl -s -o /dev/null -m 60 -b "$J" --data-urlencode "csrf=$CSRF" \
		--data-urlencode "question=potassium results above 6.5 per case, soak $i" "$BASE_URL/runs"
	i=$((i + 1))
	if [ $((i % 20)) = 0 ]; then
		# alternately a page worker and a runs worker (the latter may be mid-run)
		v=$(pgrep -P "$(pools | sed -n "$(( (i / 20) % 2 + 1 ))p")" | head -1)
		[ -z "$v" ] && v=$(workers | head -1)
		[ -n "$v" ] && kill -9 "$v" && kills=$((kills + 1))
	fi
	sleep 0.5
done
wait "$WRK"
sleep 2
rss1=$(rss); fds1=$(fds)
stuck=$(psql -X -q -tA -d askql -c "SELECT count(*) FROM askql.runs WHERE question LIKE '%, soak %' AND status = 'running'")
"$ASKQL" ask --json "how many cases are there" >/dev/null 2>&1   # sweeps runs of killed workers
stuck2=$(psql -X -q -tA -d askql -c "SELECT count(*) FROM askql.runs WHERE question LIKE '%, soak %' AND status = 'running'")
reqs=$(awk '/requests in/ {print $1}' "$LOGDIR/soak_wrk.log")
bad=$(awk '/Non-2xx/ {print $NF}' "$LOGDIR/soak_wrk.log")
{
	echo "# $i runs started, $kills workers killed, history load $reqs requests ($(awk '/Requests\/sec/ {print $2}' "$LOGDIR/soak_wrk.log") req/s)"
	echo "# pool RSS ${rss0} -> ${rss1} kB, fds ${fds0} -> ${fds1}; runs left running: $stuck, after a sweep: $stuck2"
	[ "${bad:-0}" -le $((kills * 2)) ] && echo "ok - soak: history load non-2xx ${bad:-0} <= 2 per kill" || echo "not ok - soak: ${bad} non-2xx"
	[ "$stuck2" = 0 ] && echo "ok - soak: no run left running after the sweep" || echo "not ok - soak: $stuck2 runs stuck"
	[ "$fds0" -gt 0 ] && [ "$fds1" -le $((fds0 + 8)) ] && echo "ok - soak: no fd growth in the pool ($fds0 -> $fds1)" ||
		echo "not ok - soak: pool fds $fds0 -> $fds1 (0 means the workers were not found)"
	[ "$kills" -gt 0 ] && echo "ok - soak: $kills workers killed during the load" || echo "not ok - soak: no worker was killed"
} >"$LOGDIR/soak.tap"
cat "$LOGDIR/soak.tap"
tap soak "$LOGDIR/soak.tap" 0

echo "== fuzz (${FUZZ_SECONDS:-600} s per target)"
FUZZ_SECONDS=${FUZZ_SECONDS:-600} bash "$TOP/tests/fuzz/run.sh" long >"$LOGDIR/fuzz.log" 2>&1
tap fuzz "$LOGDIR/fuzz.log" $?
cat "$LOGDIR/fuzz.log"

echo
echo "$PASS passed, $FAIL failed"
[ "$FAIL" -eq 0 ]
