#!/usr/bin/env bash
# 30_agent.sh: the agent pipeline against the scripted fake LLM; every path asserts on persisted steps.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
APPDB=${APPDB:-askql}
WORK=$(mktemp -d /tmp/askql-30.XXXXXX)
FAKE_PID=
cleanup() { [ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
# a private copy: a rebuild of bin/askql in the shared tree must not break a run midway
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
PORT=$(cat "$WORK/port")
FAKE=http://127.0.0.1:$PORT
KEY=sk-test-SECRET-7f3a9c

export ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=$KEY
export ASKQL_LLM_BACKOFF_MS=10 ASKQL_LLM_BACKOFF_MAX_MS=50 ASKQL_LLM_RETRIES=2 ASKQL_LLM_TIMEOUT_MS=5000

# script FILE-CONTENT: load a new script into the fake (also clears its request log)
script() { curl -s -XPOST --data-binary "$1" "$FAKE/__script" >/dev/null; }
requests() { curl -s "$FAKE/__requests"; }
# ask ARGS...: run askql ask --json, output in $OUT, run id in $RUN
ask() { OUT=$("$ASKQL" ask --json --no-cache "$@" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id); }
steps() { sq "SELECT string_agg(name || ':' || status, ' ' ORDER BY seq) FROM askql.steps WHERE run_id = ${RUN:-0}"; }
step_field() { sq "SELECT $2 FROM askql.steps WHERE run_id = ${RUN:-0} AND name = '$1' ORDER BY seq LIMIT 1"; }
jsql() { python3 -c 'import json,sys; print(json.dumps({"reasoning":"r","sql":sys.argv[1]}))' "$1"; }
resp() { python3 -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$1"; }
call() { # call TOOL PARAM VALUE -> XML reply text
	printf '<reasoning>step</reasoning><tool_call><name>%s</name><parameters><%s><![CDATA[%s]]></%s></parameters></tool_call>' "$1" "$2" "$3" "$2"
}
GOOD="SELECT caseid, result FROM lab_data_table WHERE name = 'k' AND result > 6.5 ORDER BY caseid LIMIT 3"

# 1. extract: good answer
script "[$(resp "$(jsql "$GOOD")")]"
ask --mode extract "cases with potassium above 6.5"
check "extract good answer: status ok" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "extract good answer: inspector, planner, executor, packager persisted" \
	'[[ "$(steps)" =~ inspector:(ok|degraded)\ planner:ok\ executor:ok\ packager:ok ]]' "$(steps)"
check "extract good answer: rows are JSON numbers" '[[ "$(echo "$OUT" | jget rows)" =~ ^\[\[[0-9]+,\ ?[0-9.]+\] ]]' "$OUT"
check "extract good answer: planner step keeps prompt and raw LLM text" \
	'[ "$(sq "SELECT (prompt LIKE '\''%[User Query]%'\'' AND raw LIKE '\''%lab_data_table%'\'')::int FROM askql.steps WHERE run_id=$RUN AND name='\''planner'\''")" = 1 ]'
check "extract good answer: token counts recorded" '[ "$(step_field planner tokens_in)" -gt 0 ]'
check "extract good answer: the finished run's state keeps its question and model (admin_verified reads the model)" \
	'[ "$(sq "SELECT (state->>'\''question'\'' = question AND length(state->>'\''model'\'') > 0 AND NOT state ? '\''pause'\'')::int FROM askql.runs WHERE id=$RUN")" = 1 ]' \
	"$(sq "SELECT state FROM askql.runs WHERE id=$RUN")"

# 2a. a result that runs but does not fit the question (per department, one column): a result-check
# step, then another attempt with the finding as feedback
script "[$(resp "$(jsql "SELECT avg(age) FROM clinical_data_table")"), $(resp "$(jsql "SELECT department, avg(age) FROM clinical_data_table GROUP BY department")")]"
ask --mode extract "average age per department"
check "result check: a breakdown without its group column is retried; attempt 2 answers" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [ "$(echo "$OUT" | jget attempts)" = 2 ]' "$OUT $(steps)"
check "result check: the finding is a step and reaches the second prompt" \
	'[[ "$(step_field result_check error)" == *"per '"'"'department'"'"'"* ]] && [[ "$(requests)" == *"result check: the question asks per"* ]]' "$(steps)"

