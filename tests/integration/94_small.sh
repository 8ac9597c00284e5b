#!/usr/bin/env bash
# 94_small.sh: issue 27, "Small things": a re-run asks the run's own database; the config file and CLI exports are
# 0600; nginx's access log keeps no query string (search terms); CSV quotes fields with ';' or a tab; new passwords
# need 10 characters, 4 different ones and none of the common passwords; a sign-in from one address leaves another
# address's failures counted; an API error names the status it carries.  Loopback only; every loop is bounded.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}" "${ASKQL_CONF:?}" "${ASKQL:?}" "${VAR:?}"
T=$(mktemp -d /tmp/askql-94s.XXXXXX); chmod 755 "$T"
DB=small27_$$
cleanup() {
	q -c "DELETE FROM askql.signin_throttle" >/dev/null 2>&1
	q -c "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS ${DB}_ro" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "$2" | head -20 | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -m 30 -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
signin() {
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/account/password" | field csrf
}
# attempt FROM NAME PASS: one sign-in from source address FROM (127.0.0.x: all loopback); prints "status retry-after"
attempt() {
	local jar pre c ra
	jar=$(mktemp -p "$T" jar.XXXXXX)
	pre=$(curl -s --interface "$1" -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	c=$(curl -s --interface "$1" -D "$jar.h" -o /dev/null -m 30 -w '%{http_code}' -c "$jar" -b "$jar" \
		--data-urlencode "csrf=$pre" --data-urlencode "name=$2" --data-urlencode "password=$3" "$BASE_URL/signin")
	ra=$(grep -i '^retry-after:' "$jar.h" | tr -dc '0-9')
	echo "$c ${ra:--}"
}
mode() { stat -c %a "$1"; }
q -c "DELETE FROM askql.signin_throttle" >/dev/null

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
S=$RANDOM$RANDOM
U=sm$S
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$U" \
	--data-urlencode role=analyst --data-urlencode "password=pw-$U-secret" "$BASE_URL/admin/users")
UID_=$(q -c "SELECT id FROM askql.users WHERE name = '$U'")
check "analyst $U added ($c)" "[ -n '$UID_' ]"
UC=$(signin "$T/u" "$U" "pw-$U-secret")
check "$U signed in" "[ -n '$UC' ]"

# ---- 1. a re-run asks the database the run asked ----
psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d postgres -c "CREATE ROLE ${DB}_ro LOGIN PASSWORD 'ro-$S-pw'" >/dev/null
psql -X -q -d "$DB" >/dev/null <<SQL
CREATE TABLE admission (adm_id int PRIMARY KEY, age int, outcome text);
COMMENT ON TABLE admission IS 'Admissions (입원)';
INSERT INTO admission SELECT g, 30 + g % 50, 'DISCHARGED' FROM generate_series(1, 37) g;
GRANT CONNECT ON DATABASE $DB TO ${DB}_ro;
GRANT USAGE ON SCHEMA public TO ${DB}_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${DB}_ro;
SQL
RO="host=$PGHOST port=$PGPORT dbname=$DB user=${DB}_ro password=ro-$S-pw"
out=$("$ASKQL" target add "$DB" "$RO" --ro "$RO" 2>&1 && "$ASKQL" index --target "$DB" 2>&1)
check "a second target $DB registered and indexed" "[ \$(q -c \"SELECT count(*) FROM askql.targets WHERE name = '$DB'\") = 1 ]" "$out"
R0=$(q -c "INSERT INTO askql.runs(user_id, question, status, sql, target) VALUES ($UID_, 'how many admissions are there', 'ok',
	'SELECT count(*) FROM admission', '$DB') RETURNING id")
last0=$(q -c "SELECT max(id) FROM askql.runs")
c=$(curl -s -D "$T/rr.h" -o /dev/null -w '%{http_code}' -m 60 -b "$T/u" --data-urlencode "csrf=$UC" \
	--data-urlencode action=rerun "$BASE_URL/runs/$R0/action")
R1=$(q -c "SELECT max(id) FROM askql.runs WHERE id > $last0 AND user_id = $UID_")
check "re-running run $R0 (asked of $DB) answers 303 to a new run ($c, run ${R1:-none})" "[ $c = 303 ] && [ -n '$R1' ]"
t1=$(q -c "SELECT target FROM askql.runs WHERE id = ${R1:-0}")
check "the new run asked $DB, not the default demo (target '$t1')" "[ '$t1' = '$DB' ]"
r1=$(q -c "SELECT status || ' ' || coalesce(preview::text, '') FROM askql.runs WHERE id = ${R1:-0}")
check "and answered from it: 37 admissions ($r1)" "[[ '$r1' == 'ok '*37* ]]"

# ---- 2. files: the config and CLI exports are the owner's only ----
check "askql.conf is 0600 ($(mode "$ASKQL_CONF"))" "[ \$(mode '$ASKQL_CONF') = 600 ]"
"$ASKQL" export --sql "SELECT 1 AS one" -o "$T/out.csv" >/dev/null 2>&1
"$ASKQL" export --format xlsx --sql "SELECT 1 AS one" -o "$T/out.xlsx" >/dev/null 2>&1
"$ASKQL" export --format json --sql "SELECT 1 AS one" -o "$T/out.json" >/dev/null 2>&1
check "askql export writes CSV, XLSX and JSON files 0600 ($(mode "$T/out.csv") $(mode "$T/out.xlsx") $(mode "$T/out.json"))" \
	"[ \$(mode '$T/out.csv') = 600 ] && [ \$(mode '$T/out.xlsx') = 600 ] && [ \$(mode '$T/out.json') = 600 ]"
umask 000; "$ASKQL" export --sql "SELECT 1 AS one" -o "$T/out2.csv" >/dev/null 2>&1; umask 022
check "even under umask 000 ($(mode "$T/out2.csv"))" "[ \$(mode '$T/out2.csv') = 600 ]"
check "the log directory and nginx's access log are not world-readable ($(mode "$VAR/log") $(mode "$VAR/log/nginx-access.log"))" \
	"[ \$(mode '$VAR/log') = 750 ] && [ \$(mode '$VAR/log/nginx-access.log') = 640 ]"

# ---- 3. no query string in nginx's access log ----
SECRET=900101$S
code -b "$T/u" "$BASE_URL/history?q=$SECRET-1234567" >/dev/null
code -b "$T/u" -H "Referer: $BASE_URL/history?q=ref$SECRET" "$BASE_URL/runs/$R0" >/dev/null
code -b "$T/admin" "$BASE_URL/admin/audit/access?user=usr$SECRET" >/dev/null
code "$BASE_URL/signin?next=/history%3Fq%3Dnx$SECRET" >/dev/null
sleep 0.5
check "a search, a Referer, an audit filter and a next= leave no trace of the term in the access log" \
	"! grep -q '$SECRET' '$VAR/log/nginx-access.log'" "$(grep "$SECRET" "$VAR/log/nginx-access.log" | head -3)"
check "the requests are logged, by path, with '?' where a query was" \
	"grep -q '\"GET /history? HTTP' '$VAR/log/nginx-access.log' && grep -q '\"GET /admin/audit/access? HTTP' '$VAR/log/nginx-access.log' && grep -q '\"$BASE_URL/history?\"' '$VAR/log/nginx-access.log'" \
	"$(tail -5 "$VAR/log/nginx-access.log")"

# ---- 4. CSV: a field with ';' or a tab is quoted ----
CSQL="SELECT v.id, v.txt FROM (VALUES (1, 'x;=HYPERLINK(\"http://example.invalid/?\"&A1)'), (2, 'a' || chr(9) || '=1+2'),
 (3, 'plain')) AS v(id, txt) ORDER BY v.id"
CR=$(q -v sql="$CSQL" <<SQL | head -1
INSERT INTO askql.runs(user_id, question, status, sql) VALUES ($UID_, 'csv 27', 'ok', :'sql') RETURNING id
SQL
)
curl -s -m 60 -b "$T/u" -o "$T/dl.csv" "$BASE_URL/runs/$CR/download?format=csv"
check "a ';' in the last column is quoted, and the formula after it gets its ' (x;'=HYPERLINK...)" \
	"grep -q \"^1,\\\"x;'=HYPERLINK(\\\"\\\"http://example.invalid/?\\\"\\\"&A1)\\\"\" '$T/dl.csv'" "$(cat -A "$T/dl.csv" | head -5)"
check "a tab is quoted too (a<TAB>'=1+2), a plain value is not" \
	"grep -qP \"^2,\\\"a\\t'=1\\+2\\\"\\r$\" '$T/dl.csv' && grep -qP '^3,plain\\r$' '$T/dl.csv'" "$(cat -A "$T/dl.csv" | head -5)"
out=$(python3 - "$T/dl.csv" <<'PY'
import csv, sys
for sep in (",", ";", "\t"):
    for row in csv.reader(open(sys.argv[1], encoding="utf-8-sig", newline=""), delimiter=sep):
        for cell in row[1:]:
            if cell[:1] in "=+-@": print(sep.encode(), row)
PY
)
check "read with ',', ';' or a tab as the separator, no cell but the first starts with = + - @" "[ -z \"\$out\" ]" "$out"

# ---- 5. passwords: 10 characters, 4 different ones, not a common one ----
chpw() { curl -s -o "$T/pw.html" -w '%{http_code}' -b "$T/u" --data-urlencode "csrf=$UC" --data-urlencode "current=pw-$U-secret" \
	--data-urlencode "new=$1" --data-urlencode "again=$1" "$BASE_URL/account/password"; }
for p in 'Abcdef-9!' 'aaaaaaaaaa' 'abababababab' '1234567890' 'QwertyUIOP' 'password123' 'iloveyou12'; do
	c=$(chpw "$p")
	msg=$(grep -o 'class="alert[^>]*>[^<]*' "$T/pw.html" | sed 's/.*>//' | head -1)
	check "change page: '$p' is refused (400: $msg)" "[ $c = 400 ] && [ -n \"\$msg\" ]"
done
check "the old password still signs in after all of them" "[ \"\$(attempt 127.0.0.1 '$U' 'pw-$U-secret' | cut -d' ' -f1)\" = 303 ]"
q -c "DELETE FROM askql.signin_throttle" >/dev/null
curl -s -b "$T/admin" "$BASE_URL/account/password" >"$T/help.html"
check "the form says what is asked (10 characters, not a common password)" "grep -qE 'At least 10 characters, not a common|10자 이상, 흔한' '$T/help.html'"
c=$(curl -s -o "$T/add.html" -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add \
	--data-urlencode "name=weak$S" --data-urlencode role=analyst --data-urlencode "password=password123" "$BASE_URL/admin/users")
check "admin page: adding a user with 'password123' is refused (400), nobody added, the name kept in the form" \
	"[ $c = 400 ] && [ \$(q -c \"SELECT count(*) FROM askql.users WHERE name = 'weak$S'\") = 0 ] && grep -q 'id=\"users-error\"' '$T/add.html' && grep -q 'value=\"weak$S\"' '$T/add.html'"
check "and never echoes the password" "! grep -q 'password123' '$T/add.html'"
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add \
	--data-urlencode "name=weak$S" --data-urlencode role=analyst --data-urlencode "password=aaaaaaaaaa" "$BASE_URL/admin/users")
