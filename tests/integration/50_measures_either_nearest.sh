#!/usr/bin/env bash
# 50_measures_either_nearest.sh: issue 26, eleventh session, on a schema of our own: a number said right after a numeric column is compared with that column, never with the first numeric column the question named ("average age of patients with bmi over 30" compared the age and averaged the bmi); two measures joined by and/와 ("진료과별 입원 건수와 사망 건수", "number of admissions and number of deaths") are declined naming them, never one count with the other's filter on it; two values of one column ("남자 환자 수와 여자 환자 수") are one count split by it; the count said again beside the columns shown is the same count; two flags said as alternatives ("diabetes or hypertension") are declined, never ANDed.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin measures

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE member (member_no int PRIMARY KEY, sex_cd text NOT NULL, age int NOT NULL, bmi numeric NOT NULL,
  asa_class int NOT NULL, dm_yn int NOT NULL, htn_yn int NOT NULL);
COMMENT ON TABLE member IS '환자 (patients)';
COMMENT ON COLUMN member.member_no IS '환자번호 (patient number)';
COMMENT ON COLUMN member.sex_cd IS '성별 (M 남자, F 여자)';
COMMENT ON COLUMN member.age IS '나이 (age)';
COMMENT ON COLUMN member.bmi IS '체질량지수 BMI';
COMMENT ON COLUMN member.asa_class IS 'ASA 등급 (ASA class 1-5)';
COMMENT ON COLUMN member.dm_yn IS '당뇨 (diabetes) 1 yes, 0 no';
COMMENT ON COLUMN member.htn_yn IS '고혈압 (hypertension) 1 yes, 0 no';
INSERT INTO member SELECT g, (ARRAY['M', 'F'])[1 + g % 2], 20 + g % 70, 18 + (g % 17), 1 + g % 5, (g % 4 = 0)::int, (g % 3 = 0)::int
  FROM generate_series(1, 300) g;
CREATE TABLE stay (stay_no int PRIMARY KEY, member_no int NOT NULL REFERENCES member, dept_nm text NOT NULL,
  adm_dt timestamp NOT NULL, died_yn int NOT NULL);
COMMENT ON TABLE stay IS '입원 (admissions)';
COMMENT ON COLUMN stay.dept_nm IS '진료과 (department): surgery, medicine, neurology';
COMMENT ON COLUMN stay.adm_dt IS '입원일시 (admission time)';
COMMENT ON COLUMN stay.died_yn IS '사망 여부 (died in hospital) 1 yes, 0 no';
INSERT INTO stay SELECT g, 1 + g % 300, (ARRAY['surgery', 'medicine', 'neurology'])[1 + g % 3],
  timestamp '2025-01-01' + g * interval '13 hours', (g % 11 = 0)::int FROM generate_series(1, 600) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "average age of patients with bmi over 30", "gold_sql": "SELECT avg(age) FROM member WHERE bmi > 30", "rule": "the number after a column is compared with that column, not the first one named"}
{"question": "average bmi of patients with ASA class 3 or higher", "gold_sql": "SELECT avg(bmi) FROM member WHERE asa_class >= 3", "rule": "the same with N or higher"}
{"question": "BMI 30 이상 환자의 평균 나이", "gold_sql": "SELECT avg(age) FROM member WHERE bmi >= 30", "rule": "the same in Korean"}
{"question": "진료과별 입원 건수와 사망 건수", "expect": "declined", "gold_sql": "SELECT dept_nm, count(*), count(*) FILTER (WHERE died_yn = 1) FROM stay GROUP BY 1", "rule": "two counts joined by 와: declined, not the deaths alone"}
{"question": "number of admissions and number of deaths by department", "expect": "declined", "gold_sql": "SELECT dept_nm, count(*), count(*) FILTER (WHERE died_yn = 1) FROM stay GROUP BY 1", "rule": "two counts joined by and: declined"}
{"question": "남자 환자 수와 여자 환자 수", "gold_sql": "SELECT sex_cd, count(*) FROM member GROUP BY 1", "rule": "two values of one column: one count split by it"}
{"question": "number of patients with diabetes or hypertension", "expect": "declined", "gold_sql": "SELECT count(*) FROM member WHERE dm_yn = 1 OR htn_yn = 1", "rule": "two flags as alternatives: declined, never ANDed"}
J
own_schema_eval "$TMP/q.jsonl"

out=$(own_schema_plan "진료과별 입원 건수와 사망 건수")
case $out in
*"several measures ('건수와 사망 건수')"*) ok "the two measures are named in the reason" ;;
*) nok "the two measures are named in the reason" "$out" ;;
esac
out=$(own_schema_plan "number of patients with diabetes or hypertension")
case $out in
*"'diabetes or hypertension' names either of two things"*) ok "the alternatives are named in the reason" ;;
*) nok "the alternatives are named in the reason" "$out" ;;
esac
[ "$n" -eq 9 ] || nok "nine checks were made (got $n)"
echo "1..$n"