# 2b. patients asked, cases counted: the patient identifier of the catalog (subjectid) is missing
# from the SQL; retried with the finding
script "[$(resp "$(jsql "SELECT count(DISTINCT caseid) FROM clinical_data_table WHERE age >= 65")"), $(resp "$(jsql "SELECT count(DISTINCT subjectid) FROM clinical_data_table WHERE age >= 65")")]"
ask --mode extract "65세 이상 환자는 몇 명"
check "result check: patients counted as cases is retried; attempt 2 counts subjectid" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [ "$(echo "$OUT" | jget attempts)" = 2 ] && [[ "$(step_field result_check error)" == *"patient identifier subjectid"* ]]' "$OUT $(steps)"
# 2c. every word accounted for (docs/coverage.md): the model's SQL leaves out a value the question's
# word was linked to (복강경 -> approach = 'Videoscopic'); the coverage finding is the next attempt's
# feedback, in both loops
script "[$(resp "$(jsql "SELECT count(*) FROM clinical_data_table")"), $(resp "$(jsql "SELECT count(*) FROM clinical_data_table WHERE approach = 'Videoscopic'")")]"
ask --mode extract "복강경 수술 건수"
check "coverage: a linked value left out of the model's SQL is retried; attempt 2 filters on it" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [ "$(echo "$OUT" | jget attempts)" = 2 ] && [[ "$(step_field result_check error)" == *"coverage check"*"복강경"*"Videoscopic"* ]] && [[ "$(requests)" == *"coverage check: the SQL does not filter on"* ]]' "$OUT $(steps)"
script "[$(resp "$(jsql "SELECT ROUND(AVG(CAST(sex = 'F' AS int)) * 100, 2) FROM clinical_data_table WHERE preop_dm = 1")"), $(resp "$(jsql "SELECT ROUND(AVG(CAST(preop_dm = 1 AS int)) * 100, 2) FROM clinical_data_table WHERE sex = 'F'")")]"
ask --mode extract "여자 환자 중 당뇨 있는 환자 비율"
check "coverage: a share read the wrong way round by the model is retried with the finding" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [ "$(echo "$OUT" | jget attempts)" = 2 ] && [[ "$(step_field result_check error)" == *"denominator"* ]]' "$OUT $(steps)"
script "[$(resp "$(call explain sql "SELECT department, count(*) FROM clinical_data_table GROUP BY department")"), $(resp "$(call submit_sql sql "SELECT department, count(*) FROM clinical_data_table GROUP BY department")"), $(resp "$(call submit_sql sql "SELECT department, sex, count(*) FROM clinical_data_table GROUP BY department, sex")")]"
ask --mode react "진료과별 성별 수술 건수"
check "coverage (react): a breakdown left out of submit_sql is an error the model corrects" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [[ "$(steps)" == *"submit_sql:error"*"submit_sql:ok"* ]] && [[ "$(requests)" == *"does not group by"* ]]' "$OUT $(steps)"
# the same check on ReAct's submit_sql: an error result the model reads, then a good submit
script "[$(resp "$(call explain sql "SELECT count(*) FROM clinical_data_table WHERE age >= 65")"), $(resp "$(call submit_sql sql "SELECT count(*) FROM clinical_data_table WHERE age >= 65")"), $(resp "$(call submit_sql sql "SELECT count(DISTINCT subjectid) FROM clinical_data_table WHERE age >= 65")")]"
ask --mode react "how many patients are 65 or older"
check "result check (react): submit_sql counting rows as patients is an error the model corrects" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [[ "$(steps)" == *"submit_sql:error"*"submit_sql:ok"* ]] && [[ "$(requests)" == *"rows or cases are not patients"* ]]' "$OUT $(steps)"

# 2. extract: wrong column fixed on retry, history in the second prompt
script "[$(resp "$(jsql "SELECT caseid, potasium FROM lab_data_table LIMIT 3")"), $(resp "$(jsql "$GOOD")")]"
ask --mode extract "potassium above 6.5 per case"
check "retry: status ok on attempt 2" '[ "$(echo "$OUT" | jget status)" = ok ] && [ "$(echo "$OUT" | jget attempts)" = 2 ]' "$OUT"
check "retry: first executor step failed with the column error" \
	'[[ "$(step_field executor error)" == *potasium* ]]' "$(steps)"
check "retry: second planner prompt carries the failed SQL and error" \
	'[ "$(sq "SELECT count(*) FROM askql.steps WHERE run_id=$RUN AND name='\''planner'\'' AND prompt LIKE '\''%[PREVIOUS FAILED ATTEMPTS - LEARN FROM THESE ERRORS]%--- Attempt 1 ---%potasium%does not exist%'\''")" = 1 ]'
