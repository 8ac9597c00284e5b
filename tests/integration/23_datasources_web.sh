#!/usr/bin/env bash
# 23_datasources_web.sh: Admin -> Data sources over HTTP: add, test, index with streamed progress,
# ask against it by choosing the target; the failure paths (bad conninfo, duplicates, analysts,
# CSRF, unknown targets) and that a connection's password never appears in any page.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
T=$(mktemp -d)
DB=web_src_$$
PW=web-sekr3t-$$
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -15; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
cleanup() {
	q -c "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS ${DB}_ro" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
signin() {
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d postgres -c "CREATE ROLE ${DB}_ro LOGIN PASSWORD '$PW'" >/dev/null
psql -X -q -d "$DB" >/dev/null <<SQL
CREATE TABLE ward (ward_id int PRIMARY KEY, ward_name text);
COMMENT ON TABLE ward IS 'Wards (병동)';
CREATE TABLE admission (adm_id int PRIMARY KEY, ward_id int REFERENCES ward, age int);
COMMENT ON TABLE admission IS 'Hospital admissions (입원)';
INSERT INTO ward VALUES (1, 'Medical ICU'), (2, 'Surgical ward');
INSERT INTO admission SELECT g, 1 + g % 2, 20 + g % 60 FROM generate_series(1, 41) g;
GRANT CONNECT ON DATABASE $DB TO ${DB}_ro, askql_app;
GRANT USAGE ON SCHEMA public TO ${DB}_ro, askql_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${DB}_ro, askql_app;
SQL
H="host=$PGHOST port=$PGPORT dbname=$DB"
# the workers' password file names each database (issue 27): the operator lets them reach this one
(. "$TOP/scripts/lib.sh" && pgpass_allow "$VAR" "$PGPORT" "$DB" askql_app) || nok "pgpass_allow $DB"
# indexed by the workers as askql_app: their password file holds no superuser's (docs/pg-auth.md)

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" '[ -n "$A" ]'
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/datasources")
check "the data sources page lists the configured demo as default" 'grep -q "data-target=\"demo\"" <<<"$page"' "$page"

post() { curl -s -b "$T/admin" -w '\n%{http_code}' --data-urlencode "csrf=$A" "$@" "$BASE_URL/admin/datasources"; }
out=$(post --data-urlencode action=add --data-urlencode "name=$DB" --data-urlencode "conninfo=host='unterminated")
check "a conninfo that does not parse: 400 with the reason" '[[ "$out" == *"does not parse"* ]] && [ "$(tail -1 <<<"$out")" = 400 ]' "$out"
out=$(post --data-urlencode action=add --data-urlencode "name=$DB" --data-urlencode "conninfo=$H user=askql_app" \
	--data-urlencode "ro_conninfo=$H user=${DB}_ro password=$PW")
check "add: 303 back to the list" '[ "$(tail -1 <<<"$out")" = 303 ]' "$out"
"$ASKQL" target policy "$DB" schema >/dev/null
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/datasources")
check "the page says what the model sees per target: the target's own schema, the demo's default" \
	'grep -q "data-policy=\"schema\"" <<<"$page" && grep -q "llm-policy" <<<"$page" &&
	 [ "$(grep -c "data-policy=" <<<"$page")" -ge 2 ]' "$(grep -o "<span class=\"llm-policy[^<]*<strong>[^<]*</strong>[^<]*" <<<"$page")"
out=$(post --data-urlencode action=add --data-urlencode "name=$DB" --data-urlencode "conninfo=$H user=askql_app")
check "a duplicate name: 400 naming it" '[ "$(tail -1 <<<"$out")" = 400 ] && [[ "$out" == *"already registered"* ]]' "$(head -c 300 <<<"$out")"
out=$(post --data-urlencode action=test --data-urlencode "name=$DB")
check "test: server version and the read-only role's privileges" \
	'[[ "$out" == *"server-version\">15"* ]] && [[ "$out" == *"${DB}_ro"* ]]' "$(grep -A8 'id="check"' <<<"$out")"
out=$(curl -s -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode "name=$DB" "$BASE_URL/admin/datasources/index")
check "index: progress lines streamed, then the outcome" \
	'[[ "$out" == *"connected to $DB"* ]] && [[ "$out" == *"sampled the stored values of"* ]] && [[ "$out" == *"re-indexing"* ]] && [[ "$out" == *"id=\"index-outcome\""* ]] && [[ "$out" == *"2 "* ]]' "$(grep -E 'step|outcome|alert' <<<"$out")"
v=$(q -c "SELECT version FROM askql.cat_targets WHERE name = '$DB'")
check "the catalog of the new target exists" '[ "${v:-0}" -ge 1 ]' "$v"

# ask against it: the ask page offers the selector; the run records the target and answers from it
page=$(curl -s -b "$T/admin" "$BASE_URL/")
check "the ask page offers a target selector" 'grep -q "<option value=\"$DB\"" <<<"$page"' "$(grep -n select <<<"$page")"
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode "question=how many admissions are there" \
	--data-urlencode "target=$DB" "$BASE_URL/runs")
run=${loc##*/}
# (the page is read whole first: grep -q leaving early made curl fail with SIGPIPE under pipefail)
check "a run against the chosen target answers 41" \
	'[ "$(q -c "SELECT target || '"'"' '"'"' || status || '"'"' '"'"' || row_count FROM askql.runs WHERE id = ${run:-0}")" = "$DB ok 1" ] && grep -q ">41<" <<<"$(curl -s -b "$T/admin" "$BASE_URL/runs/$run")"' \
	"$loc $(q -c "SELECT target, status, error, sql FROM askql.runs WHERE id = ${run:-0}")"
# two identical questions streamed at once: each page follows its own run (the agent reports
# the id through on_run; no lookup by question that could pick the other one)
for k in 1 2; do
	curl -s -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode "question=how many admissions are there" \
		--data-urlencode "target=$DB" "$BASE_URL/runs/0/stream" >"$T/stream$k" &
done
wait
r1=$(grep -o 'href="/runs/[0-9]*"' "$T/stream1" | head -1 | tr -dc 0-9)
r2=$(grep -o 'href="/runs/[0-9]*"' "$T/stream2" | head -1 | tr -dc 0-9)
check "two identical questions streamed at once each end at their own run" \
	'[ -n "$r1" ] && [ -n "$r2" ] && [ "$r1" != "$r2" ] && grep -q "step" "$T/stream1" && grep -q "step" "$T/stream2"' "runs '$r1' '$r2'"
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode "question=how many admissions" --data-urlencode "target=nosuch_$$" "$BASE_URL/runs")
check "an unknown target name is refused (404), no run" '[ "$c" = 404 ]' "$c"
h=$(curl -s -b "$T/admin" "$BASE_URL/history?target=$DB&all=1")
check "history filters by target" 'grep -q "how many admissions are there" <<<"$h" && ! grep -q "average heart rate" <<<"$h"' ""
cat=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?table=cat_tables&target=$DB")
check "the catalog page shows one target: its tables, not the demo's" \
	'grep -q ">admission<" <<<"$cat" && ! grep -q ">vital_data_table<" <<<"$cat"' ""

# ---- refusals ----
suffix=$RANDOM$RANDOM
curl -s -o /dev/null -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=an$suffix" \
	--data-urlencode role=analyst --data-urlencode "password=pw-an$suffix-secret" "$BASE_URL/admin/users"
AN=$(signin "$T/an" "an$suffix" "pw-an$suffix-secret")
check "an analyst gets 403 on the page, the save and the index" \
	'[ "$(code -b "$T/an" "$BASE_URL/admin/datasources")" = 403 ] &&
	 [ "$(code -b "$T/an" --data-urlencode "csrf=$AN" --data-urlencode action=default --data-urlencode "name=$DB" "$BASE_URL/admin/datasources")" = 403 ] &&
	 [ "$(code -b "$T/an" --data-urlencode "csrf=$AN" --data-urlencode "name=$DB" "$BASE_URL/admin/datasources/index")" = 403 ]'
check "POST without the CSRF token is refused" \
	'[ "$(code -b "$T/admin" --data-urlencode action=default --data-urlencode "name=$DB" "$BASE_URL/admin/datasources")" = 403 ]'
out=$(post --data-urlencode action=remove --data-urlencode "name=$DB")
check "remove without the typed confirmation: 400, still there" \
	'[ "$(tail -1 <<<"$out")" = 400 ] && [ "$(q -c "SELECT count(*) FROM askql.targets WHERE name = '"'$DB'"'")" = 1 ]' "$(tail -1 <<<"$out")"
all=""
for u in /admin/datasources "/admin/catalog?target=$DB&table=cat_targets" /admin/audit /admin/config "/history?all=1" "/runs/$run"; do
	all+=$(curl -s -b "$T/admin" "$BASE_URL$u")
done
check "the read-only password appears in no page (masked as ****)" '! grep -q "$PW" <<<"$all" && grep -q "password=\*\*\*\*" <<<"$all"'
check "adding, indexing are audited by name" \
	'[ "$(q -c "SELECT count(*) FROM askql.audit WHERE action IN ('"'target.add'"', '"'target.index'"') AND detail->>'"'target'"' = '"'$DB'"'")" = 2 ]'
out=$(post --data-urlencode action=remove --data-urlencode "name=$DB" --data-urlencode "confirm=$DB")
check "remove with the typed name: 303, target and catalog gone" \
	'[ "$(tail -1 <<<"$out")" = 303 ] && [ "$(q -c "SELECT count(*) FROM askql.cat_targets WHERE name = '"'$DB'"'")" = 0 ]' "$out"
echo "1..$n"
