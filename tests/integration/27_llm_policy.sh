#!/usr/bin/env bash
# 27_llm_policy.sh: llm_data_policy (issue 16 item 4): a clinic target with names, registration numbers, phones,
# birth and visit dates (classified at indexing) and ordinary columns; extraction and ReAct runs (a schema block,
# a retry after a database error that quotes a stored value (under schema and values only its SQLSTATE reaches the model), a value search, a preview of identifier rows, a
# preview failing on a registration number, a submit) under schema, values and rows, against the fake LLM that
# records every request body.  Under schema and values no identifier value is in any body (raw or JSON-escaped);
# under schema no stored value at all; under rows the preview rows do reach the model (the check can fail).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
DB=llmpol_$$
WORK=$(mktemp -d /tmp/askql-27.XXXXXX)
FAKE_PID=
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -30; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
appsql() { psql -X -q -tA -d askql -c "$1"; }
cleanup() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
	appsql "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	        DELETE FROM askql.cat_tables WHERE target = '$DB'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$WORK"
}
trap cleanup EXIT
cp "$ASKQL" "$WORK/askql" && ASKQL=$WORK/askql

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" >/dev/null <<'SQL'
CREATE TABLE patient (
	pt_no      text PRIMARY KEY,
	pt_name    text,
	jumin_no   text,
	phone      text,
	birth_date date,
	ward       text,
	blood_type text
);
COMMENT ON TABLE patient IS '환자 기본정보';
COMMENT ON COLUMN patient.pt_no IS '환자번호(등록번호)';
COMMENT ON COLUMN patient.pt_name IS '환자명';
COMMENT ON COLUMN patient.jumin_no IS '주민등록번호';
COMMENT ON COLUMN patient.phone IS '연락처 휴대전화';
COMMENT ON COLUMN patient.birth_date IS '생년월일';
COMMENT ON COLUMN patient.ward IS 'ward of the current admission';
COMMENT ON COLUMN patient.blood_type IS 'ABO blood group';
INSERT INTO patient VALUES
 ('00077123', '홍길동', '800101-1234560', '010-1234-5678', '1980-01-01', 'WESTWING7', 'GROUP-AB'),
 ('00077124', '김영희', '950715-2345678', '010-2222-3333', '1995-07-15', 'EASTWING3', 'GROUP-O'),
 ('00077125', '이철수', '020301-3123456', '010-9876-5432', '2002-03-01', 'WESTWING7', 'GROUP-A'),
 ('00077126', '박민수', '001231-4123459', '011-555-1234', '2000-12-31', 'NORTHWING2', 'GROUP-O'),
 ('00077127', '최지우', '850505-1000001', '010-4444-8888', '1933-05-05', 'EASTWING3', 'GROUP-B');
CREATE TABLE visit (visit_id integer PRIMARY KEY, pt_no text REFERENCES patient, visit_dt date, dept text);
COMMENT ON COLUMN visit.visit_dt IS '내원일자';
COMMENT ON COLUMN visit.dept IS 'department seen';
INSERT INTO visit SELECT g, '0007712' || (3 + g % 5), date '2024-02-03' + g * 11,
	(ARRAY['CARDIOLOGY-OPD','NEPHROLOGY-OPD','ORTHOPEDICS-OPD'])[1 + g % 3] FROM generate_series(1, 15) g;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
out=$("$ASKQL" index --target "$URL" 2>&1); rc=$?
check "the clinic target indexes" '[ $rc -eq 0 ]' "$out"

# the classes phi gave: the identifier columns of the test come from them, not from a list here
"$ASKQL" phi list --target "$DB" --json >"$WORK/phi.json" 2>&1
python3 - "$WORK/phi.json" >"$WORK/idcols" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1])):
    if c["class"] in ("direct", "quasi", "unclassified"):
        print(c["column"])
PY
check "phi classifies names, registration numbers, phones, patient numbers, birth and visit dates as identifiers" \
	'for c in patient.pt_name patient.jumin_no patient.phone patient.pt_no patient.birth_date visit.visit_dt; do grep -qx "$c" "$WORK/idcols" || exit 1; done' \
	"$(cat "$WORK/phi.json")"
check "ward, blood type and department are not identifiers" \
	'! grep -qE "^(patient.ward|patient.blood_type|visit.dept)$" "$WORK/idcols"' "$(cat "$WORK/idcols")"
