#!/usr/bin/env bash
# 97_fair_use.sh: per-user limits on concurrent runs and downloads (conf user_max_runs,
# user_max_downloads): one user over the limit gets 429 with Retry-After on the web and the API,
# another user still starts at once, and slots held by a connection that dies come free.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
T=$(mktemp -d)
HOLDER=fairuse97_$$
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
# the session standing in for A's busy workers ends with the test, whatever happens
cleanup() { q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$HOLDER'" >/dev/null 2>&1; rm -rf "$T"; }
trap cleanup EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }

# signin JAR NAME PASS: a session in cookie jar JAR; prints the session's CSRF token
signin() {
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}

# The slots are session advisory locks (app/store/slot.c): class 'asu\0' + slot for runs,
# + 0x80 + slot for downloads, and the user id.  Defaults: 4 runs, 2 downloads.
RUN_CLASS=$((0x61737500)) DL_CLASS=$((0x61737580))
MAX_RUNS=${ASKQL_USER_MAX_RUNS:-4} MAX_DL=${ASKQL_USER_MAX_DOWNLOADS:-2}

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
suffix=$RANDOM$RANDOM
ANN=ann$suffix BOB=bob$suffix
for u in $ANN $BOB; do
	c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$u" \
		--data-urlencode role=analyst --data-urlencode "password=pw-$u-secret" "$BASE_URL/admin/users")
	check "admin creates analyst $u (303)" "[ $c = 303 ]" "got $c"
done
AN=$(signin "$T/ann" "$ANN" "pw-$ANN-secret")
BO=$(signin "$T/bob" "$BOB" "pw-$BOB-secret")
check "both analysts signed in" "[ -n '$AN' ] && [ -n '$BO' ]"
# English first (the default language may be Korean); the Korean text is checked further down
curl -s -o /dev/null -b "$T/ann" -c "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode lang=en "$BASE_URL/lang"
AID=$(q -c "SELECT id FROM askql.users WHERE name = '$ANN'")
BID=$(q -c "SELECT id FROM askql.users WHERE name = '$BOB'")
TOK=$("$ASKQL" user token "$ANN" 2>/dev/null | tail -1)
check "an API token for $ANN" "[ -n '$TOK' ]"
# a finished run each, to download
for u in $ANN $BOB; do
	q -c "INSERT INTO askql.runs(user_id, target, kind, provider, question, status, sql)
		SELECT id, 'demo', 'extract', 'builtin', 'fair use 97', 'ok', 'SELECT caseid FROM clinical_data_table LIMIT 3'
		FROM askql.users WHERE name = '$u'" >/dev/null
done
ARUN=$(q -c "SELECT max(id) FROM askql.runs WHERE user_id = $AID")
BRUN=$(q -c "SELECT max(id) FROM askql.runs WHERE user_id = $BID")

c=$(code -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode "question=how many patients" "$BASE_URL/runs")
check "under the limit $ANN starts a run (303)" "[ $c = 303 ]" "got $c"
c=$(code -b "$T/ann" "$BASE_URL/runs/$ARUN/download?format=csv")
check "under the limit $ANN downloads (200)" "[ $c = 200 ]" "got $c"

# ---- A's slots all busy: a session holds them the way A's runs in other workers would ----
holds="SELECT pg_advisory_lock($RUN_CLASS + s, $AID) FROM generate_series(0, $MAX_RUNS - 1) s;
SELECT pg_advisory_lock($DL_CLASS + s, $AID) FROM generate_series(0, $MAX_DL - 1) s;
SELECT pg_sleep(120);"
PGAPPNAME=$HOLDER psql -X -q -d askql -c "$holds" >/dev/null 2>&1 &
held=0
for _ in $(seq 50); do
	held=$(q -c "SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		WHERE a.application_name = '$HOLDER' AND l.locktype = 'advisory' AND l.granted")
	[ "$held" = $((MAX_RUNS + MAX_DL)) ] && break
	sleep 0.1
done
check "$MAX_RUNS run and $MAX_DL download slots of $ANN held elsewhere" "[ '$held' = $((MAX_RUNS + MAX_DL)) ]" "held $held"
before=$(q -c "SELECT count(*) FROM askql.runs WHERE user_id = $AID")

