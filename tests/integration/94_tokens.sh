#!/usr/bin/env bash
# 94_tokens.sh: issue 27, "Tokens" (docs/auth.md, "API tokens"): a user's API tokens end with an admin's password
# reset, the user's own password change and deactivation; the must-change-password gate holds for the API; Admin ->
# Users lists every token and revokes one or all (CSRF-protected POST, audited); the CLI caps and labels them.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${ASKQL_CONF:?}" "${ASKQL:?}"
T=$(mktemp -d /tmp/askql-94t.XXXXXX)
trap 'q -c "DELETE FROM askql.signin_throttle" >/dev/null 2>&1; rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
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
# api TOKEN: the status of GET /api/runs/$RID with that token
api() { code -H "Authorization: Bearer $1" "$BASE_URL/api/runs/$RID"; }
newtok() { "$ASKQL" user token "$@" 2>"$T/tok.err" | tail -1; }
chpw() { code -b "$1" --data-urlencode "csrf=$2" --data-urlencode "current=$3" --data-urlencode "new=$4" \
	--data-urlencode "again=$4" "$BASE_URL/account/password"; }
admin_post() { code -b "$T/admin" --data-urlencode "csrf=$A" "$@" "$BASE_URL/admin/users"; }
audits() { q -c "SELECT count(*) FROM askql.audit WHERE action = '$1' AND detail->>'id' = '$2'"; }
q -c "DELETE FROM askql.signin_throttle" >/dev/null

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
S=$RANDOM$RANDOM
U=tok$S V=vot$S
for u in $U $V; do
	admin_post --data-urlencode action=add --data-urlencode "name=$u" --data-urlencode role=analyst \
		--data-urlencode "password=pw-$u-secret" >/dev/null
done
UID_=$(q -c "SELECT id FROM askql.users WHERE name = '$U'")
VID=$(q -c "SELECT id FROM askql.users WHERE name = '$V'")
check "analysts $U and $V created" "[ -n '$UID_' ] && [ -n '$VID' ]"
RID=$(q -c "INSERT INTO askql.runs(user_id, question, status, sql) VALUES ($UID_, 'tokens 94', 'ok', 'SELECT 1') RETURNING id")

# ---- the CLI: a label, a cap, several tokens at once ----
T1=$(newtok "$U" --label "notebook <b>&\"x\"")
T2=$(newtok "$U" --label ci)
check "askql user token prints a 64-character token, twice (two live tokens)" "[ \${#T1} = 64 ] && [ \${#T2} = 64 ] && [ '$T1' != '$T2' ]"
check "both open the API (200, 200)" "[ \$(api '$T1') = 200 ] && [ \$(api '$T2') = 200 ]"
check "only hashes are stored" "[ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE hash IN ('$T1', '$T2')\") = 0 ] && [ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE user_id = $UID_\") = 2 ]"
check "using a token records when (last_used_at)" "[ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE user_id = $UID_ AND last_used_at IS NOT NULL\") = 2 ]"
long=$(printf 'x%.0s' $(seq 65))
r=$(newtok "$U" --label "$long"); e=$(cat "$T/tok.err")
check "a label of 65 characters is refused ($e)" "[ -z '$r' ] && [ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE user_id = $UID_\") = 2 ]"
r=$(newtok "$U" --label "$(printf 'a\tb')")
check "a label with a control character is refused" "[ -z '$r' ]"
r=$(newtok "$(printf 'x%.0s' $(seq 10))nobody$S")
check "a token for no such user is refused ($(cat "$T/tok.err"))" "[ -z '$r' ] && grep -q 'no such user' '$T/tok.err'"
for i in $(seq 19); do newtok "$V" >/dev/null; done
r=$(newtok "$V")
r2=$(newtok "$V")
check "the 20th token of a user is issued, the 21st refused ($(cat "$T/tok.err"))" \
	"[ \${#r} = 64 ] && [ -z '$r2' ] && [ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE user_id = $VID\") = 20 ]"
