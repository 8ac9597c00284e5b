#!/usr/bin/env bash
# 52_two_keys_breakdowns.sh: issue 26, thirteenth session, on a schema of our own (docs/coverage.md, "Own phrasings hunted for wrong numbers (thirteenth session)"): a table reached through two keys of another (an admission's department and its ward, both in one table of units) is joined by the key the question's words name, and declined when they name neither ("ICU 여부별 입원 건수" counted every admission as not ICU through the department key); a side word naming a reference limit ("patients with high potassium") is declined, never a list of every result; a breakdown said with a word too generic to link ("병원별", "by visit type") is declined, never one total; a breakdown by a table whose rows no single column tells apart ("약물별 처방 건수", "수술별 건수" over operations whose one text column is the room) is declined, never grouped by the first text column (why the order stopped) or a column that holds no names; a count per a table's own key is declined, never 1 in every group; "split by", "stratified by" and "across" are breakdowns; "how many different drugs were prescribed" never counts the drug dictionary, and "different"/"distinct" with no column of the things is declined, never every row counted; "남자 환자가 가장 많은 진료과" counts patients, not admissions; "number of prescriptions" counts the prescriptions (처방 in a Korean table comment), not the drug dictionary; "연도별 월별" is by month of each year; a Korean breakdown word (따른) that nothing grouped is declined; a follow-up "연도별로" after a monthly series is by year; a word found only in the description of a code column ("emergency admissions") is declined, never a list of the codes; "당뇨 있는 환자 중 고혈압 있는 비율" is the share of the diabetics with hypertension, never inverted by reading 있는 as a topic; "per drug" over a drug dictionary with a name and a unit column groups by the name; on the demo, "65세 미만 남자 수" and "number of women" count patients, never operations.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin twokeys
trap own_schema_cleanup EXIT

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE unit_cd (unit_cd text PRIMARY KEY, unit_nm text NOT NULL, unit_kind text NOT NULL, icu_yn text NOT NULL);
COMMENT ON TABLE unit_cd IS '부서 코드 (진료과와 병동)';
COMMENT ON COLUMN unit_cd.unit_nm IS '부서명';
COMMENT ON COLUMN unit_cd.unit_kind IS '부서구분 (C 진료과, W 병동)';
COMMENT ON COLUMN unit_cd.icu_yn IS '중환자실 여부 (Y/N)';
INSERT INTO unit_cd VALUES ('IM', '내과', 'C', 'N'), ('GS', '외과', 'C', 'N'), ('NR', '신경과', 'C', 'N'),
  ('W51', '51병동', 'W', 'N'), ('W52', '52병동', 'W', 'N'), ('MICU', '내과계중환자실', 'W', 'Y');
CREATE TABLE pt (pt_no int PRIMARY KEY, sex_cd text NOT NULL, age int NOT NULL);
COMMENT ON TABLE pt IS '환자';
COMMENT ON COLUMN pt.pt_no IS '환자번호';
COMMENT ON COLUMN pt.sex_cd IS '성별 (M 남자, F 여자)';
COMMENT ON COLUMN pt.age IS '나이';
INSERT INTO pt SELECT g, (ARRAY['M', 'F'])[1 + g % 2], 20 + g % 70 FROM generate_series(1, 300) g;
ALTER TABLE pt ADD COLUMN dm int NOT NULL DEFAULT 0, ADD COLUMN htn int NOT NULL DEFAULT 0;
COMMENT ON COLUMN pt.dm IS '당뇨 여부 (diabetes) 1 yes, 0 no';
COMMENT ON COLUMN pt.htn IS '고혈압 여부 (hypertension) 1 yes, 0 no';
UPDATE pt SET dm = (pt_no % 4 = 0)::int, htn = (pt_no % 3 = 0)::int;
CREATE TABLE adm (adm_no int PRIMARY KEY, pt_no int NOT NULL REFERENCES pt, dept_cd text NOT NULL REFERENCES unit_cd,
  ward_cd text NOT NULL REFERENCES unit_cd, adm_dt timestamp NOT NULL, dsch_dt timestamp);
COMMENT ON TABLE adm IS '입원';
COMMENT ON COLUMN adm.dept_cd IS '입원 진료과 코드';
COMMENT ON COLUMN adm.ward_cd IS '입원 병동 코드';
COMMENT ON COLUMN adm.adm_dt IS '입원일시';
COMMENT ON COLUMN adm.dsch_dt IS '퇴원일시';
INSERT INTO adm SELECT g, 1 + g % 300, (ARRAY['IM', 'GS', 'NR'])[1 + g % 3], (ARRAY['W51', 'W52', 'MICU', 'W51'])[1 + g % 4],
  timestamp '2025-01-01' + g * interval '9 hours', timestamp '2025-01-03' + g * interval '9 hours' + (g % 5) * interval '1 day'
  FROM generate_series(1, 400) g;
