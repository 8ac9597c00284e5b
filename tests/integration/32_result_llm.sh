#!/usr/bin/env bash
# 32_result_llm.sh: the run page's answer sentence from the model (conf answer_llm_rows, issue 15): asked
# only for aggregate results within the row limit, sent only those rows, stored as {"ko","en"}; a row-level
# result, a bad reply or answer_llm_rows 0 leave the offline sentence (app/agent/packager.c).
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
APPDB=${APPDB:-askql}
WORK=$(mktemp -d /tmp/askql-32.XXXXXX)
FAKE_PID=
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
cp "$ASKQL" "$WORK/askql" && ASKQL=$WORK/askql

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else notok "$1" "${3:-}"; fi; }
sq() { psql -X -q -At -d "$APPDB" -c "$1" 2>/dev/null; }
jget() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "{}"); v=d.get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else ("" if v is None else v))' "$1"; }

python3 "$FAKE_LLM" --requests "$WORK/req.jsonl" --port-file "$WORK/port" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$WORK/port")
export ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=sk-test-32
export ASKQL_LLM_BACKOFF_MS=10 ASKQL_LLM_BACKOFF_MAX_MS=50 ASKQL_LLM_RETRIES=1 ASKQL_LLM_TIMEOUT_MS=5000

script() { curl -s -XPOST --data-binary "$1" "$FAKE/__script" >/dev/null; }
requests() { curl -s "$FAKE/__requests"; }
nreq() { requests | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
# the user message of request number $1 (0-based)
umsg() { requests | python3 -c 'import json,sys; r=json.load(sys.stdin); m=r[int(sys.argv[1])]["body"]["messages"]; print([x["content"] for x in m if x["role"]=="user"][-1])' "$1"; }
ask() { OUT=$("$ASKQL" ask --json --no-cache --mode extract "$@" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id); }
steps() { sq "SELECT string_agg(name || ':' || status, ' ' ORDER BY seq) FROM askql.steps WHERE run_id = ${RUN:-0}"; }
answer() { sq "SELECT answer FROM askql.runs WHERE id = ${RUN:-0}"; }
jsql() { python3 -c 'import json,sys; print(json.dumps({"text": json.dumps({"reasoning":"r","sql":sys.argv[1]})}))' "$1"; }
text() { python3 -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$1"; }

AGG="SELECT department, avg(age) AS avg_age FROM clinical_data_table GROUP BY department ORDER BY department"
ROWS="SELECT caseid, age FROM clinical_data_table ORDER BY caseid LIMIT 5"
SAID='{"ko": "진료과별 평균 나이는 비뇨기과가 59.3세로 가장 높습니다.", "en": "Urology has the highest average age, 59.3 years."}'

# 1. an aggregate result within the limit: the model words it, from the rows alone
export ASKQL_ANSWER_LLM_ROWS=20
script "[$(jsql "$AGG"), $(text "$SAID")]"
ask "average age by department"
check "aggregate: the run succeeded" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "aggregate: an answer step after the packager" '[[ "$(steps)" == *"packager:ok answer:ok"* ]]' "$(steps)"
check "aggregate: the stored answer is the model's sentence in both languages" \
	'[ "$(answer | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"by\"], d[\"ko\"][:10], d[\"en\"][:7])")" = "llm 진료과별 평균 나이 Urology" ]' "$(answer)"
umsg $(( $(nreq) - 1 )) >"$WORK/sent"
check "aggregate: the model was sent the question and the aggregate rows" \
	'grep -q "Question: average age by department" "$WORK/sent" && grep -q "Urology" "$WORK/sent"' "$(head -c 300 "$WORK/sent")"
check "aggregate: nothing but the result's rows (no other table's data, no row-level values)" \
	'! grep -qiE "caseid|subjectid|lab_data" "$WORK/sent"' "$(head -c 300 "$WORK/sent")"

# 2. a row-level result: never sent, offline sentence
script "[$(jsql "$ROWS")]"
ask "ages of the first five cases"
check "row-level: the run succeeded" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "row-level: one request only (the planner), no answer step" '[ "$(nreq)" = 1 ] && [[ "$(steps)" != *answer* ]]' "$(nreq) $(steps)"
check "row-level: the stored answer is the packager's statistics" '[[ "$(answer)" == *"succeeded on attempt"* ]]' "$(answer)"

# 3. a reply that is not the JSON asked for: degraded step, offline sentence
script "[$(jsql "$AGG"), $(text "Urology, I think.")]"
ask "average age by department, again"
check "bad reply: the run still succeeds" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "bad reply: the answer step is degraded" '[[ "$(steps)" == *"answer:degraded"* ]]' "$(steps)"
check "bad reply: the stored answer is the statistics" '[[ "$(answer)" == *"succeeded on attempt"* ]]' "$(answer)"

# 4. answer_llm_rows 0 (the default): the model is not asked
export ASKQL_ANSWER_LLM_ROWS=0
script "[$(jsql "$AGG")]"
ask "average age by department, offline words"
check "answer_llm_rows 0: no answer request" '[ "$(nreq)" = 1 ] && [[ "$(steps)" != *answer* ]]' "$(nreq) $(steps)"

# 5. more aggregate rows than the limit: not sent
export ASKQL_ANSWER_LLM_ROWS=3
script "[$(jsql "$AGG")]"
ask "average age by department, over the limit"
check "over the row limit: no answer request" '[ "$(nreq)" = 1 ] && [[ "$(steps)" != *answer* ]]' "$(nreq) $(steps)"

echo "1..$n"