check "retry: the request sent to the LLM carries the retry block" \
	'requests | grep -q "PREVIOUS FAILED ATTEMPTS - LEARN FROM THESE ERRORS"'
check "retry: packager says succeeded on attempt 2 of 3" \
	'[[ "$(step_field packager output)" == *"succeeded on attempt 2 of 3"* ]]'
check "retry: run row has attempts=2" '[ "$(sq "SELECT attempts FROM askql.runs WHERE id=$RUN")" = 2 ]'

# 3. extract: every attempt fails -> error after max_retries, all history kept
BAD="SELECT nosuchcol FROM lab_data_table"
script "[$(resp "$(jsql "$BAD")"), $(resp "$(jsql "$BAD")"), $(resp "$(jsql "$BAD")")]"
ask --mode extract "potassium results, failing every time"
check "retries used up: status error naming the attempts" \
	'[ "$(echo "$OUT" | jget status)" = error ] && [[ "$(echo "$OUT" | jget error)" == *"3 of 3"* ]]' "$OUT"
check "retries used up: three planner and three executor steps" \
	'[ "$(sq "SELECT count(*) FILTER (WHERE name='\''planner'\'') || '\'','\'' || count(*) FILTER (WHERE name='\''executor'\'' AND status='\''error'\'') FROM askql.steps WHERE run_id=$RUN")" = "3,3" ]'

# 4. react: submit before explain is rewritten to explain
script "[$(resp "$(call submit_sql sql "$GOOD")"), $(resp "$(call submit_sql sql "$GOOD")")]"
ask --mode react "react potassium above 6.5"
check "react policy: status ok" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "react policy: rewrite recorded on the explain step" \
	'[ "$(step_field explain rewrite)" = "submit_sql -> explain (require_explain_first)" ]' "$(steps)"
check "react policy: explain precedes submit_sql" '[[ "$(steps)" == *"explain:ok tool"* || "$(steps)" == *"explain:ok submit_sql:ok"* ]]' "$(steps)"

# 5. react: last remaining call forced to submit
export ASKQL_REACT_MAX_CALLS=3
script "[$(resp "$(call explain sql "$GOOD")"), $(resp "$(call search_tables query lab)"), $(resp "$(call execute_sql_preview sql "$GOOD")")]"
ask --mode react "react last call: potassium lab results"
check "react last call: preview rewritten to submit_sql" \
	'[ "$(step_field submit_sql rewrite)" = "execute_sql_preview -> submit_sql (last_call_force_submit)" ] && [ "$(echo "$OUT" | jget status)" = ok ]' "$(steps) $OUT"
unset ASKQL_REACT_MAX_CALLS

# 6. malformed XML: each recovery path
MAL_REPRINT="<reasoning>a < b</reasoning><tool_call><name>explain</name><parameters><sql>SELECT caseid FROM lab_data_table WHERE name = 'k' AND result < 2 LIMIT 3</sql></parameters></tool_call>"
script "[$(resp "$MAL_REPRINT"), $(resp "$(call explain sql "SELECT caseid FROM lab_data_table WHERE name = 'k' AND result < 2 LIMIT 3")"), $(resp "$(call submit_sql sql "SELECT caseid FROM lab_data_table WHERE name = 'k' AND result < 2 LIMIT 3")")]"
ask --mode react "xml reprint path: potassium lab results"
check "xml reprint: reprint step ok, then explain and submit" \
	'[[ "$(steps)" == *"xml_reprint:ok explain:ok submit_sql:ok"* ]] && [ "$(echo "$OUT" | jget status)" = ok ]' "$(steps)"
check "xml reprint: the reprint request was sent with the malformed text" \
	'requests | grep -q "Malformed reply"'

MAL_RECOVER="<reasoning>find tables</reasoning><tool_call><name>search_tables</name><parameters><query>lab</query>"
script "[$(resp "$MAL_RECOVER"), $(resp "Sorry, I cannot."), $(resp "$(call explain sql "$GOOD")"), $(resp "$(call submit_sql sql "$GOOD")")]"
ask --mode react "xml recover path: potassium lab results"
check "xml recover: reprint failed, recover mode ok, tool ran" \
	'[[ "$(steps)" == *"xml_reprint:error xml_recover:ok search_tables:ok"* ]] && [ "$(echo "$OUT" | jget status)" = ok ]' "$(steps)"

