#!/usr/bin/env bash
# 96_planted.sh: planted answers (issue 14): SQL an analyst edited in step mode never becomes the shared
# cache or a few-shot example; an analyst's "verified" mark is a proposal an admin accepts or rejects on
# /admin/verified (audited); the cache key separates role scopes, providers and models. Web, API and CLI.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}" "${FAKE_LLM:?}"
T=$(mktemp -d)
FAKE_PID=
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
# a private copy: a rebuild of bin/askql in the shared tree must not break a run midway
cp "$ASKQL" "$T/askql" && ASKQL=$T/askql
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -m 60 -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
jget() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "{}"); v=d.get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else ("" if v is None else v))' "$1"; }
signin() { # signin JAR NAME PASS -> the session's CSRF token
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
# web_ask JAR CSRF MODE QUESTION -> the new run's id (POST /runs answers 303 to /runs/N)
web_ask() {
	local loc
	loc=$(curl -s -o /dev/null -m 120 -w '%{redirect_url}' -b "$1" --data-urlencode "csrf=$2" \
		--data-urlencode "mode=$3" --data-urlencode "question=$4" "$BASE_URL/runs")
	echo "${loc##*/runs/}"
}
# web_step JAR CSRF RUN ACTION [SQL] -> the HTTP status of the decision
web_step() {
	code -m 120 -b "$1" --data-urlencode "csrf=$2" --data-urlencode "action=$4" ${5:+--data-urlencode "sql=$5"} \
		"$BASE_URL/runs/$3/step"
}
api_ask() { # api_ask TOKEN QUESTION [MODE] -> the JSON answer
	curl -s -m 120 -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
		--data "$(python3 -c 'import json,sys; print(json.dumps({"question": sys.argv[1], "mode": sys.argv[2]}))' "$2" "${3:-auto}")" \
		"$BASE_URL/api/runs"
}
run_col() { q -c "SELECT $2 FROM askql.runs WHERE id = ${1:-0}"; }
# shows RUN TEXT: the run's final SQL or its preview rows contain TEXT
shows() { [[ "$(run_col "$1" "coalesce(sql, '') || ' ' || coalesce(preview::text, '')")" == *"$2"* ]]; }
steps_of() { q -c "SELECT string_agg(name || ':' || status, ' ' ORDER BY seq) FROM askql.steps WHERE run_id = ${1:-0}"; }
flush() { q -c "DELETE FROM askql.query_cache" >/dev/null; }

# ---- two analysts and the admin, each signed in; API tokens for the analysts ----
A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
sfx=$(tr '0-9' 'a-j' <<<"$RANDOM$RANDOM")   # letters: a number of a question would have to be in its SQL
for u in ana$sfx ben$sfx; do
	code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$u" \
		--data-urlencode role=analyst --data-urlencode "password=pw-$u-secret" "$BASE_URL/admin/users" >/dev/null
done
AN=$(signin "$T/ana" "ana$sfx" "pw-ana$sfx-secret")
BN=$(signin "$T/ben" "ben$sfx" "pw-ben$sfx-secret")
ATOK=$("$ASKQL" user token "ana$sfx" 2>/dev/null | tail -1)
BTOK=$("$ASKQL" user token "ben$sfx" 2>/dev/null | tail -1)
check "admin and two analysts (ana$sfx, ben$sfx) signed in, both with API tokens" \
	"[ -n '$A' ] && [ -n '$AN' ] && [ -n '$BN' ] && [ -n '$ATOK' ] && [ -n '$BTOK' ]"

PLANT="SELECT 'F' AS sex, 999 AS avg UNION ALL SELECT 'M', 1"

# ---- 1. web: analyst A edits the SQL in step mode; analyst B's plain ask of the same question ----
flush
Q1="average age by sex"
R=$(web_ask "$T/ana" "$AN" step "$Q1")
c1=$(web_step "$T/ana" "$AN" "$R" approve)
c2=$(web_step "$T/ana" "$AN" "$R" edit "$PLANT")
check "web: A's step-mode run (#$R) approved, then its SQL edited to the planted rows: ok, the edit stays in A's run" \
	"[ $c1 = 303 ] && [ $c2 = 303 ] && [ \"\$(run_col $R status)\" = ok ] && shows $R 999" "$c1 $c2 $(run_col $R status) $(steps_of $R)"
check "web: the run records that an analyst edited it" "[ \"\$(run_col $R edited)\" = t ]" "$(run_col $R edited 2>&1)"
check "web: the edited SQL is not in the shared query cache" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE sql LIKE '%999%'\")\" = 0 ]"
RB=$(web_ask "$T/ben" "$BN" auto "$Q1")
check "web: B's plain ask of '$Q1' (#$RB) answers from the database, not A's planted rows" \
	"[ \"\$(run_col $RB status)\" = ok ] && ! shows $RB 999 && [[ \"\$(steps_of $RB)\" != *cache:* ]]" \
	"$(run_col $RB sql) | $(steps_of $RB)"
check "web: after B's unedited run the cache holds the generated SQL for the question" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE run_id = $RB AND sql NOT LIKE '%999%'\")\" = 1 ]"
RB2=$(web_ask "$T/ben" "$BN" auto "$Q1")
check "web: unedited answers are still shared: B's second ask is a cache hit with the generated SQL" \
	"[[ \"\$(steps_of $RB2)\" == *cache:ok* ]] && ! shows $RB2 999" "$(steps_of $RB2)"

# ---- 2. the same through POST /api/runs ----
flush
Q2="average age by department"
J=$(api_ask "$ATOK" "$Q2" step)
R=$(echo "$J" | jget run_id)
c=$(web_step "$T/ana" "$AN" "$R" edit "SELECT 'planted-api' AS department, 999 AS avg")
check "API: A's step-mode run from POST /api/runs (#$R) paused, then edited: ok" \
	"[ \"\$(echo '$J' | jget status)\" = paused ] && [ $c = 303 ] && [ \"\$(run_col $R status)\" = ok ]" "$J $c"
J=$(api_ask "$BTOK" "$Q2")
RB=$(echo "$J" | jget run_id)
check "API: B's POST /api/runs of '$Q2' (#$RB) does not return A's planted rows" \
	"[ \"\$(echo \"\$J\" | jget status)\" = ok ] && [[ \"\$J\" != *planted-api* ]] && [[ \"\$J\" != *999* ]]" "$J"

# ---- 3. the CLI: askql ask --step, approve, edit; then a plain askql ask ----
flush
Q3="average age"
OUT=$("$ASKQL" ask --json --step "$Q3" 2>>"$T/stderr"); R=$(echo "$OUT" | jget run_id)
"$ASKQL" ask --json --resume "$R" --decision '{"decision":"approve"}' >/dev/null 2>>"$T/stderr"
OUT=$("$ASKQL" ask --json --resume "$R" --decision '{"decision":"edit","sql":"SELECT 1 AS planted"}' 2>>"$T/stderr")
check "CLI: ask --step, approve, edit to 'SELECT 1 AS planted': the run (#$R) is ok with it" \
	"[ \"\$(echo '$OUT' | jget status)\" = ok ] && [[ \"\$(echo '$OUT' | jget sql)\" == *planted* ]]" "$OUT"
OUT=$("$ASKQL" ask --json "$Q3" 2>>"$T/stderr")
check "CLI: a plain askql ask of '$Q3' does not return 'planted'" \
	"[ \"\$(echo \"\$OUT\" | jget status)\" = ok ] && [[ \"\$OUT\" != *planted* ]]" "$OUT"
OUT=$("$ASKQL" ask --json "$Q3" 2>>"$T/stderr")
check "CLI: the generated answer is cached and served to the next plain ask" \
	"[[ \"\$(steps_of $(echo "$OUT" | jget run_id))\" == *cache:ok* ]] && [[ \"\$OUT\" != *planted* ]]" "$(steps_of $(echo "$OUT" | jget run_id))"
# a plan edit and a rejection are analyst edits too
OUT=$("$ASKQL" ask --json --step "평균 나이" 2>>"$T/stderr"); R=$(echo "$OUT" | jget run_id)
"$ASKQL" ask --json --resume "$R" --decision '{"decision":"approve"}' >/dev/null 2>>"$T/stderr"
"$ASKQL" ask --json --resume "$R" --decision '{"decision":"reject","comment":"성별로"}' >/dev/null 2>>"$T/stderr"
OUT=$("$ASKQL" ask --json --resume "$R" --decision '{"decision":"approve"}' 2>>"$T/stderr")
check "CLI: a run steered by a rejection with a comment (평균 나이 + 성별로) is ok but not cached under '평균 나이'" \
	"[ \"\$(echo '$OUT' | jget status)\" = ok ] && [ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE question = '평균 나이'\")\" = 0 ]" \
	"$OUT $(q -c "SELECT sql FROM askql.query_cache WHERE question = '평균 나이'")"

# ---- 4. an analyst's verified mark is a proposal: nothing shared until an admin accepts it ----
flush
Q4="number of cases by sex"
R=$(web_ask "$T/ana" "$AN" step "$Q4")
# (it groups by sex as the question asks: a verified query is held to every word too, docs/coverage.md)
web_step "$T/ana" "$AN" "$R" edit "SELECT sex, 999 AS n FROM clinical_data_table WHERE 'planted-verify' <> '' GROUP BY sex" >/dev/null
c=$(code -b "$T/ana" --data-urlencode "csrf=$AN" --data-urlencode action=verify "$BASE_URL/runs/$R/action")
check "verify: A marks the edited run #$R verified (303); it is a proposal, not verified" \
	"[ $c = 303 ] && [ \"\$(run_col $R verified)\" = f ] && [ \"\$(run_col $R verify_state)\" = proposed ]" \
	"$c verified=$(run_col $R verified) state=$(run_col $R verify_state 2>&1)"
check "verify: the proposal wrote no few-shot example" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.cat_verified WHERE sql LIKE '%planted-verify%'\")\" = 0 ]"
check "verify: the proposal wrote no cache entry" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE sql LIKE '%planted-verify%'\")\" = 0 ]"
RB=$(web_ask "$T/ben" "$BN" auto "$Q4")
check "verify: B's plain ask of '$Q4' (#$RB) is not A's proposed SQL" \
	"[ \"\$(run_col $RB status)\" = ok ] && ! shows $RB planted-verify" "$(run_col $RB sql)"
curl -s -b "$T/ben" "$BASE_URL/" >"$T/ask_b.html"
curl -s -b "$T/admin" "$BASE_URL/admin/verified" >"$T/verified.html"
check "verify: the admin's verified-queries page lists the proposal with accept and reject buttons" \
	"grep -q 'planted-verify' '$T/verified.html' && grep -q 'value=\"accept\"' '$T/verified.html' && grep -q 'value=\"reject\"' '$T/verified.html'"
check "verify: the page says the proposal's SQL was edited by the analyst" "grep -q 'data-edited=\"true\"' '$T/verified.html'"
c=$(code -b "$T/ana" --data-urlencode "csrf=$AN" --data-urlencode action=accept --data-urlencode "id=$R" "$BASE_URL/admin/verified")
check "verify: an analyst cannot accept a proposal (POST /admin/verified is 403)" "[ $c = 403 ]" "got $c"
c=$(code -b "$T/admin" --data-urlencode action=accept --data-urlencode "id=$R" "$BASE_URL/admin/verified")
check "verify: accepting without the CSRF token is 403" "[ $c = 403 ]" "got $c"
check "verify: still nothing shared after the refused attempts" \
	"[ \"\$(run_col $R verified)\" = f ] && [ \"\$(q -c \"SELECT count(*) FROM askql.cat_verified WHERE sql LIKE '%planted-verify%'\")\" = 0 ]"
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=accept --data-urlencode "id=$R" "$BASE_URL/admin/verified")
check "verify: the admin accepts it (303): verified, a few-shot example, a cache entry" \
	"[ $c = 303 ] && [ \"\$(run_col $R verified)\" = t ] && [ \"\$(run_col $R verify_state)\" = accepted ] \
	 && [ \"\$(q -c \"SELECT count(*) FROM askql.cat_verified WHERE sql LIKE '%planted-verify%'\")\" = 1 ] \
	 && [ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE run_id = $R\")\" = 1 ]" "$c"
