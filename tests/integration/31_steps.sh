#!/usr/bin/env bash
# 31_steps.sh: step mode (issue 15): a refused edit uses no attempt and keeps the run paused with its state (CLI and
# HTTP: the draft comes back in the box with the guard's reason); the SQL form's one button approves an unchanged box
# and edits a changed one; the plan form's ticks include (unticked = removed); joins are counted per SELECT.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
T=$(mktemp -d /tmp/askql-31.XXXXXX)
trap 'rm -rf "$T"' EXIT
cp "$ASKQL" "$T/askql" && ASKQL=$T/askql
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
q() { psql -X -q -tA -d askql -c "$1" 2>/dev/null; }
jget() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "{}"); v=d.get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else ("" if v is None else v))' "$1"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
attempt() { q "SELECT state->>'attempt' FROM askql.runs WHERE id = $1"; }
status() { q "SELECT status FROM askql.runs WHERE id = $1"; }
psql -X -q -d askql -c "DELETE FROM askql.query_cache" >/dev/null 2>&1

# ---- guard: joins per SELECT ----
W=$("$ASKQL" guard "SELECT 1 FROM clinical_data_table a JOIN lab_data_table b USING (caseid) JOIN vital_data_table c USING (caseid)
  UNION SELECT 1 FROM clinical_data_table a JOIN lab_data_table b USING (caseid) JOIN medication_data_table c USING (caseid)" 2>&1)
check "a UNION of two arms with two JOINs each has no JOIN warning" "! grep -q 'warning' <<<'$W' && grep -q '^SELECT' <<<'$W'" "$W"
W=$("$ASKQL" guard "SELECT 1 FROM clinical_data_table a JOIN lab_data_table b USING (caseid) JOIN vital_data_table c USING (caseid)
  JOIN medication_data_table d USING (caseid) JOIN diagnosis_table e ON e.subject_id = a.subjectid" 2>&1)
check "one SELECT with four JOINs still warns" "grep -q 'warning: 4 JOINs' <<<'$W'" "$W"

# ---- CLI: a refused edit costs no attempt ----
OUT=$("$ASKQL" ask --json --no-cache --step "average age by department" 2>/dev/null); RUN=$(echo "$OUT" | jget run_id)
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"approve"}' 2>/dev/null)
A0=$(attempt "$RUN"); P0=$(q "SELECT state->'pause'->>'sql' FROM askql.runs WHERE id = $RUN")
check "CLI: the step-mode run waits on its SQL (attempt $A0)" "[ '$(status "$RUN")' = paused ] && [ -n '$P0' ]"
for bad in "DELETE FROM lab_data_table" "SELECT pg_sleep(5)" "SELECT 1; DROP TABLE lab_data_table"; do
	ERR=$("$ASKQL" ask --resume "$RUN" --decision "$(python3 -c 'import json,sys; print(json.dumps({"decision":"edit","sql":sys.argv[1]}))' "$bad")" 2>&1 >/dev/null); rc=$?
	check "CLI: edit to '$bad' refused with the guard's reason, exit 1" "[ $rc = 1 ] && grep -q 'refused' <<<\"\$ERR\"" "$ERR"
	check "CLI: after '$bad' the run still waits, attempt unchanged ($A0), the proposal kept" \
		"[ '$(status "$RUN")' = paused ] && [ '$(attempt "$RUN")' = '$A0' ] && [ \"\$(q \"SELECT state->'pause'->>'sql' FROM askql.runs WHERE id = $RUN\")\" = '$P0' ]"
done
check "CLI: the three refusals are recorded as refused edit steps, none reached the executor" \
	"[ \$(q \"SELECT count(*) FROM askql.steps WHERE run_id = $RUN AND name = 'edit' AND status = 'error' AND output->>'guard' = 'refused'\") = 3 ] &&
	 [ \$(q \"SELECT count(*) FROM askql.steps WHERE run_id = $RUN AND name = 'executor'\") = 0 ]"
OUT=$("$ASKQL" ask --json --resume "$RUN" --decision '{"decision":"edit","sql":"SELECT department, count(*) AS n FROM clinical_data_table GROUP BY 1"}' 2>/dev/null)
check "CLI: then a valid edit runs on the same attempt ($A0 of 3)" \
	"[ '$(echo "$OUT" | jget status)' = ok ] && [ '$(echo "$OUT" | jget attempts)' = '$A0' ]" "$OUT"

# ---- HTTP: the box keeps the draft, the reason is beside it ----
J=$T/jar
pre=$(curl -s -c "$J" -b "$J" "$BASE_URL/signin" | field csrf)
curl -s -o /dev/null -c "$J" -b "$J" --data-urlencode "csrf=$pre" --data-urlencode "name=$ADMIN_USER" \
	--data-urlencode "password=$ADMIN_PASS" "$BASE_URL/signin"
C=$(curl -s -b "$J" "$BASE_URL/" | field csrf)
post() { curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$J" --data-urlencode "csrf=$C" "$@"; }
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$J" --data-urlencode "csrf=$C" --data-urlencode mode=step \
	--data-urlencode "question=average potassium of male patients" "$BASE_URL/runs"); R=${loc##*/runs/}
PAGE=$(curl -s -b "$J" "$BASE_URL/runs/$R")
check "HTTP: the plan offers include ticks (checked), no remove ticks" \
	"grep -q 'name=\"include_table\" value=\"clinical_data_table\" checked' <<<\"\$PAGE\" && ! grep -q 'name=\"remove_table\"' <<<\"\$PAGE\""
NT=$(q "SELECT jsonb_array_length(state->'pause'->'plan'->'tables') FROM askql.runs WHERE id = $R")
MAPS=$(q "SELECT string_agg((m->>'table') || '.' || (m->>'column') || '=' || (m->>'value'), ' ') FROM askql.runs, jsonb_array_elements(state->'pause'->'plan'->'mappings') m WHERE id = $R")
KEEP=(); for t in $(q "SELECT jsonb_array_elements_text(state->'pause'->'plan'->'tables') FROM askql.runs WHERE id = $R" | head -n -1); do KEEP+=(--data-urlencode "include_table=$t"); done
COLS=(); for c in $(q "SELECT (c->>'table') || '.' || (c->>'column') FROM askql.runs, jsonb_array_elements(state->'pause'->'plan'->'columns') c WHERE id = $R"); do COLS+=(--data-urlencode "include_column=$c"); done
MK=(); for m in $MAPS; do MK+=(--data-urlencode "include_mapping=$m"); done
r=$(post --data-urlencode action=plan --data-urlencode ticks=include "${KEEP[@]}" "${COLS[@]}" "${MK[@]}" "$BASE_URL/runs/$R/step")
check "HTTP: unticking one of $NT tables removes exactly that table (one plan edit; $r)" \
	"[ \"\$(q \"SELECT input->>'edits' FROM askql.steps WHERE run_id = $R AND name = 'plan_edit'\")\" = 1 ]"
P1=$(q "SELECT state->'pause'->>'sql' FROM askql.runs WHERE id = $R"); A1=$(attempt "$R")
r=$(post --data-urlencode action=run --data-urlencode "sql=DELETE FROM lab_data_table" "$BASE_URL/runs/$R/step")
check "HTTP: a DELETE posted from the box answers 303 back to the box ($r)" "[[ '$r' == '303 '*'/runs/$R?notice=refused#edit-sql' ]]"
PAGE=$(curl -s -b "$J" "$BASE_URL/runs/$R")
check "HTTP: the box keeps the DELETE, tied to the reason (aria-describedby)" \
	"grep -q 'aria-describedby=\"edit-sql-reason\">DELETE FROM lab_data_table</textarea>' <<<\"\$PAGE\" && grep -q 'id=\"edit-sql-reason\"' <<<\"\$PAGE\""
check "HTTP: the run waits, attempt unchanged ($A1), the proposal intact" \
	"[ '$(status "$R")' = paused ] && [ '$(attempt "$R")' = '$A1' ] && [ \"\$(q \"SELECT state->'pause'->>'sql' FROM askql.runs WHERE id = $R\")\" = \"\$P1\" ]"
check "HTTP: one primary button on the SQL pause" "[ \$(grep -o 'class=\"primary\"' <<<\"\$PAGE\" | wc -l) = 1 ]"
r=$(post --data-urlencode action=run --data-urlencode "sql=$(printf '%s\r\n' "$P1")" "$BASE_URL/runs/$R/step")
check "HTTP: the proposed SQL posted back unchanged (CRLF) is an approval, not an edit" \
	"[ '$(status "$R")' = ok ] && [ \$(q \"SELECT count(*) FROM askql.steps WHERE run_id = $R AND name = 'approve'\") -ge 1 ] &&
	 [ \$(q \"SELECT count(*) FROM askql.steps WHERE run_id = $R AND name = 'edit' AND status = 'ok'\") = 0 ] &&
	 [ \"\$(q \"SELECT edited FROM askql.runs WHERE id = $R\")\" = t ]" "status $(status "$R")"
echo "1..$n"