MAL_PARTIAL="<reasoning>count</reasoning><tool_call><name>explain<parameters><sql>SELECT count(*) FROM clinical_data_table</sql></parameters></tool_call>"
script "[$(resp "$MAL_PARTIAL"), $(resp "no xml here"), $(resp "$(call submit_sql sql "SELECT count(*) FROM clinical_data_table")")]"
ask --mode react "xml partial path: number of cases"
check "xml partial: recover failed, partial extraction ok, explain ran" \
	'[[ "$(steps)" == *"xml_reprint:error xml_recover:error xml_partial:ok explain:ok submit_sql:ok"* ]]' "$(steps)"

script "[$(resp "I think we should look at the tables first."), $(resp "still no xml"), $(resp "$(call explain sql "$GOOD")"), $(resp "$(call submit_sql sql "$GOOD")")]"
ask --mode react "xml error path: potassium lab results"
check "xml error: every recovery failed, a clear error step, the run went on" \
	'[[ "$(steps)" == *"xml_partial:error xml_error:error explain:ok submit_sql:ok"* ]] && [ "$(echo "$OUT" | jget status)" = ok ]' "$(steps)"
check "xml error: the error step says what failed" \
	'[[ "$(step_field xml_error error)" == *"could not be parsed"* ]]'

# 7. HTTP: 429 then success
script "[{\"status\": 429, \"body\": {\"error\": {\"message\": \"rate limited\"}}, \"headers\": {\"Retry-After\": \"0\"}}, $(resp "$(jsql "$GOOD")")]"
ask --mode extract "rate limited once: potassium lab results"
check "429 then success: ok after 2 HTTP attempts" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [[ "$(step_field planner output)" == *"\"llm_attempts\": 2"* || "$(step_field planner output)" == *"\"llm_attempts\":2"* ]]' "$(step_field planner output)"
check "429 then success: attempt log shows the 429" '[[ "$(step_field planner output)" == *"HTTP 429"* ]]'

# 8. HTTP: 500s until the retries run out
E500='{"status": 500, "body": {"error": {"message": "upstream exploded"}}}'
script "[$E500, $E500, $E500, $E500]"
ask --mode extract "server keeps failing: potassium lab results"
check "500s: run ends in error after 3 attempts (retries 2)" \
	'[ "$(echo "$OUT" | jget status)" = error ] && [[ "$(echo "$OUT" | jget error)" == *"HTTP 500"*"after 3 attempts"* ]]' "$OUT"
check "500s: planner step recorded as error with the attempt log" \
	'[ "$(step_field planner status)" = error ] && [[ "$(step_field planner output)" == *"upstream exploded"* ]]'
check "500s: the fake received exactly 3 requests" '[ "$(requests | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")" = 3 ]'

