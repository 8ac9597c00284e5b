#!/usr/bin/env bash
# 55_heads_codes_names.sh: issue 26, fifteenth session, on a schema of our own (docs/coverage.md, "Own phrasings hunted for wrong numbers (fifteenth session)"): a diagnosis written right before the word for operations ("갑상선암 수술 건수") is the operations' own diagnosis, never every operation of a patient who has that diagnosis somewhere in a list kept per patient, and a code found only in that list is declined there ("C73 수술 건수"); "number of operations per patient", "환자별 수술 건수" and, on the demo, "number of cases per patient" are counted per patient, never one total; "전원" (a whole code name of the discharge result and a part of the admission route's 타병원 전원) is declined unless another word says which; names asked beside patients ranked or counted per patient ("with their names") are declined, never the numbers alone; "department English name" is never answered with the Korean name; "진료과별 환자당 수술 건수" (a count per patient of each department) and "how many orders per admission on average" are declined, never a total per department or a count beside an average of values; "prescriptions per admission by department" is declined, never the prescriptions per department; "drug names" or "진단명" are never answered with a column of codes; "top 3 operations" never ranks the departments the operations' key points into; "약 이름" is never the wards' 이름; "number of operations by name" is never one total; on the demo, "intraop lowest MAP average", "first lactate after surgery average" and "last hemoglobin before surgery mean" are declined, never the lowest and the average of every value or the average of every value; "진료과별 사망률 상위 3개" ranks by the rate, never by the denominator; a yes/no said to be recorded ("with diabetes recorded") is = 1, never IS NOT NULL; on the demo, "위암 수술 건수" counts the stomach operations, "대장암 환자 수" both colon and rectal cancer codes.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin heads
trap own_schema_cleanup EXIT

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE dept (dept_cd text PRIMARY KEY, dept_nm text NOT NULL, dept_eng_nm text NOT NULL);
COMMENT ON TABLE dept IS '진료과 코드';
COMMENT ON COLUMN dept.dept_nm IS '진료과명(한글)';
COMMENT ON COLUMN dept.dept_eng_nm IS '진료과 영문명';
INSERT INTO dept VALUES ('GS', '외과', 'General Surgery'), ('TS', '흉부외과', 'Thoracic Surgery'), ('OL', '이비인후과', 'Otolaryngology');
CREATE TABLE pt (pt_no int PRIMARY KEY, pt_nm text NOT NULL, sex text NOT NULL);
COMMENT ON TABLE pt IS '환자';
COMMENT ON COLUMN pt.pt_no IS '환자번호';
COMMENT ON COLUMN pt.pt_nm IS '환자명';
COMMENT ON COLUMN pt.sex IS '성별 (M 남자, F 여자)';
INSERT INTO pt SELECT g, '환자' || g, (ARRAY['M', 'F'])[1 + g % 2] FROM generate_series(1, 120) g;
-- the operations, each with its own diagnosis; a patient has two or three operations
CREATE TABLE op (op_id int PRIMARY KEY, pt_no int NOT NULL REFERENCES pt, dept_cd text NOT NULL REFERENCES dept,
  dx text NOT NULL, dm int NOT NULL, op_start timestamp NOT NULL, op_end timestamp NOT NULL);
COMMENT ON TABLE op IS 'Operations (surgical cases)';
COMMENT ON COLUMN op.dx IS 'Diagnosis the operation was for';
COMMENT ON COLUMN op.dm IS 'Preoperative diabetes: 1 yes, 0 no';
INSERT INTO op SELECT g, 1 + g % 120, (ARRAY['GS', 'TS', 'OL'])[1 + g % 3],
  (ARRAY['Thyroid cancer', 'Gallbladder stone', 'Inguinal hernia', 'Thyroid cancer', 'Lung cancer'])[1 + g % 5],
  (g % 4 = 0)::int, timestamp '2025-01-01' + g * interval '17 hours', timestamp '2025-01-01' + g * interval '17 hours' + interval '2 hours'
  FROM generate_series(1, 300) g;
-- the patient's diagnosis list, by patient only (no operation key): codes
CREATE TABLE pt_dx (pt_no int NOT NULL REFERENCES pt, icd text NOT NULL);
COMMENT ON TABLE pt_dx IS 'Diagnoses of each patient (problem list)';
COMMENT ON COLUMN pt_dx.icd IS 'Diagnosis code (ICD-10)';
INSERT INTO pt_dx SELECT DISTINCT pt_no, CASE dx WHEN 'Thyroid cancer' THEN 'C73' WHEN 'Gallbladder stone' THEN 'K80'
  WHEN 'Lung cancer' THEN 'C34' ELSE 'K40' END FROM op;
-- admissions with two code lists that share the word 전원
CREATE TABLE adm (adm_no int PRIMARY KEY, pt_no int NOT NULL REFERENCES pt, adm_dt timestamp NOT NULL,
  route_cd text NOT NULL, rslt_cd text NOT NULL);
COMMENT ON TABLE adm IS '입원 내역';
COMMENT ON COLUMN adm.adm_dt IS '입원일시';
COMMENT ON COLUMN adm.route_cd IS '입원경로(1:외래, 2:응급실, 3:타병원 전원)';
COMMENT ON COLUMN adm.rslt_cd IS '퇴원결과(1:호전, 2:전원, 3:사망)';
INSERT INTO adm SELECT g, 1 + g % 120, timestamp '2025-01-01' + g * interval '1 day', (1 + g % 3)::text, (1 + (g / 3) % 3)::text
  FROM generate_series(1, 200) g;
