#!/usr/bin/env bash
# 50_measures_either_nearest.sh: issue 26, eleventh session, on a schema of our own (docs/coverage.md, "Own phrasings hunted for wrong numbers"): a number said right after a numeric column is compared with that column, never with the first numeric column the question named ("average age of patients with bmi over 30" compared the age and averaged the bmi); two measures joined by and/와 ("진료과별 입원 건수와 사망 건수", "number of admissions and number of deaths") are declined naming them, never one count with the other's filter on it; two values of one column ("남자 환자 수와 여자 환자 수") are one count split by it; the count said again beside the columns shown is the same count; two flags said as alternatives ("diabetes or hypertension") are declined, never ANDed; patients counted per department are counted, not their lab results; admissions counted per department through their lab results are declined; the make-up of a group by a column ("surgery 환자의 성별 비율") and a ranking by each fractional value of a measure are declined; a measure named before a comparison makes its number a threshold, never a number of rows; on a table of every kind of visit, 입원 / admissions is declined unless the stored kind is said beside it; "leave out (skip) rows with no X" keeps X IS NOT NULL; a Korean comparison word binds the number before it; a topic (은/는) before a share's base names the part.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin measures
# a second database of our own: a table of every kind of visit
DB_V="${DB}_v"
V_URL="host=$PGHOST port=$PGPORT dbname=$DB_V user=${PGUSER:-askql}"
psql -X -q -d postgres -c "CREATE DATABASE $DB_V" >/dev/null 2>&1
cleanup_v() {
	psql -X -q -d askql -c "DELETE FROM askql.targets WHERE name = '$DB_V'; DELETE FROM askql.cat_targets WHERE name = '$DB_V'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB_V WITH (FORCE)" >/dev/null 2>&1
	own_schema_cleanup
}
trap cleanup_v EXIT

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
CREATE TABLE result (result_no int PRIMARY KEY, stay_no int NOT NULL REFERENCES stay, member_no int NOT NULL REFERENCES member,
  test_nm text NOT NULL, val numeric NOT NULL);
COMMENT ON TABLE result IS '검사 결과 (lab results)';
COMMENT ON COLUMN result.test_nm IS '검사명: potassium, sodium';
COMMENT ON COLUMN result.val IS '결과값 (result value)';
INSERT INTO result SELECT g, 1 + g % 600, 1 + (g % 600) % 300, (ARRAY['potassium', 'sodium'])[1 + g % 2],
  CASE WHEN g % 2 = 0 THEN 3 + (g % 7) * 0.5 ELSE 135 + g % 9 END FROM generate_series(1, 3000) g;
SQL
psql -X -q -d "$DB_V" >/dev/null 2>&1 <<'SQL'
CREATE TABLE pat (pat_no int PRIMARY KEY, sex_cd text NOT NULL);
COMMENT ON TABLE pat IS 'patients';
INSERT INTO pat SELECT g, (ARRAY['M', 'F'])[1 + g % 2] FROM generate_series(1, 90) g;
CREATE TABLE encounter (enc_no int PRIMARY KEY, pat_no int NOT NULL REFERENCES pat, enc_kind text NOT NULL, enc_start timestamp NOT NULL,
  enc_end timestamp);
COMMENT ON TABLE encounter IS 'Encounters of patients with the hospital: outpatient visits, emergency visits and inpatient stays';
COMMENT ON COLUMN encounter.enc_kind IS 'kind of encounter: OP, ER, IP';
INSERT INTO encounter SELECT g, 1 + g % 90, (ARRAY['OP', 'OP', 'ER', 'IP'])[1 + g % 4], timestamp '2025-01-01' + g * interval '7 hours',
  timestamp '2025-01-01' + g * interval '7 hours' + interval '3 hours' FROM generate_series(1, 800) g;