# 8b. LLM down with llm_fallback_builtin: the planner step degrades to the offline planner
script "[$E500, $E500, $E500]"
OUT=$(ASKQL_LLM_FALLBACK_BUILTIN=1 "$ASKQL" ask --json --no-cache --mode extract "average age by sex" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "LLM down + fallback: planner step degraded, run ok" \
	'[ "$(step_field planner status)" = degraded ] && [ "$(echo "$OUT" | jget status)" = ok ]' "$OUT $(steps)"

# 8c. retrieval failure (the target's catalog is gone) degrades the inspector, the run goes on
script "[$(resp "$(jsql "$GOOD")")]"
sq "DELETE FROM askql.cat_targets WHERE name = 'demo'" >/dev/null
OUT=$("$ASKQL" ask --json --no-cache --mode extract "potassium above 6.5" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "retrieval failure: inspector degraded with the reason, run ok" \
	'[ "$(step_field inspector status)" = degraded ] && [[ "$(step_field inspector error)" == *demo* ]] && [ "$(echo "$OUT" | jget status)" = ok ]' "$OUT $(steps)"
"$ASKQL" index --name demo --quiet >/dev/null 2>&1

# 8d. HyDE helper step: its LLM failure degrades, the run goes on
script "[$E500, $E500, $E500, $(resp "$(jsql "$GOOD")")]"
OUT=$(ASKQL_LLM_HYDE=1 "$ASKQL" ask --json --no-cache --mode extract "potassium above 6.5, hyde" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "HyDE failure: hyde step degraded, run ok" \
	'[[ "$(steps)" == "hyde:degraded inspector:ok planner:ok executor:ok packager:ok" ]] && [ "$(echo "$OUT" | jget status)" = ok ]' "$OUT $(steps)"

# 9. slow response past the timeout
script "[{\"delay_ms\": 1500, \"text\": \"late\"}, {\"delay_ms\": 1500, \"text\": \"late\"}]"
OUT=$(ASKQL_LLM_TIMEOUT_MS=300 ASKQL_LLM_RETRIES=1 "$ASKQL" ask --json --no-cache --mode extract "slow model: potassium lab results" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "timeout: run ends in error naming the timeout" \
	'[ "$(echo "$OUT" | jget status)" = error ] && [[ "$(echo "$OUT" | jget error)" == *timeout* ]]' "$OUT"
check "timeout: planner step error after 2 attempts" '[[ "$(step_field planner error)" == *"after 2 attempts"* ]]' "$(step_field planner error)"

# 10. broken stream, then a good stream
script "[{\"text\": $(jsql "$GOOD" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))'), \"stream\": true, \"broken_stream\": true}, {\"text\": $(jsql "$GOOD" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().strip()))'), \"stream\": true}]"
ask --mode extract "broken stream once: potassium lab results"
check "broken stream: retried and ok" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "broken stream: attempt log names the broken stream" '[[ "$(step_field planner output)" == *"broken stream"* ]]' "$(step_field planner output)"

# 11. the API key never reaches steps, runs or logs; it is sent as a bearer token
check "key: sent as Authorization bearer" 'requests | grep -q "Bearer $KEY" || grep -q "Bearer $KEY" "$WORK/req.jsonl"'
check "key: absent from steps and runs" \
	'[ "$(sq "SELECT count(*) FROM askql.steps s JOIN askql.runs r ON r.id=s.run_id WHERE s::text LIKE '\''%SECRET-7f3a9c%'\'' OR r::text LIKE '\''%SECRET-7f3a9c%'\''")" = 0 ]'
check "key: absent from stderr and the log file" \
	'! grep -q "SECRET-7f3a9c" "$WORK/stderr" && ! grep -qs "SECRET-7f3a9c" "${VAR:-/nonexistent}/log/askql.log"'

# 12. unanswerable, both modes
script "[$(resp '{"unanswerable": true, "missing": "no salary or staff table"}')]"
ask --mode extract "average salary of anesthesiologists per department"
check "unanswerable (extract): status and what is missing" \
	'[ "$(echo "$OUT" | jget status)" = unanswerable ] && [[ "$(echo "$OUT" | jget error)" == *"no salary"* ]]' "$OUT"
script "[$(resp "$(call cannot_answer missing "no billing table")")]"
ask --mode react "total billing cost per surgery department"
check "unanswerable (react): cannot_answer ends the run" \
	'[ "$(echo "$OUT" | jget status)" = unanswerable ] && [[ "$(steps)" == *"cannot_answer:ok"* ]]' "$OUT $(steps)"

# 12b. nothing of the question matches the catalog's retrieval: the offline planner links the
# question itself and declines with its reason; an LLM is still asked, with the finding as a note
# and the schema (issue 12)
ask --provider builtin --mode extract "what will the weather be in Seoul tomorrow"
check "unanswerable (no match, builtin): the planner declines and says why" \
	'[ "$(echo "$OUT" | jget status)" = unanswerable ] && [ "$(steps)" = "inspector:ok planner:ok" ] && [[ "$(echo "$OUT" | jget error)" == "cannot answer from this database: "?* ]]' "$OUT $(steps)"
script "[$(resp '{"unanswerable": true, "missing": "no weather data"}')]"
ask --mode extract "what will the weather be in Seoul tomorrow"
check "unanswerable (no match, LLM): the model saw the note and the schema, then declined" \
	'[ "$(echo "$OUT" | jget status)" = unanswerable ] && [[ "$(steps)" == "inspector:ok planner:"* ]] && [[ "$(requests)" == *"Nothing in the question matched"*"clinical_data_table"* ]]' "$OUT $(steps)"

# 13. builtin provider, react mode: an explain step before every submit
OUT=$("$ASKQL" ask --json --no-cache --provider builtin --mode react "average age by sex" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "builtin react: ok" '[ "$(echo "$OUT" | jget status)" = ok ]' "$OUT"
check "builtin react: explain before every submit" \
	'[ "$(sq "SELECT count(*) FROM askql.steps s WHERE run_id=$RUN AND name='\''submit_sql'\'' AND NOT EXISTS (SELECT 1 FROM askql.steps e WHERE e.run_id=s.run_id AND e.name='\''explain'\'' AND e.status='\''ok'\'' AND e.seq < s.seq)")" = 0 ] && [ "$(sq "SELECT count(*) FROM askql.steps WHERE run_id=$RUN AND name='\''submit_sql'\''")" -ge 1 ]' "$(steps)"

# 14. step mode: pause on the plan, then on the SQL; edit the SQL; runs resume from the state
OUT=$("$ASKQL" ask --json --no-cache --provider builtin --step "average age by sex" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "step mode: paused on the plan" '[ "$(echo "$OUT" | jget status)" = paused ] && [[ "$(echo "$OUT" | jget pause)" == *"\"stage\": \"plan\""* || "$(echo "$OUT" | jget pause)" == *"\"stage\":\"plan\""* ]]' "$OUT"
check "step mode: state saved on the run" '[ "$(sq "SELECT state->>'\''stage'\'' FROM askql.runs WHERE id=$RUN")" = plan ]'
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"approve"}' 2>>"$WORK/stderr")
check "step mode: approve -> paused before the SQL runs" '[ "$(echo "$OUT" | jget status)" = paused ] && [[ "$(echo "$OUT" | jget pause)" == *sql* ]]' "$OUT"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"edit","sql":"SELECT sex, count(*) AS n FROM clinical_data_table GROUP BY sex ORDER BY sex"}' 2>>"$WORK/stderr")
check "step mode: edited SQL ran" '[ "$(echo "$OUT" | jget status)" = ok ] && [[ "$(echo "$OUT" | jget sql)" == *"count(*)"* ]]' "$OUT"
check "step mode: human decisions recorded as steps" '[ "$(sq "SELECT count(*) FROM askql.steps WHERE run_id=$RUN AND kind='\''human'\''")" = 2 ]'
check "step mode: a finished run cannot be resumed" '! "$ASKQL" ask --json --resume "$RUN" --decision "{\"decision\":\"approve\"}" >/dev/null 2>&1'

