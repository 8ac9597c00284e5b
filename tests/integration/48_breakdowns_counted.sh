#!/usr/bin/env bash
# 48_breakdowns_counted.sh: issue 26, ninth session: what a count counts and what a breakdown groups, on a schema of our own with one table of departments and wards reached through two keys: "by department and ward" is declined (one join of that table cannot hold both; it grouped by the same name twice); "X 기준 Y 건수" groups by X, never by Y; "admissions of male patients" and "남자 환자 입원 건수" count admissions, not patients; "admissions per department in 2025" and "admissions broken down by ward" count per group (a window made it a list of rows); "이상 결과" is declined, not read as nothing; "남자" found only in the sex column's code list "(M 남자, F 여자)" is the value M, and is never dropped.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin breakdowns

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE clinic_unit (unit_cd text PRIMARY KEY, unit_name text NOT NULL, unit_kind text NOT NULL);
COMMENT ON TABLE clinic_unit IS '부서 코드: 진료과와 병동 (departments and wards)';
COMMENT ON COLUMN clinic_unit.unit_name IS '부서명 (department or ward name)';
COMMENT ON COLUMN clinic_unit.unit_kind IS '구분 (D 진료과, W 병동)';
INSERT INTO clinic_unit VALUES ('IM', 'internal medicine', 'D'), ('GS', 'general surgery', 'D'), ('NR', 'neurology', 'D'),
  ('W71', 'ward 71', 'W'), ('W72', 'ward 72', 'W'), ('ICU', 'intensive care unit', 'W');
CREATE TABLE person_base (person_no int PRIMARY KEY, sex_cd text NOT NULL, birth_dt date NOT NULL);
COMMENT ON TABLE person_base IS '환자 기본정보 (patients)';
COMMENT ON COLUMN person_base.person_no IS '환자번호';
COMMENT ON COLUMN person_base.sex_cd IS '성별 (M 남자, F 여자)';
INSERT INTO person_base SELECT g, (ARRAY['M', 'F'])[1 + g % 2], date '1940-01-01' + g * 97 FROM generate_series(1, 120) g;
CREATE TABLE stay (stay_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person_base, dept_cd text NOT NULL REFERENCES clinic_unit,
  ward_cd text NOT NULL REFERENCES clinic_unit, adm_dt timestamp NOT NULL, dis_dt timestamp, dis_result_cd text);
COMMENT ON TABLE stay IS '입원 내역 (hospital admissions)';
COMMENT ON COLUMN stay.dept_cd IS '진료과 (department)';
COMMENT ON COLUMN stay.ward_cd IS '병동 (ward)';
COMMENT ON COLUMN stay.adm_dt IS '입원일시';
COMMENT ON COLUMN stay.dis_dt IS '퇴원일시';
COMMENT ON COLUMN stay.dis_result_cd IS '퇴원결과 (1 호전, 2 전원, 3 사망)';
INSERT INTO stay SELECT g, 1 + (g * 7) % 120, (ARRAY['IM', 'GS', 'NR'])[1 + g % 3], (ARRAY['W71', 'W72', 'ICU', 'W71'])[1 + g % 4],
  timestamp '2024-01-03' + g * interval '2 days', timestamp '2024-01-09' + g * interval '2 days', (1 + g % 3)::text
  FROM generate_series(1, 330) g;
CREATE TABLE lab_result (res_no int PRIMARY KEY, stay_no int NOT NULL REFERENCES stay, test_name text NOT NULL, result_val numeric,
  flag text);
COMMENT ON TABLE lab_result IS '검사 결과 (lab results)';
COMMENT ON COLUMN lab_result.test_name IS '검사명';
COMMENT ON COLUMN lab_result.flag IS '이상 여부 (H 높음, L 낮음, N 정상)';
INSERT INTO lab_result SELECT g, 1 + g % 330, (ARRAY['sodium', 'potassium', 'creatinine'])[1 + g % 3], 1 + g % 9,
  (ARRAY['H', 'L', 'N', 'N'])[1 + g % 4] FROM generate_series(1, 900) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "number of admissions by department and ward", "expect": "declined", "gold_sql": "SELECT d.unit_name, w.unit_name, count(*) FROM stay s JOIN clinic_unit d ON d.unit_cd = s.dept_cd JOIN clinic_unit w ON w.unit_cd = s.ward_cd GROUP BY 1, 2", "rule": "two breakdowns by the name in one table reached through two keys: declined, not one name grouped twice"}
{"question": "진료과별 병동별 입원 건수", "expect": "declined", "gold_sql": "SELECT d.unit_name, w.unit_name, count(*) FROM stay s JOIN clinic_unit d ON d.unit_cd = s.dept_cd JOIN clinic_unit w ON w.unit_cd = s.ward_cd GROUP BY 1, 2", "rule": "the same in Korean"}
{"question": "퇴원결과 기준 입원 건수", "gold_sql": "SELECT dis_result_cd, count(*) FROM stay GROUP BY 1", "rule": "X 기준 Y: by X; Y is what is counted, no breakdown by it"}
{"question": "진료과 기준으로 입원 건수", "gold_sql": "SELECT u.unit_name, count(*) FROM stay s JOIN clinic_unit u ON u.unit_cd = s.dept_cd GROUP BY 1", "rule": "a dictionary's rows before 기준: a breakdown by them"}
{"question": "number of admissions of male patients", "gold_sql": "SELECT count(*) FROM stay s JOIN person_base p USING (person_no) WHERE p.sex_cd = 'M'", "rule": "the count word is attached to admissions: admissions are counted, not patients"}
{"question": "남자 환자 입원 건수", "gold_sql": "SELECT count(*) FROM stay s JOIN person_base p USING (person_no) WHERE p.sex_cd = 'M'", "rule": "입원 건수: admissions counted"}
{"question": "남자 환자 수", "gold_sql": "SELECT count(*) FROM person_base WHERE sex_cd = 'M'", "rule": "환자 수: patients counted"}
{"question": "admissions per department in 2025", "gold_sql": "SELECT u.unit_name, count(*) FROM stay s JOIN clinic_unit u ON u.unit_cd = s.dept_cd WHERE s.adm_dt >= '2025-01-01' AND s.adm_dt < '2026-01-01' GROUP BY 1", "rule": "rows per group with a year: counted per group, not a list of rows"}
{"question": "admissions broken down by ward", "gold_sql": "SELECT u.unit_name, count(*) FROM stay s JOIN clinic_unit u ON u.unit_cd = s.ward_cd GROUP BY 1", "rule": "broken down by: a breakdown, the rows counted"}
{"question": "검사별 이상 결과 건수", "expect": "declined", "gold_sql": "SELECT test_name, count(*) FROM lab_result WHERE flag IN ('H', 'L') GROUP BY 1", "rule": "이상 with no number is abnormal: declined, not dropped"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 10 ] || nok "ten questions were scored (got $n)"
echo "1..$n"