check "verify: the acceptance is in the audit log with the admin and the run" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.audit a JOIN askql.users u ON u.id = a.user_id WHERE a.action = 'verified.accept' AND u.name = '$ADMIN_USER' AND (a.detail->>'run')::bigint = $R\")\" = 1 ]"
RB=$(web_ask "$T/ben" "$BN" auto "$Q4")
check "verify: once accepted, B's ask of '$Q4' (#$RB) gets the approved SQL" \
	"shows $RB planted-verify && [[ \"\$(steps_of $RB)\" == *cache:ok* ]]" "$(run_col $RB sql) $(steps_of $RB)"
# a rejected proposal writes nothing
Q5="number of cases by department"
R5=$(web_ask "$T/ana" "$AN" step "$Q5")
web_step "$T/ana" "$AN" "$R5" edit "SELECT 'planted-reject' AS department, 999 AS n" >/dev/null
code -b "$T/ana" --data-urlencode "csrf=$AN" --data-urlencode action=verify "$BASE_URL/runs/$R5/action" >/dev/null
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=reject --data-urlencode "id=$R5" "$BASE_URL/admin/verified")
check "verify: the admin rejects another proposal (#$R5, 303): not verified, no example, no cache entry" \
	"[ $c = 303 ] && [ \"\$(run_col $R5 verified)\" = f ] && [ \"\$(run_col $R5 verify_state)\" = rejected ] \
	 && [ \"\$(q -c \"SELECT count(*) FROM askql.cat_verified WHERE sql LIKE '%planted-reject%'\")\" = 0 ] \
	 && [ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE sql LIKE '%planted-reject%'\")\" = 0 ]" "$c"
