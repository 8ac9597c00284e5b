#!/usr/bin/env bash
# load.sh: HTTP load on the running stack (wrk): history, result and start pages vs nginx static (same bytes) and a Flask peer; then a burst of concurrent runs with a 1 s fake LLM.
# Env from bench/run.sh (BASE_URL, VAR, ADMIN_USER, ADMIN_PASS, ASKQL_CONF, PG*).  Overrides:
# DURATION (s, default 60), CONNS (64), THREADS (wrk threads, 2), RUNS_BURST (200), LLM_DELAY_MS (1000),
# RUN_WORKERS (the runs pool of the burst's second layout, as make run sizes it: 16; 0: skip it),
# PARTS (default "pages burst": which halves to run).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
: "${BASE_URL:?}" "${VAR:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL_CONF:?}"
. "$TOP/scripts/lib.sh"
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
DURATION=${DURATION:-60} CONNS=${CONNS:-64} THREADS=${THREADS:-2}
RUNS_BURST=${RUNS_BURST:-200} LLM_DELAY_MS=${LLM_DELAY_MS:-1000} RUN_WORKERS=${RUN_WORKERS:-16}
PARTS=${PARTS:-pages burst}
PY=/usr/bin/python3   # Debian's python3 with python3-flask, python3-psycopg2 and gunicorn

command -v wrk >/dev/null || { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1; }
$PY -c 'import flask, psycopg2' 2>/dev/null && [ -x /usr/bin/gunicorn ] ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-flask python3-psycopg2 gunicorn >/dev/null 2>&1

W=$(mktemp -d /tmp/askql-load.XXXXXX)
chmod 755 "$W"; mkdir -p "$W/run" "$W/log" "$W/static" "$W/nginx"
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	[ -f "$W/static.pid" ] && kill -QUIT "$(cat "$W/static.pid")" 2>/dev/null
	for d in "$W"/p*; do [ -d "$d" ] && { nginx_stop "$d"; pool_stop "$d" runs; pool_stop "$d"; }; done
	sleep 0.3; rm -rf "$W"
}
trap cleanup EXIT
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
sq() { psql -X -q -At -d askql -c "$1"; }

# ---- sign in; a history of 60 runs for the admin so the page has a full 25-row page ----
signin() { # signin BASE JAR -> csrf of the signed-in session
	local pre
	pre=$(curl -s -c "$2" -b "$2" "$1/signin" | field csrf)
	curl -s -o /dev/null -c "$2" -b "$2" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
		--data-urlencode "password=$ADMIN_PASS" "$1/signin"
	curl -s -b "$2" "$1/" | field csrf
}
CSRF=$(signin "$BASE_URL" "$W/cj")
SID=$(awk '$6 == "askql_sid" {print $7}' "$W/cj")
[ -n "$SID" ] || { echo "load: sign-in failed"; exit 1; }
UID_=$(sq "SELECT id FROM askql.users WHERE name = '$ADMIN_USER'")
sq "INSERT INTO askql.runs(user_id, target, kind, provider, question, status, sql, tables, row_count, created_at, finished_at)
    SELECT $UID_, 'demo', 'extract', 'builtin', 'bench: potassium above ' || g || ' per case (load.sh)', 'ok',
           'SELECT caseid, result FROM lab_data_table WHERE name = ''k'' AND result > ' || g || ' ORDER BY caseid LIMIT 100',
           ARRAY['lab_data_table'], 100 + g, now() - g * interval '1 minute', now() - g * interval '1 minute'
    FROM generate_series(1, 60) g" >/dev/null
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$W/cj" --data-urlencode "csrf=$CSRF" \
	--data-urlencode "question=potassium results above 6.5 per case" "$BASE_URL/runs")
