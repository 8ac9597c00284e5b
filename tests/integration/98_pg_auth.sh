#!/usr/bin/env bash
# 98_pg_auth.sh: issue 14, finding 2 (docs/pg-auth.md): no other OS user reaches PostgreSQL, every connection
# logs in with a scram-sha-256 password, no role askql.conf names is a superuser, the passwords sit in 0600 files
# (the app's of the service user, the superuser's of root), the web cannot borrow the superuser, and the app
# still answers, also after the passwords were rotated.
set -uo pipefail
: "${TOP:?}" "${VAR:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}" "${ASKQL_CONF:?}"
. "$TOP/scripts/lib.sh"
ASKQL=${ASKQL:-$TOP/bin/askql}
T=$(mktemp -d /tmp/askql-98.XXXXXX)
SRC=pg98_$$
cleanup() {
	psql -X -q -d askql -c "DELETE FROM askql.targets WHERE name = '$SRC'" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -8; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d "${2:-askql}" -v ON_ERROR_STOP=1 -c "$1"; }   # the superuser, from the runner's PGPASSFILE
SOCK=$VAR/run
APPPASS=$(sed -n 's/^pg_passfile *= *//p' "$ASKQL_CONF" | tail -1)
ADMINPASS=$VAR/pgpass.admin
ROLES="askql askql_app askql_reader"
# try USER ARGS...: psql as another OS user, no password file, never prompting; "in as ROLE" when it got in
try() { runuser -u "$1" -- env -u PGPASSFILE -u PGPASSWORD psql -X -w -tA "${@:2}" -c "SELECT 'in as ' || current_user" 2>&1; }

# ---- 1. other OS users: the finding's command, for every role, socket and TCP ----
for r in $ROLES; do
	out=$(try nobody -h "$SOCK" -p "$PGPORT" -U "$r" -d askql)
	check "nobody: psql -h $SOCK -U $r is refused" "[[ \"\$out\" != *'in as'* ]]" "$out"
	out=$(try nobody -h 127.0.0.1 -p "$PGPORT" -U "$r" -d askql)
	check "nobody: psql -h 127.0.0.1 -U $r without a password is refused" "[[ \"\$out\" != *'in as'* ]]" "$out"
done
out=$(runuser -u nobody -- ls "$SOCK" 2>&1); rc=$?
check "nobody cannot list the socket directory ($(stat -c '%a %U' "$SOCK"))" "[ $rc -ne 0 ] && [ \"\$(stat -c '%a %U' '$SOCK')\" = '700 $SYSUSER' ]" "$out"
check "nobody cannot even see the socket file there" "! runuser -u nobody -- test -e '$SOCK/.s.PGSQL.$PGPORT' && [ -S '$SOCK/.s.PGSQL.$PGPORT' ]"
check "the socket itself is 0700 (unix_socket_permissions $(q 'SHOW unix_socket_permissions' postgres))" \
	"[ \"\$(q 'SHOW unix_socket_permissions' postgres)\" = 0700 ] && [ \"\$(stat -c '%a' '$SOCK/.s.PGSQL.$PGPORT')\" = 700 ]"

# ---- 2. a password for every connection, even for whoever reaches the socket ----
methods=$(q "SELECT string_agg(DISTINCT auth_method, ',') FROM pg_hba_file_rules" postgres)
check "pg_hba.conf: scram-sha-256 on every line (methods: $methods), no trust" \
	"[ '$methods' = scram-sha-256 ] && ! grep -qE '^[^#]*[[:space:]]trust' '$VAR/pg/pg_hba.conf'"
for r in $ROLES; do
	out=$(PGPASSFILE=/nonexistent psql -X -w -tA -h "$SOCK" -p "$PGPORT" -U "$r" -d askql -c "SELECT 1" 2>&1)
	check "root without a password over the socket as $r is refused" "[[ \"\$out\" == *password* ]] && [ '$out' != 1 ]" "$out"
done
check "the superuser and the app's roles have SCRAM-SHA-256 passwords" \
	"[ \"\$(q \"SELECT count(*) FROM pg_authid WHERE rolname IN ('askql', 'askql_app', 'askql_reader') AND rolpassword LIKE 'SCRAM-SHA-256\\\$4096:%'\" postgres)\" = 3 ]"