# every stored value of every identifier column, and of every column (for schema), as text
: >"$WORK/idvals"; : >"$WORK/allvals"
while read -r col; do
	t=${col%%.*}; c=${col#*.}
	psql -X -q -tA -d "$DB" -c "SELECT DISTINCT \"$c\"::text FROM \"$t\" WHERE \"$c\" IS NOT NULL" >>"$WORK/idvals"
done <"$WORK/idcols"
for col in patient.pt_no patient.pt_name patient.jumin_no patient.phone patient.birth_date patient.ward \
           patient.blood_type visit.pt_no visit.visit_dt visit.dept; do
	t=${col%%.*}; c=${col#*.}
	psql -X -q -tA -d "$DB" -c "SELECT DISTINCT \"$c\"::text FROM \"$t\" WHERE \"$c\" IS NOT NULL" >>"$WORK/allvals"
done
check "identifier values sampled (names, numbers, phones, dates)" '[ "$(wc -l <"$WORK/idvals")" -ge 30 ] && grep -qx 홍길동 "$WORK/idvals"' \
	"$(cat "$WORK/idvals")"

python3 "$FAKE_LLM" --requests "$WORK/req.jsonl" --port-file "$WORK/port" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$WORK/port")
export ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=sk-test
export ASKQL_LLM_BACKOFF_MS=10 ASKQL_LLM_BACKOFF_MAX_MS=50 ASKQL_LLM_RETRIES=1 ASKQL_LLM_TIMEOUT_MS=5000
unset ASKQL_LLM_DATA_POLICY
# the answer sentence may be worded by the model from an aggregate's rows (answer_llm_rows): only under rows
export ASKQL_ANSWER_LLM_ROWS=20

script() { curl -s -XPOST --data-binary "$1" "$FAKE/__script" >/dev/null; }
resp() { python3 -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$1"; }
jsql() { python3 -c 'import json,sys; print(json.dumps({"reasoning":"r","sql":sys.argv[1]}))' "$1"; }
call() { # call TOOL PARAM VALUE [PARAM VALUE] -> XML reply text
	local p="<$2><![CDATA[$3]]></$2>"
	[ $# -ge 5 ] && p="$p<$4><![CDATA[$5]]></$4>"
	printf '<reasoning>step</reasoning><tool_call><name>%s</name><parameters>%s</parameters></tool_call>' "$1" "$p"
}
jget() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "{}"); v=d.get(sys.argv[1]); print(json.dumps(v) if isinstance(v,(list,dict)) else ("" if v is None else v))' "$1"; }
ask() { OUT=$("$ASKQL" ask --json --no-cache --target "$DB" "$@" 2>>"$WORK/stderr"); }

# the model's SQL never holds a stored value: what reaches it came from askql
PREVIEW="SELECT pt_name, jumin_no, phone, birth_date, pt_no FROM patient ORDER BY pt_no"
BADCAST="SELECT jumin_no::bigint AS j FROM patient"
BADNAME="SELECT pt_name::integer AS x FROM patient"
GOOD="SELECT ward, count(*) AS n FROM patient GROUP BY ward ORDER BY ward"

# runs POLICY: the same questions, extraction and ReAct, with the request log started afresh
runs() {
	: >"$WORK/req.jsonl"
	# extraction: the schema block, then a database error quoting a name, then the retry with it
	script "[$(resp "$(jsql "$BADNAME")"), $(resp "$(jsql "$GOOD")")]"
	ask --mode extract "how many patients are on each ward"
	echo "$OUT" >"$WORK/$1.extract.json"
	# extraction: patients by department (visits joined)
	script "[$(resp "$(jsql "SELECT v.dept, count(DISTINCT v.pt_no) AS n FROM visit v GROUP BY v.dept")")]"
	ask --mode extract "patients seen by each department"
	# ReAct: a value search on the name column, a preview of identifier rows, a preview failing on a
	# registration number, a submit
	script "[$(resp "$(call search_column_values column patient.pt_name keyword 김)"),
	         $(resp "$(call search_column_values column patient.ward keyword wing)"),
	         $(resp "$(call explain sql "$PREVIEW")"),
	         $(resp "$(call execute_sql_preview sql "$PREVIEW")"),
	         $(resp "$(call explain sql "$BADCAST")"),
	         $(resp "$(call execute_sql_preview sql "$BADCAST")"),
	         $(resp "$(call explain sql "$GOOD")"),
	         $(resp "$(call submit_sql sql "$GOOD")")]"
	ASKQL_REACT_MAX_CALLS=10 ask --mode react "list the patients with their contact details, then count them per ward"
	echo "$OUT" >"$WORK/$1.react.json"
	cp "$WORK/req.jsonl" "$WORK/$1.req.jsonl"
}

# found FILE VALUES: the values of VALUES (one a line) found in any recorded body of FILE, in any form:
# the raw bytes, the parsed body as UTF-8 and as \u-escaped JSON
found() {
	python3 - "$1" "$2" <<'PY'
import json, sys
bodies = []
for line in open(sys.argv[1], encoding="utf-8"):
    e = json.loads(line)
    if not e["path"].endswith("/chat/completions"):
        continue
    bodies.append(e.get("raw", ""))
    bodies.append(json.dumps(e["body"], ensure_ascii=False))
    bodies.append(json.dumps(e["body"]))
vals = {v.strip() for v in open(sys.argv[2], encoding="utf-8") if len(v.strip()) >= 3}
hits = set()
for v in vals:
    forms = {v, json.dumps(v)[1:-1], json.dumps(v, ensure_ascii=False)[1:-1]}
    if any(f in b for f in forms for b in bodies):
        hits.add(v)
print("\n".join(sorted(hits)))
PY
}
nreq() { grep -c chat/completions "$1"; }

# a verified pair whose question (another analyst's words) names a patient by number and phone
VQ="how many patients are on each ward for patient 770707-1234567"
printf '%s\n' 770707-1234567 >"$WORK/vqvals"
out=$("$ASKQL" search --target "$DB" --add-verified "SELECT ward, count(*) AS n FROM patient GROUP BY ward" "$VQ" 2>&1); rc=$?
check "a verified pair naming a registration number in its question is recorded" '[ $rc -eq 0 ]' "$out"
"$ASKQL" target policy "$DB" schema >/dev/null
check "askql target policy shows the target's own setting" \
	'grep -q "llm_data_policy schema (target setting)" <<<"$("$ASKQL" target policy "$DB")"'
runs schema
check "schema: the model was asked (extraction and ReAct requests recorded)" '[ "$(nreq "$WORK/schema.req.jsonl")" -ge 10 ]' \
	"$(nreq "$WORK/schema.req.jsonl") requests; $(tail -5 "$WORK/stderr")"
check "schema: the extraction run retried after the database error and answered" \
	'[ "$(jget status <"$WORK/schema.extract.json")" = ok ] && [ "$(jget attempts <"$WORK/schema.extract.json")" = 2 ]' \
	"$(cat "$WORK/schema.extract.json")"
check "schema: the ReAct run submitted" '[ "$(jget status <"$WORK/schema.react.json")" = ok ]' "$(cat "$WORK/schema.react.json")"
run=$(jget run_id <"$WORK/schema.extract.json")
astep() { appsql "SELECT count(*) FROM askql.steps WHERE run_id = ${1:-0} AND name = 'answer'"; }
check "schema: the answer sentence was not asked of the model (its rows stay)" '[ "$(astep "$run")" = 0 ]'
h=$(found "$WORK/schema.req.jsonl" "$WORK/idvals")
check "schema: no identifier value in any request body" '[ -z "$h" ]' "$h"
h=$(found "$WORK/schema.req.jsonl" "$WORK/allvals")
check "schema: no stored value of any column in any request body" '[ -z "$h" ]' "$h"
h=$(found "$WORK/schema.req.jsonl" "$WORK/vqvals")
check "schema: the verified question reached the model without its registration number" \
	'[ -z "$h" ] && grep -q "how many patients are on each ward for patient …" "$WORK/schema.req.jsonl"' "$h"
check "schema: the preview told the model columns and row count instead of rows" \
	'grep -q "rows_withheld" "$WORK/schema.req.jsonl" && grep -q "row_count" "$WORK/schema.req.jsonl"'
check "schema: the database error reached the model as its SQLSTATE, without the message (issue 27)" \
	'grep -q "SQLSTATE 22P02" "$WORK/schema.req.jsonl" && ! grep -q "invalid input syntax for type" "$WORK/schema.req.jsonl"'

"$ASKQL" target policy "$DB" values >/dev/null
runs values
check "values: the model was asked" '[ "$(nreq "$WORK/values.req.jsonl")" -ge 10 ]'
check "values: both runs answered" '[ "$(jget status <"$WORK/values.extract.json")" = ok ] && [ "$(jget status <"$WORK/values.react.json")" = ok ]' \
	"$(cat "$WORK/values.extract.json" "$WORK/values.react.json")"
run=$(jget run_id <"$WORK/values.react.json")
check "values: the run's inspector step records the policy it ran under" \
	'[ "$(appsql "SELECT input::jsonb->>'\''llm_data_policy'\'' FROM askql.steps WHERE run_id = ${run:-0} AND name = '\''inspector'\''")" = values ]'
check "values: no answer sentence from the model either" '[ "$(astep "$(jget run_id <"$WORK/values.extract.json")")" = 0 ]'
h=$(found "$WORK/values.req.jsonl" "$WORK/idvals")
check "values: no identifier value in any request body" '[ -z "$h" ]' "$h"
h=$(found "$WORK/values.req.jsonl" "$WORK/allvals")
check "values: values of ordinary columns do reach the model (ward, department)" \
	'grep -q WESTWING7 <<<"$h" && grep -q CARDIOLOGY-OPD <<<"$h"' "$h"
check "values: the name column's value search says its values are withheld" \
	'grep -q "values_withheld" "$WORK/values.req.jsonl"'
h=$(found "$WORK/values.req.jsonl" "$WORK/vqvals")
check "values: nor the verified question's registration number" '[ -z "$h" ]' "$h"

# the default: with this loopback fake the global auto policy is rows; a hosted URL makes it values
"$ASKQL" target policy "$DB" default >/dev/null
check "default policy: rows for a model on this machine" \
	'grep -q "llm_data_policy rows (auto: llm_base_url is on this machine" <<<"$("$ASKQL" target policy "$DB")"'
check "default policy: values for a hosted endpoint" \
	'grep -q "llm_data_policy values (auto" <<<"$(ASKQL_LLM_BASE_URL=https://api.example.com/v1 "$ASKQL" target policy "$DB")"'
check "a word askql does not know is refused" '! "$ASKQL" target policy "$DB" everything 2>/dev/null'
"$ASKQL" target policy "$DB" rows >/dev/null
runs rows
h=$(found "$WORK/rows.req.jsonl" "$WORK/idvals")
check "rows: the preview rows reach the model (names, registration numbers, phones)" \
	'grep -qx 홍길동 <<<"$h" && grep -qx 800101-1234560 <<<"$h" && grep -qx 010-1234-5678 <<<"$h"' "$h"
# quoted: the message as the model got it, after 'integer: ' (PostgreSQL quotes the value); withheld = "…"
quoted() {
	python3 - "$1" <<'PY'
import json, re, sys
for line in open(sys.argv[1], encoding="utf-8"):
    for m in re.finditer(r'invalid input syntax for type integer: \\?"([^"\\]*)', json.loads(line).get("raw", "")):
        print(m.group(1))
PY
}
h=$(found "$WORK/rows.req.jsonl" "$WORK/vqvals")
check "rows: the verified question reaches the model as written (the check above can fail)" \
	'grep -qx 770707-1234567 <<<"$h"' "$h"
check "rows: the answer sentence is asked of the model with the aggregate's rows" \
	'[ "$(astep "$(jget run_id <"$WORK/rows.extract.json")")" = 1 ]'
q=$(quoted "$WORK/rows.req.jsonl")
check "rows: the database error reached the model as PostgreSQL wrote it (the name it quoted)" \
	'[ -n "$q" ] && ! grep -q "…" <<<"$q" && grep -qxFf "$WORK/idvals" <<<"$q"' "$q"
q=$(quoted "$WORK/values.req.jsonl")
check "values: the same error reached the model as its SQLSTATE only, no message text (issue 27)" \
	'[ -z "$q" ] && grep -q "SQLSTATE 22P02" "$WORK/values.req.jsonl"' "$q"

echo "1..$n"