check "verify: the rejection is in the audit log" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.audit WHERE action = 'verified.reject' AND (detail->>'run')::bigint = $R5\")\" = 1 ]"
RB=$(web_ask "$T/ben" "$BN" auto "$Q5")
check "verify: B's ask of '$Q5' (#$RB) is not the rejected SQL" "[ \"\$(run_col $RB status)\" = ok ] && ! shows $RB planted-reject" "$(run_col $RB sql)"
c=$(code -b "$T/ana" --data-urlencode "csrf=$AN" --data-urlencode action=verify "$BASE_URL/runs/$R5/action")
check "verify: a rejected proposal cannot be proposed again by the analyst ($c)" \
	"[ \"\$(run_col $R5 verify_state)\" = rejected ]"
# the admin withdraws an accepted query: the example and the cache entry go
c=$(code -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=withdraw --data-urlencode "id=$R" "$BASE_URL/admin/verified")
check "verify: withdrawing the accepted #$R removes its example and its cache entry (audited)" \
	"[ $c = 303 ] && [ \"\$(run_col $R verified)\" = f ] && [ \"\$(q -c \"SELECT count(*) FROM askql.cat_verified WHERE sql LIKE '%planted-verify%'\")\" = 0 ] \
	 && [ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE run_id = $R\")\" = 0 ] \
	 && [ \"\$(q -c \"SELECT count(*) FROM askql.audit WHERE action = 'verified.withdraw' AND (detail->>'run')::bigint = $R\")\" = 1 ]" "$c"