# ---- 3. superusers: only the bootstrap one, and askql.conf never names it ----
supers=$(q "SELECT string_agg(rolname, ',' ORDER BY rolname) FROM pg_roles WHERE rolsuper" postgres)
check "the only superuser is the bootstrap role askql ($supers)" "[ '$supers' = askql ]"
for k in app_db target_db target_ro_db; do
	ci=$(sed -n "s/^$k *= *//p" "$ASKQL_CONF" | tail -1)
	u=$(sed -n 's/.*user=\([^ ]*\).*/\1/p' <<<"$ci")
	row=$(PGPASSFILE=$APPPASS psql -X -w -tA "$ci" -c "SELECT current_user || ' ' || rolsuper::text || rolcreaterole::text || rolreplication::text || rolbypassrls::text FROM pg_roles WHERE rolname = current_user" 2>&1)
	check "$k logs in with the app's password file as '$u': no superuser, createrole, replication or bypassrls ($row)" \
		"[ -n '$u' ] && [ '$u' != askql ] && [ '$row' = '$u falsefalsefalsefalse' ]"
done

# ---- 4. where the passwords live ----
check "askql.conf names the app's password file ($APPPASS)" "[ -n '$APPPASS' ] && [ -f '$APPPASS' ]"
check "the app's password file is 0600, the service user's ($(stat -c '%a %U' "$APPPASS" 2>&1))" \
	"[ \"\$(stat -c '%a %U' '$APPPASS')\" = '600 $SYSUSER' ]"
check "the superuser's password file is 0600, root's ($(stat -c '%a %U' "$ADMINPASS" 2>&1))" \
	"[ \"\$(stat -c '%a %U' '$ADMINPASS')\" = '600 root' ]"
check "the service user (the workers) cannot read the superuser's password file" \
	"[ -s '$ADMINPASS' ] && ! runuser -u '$SYSUSER' -- cat '$ADMINPASS' >/dev/null 2>&1"
check "nobody can read either password file" \
	"[ -s '$APPPASS' ] && [ -s '$ADMINPASS' ] && ! runuser -u nobody -- cat '$APPPASS' >/dev/null 2>&1 && ! runuser -u nobody -- cat '$ADMINPASS' >/dev/null 2>&1"
roles_in() { awk -F: '{print $(NF-1)}' "$1" | sort -u | paste -sd, -; }
check "the app's file holds the app's roles only, no superuser ($(roles_in "$APPPASS"))" "[ \"\$(roles_in '$APPPASS')\" = askql_app,askql_reader ]"
leaks=""
while IFS= read -r pw; do
	[ -n "$pw" ] && leaks="$leaks$(grep -rlF -- "$pw" "$VAR/askql.conf" "$VAR/env.sh" "$VAR/log" "$VAR/nginx.conf" 2>/dev/null)"
done < <(awk -F: '{print $NF}' "$ADMINPASS")
check "no password is in askql.conf, env.sh, nginx.conf or any log (PostgreSQL got SCRAM verifiers)" \
	"[ \"\$(awk -F: '{print \$NF}' '$ADMINPASS' | grep -c .)\" = 3 ] && [ -z '$leaks' ]" "$leaks"
bad=""
for pid in $(pgrep -f "$TOP/bin/askql-fcgi"); do
	tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qE '^PGPASS(FILE|WORD)=' && bad="$bad $pid"
done
check "no worker has PGPASSFILE or PGPASSWORD in its environment (they read askql.conf's)" "[ -n \"\$(pgrep -f '$TOP/bin/askql-fcgi')\" ] && [ -z '$bad' ]" "$bad"

# ---- 5. the web cannot borrow the superuser: a data source naming it does not connect ----
A=$(curl -s -c "$T/jar" -b "$T/jar" "$BASE_URL/signin" | field csrf)
curl -s -o /dev/null -c "$T/jar" -b "$T/jar" --data-urlencode "csrf=$A" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
A=$(curl -s -b "$T/jar" "$BASE_URL/" | field csrf)
post() { curl -s -b "$T/jar" --data-urlencode "csrf=$A" "$@" "$BASE_URL/admin/datasources"; }
post --data-urlencode action=add --data-urlencode "name=$SRC" \
	--data-urlencode "conninfo=host=$SOCK port=$PGPORT dbname=postgres user=askql" >/dev/null
out=$(post --data-urlencode action=test --data-urlencode "name=$SRC")
check "Admin -> Data sources: a connection as the superuser (no password) is refused to the workers" \
	"grep -qE 'class=\"alert\">(the PostgreSQL server refused the login|PostgreSQL 서버가 로그인을 거절)' <<<\"\$out\" && [[ \"\$out\" != *'server-version\">15'* ]]" \
	"$(grep -E 'alert|server-version' <<<"$out" | head -4)"
