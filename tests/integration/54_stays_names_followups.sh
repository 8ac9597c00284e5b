#!/usr/bin/env bash
# 54_stays_names_followups.sh: issue 26, fourteenth session, on a schema of our own shaped like a Korean data mart (docs/coverage.md, "Own phrasings hunted for wrong numbers (fourteenth session)"): "재원 중 환자", "현재 입원 중인 환자", "patients currently admitted" are the stays not yet ended, found through a table whose Korean comment names stays (입원 내역), never every admission ("재원 중" was dropped); "현재" is 'current'; an outpatient visit word still finds no stays to count; "patient number and name" with only identifiers shown is declined, never the numbers alone; a time named among what a list shows ("환자번호, 입원일, 퇴원결과") is shown; a follow-up "고혈압 환자는?" after "당뇨 환자 중 사망률" is declined (instead of diabetes, or as well?), while one on the same column replaces it; "검사코드별" groups by the codes, never their names, and "(검사코드, 검사명)" by both; "LOINC 코드별 결과 건수", "검사별 건수", "number of results by lab" are declined, never the test dictionary's entries counted; "생존 환자" (a yes/no whose description gives 0 to "alive") is the rows where it is 0, never the deaths; "ASA 1-2" is declined, never ASA 1 alone; "칼륨 4 이상 환자 목록: 환자번호, 측정값" is declined, never the patient numbers alone.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin stays
trap own_schema_cleanup EXIT

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE cd_gwa (gwa_cd text PRIMARY KEY, gwa_nm text NOT NULL);
COMMENT ON TABLE cd_gwa IS '진료과 코드';
COMMENT ON COLUMN cd_gwa.gwa_nm IS '진료과명';
INSERT INTO cd_gwa VALUES ('IM', '내과'), ('GS', '외과'), ('NR', '신경과');
CREATE TABLE hj (hj_no int PRIMARY KEY, hj_nm text NOT NULL, sex_cd text NOT NULL, age int NOT NULL, dm_yn int NOT NULL,
  htn_yn int NOT NULL);
COMMENT ON TABLE hj IS '환자';
COMMENT ON COLUMN hj.hj_no IS '환자번호';
COMMENT ON COLUMN hj.hj_nm IS '환자명';
COMMENT ON COLUMN hj.sex_cd IS '성별 (M 남자, F 여자)';
COMMENT ON COLUMN hj.age IS '나이';
COMMENT ON COLUMN hj.dm_yn IS '당뇨 여부 (diabetes) 1 yes, 0 no';
COMMENT ON COLUMN hj.htn_yn IS '고혈압 여부 (hypertension) 1 yes, 0 no';
INSERT INTO hj SELECT g, '환자' || g, (ARRAY['M', 'F'])[1 + g % 2], 20 + g % 70, (g % 4 = 0)::int, (g % 3 = 0)::int
  FROM generate_series(1, 200) g;
ALTER TABLE hj ADD COLUMN died int NOT NULL DEFAULT 0, ADD COLUMN asa int NOT NULL DEFAULT 1;
COMMENT ON COLUMN hj.died IS 'In-hospital death: 1 died, 0 discharged alive';
COMMENT ON COLUMN hj.asa IS 'ASA class 1-4';
UPDATE hj SET died = (hj_no % 7 = 0)::int, asa = 1 + hj_no % 4;
CREATE TABLE ipw (ipw_no int PRIMARY KEY, hj_no int NOT NULL REFERENCES hj, gwa_cd text NOT NULL REFERENCES cd_gwa,
  ipw_dt timestamp NOT NULL, tw_dt timestamp, tw_rslt_cd text);
COMMENT ON TABLE ipw IS '입원 내역';
COMMENT ON COLUMN ipw.ipw_dt IS '입원일시';
COMMENT ON COLUMN ipw.tw_dt IS '퇴원일시 (재원 중이면 비어 있음)';
COMMENT ON COLUMN ipw.tw_rslt_cd IS '퇴원결과 (1 호전, 4 사망)';
-- one in ten stays is still open; every fifth ended in death
INSERT INTO ipw SELECT g, 1 + g % 200, (ARRAY['IM', 'GS', 'NR'])[1 + g % 3], timestamp '2025-01-01' + g * interval '13 hours',
  CASE WHEN g % 10 = 0 THEN NULL ELSE timestamp '2025-01-04' + g * interval '13 hours' END,
  CASE WHEN g % 10 = 0 THEN NULL WHEN g % 5 = 0 THEN '4' ELSE '1' END FROM generate_series(1, 500) g;
