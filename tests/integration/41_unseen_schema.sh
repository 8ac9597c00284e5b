#!/usr/bin/env bash
# 41_unseen_schema.sh: the offline planner on a hospital schema written for this test (abbreviated names, Korean-only comments, code tables, no declared keys): each rule of docs/architecture.md "Linking rules for schemas askql was not built on" answers a question checked by execution against gold SQL, and the unsafe readings are declined.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin unseen

# A small inpatient mart: patients, stays (department and unit codes both from one code table, a
# discharge result code explained in the comment), diagnoses with a code table in Korean and English,
# lab results with a lab code table.  Names are this test's own.
psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
SELECT setseed(0.23);
CREATE TABLE pt_mst (pt_id int PRIMARY KEY, brth_ymd date, sex_cd text);
COMMENT ON TABLE pt_mst IS '환자 마스터';
COMMENT ON COLUMN pt_mst.pt_id IS '환자번호';
COMMENT ON COLUMN pt_mst.brth_ymd IS '생년월일';
COMMENT ON COLUMN pt_mst.sex_cd IS '성별(M:남, F:여)';
CREATE TABLE cd_org (org_cd text PRIMARY KEY, org_nm text, org_eng_nm text);
COMMENT ON TABLE cd_org IS '조직 코드(진료과와 병동)';
COMMENT ON COLUMN cd_org.org_nm IS '조직명';
COMMENT ON COLUMN cd_org.org_eng_nm IS '조직 영문명';
CREATE TABLE adm_hist (adm_id int PRIMARY KEY, pt_id int, adm_dtm timestamp, dsch_dtm timestamp, dept_cd text,
                       unit_cd text, dsch_rslt text);
COMMENT ON TABLE adm_hist IS '입원 이력';
COMMENT ON COLUMN adm_hist.adm_id IS '입원번호';
COMMENT ON COLUMN adm_hist.pt_id IS '환자번호';
COMMENT ON COLUMN adm_hist.adm_dtm IS '입원일시';
COMMENT ON COLUMN adm_hist.dsch_dtm IS '퇴원일시';
COMMENT ON COLUMN adm_hist.dept_cd IS '진료과 코드';
COMMENT ON COLUMN adm_hist.unit_cd IS '병동 코드';
COMMENT ON COLUMN adm_hist.dsch_rslt IS '퇴원결과(1:회복, 2:전원, 3:사망)';
CREATE TABLE cd_dx (dx_cd text PRIMARY KEY, dx_kor_nm text, dx_eng_nm text);
COMMENT ON TABLE cd_dx IS '진단 코드 사전';
COMMENT ON COLUMN cd_dx.dx_kor_nm IS '진단 한글명';
COMMENT ON COLUMN cd_dx.dx_eng_nm IS '진단 영문명';
CREATE TABLE dx_hist (dx_seq int PRIMARY KEY, adm_id int, pt_id int, dx_cd text);
COMMENT ON TABLE dx_hist IS '진단 이력';
CREATE TABLE cd_lab (lab_cd text PRIMARY KEY, lab_nm text, ref_low numeric, ref_high numeric);
COMMENT ON TABLE cd_lab IS '검사 코드';
COMMENT ON COLUMN cd_lab.lab_nm IS '검사명';
COMMENT ON COLUMN cd_lab.ref_low IS '참고치 하한';
COMMENT ON COLUMN cd_lab.ref_high IS '참고치 상한';
CREATE TABLE lab_rslt (rslt_seq int PRIMARY KEY, pt_id int, lab_cd text, rslt_num numeric, smpl_dtm timestamp);
COMMENT ON TABLE lab_rslt IS '검사 결과';
COMMENT ON COLUMN lab_rslt.rslt_num IS '결과 수치';
COMMENT ON COLUMN lab_rslt.smpl_dtm IS '채취일시';
INSERT INTO pt_mst SELECT g, date '1935-01-01' + (random() * 25000)::int, CASE WHEN random() < 0.5 THEN 'F' ELSE 'M' END
  FROM generate_series(1, 300) g;
INSERT INTO cd_org VALUES ('D01', '내과', 'Internal Medicine'), ('D02', '외과', 'Surgery'), ('D03', '신경과', 'Neurology'),
  ('U01', '내과병동', 'Medical Ward'), ('U02', '외과병동', 'Surgical Ward'), ('U03', '중환자실', 'Intensive Care Unit');
INSERT INTO cd_dx VALUES ('I500', '울혈성 심부전', 'Congestive heart failure'), ('I509', '심부전, 상세불명', 'Heart failure, unspecified'),
  ('J189', '폐렴, 상세불명', 'Pneumonia, unspecified'), ('J159', '세균성 폐렴', 'Bacterial pneumonia'),
  ('E119', '2형 당뇨병', 'Type 2 diabetes mellitus'), ('E109', '1형 당뇨병', 'Type 1 diabetes mellitus'),
  ('N189', '만성 콩팥병', 'Chronic kidney disease'), ('I10', '본태성 고혈압', 'Essential hypertension');