"$ASKQL" user tokens "$U" >"$T/list"
check "askql user tokens lists the user's two tokens with labels" "[ \$(wc -l <'$T/list') = 2 ] && grep -q 'ci$' '$T/list'"
out=$("$ASKQL" user token-revoke "$V" all)
check "askql user token-revoke NAME all ends all 20 ($out), audited with via=cli" \
	"[ '$out' = '20 token(s) revoked' ] && [ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE user_id = $VID\") = 0 ] && [ \$(q -c \"SELECT count(*) FROM askql.audit WHERE action = 'user.tokens_revoke' AND detail->>'via' = 'cli' AND detail->>'id' = '$VID'\") = 1 ]"
"$ASKQL" user token-revoke "$V" 0 >/dev/null 2>&1; rc0=$?
"$ASKQL" user token-revoke "$V" 12x >/dev/null 2>&1; rc1=$?
check "token-revoke refuses an id that is not a positive number (exit $rc0, $rc1)" "[ $rc0 = 2 ] && [ $rc1 = 2 ]"

# ---- Admin -> Users lists the tokens (escaped) and revokes them ----
curl -s -b "$T/admin" "$BASE_URL/admin/users" >"$T/users.html"
T1ID=$(q -c "SELECT id FROM askql.api_tokens WHERE user_id = $UID_ ORDER BY id LIMIT 1")
T2ID=$(q -c "SELECT id FROM askql.api_tokens WHERE user_id = $UID_ ORDER BY id DESC LIMIT 1")
check "the users page lists both of $U's tokens" \
	"grep -q 'data-token=\"$T1ID\" data-token-user=\"$U\"' '$T/users.html' && grep -q 'data-token=\"$T2ID\" data-token-user=\"$U\"' '$T/users.html'"
check "the label is escaped (notebook &lt;b&gt;&amp;&quot;x&quot;), never raw" \
	"grep -q 'notebook &lt;b&gt;&amp;&quot;x&quot;' '$T/users.html' && ! grep -q 'notebook <b>' '$T/users.html'"
check "the page never shows a token or its hash" \
	"! grep -q '$T1' '$T/users.html' && ! grep -q \"\$(q -c \"SELECT hash FROM askql.api_tokens WHERE id = $T1ID\")\" '$T/users.html'"
check "each token has a revoke form with the CSRF token, and $U a 'revoke all'" \
	"grep -q 'name=\"action\" value=\"token_revoke\"><input type=\"hidden\" name=\"id\" value=\"$UID_\"><input type=\"hidden\" name=\"token\" value=\"$T1ID\"' '$T/users.html' && grep -q 'value=\"tokens_revoke\"><input type=\"hidden\" name=\"id\" value=\"$UID_\"' '$T/users.html' && grep -q 'name=\"csrf\" value=\"$A\"' '$T/users.html'"
check "the users table counts them (2)" "grep -A6 'data-user=\"$U\"' '$T/users.html' | grep -q 'class=\"num tokens\"[^>]*>2<'"
c=$(code -b "$T/admin" --data-urlencode action=token_revoke --data-urlencode "id=$UID_" --data-urlencode "token=$T1ID" "$BASE_URL/admin/users")
check "revoking without the CSRF token is 403 ($c)" "[ $c = 403 ] && [ \$(api '$T1') = 200 ]"
c=$(code -b "$T/admin" --data-urlencode "csrf=${A%?}x" --data-urlencode action=token_revoke --data-urlencode "id=$UID_" \
	--data-urlencode "token=$T1ID" "$BASE_URL/admin/users")
check "revoking with a wrong CSRF token is 403 ($c)" "[ $c = 403 ] && [ \$(api '$T1') = 200 ]"
VC=$(signin "$T/vic" "$V" "pw-$V-secret")
c=$(code -b "$T/vic" --data-urlencode "csrf=$VC" --data-urlencode action=token_revoke --data-urlencode "id=$UID_" \
	--data-urlencode "token=$T1ID" "$BASE_URL/admin/users")