# 14b. step mode, offline: a rejection with a comment keeps the run going; the comment is a change
# to the question (성별로 -> grouped by sex), or, when it cannot be applied, the rejected SQL comes back
# with a note; only "stop" ends the run
OUT=$("$ASKQL" ask --json --no-cache --provider builtin --step "평균 나이" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
"$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"approve"}' >/dev/null 2>>"$WORK/stderr"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"reject","comment":"성별로"}' 2>>"$WORK/stderr")
check "step mode: a rejection with a comment re-plans with it (성별로 -> GROUP BY sex)" \
	'[ "$(echo "$OUT" | jget status)" = paused ] && [[ "$(echo "$OUT" | jget pause)" == *"GROUP BY clinical_data_table.sex"* ]]' "$OUT"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"reject","comment":"흠 이건 좀 이상한데요"}' 2>>"$WORK/stderr")
check "step mode: a comment that cannot be applied brings the SQL back with a note, the run waits" \
	'[ "$(echo "$OUT" | jget status)" = paused ] && [[ "$(echo "$OUT" | jget pause)" == *"GROUP BY clinical_data_table.sex"* ]] && [[ "$(echo "$OUT" | jget pause)" == *note* ]]' "$OUT"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"stop"}' 2>>"$WORK/stderr")
check "step mode: stop ends it" '[ "$(echo "$OUT" | jget status)" = stopped ]' "$OUT"
# a comment that would stand alone as a question is still a change to this one: 칼륨만 keeps case 3
OUT=$("$ASKQL" ask --json --no-cache --provider builtin --step "케이스 3의 랩 추이" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
"$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"approve"}' >/dev/null 2>>"$WORK/stderr"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"reject","comment":"칼륨만"}' 2>>"$WORK/stderr")
check "step mode: 칼륨만 narrows this run's question (case 3 kept, potassium only)" \
	'[ "$(echo "$OUT" | jget status)" = paused ] && [[ "$(echo "$OUT" | jget pause)" == *"caseid = 3"* ]] && [[ "$(echo "$OUT" | jget pause)" == *"name = '"'"'k'"'"'"* ]]' "$OUT"
"$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"stop"}' >/dev/null 2>>"$WORK/stderr"

# 14c. step mode, ReAct: a pause on the plan (without its prompt block), then at the submit the
# policy forced on the last call (the rewrite shown); the approved submit ends the run
export ASKQL_REACT_MAX_CALLS=3
script "[$(resp "$(call explain sql "$GOOD")"), $(resp "$(call search_tables query lab)"), $(resp "$(call execute_sql_preview sql "$GOOD")")]"
ask --mode react --step "react step mode: potassium lab results"
check "react step mode: paused on the plan, shown without the prompt block" \
	'[ "$(echo "$OUT" | jget status)" = paused ] && [ "$(sq "SELECT (state->'\''pause'\''->>'\''stage'\'' = '\''plan'\'' AND state->'\''pause'\''->'\''plan'\'' ? '\''tables'\'' AND NOT state->'\''pause'\''->'\''plan'\'' ? '\''block'\'' AND state->'\''plan'\'' ? '\''block'\'')::int FROM askql.runs WHERE id=$RUN")" = 1 ]' \
	"$OUT $(sq "SELECT state->'pause' FROM askql.runs WHERE id=$RUN")"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"approve"}' 2>>"$WORK/stderr")