INSERT INTO adm_hist SELECT g, 1 + (random() * 299)::int, t, CASE WHEN g % 25 = 0 THEN NULL ELSE t + (1 + (random() * 14)::int) * interval '1 day' END,
       (ARRAY['D01','D02','D03'])[1 + (random() * 2)::int], (ARRAY['U01','U02','U03'])[1 + (random() * 2)::int],
       CASE WHEN g % 25 = 0 THEN NULL WHEN random() < 0.08 THEN '3' WHEN random() < 0.2 THEN '2' ELSE '1' END
  FROM (SELECT g, timestamp '2024-01-01' + random() * interval '700 days' t FROM generate_series(1, 800) g) x;
INSERT INTO dx_hist SELECT g, a.adm_id, a.pt_id, (ARRAY['I500','I509','J189','J159','E119','E109','N189','I10'])[1 + (random() * 7)::int]
  FROM generate_series(1, 1500) g JOIN adm_hist a ON a.adm_id = 1 + (g * 7919) % 800;
-- patient 7's first admission has a twin in another department at the same minute (a tie)
INSERT INTO adm_hist SELECT 801, pt_id, adm_dtm, dsch_dtm, CASE dept_cd WHEN 'D01' THEN 'D02' ELSE 'D01' END, unit_cd, dsch_rslt
  FROM adm_hist WHERE pt_id = 7 ORDER BY adm_dtm LIMIT 1;
INSERT INTO cd_lab VALUES ('L1', '헤모글로빈', 12, 16), ('L2', '크레아티닌', 0.6, 1.2), ('L3', '칼륨', 3.5, 5.1);
INSERT INTO lab_rslt SELECT g, 1 + (random() * 299)::int, (ARRAY['L1','L2','L3'])[1 + (random() * 2)::int],
       round((2 + random() * 14)::numeric, 1), timestamp '2024-01-01' + random() * interval '700 days'
  FROM generate_series(1, 4000) g;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
"$ASKQL" index --quiet --target "$URL" >/dev/null 2>&1

