#!/usr/bin/env bash
# 28_planner_form.sh: issue 27, "the planner's aggregate questions produce the form directly" (docs/privacy.md,
# "The planner at the aggregate level"): with no model, an analyst at the aggregate level on the demo gets SQL in
# the safe aggregate form (a table without the patient key joined to one that has it, a ranking by ORDER BY ...
# WITH TIES instead of a window in a subquery), run and answered; questions about one case, per-patient results and
# row lists are declined saying why, in English and Korean; the identified analyst's plans are unchanged.  Also:
# `askql export -o` onto an existing FIFO writes into it (it renamed a regular file over it: as root, /dev/null).
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ASKQL:?}" "${VAR:?}" "${PGPORT:?}"
T=$(mktemp -d)
S=$$
AGG=pf_agg_$S IDF=pf_idf_$S
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -12; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
q() { psql -X -q -tA -d askql -c "$1" 2>/dev/null; }
j() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1 if d$1 is not None else '')" 2>/dev/null; }
# teardown: the demo's levels are this test's alone (the other tests' stacks have none): the level roles
# (best effort: a role a pooled connection still reads as may outlive it; 93_security allows level roles),
# their views and grants (revoked as askql_app, their grantor: DROP OWNED leaves those), the CREATE right
# demo_levels gave askql_app, and an extension that right let the explain tool create
teardown() {
	q "DELETE FROM askql.target_levels WHERE target = 'demo'" >/dev/null
	psql -X -q -d demo -c "DROP SCHEMA IF EXISTS askql_limited CASCADE" >/dev/null 2>&1
	# the workers' pooled connections may still read as a level role: ended first (they reconnect)
	psql -X -q -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'demo'
		AND usename = 'askql_reader'" >/dev/null 2>&1
	for _ in 1 2 3 4 5; do
		for r in askql_demo_identified askql_demo_limited askql_demo_aggregate; do
			psql -X -q -d demo -c "SET ROLE askql_app; REVOKE ALL ON ALL TABLES IN SCHEMA public FROM $r" >/dev/null 2>&1
			psql -X -q -d demo -c "DROP OWNED BY $r" >/dev/null 2>&1
			psql -X -q -d askql -c "DROP OWNED BY $r" >/dev/null 2>&1
			psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1
		done
		[ "$(psql -X -q -tA -d postgres -c "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'askql_demo_%'")" = 0 ] && break
		sleep 0.5
	done
	if [ "${CREATE_BEFORE:-1}" = 0 ]; then
		psql -X -q -d demo -c "REVOKE CREATE ON DATABASE demo FROM askql_app" >/dev/null 2>&1
		psql -X -q -d demo -c "REVOKE GRANT OPTION FOR SELECT ON ALL TABLES IN SCHEMA public FROM askql_app CASCADE" >/dev/null 2>&1
	fi
	[ "${HYPOPG_BEFORE:-1}" = 1 ] || psql -X -q -d demo -c "DROP EXTENSION IF EXISTS hypopg" >/dev/null 2>&1
	[ -n "${READ_BEFORE+x}" ] || return 0
	for rel in $(readable); do
		[[ " $READ_BEFORE " == *" $rel "* ]] || psql -X -q -d demo -c "REVOKE SELECT ON public.\"$rel\" FROM askql_app CASCADE" >/dev/null 2>&1
	done
}
cleanup() {
	q "DELETE FROM askql.users WHERE name IN ('$AGG', '$IDF')" >/dev/null
	teardown
	rm -rf "$T"
}
trap cleanup EXIT

