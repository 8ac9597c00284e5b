#!/usr/bin/env python3
"""Writes questions.jsonl (40 lines) for the krhosp set.

Odd lines = development half, even lines = held-out half. The list below is written in
(odd, even) pairs of similar shape so both halves get the same mix.
    python3 build_questions.py
"""
import json
import os

N0 = "2025-12-31 23:59:00"   # default "now": the data mart was extracted at the end of 2025
N1 = "2026-01-05 09:00:00"
N2 = "2026-01-02 10:00:00"


def A(lang, question, sql, now=N0):
    return {"question": question, "lang": lang, "answerable": True,
            "gold_sql": " ".join(sql.split()), "now": now}


def U(lang, question, why):
    return {"question": question, "lang": lang, "answerable": False, "why": why}


Q = [
    # 1 / 2  counts on a department
    A("en", "How many admissions were there to the cardiology department in 2025?",
      """SELECT COUNT(*) FROM ipwon i JOIN cm_dept d ON d.dept_cd = i.dept_cd
         WHERE d.dept_eng_nm = 'Cardiology'
           AND i.ipwon_dt >= '2025-01-01' AND i.ipwon_dt < '2026-01-01'"""),
    A("ko", "진료과별 입원건수 뽑아줘 (진료과 이름, 건수)",
      """SELECT d.dept_nm, COUNT(*) FROM ipwon i JOIN cm_dept d ON d.dept_cd = i.dept_cd
         GROUP BY d.dept_nm""", N2),
    # 3 / 4  distinct patients filtered on a named diagnosis / drug
    A("ko", "2형 당뇨병 진단 받은 환자 몇명이야?",
      """SELECT COUNT(DISTINCT j.ptnt_no) FROM jindan j JOIN cm_kcd k ON k.sick_cd = j.sick_cd
         WHERE k.sick_kor_nm LIKE '%2형 당뇨병%'"""),
    A("ko", "반코마이신 처방받은 환자수 알려줘",
      """SELECT COUNT(DISTINCT c.ptnt_no) FROM cheobang c JOIN cm_drug d ON d.drug_cd = c.drug_cd
         WHERE d.drug_nm LIKE '%반코마이신%'""", N2),
    # 5 / 6  unanswerable
    U("ko", "환자별로 약물 알레르기 있는 사람 목록 뽑아줘 (환자번호, 알레르기 약물)",
      "no table records allergies or adverse drug reactions"),
    U("en", "What was the total billed amount for ICU admissions in 2025?",
      "no billing, charge or cost data anywhere in the schema"),
    # 7 / 8  relative time windows
    A("en", "How many patients were admitted in the last 30 days?",
      """SELECT COUNT(DISTINCT ptnt_no) FROM ipwon
         WHERE ipwon_dt >= TIMESTAMP '2025-12-31 23:59:00' - INTERVAL '30 days'
           AND ipwon_dt <= TIMESTAMP '2025-12-31 23:59:00'"""),
    A("ko", "최근 3개월간 세프트리악손 처방 건수",
      """SELECT COUNT(*) FROM cheobang c JOIN cm_drug d ON d.drug_cd = c.drug_cd
         WHERE d.drug_nm LIKE '%세프트리악손%'
           AND c.ord_dt >= TIMESTAMP '2026-01-05 09:00:00' - INTERVAL '3 months'
           AND c.ord_dt <= TIMESTAMP '2026-01-05 09:00:00'""", N1),
    # 9 / 10  average per group
    A("ko", "성별(M/F)로 HbA1c 평균값 보여줘. 검사결과 건 기준으로",
      """SELECT h.sex_cd, ROUND(AVG(g.rslt_val), 2)
         FROM geomsa_rslt g JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         JOIN hwanja h ON h.ptnt_no = g.ptnt_no
         WHERE e.exam_nm LIKE '%HbA1c%'
         GROUP BY h.sex_cd"""),
    A("en", "Average BMI at admission by sex (M/F), over admissions that have both height and weight recorded",
      """SELECT h.sex_cd, ROUND(AVG(i.wt_val / ((i.ht_val / 100.0) * (i.ht_val / 100.0))), 2)
         FROM ipwon i JOIN hwanja h ON h.ptnt_no = i.ptnt_no
         WHERE i.ht_val IS NOT NULL AND i.wt_val IS NOT NULL
         GROUP BY h.sex_cd"""),
    # 11 / 12  top-N rankings
    A("en", "Which 5 drugs were ordered most often in 2025? Give the drug code and the number of orders, highest first.",
      """SELECT c.drug_cd, COUNT(*) AS n FROM cheobang c
         WHERE c.ord_dt >= '2025-01-01' AND c.ord_dt < '2026-01-01'
         GROUP BY c.drug_cd ORDER BY n DESC LIMIT 5"""),
    A("en", "What are the 3 most common main diagnoses across all admissions? KCD code and number of admissions, most common first.",
      """SELECT j.sick_cd, COUNT(DISTINCT j.ipwon_no) AS n
         FROM jindan j
         WHERE j.main_sick_yn = 'Y'
         GROUP BY j.sick_cd ORDER BY n DESC LIMIT 3""", N2),
    # 13 / 14  "at least once" existence
    A("ko", "크레아티닌 2.0 이상 나온 적 있는 환자 몇 명?",
      """SELECT COUNT(DISTINCT g.ptnt_no) FROM geomsa_rslt g JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         WHERE e.exam_nm = '크레아티닌' AND g.rslt_val >= 2.0"""),
    A("en", "How many patients with an atrial fibrillation diagnosis were prescribed apixaban at least once?",
      """SELECT COUNT(DISTINCT j.ptnt_no) FROM jindan j JOIN cm_kcd k ON k.sick_cd = j.sick_cd
         WHERE k.sick_kor_nm LIKE '%심방세동%'
           AND EXISTS (SELECT 1 FROM cheobang c JOIN cm_drug d ON d.drug_cd = c.drug_cd
                       WHERE c.ptnt_no = j.ptnt_no AND d.ingr_eng_nm = 'apixaban')"""),
    # 15 / 16  percentages
    A("en", "What percentage of discharged admissions ended in death?",
      """SELECT ROUND(100.0 * COUNT(*) FILTER (WHERE toewon_rslt_cd = '4') / COUNT(*), 2)
         FROM ipwon WHERE toewon_dt IS NOT NULL"""),
    A("ko", "2024년 입원 중에 중환자실(ICU)로 입원한 비율 몇 %야?",
      """SELECT ROUND(100.0 * COUNT(*) FILTER (WHERE w.icu_yn = 'Y') / COUNT(*), 2)
         FROM ipwon i JOIN cm_dept w ON w.dept_cd = i.ward_cd
         WHERE i.ipwon_dt >= '2024-01-01' AND i.ipwon_dt < '2025-01-01'""", N2),
    # 17 / 18  per-patient listings
    A("ko", "와파린 처방 받은 환자 리스트 - 환자번호, 이름, 첫 처방일자",
      """SELECT h.ptnt_no, h.ptnt_nm, MIN(c.ord_dt)::date
         FROM cheobang c JOIN cm_drug d ON d.drug_cd = c.drug_cd
         JOIN hwanja h ON h.ptnt_no = c.ptnt_no
         WHERE d.drug_nm LIKE '%와파린%'
         GROUP BY h.ptnt_no, h.ptnt_nm"""),
    A("en", "List the patients who have been admitted more than 3 times: patient number and number of admissions.",
      """SELECT ptnt_no, COUNT(*) FROM ipwon GROUP BY ptnt_no HAVING COUNT(*) > 3"""),
    # 19 / 20  unanswerable
    U("en", "How many patients had a TSH above 4.5 in the last quarter?",
      "TSH (thyroid-stimulating hormone) is not among the lab tests in the lab code table"),
    U("ko", "2025년 집도의별 수술 건수 보여줘",
      "no surgery/operation records and no staff (surgeon) data"),
    # 21 / 22  top-N on a grouped dimension
    A("ko", "시도별 환자수 많은 순으로 top3",
      """SELECT addr_sido_nm, COUNT(*) AS n FROM hwanja
         GROUP BY addr_sido_nm ORDER BY n DESC LIMIT 3""", N2),
    A("en", "Which admitting department had the most systemic antibiotic (ATC J01) orders in 2025? Department English name and number of orders.",
      """SELECT d.dept_eng_nm, COUNT(*) AS n
         FROM cheobang c JOIN cm_drug g ON g.drug_cd = c.drug_cd
         JOIN ipwon i ON i.ipwon_no = c.ipwon_no
         JOIN cm_dept d ON d.dept_cd = i.dept_cd
         WHERE g.atc_cd LIKE 'J01%' AND c.ord_dt >= '2025-01-01' AND c.ord_dt < '2026-01-01'
         GROUP BY d.dept_eng_nm ORDER BY n DESC LIMIT 1"""),
    # 23 / 24  relative to now: recent labs, current census
    A("en", "Min, max and average sodium result over the last 7 days",
      """SELECT MIN(g.rslt_val), MAX(g.rslt_val), ROUND(AVG(g.rslt_val), 2)
         FROM geomsa_rslt g JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         WHERE e.exam_eng_nm = 'Sodium'
           AND g.spcm_dt >= TIMESTAMP '2025-12-31 23:59:00' - INTERVAL '7 days'
           AND g.spcm_dt <= TIMESTAMP '2025-12-31 23:59:00'"""),
    A("ko", "지금 재원중인 환자 병동별로 몇명인지 (병동명)",
      """SELECT w.dept_nm, COUNT(DISTINCT i.ptnt_no)
         FROM ipwon i JOIN cm_dept w ON w.dept_cd = i.ward_cd
         WHERE i.ipwon_dt <= TIMESTAMP '2025-12-31 23:59:00'
           AND (i.toewon_dt IS NULL OR i.toewon_dt > TIMESTAMP '2025-12-31 23:59:00')
         GROUP BY w.dept_nm"""),
    # 25 / 26  harder
    A("ko", "급성 심근경색 주상병으로 입원한 건별 트로포닌 I 최고값 (입원번호, 최고값). 트로포닌 검사 있는 입원만",
      """SELECT j.ipwon_no, MAX(g.rslt_val)
         FROM jindan j JOIN cm_kcd k ON k.sick_cd = j.sick_cd
         JOIN geomsa_rslt g ON g.ipwon_no = j.ipwon_no
         JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         WHERE j.main_sick_yn = 'Y' AND k.sick_kor_nm LIKE '%급성 심근경색%'
           AND e.exam_nm LIKE '%트로포닌%'
         GROUP BY j.ipwon_no"""),
    A("ko", "2025년에 퇴원한 입원 중 퇴원 후 30일 이내에 다시 입원한 건 몇 건?",
      """SELECT COUNT(*) FROM ipwon a
         WHERE a.toewon_dt >= '2025-01-01' AND a.toewon_dt < '2026-01-01'
           AND EXISTS (SELECT 1 FROM ipwon b WHERE b.ptnt_no = a.ptnt_no
                       AND b.ipwon_dt > a.toewon_dt
                       AND b.ipwon_dt <= a.toewon_dt + INTERVAL '30 days')""", N2),
    A("en", "Which patients had a hemoglobin below 8 during an admission whose main diagnosis was GI bleeding? Patient number and their lowest hemoglobin in those admissions.",
      """SELECT g.ptnt_no, MIN(g.rslt_val)
         FROM geomsa_rslt g JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         JOIN jindan j ON j.ipwon_no = g.ipwon_no AND j.main_sick_yn = 'Y'
         JOIN cm_kcd k ON k.sick_cd = j.sick_cd
         WHERE k.sick_kor_nm LIKE '%위장관출혈%' AND e.exam_eng_nm = 'Hemoglobin'
         GROUP BY g.ptnt_no HAVING MIN(g.rslt_val) < 8"""),
    A("en", "For admissions that came in through the emergency room, what was the average systolic blood pressure at admission per department? Department English name and average SBP.",
      """SELECT d.dept_eng_nm, ROUND(AVG(i.sbp_val), 2)
         FROM ipwon i JOIN cm_dept d ON d.dept_cd = i.dept_cd
         WHERE i.ipwon_path_cd = '2'
         GROUP BY d.dept_eng_nm"""),
    # 29 / 30  averages over stays
    A("ko", "폐렴 주상병 입원 평균 재원일수? 퇴원한 건만, 퇴원일-입원일로 계산",
      """SELECT ROUND(AVG(i.toewon_dt::date - i.ipwon_dt::date), 2)
         FROM ipwon i
         WHERE i.toewon_dt IS NOT NULL
           AND EXISTS (SELECT 1 FROM jindan j JOIN cm_kcd k ON k.sick_cd = j.sick_cd
                       WHERE j.ipwon_no = i.ipwon_no AND j.main_sick_yn = 'Y'
                         AND k.sick_kor_nm LIKE '%폐렴%')"""),
    A("en", "What is the average number of diagnoses per admission for admissions in 2025?",
      """SELECT ROUND(AVG(n), 2) FROM (
           SELECT i.ipwon_no, COUNT(j.jindan_seq) AS n
           FROM ipwon i LEFT JOIN jindan j ON j.ipwon_no = i.ipwon_no
           WHERE i.ipwon_dt >= '2025-01-01' AND i.ipwon_dt < '2026-01-01'
           GROUP BY i.ipwon_no) t"""),
    # 31 / 32  counts per period / per test
    A("en", "How many lab results were flagged high in December 2025, by test? Test English name and count.",
      """SELECT e.exam_eng_nm, COUNT(*)
         FROM geomsa_rslt g JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         WHERE g.abnml_flag = 'H' AND g.spcm_dt >= '2025-12-01' AND g.spcm_dt < '2026-01-01'
         GROUP BY e.exam_eng_nm"""),
    A("ko", "2025년 응급실 경유 입원 월(1~12)별 건수",
      """SELECT EXTRACT(MONTH FROM ipwon_dt)::int AS mon, COUNT(*)
         FROM ipwon
         WHERE ipwon_path_cd = '2' AND ipwon_dt >= '2025-01-01' AND ipwon_dt < '2026-01-01'
         GROUP BY mon ORDER BY mon"""),
    # 33 / 34  patient counts with demographic / period filters
    A("ko", "만 65세 이상 환자 중에 심부전 진단 받은 환자 몇명? 나이는 오늘 기준",
      """SELECT COUNT(DISTINCT h.ptnt_no)
         FROM hwanja h JOIN jindan j ON j.ptnt_no = h.ptnt_no
         JOIN cm_kcd k ON k.sick_cd = j.sick_cd
         WHERE k.sick_kor_nm LIKE '%심부전%'
           AND age(DATE '2025-12-31', h.brth_dt) >= INTERVAL '65 years'"""),
    A("ko", "2025년 상반기 정형외과 입원 환자수 (중복 제외)",
      """SELECT COUNT(DISTINCT i.ptnt_no) FROM ipwon i JOIN cm_dept d ON d.dept_cd = i.dept_cd
         WHERE d.dept_nm = '정형외과'
           AND i.ipwon_dt >= '2025-01-01' AND i.ipwon_dt < '2025-07-01'""", N2),
    # 35 / 36  unanswerable
    U("ko", "지난달 병동별 간호사 야간근무 횟수 알려줘",
      "no staff, nurse or duty-roster data"),
    U("en", "What share of our inpatients are current smokers?",
      "smoking status is not recorded anywhere"),
    # 37 / 38  per-ward patients, per-order averages
    A("en", "How many distinct patients were admitted to each ward in 2025? Ward English name and number of patients.",
      """SELECT w.dept_eng_nm, COUNT(DISTINCT i.ptnt_no)
         FROM ipwon i JOIN cm_dept w ON w.dept_cd = i.ward_cd
         WHERE i.ipwon_dt >= '2025-01-01' AND i.ipwon_dt < '2026-01-01'
         GROUP BY w.dept_eng_nm"""),
    A("ko", "메트포르민 처방 건당 평균 투여일수 얼마야?",
      """SELECT ROUND(AVG(c.ord_days), 2) FROM cheobang c JOIN cm_drug d ON d.drug_cd = c.drug_cd
         WHERE d.drug_nm LIKE '%메트포르민%'""", N2),
    # 39 / 40  rate against a reference range, ICU count
    A("en", "What percentage of potassium results were above the upper reference limit?",
      """SELECT ROUND(100.0 * COUNT(*) FILTER (WHERE g.rslt_val > e.ref_high) / COUNT(*), 2)
         FROM geomsa_rslt g JOIN cm_geomsa e ON e.exam_cd = g.exam_cd
         WHERE e.exam_eng_nm = 'Potassium'"""),
    A("en", "How many admissions in 2025 went to an intensive care unit?",
      """SELECT COUNT(*) FROM ipwon i JOIN cm_dept w ON w.dept_cd = i.ward_cd
         WHERE w.icu_yn = 'Y' AND i.ipwon_dt >= '2025-01-01' AND i.ipwon_dt < '2026-01-01'"""),
]

assert len(Q) == 40, len(Q)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "questions.jsonl")
with open(out, "w", encoding="utf-8") as f:
    for i, q in enumerate(Q, 1):
        rec = {"id": "krhosp-%02d" % i}
        rec.update(q)
        f.write(json.dumps(rec, ensure_ascii=False) + "\n")
for half, idx in (("dev (odd)", range(0, 40, 2)), ("held-out (even)", range(1, 40, 2))):
    sub = [Q[i] for i in idx]
    print(half, "ko=%d en=%d answerable=%d unanswerable=%d" % (
        sum(q["lang"] == "ko" for q in sub), sum(q["lang"] == "en" for q in sub),
        sum(q["answerable"] for q in sub), sum(not q["answerable"] for q in sub)))