check "react step mode: paused at the forced submit, the rewrite shown" \
	'[ "$(echo "$OUT" | jget status)" = paused ] && echo "$OUT" | python3 -c "import json,sys; p=json.load(sys.stdin)[\"pause\"]; assert p[\"stage\"] == \"submit\" and p[\"tool\"] == \"submit_sql\" and p[\"rewrite\"] == \"execute_sql_preview -> submit_sql (last_call_force_submit)\" and p[\"calls\"] == 2 and p[\"max_calls\"] == 3, p"' "$OUT"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"approve"}' 2>>"$WORK/stderr")
check "react step mode: the approved submit runs; ok" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [[ "$(steps)" == *"submit_sql:ok"* ]]' "$OUT $(steps)"
unset ASKQL_REACT_MAX_CALLS

# 15. query cache: the second identical question reuses the SQL (no LLM call)
TAG=$(tr '0-9' 'a-j' <<<"$$")   # letters: a number of the question would have to be in the SQL (docs/coverage.md)
Q="Average potassium per case, cache test $TAG"
script "[$(resp "$(jsql "$GOOD")")]"
"$ASKQL" ask --json --mode extract "$Q" >/dev/null 2>>"$WORK/stderr"
script "[]"
OUT=$("$ASKQL" ask --json --mode extract "  average potassium per case, CACHE test $TAG?" 2>>"$WORK/stderr"); RUN=$(echo "$OUT" | jget run_id)
check "query cache: normalised question hits, planner skipped" \
	'[[ "$(steps)" == *"cache:ok executor:ok packager:ok"* ]] && [[ "$(steps)" != *planner* ]] && [ "$(echo "$OUT" | jget status)" = ok ]' "$(steps)"
check "query cache: no LLM request made on a hit" '[ "$(requests)" = "[]" ]'

# 16. follow-up: the parent's question and SQL go into the next plan
script "[$(resp "$(jsql "$GOOD")")]"
ask --mode extract "potassium above 6.5"
P=$RUN
script "[$(resp "$(jsql "SELECT caseid, result FROM lab_data_table WHERE name = 'k' AND result > 6.5 AND caseid < 100 ORDER BY caseid")")]"
ask --mode extract --parent "$P" "now only cases below 100"
check "follow-up: parent's question and SQL in the planner prompt" \
	'[ "$(sq "SELECT count(*) FROM askql.steps WHERE run_id=$RUN AND name='\''planner'\'' AND prompt LIKE '\''%Previous question: potassium above 6.5%Previous SQL: SELECT caseid, result%'\''")" = 1 ]' "$(step_field planner prompt | head -c 300)"
check "follow-up: run linked to its parent" '[ "$(sq "SELECT parent_id FROM askql.runs WHERE id=$RUN")" = "$P" ]'

# an LLM run is never declined before the model saw the schema: "nothing matched" is a note
script "[$(resp "$(jsql "SELECT count(*) FROM clinical_data_table")")]"
ask --mode extract "zqxw vbnmk plorf"
check "nothing matched, LLM mode: the model is asked, with a note and the schema" \
	'[ "$(echo "$OUT" | jget status)" = ok ] && [ "$(sq "SELECT count(*) FROM askql.steps WHERE run_id=$RUN AND name='\''planner'\'' AND prompt LIKE '\''%[NOTE]%Nothing in the question matched%clinical_data_table%'\''")" = 1 ]' "$OUT $(steps)"