-- orders of each admission, admitted under a department
ALTER TABLE adm ADD COLUMN dept_cd text REFERENCES dept;
UPDATE adm SET dept_cd = (ARRAY['GS', 'TS', 'OL'])[1 + adm_no % 3];
CREATE TABLE adm_ord (ord_no int PRIMARY KEY, adm_no int NOT NULL REFERENCES adm, ord_dt timestamp NOT NULL);
COMMENT ON TABLE adm_ord IS 'Orders (prescriptions) of an admission';
INSERT INTO adm_ord SELECT g, 1 + g % 200, timestamp '2025-01-01' + g * interval '5 hours' FROM generate_series(1, 700) g;
-- wards named in a comment that says 이름
CREATE TABLE ward (ward_cd text PRIMARY KEY, ward_nm text NOT NULL);
COMMENT ON TABLE ward IS 'Wards';
COMMENT ON COLUMN ward.ward_nm IS 'Ward name (병동 이름)';
INSERT INTO ward VALUES ('W1', '7 West'), ('W2', 'ICU');
ALTER TABLE op ADD COLUMN ward_cd text REFERENCES ward;
UPDATE op SET ward_cd = (ARRAY['W1', 'W2'])[1 + op_id % 2];
-- drug orders kept by their codes only
CREATE TABLE rx (rx_no int PRIMARY KEY, op_id int NOT NULL REFERENCES op, atc_cd text NOT NULL, dose numeric NOT NULL);
COMMENT ON TABLE rx IS 'Drug orders';
COMMENT ON COLUMN rx.atc_cd IS 'Drug code (ATC)';
INSERT INTO rx SELECT g, 1 + g % 300, (ARRAY['N02BE01', 'J01DD04', 'B01AB01'])[1 + g % 3], 1 + g % 5 FROM generate_series(1, 400) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "갑상선암 수술 건수", "gold_sql": "SELECT count(*) FROM op WHERE dx = 'Thyroid cancer'", "rule": "a diagnosis right before the operations' word is the operation's own, never the patient's list"}
{"question": "How many operations had diabetes recorded?", "gold_sql": "SELECT count(*) FROM op WHERE dm = 1", "rule": "a yes/no said to be recorded is = 1, never IS NOT NULL"}
{"question": "number of operations per patient", "gold_sql": "SELECT pt_no, count(*) FROM op GROUP BY pt_no", "rule": "operations counted per patient, never one total"}
{"question": "환자별 수술 건수", "gold_sql": "SELECT pt_no, count(*) FROM op GROUP BY pt_no", "rule": "환자별 with operations counted: per patient, never declined as per operation"}
{"question": "타병원에서 전원된 입원 건수", "gold_sql": "SELECT count(*) FROM adm WHERE route_cd = '3'", "rule": "the whole code name said (타병원 전원): that code"}
J
own_schema_eval "$TMP/q.jsonl"

own_schema_declined "is declined: the code is kept only in the patients' list, which no operation carries" \
	"K40 수술 건수"
own_schema_declined "is declined: 전원 is the discharge result's code and part of the admission route's" \
	"전원 온 환자 수" "전원 입원 건수"
own_schema_declined "is declined: names asked, and only the patients' numbers shown" \
	"top 5 patients by number of operations with their names" "number of operations per patient with names"
own_schema_declined "is declined: the English name asked, never the Korean one shown instead" \
	"Operations per year per department: year, department English name, count."
own_schema_declined "is declined: per admission is no breakdown by the admission's department" \
	"number of prescriptions per admission by department"
own_schema_declined "is declined: a count per patient of each department is not built, never the operations per department" \
	"진료과별 환자당 수술 건수"
own_schema_declined "is declined: 'on average' averages the count, never a count beside the average of the values" \
	"how many orders per admission on average"
own_schema_declined "is declined: the operations' departments are where they happened, not what they are" \
	"top 3 operations"
own_schema_declined "is declined: the names are of what the word before 이름 names, never the wards'" \
	"가장 많이 처방된 약 이름 top 3"
own_schema_declined "is declined: by name with nothing grouped, never one total" \
	"number of operations by name"
own_schema_declined "is declined: names asked, never a column of codes" \
	"top 3 drug names by number of orders"

# on the demo database: its catalog maps 위암 to the stomach operations and to a diagnosis code,
# and 대장암 to the colon and the rectal cancer codes (conf/metadata/demo.json)
demo_expect "FROM clinical_data_table WHERE clinical_data_table.optype = 'Stomach'" \
	"demo: 위암 수술 건수 counts the stomach operations" "위암 수술 건수"
demo_expect "IN ('C18.9', 'C20')" "demo: 대장암 is both stored codes of colorectal cancer, never the first alone" "대장암 환자 수"
demo_expect "GROUP BY clinical_data_table.subjectid" \
	"demo: 'per patient' (the catalog's synonym of the patient key) groups, never one total" "number of cases per patient"
for q in "intraop lowest MAP average" "first lactate after surgery average" "last hemoglobin before surgery mean"; do
	demo_declined "demo: '$q' is declined: the lowest or first of each, then averaged, is not built" "$q"
done
demo_expect "AVG(clinical_data_table.age) AS avg, MAX(clinical_data_table.age)" "demo: two aggregates joined by 와 are both kept" \
	"평균 나이와 최고 나이"
demo_expect "ORDER BY ROUND((AVG(CAST(clinical_data_table.death_inhosp = 1 AS int)) * 100), 2) DESC LIMIT 3" \
	"demo: departments ranked by their death rate, never by their number of cases" "진료과별 사망률 상위 3개"
[ "$n" -eq 26 ] || nok "twenty-six checks were made (got $n)"
echo "1..$n"