# ---- 5. the cache key has the user's role scope ----
flush
Q6="average age by sex and department"
RA=$(web_ask "$T/admin" "$A" auto "$Q6")
RB=$(web_ask "$T/ben" "$BN" auto "$Q6")
check "scope: an admin's cached answer (#$RA) is not served to an analyst (#$RB plans its own)" \
	"[ \"\$(run_col $RA status)\" = ok ] && [ \"\$(run_col $RB status)\" = ok ] && [[ \"\$(steps_of $RB)\" != *cache:* ]]" "$(steps_of $RB)"
RB=$(web_ask "$T/ana" "$AN" auto "$Q6")
check "scope: another analyst's ask hits the analysts' entry (#$RB)" "[[ \"\$(steps_of $RB)\" == *cache:ok* ]]" "$(steps_of $RB)"

# ---- 6. the cache key has the provider and the model that generated the SQL ----
flush
python3 "$FAKE_LLM" --requests "$T/req.jsonl" --port-file "$T/port" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$T/port")
script() { curl -s -XPOST --data-binary "$1" "$FAKE/__script" >/dev/null; }
requests() { curl -s "$FAKE/__requests"; }
resp() { python3 -c 'import json,sys; print(json.dumps({"text": json.dumps({"reasoning": "r", "sql": sys.argv[1]})}))' "$1"; }
export ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=sk-test-96
export ASKQL_LLM_BACKOFF_MS=10 ASKQL_LLM_BACKOFF_MAX_MS=50 ASKQL_LLM_RETRIES=1 ASKQL_LLM_TIMEOUT_MS=5000
Q7="potassium above 6.5 per case, model test $sfx"
S1="SELECT caseid, result FROM lab_data_table WHERE name = 'k' AND result > 6.5 ORDER BY caseid LIMIT 3"
S2="SELECT caseid, result FROM lab_data_table WHERE name = 'k' AND result > 6.5 ORDER BY caseid LIMIT 2"
# model-one plans the SQL (step mode, paused before it runs); the run is approved by a process
# configured with model-two: the SQL is still model-one's
script "[$(resp "$S1")]"
OUT=$(ASKQL_LLM_MODEL=model-one "$ASKQL" ask --json --step "$Q7" 2>>"$T/stderr"); R=$(echo "$OUT" | jget run_id)
ASKQL_LLM_MODEL=model-one "$ASKQL" ask --json --resume "$R" --decision '{"decision":"approve"}' >/dev/null 2>>"$T/stderr"
OUT=$(ASKQL_LLM_MODEL=model-two "$ASKQL" ask --json --resume "$R" --decision '{"decision":"approve"}' 2>>"$T/stderr")
check "model: model-one's SQL, approved from a model-two process, ran (#$R)" \
	"[ \"\$(echo '$OUT' | jget status)\" = ok ] && [[ \"\$(echo '$OUT' | jget sql)\" == *'LIMIT 3'* ]] && [[ \"\$(requests)\" == *model-one* ]]" "$OUT"