# ---- the demo with its access levels, as `make run` sets them up ----
HYPOPG_BEFORE=$(psql -X -q -tA -d demo -c "SELECT count(*) FROM pg_extension WHERE extname = 'hypopg'")
CREATE_BEFORE=$(psql -X -q -tA -d demo -c "SELECT has_database_privilege('askql_app', 'demo', 'CREATE')::int")
# what askql_app may read in the demo's public schema (demo_levels grants it every relation, the views of an
# extension too, which the catalog would then list)
readable() { psql -X -q -tA -d demo -c "SELECT coalesce(string_agg(c.relname, ' ' ORDER BY c.relname), '') FROM pg_class c
	JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm')
	AND has_table_privilege('askql_app', c.oid, 'SELECT')"; }
READ_BEFORE=$(readable)
out=$( (. "$TOP/scripts/lib.sh" && demo_levels "$VAR" "$PGPORT") 2>&1); rc=$?
check "access levels set up on the demo (as make run does)" '[ $rc -eq 0 ] && [ "$(q "SELECT count(*) FROM askql.target_levels WHERE target = '"'demo'"'")" = 1 ]' \
	"$out $(tail -5 "$VAR/log/levels.log" 2>/dev/null)"
printf 'pf-password-%s\n' "$S" >"$T/pw"
for u in "$AGG" "$IDF"; do "$ASKQL" user add "$u" analyst --password-file "$T/pw" >/dev/null 2>&1; done
out=$("$ASKQL" user level "$AGG" demo aggregate 2>&1); rc=$?
check "one analyst reads the demo at the aggregate level, the other identified" '[ $rc -eq 0 ]' "$out"
TA=$("$ASKQL" user token "$AGG" 2>/dev/null | tail -1)
TI=$("$ASKQL" user token "$IDF" 2>/dev/null | tail -1)
check "both have API tokens" '[ ${#TA} = 64 ] && [ ${#TI} = 64 ]'

# ask TOKEN QUESTION: the run's JSON into $T/r.json (no model: the offline planner answers)
ask() {
	curl -s -m 120 -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
		--data "$(python3 -c 'import json,sys; print(json.dumps({"question": sys.argv[1], "target": "demo"}))' "$2")" \
		"$BASE_URL/api/runs" >"$T/r.json"
}
st() { j "['status']" <"$T/r.json"; }
sql() { j "['sql']" <"$T/r.json"; }
rows() { j "['rows']" <"$T/r.json"; }
err() { j "['error']" <"$T/r.json"; }

# ---- a measure of a table without the patient key: joined to the table that has it ----
ask "$TA" "칼륨 평균"; a_sql=$(sql) a_rows=$(rows)
check "aggregate: 칼륨 평균 is answered (before: 'a query must read a table with the patient key')" \
	'[ "$(st)" = ok ] && [ -n "$a_rows" ] && [ "$a_rows" != "[]" ]' "$(cat "$T/r.json")"
check "... its SQL counts patients through the case table (a JOIN towards the one side)" \
	'grep -q "JOIN clinical_data_table ON lab_data_table.caseid = clinical_data_table.caseid" <<<"$a_sql"' "$a_sql"
ask "$TI" "칼륨 평균"; i_sql=$(sql) i_rows=$(rows)
check "identified: the same question reads the lab table alone, as before" \
	'[ "$(st)" = ok ] && ! grep -q JOIN <<<"$i_sql"' "$i_sql"
# (the aggregate level's average carries noise of at most (2 g + 2 |avg|) / n, g the mean value: about
# 0.0024 mmol/L over the demo's 14,006 potassium results; docs/privacy.md "Differencing")
check "... and both levels give the same average within the aggregate level's noise (the join repeats no row)" \
	'python3 -c "import sys; a, b = eval(sys.argv[1]), eval(sys.argv[2]); sys.exit(0 if abs(float(a[0][0]) - float(b[0][0])) < 0.005 else 1)" "$a_rows" "$i_rows"' \
	"$a_rows / $i_rows"

# ---- a ranking: ORDER BY ... FETCH FIRST n ROWS WITH TIES, no window in a subquery ----
ask "$TA" "Top 3 departments by number of patients"; a_sql=$(sql) a_rows=$(rows)
check "aggregate: a top 3 is answered (before: refused, a subquery)" \
	'[ "$(st)" = ok ] && grep -q "FETCH FIRST 3 ROWS WITH TIES" <<<"$a_sql" && ! grep -qi "DENSE_RANK\|OVER (" <<<"$a_sql"' \
	"$(cat "$T/r.json")"
check "... counting patients, not cases (COUNT(DISTINCT subjectid))" 'grep -q "COUNT(DISTINCT clinical_data_table.subjectid)" <<<"$a_sql"' "$a_sql"
ask "$TI" "Top 3 departments by number of patients"; i_rows=$(rows)
check "... the same three departments in the same order as at the identified level" \
	'python3 -c "import sys; a, b = eval(sys.argv[1]), eval(sys.argv[2]); sys.exit(0 if len(a) == 3 and [r[0] for r in a] == [r[0] for r in b] else 1)" "$a_rows" "$i_rows"' \
	"$a_rows / $i_rows"

# ---- what the level does not show: declined with the reason, nothing run ----
declined() {   # declined QUESTION WHAT: the aggregate analyst's run is declined naming WHAT
	what=$2
	ask "$TA" "$1"
	check "aggregate: '$1' is declined: not $what" \
		'[ "$(st)" = unanswerable ] && grep -q "at the aggregate access level only counts and summaries of groups of patients are shown, not $what;" <<<"$(err)" && [ -z "$(sql)" ]' \
		"$(cat "$T/r.json")"
}
declined "케이스 5의 랩 추이" "a single patient or case"
declined "What was the highest heart rate in case 77?" "a single patient or case"
declined "환자별 평균 심박수" "a result per patient or per case"
declined "List the patients over 90" "rows"
RID=$(j "['run_id']" <"$T/r.json")
ask "$TI" "케이스 5의 랩 추이"
check "identified: the case's lab timeline is still answered" '[ "$(st)" = ok ] && grep -q "caseid = 5" <<<"$(sql)"' "$(cat "$T/r.json")"

# the decline in Korean on the run's page
q "UPDATE askql.users SET lang = 'ko' WHERE name = '$AGG'" >/dev/null
page=$(curl -s -m 30 -H "Authorization: Bearer $TA" "$BASE_URL/api/runs/$RID")
jar=$T/jar
pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | grep -o 'name="csrf" value="[^"]*"' | head -1 | sed 's/.*value="//; s/"$//')
curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$AGG" \
	--data-urlencode "password=pf-password-$S" "$BASE_URL/signin"