RUN=${loc##*/runs/}
[ -n "$RUN" ] && [ "$RUN" != "$loc" ] || { echo "load: could not start a run ($loc)"; exit 1; }

# ---- wrk with a Lua script: the session cookie, non-2xx counted (3xx too: a redirect to sign-in is a failure) ----
cat >"$W/count.lua" <<LUA
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0; wrk.headers["Cookie"] = "askql_sid=$SID" end
function response(status, headers, body) if status < 200 or status > 299 then bad = bad + 1 end end
function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do n = n + t:get("bad") end
  io.write(string.format("RESULT %d %d %.2f %.3f %.3f %d\n", summary.requests, n,
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
LUA
declare -A RPS P50 P99 REQ BAD ERR BYTES CPU
HZ=$(getconf CLK_TCK)
PGMASTER=$(head -1 "$VAR/pg/postmaster.pid")
# ticks: CPU ticks (user+system) used so far by the children of the given parent pids
ticks() { local t=0 p; for p in $(for pp in "$@"; do pgrep -P "$pp"; done); do
	t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0))); done; echo "$t"; }
# server processes of each contender: askql = workers + nginx + postgres; static = its nginx; flask = gunicorn + postgres
parents() { case $1 in
	static) cat "$W/static.pid";;
	flask) echo "${PIDS[0]} $PGMASTER";;
	*) echo "$(cat "$VAR/run/pool.pid") $(cat "$VAR/run/nginx.pid") $PGMASTER";;
	esac; }
bench() { # bench NAME URL
	local out c0 c1
	c0=$(ticks $(parents "$1"))
	out=$(wrk -t"$THREADS" -c"$CONNS" -d"${DURATION}s" --timeout 10s --latency -s "$W/count.lua" "$2" 2>&1 | awk '/^RESULT/')
	c1=$(ticks $(parents "$1"))
	read -r _ REQ[$1] BAD[$1] RPS[$1] P50[$1] P99[$1] ERR[$1] <<<"$out"
	CPU[$1]=$(awk -v d=$((c1 - c0)) -v n="${REQ[$1]:-0}" -v hz="$HZ" 'BEGIN {printf "%.3f", n ? d * 1000 / hz / n : 0}')
	BYTES[$1]=$(curl -s -b "askql_sid=$SID" "$2" | wc -c)
}

# ---- the ceiling: nginx serving the rendered history page as a static file, same settings as ours ----
curl -s -b "askql_sid=$SID" "$BASE_URL/history" >"$W/static/history.html"
SPORT=$(free_port)
cat >"$W/static.conf" <<CONF
user $SYSUSER;
worker_processes 2;
pid $W/static.pid;
error_log $W/log/static-error.log warn;
events { worker_connections 1024; }
http {
	include /etc/nginx/mime.types;
	access_log $W/log/static-access.log;
	client_body_temp_path $W/nginx/body; fastcgi_temp_path $W/nginx/fastcgi; proxy_temp_path $W/nginx/proxy;
	uwsgi_temp_path $W/nginx/uwsgi; scgi_temp_path $W/nginx/scgi;
	sendfile on; keepalive_timeout 30; server_tokens off;
	server { listen 127.0.0.1:$SPORT; location / { root $W/static; add_header Cache-Control no-store; } }
}
CONF
chown -R "$SYSUSER" "$W"
nginx -c "$W/static.conf" -p "$W/nginx"

# ---- the Flask peer: gunicorn, 4 sync workers, same session lookup, query and HTML ----
FPORT=$(free_port)
APPDB=$(sed -n 's/^app_db *= *//p' "$ASKQL_CONF")
(cd "$TOP/bench" && ASKQL_APP_DB="$APPDB" ASKQL_TOP="$TOP" exec $PY -m gunicorn -w 4 -b "127.0.0.1:$FPORT" \
	--log-level warning flask_peer:app) >"$W/log/gunicorn.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do [ "$(curl -s -o /dev/null -w '%{http_code}' -b "askql_sid=$SID" "http://127.0.0.1:$FPORT/history")" = 200 ] && break; sleep 0.1; done

