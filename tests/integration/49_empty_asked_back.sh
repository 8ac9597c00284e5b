#!/usr/bin/env bash
# 49_empty_asked_back.sh: issue 26, tenth session, on a schema of our own: an offline reading whose result has no row is asked back, naming the condition that alone matches nothing (or saying only the combination is empty), never shown as "none"; a count of zero is still answered; "수술한 환자 목록" on a schema where operations are one table among others must read the operations (declined, not every patient); "laparoscopic operations in 2025?" (rows named, neither how many nor which) is asked back; "수술 중 SBP 80 미만" (during or among?) is asked back, "수술중" is during, "수술 중에 SBP 80 미만 나온 수술 몇 건" (the event counted again) and "수술 중 laparoscopic 비율" are among them; patients are counted through the nearest table that holds them; N+ is N or more; two comparisons of one column that no value meets are declined; patients with a threshold and nothing asked of them are asked back; an English comment word said as a dimension must be grouped; a top N of a yes/no column is declined; on the demo, a column named as a bare word and left unused is declined ("department x year case counts" counted every case).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin emptyback

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE person (person_no int PRIMARY KEY, sex_cd text NOT NULL);
COMMENT ON TABLE person IS '환자 (patients)';
COMMENT ON COLUMN person.person_no IS '환자번호';
COMMENT ON COLUMN person.sex_cd IS '성별 (M 남자, F 여자)';
INSERT INTO person SELECT g, (ARRAY['M', 'F'])[1 + g % 2] FROM generate_series(1, 80) g;
CREATE TABLE operation (op_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person, op_method text NOT NULL,
  op_start timestamp NOT NULL, op_end timestamp NOT NULL);
COMMENT ON TABLE operation IS '수술 (operations)';
COMMENT ON COLUMN operation.op_method IS '수술 방법 (surgical approach): open, laparoscopic';
COMMENT ON COLUMN operation.op_start IS '수술 시작';
COMMENT ON COLUMN operation.op_end IS '수술 종료';
INSERT INTO operation SELECT g, 1 + g % 60, (ARRAY['open', 'laparoscopic', 'laparoscopic'])[1 + g % 3],
  timestamp '2025-03-01 08:00' + g * interval '1 day', timestamp '2025-03-01 10:00' + g * interval '1 day'
  FROM generate_series(1, 120) g;
CREATE TABLE diagnosis (dx_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person, dx_name text NOT NULL, main_yn text NOT NULL);
COMMENT ON TABLE diagnosis IS '진단 (diagnoses)';
COMMENT ON COLUMN diagnosis.dx_name IS '진단명 (diagnosis name)';
COMMENT ON COLUMN diagnosis.main_yn IS '주진단 여부 (main diagnosis: Y, N)';
INSERT INTO diagnosis SELECT g, 1 + g % 80, (ARRAY['pneumonia', 'sepsis', 'stroke', 'asthma'])[1 + g % 4], (ARRAY['Y', 'N', 'N'])[1 + g % 3]
  FROM generate_series(1, 200) g;
CREATE TABLE vital (vital_no int PRIMARY KEY, op_no int NOT NULL REFERENCES operation, rec_time timestamp NOT NULL, sbp int);
COMMENT ON TABLE vital IS '활력징후 (vital signs)';
COMMENT ON COLUMN vital.sbp IS '수축기 혈압 SBP (systolic blood pressure, mmHg)';
COMMENT ON COLUMN vital.rec_time IS '기록 시각';
-- low pressures are recorded before the incision only on odd operations, during it on multiples of 5
INSERT INTO vital SELECT g, 1 + g % 120, o.op_start + ((g / 120) * 30 - 60) * interval '1 minute',
  CASE WHEN (g / 120) = 0 AND o.op_no % 2 = 1 THEN 70 WHEN (g / 120) = 3 AND o.op_no % 5 = 0 THEN 75 ELSE 120 END
  FROM generate_series(1, 720) g JOIN operation o ON o.op_no = 1 + g % 120;
CREATE TABLE lab (lab_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person, test_name text NOT NULL,
  result_val numeric NOT NULL, taken_at timestamp NOT NULL);