check "an analyst cannot revoke ($c)" "[ $c = 403 ] && [ \$(api '$T1') = 200 ]"
c=$(code -H "Authorization: Bearer $T1" --data-urlencode action=tokens_revoke --data-urlencode "id=$UID_" "$BASE_URL/admin/users")
check "a bearer token cannot reach the admin form ($c)" "[ $c = 401 ] && [ \$(api '$T1') = 200 ]"
c=$(admin_post --data-urlencode action=token_revoke --data-urlencode "id=$UID_")
check "token_revoke without a token number is 400 ($c), nothing revoked" "[ $c = 400 ] && [ \$(api '$T1') = 200 ] && [ \$(api '$T2') = 200 ]"
c=$(admin_post --data-urlencode action=tokens_revoke --data-urlencode "id=$UID_" --data-urlencode "token=$T1ID")
check "tokens_revoke with a token number is 400 ($c): 'all' is asked for by name only" "[ $c = 400 ] && [ \$(api '$T2') = 200 ]"
c=$(admin_post --data-urlencode action=token_revoke --data-urlencode "id=$VID" --data-urlencode "token=$T1ID")
check "a token named under another user is not revoked ($c)" "[ $c = 303 ] && [ \$(api '$T1') = 200 ]"
c=$(admin_post --data-urlencode action=token_revoke --data-urlencode "id=$UID_" --data-urlencode "token=1x")
check "a token number that is no number is 400 ($c)" "[ $c = 400 ]"
s0=$(audits user.token_revoke "$UID_")
c=$(curl -s -D "$T/h" -o /dev/null -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=token_revoke \
	--data-urlencode "id=$UID_" --data-urlencode "token=$T1ID" "$BASE_URL/admin/users")
loc=$(grep -i '^location:' "$T/h" | tr -d '\r' | sed 's/^[^:]*: //')
check "the admin revokes one token (303 to $loc)" "[ $c = 303 ] && [ '$loc' = '/admin/users?notice=token&id=$UID_' ]"
check "that token is 401 now, the other still 200" "[ \$(api '$T1') = 401 ] && [ \$(api '$T2') = 200 ]"
check "the revocation is audited once, with the token's id and label, no hash" \
	"[ \$(audits user.token_revoke $UID_) = \$((s0 + 1)) ] && [ \$(q -c \"SELECT count(*) FROM askql.audit WHERE action = 'user.token_revoke' AND detail->'tokens'->0->>'id' = '$T1ID' AND detail->'tokens'->0->>'label' LIKE 'notebook%' AND user_id = (SELECT id FROM askql.users WHERE name = '$ADMIN_USER')\") = 1 ] && [ \$(q -c \"SELECT count(*) FROM askql.audit WHERE detail::text ~ '[0-9a-f]{64}'\") = 0 ]"
curl -s -b "$T/admin" "$BASE_URL$loc" >"$T/users2.html"
check "the page says so and no longer lists it" "grep -q 'id=\"users-notice\"' '$T/users2.html' && ! grep -q 'data-token=\"$T1ID\"' '$T/users2.html'"
c=$(admin_post --data-urlencode action=token_revoke --data-urlencode "id=$UID_" --data-urlencode "token=$T1ID")
check "revoking it again changes nothing and audits nothing ($c)" "[ $c = 303 ] && [ \$(audits user.token_revoke $UID_) = \$((s0 + 1)) ]"
T3=$(newtok "$U")
c=$(admin_post --data-urlencode action=tokens_revoke --data-urlencode "id=$UID_")
check "revoke all: both remaining tokens 401 ($c), audited" \
	"[ $c = 303 ] && [ \$(api '$T2') = 401 ] && [ \$(api '$T3') = 401 ] && [ \$(audits user.tokens_revoke $UID_) -ge 1 ]"

