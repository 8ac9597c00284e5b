#!/usr/bin/env bash
# 46_analyst_shorthand.sh: issue 26, seventh session: how analysts type (the blind everyday sets' development halves): 몇건임 (a casual ending), w/ and w/o, "per quarter", "ops", a two-digit year (25년) and a span of years (3년 동안), "소수 첫째 자리" spaced, "patients over 80" as an age beside another measure, "aged 65 or older" not also the elderly concept, "in that same case", "of the A, what percentage were B" (A the base), cases counted where each row is one case, two same-way thresholds on one measure declined, 몇명 counting people, "with an ICU stay" as ICU days > 0, and the follow-up "break it down by X", on a small schema written here with names of our own.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin shorthand

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE op_case (case_no int PRIMARY KEY, patient_no int NOT NULL, ward_dept text NOT NULL, technique text NOT NULL,
  sex text NOT NULL, age int NOT NULL, diabetes int NOT NULL, died_in_hospital int NOT NULL, op_start timestamp NOT NULL, icu_days int NOT NULL);
COMMENT ON TABLE op_case IS 'surgical cases';
COMMENT ON COLUMN op_case.technique IS 'surgical approach';
COMMENT ON COLUMN op_case.ward_dept IS 'department';
COMMENT ON COLUMN op_case.diabetes IS 'diabetes (1 yes, 0 no)';
COMMENT ON COLUMN op_case.died_in_hospital IS 'in-hospital death (1 yes, 0 no)';
CREATE TABLE case_lab (lab_no int PRIMARY KEY, case_no int NOT NULL REFERENCES op_case, test text NOT NULL,
  value numeric NOT NULL, drawn timestamp NOT NULL);
COMMENT ON TABLE case_lab IS 'laboratory results of each case';
INSERT INTO op_case SELECT g, 1 + g % 150, (ARRAY['general surgery', 'urology', 'gynecology'])[1 + g % 3],
  (ARRAY['robotic', 'open', 'laparoscopic', 'open'])[1 + g % 4], (ARRAY['F', 'M'])[1 + g % 2], 30 + (g * 7) % 61,
  (g % 5 = 0)::int, (g % 9 = 0)::int, timestamp '2023-01-01' + g * interval '3 days', (g % 7) / 3 FROM generate_series(1, 360) g;
INSERT INTO case_lab SELECT g, 1 + g % 360, (ARRAY['lactate', 'sodium'])[1 + g % 2], (ARRAY[1.5, 138, 4.6, 131, 2.2, 141])[1 + g % 6],
  timestamp '2023-01-01' + g * interval '1 day' FROM generate_series(1, 900) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "2024년 robotic 수술 몇건임?", "gold_sql": "SELECT count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2024-01-01' AND op_start < '2025-01-01'", "rule": "몇건임: a casual ending on how many"}
{"question": "share of robotic cases w/ diabetes, in %", "gold_sql": "SELECT 100.0 * avg(diabetes) FROM op_case WHERE technique = 'robotic'", "rule": "w/ is with"}
{"question": "robotic ops per quarter in 2024", "gold_sql": "SELECT date_trunc('quarter', op_start), count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2024-01-01' AND op_start < '2025-01-01' GROUP BY 1", "rule": "ops per quarter: the operations counted in each quarter"}
{"question": "25년 월별 robotic 케이스 수", "gold_sql": "SELECT date_trunc('month', op_start), count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2025-01-01' AND op_start < '2026-01-01' GROUP BY 1 ORDER BY 1", "rule": "25년: the year 2025"}
{"question": "최근 2년 동안 robotic 수술 건수", "gold_sql": "SELECT count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2023-12-31 23:59'", "rule": "2년 동안: a span of two years, not the year 2002"}
{"question": "진료과별 diabetes 비율 (%) 소수 첫째 자리", "gold_sql": "SELECT ward_dept, round(100.0 * avg(diabetes), 1) FROM op_case GROUP BY ward_dept", "rule": "소수 첫째 자리, spaced: one decimal"}
{"question": "월별 케이스 수", "gold_sql": "SELECT date_trunc('month', op_start), count(*) FROM op_case GROUP BY 1 ORDER BY 1", "rule": "cases counted in the table where each row is one case, not in a table named after it (case_lab)"}
{"question": "# of cases in pts over 80 w/ any lactate >4", "gold_sql": "SELECT count(DISTINCT c.case_no) FROM op_case c JOIN case_lab l USING (case_no) WHERE c.age > 80 AND l.test = 'lactate' AND l.value > 4", "rule": "patients over 80 beside a lactate above 4: the 80 is their age"}
{"question": "how many female patients aged 65 or older had a lactate above 4 in that same case?", "gold_sql": "SELECT count(DISTINCT c.patient_no) FROM op_case c JOIN case_lab l USING (case_no) WHERE c.sex = 'F' AND c.age >= 65 AND l.test = 'lactate' AND l.value > 4", "rule": "aged 65 or older is the age compared; in that same case asks nothing more"}
{"question": "Of the cases that ended in an in-hospital death, what percentage were patients aged 70 or older?", "gold_sql": "SELECT 100.0 * avg((age >= 70)::int) FROM op_case WHERE died_in_hospital = 1", "rule": "of the A, what percentage were B: A is the base"}
{"question": "average age across robotic cases", "gold_sql": "SELECT avg(age) FROM op_case WHERE technique = 'robotic'", "rule": "across the cases named: over them"}
{"question": "how many diabetic women over 60 had a lactate above 4 in the same case?", "gold_sql": "SELECT count(DISTINCT c.patient_no) FROM op_case c JOIN case_lab l USING (case_no) WHERE c.sex = 'F' AND c.diabetes = 1 AND c.age > 60 AND l.test = 'lactate' AND l.value > 4", "rule": "women over 60: their age, not a second lactate threshold"}
{"question": "how many cases had a lactate above 2 and a sodium above 135?", "expect": "declined", "gold_sql": "SELECT count(*) FROM op_case c WHERE EXISTS (SELECT 1 FROM case_lab l WHERE l.case_no = c.case_no AND l.test = 'lactate' AND l.value > 2) AND EXISTS (SELECT 1 FROM case_lab l WHERE l.case_no = c.case_no AND l.test = 'sodium' AND l.value > 135)", "rule": "two numbers compared the same way with one measure column: declined, not both on one row"}
{"question": "urology 여자 65세 이상 몇명", "gold_sql": "SELECT count(DISTINCT patient_no) FROM op_case WHERE ward_dept = 'urology' AND sex = 'F' AND age >= 65", "rule": "몇명 counts people, not cases"}
{"question": "how many robotic cases w/ an ICU stay in 2025?", "gold_sql": "SELECT count(*) FROM op_case WHERE technique = 'robotic' AND icu_days > 0 AND op_start >= '2025-01-01' AND op_start < '2026-01-01'", "rule": "with a count of days and no comparison: more than zero"}
{"parent_question": "How many robotic cases in 2025?", "question": "break it down by department", "gold_sql": "SELECT ward_dept, count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2025-01-01' AND op_start < '2026-01-01' GROUP BY ward_dept", "rule": "break it down by X: the parent grouped by X"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 16 ] || nok "sixteen questions were scored (got $n)"
echo "1..$n"