curl -s -D "$T/h1" -o "$T/b1" -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode "question=how many patients 97" "$BASE_URL/runs"
check "over the limit POST /runs is 429" "head -1 '$T/h1' | grep -q ' 429'" "$(head -1 "$T/h1")"
check "the 429 has Retry-After" "grep -qiE '^retry-after: [0-9]+' '$T/h1'"
check "the 429 page says why, in English" "grep -q 'runs working, the most one user may have at once' '$T/b1'"
check "the 429 page keeps the question" "grep -q 'how many patients 97' '$T/b1'"
c=$(code -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode "question=how many patients" "$BASE_URL/runs/0/stream")
check "over the limit POST /runs/0/stream is 429" "[ $c = 429 ]" "got $c"
c=$(code -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=rerun "$BASE_URL/runs/$ARUN/action")
check "over the limit a re-run is 429" "[ $c = 429 ]" "got $c"
curl -s -o /dev/null -b "$T/ann" -c "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode lang=ko "$BASE_URL/lang"
curl -s -D "$T/h2" -o "$T/b2" -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode "question=환자 수" "$BASE_URL/runs"
check "in Korean: 429 with the reason in Korean" "head -1 '$T/h2' | grep -q ' 429' && grep -q '한 사용자가 동시에 실행할 수 있는 최대치' '$T/b2'"
curl -s -o /dev/null -b "$T/ann" -c "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode lang=en "$BASE_URL/lang"
curl -s -D "$T/h3" -o "$T/b3" -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' \
	--data '{"question":"how many patients"}' "$BASE_URL/api/runs"
check "API: over the limit POST /api/runs is 429 with Retry-After" \
	"head -1 '$T/h3' | grep -q ' 429' && grep -qiE '^retry-after: [0-9]+' '$T/h3'" "$(head -1 "$T/h3")"
check "API: the 429 is JSON with a message" "grep -q '\"message\":\"You already have $MAX_RUNS runs' '$T/b3'" "$(head -c 300 "$T/b3")"
after=$(q -c "SELECT count(*) FROM askql.runs WHERE user_id = $AID")
check "no run was created by the refused requests" "[ '$before' = '$after' ]" "$before -> $after"

curl -s -D "$T/h4" -o "$T/b4" -b "$T/ann" "$BASE_URL/runs/$ARUN/download?format=csv"
check "over the limit a download is 429 with Retry-After" \
	"head -1 '$T/h4' | grep -q ' 429' && grep -qiE '^retry-after: [0-9]+' '$T/h4' && grep -q 'downloads in progress' '$T/b4'" "$(head -1 "$T/h4")"
c=$(code -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$ARUN/download?format=json")
check "API: over the limit a download is 429" "[ $c = 429 ]" "got $c"

# the other user is not held up by A
t0=$(date +%s%N)
c=$(code -m 20 -b "$T/bob" --data-urlencode "csrf=$BO" --data-urlencode "question=how many patients" "$BASE_URL/runs")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "meanwhile $BOB starts a run at once (303 in $ms ms)" "[ $c = 303 ] && [ $ms -lt 10000 ]" "got $c in $ms ms"
c=$(code -m 20 -b "$T/bob" "$BASE_URL/runs/$BRUN/download?format=csv")
check "meanwhile $BOB downloads (200)" "[ $c = 200 ]" "got $c"

# ---- A's work ends (here: its connection dies, as with a killed worker): the slots come free ----
q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '$HOLDER'" >/dev/null
wait 2>/dev/null
left=1
for _ in $(seq 50); do
	left=$(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $AID AND classid >= $RUN_CLASS AND classid < $RUN_CLASS + 256")
	[ "$left" = 0 ] && break
	sleep 0.1
done
check "the dead connection's slots are released" "[ '$left' = 0 ]" "$left left"
c=$(code -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode "question=how many patients" "$BASE_URL/runs")
check "afterwards $ANN starts a run again (303)" "[ $c = 303 ]" "got $c"
c=$(code -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' --data '{"question":"how many patients"}' "$BASE_URL/api/runs")
check "afterwards the API starts a run again (201)" "[ $c = 201 ]" "got $c"
c=$(code -b "$T/ann" "$BASE_URL/runs/$ARUN/download?format=csv")
check "afterwards $ANN downloads again (200)" "[ $c = 200 ]" "got $c"

# ---- a finished request gives its slot back: more sequential runs than slots all start ----
fails=0
for i in $(seq $((MAX_RUNS + 2))); do
	c=$(code -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode "question=how many patients $i" "$BASE_URL/runs")
	[ "$c" = 303 ] || fails=$((fails + 1))
done
check "$((MAX_RUNS + 2)) runs one after another all start (slots are given back)" "[ $fails = 0 ]" "$fails refused"
left=$(q -c "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $AID AND classid >= $RUN_CLASS AND classid < $RUN_CLASS + 256")
check "no slot of $ANN stays held after its requests" "[ '$left' = 0 ]" "$left held"
echo "1..$n"