check "'aaaaaaaaaa' is refused there too ($c)" "[ $c = 400 ]"
printf 'qwertyuiop\n' >"$T/pw1"; printf 'short-9ch\n' >"$T/pw2"; printf 'pw-%s-cli-ok\n' "$S" >"$T/pw3"
"$ASKQL" user add "cli$S" analyst --password-file "$T/pw1" >/dev/null 2>"$T/e1"; r1=$?
"$ASKQL" user add "cli$S" analyst --password-file "$T/pw2" >/dev/null 2>"$T/e2"; r2=$?
"$ASKQL" user add "cli$S" analyst --password-file "$T/pw3" >/dev/null 2>"$T/e3"; r3=$?
check "askql user add refuses a common and a 9-character password, takes a good one ($r1 $r2 $r3: $(cat "$T/e1" "$T/e2"))" \
	"[ $r1 = 1 ] && grep -q common '$T/e1' && [ $r2 = 1 ] && grep -q 'at least 10' '$T/e2' && [ $r3 = 0 ]"
{ cat "$ASKQL_CONF"; printf 'password_min_length = 7\n'; } >"$T/bad.conf"
out=$(ASKQL_CONF="$T/bad.conf" "$ASKQL" user add "cli$S" analyst --password-file "$T/pw3" 2>&1); rc=$?
check "password_min_length below 8 stops the program ($rc)" "[ $rc -ne 0 ]" "$out"
{ cat "$ASKQL_CONF"; printf 'common_passwords_file = /nonexistent/common.txt\n'; } >"$T/nolist.conf"
out=$(ASKQL_CONF="$T/nolist.conf" "$ASKQL" user add "cli$S" analyst --password-file "$T/pw3" 2>&1); rc=$?
check "without its list of common passwords no new password is accepted ($rc: $out)" "[ $rc = 1 ] && grep -q 'cannot be read' <<<\"\$out\""

