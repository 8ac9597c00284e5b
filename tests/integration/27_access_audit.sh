#!/usr/bin/env bash
# 27_access_audit.sh: the audit of data access (issue 16 item 5; store/access.h, 081_access_audit.sql): a run, its
# result page, its CSV/zip/JSON/XLSX downloads (web and API) and a CLI export each write exactly one row with the
# right fields; the app role cannot UPDATE, DELETE, TRUNCATE or DROP the log; Admin -> Audit -> Data access
# filters by user, target, class and date and exports CSV (itself audited); analysts get 403.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}" "${VAR:?}"
T=$(mktemp -d)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
# as the workers connect: the app role, with its own password file
app() { PGPASSFILE=$VAR/pgpass psql -X -q -tA -U askql_app -d askql -v ON_ERROR_STOP=1 "$@" 2>&1; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
signin() {
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
# rows SINCE WHERE: audit rows after id SINCE matching WHERE
rows() { q -c "SELECT count(*) FROM askql.access_audit WHERE id > $1 AND ($2)"; }
last() { q -c "SELECT coalesce(max(id), 0) FROM askql.access_audit"; }

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
ANN=ann27_$RANDOM$RANDOM
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$ANN" \
	--data-urlencode role=analyst --data-urlencode "password=pw-$ANN-secret" "$BASE_URL/admin/users")
check "admin creates analyst $ANN" "[ $c = 303 ]" "got $c"
AN=$(signin "$T/ann" "$ANN" "pw-$ANN-secret")
check "analyst signed in" "[ -n '$AN' ]"
AID=$(q -c "SELECT id FROM askql.users WHERE name = '$ANN'")

# ---- a run: its SQL executed once, one 'run' row with the analyst, the target and the SQL's fingerprint
s0=$(last)
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ann" --data-urlencode "csrf=$AN" \
	--data-urlencode "question=부서별 평균 나이" --data-urlencode mode=auto "$BASE_URL/runs")
RUN=${loc##*/}
st=$(q -c "SELECT status FROM askql.runs WHERE id = ${RUN:-0}")
check "the run answered (run ${RUN:-none})" "[ '$st' = ok ]" "status '$st' at '$loc'"
RC=$(q -c "SELECT row_count FROM askql.runs WHERE id = ${RUN:-0}")
FP=$(q -c "SELECT fingerprint FROM askql.runs WHERE id = ${RUN:-0}")
SQLT=$(q -c "SELECT sql FROM askql.runs WHERE id = ${RUN:-0}")
got=$(rows "$s0" "kind = 'run'")
check "the run wrote exactly one 'run' row" "[ '$got' = 1 ]" "$(q -c "SELECT * FROM askql.access_audit WHERE id > $s0")"
row=$(q -F'|' -c "SELECT channel, user_id, user_name, os_user IS NULL, target, access_level, run_id, sql_fingerprint, row_count,
	format IS NULL, ok, sql_text = (SELECT sql FROM askql.runs WHERE id = ${RUN:-0}) FROM askql.access_audit WHERE id > $s0 AND kind = 'run'")
check "run row: web, the analyst, demo, identified, run id, fingerprint, rows, SQL" \
	"[ '$row' = 'web|$AID|$ANN|t|demo|identified|$RUN|$FP|$RC|t|t|t' ]" "got '$row' want web|$AID|$ANN|t|demo|identified|$RUN|$FP|$RC|t|t|t"
cols=$(q -c "SELECT columns::text FROM askql.access_audit WHERE id > $s0 AND kind = 'run'")
check "run row lists the columns read with their PHI class (age: quasi)" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.access_audit a, jsonb_array_elements(a.columns) c WHERE a.id > $s0 AND a.kind = 'run' AND c->>'column' = 'age' AND c->>'class' = 'quasi'\")\" = 1 ]" "$cols"
check "run row's classes hold quasi" "[ \"\$(q -c \"SELECT 'quasi' = ANY(classes) FROM askql.access_audit WHERE id > $s0 AND kind = 'run'\")\" = t ]"

# ---- the result page: one 'view' row per page shown
s1=$(last)
c=$(code -b "$T/ann" "$BASE_URL/runs/$RUN")
check "result page 200" "[ $c = 200 ]" "got $c"
check "the result page wrote exactly one row, a page view" "[ \"\$(rows $s1 true)\" = 1 ] && [ \"\$(rows $s1 \"kind = 'view' AND format = 'page' AND user_id = $AID AND run_id = $RUN AND sql_fingerprint = '$FP' AND row_count IS NOT NULL\")\" = 1 ]" \
	"$(q -c "SELECT * FROM askql.access_audit WHERE id > $s1")"
# a page without rows (the ask page) writes nothing
s1=$(last)
code -b "$T/ann" "$BASE_URL/history" >/dev/null
check "the history page (no rows of the target) writes nothing" "[ \"\$(rows $s1 true)\" = 0 ]"

# ---- downloads: csv, zip, json, xlsx from the web, each one row with its format and the rows sent
for f in csv zip json xlsx; do
	s2=$(last)
	c=$(curl -s -o "$T/dl.$f" -w '%{http_code}' -b "$T/ann" "$BASE_URL/runs/$RUN/download?format=$f")
	check "web download $f 200" "[ $c = 200 ] && [ -s '$T/dl.$f' ]" "got $c"
	check "web download $f wrote exactly one row (download, $f, $RC rows, the analyst, web)" \
		"[ \"\$(rows $s2 true)\" = 1 ] && [ \"\$(rows $s2 \"kind = 'download' AND format = '$f' AND row_count = $RC AND user_name = '$ANN' AND channel = 'web' AND run_id = $RUN AND target = 'demo' AND sql_fingerprint = '$FP' AND ok AND jsonb_array_length(columns) > 0\")\" = 1 ]" \
		"$(q -c "SELECT * FROM askql.access_audit WHERE id > $s2")"
done

# ---- the API: the run as JSON (its rows) and a download, channel api
TOK=$("$ASKQL" user token "$ANN" 2>/dev/null | tail -1)
if [ -n "$TOK" ]; then
	s3=$(last)
	c=$(code -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$RUN")
	check "API run 200 and one 'view' row (json, api)" \
		"[ $c = 200 ] && [ \"\$(rows $s3 true)\" = 1 ] && [ \"\$(rows $s3 \"kind = 'view' AND format = 'json' AND channel = 'api' AND user_id = $AID\")\" = 1 ]" \
		"got $c; $(q -c "SELECT * FROM askql.access_audit WHERE id > $s3")"
	s3=$(last)
	c=$(code -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$RUN/download?format=csv")
	check "API download 200 and one 'download' row (csv, api)" \
		"[ $c = 200 ] && [ \"\$(rows $s3 true)\" = 1 ] && [ \"\$(rows $s3 \"kind = 'download' AND format = 'csv' AND channel = 'api' AND row_count = $RC\")\" = 1 ]" \
		"got $c; $(q -c "SELECT * FROM askql.access_audit WHERE id > $s3")"
else
	nok "an API token for $ANN"
fi

# ---- issue 27: every path that returns stored rows writes one row, at the level the rows were read at
s6=$(last)
ev=$(curl -s -b "$T/ann" "$BASE_URL/runs/$RUN/events?after=0")
check "the run's event stream sends its steps and writes exactly one 'view' row (page, via events, identified)" \
	"grep -q '^event: step' <<<\"\$ev\" && [ \"\$(rows $s6 true)\" = 1 ] && [ \"\$(rows $s6 \"kind = 'view' AND format = 'page' AND detail->>'via' = 'events' AND run_id = $RUN AND user_name = '$ANN' AND access_level = 'identified' AND (detail->>'steps')::int > 0\")\" = 1 ]" \
	"$(head -c 300 <<<"$ev"); $(q -c "SELECT * FROM askql.access_audit WHERE id > $s6")"
if [ -n "$TOK" ]; then
	s6=$(last)
	c=$(code -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$RUN/steps")
	check "API steps 200 and exactly one 'view' row (json, api, via steps)" \
		"[ $c = 200 ] && [ \"\$(rows $s6 true)\" = 1 ] && [ \"\$(rows $s6 \"kind = 'view' AND format = 'json' AND channel = 'api' AND detail->>'via' = 'steps' AND run_id = $RUN\")\" = 1 ]" \
		"got $c; $(q -c "SELECT * FROM askql.access_audit WHERE id > $s6")"
fi
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode case=1 "$BASE_URL/reports")
REP=${loc##*/reports/}; REP=${REP%%[?#]*}
if [ -n "$REP" ] && [ "$REP" != "$loc" ]; then
	for f in page json html; do
		s6=$(last)
		[ $f = page ] && u="$BASE_URL/reports/$REP" || u="$BASE_URL/reports/$REP?format=$f"
		c=$(code -b "$T/ann" "$u")
		[ $f = page ] && k=view || k=download
		check "report $REP as $f: 200 and exactly one '$k' row naming the report" \
			"[ $c = 200 ] && [ \"\$(rows $s6 true)\" = 1 ] && [ \"\$(rows $s6 \"kind = '$k' AND detail->>'via' = 'report' AND detail->>'report_id' = '$REP' AND detail->>'format' = '$f' AND user_name = '$ANN' AND access_level = 'identified'\")\" = 1 ]" \
			"got $c; $(q -c "SELECT * FROM askql.access_audit WHERE id > $s6")"
	done
	# a report is shown only at a level the viewer has now (issue 27): the analyst moved to aggregate
	"$ASKQL" user level "$ANN" demo aggregate >/dev/null 2>&1
	for f in page json html; do
		s6=$(last)
		[ $f = page ] && u="$BASE_URL/reports/$REP" || u="$BASE_URL/reports/$REP?format=$f"
		body=$(curl -s -w '\n%{http_code}' -b "$T/ann" "$u")
		check "report $REP as $f at the aggregate level: 403 with the reason, no report, no access row" \
			"[ \"\$(tail -1 <<<\"\$body\")\" = 403 ] && grep -q 'access level\\|접근 등급' <<<\"\$body\" && ! grep -q 'id=\"critique\"\\|\"findings\"' <<<\"\$body\" && [ \"\$(rows $s6 true)\" = 0 ]" \
			"$(tail -c 300 <<<"$body")"
	done
	lst=$(curl -s -b "$T/ann" "$BASE_URL/reports")
	row=$(grep -o "href=\"/reports/$REP\"[^<]*</a></td><td>[^<]*</td><td class=\"small\">[^<]*" <<<"$lst" | head -1)
	check "the reports list keeps the entry but not its summary at the aggregate level" \
		"grep -q 'Not shown at your current access level\\|보여 주지 않습니다' <<<\"\$row\"" "$row"
	"$ASKQL" user level "$ANN" demo identified >/dev/null 2>&1
	check "back at identified the report shows again" "[ \$(code -b '$T/ann' '$BASE_URL/reports/$REP') = 200 ]"
	row=$(curl -s -b "$T/ann" "$BASE_URL/reports" | grep -o "href=\"/reports/$REP\"[^<]*</a></td><td>[^<]*</td><td class=\"small\">[^<]*" | head -1)
	check "and its summary is in the list again" "! grep -q 'Not shown at your current access level\\|보여 주지 않습니다' <<<\"\$row\" && [ -n \"\$row\" ]" "$row"
else
	nok "a critique report to view (POST /reports went to '$loc')"
fi

# ---- the CLI export: no user, the OS user, the catalog's columns
s4=$(last)
XSQL="SELECT c.caseid, c.age, c.casestart FROM clinical_data_table c ORDER BY c.caseid LIMIT 7"
"$ASKQL" export --sql "$XSQL" --format csv -o "$T/cli.csv" >"$T/cli.log" 2>&1
check "CLI export exits 0" "[ $? = 0 ]" "$(cat "$T/cli.log")"
check "CLI export wrote exactly one row (export, cli, no user, OS user $(id -un), 7 rows, csv)" \
	"[ \"\$(rows $s4 true)\" = 1 ] && [ \"\$(rows $s4 \"kind = 'export' AND channel = 'cli' AND user_id IS NULL AND user_name IS NULL AND os_user = '$(id -un)' AND row_count = 7 AND format = 'csv' AND target = 'demo' AND sql_text = '$XSQL' AND sql_fingerprint IS NOT NULL\")\" = 1 ]" \
	"$(q -c "SELECT * FROM askql.access_audit WHERE id > $s4")"
check "CLI export's columns: caseid, age (quasi), casestart (quasi)" \
	"[ \"\$(q -c \"SELECT string_agg(c->>'column' || ':' || coalesce(c->>'class', '?'), ',' ORDER BY c->>'column') FROM askql.access_audit a, jsonb_array_elements(a.columns) c WHERE a.id > $s4 AND c->>'column' IS NOT NULL\")\" = 'age:quasi,caseid:none,casestart:quasi' ]" \
	"$(q -c "SELECT columns FROM askql.access_audit WHERE id > $s4")"
s4=$(last)
"$ASKQL" export --sql "SELECT * FROM clinical_data_table c ORDER BY 1 LIMIT 3" --format json -o "$T/star.json" >/dev/null 2>&1
NC=$(q -c "SELECT count(*) FROM askql.cat_columns WHERE target = 'demo' AND table_name = 'clinical_data_table'")
check "SELECT * records every column of the table ($NC) with its class" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.access_audit a, jsonb_array_elements(a.columns) c WHERE a.id > $s4 AND c->>'column' IS NOT NULL AND c ? 'class'\")\" = '$NC' ] && [ \"\$(rows $s4 \"'quasi' = ANY(classes) AND format = 'json'\")\" = 1 ]" \
	"$(q -c "SELECT columns, classes FROM askql.access_audit WHERE id > $s4")"
s4=$(last)
"$ASKQL" ask --no-cache "부서별 평균 나이" >"$T/ask.log" 2>&1
check "CLI ask wrote exactly one 'run' row (cli, no user, OS user $(id -un), demo)" \
	"[ \"\$(rows $s4 true)\" = 1 ] && [ \"\$(rows $s4 \"kind = 'run' AND channel = 'cli' AND user_id IS NULL AND os_user = '$(id -un)' AND target = 'demo' AND run_id IS NOT NULL AND row_count > 0\")\" = 1 ]" \
	"$(cat "$T/ask.log"; q -c "SELECT * FROM askql.access_audit WHERE id > $s4")"
s4=$(last)
"$ASKQL" export --sql "DELETE FROM clinical_data_table" --format csv -o "$T/bad.csv" >/dev/null 2>&1
check "a CLI export the guard refuses reads nothing and writes no row" "[ \"\$(rows $s4 true)\" = 0 ]"

# ---- append-only, by PostgreSQL
ID=$(last)
out=$(app -c "UPDATE askql.access_audit SET row_count = 0 WHERE id = $ID")
check "app role: UPDATE refused" "grep -qiE 'permission denied|append-only' <<<'$out'" "$out"
out=$(app -c "DELETE FROM askql.access_audit WHERE id = $ID")
check "app role: DELETE refused" "grep -qiE 'permission denied|append-only' <<<'$out'" "$out"
out=$(app -c "TRUNCATE askql.access_audit")
check "app role: TRUNCATE refused" "grep -qiE 'permission denied|append-only' <<<'$out'" "$out"
out=$(app -c "DROP TABLE askql.access_audit")
echo "# DROP TABLE as the app role: $out"
check "app role: DROP TABLE refused" "grep -qiE 'permission denied|append-only|must be owner|depend on it' <<<'$out'" "$out"
out=$(app -c "DROP TABLE askql.access_audit CASCADE")
check "app role: DROP TABLE ... CASCADE refused" "grep -qiE 'permission denied|append-only|must be owner' <<<'$out'" "$out"
out=$(app -c "ALTER TABLE askql.access_audit DISABLE TRIGGER ALL")
check "app role: disabling the triggers refused" "grep -qiE 'permission denied|must be owner' <<<'$out'" "$out"
out=$(app -c "GRANT UPDATE ON askql.access_audit TO askql_app")
check "app role: granting itself UPDATE changes nothing" "[ \"\$(q -c \"SELECT has_table_privilege('askql_app', 'askql.access_audit', 'UPDATE')\")\" = f ]" "$out"
out=$(app -c "INSERT INTO askql.access_audit (kind, channel, target) VALUES ('view', 'web', 'audit27-probe') RETURNING id")
check "app role: INSERT and SELECT allowed" "[ -n \"\$(app -c \"SELECT id FROM askql.access_audit WHERE target = 'audit27-probe'\")\" ]" "$out"
out=$(psql -X -q -tA -d askql -c "UPDATE askql.access_audit SET row_count = 0 WHERE id = $ID" 2>&1)
check "even the superuser's UPDATE meets the trigger" "grep -q 'append-only' <<<'$out'" "$out"
out=$(psql -X -q -tA -d askql -c "DELETE FROM askql.access_audit WHERE id = $ID" 2>&1)
check "even the superuser's DELETE meets the trigger" "grep -q 'append-only' <<<'$out'" "$out"
check "the row is unchanged" "[ \"\$(q -c \"SELECT count(*) FROM askql.access_audit WHERE id = $ID\")\" = 1 ]"

# ---- issue 27: the admin audit log (askql.audit) is append-only too, and chained by hash
AU=$(q -c "SELECT max(id) FROM askql.audit")
out=$(app -c "UPDATE askql.audit SET action = 'forged' WHERE id = $AU")
check "askql.audit, app role: UPDATE refused" "grep -qiE 'permission denied|append-only' <<<'$out'" "$out"
out=$(app -c "DELETE FROM askql.audit WHERE id = $AU")
check "askql.audit, app role: DELETE refused" "grep -qiE 'permission denied|append-only' <<<'$out'" "$out"
out=$(app -c "TRUNCATE askql.audit")
check "askql.audit, app role: TRUNCATE refused" "grep -qiE 'permission denied|append-only' <<<'$out'" "$out"
out=$(app -c "ALTER TABLE askql.audit DISABLE TRIGGER ALL")
check "askql.audit, app role: disabling the triggers refused" "grep -qiE 'permission denied|must be owner' <<<'$out'" "$out"
out=$(psql -X -q -tA -d askql -c "DELETE FROM askql.audit WHERE id = $AU" 2>&1)
check "askql.audit: even the superuser's DELETE meets the trigger" "grep -q 'append-only' <<<'$out'" "$out"
app -c "INSERT INTO askql.audit (action, detail) VALUES ('audit27.probe', '{\"n\":1}'), ('audit27.probe', '{\"n\":2}'), ('audit27.probe', '{\"n\":3}')" >/dev/null
check "new rows are chained: each holds the hash of the row before it" \
	"[ \"\$(q -c \"SELECT count(*) FROM (SELECT prev_hash, lag(hash) OVER (ORDER BY id) AS b FROM askql.audit) x WHERE prev_hash IS DISTINCT FROM b\")\" = 0 ] && [ \"\$(q -c \"SELECT count(*) FROM askql.audit WHERE hash IS NULL\")\" = 0 ]"
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "askql audit verify: intact (exit 0)" "[ $rc = 0 ] && grep -q 'chain intact' <<<'$out'" "$out"
# what the triggers cannot stop: a superuser with session_replication_role = replica skips them
MID=$(q -c "SELECT id FROM askql.audit WHERE action = 'audit27.probe' AND detail->>'n' = '2'")
NEXT=$(q -c "SELECT id FROM askql.audit WHERE action = 'audit27.probe' AND detail->>'n' = '3'")
SAVED=$(q -c "SELECT row_to_json(a)::text FROM askql.audit a WHERE id = $MID")
psql -X -q -d askql -c "SET session_replication_role = replica; DELETE FROM askql.audit WHERE id = $MID" >/dev/null 2>&1
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "a row deleted by the superuser past the triggers: verify exits 1 naming the next row ($NEXT)" \
	"[ $rc = 1 ] && grep -q 'chain broken at row $NEXT ' <<<'$out' && grep -q 'prev_hash' <<<'$out'" "$out"
psql -X -q -d askql -c "SET session_replication_role = replica; INSERT INTO askql.audit SELECT * FROM json_populate_record(NULL::askql.audit, '$SAVED')" >/dev/null 2>&1
psql -X -q -d askql -c "SET session_replication_role = replica; UPDATE askql.audit SET detail = '{\"n\":20}' WHERE id = $MID" >/dev/null 2>&1
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "a row forged in place: verify names it ($MID)" "[ $rc = 1 ] && grep -q 'chain broken at row $MID .*does not match its fields' <<<'$out'" "$out"
psql -X -q -d askql -c "SET session_replication_role = replica; UPDATE askql.audit SET detail = '{\"n\":2}' WHERE id = $MID" >/dev/null 2>&1
out=$("$ASKQL" audit verify 2>&1); rc=$?
check "put back as it was, the chain is intact again" "[ $rc = 0 ]" "$out"

# ---- Admin -> Audit -> Data access
page() { curl -s -b "$T/admin" "$BASE_URL/admin/audit/access$1"; }
ids() { grep -o 'data-id="[0-9]*"' | sed 's/[^0-9]//g' | sort -n | tr '\n' ' '; }
want() { q -c "SELECT id FROM (SELECT id FROM askql.access_audit WHERE $1 ORDER BY id DESC LIMIT 50) x ORDER BY id" | tr '\n' ' '; }
c=$(code -b "$T/admin" "$BASE_URL/admin/audit/access")
check "admin: data access page 200" "[ $c = 200 ]" "got $c"
got=$(page "?user=$ANN" | ids); exp=$(want "user_name = '$ANN'")
check "filter by user: exactly the analyst's entries" "[ -n '$exp' ] && [ '$got' = '$exp' ]" "got '$got' want '$exp'"
got=$(page "?user=cli:$(id -un)" | ids); exp=$(want "user_name IS NULL AND os_user = '$(id -un)'")
check "filter by user cli:OS user: the CLI's entries" "[ -n '$exp' ] && [ '$got' = '$exp' ]" "got '$got' want '$exp'"
got=$(page "?target=demo&user=$ANN" | ids); exp=$(want "target = 'demo' AND user_name = '$ANN'")
check "filter by target" "[ -n '$exp' ] && [ '$got' = '$exp' ]" "got '$got' want '$exp'"
got=$(page "?class=quasi" | ids); exp=$(want "'quasi' = ANY(classes)")
check "filter by class quasi" "[ -n '$exp' ] && [ '$got' = '$exp' ]" "got '$got' want '$exp'"
got=$(page "?class=sensitive" | ids); exp=$(want "'sensitive' = ANY(classes)")
check "filter by class sensitive" "[ '$got' = '$exp' ]" "got '$got' want '$exp'"
TODAY=$(q -c "SELECT current_date"); YDAY=$(q -c "SELECT current_date - 1")
got=$(page "?user=$ANN&from=$TODAY&to=$TODAY" | ids); exp=$(want "user_name = '$ANN'")
check "filter by date: today holds the analyst's entries" "[ -n '$exp' ] && [ '$got' = '$exp' ]" "got '$got' want '$exp'"
got=$(page "?user=$ANN&to=$YDAY" | ids)
check "filter by date: nothing up to yesterday" "[ -z '$got' ]" "got '$got'"
pg=$(page "?user=$ANN")   # not piped into grep -q: under pipefail curl's SIGPIPE would fail the check
check "the page names the columns read and their class" "grep -q 'access-class-quasi' <<<\"\$pg\""
check "an unknown class word filters nothing out (not an error)" "[ \$(code -b '$T/admin' '$BASE_URL/admin/audit/access?class=bogus') = 200 ]"
check "a bad date is 400" "[ \$(code -b '$T/admin' '$BASE_URL/admin/audit/access?from=yesterday') = 400 ]"

# ---- the CSV export of the filtered log, itself audited
s5=$(last)
c=$(curl -s -o "$T/audit.csv" -D "$T/audit.h" -w '%{http_code}' -b "$T/admin" "$BASE_URL/admin/audit/access/export?user=$ANN")
check "CSV export 200, an attachment" "[ $c = 200 ] && grep -qi 'attachment; filename=\"access_audit.csv\"' '$T/audit.h'" "got $c"
nl=$(($(python3 -c "import csv,sys; print(sum(1 for _ in csv.reader(open(sys.argv[1], encoding='utf-8-sig'))))" "$T/audit.csv") - 1))
exp=$(q -c "SELECT count(*) FROM askql.access_audit WHERE user_name = '$ANN' AND id <= $s5")
check "CSV export holds the analyst's $exp entries and a header" "[ '$nl' = '$exp' ] && head -1 '$T/audit.csv' | grep -q 'sql_fingerprint'" "got $nl"
check "the CSV export wrote one 'audit_export' row with the filter and the count" \
	"[ \"\$(rows $s5 true)\" = 1 ] && [ \"\$(rows $s5 \"kind = 'audit_export' AND format = 'csv' AND user_name = '$ADMIN_USER' AND row_count = $exp AND detail->>'user' = '$ANN'\")\" = 1 ]" \
	"$(q -c "SELECT * FROM askql.access_audit WHERE id > $s5")"

# ---- analysts: 403
check "analyst: data access page 403" "[ \$(code -b '$T/ann' '$BASE_URL/admin/audit/access') = 403 ]"
check "analyst: CSV export 403" "[ \$(code -b '$T/ann' '$BASE_URL/admin/audit/access/export') = 403 ]"
check "analyst: admin actions page 403" "[ \$(code -b '$T/ann' '$BASE_URL/admin/audit') = 403 ]"

# ---- fail closed: with the app role unable to insert, no result page and no download
q -c "REVOKE INSERT ON askql.access_audit FROM askql_app" >/dev/null
c=$(code -b "$T/ann" "$BASE_URL/runs/$RUN")
check "result page refused (503) while the audit cannot be written" "[ $c = 503 ]" "got $c"
c=$(curl -s -o "$T/x.csv" -w '%{http_code}' -b "$T/ann" "$BASE_URL/runs/$RUN/download?format=csv")
check "download refused (503), no file, while the audit cannot be written" "[ $c = 503 ] && ! grep -q caseid '$T/x.csv'" "got $c"
"$ASKQL" export --sql "$XSQL" --format csv -o "$T/cli2.csv" >"$T/cli2.log" 2>&1
rc=$?
check "CLI export refused, no file" "[ $rc != 0 ] && [ ! -e '$T/cli2.csv' ] && grep -q 'audit' '$T/cli2.log'" "rc $rc $(cat "$T/cli2.log")"
c=$(code -b "$T/ann" "$BASE_URL/runs/$RUN/events?after=0")
check "event stream refused (503) while the audit cannot be written" "[ $c = 503 ]" "got $c"
[ -n "$TOK" ] && { c=$(code -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$RUN/steps")
	check "API steps refused (503) while the audit cannot be written" "[ $c = 503 ]" "got $c"; }
[ -n "${REP:-}" ] && { c=$(code -b "$T/ann" "$BASE_URL/reports/$REP")
	check "report page refused (503) while the audit cannot be written" "[ $c = 503 ]" "got $c"; }
q -c "GRANT INSERT ON askql.access_audit TO askql_app" >/dev/null
c=$(code -b "$T/ann" "$BASE_URL/runs/$RUN")
check "result page back once the audit can be written" "[ $c = 200 ]" "got $c"
echo "1..$n"