# ReAct search_column_values: the user's word, its lexicon translations and codes, then the
# column's most frequent values when nothing matches
scv() { printf '<reasoning>look up the value</reasoning><tool_call><name>search_column_values</name><parameters><column>lab_data_table.name</column><keyword><![CDATA[%s]]></keyword></parameters></tool_call>' "$1"; }
script "[$(resp "$(scv 칼륨)"), $(resp "$(scv zzqxv)"), $(resp "$(call submit_sql sql "$GOOD")"), $(resp "$(call submit_sql sql "$GOOD")")]"
ask --mode react "potassium values over 6.5"
o1=$(sq "SELECT output FROM askql.steps WHERE run_id=$RUN AND name='search_column_values' ORDER BY seq LIMIT 1")
o2=$(sq "SELECT output FROM askql.steps WHERE run_id=$RUN AND name='search_column_values' ORDER BY seq OFFSET 1 LIMIT 1")
check "search_column_values: 칼륨 finds the stored code k through the lexicon" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); d=d.get(\"result\",d); assert \"k\" in d[\"values\"], d" "$o1"' "$o1"
check "search_column_values: nothing matched gives the most frequent values to choose from" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); d=d.get(\"result\",d); assert not d[\"values\"] and len(d[\"most_frequent\"]) >= 3 and d[\"most_frequent\"][0][\"rows\"] > 0, d" "$o2"' "$o2"

# offline planner follow-ups: "같은 걸 X별로" adds X to the parent's grouping (issue 26: never replaces
# it unless the analyst says instead, "대신 X별로"), "이번엔 X만" filters it
ask --provider builtin --mode extract "진료과별 평균 나이"
P2=$RUN
ask --provider builtin --mode extract --parent "$P2" "같은 걸 성별로"
s1=$(echo "$OUT" | jget sql)
check "follow-up 같은 걸 성별로: the parent's average, by department and sex" \
	'[[ "$s1" == *"AVG(clinical_data_table.age)"* && "$s1" == *"GROUP BY clinical_data_table.department, clinical_data_table.sex"* ]]' "$OUT"
ask --provider builtin --mode extract --parent "$P2" "대신 성별로"
s1=$(echo "$OUT" | jget sql)
check "follow-up 대신 성별로: the parent's average, grouped by sex instead" \
	'[[ "$s1" == *"AVG(clinical_data_table.age)"* && "$s1" == *"GROUP BY clinical_data_table.sex"* && "$s1" != *department* ]]' "$OUT"
ask --provider builtin --mode extract --parent "$P2" "이번엔 여성만"
s2=$(echo "$OUT" | jget sql)
check "follow-up 이번엔 여성만: the parent's question filtered to women" \
	'[[ "$s2" == *"GROUP BY clinical_data_table.department"* && "$s2" == *"sex = '"'F'"'"* ]]' "$OUT"
ask --provider builtin --mode extract --parent "$P2" "the same by sex"
s3=$(echo "$OUT" | jget sql)
check "follow-up 'the same by sex' (English): sex added" '[[ "$s3" == *"GROUP BY clinical_data_table.department, clinical_data_table.sex"* ]]' "$OUT"

# prompt files askql ships in a new text reach an installed database at start (prompt_sync): the
# next version, active unless an admin's own edit is active
PD=$WORK/prompts; mkdir -p "$PD"; cp "$TOP"/conf/prompts/*.xml "$PD/"
PN=synctest_$$
pv() { sq "SELECT string_agg(version || ':' || author || ':' || active, ' ' ORDER BY version) FROM askql.prompts WHERE name = '$PN'"; }
sync_run() { ASKQL_PROMPT_DIR=$PD ask --provider builtin --mode extract "진료과별 평균 나이"; }
echo '<p>one</p>' >"$PD/$PN.xml"; sync_run
check "prompt sync: a new file is version 1, active" '[ "$(pv)" = "1:file:true" ]' "$(pv)"
sync_run
check "prompt sync: the same text again adds nothing" '[ "$(pv)" = "1:file:true" ]' "$(pv)"
echo '<p>two</p>' >"$PD/$PN.xml"; sync_run
check "prompt sync: a shipped new text is version 2 and the active one" '[ "$(pv)" = "1:file:false 2:file:true" ]' "$(pv)"
sq "UPDATE askql.prompts SET active = false WHERE name = '$PN'; INSERT INTO askql.prompts(name, version, body, author, note, active) VALUES ('$PN', 3, '<p>mine</p>', 'admin', 'edit', true)" >/dev/null
echo '<p>three</p>' >"$PD/$PN.xml"; sync_run
check "prompt sync: with an admin's edit active, a shipped text is stored but not made active" \
	'[ "$(pv)" = "1:file:false 2:file:false 3:admin:true 4:file:false" ]' "$(pv)"
sq "UPDATE askql.prompts SET active = (version = 2) WHERE name = '$PN'" >/dev/null
echo '<p>two</p>' >"$PD/$PN.xml"; sync_run
check "prompt sync: a rollback to an older file version sticks" '[ "$(pv)" = "1:file:false 2:file:true 3:admin:false 4:file:false" ]' "$(pv)"
sq "DELETE FROM askql.prompts WHERE name = '$PN'" >/dev/null