# ---- 6. the throttle: a sign-in from one address leaves another address's failures counted ----
q -c "DELETE FROM askql.signin_throttle" >/dev/null
check "127.0.0.2 reaches nginx as itself" \
	"[ \"\$(attempt 127.0.0.2 nobody$S wrong | cut -d' ' -f1)\" = 401 ] && [ \$(q -c \"SELECT count(*) FROM askql.signin_throttle WHERE scope = 'addr' AND key = '127.0.0.2'\") = 1 ]"
q -c "DELETE FROM askql.signin_throttle" >/dev/null
codes=""
for i in 1 2 3 4 5; do codes="$codes $(attempt 127.0.0.2 "$U" "guess-$i" | cut -d' ' -f1)"; done
check "the attacker at 127.0.0.2 spends the name's 5 free guesses:$codes" "[ '$codes' = ' 401 401 401 401 401' ]"
read -r c ra < <(attempt 127.0.0.1 "$U" "pw-$U-secret")
if [ "$c" = 429 ]; then [ "$ra" = - ] && ra=2; sleep "$ra"; read -r c ra < <(attempt 127.0.0.1 "$U" "pw-$U-secret"); fi
check "the user at 127.0.0.1 signs in after the wait ($c): a delay, not a lockout" "[ $c = 303 ]"
f=$(q -c "SELECT failures FROM askql.signin_throttle WHERE scope = 'account' AND key = '$U'")
check "the name still counts the attacker's 5 failures ($f)" "[ '$f' = 5 ]"
read -r c ra < <(attempt 127.0.0.2 "$U" guess-6)
if [ "$c" = 429 ]; then ok "so the attacker's next guess waits (429, Retry-After $ra), not an ordinary 401"; else nok "the attacker's next guess waits ($c)"; fi
[ "$ra" = - ] && ra=2
sleep "$ra"
read -r c _ < <(attempt 127.0.0.2 "$U" guess-7)
read -r c2 ra2 < <(attempt 127.0.0.2 "$U" guess-8)
check "after that wait one guess is checked ($c) and the next waits again ($c2, Retry-After $ra2)" \
	"[ $c = 401 ] && [ $c2 = 429 ] && [ '$ra2' != - ]"
