#!/usr/bin/env bash
# 51_ranked_people_shares.sh: issue 26, twelfth session, on a schema of our own (docs/coverage.md, "Own phrasings hunted for wrong numbers (twelfth session)"): patients ranked by how many rows each has ("입원이 가장 많은 환자 5명", "patients with the most admissions", "top 3 patients by number of admissions") rank the patients, never the label of the rows (the department), and "가장 최근" is no ranking by count; a word for patients counted after "most" still counts them per department; a yes/no column is never what is ranked ("most common main diagnoses"); a superlative of an average ("평균 나이가 가장 높은 성별") keeps the top group, and "longest average ... by sex" is declined, never MAX and AVG of each group; a share of patients over a table of many rows per patient (lab results) is declined, never the share of the rows; a trend (추이) with no period is declined, never one total; "지난 분기" is one period, never a breakdown by quarter; "2024-2025" is no date in year 2192; "한 번만", "두 번", "once", "twice" are counts of times; "2025년 남자 환자 수" never counts the men born in 2025; a follow-up "평균 나이는?" keeps the previous question's filter; on the demo, a duration word the plan does not measure ("propofol 투여한 케이스의 평균 수술시간" averaged the doses) is declined; "높았던" / "낮았던" with no number are declined, never dropped; "BMI가 높은" / "BMI 높은" says the BMI is high, never that the age exceeds the BMI.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin ranked
trap own_schema_cleanup EXIT

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE member (member_no int PRIMARY KEY, sex_cd text NOT NULL, age int NOT NULL, bmi numeric NOT NULL, brth_dt date NOT NULL);
COMMENT ON TABLE member IS '환자 (patients)';
COMMENT ON COLUMN member.member_no IS '환자번호 (patient number)';
COMMENT ON COLUMN member.sex_cd IS '성별 (M 남자, F 여자)';
COMMENT ON COLUMN member.age IS '나이 (age)';
COMMENT ON COLUMN member.bmi IS '체질량지수 BMI';
COMMENT ON COLUMN member.brth_dt IS '생년월일 (date of birth)';
INSERT INTO member SELECT g, (ARRAY['M', 'F'])[1 + g % 2], 20 + g % 70, 18 + (g % 17), date '2025-12-31' - (20 + g % 70) * 365
  FROM generate_series(1, 200) g;
CREATE TABLE stay (stay_no int PRIMARY KEY, member_no int NOT NULL REFERENCES member, dept_nm text NOT NULL,
  adm_dt timestamp NOT NULL, died_yn int NOT NULL);
COMMENT ON TABLE stay IS '입원 (admissions)';
COMMENT ON COLUMN stay.dept_nm IS '진료과 (department): surgery, medicine, neurology';
COMMENT ON COLUMN stay.adm_dt IS '입원일시 (admission time)';
COMMENT ON COLUMN stay.died_yn IS '사망 여부 (died in hospital) 1 yes, 0 no';
-- one stay per patient, and 20 + k more for patients 1..5: the top five are told apart
INSERT INTO stay SELECT g, g, (ARRAY['surgery', 'medicine', 'neurology'])[1 + g % 3],
  timestamp '2025-01-01' + g * interval '13 hours', (g % 11 = 0)::int FROM generate_series(1, 200) g;
INSERT INTO stay SELECT 1000 + k * 100 + j, k, 'medicine', timestamp '2025-03-01' + j * interval '1 day', 0
  FROM generate_series(1, 5) k, generate_series(1, 20) j WHERE j <= 15 + k;
CREATE TABLE result (result_no int PRIMARY KEY, stay_no int NOT NULL REFERENCES stay, member_no int NOT NULL REFERENCES member,
  test_nm text NOT NULL, val numeric NOT NULL);