if [[ " $PARTS " == *" pages "* ]]; then
echo "wrk -t$THREADS -c$CONNS -d${DURATION}s, $(nproc) cores; askql with its default ${WORKERS:-4} workers; history page of 25 runs"
bench history "$BASE_URL/history"
bench result "$BASE_URL/runs/$RUN"
bench start "$BASE_URL/"
bench static "http://127.0.0.1:$SPORT/history.html"
bench flask "http://127.0.0.1:$FPORT/history"
printf '\n| %-35s | %7s | %9s | %8s | %8s | %8s | %7s | %11s |\n' page bytes 'req/s' 'p50 ms' 'p99 ms' requests non-2xx 'CPU ms/req'
printf '|%s|\n' "-------------------------------------|---------|-----------|----------|----------|----------|---------|-------------"
for k in history result start static flask; do
	case $k in
	history) l="askql /history";; result) l="askql /runs/$RUN (result)";; start) l="askql / (start page)";;
	static) l="nginx static, same bytes as history";; flask) l="Flask+gunicorn -w4 /history";;
	esac
	printf '| %-35s | %7s | %9s | %8s | %8s | %8s | %7s | %11s |\n' "$l" "${BYTES[$k]}" "${RPS[$k]}" "${P50[$k]}" "${P99[$k]}" "${REQ[$k]}" \
		"$(( ${BAD[$k]:-0} + ${ERR[$k]:-0} ))" "${CPU[$k]}"
done
awk -v h="${RPS[history]}" -v s="${RPS[static]}" -v f="${RPS[flask]}" -v ch="${CPU[history]}" -v cs="${CPU[static]}" -v cf="${CPU[flask]}" 'BEGIN {
	printf "\nhistory vs nginx static: %.1f%% of its req/s (goal >= 25%%), %.1f%% by CPU per request\n", 100*h/s, 100*cs/ch
	printf "history vs Flask peer: %.1fx its req/s (goal >= 10x), %.1fx by CPU per request\n", h/f, cf/ch }'
fi
kill "${PIDS[0]}" 2>/dev/null; kill -QUIT "$(cat "$W/static.pid")" 2>/dev/null; rm -f "$W/static.pid"; PIDS=()

# ---- burst: RUNS_BURST concurrent runs, the fake LLM answering after LLM_DELAY_MS ----
python3 "$FAKE_LLM" --port-file "$W/fake.port" >"$W/log/fake.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$W/fake.port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$W/fake.port")
curl -s -XPOST --data-binary "$(python3 -c 'import json,sys; print(json.dumps([{"repeat": True, "delay_ms": int(sys.argv[1]),
  "text": json.dumps({"reasoning": "r", "sql": "SELECT caseid, result FROM lab_data_table WHERE name = '"'"'k'"'"' ORDER BY caseid LIMIT 20"})}]))' "$LLM_DELAY_MS")" \
	"$FAKE/__script" >/dev/null

