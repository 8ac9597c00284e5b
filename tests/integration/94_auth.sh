#!/usr/bin/env bash
# 94_auth.sh: issue 14's three findings (docs/auth.md): next= must be a local path (open redirect), the sign-in
# throttle (atomic, per account and per address, a delay instead of a lockout), and passwords and sessions (change
# page, admin reset with a forced change, idle and absolute expiry, Secure cookies when public_url is https).
# Everything targets loopback; every loop is bounded.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${ASKQL_CONF:?}"
. "$TOP/scripts/lib.sh"
T=$(mktemp -d /tmp/askql-94.XXXXXX); chmod 755 "$T"
W=$T/https     # the second pool + nginx with public_url = https://...
cleanup() { nginx_stop "$W" 2>/dev/null; pool_stop "$W" 2>/dev/null; reset_throttle; rm -rf "$T"; }
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -m 30 -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
# the throttle's state is per address, and every test talks from 127.0.0.1: start each part clean, end clean
reset_throttle() { q -c "DELETE FROM askql.signin_throttle" >/dev/null 2>&1; }
# location FILE: the Location header of a saved response, byte for byte (tabs kept)
location() { grep -i '^location:' "$1" | head -1 | sed 's/^[^:]*: //' | tr -d '\r'; }
setcookie() { grep -i "^set-cookie: $2=" "$1" | head -1 | tr -d '\r'; }
# signin JAR NAME PASS [BASE]: a session in JAR; prints the session's CSRF token
signin() {
	local jar=$1 pre b=${4:-$BASE_URL}
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$b/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$b/signin"
	curl -s -b "$jar" "$b/" | field csrf
}
# attempt NAME PASS [NEXT]: one sign-in from a fresh browser; prints "status retry-after location" ("-": no header)
attempt() {
	local jar pre c ra
	jar=$(mktemp -p "$T" jar.XXXXXX)
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	c=$(curl -s -D "$jar.h" -o /dev/null -m 30 -w '%{http_code}' -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" \
		--data-urlencode "name=$1" --data-urlencode "password=$2" --data-urlencode "next=${3:-/}" "$BASE_URL/signin")
	ra=$(grep -i '^retry-after:' "$jar.h" | tr -dc '0-9')
	echo "$c ${ra:--} $(location "$jar.h")"
}

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
S=$RANDOM$RANDOM
mkuser() { code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$1" \
	--data-urlencode role=analyst --data-urlencode "password=$2" "$BASE_URL/admin/users"; }
VIC=vic$S TOM=tom$S PAT=pat$S
for u in $VIC $TOM $PAT; do mkuser "$u" "pw-$u-secret" >/dev/null; done
check "analysts $VIC, $TOM and $PAT created" "[ \$(q -c \"SELECT count(*) FROM askql.users WHERE name IN ('$VIC','$TOM','$PAT')\") = 3 ]"
reset_throttle

# ---- 1. next= is followed only when it is a local path ----
V=$(signin "$T/vic" "$VIC" "pw-$VIC-secret")
check "analyst signed in" "[ -n '$V' ]"
# each value as it goes on the query string (already percent-encoded); the server decodes once
hostile=(
	'/%09/127.0.0.1:9999/x'        # the finding: a tab the browser strips, leaving //127.0.0.1:9999
	'/%0a/127.0.0.1:9999/x' '/%0d/127.0.0.1:9999/x' '/%0d%0a/127.0.0.1:9999/x' '/%20/127.0.0.1:9999/x'
	'%09//127.0.0.1:9999/x' '%20/x' '//127.0.0.1:9999/x' '/%5C127.0.0.1:9999/x' '/%5C/127.0.0.1:9999/x'
	'/%2F127.0.0.1:9999/x'         # decoded: //127.0.0.1...
	'/%252F127.0.0.1:9999/x'       # decoded: /%2F127... (an encoded slash after the first one)
	'/%2509/127.0.0.1:9999/x'      # decoded: /%09/... (an encoded tab: "decoded or not")
	'/%255C127.0.0.1:9999/x' '/x%2509y' '/x%0ay' '/x%09y' '/x%20y' '/x%01y' '/x%7fy'
	'/%E3%80%80/127.0.0.1:9999/x'  # U+3000 ideographic space
	'/%C2%A0/127.0.0.1:9999/x'     # U+00A0 no-break space
	'https://127.0.0.1:9999/x' 'javascript:alert(1)' '127.0.0.1:9999' '.' ''
)
bad=""
for nx in "${hostile[@]}"; do
	c=$(curl -s -D "$T/h1" -o /dev/null -w '%{http_code}' -b "$T/vic" "$BASE_URL/signin?next=$nx")
	l=$(location "$T/h1")
	[ "$c" = 303 ] && [ "$l" = / ] || bad="$bad [$nx -> $c '$(printf '%q' "$l")']"
done
check "signed in, GET /signin?next= with ${#hostile[@]} hostile values: each 303 to exactly /" "[ -z '$bad' ]" "$bad"
VR=$(q -c "INSERT INTO askql.runs(user_id, question, status, sql) SELECT id, 'run for next= 94', 'ok', 'SELECT 1'
	FROM askql.users WHERE name = '$VIC' RETURNING id")
bad=""
for nx in '/%09/127.0.0.1:9999/x' '//127.0.0.1:9999/x' '/%5C127.0.0.1:9999/x' '/%2509/127.0.0.1:9999/x' '/%0a/x'; do
	c=$(curl -s -D "$T/h2" -o /dev/null -w '%{http_code}' -b "$T/vic" \
		-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "csrf=$V&lang=en&next=$nx" "$BASE_URL/lang")
	l=$(location "$T/h2")
	[ "$c" = 303 ] && [ "$l" = / ] || bad="$bad [$nx -> $c '$(printf '%q' "$l")']"
	c=$(curl -s -D "$T/h3" -o /dev/null -w '%{http_code}' -b "$T/vic" \
		-H 'Content-Type: application/x-www-form-urlencoded' --data-binary "csrf=$V&action=unverify&next=$nx" "$BASE_URL/runs/$VR/action")
	[ "$c" = 303 ] && [ "$(location "$T/h3")" = / ] || bad="$bad [action $nx -> $c '$(printf '%q' "$(location "$T/h3")")']"
done
check "POST /lang and /runs/$VR/action: a hostile next= goes to exactly /" "[ -z '$bad' ]" "$bad"
r=$(attempt "$VIC" "pw-$VIC-secret" $'/\t/127.0.0.1:9999/x')
check "signing in with next=/<TAB>/127.0.0.1:9999/x goes to / ($r)" "[ '$r' = '303 - /' ]"
curl -s "$BASE_URL/signin?next=/%09/127.0.0.1:9999/x" >"$T/form.html"
check "the sign-in form carries next=/ for a hostile value" "grep -q 'name=\"next\" value=\"/\"' '$T/form.html'"
good=""
for nx in /history '/runs/1?page=2' / '/history?q=a%2Fb' '/admin/users'; do
	l=$(curl -s -D - -o /dev/null -b "$T/vic" "$BASE_URL/signin?next=$(python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1],safe=""))' "$nx")" | grep -i '^location:' | sed 's/^[^:]*: //' | tr -d '\r')
	[ "$l" = "$nx" ] || good="$good [$nx -> $l]"
done
check "local paths are still followed (/history, /runs/1?page=2, /, /history?q=a%2Fb, /admin/users)" "[ -z '$good' ]" "$good"

# ---- 2. the sign-in throttle: atomic, per account and per address, a delay and not a lockout ----
MAXF=5          # conf signin_max_failures (default)
ADDRF=30        # conf signin_addr_max_failures (default)
DELAY0=2        # conf signin_delay_s (default): the first wait
reset_throttle
for i in $(seq 20); do
	curl -s -c "$T/b$i" -b "$T/b$i" "$BASE_URL/signin" | field csrf >"$T/b$i.pre"
done
t0=$(date +%s%N)
for i in $(seq 20); do
	curl -s -o /dev/null -D "$T/b$i.h" -m 30 -w '%{http_code}\n' -c "$T/b$i" -b "$T/b$i" --data-urlencode "csrf=$(cat "$T/b$i.pre")" \
		--data-urlencode "name=$TOM" --data-urlencode "password=wrong-$i" "$BASE_URL/signin" >"$T/b$i.code" &
done
wait
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
n401=$(cat "$T"/b*.code | grep -c '^401$'); n429=$(cat "$T"/b*.code | grep -c '^429$')
# exactly MAXF checks, unless the burst itself outlasted the first wait (a busy machine): then one more is due
check "20 concurrent wrong passwords for one account: $n401 x 401, $n429 x 429 in $ms ms (only $MAXF reach the password check)" \
	"[ \$((n401 + n429)) = 20 ] && ([ $n401 = $MAXF ] || ([ $n401 = $((MAXF + 1)) ] && [ $ms -ge $((DELAY0 * 1000)) ]))"
nora=0
for i in $(seq 20); do
	if [ "$(cat "$T/b$i.code")" = 429 ] && ! grep -qiE '^retry-after: [1-9][0-9]*' "$T/b$i.h"; then nora=$((nora + 1)); fi
done
check "every 429 carries Retry-After ($nora without)" "[ $nora = 0 ]"
read -r c ra _ < <(attempt "$TOM" "pw-$TOM-secret")
since=$(( ($(date +%s%N) - t0) / 1000000 ))
# the account waits DELAY0 s after its 5th failure; a burst slowed down by a busy machine may outlast that
check "the right password after the burst waits at most $DELAY0 s ($c, Retry-After $ra, ${since} ms after the burst began)" \
	"([ $c = 429 ] && [ '$ra' != - ] && [ '$ra' -le $DELAY0 ]) || ([ $c = 303 ] && [ $since -ge $((DELAY0 * 1000)) ])"
r=$c
if [ "$c" = 429 ]; then [ "$ra" = - ] && ra=1; sleep "$ra"; r=$(attempt "$TOM" "pw-$TOM-secret"); fi
check "then the right password signs in from the same address (${r%% *}), no lockout" "[ '${r%% *}' = 303 ]"
check "the correct password reset the account's counter" "[ \"\$(q -c \"SELECT failures FROM askql.signin_throttle WHERE scope = 'account' AND key = '$TOM'\")\" = 0 ]"
r=$(attempt "$TOM" wrong-again)
check "so the next wrong password is an ordinary 401, not a 429 ($r)" "[ '${r%% *}' = 401 ]"

# the delay doubles with each further failure
reset_throttle
codes=""
for i in $(seq $MAXF); do codes="$codes $(attempt "$PAT" "wrong-$i" | cut -d' ' -f1)"; done
check "$MAXF wrong passwords in a row are each checked (401):$codes" "[ '$codes' = '$(printf ' 401%.0s' $(seq $MAXF))' ]"
# the wait each failure set, as stored (Retry-After is what is left of it when the next attempt comes)
waitset() { q -c "SELECT round(extract(epoch FROM next_at - updated_at)) FROM askql.signin_throttle WHERE scope = 'account' AND key = '$PAT'"; }
ras="" waits="" late=""
for round in 1 2 3; do
	read -r c ra _ < <(attempt "$PAT" "wrong-r$round")
	w=$(waitset); ras="$ras $c/$ra"; waits="$waits $w"
	[ "$c" = 429 ] && [ "$ra" != - ] && [ "$ra" -le "$w" ] || late="$late round $round: $c/$ra after a wait of $w s;"
	[ "$c" = 429 ] || break
	[ "$round" = 3 ] && break
	sleep "$ra"
	read -r c _ < <(attempt "$PAT" "wrong-after-r$round")
	ras="$ras $c"
done
check "each further failure doubles the wait: set to$waits s ($DELAY0, $((2 * DELAY0)), $((4 * DELAY0)) expected); answers:$ras" \
	"[ '$waits' = ' $DELAY0 $((2 * DELAY0)) $((4 * DELAY0))' ] && [ -z '$late' ]" "$late"
read -r c ra _ < <(attempt "$PAT" "pw-$PAT-secret")
check "during the wait even the right password is not checked ($c, Retry-After $ra)" "[ $c = 429 ] && [ '$ra' != - ]"
[ "$ra" = - ] && ra=1
sleep "$ra"
r=$(attempt "$PAT" "pw-$PAT-secret")
check "after it, the right password signs in ($r)" "[ '${r%% *}' = 303 ]"

# per address: many accounts from one address (password spraying)
reset_throttle
codes=$(for i in $(seq $ADDRF); do attempt "nobody$S-$i" wrong | cut -d' ' -f1; done | sort | uniq -c | tr -s ' \n' ' ')
check "$ADDRF wrong passwords for $ADDRF different names from one address are each checked:$codes" "[ '$codes' = ' $ADDRF 401 ' ]"
read -r c ra _ < <(attempt "nobody$S-fresh" wrong)
check "then a name never tried before waits: the address is counted ($c, Retry-After $ra)" "[ $c = 429 ] && [ '$ra' != - ]"
read -r c ra2 _ < <(attempt "$VIC" "pw-$VIC-secret")
check "a real user from that address waits too ($c, Retry-After $ra2)" "[ $c = 429 ] && [ '$ra2' != - ]"
[ "$ra2" = - ] && ra2=1
sleep "$ra2"
r=$(attempt "$VIC" "pw-$VIC-secret")
check "and then signs in: a delay, not a lockout ($r)" "[ '${r%% *}' = 303 ]"
reset_throttle

# ---- 3. passwords: the change page, the admin reset with a forced change ----
V=$(signin "$T/vic" "$VIC" "pw-$VIC-secret")
signin "$T/vic2" "$VIC" "pw-$VIC-secret" >/dev/null
curl -s -b "$T/vic" "$BASE_URL/account/password" >"$T/pw.html"
check "GET /account/password shows the form (current, new twice, CSRF token)" \
	"grep -q 'name=\"current\"' '$T/pw.html' && grep -q 'name=\"new\"' '$T/pw.html' && grep -q 'name=\"again\"' '$T/pw.html' && [ -n \"\$(field csrf <'$T/pw.html')\" ]"
check "the header links every signed-in user to it" "grep -q 'href=\"/account/password\"' '$T/pw.html'"
chpw() { # chpw JAR CSRF CURRENT NEW AGAIN -> status
	code -b "$1" --data-urlencode "csrf=$2" --data-urlencode "current=$3" --data-urlencode "new=$4" --data-urlencode "again=$5" \
		"$BASE_URL/account/password"
}
c=$(code -b "$T/vic" --data-urlencode "current=pw-$VIC-secret" --data-urlencode "new=new-$VIC-pass" \
	--data-urlencode "again=new-$VIC-pass" "$BASE_URL/account/password")
check "POST without the CSRF token is 403" "[ $c = 403 ]" "got $c"
c=$(chpw "$T/vic" "${V%?}$([ "${V: -1}" = 0 ] && echo 1 || echo 0)" "pw-$VIC-secret" "new-$VIC-pass" "new-$VIC-pass")
check "POST with a wrong CSRF token is 403" "[ $c = 403 ]" "got $c"
c=$(chpw "$T/vic" "$V" "not-my-password" "new-$VIC-pass" "new-$VIC-pass")
check "a wrong current password is refused ($c)" "[ $c = 403 ]"
c=$(chpw "$T/vic" "$V" "pw-$VIC-secret" "new-$VIC-pass" "new-$VIC-pasz")
check "two different new passwords are refused ($c)" "[ $c = 400 ]"
c=$(chpw "$T/vic" "$V" "pw-$VIC-secret" "short7!" "short7!")
check "a new password under 10 characters (password_min_length) is refused ($c)" "[ $c = 400 ]"
c=$(chpw "$T/vic" "$V" "pw-$VIC-secret" "pw-$VIC-secret" "pw-$VIC-secret")
check "the current password as the new one is refused ($c)" "[ $c = 400 ]"
r=$(attempt "$VIC" "pw-$VIC-secret" | cut -d' ' -f1)
check "after those refusals the old password still signs in ($r)" "[ $r = 303 ]"
c=$(chpw "$T/vic" "$V" "pw-$VIC-secret" "new-$VIC-pass" "new-$VIC-pass")
check "a good change is 303 ($c)" "[ $c = 303 ]"
check "this session goes on (200)" "[ \$(code -b '$T/vic' '$BASE_URL/history') = 200 ]"
c=$(code -b "$T/vic2" "$BASE_URL/history")
check "the user's other session is ended by the change ($c)" "[ $c = 303 ]"
check "the old password no longer signs in, the new one does" \
	"[ \"\$(attempt '$VIC' 'pw-$VIC-secret' | cut -d' ' -f1)\" = 401 ] && [ \"\$(attempt '$VIC' 'new-$VIC-pass' | cut -d' ' -f1)\" = 303 ]"

VID=$(q -c "SELECT id FROM askql.users WHERE name = '$VIC'")
AID=$(q -c "SELECT id FROM askql.users WHERE name = '$ADMIN_USER'")
curl -s -b "$T/admin" "$BASE_URL/admin/users" >"$T/users.html"
check "the users page offers a password reset" "grep -q 'value=\"reset\"' '$T/users.html'"
P=$(signin "$T/pat" "$PAT" "pw-$PAT-secret")
c=$(code -b "$T/pat" --data-urlencode "csrf=$P" --data-urlencode action=reset --data-urlencode "id=$VID" "$BASE_URL/admin/users")
check "an analyst cannot reset a password ($c)" "[ $c = 403 ]"
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=reset --data-urlencode "id=$AID" "$BASE_URL/admin/users")
check "an admin does not reset their own password there (400: the change page is for that; got $c)" "[ $c = 400 ]"
c=$(curl -s -o "$T/reset.html" -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=reset \
	--data-urlencode "id=$VID" "$BASE_URL/admin/users")
TMP=$(grep -o 'id="temp-password">[^<]*<' "$T/reset.html" | sed 's/.*">//; s/<$//')
check "the admin reset answers 200 and shows a temporary password once (${#TMP} characters)" "[ $c = 200 ] && [ \${#TMP} -ge 12 ]"
check "the reset ended every session of the user" "[ \$(q -c \"SELECT count(*) FROM askql.sessions WHERE user_id = $VID\") = 0 ] && [ \$(code -b '$T/vic' '$BASE_URL/history') = 303 ]"
check "the reset is in the audit log, without the password" \
	"[ \$(q -c \"SELECT count(*) FROM askql.audit WHERE action = 'user.reset' AND detail::text LIKE '%$VID%'\") -ge 1 ] && [ \$(q -c \"SELECT count(*) FROM askql.audit WHERE detail::text LIKE '%$TMP%'\") = 0 ]"
check "the stored hash is not the temporary password in clear" "[ \$(q -c \"SELECT count(*) FROM askql.users WHERE pwhash LIKE '%$TMP%'\") = 0 ]"
r=$(attempt "$VIC" "new-$VIC-pass")
check "the password before the reset no longer signs in ($r)" "[ '${r%% *}' = 401 ]"
r=$(attempt "$VIC" "$TMP" /history)
check "the temporary password signs in, straight to the change page ($r)" "[ '$r' = '303 - /account/password' ]"
V=$(signin "$T/vic" "$VIC" "$TMP"); V=$(curl -s -b "$T/vic" "$BASE_URL/account/password" | field csrf)
bad=""
for p in / /history /reports /admin/users; do
	c=$(curl -s -D "$T/h4" -o /dev/null -w '%{http_code}' -b "$T/vic" "$BASE_URL$p")
	[ "$c" = 303 ] && [ "$(location "$T/h4")" = /account/password ] || bad="$bad [$p -> $c $(location "$T/h4")]"
done
check "until it is changed every page sends the user to /account/password" "[ -z '$bad' ]" "$bad"
c=$(code -b "$T/vic" --data-urlencode "csrf=$V" --data-urlencode "question=how many cases" "$BASE_URL/runs")
check "and POSTs elsewhere are refused (403; got $c)" "[ $c = 403 ]"
curl -s -b "$T/vic" "$BASE_URL/account/password" >"$T/pw2.html"
check "the change page says why" "grep -q 'class=\"alert' '$T/pw2.html'"
c=$(chpw "$T/vic" "$V" "$TMP" "final-$VIC-pass" "final-$VIC-pass")
check "the forced change succeeds ($c)" "[ $c = 303 ]"
check "and the pages open again (200), the flag is cleared" \
	"[ \$(code -b '$T/vic' '$BASE_URL/history') = 200 ] && [ \$(q -c \"SELECT must_change_password FROM askql.users WHERE id = $VID\") = f ]"

# ---- 3. sessions: idle and absolute expiry (the running stack: conf defaults, clock moved in the table) ----
V=$(signin "$T/vic" "$VIC" "final-$VIC-pass")
SID=$(awk '$6 == "askql_sid" {print $7}' "$T/vic" | tail -1)
H=$(printf '%s' "$SID" | sha256sum | cut -d' ' -f1)
life=$(q -c "SELECT round(extract(epoch FROM expires_at - created_at)) FROM askql.sessions WHERE id = '$H'")
check "a session's absolute end is session_ttl_s after sign-in (${life:-?} s)" "[ '${life:-}' = 43200 ]"
q -c "UPDATE askql.sessions SET last_seen = now() - interval '120 seconds' WHERE id = '$H'" >/dev/null
c=$(code -b "$T/vic" "$BASE_URL/history")
age=$(q -c "SELECT round(extract(epoch FROM now() - last_seen)) FROM askql.sessions WHERE id = '$H'")
exp2=$(q -c "SELECT round(extract(epoch FROM expires_at - created_at)) FROM askql.sessions WHERE id = '$H'")
check "a request moves last_seen ($c, idle ${age:-?} s) and not the absolute end (${exp2:-?} s)" "[ $c = 200 ] && [ '${age:-99}' -le 5 ] && [ '${exp2:-}' = 43200 ]"
q -c "UPDATE askql.sessions SET last_seen = now() - interval '3601 seconds' WHERE id = '$H'" >/dev/null
c=$(code -b "$T/vic" "$BASE_URL/history")
check "a session idle longer than session_idle_s (3600) is ended ($c)" "[ $c = 303 ]"
r=$(curl -s -D - -o /dev/null -b "$T/vic" "$BASE_URL/history" | grep -i '^location:' | tr -d '\r')
check "to sign-in ($r)" "[[ '$r' == *'/signin?next='* ]]"
V=$(signin "$T/vic" "$VIC" "final-$VIC-pass")
curl -s -D "$T/h5" -o /dev/null -b "$T/vic" "$BASE_URL/signin"
pre=$(curl -s -D "$T/h6" -c "$T/sec0" "$BASE_URL/signin" | field csrf)
curl -s -D "$T/h7" -o /dev/null -c "$T/sec0" -b "$T/sec0" --data-urlencode "csrf=$pre" --data-urlencode "name=$VIC" \
	--data-urlencode "password=final-$VIC-pass" "$BASE_URL/signin"
check "without public_url (plain http) cookies are not Secure" \
	"setcookie '$T/h7' askql_sid | grep -q HttpOnly && ! setcookie '$T/h7' askql_sid | grep -qi secure && ! setcookie '$T/h6' askql_pre | grep -qi secure"

# ---- 3. a second pool with public_url https and short lifetimes, behind its own nginx ----
mkdir -p "$W/run" "$W/log" "$W/nginx"
{ grep -vE '^(log_path|public_url|session_idle_s|session_ttl_s) *=' "$ASKQL_CONF"
  echo "log_path = $W/log/askql.log"; echo "public_url = https://askql.example.test"
  echo "session_idle_s = 3"; echo "session_ttl_s = 7"; } >"$W/askql.conf"
chown -R "$SYSUSER" "$W"
pool_start "$W" 2
PORT2=$(free_port)
sed -e "s|@VAR@|$W|g" -e "s|@TOP@|$TOP|g" -e "s|@PORT@|$PORT2|g" -e "s|@SOCK@|$W/run/askql.sock|g" \
	-e "s|@RUNSOCK@|$W/run/askql.sock|g" -e "s|@DLSOCK@|$W/run/askql.sock|g" "$TOP/conf/nginx.conf.in" >"$W/nginx.conf"
nginx -c "$W/nginx.conf" -p "$W/nginx"
B2=http://127.0.0.1:$PORT2
for _ in $(seq 50); do [ "$(code "$B2/signin")" = 200 ] && break; sleep 0.1; done
check "second pool (public_url https://askql.example.test, idle 3 s, absolute 7 s) answers" "[ \$(code '$B2/signin') = 200 ]"
# curl keeps Secure cookies off plain http, as a browser would: the cookies are passed by hand here
pre=$(curl -s -D "$T/s1" "$B2/signin" | field csrf)
curl -s -D "$T/s2" -o /dev/null -b "askql_pre=$pre" --data-urlencode "csrf=$pre" --data-urlencode "name=$VIC" \
	--data-urlencode "password=final-$VIC-pass" "$B2/signin"
SID2=$(setcookie "$T/s2" askql_sid | sed 's/^[^=]*=//; s/;.*//')
check "the sign-in form's cookie is Secure ($(setcookie "$T/s1" askql_pre | grep -o 'Secure'))" "setcookie '$T/s1' askql_pre | grep -q '; Secure'"
check "the session cookie is Secure, HttpOnly, SameSite=Strict, Max-Age 7" \
	"setcookie '$T/s2' askql_sid | grep -q '; Secure' && setcookie '$T/s2' askql_sid | grep -q HttpOnly && setcookie '$T/s2' askql_sid | grep -q 'SameSite=Strict' && setcookie '$T/s2' askql_sid | grep -q 'Max-Age=7;'" \
	"$(setcookie "$T/s2" askql_sid | sed 's/askql_sid=[0-9a-f]*/askql_sid=.../')"
check "clearing the form's cookie at sign-in is Secure too" "setcookie '$T/s2' askql_pre | grep -q '; Secure'"
C2=$(curl -s -b "askql_sid=$SID2" "$B2/" | field csrf)
curl -s -D "$T/s3" -o /dev/null -b "askql_sid=$SID2" --data-urlencode "csrf=$C2" --data-urlencode lang=en --data-urlencode next=/ "$B2/lang"
check "the language cookie is Secure" "setcookie '$T/s3' askql_lang | grep -q '; Secure'"
# idle 3 s, absolute 7 s: a request every 1.5 s keeps the session past the idle limit, never past 7 s
t0=$(q -c "SELECT extract(epoch FROM created_at) * 1000 FROM askql.sessions WHERE id = '$(printf '%s' "$SID2" | sha256sum | cut -d' ' -f1)'" | cut -d. -f1)
seen="" last200=0 first303=0
for _ in $(seq 10); do
	sleep 1.5
	c=$(code -b "askql_sid=$SID2" "$B2/history"); at=$(( $(date +%s%3N) - ${t0:-0} ))
	seen="$seen $c@${at}ms"
	if [ "$c" = 200 ]; then last200=$at; else first303=$at; break; fi
done
check "active every 1.5 s: alive past the 3 s idle limit, ended by the 7 s absolute one:$seen" \
	"[ $last200 -gt 3500 ] && [ $last200 -lt 7300 ] && [ $first303 -ge 6700 ] && [ $first303 -lt 9500 ]"
pre=$(curl -s "$B2/signin" | field csrf)
curl -s -D "$T/s4" -o /dev/null -b "askql_pre=$pre" --data-urlencode "csrf=$pre" --data-urlencode "name=$VIC" \
	--data-urlencode "password=final-$VIC-pass" "$B2/signin"
SID3=$(setcookie "$T/s4" askql_sid | sed 's/^[^=]*=//; s/;.*//')
c1=$(code -b "askql_sid=$SID3" "$B2/history"); sleep 4; c2=$(code -b "askql_sid=$SID3" "$B2/history")
check "idle for 4 s (> 3): ended ($c1 then $c2)" "[ $c1 = 200 ] && [ $c2 = 303 ]"

echo "1..$n"
