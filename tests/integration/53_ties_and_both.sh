#!/usr/bin/env bash
# 53_ties_and_both.sh: issue 26, fourteenth session, on a schema of our own (docs/coverage.md, "Own phrasings hunted for wrong numbers (fourteenth session)"): "which department has the most visits" ranks departments through the key the join takes (it was ranked per department and ward, through the other key into the same table); a yes/no column of a dictionary ("병동별 중환자실 방문 건수") is never the label of a breakdown (it grouped ICU Y/N and dropped the wards); "sepsis diagnoses in inpatient visits" holds each diagnosis to its own visit, not to any visit of the same patient; "patients with pneumonia", where diagnoses and causes of death both point to the concept, is declined, never the deaths counted; "patients prescribed warfarin and aspirin" is declined (both, or either?), while "or" and a count of prescriptions are answered; "환자 이름별 진단 건수" is declined, never grouped by the diagnoses' names (a breakdown said with 이름 is by the names of what the word before it names, or of its dictionary: "진단 이름별 건수").
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin ties
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
CREATE TABLE visit (visit_no int PRIMARY KEY, pt_no int NOT NULL REFERENCES pt, dept_cd text NOT NULL REFERENCES unit_cd,
  ward_cd text NOT NULL REFERENCES unit_cd, visit_concept_id int NOT NULL, start_dt timestamp NOT NULL, end_dt timestamp);
COMMENT ON TABLE visit IS 'hospital visits (입원, 외래)';
COMMENT ON COLUMN visit.dept_cd IS '진료과 코드';
COMMENT ON COLUMN visit.ward_cd IS '병동 코드';
COMMENT ON COLUMN visit.visit_concept_id IS 'kind of visit (a concept)';
COMMENT ON COLUMN visit.start_dt IS 'visit start';
COMMENT ON COLUMN visit.end_dt IS 'visit end';
-- the medicine department has the most visits; by department and ward no group holds a third of them
INSERT INTO visit SELECT g, 1 + g % 300, (ARRAY['IM', 'IM', 'GS', 'NR'])[1 + g % 4], (ARRAY['W51', 'W52', 'MICU'])[1 + g % 3],
  (ARRAY[11, 12])[1 + (g / 300) % 2], timestamp '2025-01-01' + g * interval '7 hours',
  timestamp '2025-01-03' + g * interval '7 hours' FROM generate_series(1, 600) g;
CREATE TABLE concept (concept_id int PRIMARY KEY, concept_name text NOT NULL);
COMMENT ON TABLE concept IS 'dictionary of clinical concepts';
INSERT INTO concept VALUES (1, 'Sepsis'), (2, 'Pneumonia'), (3, 'Asthma'), (4, 'Stroke'), (11, 'Inpatient Visit'),
  (12, 'Outpatient Visit');
ALTER TABLE visit ADD FOREIGN KEY (visit_concept_id) REFERENCES concept;
CREATE TABLE dx (dx_no int PRIMARY KEY, pt_no int NOT NULL REFERENCES pt, visit_no int NOT NULL REFERENCES visit,
  dx_concept_id int NOT NULL REFERENCES concept, dx_dt date NOT NULL);
COMMENT ON TABLE dx IS 'diagnoses made at a visit';
-- each patient's diagnoses fall on visits of both kinds: the patient had an inpatient visit, the
-- diagnosis was often made at an outpatient one
INSERT INTO dx SELECT g, v.pt_no, v.visit_no, 1 + g % 4, v.start_dt::date
  FROM generate_series(1, 900) g JOIN visit v ON v.visit_no = 1 + (g * 7) % 600;
CREATE TABLE death (pt_no int PRIMARY KEY REFERENCES pt, death_dt date NOT NULL, cause_concept_id int NOT NULL REFERENCES concept);
COMMENT ON TABLE death IS 'deaths';
INSERT INTO death SELECT g, date '2025-06-01' + g, 1 + g % 4 FROM generate_series(1, 300, 7) g;
CREATE TABLE rx (rx_no int PRIMARY KEY, visit_no int NOT NULL REFERENCES visit, pt_no int NOT NULL REFERENCES pt,
  drug_txt text NOT NULL, rx_dt timestamp NOT NULL);
COMMENT ON TABLE rx IS 'prescriptions';
COMMENT ON COLUMN rx.drug_txt IS 'drug as written: warfarin, aspirin, heparin';
INSERT INTO rx SELECT g, v.visit_no, v.pt_no, (ARRAY['warfarin', 'aspirin', 'heparin', 'aspirin', 'warfarin'])[1 + g % 5], v.start_dt
  FROM generate_series(1, 800) g JOIN visit v ON v.visit_no = 1 + (g * 11) % 600;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "어느 진료과의 방문 건수가 가장 많아?", "gold_sql": "SELECT u.unit_nm, count(*) FROM visit v JOIN unit_cd u ON v.dept_cd = u.unit_cd GROUP BY 1 ORDER BY 2 DESC LIMIT 1", "rule": "the department with the most visits, ranked through the department key the join takes"}
{"question": "number of sepsis diagnoses in inpatient visits", "gold_sql": "SELECT count(*) FROM dx JOIN visit v USING (visit_no) WHERE dx.dx_concept_id = 1 AND v.visit_concept_id = 11", "rule": "a diagnosis in an inpatient visit: its own visit, not any visit of the patient"}
{"question": "patients who died of pneumonia", "gold_sql": "SELECT pt_no FROM death WHERE cause_concept_id = 2", "rule": "died of: the deaths' causes"}
{"question": "number of patients prescribed warfarin or aspirin", "gold_sql": "SELECT count(DISTINCT pt_no) FROM rx WHERE drug_txt IN ('warfarin', 'aspirin')", "rule": "or: the patients with either"}
{"question": "진단 이름별 건수", "gold_sql": "SELECT c.concept_name, count(*) FROM dx JOIN concept c ON c.concept_id = dx.dx_concept_id GROUP BY 1", "rule": "X 이름별: the names of X's dictionary"}
{"question": "number of prescriptions of warfarin and aspirin", "gold_sql": "SELECT count(*) FROM rx WHERE drug_txt IN ('warfarin', 'aspirin')", "rule": "prescriptions of two drugs: each row is one of them"}
J
own_schema_eval "$TMP/q.jsonl"

own_schema_declined "is declined: a yes/no of the wards' table names which rows, never the groups" \
	"병동별 중환자실 방문 건수" "ICU visits by ward"
own_schema_declined "is declined: diagnoses and causes of death both reach the concept, and the question does not say which" \
	"number of patients with pneumonia" "number of patients with sepsis"
own_schema_declined "is declined: patients with both and patients with either are different counts" \
	"number of patients prescribed warfarin and aspirin"
own_schema_declined "is declined: names of another thing than the word before 이름 (the patients' names are not the diagnoses')" \
	"환자 이름별 진단 건수"
[ "$n" -eq 12 ] || nok "twelve checks were made (got $n)"
echo "1..$n"