script "[$(resp "$S2")]"
OUT=$(ASKQL_LLM_MODEL=model-two "$ASKQL" ask --json "$Q7" 2>>"$T/stderr"); R=$(echo "$OUT" | jget run_id)
check "model: a model-two ask is not served model-one's SQL: model-two plans it" \
	"[ \"\$(echo \"\$OUT\" | jget status)\" = ok ] && [[ \"\$(echo \"\$OUT\" | jget sql)\" == *'LIMIT 2'* ]] && [[ \"\$(requests)\" == *model-two* ]]" "$OUT $(steps_of $R)"
script "[]"
OUT=$(ASKQL_LLM_MODEL=model-one "$ASKQL" ask --json "$Q7" 2>>"$T/stderr"); R=$(echo "$OUT" | jget run_id)
check "model: a model-one ask hits model-one's entry (no LLM call)" \
	"[[ \"\$(steps_of $R)\" == *cache:ok* ]] && [[ \"\$(echo \"\$OUT\" | jget sql)\" == *'LIMIT 3'* ]] && [ \"\$(requests)\" = '[]' ]" "$OUT $(steps_of $R)"
OUT=$("$ASKQL" ask --json --provider builtin "$Q7" 2>>"$T/stderr"); R=$(echo "$OUT" | jget run_id)
check "provider: the builtin provider is not served the openai entries" "[[ \"\$(steps_of $R)\" != *cache:* ]]" "$(steps_of $R)"
check "the cache rows name their scope, provider and model" \
	"[ \"\$(q -c \"SELECT count(*) FROM askql.query_cache WHERE question = lower('$Q7') AND scope = 'cli' AND provider = 'openai' AND model IN ('model-one', 'model-two')\")\" = 2 ]" \
	"$(q -c "SELECT scope, provider, model FROM askql.query_cache" 2>&1)"
unset ASKQL_LLM_PROVIDER ASKQL_LLM_BASE_URL ASKQL_LLM_API_KEY
