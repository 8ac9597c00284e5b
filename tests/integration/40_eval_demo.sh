#!/usr/bin/env bash
# 40_eval_demo.sh: the demo dev set through `askql eval` (answers checked by execution), the comparator, and an EHRSQL subset.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
TMP=$(mktemp -d)
DB=eval_t_$$
GEN=eval_gen_$$
DIC=eval_dic_$$
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
cleanup() {
	psql -X -q -d askql -c "DELETE FROM askql.targets WHERE name IN ('$DB', '$GEN', '$DIC'); DELETE FROM askql.cat_targets WHERE name IN ('$DB', '$GEN', '$DIC')" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $GEN WITH (FORCE)" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DIC WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
NOW_DEMO='2025-12-31 23:59:00'

# figures of an outcome file: accuracy of answerable, share of unanswerable declined, RS(10)
figures() {
	python3 - "$1" <<'PY'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
ans = [x for x in o if x["answerable"]]
una = [x for x in o if not x["answerable"]]
c = sum(x["outcome"] == "correct" for x in ans)
d = sum(x["outcome"] == "declined_ok" for x in una)
bad = sum(x["outcome"] in ("wrong", "error", "answered_unanswerable") for x in o)
rs10 = (c + d - 10 * bad) / max(len(o), 1)
print(f"{len(o)} {100.0 * c / max(len(ans), 1):.1f} {100.0 * d / max(len(una), 1):.1f} {rs10:.3f}")
PY
}

# ---- the demo dev set, through the pipeline with the builtin provider ----
out=$("$ASKQL" eval --now "$NOW_DEMO" --out "$TMP/demo.jsonl" "$TOP/tests/data/demo_dev.jsonl" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "RS(10)" <<<"$out"; then ok "askql eval runs the demo dev set and prints the report"; else nok "askql eval runs the demo dev set" "$out"; fi
lines=$(grep -c . "$TOP/tests/data/demo_dev.jsonl")
got=$(grep -c . "$TMP/demo.jsonl" 2>/dev/null || echo 0)
[ "$lines" = "$got" ] && ok "one outcome per question ($got)" || nok "one outcome per question ($got of $lines)"
[ "$lines" -ge 60 ] && ok "the demo dev set has at least 60 questions ($lines)" || nok "the demo dev set has at least 60 questions ($lines)"
read -r total acc decl rs10 < <(figures "$TMP/demo.jsonl")
python3 -c "import sys; sys.exit(0 if float('$acc') >= 80 else 1)" && ok "demo execution accuracy $acc % >= 80 %" ||
	nok "demo execution accuracy $acc % >= 80 %" "$(grep -v '"correct"' "$TMP/demo.jsonl" | head -10)"
python3 -c "import sys; sys.exit(0 if float('$decl') >= 90 else 1)" && ok "demo unanswerable declined $decl % >= 90 %" ||
	nok "demo unanswerable declined $decl %"
grep -q '"path":"pipeline"' "$TMP/demo.jsonl" && ok "questions went through the agent pipeline" ||
	ok "questions went through the planner directly (no pipeline in this build) # SKIP"
python3 - "$TMP/demo.jsonl" <<'PY' && ok "declines carry a reason naming what is missing" || nok "declines carry a reason"
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
d = [x for x in o if x["outcome"] in ("declined", "declined_ok")]
sys.exit(0 if d and all(x.get("reason") for x in d) else 1)
PY

# ---- the comparator itself: gold rows, a wrong gold, ordering, a must-decline ----
cat >"$TMP/cmp.jsonl" <<'J'
{"question": "How many surgical cases are in the database?", "gold_answer": [[6388]]}
{"question": "How many surgical cases are in the database?", "gold_answer": [[6387]]}
{"question": "List the departments", "gold_answer": [["Urology"], ["General surgery"], ["Gynecology"], ["Thoracic surgery"]]}
{"question": "Who is the surgeon of case 3?", "answerable": false}
J
n_cases=$(psql -X -tA -d demo -c "SELECT count(*) FROM clinical_data_table" 2>/dev/null)
sed -i "s/\[\[6388\]\]/[[${n_cases:-6388}]]/" "$TMP/cmp.jsonl"
"$ASKQL" eval --now "$NOW_DEMO" --out "$TMP/cmp_out.jsonl" "$TMP/cmp.jsonl" >/dev/null 2>&1
oc=$(python3 -c "import json,sys; print(' '.join(json.loads(l)['outcome'] for l in open(sys.argv[1])))" "$TMP/cmp_out.jsonl" 2>/dev/null)
[ "$oc" = "correct wrong correct declined_ok" ] && ok "comparator: right rows, wrong rows, unordered multiset, must-decline ($oc)" ||
	nok "comparator outcomes: got '$oc'" "$(cat "$TMP/cmp_out.jsonl" 2>/dev/null)"

# ---- --plan shows the decisions ----
p=$("$ASKQL" eval --now "$NOW_DEMO" --plan "환자별 평균 심박수" 2>&1)
grep -q '"kind":"group"' <<<"$p" || grep -q 'GROUP BY' <<<"$p" && ok "--plan prints the SQL and the decisions" || nok "--plan output" "$p"

# ---- the product's headline question through the whole pipeline (guard, executor): a timeline of
# vitals and labs per patient over the last 24 hours, as one UNION ALL of long rows ----
j=$("$ASKQL" ask --json "지난 24시간 동안 환자별 바이탈, 랩 데이터를 타임라인으로 보여줘" 2>&1)
python3 - "$j" <<'PY' && ok "headline timeline: vitals and labs per patient, last 24 hours, through the pipeline" ||
import json, sys
d = json.loads(sys.argv[1])
cols = d.get("columns") or []
sql = d.get("sql") or ""
sys.exit(0 if d.get("status") == "ok" and d.get("row_count", 0) > 0 and "UNION ALL" in sql and
         cols[:1] == ["subjectid"] and {"event_time", "measure", "value"} <= set(cols) and
         "vital_data_table" in sql and "lab_data_table" in sql else 1)
PY
	nok "headline timeline question" "$j"

# ---- a subset of EHRSQL (first 120 questions), planner on its own schema snapshot ----
SHARED=$TOP/../shared
[ -d "$SHARED/eval/ehrsql2024" ] || SHARED=/work/shared
EHR=$SHARED/eval/ehrsql2024
if [ -f "$EHR/load_pg.sql" ]; then
	psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null 2>&1
	(cd "$EHR" && psql -X -q -d "$DB" -f load_pg.sql >/dev/null 2>&1)
	head -120 "$EHR/valid.jsonl" >"$TMP/ehr.jsonl"
	# a target is registered and indexed before it is asked (docs/targets.md)
	"$ASKQL" index --quiet --target "host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}" --name "$DB" >/dev/null 2>&1
	"$ASKQL" eval --direct --target "host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}" --name "$DB" \
		--now '2100-12-31 23:59:00' --out "$TMP/ehr_out.jsonl" "$TMP/ehr.jsonl" >"$TMP/ehr_report.txt" 2>&1
	# a retry after an empty first answer, on a question whose second plan is declined for its
	# visit word, crashed the planner (strcmp of the declined plan's NULL SQL); from the development
	# probe ehrsql_dev_new_2, line 28
	sed -n 28p "$TOP/tests/data/eval_probe/ehrsql_dev_new_2.jsonl" >"$TMP/retry.jsonl"
	"$ASKQL" eval --direct --target "host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}" --name "$DB" \
		--now '2100-12-31 23:59:00' "$TMP/retry.jsonl" >"$TMP/retry.txt" 2>&1
	rc=$?
	[ "$rc" = 0 ] && ok "a retry whose second plan is declined ends without a crash" ||
		nok "a retry whose second plan is declined: exit $rc" "$(tail -5 "$TMP/retry.txt")"
	read -r total acc decl rs10 < <(figures "$TMP/ehr_out.jsonl")
	python3 -c "import sys; sys.exit(0 if float('$acc') >= 40 and float('$decl') >= 90 and float('$rs10') > 0 else 1)" &&
		ok "EHRSQL subset ($total): answerable $acc % >= 40 %, unanswerable declined $decl % >= 90 %, RS(10) $rs10 > 0" ||
		nok "EHRSQL subset ($total): answerable $acc %, declined $decl %, RS(10) $rs10" "$(cat "$TMP/ehr_report.txt")"
else
	ok "EHRSQL subset # SKIP benchmark not found"
fi

# ---- a database the planner was not built on: other names, declared FKs, no metadata ----
psql -X -q -d postgres -c "CREATE DATABASE $GEN" >/dev/null 2>&1
psql -X -q -d "$GEN" >/dev/null 2>&1 <<'SQL'
SELECT setseed(0.42);
CREATE TABLE patient (id int PRIMARY KEY, full_name text, birth_date date, gender text);
CREATE TABLE encounter (id int PRIMARY KEY, patient_id int REFERENCES patient(id), admitted_at timestamp,
                        discharged_at timestamp, ward text);
CREATE TABLE observation (id int PRIMARY KEY, encounter_id int REFERENCES encounter(id), code text, value numeric,
                          taken_at timestamp);
CREATE TABLE medication_order (id int PRIMARY KEY, encounter_id int REFERENCES encounter(id), drug_name text,
                               dose_mg numeric, ordered_at timestamp);
INSERT INTO patient SELECT g, 'p' || g, date '1940-01-01' + (random() * 20000)::int,
       CASE WHEN random() < 0.5 THEN 'F' ELSE 'M' END FROM generate_series(1, 200) g;
INSERT INTO encounter SELECT g, 1 + (random() * 199)::int, t, t + interval '3 days',
       (ARRAY['cardiology','surgery','icu','oncology'])[1 + (random() * 3)::int]
  FROM (SELECT g, timestamp '2023-01-01' + random() * interval '1000 days' t FROM generate_series(1, 500) g) x;
INSERT INTO observation SELECT g, 1 + (random() * 499)::int, (ARRAY['HR','TEMP','SBP'])[1 + (random() * 2)::int],
       round((50 + random() * 100)::numeric, 1), timestamp '2023-01-01' + random() * interval '1000 days'
  FROM generate_series(1, 5000) g;
INSERT INTO medication_order SELECT g, 1 + (random() * 499)::int,
       (ARRAY['amoxicillin','heparin','insulin','morphine'])[1 + (random() * 3)::int], round((random() * 500)::numeric, 0),
       timestamp '2023-01-01' + random() * interval '1000 days' FROM generate_series(1, 3000) g;
SQL
cat >"$TMP/gen.jsonl" <<'J'
{"question": "How many patients are there?", "gold_sql": "SELECT count(*) FROM patient"}
{"question": "number of encounters per ward", "gold_sql": "SELECT ward, count(*) FROM encounter GROUP BY ward"}
{"question": "average heart rate", "gold_sql": "SELECT avg(value) FROM observation WHERE code = 'HR'"}
{"question": "top 2 drugs by number of orders", "gold_sql": "SELECT drug_name FROM (SELECT drug_name, dense_rank() OVER (ORDER BY count(*) DESC) r FROM medication_order GROUP BY drug_name) t WHERE r <= 2"}
{"question": "List the drugs ordered in encounter 5", "gold_sql": "SELECT DISTINCT drug_name FROM medication_order WHERE encounter_id = 5"}
{"question": "When was patient 3 first admitted?", "gold_sql": "SELECT min(admitted_at) FROM encounter WHERE patient_id = 3"}
{"question": "How many encounters started in 2024?", "gold_sql": "SELECT count(*) FROM encounter WHERE admitted_at >= '2024-01-01' AND admitted_at < '2025-01-01'"}
{"question": "maximum temperature in encounter 10", "gold_sql": "SELECT max(value) FROM observation WHERE encounter_id = 10 AND code = 'TEMP'"}
{"question": "average dose of amoxicillin", "gold_sql": "SELECT avg(dose_mg) FROM medication_order WHERE drug_name = 'amoxicillin'"}
{"question": "timeline of observations and medication orders of encounter 5", "gold_sql": "SELECT taken_at, code, value FROM observation WHERE encounter_id = 5 AND value IS NOT NULL UNION ALL SELECT ordered_at, drug_name, dose_mg FROM medication_order WHERE encounter_id = 5 AND dose_mg IS NOT NULL"}
{"question": "What is the billing address of patient 4?", "answerable": false}
J
"$ASKQL" index --quiet --target "host=$PGHOST port=$PGPORT dbname=$GEN user=${PGUSER:-askql}" --name "$GEN" >/dev/null 2>&1
"$ASKQL" eval --direct --target "host=$PGHOST port=$PGPORT dbname=$GEN user=${PGUSER:-askql}" --name "$GEN" \
	--now '2025-12-31 23:59:00' --out "$TMP/gen_out.jsonl" "$TMP/gen.jsonl" >"$TMP/gen_report.txt" 2>&1
read -r total acc decl rs10 < <(figures "$TMP/gen_out.jsonl")
python3 -c "import sys; sys.exit(0 if float('$acc') >= 70 and float('$decl') >= 90 else 1)" &&
	ok "unseen schema ($total questions): answerable $acc % >= 70 %, unanswerable declined $decl %" ||
	nok "unseen schema: answerable $acc %, declined $decl %" "$(cat "$TMP/gen_report.txt"; grep -v '"correct"' "$TMP/gen_out.jsonl")"

# ---- a coded schema: a patient number known only by its comment (환자번호), test codes in a
# dictionary table, several aggregates, a month name.  Each plan's SQL is checked by execution
# against gold SQL, and the question shape the planner used is checked too ----
psql -X -q -d postgres -c "CREATE DATABASE $DIC" >/dev/null 2>&1
psql -X -q -d "$DIC" >/dev/null 2>&1 <<'SQL'
SELECT setseed(0.17);
CREATE TABLE code_book (code_id int PRIMARY KEY, code_label text NOT NULL);
COMMENT ON TABLE code_book IS '검사 코드 사전 test code dictionary';
CREATE TABLE result_row (row_no int PRIMARY KEY, pno int NOT NULL, code_id int REFERENCES code_book(code_id),
                         amount numeric, taken timestamp);
COMMENT ON COLUMN result_row.pno IS '환자번호';
COMMENT ON COLUMN result_row.amount IS '검사 결과값 result value';
INSERT INTO code_book VALUES (1, 'glucose'), (2, 'sodium'), (3, 'lactate');
INSERT INTO result_row SELECT g, 1 + (random() * 39)::int, 1 + (random() * 2)::int, round((1 + random() * 150)::numeric, 1),
       timestamp '2024-01-01' + random() * interval '400 days' FROM generate_series(1, 900) g;
SQL
cat >"$TMP/dic.jsonl" <<'J'
{"question": "환자 수", "gold_sql": "SELECT count(DISTINCT pno) FROM result_row", "shape": "aggregate"}
{"question": "lowest, highest and average glucose", "gold_sql": "SELECT min(amount), max(amount), avg(amount) FROM result_row r JOIN code_book c USING (code_id) WHERE c.code_label = 'glucose'", "shape": "summary"}
{"question": "how many sodium results in March 2024", "gold_sql": "SELECT count(*) FROM result_row r JOIN code_book c USING (code_id) WHERE c.code_label = 'sodium' AND taken >= '2024-03-01' AND taken < '2024-04-01'", "shape": "aggregate"}
{"question": "the 2 tests done for the most patients", "gold_sql": "SELECT code_label, n FROM (SELECT c.code_label, count(DISTINCT pno) n, dense_rank() OVER (ORDER BY count(DISTINCT pno) DESC) r FROM result_row JOIN code_book c USING (code_id) GROUP BY c.code_label) t WHERE r <= 2", "shape": "top_n"}
{"question": "glucose 100 이상 나온 적 있는 환자 몇 명?", "gold_sql": "SELECT count(DISTINCT pno) FROM result_row r JOIN code_book c USING (code_id) WHERE c.code_label = 'glucose' AND amount >= 100", "shape": "aggregate"}
J
"$ASKQL" index --quiet --target "host=$PGHOST port=$PGPORT dbname=$DIC user=${PGUSER:-askql}" --name "$DIC" >/dev/null 2>&1
"$ASKQL" eval --direct --target "host=$PGHOST port=$PGPORT dbname=$DIC user=${PGUSER:-askql}" --name "$DIC" \
	--now '2025-12-31 23:59:00' --out "$TMP/dic_out.jsonl" "$TMP/dic.jsonl" >"$TMP/dic_report.txt" 2>&1
while IFS= read -r line; do
	case $line in
	OK\ *) ok "coded schema: ${line#OK }" ;;
	*) nok "coded schema: ${line#NOK }" "$(cat "$TMP/dic_report.txt")" ;;
	esac
done < <(python3 "$TOP/tests/lib/eval_expect.py" "$TMP/dic.jsonl" "$TMP/dic_out.jsonl")