CREATE TABLE cd_lab (lab_cd text PRIMARY KEY, lab_nm text NOT NULL, loinc_cd text NOT NULL);
COMMENT ON TABLE cd_lab IS '검사 코드';
COMMENT ON COLUMN cd_lab.lab_cd IS '검사코드';
COMMENT ON COLUMN cd_lab.lab_nm IS '검사명';
COMMENT ON COLUMN cd_lab.loinc_cd IS 'LOINC 코드';
-- two codes share one name: per code and per name are different breakdowns
INSERT INTO cd_lab VALUES ('L1', '칼륨', '2823-3'), ('L2', '나트륨', '2951-2'), ('L3', '칼륨', '6298-4');
CREATE TABLE lab_rslt (rslt_no int PRIMARY KEY, ipw_no int NOT NULL REFERENCES ipw, lab_cd text NOT NULL REFERENCES cd_lab,
  val numeric NOT NULL);
COMMENT ON TABLE lab_rslt IS '검사 결과';
COMMENT ON COLUMN lab_rslt.val IS '결과값';
INSERT INTO lab_rslt SELECT g, 1 + g % 500, (ARRAY['L1', 'L2', 'L3', 'L1'])[1 + g % 4], 3 + (g % 30) * 0.1 FROM generate_series(1, 800) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "재원 중 환자의 진료과별 수", "gold_sql": "SELECT g.gwa_nm, count(DISTINCT i.hj_no) FROM ipw i JOIN cd_gwa g USING (gwa_cd) WHERE i.tw_dt IS NULL GROUP BY 1", "rule": "재원 중 환자: the stays not yet ended, never every admission"}
{"question": "현재 입원 중인 환자 수", "gold_sql": "SELECT count(DISTINCT hj_no) FROM ipw WHERE tw_dt IS NULL", "rule": "현재 입원 중인: the stays not yet ended"}
{"question": "how many patients are currently admitted", "gold_sql": "SELECT count(DISTINCT hj_no) FROM ipw WHERE tw_dt IS NULL", "rule": "currently admitted: the stays not yet ended, never also the ended ones (admitted found the end time through its comment, 재원 중이면 비어 있음)"}
{"question": "고혈압 환자는?", "parent_question": "당뇨 환자 수", "expect": "declined", "gold_sql": "SELECT count(*) FROM hj WHERE htn_yn = 1", "rule": "a follow-up naming a condition on another column: instead or as well? declined"}
{"question": "검사결과 건수를 검사코드별로", "gold_sql": "SELECT lab_cd, count(*) FROM lab_rslt GROUP BY 1", "rule": "per code, said so: the codes, never their names (two codes share one)"}
{"question": "검사결과 건수 검사별로 (검사코드, 검사명)", "gold_sql": "SELECT r.lab_cd, c.lab_nm, count(*) FROM lab_rslt r JOIN cd_lab c USING (lab_cd) GROUP BY 1, 2", "rule": "the code and the name both named: both shown, the code first"}
{"question": "생존 환자의 평균 나이", "gold_sql": "SELECT avg(age) FROM hj WHERE died = 0", "rule": "a yes/no named by the words of its 0 (alive): the rows where it is 0, never inverted"}
{"question": "여자 환자 중 생존 비율", "gold_sql": "SELECT round(100.0 * avg((died = 0)::int), 2), sum((died = 0)::int), count(*) FROM hj WHERE sex_cd = 'F'", "rule": "a share of survivors: the 0 of the death flag"}
{"question": "여자는?", "parent_question": "남자 환자 수", "gold_sql": "SELECT count(*) FROM hj WHERE sex_cd = 'F'", "rule": "a follow-up naming another value of the same column replaces it"}
J
own_schema_eval "$TMP/q.jsonl"

own_schema_declined "is declined: a name asked, and only identifiers shown" \
	"List the patients who died in hospital in 2025: patient number and name." "patient names of those who died in 2025"
own_schema_declined "is declined: the results are counted, never the test dictionary's entries" \
	"LOINC 코드별 결과 건수" "검사별 건수" "number of results by lab"
own_schema_declined "is declined: a range of two numbers (1-2) is never its first number" \
	"ASA 1-2 환자 수"
own_schema_declined "is declined: a value asked for after ':' and none shown, never the patient numbers alone" \
	"칼륨 4 이상 환자 목록: 환자번호, 측정값"
own_schema_expect "ipw.ipw_dt" "a time named among what a list shows ('환자번호, 입원일, 퇴원결과') is shown" \
	"사망 퇴원한 입원 목록: 환자번호, 입원일, 퇴원결과"
[ "$n" -eq 17 ] || nok "seventeen checks were made (got $n)"
echo "1..$n"