CREATE TABLE charge (charge_no int PRIMARY KEY, enc_no int NOT NULL REFERENCES encounter, amount numeric NOT NULL);
INSERT INTO charge SELECT g, 1 + g % 800, 10 * (g % 13) FROM generate_series(1, 1600) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "average age of patients with bmi over 30", "gold_sql": "SELECT avg(age) FROM member WHERE bmi > 30", "rule": "the number after a column is compared with that column, not the first one named"}
{"question": "average bmi of patients with ASA class 3 or higher", "gold_sql": "SELECT avg(bmi) FROM member WHERE asa_class >= 3", "rule": "the same with N or higher"}
{"question": "BMI 30 이상 환자의 평균 나이", "gold_sql": "SELECT avg(age) FROM member WHERE bmi >= 30", "rule": "the same in Korean"}
{"question": "진료과별 입원 건수와 사망 건수", "expect": "declined", "gold_sql": "SELECT dept_nm, count(*), count(*) FILTER (WHERE died_yn = 1) FROM stay GROUP BY 1", "rule": "two counts joined by 와: declined, not the deaths alone"}
{"question": "number of admissions and number of deaths by department", "expect": "declined", "gold_sql": "SELECT dept_nm, count(*), count(*) FILTER (WHERE died_yn = 1) FROM stay GROUP BY 1", "rule": "two counts joined by and: declined"}
{"question": "남자 환자 수와 여자 환자 수", "gold_sql": "SELECT sex_cd, count(*) FROM member GROUP BY 1", "rule": "two values of one column: one count split by it"}
{"question": "number of patients with diabetes or hypertension", "expect": "declined", "gold_sql": "SELECT count(*) FROM member WHERE dm_yn = 1 OR htn_yn = 1", "rule": "two flags as alternatives: declined, never ANDed"}
{"question": "potassium 5.0 이상인 환자의 진료과별 수", "gold_sql": "SELECT s.dept_nm, count(DISTINCT r.member_no) FROM result r JOIN stay s ON s.stay_no = r.stay_no WHERE r.test_nm = 'potassium' AND r.val >= 5 GROUP BY 1", "rule": "patients counted per department, not their lab results (진료과별 is not what is counted)"}
{"question": "how many admissions per department had a potassium above 5.5", "expect": "declined", "gold_sql": "SELECT s.dept_nm, count(DISTINCT r.stay_no) FROM result r JOIN stay s ON s.stay_no = r.stay_no WHERE r.test_nm = 'potassium' AND r.val > 5.5 GROUP BY 1", "rule": "admissions counted, never the lab rows joined to them"}
{"question": "surgery 환자의 성별 비율", "expect": "declined", "gold_sql": "SELECT m.sex_cd, round(100.0 * count(*) / sum(count(*)) OVER (), 2) FROM stay s JOIN member m ON m.member_no = s.member_no WHERE s.dept_nm = 'surgery' GROUP BY 1", "rule": "the make-up of a group by a column: declined, not the group's share within each value"}
{"question": "potassium over 5.5 patients count", "gold_sql": "SELECT count(DISTINCT member_no) FROM result WHERE test_nm = 'potassium' AND val > 5.5", "rule": "a measure named before the comparison: a threshold, never a number of rows (5.5 counts nothing)"}
{"question": "patient counts by sex x ASA class (leave out patients with no ASA class)", "gold_sql": "SELECT sex_cd, asa_class, count(*) FROM member WHERE asa_class IS NOT NULL GROUP BY 1, 2", "rule": "leave out rows with no X: X IS NOT NULL"}
{"question": "BMI 25 초과 70세 이상 환자 수", "gold_sql": "SELECT count(*) FROM member WHERE bmi > 25 AND age >= 70", "rule": "a Korean comparison word follows its number: 25 exceeded, then 70 or more"}
{"question": "사망 입원은 surgery 입원 중 비율", "gold_sql": "SELECT round(100.0 * avg(died_yn), 2) FROM stay WHERE dept_nm = 'surgery'", "rule": "a topic (은/는) before the base names the part: the share of deaths among surgery admissions, not the reverse"}
{"question": "사망은 surgery 입원에서 비율", "gold_sql": "SELECT round(100.0 * avg(died_yn), 2) FROM stay WHERE dept_nm = 'surgery'", "rule": "the same with 에서"}
{"question": "top 5 patients by bmi", "expect": "declined", "gold_sql": "SELECT member_no, bmi FROM member ORDER BY bmi DESC LIMIT 5", "rule": "a breakdown or ranking by each fractional value of a measure: declined"}
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
# on a table of every kind of visit, 입원 / admissions name one kind: declined unless its stored kind is said
"$ASKQL" index --quiet --target "$V_URL" --name "$DB_V" >/dev/null 2>&1
for q in "2025년 입원 건수" "number of admissions in 2025"; do
	out=$("$ASKQL" eval --direct --target "$V_URL" --name "$DB_V" --now '2025-12-31 23:59:00' --plan "$q" 2>&1)
	case $out in
	*"says stays in hospital, and the visits table also records other kinds"*) ok "a stay word on a table of every kind of visit is declined: $q" ;;
	*) nok "a stay word on a table of every kind of visit is declined: $q" "$out" ;;
	esac
done
out=$("$ASKQL" eval --direct --target "$V_URL" --name "$DB_V" --now '2025-12-31 23:59:00' --plan "number of IP admissions in 2025" 2>&1)
case $out in
*"says stays in hospital"*) nok "the stored kind said beside the stay word lifts the rule" "$out" ;;
*"'IP' -> encounter.enc_kind"*) ok "the stored kind said beside the stay word lifts the rule" ;;
*) nok "the stored kind said beside the stay word lifts the rule" "$out" ;;
esac
[ "$n" -eq 21 ] || nok "twenty-one checks were made (got $n)"
echo "1..$n"