# ---- the user's own password change ends their tokens ----
T4=$(newtok "$U")
check "a new token works (200)" "[ \$(api '$T4') = 200 ]"
UC=$(signin "$T/u" "$U" "pw-$U-secret")
c=$(chpw "$T/u" "$UC" "pw-$U-secret" "pw2-$U-secret")
check "$U changes their password ($c): the token is 401" "[ $c = 303 ] && [ \$(api '$T4') = 401 ]"
check "and the session that changed it goes on (200)" "[ \$(code -b '$T/u' '$BASE_URL/history') = 200 ]"

# ---- an admin's reset ends them, and the must-change gate holds for the API ----
T5=$(newtok "$U")
check "another token works (200)" "[ \$(api '$T5') = 200 ]"
c=$(admin_post --data-urlencode action=reset --data-urlencode "id=$UID_")
check "the admin resets $U's password ($c): the token is 401" "[ $c = 200 ] && [ \$(api '$T5') = 401 ]"
T6=$(newtok "$U")
curl -s -D "$T/h6" -o "$T/gate.json" -H "Authorization: Bearer $T6" "$BASE_URL/api/runs/$RID"
c=$(head -1 "$T/h6" | awk '{print $2}')
check "a token issued while the password must be changed opens nothing: 403 ($c)" "[ '$c' = 403 ]"
check "the answer is JSON that says why (status 403, Forbidden, the message)" \
	"python3 -c 'import json; d=json.load(open(\"$T/gate.json\")); assert d[\"status\"] == 403 and d[\"error\"] == \"Forbidden\" and (\"password\" in d[\"message\"] or \"비밀번호\" in d[\"message\"])'" "$(cat "$T/gate.json")"
c=$(code -H "Authorization: Bearer $T6" -H 'Content-Type: application/json' --data '{"question":"how many cases"}' "$BASE_URL/api/runs")
check "POST /api/runs with it is 403 too ($c), no run started" \
	"[ $c = 403 ] && [ \$(q -c \"SELECT count(*) FROM askql.runs WHERE user_id = $UID_\") = 1 ]"
c=$(code -H "Authorization: Bearer $T6" "$BASE_URL/api/runs/$RID/steps")
check "GET /api/runs/N/steps with it is 403 ($c)" "[ $c = 403 ]"
q -c "UPDATE askql.users SET must_change_password = false WHERE id = $UID_" >/dev/null
check "once the flag is cleared the same token opens the API (200)" "[ \$(api '$T6') = 200 ]"

# ---- deactivation ends them; enabling again does not bring them back ----
c=$(admin_post --data-urlencode action=disable --data-urlencode "id=$UID_")
check "the admin disables $U ($c): the token is 401" "[ $c = 303 ] && [ \$(api '$T6') = 401 ]"
check "and it is gone, not only held back" "[ \$(q -c \"SELECT count(*) FROM askql.api_tokens WHERE user_id = $UID_\") = 0 ]"
r=$(newtok "$U")
check "no token is issued to a disabled user ($(cat "$T/tok.err"))" "[ -z '$r' ] && grep -q disabled '$T/tok.err'"
admin_post --data-urlencode action=enable --data-urlencode "id=$UID_" >/dev/null
check "enabled again: the old token stays 401" "[ \$(api '$T6') = 401 ]"

# ---- any change of the hash, whatever makes it (here askql user add over an existing user) ----
T7=$(newtok "$U")
printf 'pw3-%s-secret\n' "$U" >"$T/pw"
"$ASKQL" user add "$U" analyst --password-file "$T/pw" >/dev/null 2>&1
check "askql user add over $U (a new password) ends the token too" "[ \$(api '$T7') = 401 ]"
T8=$(newtok "$U")
q -c "UPDATE askql.users SET lang = 'en', role = 'analyst' WHERE id = $UID_" >/dev/null
check "an update that leaves the password and state alone keeps it (200)" "[ \$(api '$T8') = 200 ]"
curl -s -b "$T/admin" "$BASE_URL/admin/users" >"$T/users3.html"
check "the list shows when a token was last used" "grep -A1 'data-token-user=\"$U\"' '$T/users3.html' | grep -qE 'class=\"last-used\"[^>]*>[0-9]{4}-'"

echo "1..$n"
