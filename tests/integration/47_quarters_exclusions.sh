#!/usr/bin/env bash
# 47_quarters_exclusions.sh: issue 26, eighth session: a quarter of a named year is a window of three months, not a breakdown by quarter over the year ("2025년 3분기", "Q1 2025", "the first quarter of 2025"), and a half year (하반기) six; exclusions said as "other than", "besides", "빼고", "말고", "제외하고" are declined, never read as the value they exclude (or as a stored value 'other'); "urology in-hospital death rate" is the deaths among urology cases, not the share of urology among deaths; "percentage of robotic cases in urology": urology is the base; "by case count" ranks by the count of cases; the follow-ups "성별로도" (by sex too) and "what about 2023?" (its year replaces the parent's); a Latin word with a Korean particle (urology에서); 성별로 나눠서 (split by sex) a grouping; "patients 65 and over" an age, not patient 65; "in-hospital death for A, as a percent": the death is the part; on a small schema written here with names of our own.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin quarters

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE op_case (case_no int PRIMARY KEY, patient_no int NOT NULL, ward_dept text NOT NULL, technique text NOT NULL,
  sex text NOT NULL, age int NOT NULL, died_in_hospital int NOT NULL, op_start timestamp NOT NULL);
COMMENT ON TABLE op_case IS 'surgical cases';
COMMENT ON COLUMN op_case.technique IS 'surgical approach';
COMMENT ON COLUMN op_case.ward_dept IS 'department';
COMMENT ON COLUMN op_case.died_in_hospital IS 'in-hospital death (1 yes, 0 no)';
INSERT INTO op_case SELECT g, 1 + g % 150, (ARRAY['general surgery', 'general surgery', 'general surgery', 'general surgery', 'general surgery', 'urology',
  'urology', 'urology', 'gynecology', 'gynecology'])[1 + g % 10],
  (ARRAY['robotic', 'open', 'laparoscopic', 'other'])[1 + g % 4], (ARRAY['F', 'M'])[1 + g % 2], 30 + (g * 7) % 61,
  (g % 9 = 0)::int, timestamp '2023-01-01' + g * interval '3 days' FROM generate_series(1, 360) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "2024년 3분기 robotic 수술 건수", "gold_sql": "SELECT count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2024-07-01' AND op_start < '2024-10-01'", "rule": "3분기 of a named year: July to September"}
{"question": "list robotic cases in Q1 2024", "gold_sql": "SELECT case_no FROM op_case WHERE technique = 'robotic' AND op_start >= '2024-01-01' AND op_start < '2024-04-01'", "rule": "Q1 before the year"}
{"question": "how many urology cases in the fourth quarter of 2023?", "gold_sql": "SELECT count(*) FROM op_case WHERE ward_dept = 'urology' AND op_start >= '2023-10-01' AND op_start < '2024-01-01'", "rule": "the fourth quarter of a year"}
{"question": "2024년 4분기 월별 케이스 수", "gold_sql": "SELECT date_trunc('month', op_start), count(*) FROM op_case WHERE op_start >= '2024-10-01' AND op_start < '2025-01-01' GROUP BY 1 ORDER BY 1", "rule": "a breakdown by month inside one quarter"}
{"question": "2024년 하반기 robotic 수술 건수", "gold_sql": "SELECT count(*) FROM op_case WHERE technique = 'robotic' AND op_start >= '2024-07-01' AND op_start < '2025-01-01'", "rule": "하반기: the second half of the year"}
{"question": "2024년 분기별 케이스 수", "gold_sql": "SELECT date_trunc('quarter', op_start), count(*) FROM op_case WHERE op_start >= '2024-01-01' AND op_start < '2025-01-01' GROUP BY 1 ORDER BY 1", "rule": "분기별 with no number: still a breakdown by quarter"}
{"question": "other than urology, how many robotic cases?", "expect": "declined", "gold_sql": "SELECT count(*) FROM op_case WHERE ward_dept <> 'urology' AND technique = 'robotic'", "rule": "other than: an exclusion, not the value 'other' and not urology itself"}
{"question": "robotic cases besides urology", "expect": "declined", "gold_sql": "SELECT case_no FROM op_case WHERE ward_dept <> 'urology' AND technique = 'robotic'", "rule": "besides: an exclusion"}
{"question": "urology 빼고 robotic 수술 건수", "expect": "declined", "gold_sql": "SELECT count(*) FROM op_case WHERE ward_dept <> 'urology' AND technique = 'robotic'", "rule": "빼고: an exclusion"}
{"question": "urology 말고 robotic 수술 건수", "expect": "declined", "gold_sql": "SELECT count(*) FROM op_case WHERE ward_dept <> 'urology' AND technique = 'robotic'", "rule": "말고: an exclusion"}
{"question": "urology in-hospital death rate", "gold_sql": "SELECT 100.0 * avg(died_in_hospital) FROM op_case WHERE ward_dept = 'urology'", "rule": "A B rate with no marker: B (right before rate) is the part, A the base, not the share of urology among deaths"}
{"question": "2024 robotic in-hospital death rate", "gold_sql": "SELECT 100.0 * avg(died_in_hospital) FROM op_case WHERE technique = 'robotic' AND op_start >= '2024-01-01' AND op_start < '2025-01-01'", "rule": "the same with a year"}
{"question": "percentage of robotic cases in urology in 2024", "gold_sql": "SELECT 100.0 * avg((technique = 'robotic')::int) FROM op_case WHERE ward_dept = 'urology' AND op_start >= '2024-01-01' AND op_start < '2025-01-01'", "rule": "percentage of B cases in A: A (after in) is the base"}
{"question": "top 2 departments by case count", "gold_sql": "SELECT ward_dept, count(*) FROM op_case GROUP BY ward_dept ORDER BY 2 DESC LIMIT 2", "rule": "by case count: ranked by the count of cases, not grouped per case"}
{"parent_question": "진료과별 robotic 수술 건수", "question": "성별로도", "gold_sql": "SELECT ward_dept, sex, count(*) FROM op_case WHERE technique = 'robotic' GROUP BY 1, 2", "rule": "성별로도 (by sex too): the parent grouped by sex as well, not a list of the sexes"}
{"parent_question": "how many urology cases in 2024?", "question": "what about 2023?", "gold_sql": "SELECT count(*) FROM op_case WHERE ward_dept = 'urology' AND op_start >= '2023-01-01' AND op_start < '2024-01-01'", "rule": "a follow-up's own year replaces the parent's"}
{"question": "urology에서 robotic 수술 몇 건", "gold_sql": "SELECT count(*) FROM op_case WHERE ward_dept = 'urology' AND technique = 'robotic'", "rule": "a Latin word with a Korean particle (urology에서): the word is the Latin part"}
{"question": "진료과별 robotic 수술 건수 성별로 나눠서", "gold_sql": "SELECT ward_dept, sex, count(*) FROM op_case WHERE technique = 'robotic' GROUP BY 1, 2", "rule": "X로 나눠서 (split by X): a grouping"}
{"question": "how many patients 65 and over had robotic surgery?", "gold_sql": "SELECT count(DISTINCT patient_no) FROM op_case WHERE age >= 65 AND technique = 'robotic'", "rule": "patients 65 and over: their age, not patient number 65"}
{"question": "In-hospital death for robotic urology cases in patients 65 and over, as a percent", "gold_sql": "SELECT 100.0 * avg(died_in_hospital) FROM op_case WHERE technique = 'robotic' AND ward_dept = 'urology' AND age >= 65", "rule": "the thing that opens the question, before for, is the part; not the share of urology"}
{"question": "how many other cases?", "gold_sql": "SELECT count(*) FROM op_case WHERE technique = 'other'", "rule": "other alone is still the stored value"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 21 ] || nok "twenty-one questions were scored (got $n)"
echo "1..$n"