# pool_dir NAME WORKERS: a pool (and its nginx) reading the stack's conf with the fake LLM
mkpool() {
	local d=$W/$1
	mkdir -p "$d/run" "$d/log"
	{ grep -v -e '^log_path' "$ASKQL_CONF"
	  printf 'log_path = %s\nllm_provider = openai\nllm_base_url = %s/v1\nllm_api_key = sk-bench\nllm_stream = 0\n' "$d/log/askql.log" "$FAKE"
	} >"$d/askql.conf"
	chown -R "$SYSUSER" "$d"
	pool_start "$d" "$2"
}
# burst LABEL BASE: start RUNS_BURST runs at once, probe the start page every 0.25 s meanwhile
declare -A B_WALL B_OK B_BAD B_STUCK B_PMED B_PMAX B_PN
burst() {
	local label=$1 base=$2 csrf t0 t1 i tag probe_pid cpids
	signin "$base" "$W/cjb" >"$W/csrfb"; csrf=$(cat "$W/csrfb")
	tag="burst $label $$"
	rm -f "$W/codes" "$W/probe"
	t0=$(date +%s.%N)
	cpids=()
	for i in $(seq "$RUNS_BURST"); do
		curl -s -o /dev/null -m 900 -w '%{http_code}\n' -b "$W/cjb" --data-urlencode "csrf=$csrf" \
			--data-urlencode "question=potassium results above 6.5 per case, $tag #$i" "$base/runs" >>"$W/codes" &
		cpids+=($!)
	done
	( sleep 0.5; while [ "$(wc -l <"$W/codes" 2>/dev/null || echo 0)" -lt "$RUNS_BURST" ]; do
		curl -s -o /dev/null -m 120 -w '%{http_code} %{time_total}\n' -b "$W/cjb" "$base/" >>"$W/probe"; sleep 0.25
	done ) &
	probe_pid=$!
	wait "${cpids[@]}"
	t1=$(date +%s.%N)
	wait "$probe_pid" 2>/dev/null
	B_WALL[$label]=$(awk "BEGIN{printf \"%.1f\", $t1 - $t0}")
	B_OK[$label]=$(grep -c '^303$' "$W/codes")
	B_BAD[$label]=$(grep -vc '^303$' "$W/codes")
	B_STUCK[$label]=$(sq "SELECT count(*) FILTER (WHERE status NOT IN ('ok')) || '/' || count(*) FROM askql.runs WHERE question LIKE '%$tag #%'")
	B_PN[$label]=$(wc -l <"$W/probe")
	B_PMED[$label]=$(awk '{print $2}' "$W/probe" | sort -n | awk '{a[NR]=$1} END {printf "%.3f", NR ? a[int((NR+1)/2)] : 0}')
	B_PMAX[$label]=$(awk '$1 != 200 {bad++} {if ($2 > m) m = $2} END {printf "%.3f%s", m, bad ? " (" bad " non-200)" : ""}' "$W/probe")
}

[[ " $PARTS " == *" burst "* ]] || exit 0
mkpool p1 "${WORKERS:-4}"
P1PORT=$(free_port); nginx_start "$W/p1" "$P1PORT"
for _ in $(seq 50); do [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P1PORT/signin")" = 200 ] && break; sleep 0.1; done
burst "one pool of ${WORKERS:-4} for everything" "http://127.0.0.1:$P1PORT"
labels=("one pool of ${WORKERS:-4} for everything")

if [ "$RUN_WORKERS" -gt 0 ]; then
	# as make run starts it: run routes (agent, critique, SSE) on their own pool (scripts/lib.sh)
	(d=$W/p1; pool_start "$d" "$RUN_WORKERS" runs)
	nginx_start "$W/p1" "$P1PORT"; sleep 0.5
	burst "pages pool ${WORKERS:-4} + runs pool $RUN_WORKERS" "http://127.0.0.1:$P1PORT"
	labels+=("pages pool ${WORKERS:-4} + runs pool $RUN_WORKERS")
fi

printf '\n%d concurrent runs (POST /runs), fake LLM answering after %d ms; start page probed every 0.25 s meanwhile\n' "$RUNS_BURST" "$LLM_DELAY_MS"
printf '| %-34s | %7s | %6s | %7s | %-12s | %7s | %9s | %-18s |\n' layout 'wall s' '303s' 'others' 'not ok/runs' probes 'p50 s' 'max s'
printf '|%s|\n' "------------------------------------|---------|--------|---------|--------------|---------|-----------|--------------------"
for l in "${labels[@]}"; do
	printf '| %-34s | %7s | %6s | %7s | %-12s | %7s | %9s | %-18s |\n' "$l" "${B_WALL[$l]}" "${B_OK[$l]}" "${B_BAD[$l]}" \
		"${B_STUCK[$l]}" "${B_PN[$l]}" "${B_PMED[$l]}" "${B_PMAX[$l]}"
done