COMMENT ON TABLE result IS '검사 결과 (lab results)';
COMMENT ON COLUMN result.test_nm IS '검사명: potassium, sodium';
COMMENT ON COLUMN result.val IS '결과값 (result value)';
INSERT INTO result SELECT g, 1 + g % 200, 1 + g % 200, (ARRAY['potassium', 'sodium'])[1 + g % 2],
  CASE WHEN g % 2 = 0 THEN 3 + (g % 7) * 0.5 ELSE 135 + g % 9 END FROM generate_series(1, 1600) g;
CREATE TABLE dx_dict (dx_cd text PRIMARY KEY, dx_nm text NOT NULL);
COMMENT ON TABLE dx_dict IS '진단 코드 사전 (diagnosis dictionary)';
INSERT INTO dx_dict VALUES ('I10', 'hypertension'), ('E11', 'type 2 diabetes'), ('J18', 'pneumonia'), ('I50', 'heart failure');
CREATE TABLE dx (dx_no int PRIMARY KEY, stay_no int NOT NULL REFERENCES stay, member_no int NOT NULL REFERENCES member,
  dx_cd text NOT NULL REFERENCES dx_dict, main_yn text NOT NULL);
COMMENT ON TABLE dx IS '진단 (diagnoses)';
COMMENT ON COLUMN dx.main_yn IS '주진단 여부 (main diagnosis) Y/N';
INSERT INTO dx SELECT g, 1 + g % 200, 1 + g % 200, (ARRAY['I10', 'E11', 'J18', 'I50'])[1 + g % 4], CASE WHEN g % 3 = 0 THEN 'Y' ELSE 'N' END
  FROM generate_series(1, 500) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "입원이 가장 많은 환자 5명", "gold_sql": "SELECT member_no, count(*) FROM stay GROUP BY 1 ORDER BY 2 DESC LIMIT 5", "rule": "the patients are ranked by their admissions, not the departments"}
{"question": "patients with the most admissions", "gold_sql": "SELECT member_no, count(*) FROM stay GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "the same in English, the people before 'most'"}
{"question": "top 3 patients by number of admissions", "gold_sql": "SELECT member_no, count(*) FROM stay GROUP BY 1 ORDER BY 2 DESC LIMIT 3", "rule": "the same after 'top N'"}
{"question": "가장 최근 입원한 환자 5명", "expect": "declined", "gold_sql": "SELECT member_no, adm_dt FROM stay ORDER BY adm_dt DESC LIMIT 5", "rule": "가장 최근 is an order in time: never the patients with the most admissions"}
{"question": "입원 건수 추이", "expect": "declined", "gold_sql": "SELECT date_trunc('month', adm_dt), count(*) FROM stay GROUP BY 1 ORDER BY 1", "rule": "a trend (추이) with no period: declined, never one total"}
{"question": "월별 입원 건수 추이", "gold_sql": "SELECT date_trunc('month', adm_dt), count(*) FROM stay GROUP BY 1 ORDER BY 1", "rule": "a trend per month: the monthly series (control)"}
{"question": "지난 분기 입원 건수", "expect": "declined", "gold_sql": "SELECT count(*) FROM stay WHERE adm_dt >= '2025-07-01' AND adm_dt < '2025-10-01'", "rule": "지난 분기 is one period: never a breakdown by every quarter"}
{"question": "2024-2025 입원 건수", "expect": "declined", "gold_sql": "SELECT count(*) FROM stay WHERE adm_dt >= '2024-01-01' AND adm_dt < '2026-01-01'", "rule": "a span of years is no month 2025: never dated in 2192"}
{"question": "한 번만 입원한 환자 수", "expect": "declined", "gold_sql": "SELECT count(*) FROM (SELECT member_no FROM stay GROUP BY 1 HAVING count(*) = 1) t", "rule": "한 번만 is a count of times: never every patient"}
{"question": "두 번 이상 입원한 환자 수", "gold_sql": "SELECT count(*) FROM (SELECT member_no FROM stay GROUP BY 1 HAVING count(*) >= 2) t", "rule": "두 번 is 2 times, as 2번 is"}
{"question": "2025년 남자 환자 수", "expect": "declined", "gold_sql": "SELECT count(DISTINCT m.member_no) FROM member m JOIN stay s USING (member_no) WHERE m.sex_cd = 'M' AND s.adm_dt >= '2025-01-01'", "rule": "a year said of patients never falls on their date of birth"}
{"question": "평균 나이는?", "parent_question": "남자 환자 수", "gold_sql": "SELECT avg(age) FROM member WHERE sex_cd = 'M'", "rule": "a follow-up 'X는?' is read with the previous question: the men's average age, never everyone's"}
{"question": "most common main diagnoses", "expect": "declined", "gold_sql": "SELECT d.dx_nm, count(*) FROM dx JOIN dx_dict d USING (dx_cd) WHERE main_yn = 'Y' GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "a yes/no column is never what is ranked"}
{"question": "share of patients with a potassium above 5.0", "expect": "declined", "gold_sql": "SELECT round(100.0 * count(DISTINCT member_no) FILTER (WHERE val > 5) / count(DISTINCT member_no), 2) FROM result WHERE test_nm = 'potassium'", "rule": "a share of patients over lab rows: declined, never the share of the rows"}
{"question": "potassium 수치가 높았던 환자 수", "expect": "declined", "gold_sql": "SELECT count(DISTINCT member_no) FROM result WHERE test_nm = 'potassium' AND val > 5", "rule": "높았던 with no number: declined, never dropped"}
{"question": "BMI가 높은 환자 평균 나이", "expect": "declined", "gold_sql": "SELECT avg(age) FROM member WHERE bmi >= 30", "rule": "BMI가 높은 is a high BMI, never an age above the BMI"}
{"question": "BMI 높은 환자 평균 나이", "expect": "declined", "gold_sql": "SELECT avg(age) FROM member WHERE bmi >= 30", "rule": "the same without the particle"}
{"question": "평균 나이가 가장 높은 성별", "gold_sql": "SELECT sex_cd, avg(age) FROM member GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "the group with the highest average, not every group's average (성별 ends in 별)"}
{"question": "평균 BMI 제일 높은 성별", "gold_sql": "SELECT sex_cd, avg(bmi) FROM member GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "the same with 제일 and no particle"}
{"question": "longest average bmi by sex", "expect": "declined", "gold_sql": "SELECT sex_cd, avg(bmi) FROM member GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "a superlative of an average ranks the groups: never MAX and AVG of each"}
{"question": "BMI 30 이상 환자의 평균 나이", "gold_sql": "SELECT avg(age) FROM member WHERE bmi >= 30", "rule": "with a number the threshold is read (control)"}
J
own_schema_eval "$TMP/q.jsonl"

# the people counted after "most" are still counted, per department
own_schema_expect "COUNT(DISTINCT" "the patients after 'most' are counted per department" "which department has the most patients"
out=$(own_schema_plan "입원이 가장 많은 환자 5명")
case $out in
*"GROUP BY stay.dept_nm"*) nok "the departments are not what is ranked" "$out" ;;
*"GROUP BY stay.member_no"*) ok "the departments are not what is ranked" ;;
*) nok "the departments are not what is ranked" "$out" ;;
esac
# on the demo database: a duration word the plan does not measure, and LOS that also names a drug
out=$("$ASKQL" eval --target demo --now '2025-12-31 23:59:00' --plan "propofol 투여한 케이스의 평균 수술시간" 2>&1)
case $out in
*"asks for a duration ('시간')"*) ok "a duration asked and not measured is declined, never the propofol dose averaged" ;;
*) nok "a duration asked and not measured is declined, never the propofol dose averaged" "$out" ;;
esac
out=$("$ASKQL" eval --target demo --now '2025-12-31 23:59:00' --plan "average ICU time" 2>&1)
case $out in
*"AVG(clinical_data_table.icu_days)"*) ok "a measure that is itself a span of days answers 'ICU time' (control)" ;;
*) nok "a measure that is itself a span of days answers 'ICU time' (control)" "$out" ;;
esac
[ "$n" -eq 25 ] || nok "twenty-five checks were made (got $n)"
echo "1..$n"