q -c "DELETE FROM askql.signin_throttle" >/dev/null
for i in 1 2; do attempt 127.0.0.1 "$U" "typo-$i" >/dev/null; done
r=$(attempt 127.0.0.1 "$U" "pw-$U-secret" | cut -d' ' -f1)
f=$(q -c "SELECT failures FROM askql.signin_throttle WHERE scope = 'account' AND key = '$U'")
check "one's own typos from one's own address are taken back by the right password ($r, failures $f)" "[ $r = 303 ] && [ '$f' = 0 ]"
q -c "DELETE FROM askql.signin_throttle" >/dev/null

# ---- 7. an API error names the status it carries ----
TOK=$("$ASKQL" user token "$U" 2>/dev/null | tail -1)
RL=$(q -c "INSERT INTO askql.runs(user_id, question, status, sql) VALUES ($UID_, 'rows 27', 'ok',
	'SELECT v.id FROM (VALUES (1), (2)) AS v(id)') RETURNING id")
curl -s -D "$T/api.h" -o "$T/api.json" -m 60 -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$RL/download?format=csv&release=1"
st=$(head -1 "$T/api.h" | awk '{print $2}')
check "a release of a row-level result through the API is a 4xx ($st)" "[[ '$st' == 4* ]]" "$(cat "$T/api.json")"
check "its JSON names that status, never 'Internal Server Error' ($(tr -d '\n' <"$T/api.json" | head -c 160))" \
	"python3 -c 'import json,sys; d=json.load(open(\"$T/api.json\")); assert d[\"status\"] == $st, d; assert d[\"error\"] != \"Internal Server Error\", d; assert $st != 422 or d[\"error\"] == \"Unprocessable Content\", d'"
c=$(curl -s -o "$T/api2.json" -w '%{http_code}' -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/999999999")
check "a 404 says Not Found ($c)" "[ $c = 404 ] && grep -q '\"error\":\"Not Found\"' '$T/api2.json'"

echo "1..$n"