q "DELETE FROM askql.targets WHERE name = '$SRC'" >/dev/null

# ---- 6. the app works: web, the CLI from askql.conf alone, the CLI as the service user ----
ask_web() { # ask_web QUESTION -> "status rows" of the run it started
	local loc run
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/jar" --data-urlencode "csrf=$A" \
		--data-urlencode "question=$1" "$BASE_URL/runs")
	run=${loc##*/runs/}
	[[ "$run" =~ ^[0-9]+$ ]] || { echo "no run: $loc"; return; }
	q "SELECT status || ' ' || coalesce(row_count, -1) FROM askql.runs WHERE id = $run"
}
r=$(ask_web "how many cases are there")
check "a run over the web answers ($r)" "[ '$r' = 'ok 1' ]"
out=$(env -u PGPASSFILE "$ASKQL" ask --json --no-cache "how many cases are there" 2>&1)
check "askql ask as root with askql.conf's password file alone answers" "grep -q '\"status\": *\"ok\"' <<<\"\$out\"" "$out"
out=$(runuser -u "$SYSUSER" -- env -u PGPASSFILE ASKQL_CONF="$ASKQL_CONF" "$ASKQL" ask --json --no-cache "how many cases are there" 2>&1)
check "askql ask as the service user answers" "grep -q '\"status\": *\"ok\"' <<<\"\$out\"" "$out"

# ---- 7. rotation: new passwords in the cluster and the files; the workers follow without a restart ----
old_app=$(pw_of "$APPPASS" askql_app) old_su=$(pw_of "$ADMINPASS" askql)
out=$(bash "$TOP/scripts/rotate.sh" "$VAR" 2>&1); rc=$?
check "scripts/rotate.sh $VAR ($out)" "[ $rc = 0 ]"
new_app=$(pw_of "$APPPASS" askql_app)
check "every password changed, the files kept their modes and owners" \
	"[ -n '$new_app' ] && [ '$new_app' != '$old_app' ] && [ \"\$(pw_of '$ADMINPASS' askql)\" != '$old_su' ] &&
	 [ \"\$(stat -c '%a %U' '$APPPASS')\" = '600 $SYSUSER' ] && [ \"\$(stat -c '%a %U' '$ADMINPASS')\" = '600 root' ] &&
	 [ ! -e '$APPPASS.new' ] && [ ! -e '$ADMINPASS.old' ]"
out=$(PGPASSFILE=/nonexistent PGPASSWORD=$old_app psql -X -w -tA -h "$SOCK" -p "$PGPORT" -U askql_app -d askql -c "SELECT 1" 2>&1)
check "the old askql_app password no longer logs in" "[[ \"\$out\" == *'password authentication failed'* ]]" "$out"
out=$(PGPASSFILE=/nonexistent PGPASSWORD=$old_su psql -X -w -tA -h "$SOCK" -p "$PGPORT" -U askql -d postgres -c "SELECT 1" 2>&1)
check "the old superuser password no longer logs in" "[[ \"\$out\" == *'password authentication failed'* ]]" "$out"
# end every connection of the app's roles: the workers must log in again, with the new file
killed=$(q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE usename IN ('askql_app', 'askql_reader')" postgres)
r=$(ask_web "how many cases are there"); [ "$r" = "ok 1" ] || { sleep 1; r=$(ask_web "how many cases are there"); }
check "after the rotation and $killed connections ended, a run over the web answers ($r)" "[ '$r' = 'ok 1' ]"
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/jar" "$BASE_URL/history")
check "and the history page answers 200 ($c)" "[ $c = 200 ]"

# pgpass_write under set -e (as make run calls it) when the last allowed database is another role's: it
# failed the loop and stopped `make run` after an operator's pgpass_allow ... askql_reader askql_app
out=$(cd "$T" && bash -ec ". '$TOP/scripts/lib.sh'; mkdir -p pw/run
	PGPASS_DBS=\$'demo askql_reader\nx askql_reader\nx askql_app' pgpass_write pw/pgpass root pw 5432 askql_app=a askql_reader=b
	echo written" 2>&1); rc=$?
check "pgpass_write under set -e with another role's database last: written, one line per database and role" \
	'[ $rc -eq 0 ] && [ "$out" = written ] && [ "$(wc -l <"$T/pw/pgpass")" = 3 ] && grep -q ":x:askql_app:a$" "$T/pw/pgpass"' "$out"
echo "1..$n"