html=$(curl -s -m 30 -b "$jar" "$BASE_URL/runs/$RID")
check "the run page says it in Korean: 집계 접근 등급 ... 볼 수 없는 것: 행 목록" \
	'grep -q "집계 접근 등급에서는 환자 집단의 건수와 요약값만 보여 드립니다(볼 수 없는 것: 행 목록)" <<<"$html"' \
	"$(grep -o "집계[^<]\{0,200\}" <<<"$html" | head -3) $page"

# ---- askql export onto a FIFO writes into it and leaves it a FIFO ----
mkfifo "$T/pipe"
timeout 20 cat "$T/pipe" >"$T/got" &
reader=$!
out=$("$ASKQL" export --target demo --sql "SELECT 1 AS one" --format csv -o "$T/pipe" 2>&1); rc=$?
wait $reader 2>/dev/null
check "askql export -o FIFO: written into it, which is still a FIFO (before: a regular file renamed over it)" \
	'[ $rc -eq 0 ] && [ -p "$T/pipe" ] && [ "$(tr -d "\r" <"$T/got")" = "$(printf "one\n1")" ]' "$out $(ls -la "$T")"
mkdir "$T/dir.csv"
out=$("$ASKQL" export --target demo --sql "SELECT 1 AS one" --format csv -o "$T/dir.csv/" 2>&1); rc=$?
check "askql export -o DIR/ still names a file inside the directory" '[ $rc -eq 0 ] && [ -d "$T/dir.csv" ]' "$out"

teardown
check "the demo is left as the other tests find it: askql_app's CREATE, its readable relations and hypopg as before" \
	'[ "$(psql -X -q -tA -d demo -c "SELECT has_database_privilege('"'askql_app'"', '"'demo'"', '"'CREATE'"')::int")" = "$CREATE_BEFORE" ] &&
	 [ "$(psql -X -q -tA -d demo -c "SELECT count(*) FROM pg_extension WHERE extname = '"'hypopg'"'")" = "$HYPOPG_BEFORE" ] &&
	 [ "$(readable)" = "$READ_BEFORE" ]' "what askql_app reads: $(readable) (before: $READ_BEFORE); CREATE $(psql -X -q -tA -d demo -c "SELECT has_database_privilege('askql_app', 'demo', 'CREATE')::int") (before $CREATE_BEFORE)"
echo "1..$n"
