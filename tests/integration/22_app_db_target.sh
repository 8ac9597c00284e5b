#!/usr/bin/env bash
# 22_app_db_target.sh: issue 27, "The app database is never a target": registering askql's own database as a
# data source is refused however the connection is spelled (CLI, web, the configured target_db), decided by where
# the connection lands (the cluster's system identifier and the database), and a target row that points there
# anyway (written by hand) is refused when the executor or the indexer connects.  Another database on the same
# server is still accepted.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}" "${ASKQL_CONF:?}" "${ASKQL:?}" "${VAR:?}"
T=$(mktemp -d /tmp/askql-22a.XXXXXX)
OK_DB=appok27_$$
cleanup() {
	q -c "DELETE FROM askql.targets WHERE name IN ('self27', 'self27b', 'self27c', 'self27d', 'sneak27', 'appconf27', 'web27', '$OK_DB');
	      DELETE FROM askql.cat_targets WHERE name IN ('sneak27', '$OK_DB')" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $OK_DB WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "$2" | head -20 | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
registered() { q -c "SELECT count(*) FROM askql.targets WHERE name = '$1'"; }
H="host=$PGHOST port=$PGPORT"

# ---- the CLI, several spellings of the app's own database ----
i=0
for ci in "$H dbname=askql user=askql_app" "$H dbname=askql user=askql_reader" "$H dbname=askql user=${PGUSER:-askql}" \
	"postgresql:///askql?host=$PGHOST&port=$PGPORT&user=askql_app"; do
	names=(self27 self27b self27c self27d); name=${names[$i]}; i=$((i + 1))
	out=$("$ASKQL" target add "$name" "$ci" 2>&1); rc=$?
	check "target add $name '${ci//$PGHOST/SOCK}': refused ($rc: ${out:0:90})" \
		"[ $rc -ne 0 ] && grep -q \"askql's own database\" <<<\"\$out\" && [ \$(registered $name) = 0 ]"
done
out=$("$ASKQL" target add self27 "$H dbname=askql user=nosuchrole27" --ro "$H dbname=askql user=askql_reader" 2>&1); rc=$?
check "a read-only connection to it is refused too, when the other cannot even connect ($rc: ${out:0:90})" \
	"[ $rc -ne 0 ] && grep -q \"askql's own database\" <<<\"\$out\" && [ \$(registered self27) = 0 ]" "$out"

# ---- another database on the same server is fine ----
psql -X -q -d postgres -c "CREATE DATABASE $OK_DB" >/dev/null
psql -X -q -d "$OK_DB" -c "CREATE TABLE ward (id int PRIMARY KEY, name text); INSERT INTO ward VALUES (1, 'ICU');
	GRANT CONNECT ON DATABASE $OK_DB TO askql_reader; GRANT USAGE ON SCHEMA public TO askql_reader;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader" >/dev/null
out=$("$ASKQL" target add "$OK_DB" "$H dbname=$OK_DB user=${PGUSER:-askql}" --ro "$H dbname=$OK_DB user=askql_reader" 2>&1); rc=$?
check "a database beside it on the same server is registered ($rc)" "[ $rc = 0 ] && [ \$(registered $OK_DB) = 1 ]" "$out"

# ---- the web: Admin -> Data sources ----
jar=$T/admin
pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
A=$(curl -s -b "$jar" "$BASE_URL/" | field csrf)
c=$(curl -s -o "$T/add.html" -w '%{http_code}' -b "$jar" --data-urlencode "csrf=$A" --data-urlencode action=add \
	--data-urlencode name=web27 --data-urlencode "conninfo=$H dbname=askql user=askql_app" "$BASE_URL/admin/datasources")
check "the data sources page refuses the app's database with the reason ($c)" \
	"[[ $c == 4* ]] && grep -q \"askql&#39;s own database\\|askql's own database\" '$T/add.html' && [ \$(registered web27) = 0 ]" "$(grep -o 'class="alert[^<]*' "$T/add.html" | head -2)"

# ---- a row written by hand: refused where it connects ----
q -c "INSERT INTO askql.targets(name, conninfo, ro_conninfo, ident) VALUES ('sneak27', '$H dbname=askql user=askql_app',
	'$H dbname=askql user=askql_app', 'sneak27-by-hand')" >/dev/null
out=$("$ASKQL" export --target sneak27 --sql "SELECT current_database() AS db" --format csv -o - 2>&1); rc=$?
check "the executor refuses to connect there (exit $rc), nothing is read" \
	"[ $rc -ne 0 ] && grep -q \"askql's own database\" <<<\"\$out\" && ! grep -qx 'askql' <<<\"\$out\"" "$out"
out=$("$ASKQL" index --target sneak27 2>&1); rc=$?
check "the indexer refuses to sample it (exit $rc)" \
	"[ $rc -ne 0 ] && grep -q \"askql's own database\" <<<\"\$out\" && [ \$(q -c \"SELECT count(*) FROM askql.cat_tables WHERE target = 'sneak27'\") = 0 ]" "$out"

# ---- the configured target_db ----
{ grep -vE '^(target_db|target_ro_db|target_name) *=' "$ASKQL_CONF"
  echo "target_name = appconf27"; echo "target_db = $H dbname=askql user=askql_app"; } >"$T/conf"
out=$(ASKQL_CONF="$T/conf" "$ASKQL" migrate 2>&1); rc=$?
check "a target_db naming the app's database is not registered by askql migrate (it warns: ${out:0:100})" \
	"grep -q \"askql's own database\" <<<\"\$out\" && [ \$(registered appconf27) = 0 ]" "$out"
# ---- the workers' password file names its databases ----
APPPASS=$(sed -n 's/^pg_passfile *= *//p' "$ASKQL_CONF" | tail -1)
check "every line of the workers' password file names a database, none '*' ($(cut -d: -f3,4 "$APPPASS" | paste -sd' ' -))" \
	"[ -s '$APPPASS' ] && ! cut -d: -f3 '$APPPASS' | grep -qx '[*]'"
check "askql_reader has no line for the app's database" "! grep -q ':askql:askql_reader:' '$APPPASS'"
login() { PGPASSFILE=$APPPASS psql -X -w -tA "$H dbname=$1 user=$2" -c "SELECT current_database()" 2>&1; }
out=$(login demo askql_reader)
check "with it askql_reader logs in to demo ($out)" "[ '$out' = demo ]"
out=$(login "$OK_DB" askql_reader)
check "but not to another database on the server: no password for it (${out:0:80})" "[ '$out' != '$OK_DB' ]"
out=$(login askql askql_reader)
check "nor to the app's database (${out:0:80})" "[ '$out' != askql ]"
(. "$TOP/scripts/lib.sh" && pgpass_allow "$VAR" "$PGPORT" "$OK_DB" askql_reader) >/dev/null 2>&1
out=$(login "$OK_DB" askql_reader)
check "until the operator adds it (pgpass_allow: $out)" "[ '$out' = '$OK_DB' ] && grep -q ':$OK_DB:askql_reader:' '$APPPASS'"
echo "1..$n"
