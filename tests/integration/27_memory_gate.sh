#!/usr/bin/env bash
# 27_memory_gate.sh: the EXPLAIN gate (issue 27, "memory"): work_mem does not bound an accumulating aggregate's
# state, so three array_agg over generate_series(1, 60000000) took 2.3 GB in one backend in the review.  Before a
# statement runs askql checks the plan's estimated rows into array_agg/string_agg/json_agg/jsonb_agg/xmlagg
# (exec_max_agg_rows), the rows of generate_series (exec_max_series_rows) and its total cost (exec_max_cost).
# By execution: the review's statement and its variations are refused in well under a second, through the CLI
# and a web download, with no backend left working on them; ordinary statements still run; the limits are
# settings, checked at start.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}"
ASKQL=${ASKQL:-$TOP/bin/askql}
T=$(mktemp -d); chmod 755 "$T"; trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# export SQL: run it through the executor as the CLI does; $rc, $ms and $T/out.log after
export_sql() {
	local t0; t0=$(now_ms)
	"$ASKQL" export --sql "$1" --format csv -o "$T/out.csv" >"$T/out.log" 2>&1
	rc=$?; ms=$(( $(now_ms) - t0 ))
}
busy() { psql -X -q -tA -d postgres -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%generate_series(1, 60000000)%' AND pid <> pg_backend_pid()"; }

ARR="SELECT (SELECT array_length(array_agg(g), 1) FROM generate_series(1, 60000000) g) AS a,
        (SELECT array_length(array_agg(g), 1) FROM generate_series(1, 60000000) g) AS b,
        (SELECT array_length(array_agg(g), 1) FROM generate_series(1, 60000000) g) AS c"
export_sql "$ARR"
check "the review's three array_agg over generate_series(1, 60000000) are refused before they run (${ms} ms)" \
	'[ $rc -ne 0 ] && [ $ms -lt 3000 ] && grep -q "array_agg would collect about 60,000,000 rows" "$T/out.log" && grep -q exec_max_agg_rows "$T/out.log"' \
	"rc $rc, $ms ms: $(cat "$T/out.log")"
check "no file was written and no backend works on the statement" '[ ! -s "$T/out.csv" ] && [ "$(busy)" = 0 ]' "$(busy)"

for agg in "string_agg(g::text, ',')" "json_agg(g)" "jsonb_agg(g)" "xmlagg(xmlelement(name x, g))" "jsonb_object_agg(g, g)"; do
	export_sql "SELECT length($agg::text) AS n FROM generate_series(1, 60000000) g"
	check "${agg%%(*} over 60,000,000 generated rows refused (${ms} ms)" \
		'[ $rc -ne 0 ] && [ $ms -lt 3000 ] && grep -q "${agg%%(*} would collect" "$T/out.log"' "rc $rc: $(cat "$T/out.log")"
done
export_sql "SELECT g % 7 AS k, array_agg(g) AS v FROM generate_series(1, 60000000) g GROUP BY 1"
check "a grouped array_agg over the same rows refused too" '[ $rc -ne 0 ] && grep -q "array_agg would collect" "$T/out.log"' "$(cat "$T/out.log")"
export_sql "SELECT array_agg(x) AS v FROM (SELECT g AS x FROM generate_series(1, 60000000) g) s"
check "an array_agg over a subquery of the series refused" '[ $rc -ne 0 ] && grep -q "array_agg would collect" "$T/out.log"' "$(cat "$T/out.log")"
export_sql "SELECT count(*) AS n FROM generate_series(1, 200000000) g"
check "generate_series of 200,000,000 rows refused by exec_max_series_rows (${ms} ms)" \
	'[ $rc -ne 0 ] && [ $ms -lt 3000 ] && grep -q "generate_series would make about 200,000,000 rows" "$T/out.log" && grep -q exec_max_series_rows "$T/out.log"' \
	"$(cat "$T/out.log")"
export_sql "SELECT generate_series(1, 200000000) AS g"
check "generate_series in the select list refused as well" '[ $rc -ne 0 ] && grep -q "generate_series would make" "$T/out.log"' "$(cat "$T/out.log")"

# ordinary statements still run
export_sql "SELECT array_length(array_agg(g), 1) AS n FROM generate_series(1, 100000) g"
check "an array_agg of 100,000 rows runs" '[ $rc -eq 0 ] && grep -q "^100000" "$T/out.csv"' "$(cat "$T/out.log" "$T/out.csv")"
export_sql "SELECT count(*) AS n, sum(g) AS s FROM generate_series(1, 5000000) g"
check "count and sum over 5,000,000 generated rows run (no accumulating aggregate)" '[ $rc -eq 0 ] && grep -q 5000000 "$T/out.csv"' \
	"$(cat "$T/out.log" "$T/out.csv")"
tbl=$(psql -X -q -tA -d demo -c "SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name LIMIT 1")
export_sql "SELECT count(*) AS n FROM $tbl"
check "an ordinary count on the demo table $tbl runs" '[ $rc -eq 0 ] && [ "$(wc -l <"$T/out.csv")" -ge 2 ]' "$(cat "$T/out.log")"

# the limits are settings
out=$(ASKQL_EXEC_MAX_AGG_ROWS=500 "$ASKQL" export --sql "SELECT array_agg(g) AS v FROM generate_series(1, 1000) g" --format csv -o - 2>&1); rc=$?
check "exec_max_agg_rows 500 refuses an array_agg of 1,000 rows" '[ $rc -ne 0 ] && grep -q "(500)" <<<"$out"' "$out"
out=$(ASKQL_EXEC_MAX_COST=10 "$ASKQL" export --sql "SELECT count(*) AS n FROM $tbl" --format csv -o - 2>&1); rc=$?
check "exec_max_cost 10 refuses an ordinary count, naming the setting" '[ $rc -ne 0 ] && grep -q "exec_max_cost (10)" <<<"$out"' "$out"
SER="SELECT count(*) AS n FROM generate_series(1, 2000000) g"
out=$(ASKQL_EXEC_MAX_SERIES_ROWS=1000 "$ASKQL" export --sql "$SER" --format csv -o - 2>&1); rc=$?
check "exec_max_series_rows 1000 refuses a series of 2,000,000" '[ $rc -ne 0 ] && grep -q "exec_max_series_rows (1,000)" <<<"$out"' "$out"
out=$(ASKQL_EXEC_MAX_SERIES_ROWS=0 "$ASKQL" export --sql "$SER" --format csv -o - 2>&1); rc=$?
check "0 turns the check off: the same series runs" '[ $rc -eq 0 ] && grep -q 2000000 <<<"$out"' "$out"
out=$(ASKQL_EXEC_MAX_AGG_ROWS=-1 "$ASKQL" export --sql "SELECT 1 AS x" --format csv -o - 2>&1); rc=$?
check "a negative exec_max_agg_rows stops the program at start" '[ $rc -ne 0 ] && grep -q exec_max_agg_rows <<<"$out"' "$out"

# through the web: a download of a stored run re-runs its SQL through the same executor.  A refusal comes before
# any byte: 422 with the reason in the reader's language (a page) or in JSON (the API), never an attachment
# (issue 27: it was the generic error page)
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
MG=mg_$$
printf '%s\n' "mg-password-$$-long" >"$T/pw"
"$ASKQL" user add "$MG" analyst --password-file "$T/pw" >/dev/null 2>&1
pre=$(curl -s -c "$T/jar" -b "$T/jar" "$BASE_URL/signin" | field csrf)
curl -s -o /dev/null -c "$T/jar" -b "$T/jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$MG" \
	--data-urlencode "password=mg-password-$$-long" "$BASE_URL/signin"
A=$(curl -s -b "$T/jar" "$BASE_URL/" | field csrf)
lang() { curl -s -o /dev/null -b "$T/jar" -c "$T/jar" --data-urlencode "csrf=$A" --data-urlencode "lang=$1" --data-urlencode next=/ "$BASE_URL/lang"; }
TOK=$("$ASKQL" user token "$MG" 2>/dev/null | tail -1)
check "an analyst signed in, with an API token" '[ -n "$A" ] && [ -n "$TOK" ]'
newrun() {   # newrun QUESTION SQL: a finished run of the analyst's holding SQL; prints its id
	psql -X -q -tA -d askql -v ON_ERROR_STOP=1 -v user="$MG" -v q="$1" -v sql="$2" <<'SQL' | head -1
INSERT INTO askql.runs(user_id, question, status, sql)
SELECT id, :'q', 'ok', :'sql' FROM askql.users WHERE name = :'user' RETURNING id
SQL
}
rid=$(newrun "issue 27: three array_agg" "$ARR")
# get URL [curl args]: $code, $ms, the body in $T/web.out and the headers in $T/web.hdr
get() {
	local t0; t0=$(now_ms)
	code=$(curl -s -m 60 -D "$T/web.hdr" -o "$T/web.out" -w '%{http_code}' "${@:2}" "$1")
	ms=$(( $(now_ms) - t0 ))
}
noattach() { ! grep -qi '^content-disposition' "$T/web.hdr"; }
lang en
get "$BASE_URL/runs/$rid/download?format=csv" -b "$T/jar"
check "a web CSV download of the review's statement: 422 in ${ms} ms with the reason, no attachment, no backend left on it" \
	'[ -n "$rid" ] && [ "$code" = 422 ] && [ $ms -lt 3000 ] && grep -q "array_agg would collect about 60,000,000 rows" "$T/web.out" && noattach && [ "$(busy)" = 0 ]' \
	"$code $(cat "$T/web.hdr") $(grep -o 'class="alert[^<]*<[^<]*' "$T/web.out" | head -3)"
for f in json xlsx zip; do
	get "$BASE_URL/runs/$rid/download?format=$f" -b "$T/jar"
	check "the same as $f: 422 with the reason, no attachment" \
		'[ "$code" = 422 ] && grep -q "array_agg would collect" "$T/web.out" && noattach' "$code $(head -c 300 "$T/web.out")"
done
lang ko
get "$BASE_URL/runs/$rid/download?format=csv" -b "$T/jar"
check "in Korean for a Korean reader" '[ "$code" = 422 ] && grep -q "실행하기 전에 거절했습니다: array_agg" "$T/web.out" && grep -q "내려받을 수 없습니다" "$T/web.out"' \
	"$code $(grep -o 'class="alert[^<]*<[^<]*' "$T/web.out" | head -3)"
lang en
get "$BASE_URL/api/runs/$rid/download?format=csv" -H "Authorization: Bearer $TOK"
check "through the API: 422 in JSON with the reason, no attachment" \
	'[ "$code" = 422 ] && grep -qi "^content-type: application/json" "$T/web.hdr" && noattach &&
	 [ "$(jq -r .status "$T/web.out")" = 422 ] && jq -r .message "$T/web.out" | grep -q "array_agg would collect about 60,000,000 rows"' \
	"$code $(cat "$T/web.hdr" "$T/web.out" | head -c 600)"
# a statement the guard refuses (it was stored before the guard knew better, or written by hand)
gid=$(newrun "issue 27: a side effect" "SELECT pg_terminate_backend(pg_backend_pid()) AS x")
get "$BASE_URL/runs/$gid/download?format=csv" -b "$T/jar"
check "a download the guard refuses: 422 with its reason, no attachment" \
	'[ -n "$gid" ] && [ "$code" = 422 ] && grep -q "pg_terminate_backend" "$T/web.out" && noattach' "$code $(grep -o 'class="alert[^<]*<[^<]*' "$T/web.out" | head -3)"
get "$BASE_URL/api/runs/$gid/download?format=json" -H "Authorization: Bearer $TOK"
check "... and through the API in JSON" '[ "$code" = 422 ] && jq -r .message "$T/web.out" | grep -q "pg_terminate_backend" && noattach' "$code $(head -c 300 "$T/web.out")"
psql -X -q -d askql -c "DELETE FROM askql.runs WHERE id IN (${rid:-0}, ${gid:-0})" >/dev/null 2>&1

echo "1..$n"