COMMENT ON TABLE lab IS '검사 결과 (lab results)';
COMMENT ON COLUMN lab.test_name IS '검사명: potassium, sodium';
COMMENT ON COLUMN lab.result_val IS '결과값';
INSERT INTO lab SELECT g, 1 + g % 80, (ARRAY['potassium', 'sodium'])[1 + g % 2], CASE WHEN g % 2 = 0 THEN 3 + g % 4 ELSE 135 + g % 9 END,
  timestamp '2025-01-01' + g * interval '6 hours' FROM generate_series(1, 400) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "list the patients with potassium over 40", "expect": "declined", "gold_sql": "SELECT DISTINCT person_no FROM lab WHERE test_name = 'potassium' AND result_val > 40", "rule": "a list with no row is asked back, not shown as none"}
{"question": "number of patients with potassium over 40", "gold_sql": "SELECT count(DISTINCT person_no) FROM lab WHERE test_name = 'potassium' AND result_val > 40", "rule": "a count of zero is an answer"}
{"question": "수술받은 환자 목록 (환자번호)", "gold_sql": "SELECT DISTINCT person_no FROM operation", "rule": "the same with the patient number named: read from the operations"}
{"question": "laparoscopic operations in 2025?", "expect": "declined", "gold_sql": "SELECT count(*) FROM operation WHERE op_method = 'laparoscopic' AND op_start >= '2025-01-01' AND op_start < '2026-01-01'", "rule": "rows named, neither how many nor which: asked back"}
{"question": "수술 중 SBP 80 미만 환자 수", "expect": "declined", "gold_sql": "SELECT count(DISTINCT o.person_no) FROM vital v JOIN operation o ON o.op_no = v.op_no WHERE v.sbp < 80 AND v.rec_time >= o.op_start AND v.rec_time <= o.op_end", "rule": "수술 중 before a value measured in time: during or among? asked back"}
{"question": "수술 중에 SBP 80 미만 나온 수술 몇 건", "gold_sql": "SELECT count(DISTINCT v.op_no) FROM vital v WHERE v.sbp < 80", "rule": "수술 중에 ... 수술 몇 건: among the operations (the event word counted again), no window"}
{"question": "수술중 SBP 80 미만 환자 수", "gold_sql": "SELECT count(DISTINCT o.person_no) FROM vital v JOIN operation o ON o.op_no = v.op_no WHERE v.sbp < 80 AND v.rec_time >= o.op_start AND v.rec_time <= o.op_end", "rule": "수술중 in one word: during; the patients counted through the nearest table that holds them"}
{"question": "수술한 환자 목록", "expect": "declined", "gold_sql": "SELECT DISTINCT person_no FROM operation", "rule": "patients who had an operation: the operations must be read; a list of every patient is declined"}
{"question": "number of patients with potassium 5+", "gold_sql": "SELECT count(DISTINCT person_no) FROM lab WHERE test_name = 'potassium' AND result_val >= 5", "rule": "N+ is N or more"}
{"question": "number of patients with potassium over 10 and under 2", "expect": "declined", "gold_sql": "SELECT count(DISTINCT person_no) FROM lab WHERE test_name = 'potassium' AND result_val > 10 AND result_val < 2", "rule": "two comparisons of one column that no value meets: declined, not a count of 0"}
{"question": "patients with potassium over 5", "expect": "declined", "gold_sql": "SELECT count(DISTINCT person_no) FROM lab WHERE test_name = 'potassium' AND result_val > 5", "rule": "patients and a threshold, nothing asked of them: a count or a list? asked back"}
{"question": "approach x year operation counts", "expect": "declined", "gold_sql": "SELECT op_method, date_trunc('year', op_start), count(*) FROM operation GROUP BY 1, 2", "rule": "an English word found in a comment, said as a dimension (x, by), must be grouped: declined, not a count by year alone"}
{"question": "top 3 main diagnoses", "expect": "declined", "gold_sql": "SELECT dx_name, count(*) FROM diagnosis WHERE main_yn = 'Y' GROUP BY 1 ORDER BY 2 DESC LIMIT 3", "rule": "a top N of a yes/no column ranks nothing: declined"}
J
own_schema_eval "$TMP/q.jsonl"

# the reason names the condition that matches nothing, through the whole pipeline
out=$("$ASKQL" ask --target "$OWN_URL" --name "$DB" --now '2025-12-31 23:59:00' "list the patients with potassium over 40" 2>&1)
case $out in
*"empty result: each of the 2 conditions matches rows"*) ok "an empty combination is asked back, saying each condition alone matches rows" ;;
*) nok "an empty combination is asked back, saying each condition alone matches rows" "$out" ;;
esac
out=$("$ASKQL" ask --target "$OWN_URL" --name "$DB" --now '2025-12-31 23:59:00' "list the patients with a lab result taken in 2019" 2>&1)
case $out in
*"no row of the data matches 'lab.taken_at >= "*) ok "the time window that matches no row is named" ;;
*) nok "the time window that matches no row is named" "$out" ;;
esac
own_schema_expect "op_start" "수술중 SBP: the window is in the plan" "수술중 SBP 80 미만 환자 수"
out=$(own_schema_plan "수술 중 laparoscopic 비율")
case $out in
*"op_start"*) nok "수술 중 before an attribute of the operation: among them, no window" "$out" ;;
*) ok "수술 중 before an attribute of the operation: among them, no window" ;;
esac
# on the demo: a column named as a bare word ("department") is no label of its table; unused, the
# plan is declined, never a count of every case
for q in "department x year case counts" "department by year case counts" "number of departments"; do
	out=$("$ASKQL" eval --target demo --now '2025-12-31 23:59:00' --plan "$q" 2>&1)
	case $out in
	*"status: unanswerable"*"department"*) ok "a named column unused is declined: $q" ;;
	*) nok "a named column unused is declined: $q" "$out" ;;
	esac
done
[ "$n" -eq 20 ] || nok "twenty checks were made (got $n)"
echo "1..$n"
