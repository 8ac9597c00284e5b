#!/usr/bin/env bash
# web.sh: worker time of the run page with a 50-row result, and history pages over 100,000 runs.
# Needs the stack of bench/run.sh (BASE_URL, ADMIN_USER/PASS, VAR, PGHOST/PGPORT as superuser).
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${VAR:?}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
N=${WEB_BENCH_N:-200}
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }

pre=$(curl -s -c "$T/cj" -b "$T/cj" "$BASE_URL/signin" | field csrf)
curl -s -o /dev/null -c "$T/cj" -b "$T/cj" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
uid=$(q -c "SELECT id FROM askql.users WHERE name = '$ADMIN_USER'")
# a finished run with a 50-row, 3-column result and 6 steps, like a group-by question
rid=$(q <<SQL
INSERT INTO askql.runs(user_id, question, status, sql, columns, preview, row_count, answer, tables, fingerprint)
SELECT $uid, 'bench: average heart rate by case', 'ok', 'SELECT caseid, avg(hr) AS hr, count(*) AS n FROM vital_data_table GROUP BY caseid ORDER BY caseid LIMIT 50',
 '[{"name":"caseid","type":"int4"},{"name":"hr","type":"number"},{"name":"n","type":"int8"}]',
 (SELECT jsonb_agg(jsonb_build_array(g, round((70 + g * 0.3)::numeric, 2), g * 7)) FROM generate_series(1, 50) g),
 50, '50 rows; succeeded on attempt 1 of 3', '{vital_data_table}', 'bench_fp'
RETURNING id;
SQL
)
q -c "INSERT INTO askql.steps(run_id, seq, kind, name, status, input, output, ms)
      SELECT $rid, s, 'node', (ARRAY['inspector','planner','guard','explain','executor','packager'])[s], 'ok',
             '{\"attempt\":1,\"max_retries\":3}', jsonb_build_object('sql', 'SELECT caseid, avg(hr) FROM vital_data_table GROUP BY caseid'), 1.5
      FROM generate_series(1, 6) s" >/dev/null
# 100,000 runs by 20 users for the history pages
q <<SQL >/dev/null
INSERT INTO askql.users(name, pwhash, role) SELECT 'bench' || g, 'x', 'analyst' FROM generate_series(1, 20) g ON CONFLICT DO NOTHING;
INSERT INTO askql.runs(user_id, question, status, sql, fingerprint, tables, created_at, row_count)
SELECT (SELECT id FROM askql.users WHERE name = 'bench' || (1 + g % 20)), 'bench question ' || g || ' about heart rate ' || (g % 97),
       (ARRAY['ok','ok','ok','error','unanswerable'])[1 + g % 5], 'SELECT avg(hr) FROM vital_data_table WHERE caseid = ' || (g % 500),
       'fp' || (g % 3000), ARRAY[(ARRAY['vital_data_table','clinical_data_table','lab_data_table'])[1 + g % 3]],
       now() - g * interval '1 minute', g % 100
FROM generate_series(1, 100000) g;
ANALYZE askql.runs;
SQL

log=$VAR/log/askql.log
# time PATH LABEL: N requests; worker time from the access line of each request, curl time end to end
time_page() {
	local path=$1 label=$2 n=${3:-$N} before
	before=$(wc -l <"$log")
	for _ in $(seq "$n"); do curl -s -o /dev/null -b "$T/cj" -w '%{time_total}\n' "$BASE_URL$path"; done >"$T/curl"
	tail -n +"$((before + 1))" "$log" | grep -F " GET ${path%%\?*} 200 " | sed 's/.* 200 \([0-9.]*\)ms.*/\1/' >"$T/worker"
	python3 - "$label" "$T/worker" "$T/curl" <<'PY'
import sys, statistics
def pct(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))] if v else float('nan')
w = [float(x) for x in open(sys.argv[2]) if x.strip()]
c = [float(x) * 1000 for x in open(sys.argv[3]) if x.strip()]
print(f"| {sys.argv[1]:<44} | {len(w):>5} | {pct(w,50):8.2f} | {pct(w,95):8.2f} | {pct(c,50):8.2f} |")
PY
}
# times in ms: worker = the worker's own log line (request in, response out); curl = end to end through nginx
# the template render alone, from the worker's own line for the run page
before=$(wc -l <"$log")
echo "| page                                         |     n | wkr p50  | wkr p95  | curl p50 |"
echo "|----------------------------------------------|-------|----------|----------|----------|"
time_page "/runs/$rid" "run page, 50-row result + chart + 6 steps"
tail -n +"$((before + 1))" "$log" | grep -F "run page $rid rendered" | sed 's/.* in \([0-9.]*\) ms.*/\1/' >"$T/render"
python3 - "$T/render" <<'PY'
import sys
v = sorted(float(x) for x in open(sys.argv[1]) if x.strip())
if v:
    print(f"| {'  of which run page build + render':<44} | {len(v):>5} | {v[len(v)//2]:8.2f} | {v[int(0.95*(len(v)-1))]:8.2f} |          |")
PY
time_page "/runs/$rid?page=1&sort=1&dir=desc" "run page, sorted by a column"
time_page "/" "ask page"
time_page "/history" "history, own runs (admin: few)" 50
time_page "/history?all=1" "history, everyone's 100k runs, page 1" 50
time_page "/history?all=1&page=200" "history, everyone's, page 200 (OFFSET 4975)" 50
time_page "/history?all=1&q=heart%20rate%2042" "history, search question+SQL over 100k" 50
time_page "/history?all=1&status=error&table=lab_data_table" "history, status + table filter over 100k" 50
time_page "/history?all=1&group=1" "history, grouped by fingerprint over 100k" 20