-- three more men with one medicine admission each, one man with thirty neurology ones: the
-- department with the most men is not the one with the most admissions of men
INSERT INTO pt VALUES (302, 'M', 40), (304, 'M', 50), (306, 'M', 60);
INSERT INTO adm VALUES (1001, 302, 'IM', 'W51', '2025-06-01', '2025-06-03'), (1002, 304, 'IM', 'W51', '2025-06-01', '2025-06-03'),
  (1003, 306, 'IM', 'W52', '2025-06-01', '2025-06-04');
INSERT INTO adm SELECT 2000 + g, 2, 'NR', 'W52', timestamp '2025-07-01' + g * interval '1 day',
  timestamp '2025-07-02' + g * interval '1 day' FROM generate_series(1, 30) g;
ALTER TABLE adm ADD COLUMN place_concept_id int NOT NULL DEFAULT 8717;
COMMENT ON COLUMN adm.place_concept_id IS 'Kind of place (a concept of places: Inpatient Hospital, Emergency Room - Hospital)';
UPDATE adm SET place_concept_id = 8870 WHERE adm_no % 5 = 0;
CREATE TABLE op (op_no int PRIMARY KEY, adm_no int NOT NULL REFERENCES adm, room_txt text NOT NULL);
COMMENT ON TABLE op IS '수술';
COMMENT ON COLUMN op.room_txt IS 'operating room';
INSERT INTO op SELECT g, 1 + g % 400, 'OR' || (g % 6) FROM generate_series(1, 250) g;
CREATE TABLE lab (lab_no int PRIMARY KEY, adm_no int NOT NULL REFERENCES adm, pt_no int NOT NULL REFERENCES pt,
  test_nm text NOT NULL, val numeric NOT NULL, ref_low numeric NOT NULL, ref_high numeric NOT NULL);
COMMENT ON TABLE lab IS '검사 결과';
COMMENT ON COLUMN lab.test_nm IS '검사명: potassium, sodium';
COMMENT ON COLUMN lab.val IS '결과값';
COMMENT ON COLUMN lab.ref_low IS '참고치 하한';
COMMENT ON COLUMN lab.ref_high IS '참고치 상한';
INSERT INTO lab SELECT g, 1 + g % 400, 1 + (1 + g % 400) % 300, (ARRAY['potassium', 'sodium'])[1 + g % 2],
  CASE WHEN g % 2 = 0 THEN 3 + (g % 7) * 0.5 ELSE 130 + g % 15 END,
  CASE WHEN g % 2 = 0 THEN 3.5 ELSE 135 END, CASE WHEN g % 2 = 0 THEN 5.1 ELSE 145 END FROM generate_series(1, 1200) g;
CREATE TABLE drug_dict (drug_cd text PRIMARY KEY, drug_nm text NOT NULL, drug_unit text NOT NULL);
COMMENT ON TABLE drug_dict IS '약품 코드 사전 (drugs)';
COMMENT ON COLUMN drug_dict.drug_nm IS '약품명 (drug name)';
COMMENT ON COLUMN drug_dict.drug_unit IS '단위 (unit)';
INSERT INTO drug_dict SELECT 'D' || g, 'drug ' || g, (ARRAY['mg', 'mL', 'tab'])[1 + g % 3] FROM generate_series(1, 40) g;
CREATE TABLE rx (rx_no int PRIMARY KEY, adm_no int NOT NULL REFERENCES adm, pt_no int NOT NULL REFERENCES pt,
  rx_dt timestamp NOT NULL, stop_why text, route_txt text NOT NULL, lot_txt text, drug_cd text NOT NULL REFERENCES drug_dict);