# expect: correct (answered, same rows as gold) or declined (an unsafe reading must not be answered)
cat >"$TMP/q.jsonl" <<'J'
{"question": "심부전 진단 받은 환자 몇 명?", "gold_sql": "SELECT count(DISTINCT h.pt_id) FROM dx_hist h JOIN cd_dx d ON d.dx_cd = h.dx_cd WHERE d.dx_kor_nm LIKE '%심부전%'", "expect": "correct", "rule": "a part of dictionary labels (ILIKE)"}
{"question": "How many patients have type 2 diabetes?", "gold_sql": "SELECT count(DISTINCT h.pt_id) FROM dx_hist h JOIN cd_dx d ON d.dx_cd = h.dx_cd WHERE d.dx_eng_nm = 'Type 2 diabetes mellitus'", "expect": "correct", "rule": "a lexicon phrase inside an English label"}
{"question": "만 70세 이상 환자 수", "gold_sql": "SELECT count(*) FROM pt_mst WHERE date_part('year', age(timestamp '2025-12-31 23:59:00', brth_ymd)) >= 70", "expect": "correct", "rule": "an age from a birth date"}
{"question": "평균 재원일수", "gold_sql": "SELECT avg(dsch_dtm::date - adm_dtm::date) FROM adm_hist", "expect": "correct", "rule": "a length of stay in days"}
{"question": "What percentage of discharged admissions ended in death?", "gold_sql": "SELECT round(100.0 * count(*) FILTER (WHERE dsch_rslt = '3') / count(*), 2) FROM adm_hist WHERE dsch_dtm IS NOT NULL", "expect": "correct", "rule": "a share of a code named in the comment"}
{"question": "헤모글로빈 8 g/dL 미만 나온 환자 몇 명?", "gold_sql": "SELECT count(DISTINCT r.pt_id) FROM lab_rslt r JOIN cd_lab c ON c.lab_cd = r.lab_cd WHERE c.lab_nm = '헤모글로빈' AND r.rslt_num < 8", "expect": "correct", "rule": "a number's unit"}
{"question": "number of patients admitted per unit, unit English name", "gold_sql": "SELECT o.org_eng_nm, count(DISTINCT a.pt_id) FROM adm_hist a JOIN cd_org o ON o.org_cd = a.unit_cd GROUP BY o.org_eng_nm", "expect": "correct", "rule": "a code column joined to its code table by its values, the label named"}
{"question": "만성 콩팥병 진단 받은 환자들의 크레아티닌 평균", "gold_sql": "SELECT avg(r.rslt_num) FROM lab_rslt r JOIN cd_lab c ON c.lab_cd = r.lab_cd WHERE c.lab_nm = '크레아티닌' AND r.pt_id IN (SELECT h.pt_id FROM dx_hist h JOIN cd_dx d ON d.dx_cd = h.dx_cd WHERE d.dx_kor_nm LIKE '%만성 콩팥병%')", "expect": "correct", "rule": "a condition on another event table of the same patient"}
{"question": "How many patients have heart failure and hypertension?", "gold_sql": "SELECT count(*) FROM (SELECT h.pt_id FROM dx_hist h JOIN cd_dx d ON d.dx_cd = h.dx_cd WHERE d.dx_eng_nm ILIKE '%heart failure%' INTERSECT SELECT h.pt_id FROM dx_hist h JOIN cd_dx d ON d.dx_cd = h.dx_cd WHERE d.dx_eng_nm ILIKE '%hypertension%') t", "expect": "declined", "rule": "two names of one kind (both never hold on one row)"}
{"question": "Which patients were admitted 3 or more times?", "gold_sql": "SELECT pt_id FROM adm_hist GROUP BY pt_id HAVING count(*) >= 3", "expect": "correct", "rule": "a count per patient compared (HAVING, not an age)"}
{"question": "How long was patient 7's last admission?", "gold_sql": "SELECT date_part('epoch', dsch_dtm - adm_dtm) / 86400 FROM adm_hist WHERE pt_id = 7 AND dsch_dtm IS NOT NULL ORDER BY adm_dtm DESC LIMIT 1", "expect": "correct", "rule": "how long a chosen stay lasted"}
{"question": "칼륨 참고치 상한 넘은 결과 몇 건?", "gold_sql": "SELECT count(*) FROM lab_rslt r JOIN cd_lab c ON c.lab_cd = r.lab_cd WHERE c.lab_nm = '칼륨' AND r.rslt_num > c.ref_high", "expect": "correct", "rule": "a value compared with its reference range's upper limit (another column)"}
{"question": "헤모글로빈이 참고치 하한보다 낮았던 환자 몇 명?", "gold_sql": "SELECT count(DISTINCT r.pt_id) FROM lab_rslt r JOIN cd_lab c ON c.lab_cd = r.lab_cd WHERE c.lab_nm = '헤모글로빈' AND r.rslt_num < c.ref_low", "expect": "correct", "rule": "below the lower limit, through the lab dictionary"}
{"question": "2025년 월별 입원 건수", "gold_sql": "SELECT EXTRACT(MONTH FROM adm_dtm)::int, count(*) FROM adm_hist WHERE adm_dtm >= '2025-01-01' AND adm_dtm < '2026-01-01' GROUP BY 1", "expect": "correct", "rule": "months of one calendar year as 1-12"}
{"question": "칼륨 높은 환자 수", "gold_sql": "SELECT count(DISTINCT r.pt_id) FROM lab_rslt r JOIN cd_lab c ON c.lab_cd = r.lab_cd WHERE c.lab_nm = '칼륨' AND r.rslt_num > c.ref_high", "expect": "declined", "rule": "a comparison word with nothing to compare with"}
{"question": "How many distinct units did patient 7 stay in?", "gold_sql": "SELECT count(DISTINCT unit_cd) FROM adm_hist WHERE pt_id = 7", "expect": "correct", "rule": "different values of the column counted (COUNT DISTINCT)"}
{"question": "How many patients were discharged?", "gold_sql": "SELECT count(DISTINCT pt_id) FROM adm_hist WHERE dsch_dtm IS NOT NULL", "expect": "correct", "rule": "an event word counts the rows where it took place"}
{"question": "환자 7의 첫 입원 진료과", "gold_sql": "SELECT DISTINCT o.org_nm FROM adm_hist a JOIN cd_org o ON o.org_cd = a.dept_cd WHERE a.pt_id = 7 AND a.adm_dtm = (SELECT min(adm_dtm) FROM adm_hist WHERE pt_id = 7)", "expect": "correct", "rule": "the first named thing: every one at that time"}
{"question": "Was there any admission?", "gold_sql": "SELECT count(*) > 0 FROM adm_hist", "expect": "declined", "rule": "a yes/no question with nothing to check"}
{"question": "Calculate the patients with pneumonia.", "gold_sql": "SELECT count(DISTINCT h.pt_id) FROM dx_hist h JOIN cd_dx d ON d.dx_cd = h.dx_cd WHERE d.dx_eng_nm ILIKE '%pneumonia%'", "expect": "declined", "rule": "a list of patients is not calculated"}
J
"$ASKQL" eval --direct --target "$DB" --now '2025-12-31 23:59:00' --out "$TMP/out.jsonl" "$TMP/q.jsonl" >"$TMP/report.txt" 2>&1
while IFS= read -r line; do
	case $line in
	OK\ *) ok "${line#OK }" ;;
	*) nok "${line#NOK }" "$(cat "$TMP/report.txt")" ;;
	esac
done < <(python3 "$TOP/tests/lib/eval_expect.py" "$TMP/q.jsonl" "$TMP/out.jsonl")
[ "$n" -eq 20 ] && ok "all twenty questions were evaluated" || nok "expected 20 results, got $n"
