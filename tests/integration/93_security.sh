#!/usr/bin/env bash
# 93_security.sh: what 50_web_security.sh and 15_guard_hostile.sh do not cover: escalation attempts beyond admin pages,
# session fixation, path traversal in every file-ish parameter, the hostile SQL corpus through the HTTP step-edit path,
# other users' reports by id, and the executor role's privileges checked directly in PostgreSQL.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}"
T=$(mktemp -d); trap 'rm -rf "$T" /tmp/askql93_pwned' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -m 30 -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
signin() { # signin JAR NAME PASS -> the session's CSRF token
	local jar=$1 pre
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
sid_of() { awk '$6 == "askql_sid" {print $7}' "$1" | tail -1; }

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
U=eve$RANDOM$RANDOM
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$U" \
	--data-urlencode role=analyst --data-urlencode "password=pw-$U-secret" "$BASE_URL/admin/users")
E=$(signin "$T/eve" "$U" "pw-$U-secret")
EID=$(q -c "SELECT id FROM askql.users WHERE name = '$U'")
check "analyst $U created and signed in" "[ $c = 303 ] && [ -n '$E' ] && [ -n '$EID' ]"

# ---- session fixation: a cookie planted before sign-in is not the session afterwards ----
PLANT=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '127.0.0.1\tFALSE\t/\tFALSE\t0\taskql_sid\t%s\n' "$PLANT" >"$T/fix"
pre=$(curl -s -c "$T/fix" -b "$T/fix" "$BASE_URL/signin" | field csrf)
curl -s -D "$T/fixh" -o /dev/null -c "$T/fix" -b "$T/fix" --data-urlencode "csrf=$pre" --data-urlencode "name=$U" \
	--data-urlencode "password=pw-$U-secret" "$BASE_URL/signin"
NEW=$(grep -i '^set-cookie: askql_sid=' "$T/fixh" | sed 's/^[^=]*=//; s/;.*//' | tr -d '\r')
check "sign-in with a planted askql_sid issues a fresh session cookie" "[ -n '$NEW' ] && [ '$NEW' != '$PLANT' ]"
c=$(code -b "askql_sid=$PLANT" "$BASE_URL/history")
check "the planted cookie is not honoured after the victim signs in (303 to sign-in)" "[ $c = 303 ]" "got $c"
check "no session row matches the planted value" "[ -z \"\$(q -c \"SELECT 1 FROM askql.sessions WHERE id = encode(sha256('$PLANT'::bytea), 'hex')\")\" ]"
check "the sign-in form's pre-session token is cleared on sign-in" "grep -qi '^set-cookie: askql_pre=;' '$T/fixh'"
E1=$(sid_of "$T/eve"); signin "$T/eve2" "$U" "pw-$U-secret" >/dev/null; E2=$(sid_of "$T/eve2")
check "each sign-in gets its own session id" "[ -n '$E1' ] && [ -n '$E2' ] && [ '$E1' != '$E2' ]"
ASID=$(sid_of "$T/admin")
HASH=$(printf '%s' "$ASID" | sha256sum | cut -d' ' -f1)
check "the stored session id (sha256) is what the table holds" "[ -n \"\$(q -c \"SELECT 1 FROM askql.sessions WHERE id = '$HASH'\")\" ]"
c=$(code -b "askql_sid=$HASH" "$BASE_URL/admin")
check "a leaked sessions table is no use: its hash as a cookie is not a session (303)" "[ $c = 303 ]" "got $c"
c=$(code -b "askql_sid=${ASID:0:63}" "$BASE_URL/admin"); check "a truncated session cookie is not a session ($c)" "[ $c = 303 ]"
c=$(code -b "askql_sid=${ASID^^}" "$BASE_URL/admin"); check "an upper-cased session cookie is not a session ($c)" "[ $c = 303 ]"
c=$(code -H "Authorization: Bearer $ASID" "$BASE_URL/api/runs/1"); check "a session cookie is not a bearer token ($c)" "[ $c = 401 ]"

# ---- analyst-to-admin escalation attempts ----
for spec in "/admin/prompts/extract body=x&note=n" "/admin/prompts/extract/rollback version=1" \
            "/admin/catalog action=add&table=lab_data_table&column=name&phrase=p&value=v" \
            "/admin/users action=role&id=$EID&role=admin" "/admin/users action=add&name=mallory&role=admin&password=longpassword1"; do
	p=${spec%% *}; body=${spec#* }
	c=$(code -b "$T/eve" -H 'Content-Type: application/x-www-form-urlencoded' --data-binary "csrf=$E&$body" "$BASE_URL$p")
	check "analyst POST $p ($body) is 403" "[ $c = 403 ]" "got $c"
done
c=$(code -b "$T/eve" --data-urlencode "csrf=$E" --data-urlencode lang=en --data-urlencode role=admin \
	--data-urlencode "user_id=1" --data-urlencode "next=/" "$BASE_URL/lang")
check "undeclared role/user_id parameters on an allowed POST change nothing ($c; role $(q -c "SELECT role FROM askql.users WHERE id=$EID"))" \
	"[ '$(q -c "SELECT role FROM askql.users WHERE id=$EID")' = analyst ] && [ \$(code -b '$T/eve' '$BASE_URL/admin') = 403 ]"
check "no user 'mallory' exists" "[ -z \"\$(q -c \"SELECT 1 FROM askql.users WHERE name = 'mallory'\")\" ]"
AR=$(q -c "INSERT INTO askql.runs(user_id, target, kind, provider, question, status, sql)
	SELECT id, 'demo', 'extract', 'builtin', 'admin secret question 93', 'ok', 'SELECT caseid FROM clinical_data_table LIMIT 3'
	FROM askql.users WHERE name = '$ADMIN_USER' RETURNING id")
curl -s -b "$T/eve" "$BASE_URL/history?all=1&q=secret" >"$T/h.html"
check "analyst history?all=1 does not list the admin's runs" "! grep -q 'admin secret question 93' '$T/h.html'"
c=$(code -b "$T/eve" --data-urlencode "csrf=$E" --data-urlencode "question=and per case?" --data-urlencode "parent=$AR" "$BASE_URL/runs")
check "a follow-up of the admin's run (parent=$AR) is 404 for the analyst" "[ $c = 404 ]" "got $c"
TOK=$(ASKQL_CONF=${ASKQL_CONF:-} "${ASKQL:-$TOP/bin/askql}" user token "$U" 2>/dev/null | tail -1)
if [ -n "$TOK" ]; then
	c=$(code -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' \
		--data '{"question":"and per case?","parent":'"$AR"'}' "$BASE_URL/api/runs")
	check "API: a follow-up of another user's run is refused ($c)" "[[ $c =~ ^(403|404)$ ]]"
	c=$(code -H "Authorization: Bearer $TOK" "$BASE_URL/admin/users")
	check "API token of an analyst does not open admin pages ($c)" "[[ $c =~ ^(401|403)$ ]]"
fi

# ---- another user's reports by id ----
RP=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode "case=1" "$BASE_URL/reports")
RID=$(echo "$RP" | grep -oE '/reports/[0-9]+' | grep -oE '[0-9]+$')
[ -z "$RID" ] && RID=$(q -c "SELECT max(id) FROM askql.reports")
if [ -n "$RID" ]; then
	for p in "/reports/$RID" "/reports/$RID?format=json" "/reports/$RID?format=html"; do
		c=$(code -b "$T/eve" "$BASE_URL$p")
		owner=$(q -c "SELECT coalesce(user_id, 0) FROM askql.reports WHERE id = $RID" 2>/dev/null)
		if [ "$owner" = "$EID" ]; then continue; fi
		check "analyst GET $p of another user's report is 404 ($c)" "[ $c = 404 ]"
	done
else
	ok "# SKIP no report could be created"
fi

# ---- path traversal in every file-ish parameter ----
trav() { # trav DESC JAR URL: not 200-with-secret; any file content would show these markers
	local c
	c=$(curl -s --path-as-is -o "$T/tr" -w '%{http_code}' -b "$2" "$3")
	check "$1 ($c)" "! grep -qE 'root:x:0:0|app_db *=|askql_app|BEGIN [A-Z ]*PRIVATE KEY' '$T/tr' && [ $c != 500 ]"
}
trav "static: /static/../conf/askql.conf.example" "$T/eve" "$BASE_URL/static/../conf/askql.conf.example"
trav "static: /static/..%2f..%2fetc/passwd" "$T/eve" "$BASE_URL/static/..%2f..%2fetc/passwd"
trav "static: /static/%2e%2e/%2e%2e/%2e%2e/etc/passwd" "$T/eve" "$BASE_URL/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd"
trav "static: alias off-by-slash /static../conf/askql.conf.example" "$T/eve" "$BASE_URL/static../conf/askql.conf.example"
trav "static: //etc/passwd" "$T/eve" "$BASE_URL/static//etc/passwd"
for nm in ".." "..%2f..%2f..%2f..%2fetc%2fpasswd" "..%252f..%252fetc%252fpasswd" "extract%00.xml" "....%2f....%2fetc%2fpasswd" "%2fetc%2fpasswd"; do
	trav "prompt name: /admin/prompts/$nm (admin)" "$T/admin" "$BASE_URL/admin/prompts/$nm"
done
for f in "../../../../etc/passwd" "csv/../../x" "..%2Fcsv" "csv%00" "/etc/passwd"; do
	c=$(code --path-as-is -b "$T/admin" "$BASE_URL/runs/$AR/download?format=$f")
	check "download format=$f is refused (400/404: $c)" "[[ $c =~ ^(400|404)$ ]]"
	c=$(code --path-as-is -b "$T/admin" "$BASE_URL/reports/${RID:-1}?format=$f")
	check "report format=$f is refused (400/404: $c)" "[[ $c =~ ^(400|404)$ ]]"
done
trav "template-ish: /history?table=../../../etc/passwd" "$T/eve" "$BASE_URL/history?table=../../../etc/passwd"
c=$(code -b "$T/eve" --data-urlencode "csrf=$E" --data-urlencode "lang=.." --data-urlencode "next=/" "$BASE_URL/lang")
c2=$(code -b "$T/eve" -b "askql_lang=../../../../etc/passwd" "$BASE_URL/")
check "language '..' (form $c) or a traversal in the askql_lang cookie (page $c2) loads no file" \
	"[[ $c =~ ^(303|400)$ ]] && [ $c2 = 200 ]"
printf 'chart text 93' >"$T/chart.txt"
c=$(code -b "$T/eve" -F "csrf=$E" -F "file=@$T/chart.txt;filename=../../../../../../tmp/askql93_pwned" "$BASE_URL/reports")
check "an uploaded file name with ../ is never used as a path ($c)" "[ ! -e /tmp/askql93_pwned ] && [ $c != 500 ]"

# ---- the guard's hostile corpus through HTTP: step mode, edit the SQL ----
python3 - "$TOP/tests/data/guard_hostile.sql" "$T/corpus" <<'PY'
import os, sys
recs, cur = [], []
for line in open(sys.argv[1], encoding="utf-8"):
    if line.rstrip("\n") == "-- @@":
        recs.append(cur); cur = []
    elif not line.startswith("-- expect:"):
        cur.append(line)
recs.append(cur)
os.makedirs(sys.argv[2])
k = 0
for r in recs:
    s = "".join(r).strip()
    if s and not all(l.startswith("--") for l in s.splitlines()):
        k += 1
        open(os.path.join(sys.argv[2], "%04d.sql" % k), "w", encoding="utf-8").write(s)
PY
NC=$(ls "$T/corpus" | wc -l)
snap() { psql -X -q -tA -d demo -c "SELECT (SELECT count(*) FROM clinical_data_table) || ',' || (SELECT count(*) FROM lab_data_table)
	|| ',' || (SELECT count(*) FROM vital_data_table) || ',' || (SELECT count(*) FROM medication_data_table)
	|| ',' || (SELECT count(*) FROM pg_class) || ',' || (SELECT count(*) FROM pg_proc) || ',' || (SELECT count(*) FROM pg_largeobject_metadata)"; }
S0=$(snap)
one() { # one FILE: a paused step-mode run, then its SQL replaced by the hostile statement; prints "file run code"
	local loc id c
	loc=$(curl -s -o /dev/null -m 30 -w '%{redirect_url}' -b "$T/eve" --data-urlencode "csrf=$E" --data-urlencode mode=step \
		--data-urlencode "question=potassium results above 6.5 per case" "$BASE_URL/runs")
	id=${loc##*/runs/}
	c=$(curl -s -o /dev/null -m 30 -w '%{http_code}' -b "$T/eve" --data-urlencode "csrf=$E" --data-urlencode action=edit \
		--data-urlencode "sql@$1" "$BASE_URL/runs/$id/step")
	echo "$(basename "$1") $id $c"
}
export -f one; export T E BASE_URL
t0=$(date +%s)
ls "$T/corpus"/*.sql | xargs -P 4 -I{} bash -c 'one {}' >"$T/http_results"
secs=$(( $(date +%s) - t0 ))
ids=$(awk '$2 ~ /^[0-9]+$/ {print $2}' "$T/http_results" | paste -sd, -)
bad=$(awk '$3 != 303 && $3 != 400 && $3 != 413' "$T/http_results" | head -3)
check "all $NC hostile statements posted as edited SQL in step mode (${secs}s), each answered 303/400" \
	"[ \$(wc -l <'$T/http_results') = $NC ] && [ -z '$bad' ]" "$bad"
ran=$(q -c "SELECT count(*) FROM askql.steps WHERE run_id IN (${ids:-0}) AND name = 'executor' AND status = 'ok'")
# refused before it is accepted (a human 'edit' step, issue 15) or, before that change, by the executor
refused=$(q -c "SELECT count(DISTINCT run_id) FROM askql.steps WHERE run_id IN (${ids:-0}) AND name IN ('executor', 'edit')
	AND status = 'error' AND error LIKE '%guard%'")
posted=$(awk '$3 == 303' "$T/http_results" | wc -l)
check "no hostile statement ran: 0 executor successes for the edits (got $ran)" \
	"[ \$(q -c \"SELECT count(*) FROM askql.steps s WHERE s.run_id IN (${ids:-0}) AND s.name = 'executor' AND s.status = 'ok'
	  AND s.seq = (SELECT min(seq) FROM askql.steps WHERE run_id = s.run_id AND name = 'executor')\") = 0 ]"
check "every statement that reached the agent was refused by the guard ($refused of $posted; the rest 400 at the form)" \
	"[ $refused = $posted ]" "$(awk '$3 == 303' "$T/http_results" | head -3)"
S1=$(snap)
check "the demo database is unchanged (rows, relations, functions, large objects: $S0)" "[ '$S0' = '$S1' ]" "after: $S1"

# ---- the executor's role, checked directly in PostgreSQL (privileges alone, read-only switched off) ----
psql -X -q -tA -d postgres -c "SELECT pg_sleep(20)" >/dev/null 2>&1 &
SLEEPER=$!
for _ in $(seq 30); do VICTIM=$(psql -X -q -tA -d postgres -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(20)' LIMIT 1"); [ -n "$VICTIM" ] && break; sleep 0.1; done
RO() { psql -X -q -tA -U askql_reader -d "$1" -c "SET default_transaction_read_only = off" -c "$2" 2>&1; }
for stmt in "INSERT INTO lab_data_table(caseid, name, result) VALUES (1, 'x', 1)" "UPDATE lab_data_table SET result = 0" \
            "DELETE FROM lab_data_table" "TRUNCATE lab_data_table" "CREATE TABLE p93 (a int)" "CREATE TEMP TABLE p93 (a int)" \
            "CREATE SCHEMA p93" "CREATE FUNCTION p93() RETURNS int LANGUAGE sql AS 'SELECT 1'" "DROP TABLE lab_data_table" \
            "ALTER TABLE lab_data_table ADD COLUMN p93 int" "CREATE INDEX p93 ON lab_data_table(result)" \
            "GRANT SELECT ON lab_data_table TO PUBLIC" "COPY lab_data_table FROM STDIN" "COPY lab_data_table TO '/tmp/askql93_pwned'" \
            "SELECT * FROM lab_data_table LIMIT 1 FOR UPDATE" "LOCK TABLE lab_data_table IN ACCESS EXCLUSIVE MODE" \
            "SET ROLE askql" "SET SESSION AUTHORIZATION askql" "ALTER ROLE askql_reader SUPERUSER" "CREATE ROLE p93" \
            "CREATE DATABASE p93" "SELECT pg_read_file('/etc/passwd')" "SELECT pg_ls_dir('.')" "SELECT lo_import('/etc/passwd')" \
            "SELECT lo_create(0)" "CREATE EXTENSION dblink" "ALTER SYSTEM SET work_mem = '1GB'" "SELECT pg_terminate_backend(\$VICTIM)" \
            "SELECT pg_reload_conf()" "SELECT pg_catalog.set_config('default_transaction_read_only', 'off', false), pg_sleep(0); INSERT INTO lab_data_table(caseid) VALUES (1)"; do
	out=$(RO demo "${stmt//\$VICTIM/$VICTIM}")
	check "askql_reader cannot: ${stmt:0:70}" "[[ \"\$out\" == *ERROR* || \"\$out\" == *'no privileges were granted'* ]] && [ ! -e /tmp/askql93_pwned ]" "$out"
done
out=$(RO askql "SELECT count(*) FROM askql.users"); check "askql_reader cannot read the app's users (password hashes)" "[[ \"\$out\" == *ERROR* ]]" "$out"
out=$(RO askql "SELECT count(*) FROM askql.sessions"); check "askql_reader cannot read the app's sessions" "[[ \"\$out\" == *ERROR* ]]" "$out"
check "askql_reader is no superuser, cannot create roles or databases, has no replication" \
	"[ \"\$(psql -X -q -tA -d postgres -c \"SELECT rolsuper::int + rolcreaterole::int + rolcreatedb::int + rolreplication::int + rolbypassrls::int FROM pg_roles WHERE rolname = 'askql_reader'\")\" = 0 ]"
# (the roles of access levels, askql_<target>_identified/limited/aggregate, are the reader's by design:
# it logs in and takes the level's role; `make run` and 28_planner_form set them up on the demo)
check "askql_reader's only memberships: none but the roles of access levels" "[ \"\$(psql -X -q -tA -d postgres -c \"SELECT count(*) FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member JOIN pg_roles g ON g.oid = m.roleid WHERE r.rolname = 'askql_reader' AND g.rolname !~ '^askql_.+_(identified|limited|aggregate)\\\$'\")\" = 0 ]"
check "the superuser's backend survived the reader's pg_terminate_backend" "kill -0 $SLEEPER 2>/dev/null"
kill "$SLEEPER" 2>/dev/null
S2=$(snap)
check "the demo database is still unchanged after the direct attempts" "[ '$S0' = '$S2' ]" "after: $S2"
echo "1..$n"