COMMENT ON TABLE rx IS '약물 처방';
COMMENT ON COLUMN rx.rx_dt IS '처방일시';
COMMENT ON COLUMN rx.stop_why IS 'why the order was stopped';
COMMENT ON COLUMN rx.route_txt IS 'route as written';
COMMENT ON COLUMN rx.lot_txt IS 'lot number';
INSERT INTO rx SELECT g, 1 + g % 400, 1 + (1 + g % 400) % 300, timestamp '2025-01-01' + g * interval '5 hours',
  (ARRAY['completed', 'allergy', NULL])[1 + g % 3], (ARRAY['PO', 'IV'])[1 + g % 2], 'L' || (g % 9), 'D' || (1 + g % 12) FROM generate_series(1, 900) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "중환자실 여부별 입원 건수", "expect": "declined", "gold_sql": "SELECT u.icu_yn, count(*) FROM adm a JOIN unit_cd u ON a.ward_cd = u.unit_cd GROUP BY 1", "rule": "a column of a table reached through two keys, neither named: declined, never joined by the department"}
{"question": "진료과별 입원 건수", "gold_sql": "SELECT u.unit_nm, count(*) FROM adm a JOIN unit_cd u ON a.dept_cd = u.unit_cd GROUP BY 1", "rule": "진료과 names the department key"}
{"question": "병동별 입원 건수", "gold_sql": "SELECT u.unit_nm, count(*) FROM adm a JOIN unit_cd u ON a.ward_cd = u.unit_cd GROUP BY 1", "rule": "병동 names the ward key"}
{"question": "admissions by department", "gold_sql": "SELECT u.unit_nm, count(*) FROM adm a JOIN unit_cd u ON a.dept_cd = u.unit_cd GROUP BY 1", "rule": "'department' names dept_cd (its abbreviation)"}
{"question": "patients with high potassium", "expect": "declined", "gold_sql": "SELECT DISTINCT pt_no FROM lab WHERE test_nm = 'potassium' AND val > ref_high", "rule": "'high' names a limit column no comparison read: declined, never every potassium result"}
{"question": "average age split by sex", "gold_sql": "SELECT sex_cd, avg(age) FROM pt GROUP BY 1", "rule": "split by is a breakdown"}
{"question": "number of patients stratified by sex", "gold_sql": "SELECT sex_cd, count(*) FROM pt GROUP BY 1", "rule": "stratified by is a breakdown"}
{"question": "how many different drugs were prescribed", "expect": "declined", "gold_sql": "SELECT count(DISTINCT drug_cd) FROM rx", "rule": "different drugs prescribed: declined, never the entries of the drug dictionary"}
{"question": "남자 환자가 가장 많은 진료과", "gold_sql": "SELECT u.unit_nm, count(DISTINCT a.pt_no) FROM adm a JOIN pt p USING (pt_no) JOIN unit_cd u ON a.dept_cd = u.unit_cd WHERE p.sex_cd = 'M' GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "환자가 가장 많은: the patients are counted, not their admissions"}
{"question": "number of prescriptions", "gold_sql": "SELECT count(*) FROM rx", "rule": "a plural English word whose Korean term is a word of a table's Korean comment (처방) names that table, not the drug dictionary its looser synonym names"}
{"question": "number of prescriptions per drug", "gold_sql": "SELECT d.drug_nm, count(*) FROM rx JOIN drug_dict d USING (drug_cd) GROUP BY 1", "rule": "a breakdown by a dictionary whose name and unit columns the word both names: the one that holds names"}
{"question": "연도별 월별 입원 건수", "gold_sql": "SELECT date_trunc('month', adm_dt), count(*) FROM adm GROUP BY 1 ORDER BY 1", "rule": "year and month: the month of each year, never the year alone"}
{"question": "연도별로", "parent_question": "월별 입원 건수", "gold_sql": "SELECT date_trunc('year', adm_dt), count(*) FROM adm GROUP BY 1 ORDER BY 1", "rule": "a follow-up's period replaces the previous one's (by year, not still by month)"}
{"question": "mean age across sexes", "gold_sql": "SELECT sex_cd, avg(age) FROM pt GROUP BY 1", "rule": "across is a breakdown"}
J
own_schema_eval "$TMP/q.jsonl"

# the word that names a breakdown is never left out because it is generic
own_schema_declined "is declined, never one total or a guessed column" \
	"병원별 입원 건수" "number of admissions by admission type" "약물별 처방 건수" "수술별 건수"
own_schema_declined "is declined: a Korean breakdown word (따른) that nothing grouped, never one number" \
	"퇴원 결과에 따른 평균 재원일수"
own_schema_declined "is declined: a word found only in a code column's description, never a list of the codes" \
	"emergency admissions in 2025"
out=$(own_schema_plan "당뇨 있는 환자 중 고혈압 있는 비율")
case $out in
*"AVG(CAST(pt.htn = 1"*"WHERE pt.dm = 1"*) ok "'당뇨 있는 환자 중 고혈압 있는 비율': the share of the diabetics with hypertension (있는 is no topic)" ;;
*) nok "'당뇨 있는 환자 중 고혈압 있는 비율': the share of the diabetics with hypertension (있는 is no topic)" "$out" ;;
esac
for q in "how many distinct routes were given"; do
	out=$(own_schema_plan "$q")
	case $out in
	*"sql: SELECT"*"COUNT(*)"*) nok "'$q': 'distinct' with no column of the things is declined, never every row counted" "$out" ;;
	*) ok "'$q': 'distinct' with no column of the things is declined, never every row counted" ;;
	esac
done
own_schema_declined "is declined: an aggregate per the table's own key (one row in every group)" \
	"입원별 건수" "입원별 평균 나이"
# (fourteenth session) a yes/no of the units' table named before the rows says which rows, never a
# Y/N column listed beside every admission
own_schema_declined "is declined: a yes/no named before the rows, never listed as a column with the filter dropped" \
	"list of ICU admissions in 2025 with admission date and ward"
# on the demo database (several operations per patient): "남자 수", "number of women" count people
for q in "65세 미만 남자 수" "number of women"; do
	out=$("$ASKQL" eval --target demo --now '2025-12-31 23:59:00' --plan "$q" 2>&1)
	case $out in
	*"COUNT(DISTINCT clinical_data_table.subjectid)"*) ok "'$q' counts the patients, not their operations" ;;
	*) nok "'$q' counts the patients, not their operations" "$out" ;;
	esac
done
[ "$n" -eq 27 ] || nok "twenty-seven checks were made (got $n)"
echo "1..$n"
