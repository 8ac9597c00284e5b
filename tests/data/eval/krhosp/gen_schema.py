#!/usr/bin/env python3
"""Deterministic generator for the krhosp evaluation database.

Writes schema.sql (CREATE TABLE + Korean COMMENTs + explicit INSERTs) next to this file.
Python 3 standard library only; fixed seed, so every run writes the same file.
    python3 gen_schema.py
"""
import datetime as dt
import os
import random

SEED = 20250917
R = random.Random(SEED)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.sql")

DATA_START = dt.datetime(2024, 1, 1)
DATA_END = dt.datetime(2025, 12, 31, 23, 59)  # extraction time of the data mart

# ---------------------------------------------------------------- dictionaries
# 부서(진료과 + 병동) 마스터: (코드, 한글명, 영문명, 구분 C=진료과 W=병동, 중환자실여부)
DEPTS = [
    ("IMC", "순환기내과", "Cardiology", "C", "N"),
    ("IME", "내분비내과", "Endocrinology", "C", "N"),
    ("IMG", "소화기내과", "Gastroenterology", "C", "N"),
    ("IMP", "호흡기내과", "Pulmonology", "C", "N"),
    ("IMN", "신장내과", "Nephrology", "C", "N"),
    ("IMI", "감염내과", "Infectious Diseases", "C", "N"),
    ("GS", "외과", "General Surgery", "C", "N"),
    ("OS", "정형외과", "Orthopedic Surgery", "C", "N"),
    ("NR", "신경과", "Neurology", "C", "N"),
    ("NS", "신경외과", "Neurosurgery", "C", "N"),
    ("W51", "51병동", "Ward 51", "W", "N"),
    ("W52", "52병동", "Ward 52", "W", "N"),
    ("W61", "61병동", "Ward 61", "W", "N"),
    ("W62", "62병동", "Ward 62", "W", "N"),
    ("W71", "71병동", "Ward 71", "W", "N"),
    ("MICU", "내과계 중환자실", "Medical ICU", "W", "Y"),
    ("SICU", "외과계 중환자실", "Surgical ICU", "W", "Y"),
]
MEDICAL = {"IMC", "IME", "IMG", "IMP", "IMN", "IMI"}
GEN_WARD = {"IMC": "W51", "IME": "W52", "IMG": "W52", "IMP": "W51", "IMN": "W52",
            "IMI": "W51", "GS": "W61", "OS": "W62", "NS": "W62", "NR": "W71"}

# KCD-8 상병 (코드는 점 없이 저장): 코드, 한글명, 영문명
KCD = [
    ("I219", "상세불명의 급성 심근경색증", "Acute myocardial infarction, unspecified"),
    ("I200", "불안정 협심증", "Unstable angina"),
    ("I509", "상세불명의 심부전", "Heart failure, unspecified"),
    ("I489", "상세불명의 심방세동 및 심방조동", "Atrial fibrillation and atrial flutter, unspecified"),
    ("I10", "본태성(원발성) 고혈압", "Essential (primary) hypertension"),
    ("E119", "합병증을 동반하지 않은 2형 당뇨병", "Type 2 diabetes mellitus without complications"),
    ("E112", "신장합병증을 동반한 2형 당뇨병", "Type 2 diabetes mellitus with renal complications"),
    ("E785", "상세불명의 고지질혈증", "Hyperlipidaemia, unspecified"),
    ("E871", "저오스몰농도 및 저나트륨혈증", "Hypo-osmolality and hyponatraemia"),
    ("N183", "만성 신장병(3기)", "Chronic kidney disease, stage 3"),
    ("N185", "만성 신장병(5기)", "Chronic kidney disease, stage 5"),
    ("N179", "상세불명의 급성 신부전", "Acute renal failure, unspecified"),
    ("N390", "부위가 명시되지 않은 요로감염", "Urinary tract infection, site not specified"),
    ("J189", "상세불명의 폐렴", "Pneumonia, unspecified"),
    ("J159", "상세불명의 세균성 폐렴", "Bacterial pneumonia, unspecified"),
    ("J441", "상세불명의 급성 악화를 동반한 만성 폐쇄성 폐질환",
     "Chronic obstructive pulmonary disease with acute exacerbation, unspecified"),
    ("A419", "상세불명의 패혈증", "Sepsis, unspecified"),
    ("K922", "상세불명의 위장관출혈", "Gastrointestinal haemorrhage, unspecified"),
    ("K859", "상세불명의 급성 췌장염", "Acute pancreatitis, unspecified"),
    ("K802", "담낭염이 없는 담낭의 담석", "Calculus of gallbladder without cholecystitis"),
    ("K358", "기타 및 상세불명의 급성 충수염", "Acute appendicitis, other and unspecified"),
    ("C169", "상세불명의 위의 악성 신생물", "Malignant neoplasm of stomach, unspecified"),
    ("C349", "상세불명의 기관지 또는 폐의 악성 신생물", "Malignant neoplasm of bronchus or lung, unspecified"),
    ("S720", "대퇴골 경부의 골절", "Fracture of neck of femur"),
    ("M171", "기타 원발성 무릎관절증", "Other primary gonarthrosis"),
    ("M4806", "척추협착, 요추부", "Spinal stenosis, lumbar region"),
    ("I639", "상세불명의 뇌경색증", "Cerebral infarction, unspecified"),
    ("G459", "상세불명의 일과성 대뇌허혈발작", "Transient cerebral ischaemic attack, unspecified"),
    ("I619", "상세불명의 뇌내출혈", "Intracerebral haemorrhage, unspecified"),
    ("S065", "외상성 경막하출혈", "Traumatic subdural haemorrhage"),
]

# 약품 마스터: 코드, 한글 약품명, 성분명(영문), ATC, 단위, 투여경로
DRUGS = [
    ("ASA100", "아스피린장용정 100mg", "aspirin", "B01AC06", "정", "PO"),
    ("CLPD75", "클로피도그렐정 75mg", "clopidogrel", "B01AC04", "정", "PO"),
    ("ATV20", "아토르바스타틴정 20mg", "atorvastatin", "C10AA05", "정", "PO"),
    ("RSV10", "로수바스타틴정 10mg", "rosuvastatin", "C10AA07", "정", "PO"),
    ("MTF500", "메트포르민정 500mg", "metformin", "A10BA02", "정", "PO"),
    ("INSGL", "인슐린글라진주 100IU/mL", "insulin glargine", "A10AE04", "IU", "SC"),
    ("AML5", "암로디핀정 5mg", "amlodipine", "C08CA01", "정", "PO"),
    ("LOS50", "로사르탄정 50mg", "losartan", "C09CA01", "정", "PO"),
    ("FUR40", "푸로세미드정 40mg", "furosemide", "C03CA01", "정", "PO"),
    ("FURI20", "푸로세미드주 20mg", "furosemide", "C03CA01", "A", "IV"),
    ("WFR2", "와파린정 2mg", "warfarin", "B01AA03", "정", "PO"),
    ("APX5", "아픽사반정 5mg", "apixaban", "B01AF02", "정", "PO"),
    ("HEP5K", "헤파린나트륨주 5000IU", "heparin", "B01AB01", "V", "SC"),
    ("CTRX1", "세프트리악손주 1g", "ceftriaxone", "J01DD04", "V", "IV"),
    ("PTZ45", "피페라실린/타조박탐주 4.5g", "piperacillin and tazobactam", "J01CR05", "V", "IV"),
    ("VAN1", "반코마이신주 1g", "vancomycin", "J01XA01", "V", "IV"),
    ("MEM1", "메로페넴주 1g", "meropenem", "J01DH02", "V", "IV"),
    ("LVX500", "레보플록사신정 500mg", "levofloxacin", "J01MA12", "정", "PO"),
    ("APAP500", "아세트아미노펜정 500mg", "paracetamol", "N02BE01", "정", "PO"),
    ("TRM50", "트라마돌캡슐 50mg", "tramadol", "N02AX02", "C", "PO"),
    ("PPZI40", "판토프라졸주 40mg", "pantoprazole", "A02BC02", "V", "IV"),
    ("ESO20", "에소메프라졸정 20mg", "esomeprazole", "A02BC05", "정", "PO"),
    ("PDS5", "프레드니솔론정 5mg", "prednisolone", "H02AB06", "정", "PO"),
    ("SAL100", "살부타몰흡입제 100mcg", "salbutamol", "R03AC02", "회", "INH"),
    ("NS1L", "생리식염수주 1L", "sodium chloride", "B05BB01", "백", "IV"),
]
DRUG_RTE = {d[0]: d[5] for d in DRUGS}

# 검사코드 마스터: 코드, 한글 검사명, 영문명, LOINC, 단위, 참고치 하한, 상한
EXAMS = [
    ("L1001", "백혈구수(WBC)", "White blood cell count", "6690-2", "10^3/uL", 4.0, 10.0),
    ("L1002", "혈색소(Hb)", "Hemoglobin", "718-7", "g/dL", 12.0, 16.0),
    ("L1003", "혈소판수(PLT)", "Platelet count", "777-3", "10^3/uL", 150, 400),
    ("L2001", "혈당", "Glucose", "2345-7", "mg/dL", 70, 110),
    ("L2002", "당화혈색소(HbA1c)", "Hemoglobin A1c", "4548-4", "%", 4.0, 5.6),
    ("L2003", "크레아티닌", "Creatinine", "2160-0", "mg/dL", 0.6, 1.2),
    ("L2004", "혈중요소질소(BUN)", "Urea nitrogen", "3094-0", "mg/dL", 8, 23),
    ("L2005", "나트륨(Na)", "Sodium", "2951-2", "mmol/L", 135, 145),
    ("L2006", "칼륨(K)", "Potassium", "2823-3", "mmol/L", 3.5, 5.1),
    ("L2007", "AST(SGOT)", "Aspartate aminotransferase", "1920-8", "U/L", 0, 40),
    ("L2008", "ALT(SGPT)", "Alanine aminotransferase", "1742-6", "U/L", 0, 40),
    ("L2009", "총콜레스테롤", "Total cholesterol", "2093-3", "mg/dL", 0, 200),
    ("L2010", "LDL 콜레스테롤", "LDL cholesterol", "13457-7", "mg/dL", 0, 130),
    ("L3001", "C-반응단백(CRP)", "C-reactive protein", "1988-5", "mg/dL", 0, 0.5),
    ("L3002", "트로포닌 I", "Troponin I", "10839-9", "ng/mL", 0, 0.04),
    ("L3003", "NT-proBNP", "NT-proBNP", "33762-6", "pg/mL", 0, 125),
    ("L3004", "프로칼시토닌", "Procalcitonin", "33959-8", "ng/mL", 0, 0.5),
]
EXAM_REF = {e[0]: (e[5], e[6]) for e in EXAMS}

# 주진단 -> 진료과, 재원일수 범위, 사망률, 응급실 경유 확률, ICU 확률, 가중치
MAIN_DX = {
    "I219": ("IMC", (4, 10), 0.07, 0.85, 0.45, 5),
    "I200": ("IMC", (2, 5), 0.00, 0.50, 0.05, 4),
    "I509": ("IMC", (5, 14), 0.06, 0.60, 0.15, 5),
    "I489": ("IMC", (2, 6), 0.00, 0.45, 0.03, 3),
    "E119": ("IME", (3, 8), 0.00, 0.10, 0.00, 2),
    "E112": ("IME", (4, 10), 0.00, 0.15, 0.02, 2),
    "E871": ("IME", (3, 8), 0.01, 0.55, 0.05, 2),
    "K922": ("IMG", (3, 9), 0.03, 0.80, 0.15, 4),
    "K859": ("IMG", (4, 12), 0.02, 0.75, 0.10, 3),
    "C169": ("IMG", (5, 14), 0.04, 0.10, 0.02, 3),
    "J189": ("IMP", (5, 12), 0.05, 0.60, 0.10, 6),
    "J159": ("IMP", (6, 14), 0.07, 0.65, 0.15, 3),
    "J441": ("IMP", (5, 11), 0.02, 0.70, 0.08, 3),
    "C349": ("IMP", (5, 15), 0.09, 0.15, 0.03, 3),
    "N185": ("IMN", (4, 12), 0.02, 0.30, 0.04, 3),
    "N179": ("IMN", (4, 10), 0.03, 0.55, 0.08, 2),
    "N390": ("IMI", (3, 8), 0.01, 0.60, 0.03, 4),
    "A419": ("IMI", (7, 21), 0.16, 0.85, 0.55, 4),
    "K358": ("GS", (2, 5), 0.00, 0.70, 0.01, 4),
    "K802": ("GS", (2, 6), 0.00, 0.20, 0.01, 3),
    "S720": ("OS", (8, 20), 0.02, 0.80, 0.05, 4),
    "M171": ("OS", (5, 10), 0.00, 0.00, 0.01, 4),
    "M4806": ("OS", (4, 9), 0.00, 0.00, 0.01, 3),
    "I639": ("NR", (6, 18), 0.05, 0.85, 0.20, 5),
    "G459": ("NR", (2, 5), 0.00, 0.75, 0.02, 2),
    "I619": ("NS", (8, 24), 0.13, 0.90, 0.55, 3),
    "S065": ("NS", (6, 16), 0.06, 0.85, 0.35, 2),
}
INFECTION = {"J189", "J159", "A419", "N390"}
CARDIAC = {"I219", "I200", "I509", "I489"}
STROKE = {"I639", "G459"}

SURNAMES = "김김김김이이이박박최정강조윤장임한오서신권황안송전홍유고문양손배백허남심노하곽성차주우구민류나진지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용"
GIVEN = "민서준도윤하지현수예은우진영경숙희정미순자철호성재동혁태상연주아채원나래보람슬기다인가윤시우선영태규종석광명"
SIDO = [("서울", 34), ("경기", 30), ("인천", 9), ("강원", 4), ("충남", 5), ("충북", 3),
        ("대전", 3), ("전북", 3), ("경북", 3), ("부산", 2), ("대구", 2), ("제주", 2)]


def wchoice(pairs):
    tot = sum(w for _, w in pairs)
    x = R.uniform(0, tot)
    for v, w in pairs:
        x -= w
        if x <= 0:
            return v
    return pairs[-1][0]


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def q(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int,)):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dt.datetime):
        return "'" + v.strftime("%Y-%m-%d %H:%M:%S") + "'"
    if isinstance(v, dt.date):
        return "'" + v.strftime("%Y-%m-%d") + "'"
    return "'" + str(v).replace("'", "''") + "'"


# ---------------------------------------------------------------- patients
patients = []  # dict
N_PT = 480
for i in range(N_PT):
    ptno = "%08d" % (10000000 + 137 * i + R.randint(0, 99))
    sex = "M" if R.random() < 0.52 else "F"
    age = int(clamp(R.gauss(64, 15), 19, 96))
    bdate = dt.date(2025 - age, 1, 1) + dt.timedelta(days=R.randint(0, 364))
    name = R.choice(SURNAMES) + R.choice(GIVEN) + R.choice(GIVEN)
    sido = wchoice(SIDO)
    old = age >= 60
    chronic = set()
    if R.random() < (0.55 if old else 0.22):
        chronic.add("I10")
    if R.random() < (0.30 if old else 0.12):
        chronic.add("E112" if R.random() < 0.2 else "E119")
    if R.random() < (0.30 if old else 0.15):
        chronic.add("E785")
    if R.random() < (0.12 if old else 0.02):
        chronic.add("I489")
    if R.random() < (0.10 if old else 0.03):
        chronic.add("N185" if R.random() < 0.3 else "N183")
    patients.append(dict(ptno=ptno, sex=sex, bdate=bdate, name=name, sido=sido,
                         age=age, chronic=chronic))

# ---------------------------------------------------------------- admissions
dx_pairs = [(k, v[5]) for k, v in MAIN_DX.items()]
adm = []
for p in patients:
    n = 1
    while n < 5 and R.random() < 0.38:
        n += 1
    # preferred main diagnosis family per patient (repeat admissions often for the same problem)
    fav = wchoice(dx_pairs)
    if p["chronic"] & {"I489"} and R.random() < 0.5:
        fav = "I489"
    starts = sorted(DATA_START + dt.timedelta(minutes=R.randint(0, 730 * 24 * 60)) for _ in range(n))
    last_out = None
    for s in starts:
        if last_out is not None and s <= last_out + dt.timedelta(hours=12):
            # readmission shortly after discharge
            s = last_out + dt.timedelta(days=R.randint(2, 40), hours=R.randint(0, 10))
        if s > DATA_END - dt.timedelta(hours=3):
            break
        main = fav if R.random() < 0.6 else wchoice(dx_pairs)
        dept, (lo, hi), mort, er, icu, _ = MAIN_DX[main]
        path = "2" if R.random() < er else ("3" if R.random() < 0.08 else "1")
        if path == "2":
            s = s.replace(minute=R.randint(0, 59))
        else:
            s = s.replace(hour=R.randint(9, 16), minute=R.randint(0, 59))
        los = R.randint(lo, hi) if R.random() < 0.85 else R.randint(hi, hi + 10)
        age_at = (s.date() - p["bdate"]).days // 365
        if age_at >= 75:
            los += R.randint(0, 4)
        e = (s.replace(hour=0, minute=0) + dt.timedelta(days=los, hours=R.randint(9, 17),
                                                        minutes=R.randint(0, 59)))
        ward = "MICU" if (R.random() < icu and dept in MEDICAL) else None
        if ward is None and R.random() < icu and dept not in MEDICAL:
            ward = "SICU"
        if ward is None:
            ward = GEN_WARD[dept]
        m = mort * (1.6 if age_at >= 80 else 1.0) * (1.8 if ward in ("MICU", "SICU") else 1.0)
        rr = R.random()
        if rr < m:
            rslt = "4"
        elif rr < m + 0.04:
            rslt = "2"
        elif rr < m + 0.07:
            rslt = "3"
        else:
            rslt = "1"
        if e > DATA_END:
            e, rslt = None, None
        if p["sex"] == "M":
            ht, wt = R.gauss(170, 6), R.gauss(69, 11)
        else:
            ht, wt = R.gauss(157, 6), R.gauss(57, 9)
        if age_at >= 75:
            ht -= 3
            wt -= 4
        sbp = R.gauss(132, 20) + (8 if "I10" in p["chronic"] else 0)
        if main in ("A419", "K922") and R.random() < 0.4:
            sbp -= 30
        dbp = sbp * 0.58 + R.gauss(2, 7)
        rec = dict(p=p, start=s, end=e, dept=dept, ward=ward, path=path, rslt=rslt, main=main,
                   ht=round(clamp(ht, 135, 195), 1), wt=round(clamp(wt, 33, 130), 1),
                   sbp=int(clamp(sbp, 70, 220)), dbp=int(clamp(dbp, 40, 130)))
        if R.random() < 0.05:
            rec["ht"] = None
        if R.random() < 0.04:
            rec["wt"] = None
        adm.append(rec)
        last_out = e if e is not None else DATA_END
        if rslt == "4" or e is None:
            break

adm.sort(key=lambda a: a["start"])
yr_seq = {}
for a in adm:
    y = a["start"].year
    yr_seq[y] = yr_seq.get(y, 0) + 1
    a["no"] = "A%d%05d" % (y, yr_seq[y])

# ---------------------------------------------------------------- diagnoses
jindan = []
for a in adm:
    d0 = a["start"].date()
    jindan.append((a["no"], a["p"]["ptno"], a["main"], d0, "Y"))
    seen = {a["main"]}
    for c in sorted(a["p"]["chronic"]):
        if c not in seen and R.random() < 0.85:
            jindan.append((a["no"], a["p"]["ptno"], c, d0, "N"))
            seen.add(c)
    # in-hospital complications
    stay_end = (a["end"] or DATA_END).date()
    span = max(0, (stay_end - d0).days)
    if a["main"] in ("A419", "J159", "S720", "I509") and R.random() < 0.25 and "N179" not in seen:
        jindan.append((a["no"], a["p"]["ptno"], "N179", d0 + dt.timedelta(days=R.randint(0, span)), "N"))
        seen.add("N179")
    if a["main"] in ("J189", "J159", "N390") and R.random() < 0.12 and "A419" not in seen:
        jindan.append((a["no"], a["p"]["ptno"], "A419", d0 + dt.timedelta(days=R.randint(0, span)), "N"))
        seen.add("A419")
    if a["main"] in ("I639", "S720", "I619") and R.random() < 0.15 and "J189" not in seen:
        jindan.append((a["no"], a["p"]["ptno"], "J189", d0 + dt.timedelta(days=R.randint(0, span)), "N"))
        seen.add("J189")
    if R.random() < 0.05 and "E871" not in seen:
        jindan.append((a["no"], a["p"]["ptno"], "E871", d0 + dt.timedelta(days=R.randint(0, span)), "N"))
        seen.add("E871")
    a["dx"] = seen

# ---------------------------------------------------------------- prescriptions
cheobang = []


def order(a, drug, day, once, freq, days):
    t = a["start"].replace(hour=0, minute=0) + dt.timedelta(days=day, hours=R.randint(8, 18),
                                                            minutes=R.randint(0, 59))
    if day == 0 and t < a["start"]:
        t = a["start"] + dt.timedelta(minutes=R.randint(10, 90))
    lim = a["end"] or DATA_END
    if t > lim:
        return
    cheobang.append([a["no"], a["p"]["ptno"], t, drug, once, freq, days, DRUG_RTE[drug]])


for a in adm:
    lim = a["end"] or DATA_END
    los = max(1, (lim.date() - a["start"].date()).days)
    dx = a["dx"]
    main = a["main"]

    def course(drug, once, freq, start=0, length=None, chunk=3):
        length = los - start if length is None else min(length, los - start)
        d = start
        while d < start + max(1, length):
            n = min(chunk, start + max(1, length) - d)
            order(a, drug, d, once, freq, max(1, n))
            d += chunk

    if R.random() < 0.55:
        course("APAP500", 1, 3, chunk=R.choice([3, 4]))
    if R.random() < 0.45 or main in ("K922", "K859"):
        course("PPZI40", 1, R.choice([1, 2]), length=R.randint(2, 6))
    if R.random() < 0.5:
        course("NS1L", 1, R.choice([1, 2]), length=R.randint(1, 3))
    if "I10" in dx and R.random() < 0.8:
        course("AML5" if R.random() < 0.55 else "LOS50", 1, 1, chunk=7)
    if dx & {"E119", "E112"}:
        if "N185" not in dx and R.random() < 0.7:
            course("MTF500", 1, 2, chunk=R.choice([5, 7]))
        if R.random() < 0.35 or main in ("E119", "E112"):
            course("INSGL", R.choice([10, 12, 14, 16, 20]), 1, chunk=5)
    if "E785" in dx or dx & CARDIAC - {"I489"} or dx & STROKE:
        course("ATV20" if R.random() < 0.6 else "RSV10", 1, 1, chunk=7)
    if "I489" in dx:
        rr = R.random()
        if rr < 0.35:
            course("WFR2", R.choice([1, 1.5, 2, 2.5]), 1, chunk=4)
        elif rr < 0.85:
            course("APX5", 1, 2, chunk=7)
    if dx & {"I219", "I200", "I639", "G459"}:
        course("ASA100", 1, 1, chunk=7)
        if main != "G459" or R.random() < 0.5:
            course("CLPD75", 1, 1, chunk=7)
    if main in ("I219", "I200"):
        course("HEP5K", 1, 2, length=R.randint(2, 4))
    if "I509" in dx or (dx & {"N185"} and R.random() < 0.4):
        if R.random() < 0.6:
            course("FURI20", 1, 2, length=R.randint(2, 4))
        course("FUR40", 1, 1, start=min(2, los - 1), chunk=5)
    if dx & INFECTION or main in ("K358", "K859"):
        if main == "N390" or (main == "K358" and R.random() < 0.7):
            course("CTRX1", 1, 1, length=R.randint(3, 7), chunk=3)
        elif main == "A419" or "A419" in dx:
            course("PTZ45", 1, 4, length=R.randint(4, 10), chunk=3)
            if R.random() < 0.45:
                course("VAN1", 1, 2, length=R.randint(4, 10), chunk=3)
            if R.random() < 0.3:
                course("MEM1", 1, 3, start=2, length=R.randint(3, 8), chunk=3)
        else:
            course("CTRX1" if R.random() < 0.6 else "PTZ45", 1, 1 if R.random() < 0.6 else 4,
                   length=R.randint(4, 8), chunk=3)
            if R.random() < 0.35:
                course("LVX500", 1, 1, start=min(3, los - 1), length=5, chunk=5)
    if main == "J441":
        course("SAL100", 2, 4, chunk=5)
        course("PDS5", R.choice([4, 6, 8]), 1, length=5, chunk=5)
    if main in ("S720", "M171", "M4806", "K802", "K358", "C169"):
        course("TRM50", 1, R.choice([2, 3]), length=R.randint(3, 7), chunk=3)
        if main in ("S720", "M171"):
            course("HEP5K", 1, 2, length=R.randint(3, 6))
    if main in ("K922", "C169") and R.random() < 0.5:
        course("ESO20", 1, 1, start=min(3, los - 1), chunk=7)

cheobang.sort(key=lambda r: r[2])

# ---------------------------------------------------------------- lab results
rslt = []


def lab_value(code, a, day):
    dx, main = a["dx"], a["main"]
    sick = 1.0 if day == 0 else max(0.3, 1 - 0.15 * day)
    if code == "L1001":
        v = R.gauss(7.2, 2.0)
        if dx & INFECTION:
            v += sick * R.uniform(3, 12)
        return round(clamp(v, 1.2, 38), 1)
    if code == "L1002":
        v = R.gauss(13.6 if a["p"]["sex"] == "M" else 12.3, 1.5)
        if main in ("K922", "C169"):
            v -= R.uniform(2, 5)
        if dx & {"N183", "N185"}:
            v -= R.uniform(1, 3)
        return round(clamp(v, 4.5, 19), 1)
    if code == "L1003":
        v = R.gauss(245, 65) - (80 if main == "A419" else 0)
        return int(clamp(v, 18, 650))
    if code == "L2001":
        v = R.gauss(105, 18)
        if dx & {"E119", "E112"}:
            v += R.uniform(20, 140)
        return int(clamp(v, 55, 520))
    if code == "L2002":
        v = R.gauss(7.6, 1.2) if dx & {"E119", "E112"} else R.gauss(5.6, 0.4)
        return round(clamp(v, 4.3, 13.5), 1)
    if code == "L2003":
        v = R.gauss(0.95 if a["p"]["sex"] == "M" else 0.75, 0.18)
        if "N183" in dx:
            v = R.uniform(1.4, 2.4)
        if "N185" in dx:
            v = R.uniform(4.5, 9.5)
        if "N179" in dx:
            v += sick * R.uniform(0.8, 2.8)
        if "E112" in dx:
            v += R.uniform(0.2, 0.8)
        return round(clamp(v, 0.3, 12), 2)
    if code == "L2004":
        v = R.gauss(16, 4)
        if dx & {"N183", "N185", "N179"}:
            v += R.uniform(15, 60)
        return round(clamp(v, 4, 140), 1)
    if code == "L2005":
        v = R.gauss(139.5, 2.6)
        if "E871" in dx:
            v = R.uniform(118, 131) + (day * 1.2)
        return int(round(clamp(v, 112, 152)))
    if code == "L2006":
        v = R.gauss(4.2, 0.4)
        if dx & {"N185", "N179"}:
            v += R.uniform(0.3, 1.6)
        return round(clamp(v, 2.6, 7.2), 1)
    if code in ("L2007", "L2008"):
        v = R.lognormvariate(3.1 if code == "L2007" else 3.0, 0.4)
        if main in ("K859", "K802"):
            v *= R.uniform(1.5, 5)
        return int(clamp(v, 6, 900))
    if code == "L2009":
        return int(clamp(R.gauss(185, 38) + (25 if "E785" in dx else 0), 90, 340))
    if code == "L2010":
        return int(clamp(R.gauss(108, 32) + (25 if "E785" in dx else 0), 30, 260))
    if code == "L3001":
        v = R.lognormvariate(-1.3, 0.9)
        if dx & INFECTION or main in ("K358", "K859"):
            v = sick * R.uniform(3, 25)
        return round(clamp(v, 0.02, 38), 2)
    if code == "L3002":
        v = R.lognormvariate(-4.6, 0.6)
        if main == "I219":
            v = sick * R.uniform(0.5, 45)
        elif main == "I200":
            v = R.uniform(0.005, 0.06)
        return round(clamp(v, 0.003, 80), 3)
    if code == "L3003":
        v = R.lognormvariate(5.3, 0.8)
        if "I509" in dx:
            v = R.uniform(900, 12000) * sick + 300
        return int(clamp(v, 20, 35000))
    if code == "L3004":
        v = R.lognormvariate(-2.5, 0.6)
        if main == "A419":
            v = sick * R.uniform(1.5, 40)
        elif dx & INFECTION:
            v = R.uniform(0.1, 3.0)
        return round(clamp(v, 0.02, 100), 2)
    raise KeyError(code)


CBC = ["L1001", "L1002", "L1003"]
CHEM = ["L2001", "L2003", "L2004", "L2005", "L2006"]
for a in adm:
    lim = a["end"] or DATA_END
    los = max(0, (lim.date() - a["start"].date()).days)
    dx, main = a["dx"], a["main"]

    def draw(codes, day):
        if day == 0:
            t = a["start"] + dt.timedelta(minutes=R.randint(15, 120))
        else:
            t = a["start"].replace(hour=5, minute=0) + dt.timedelta(days=day, minutes=R.randint(0, 150))
        if t > lim:
            return
        for c in codes:
            v = lab_value(c, a, day)
            lo, hi = EXAM_REF[c]
            flag = "H" if v > hi else ("L" if v < lo else "N")
            rslt.append([a["p"]["ptno"], a["no"], c, t, v, flag])

    first = CBC + CHEM + ["L3001"]
    if R.random() < 0.4 or main in ("K859", "K802", "K922", "C169", "A419"):
        first += ["L2007", "L2008"]
    if dx & CARDIAC or R.random() < 0.1:
        first.append("L3002")
    if "I509" in dx or (main in ("I219", "J441") and R.random() < 0.5):
        first.append("L3003")
    if dx & INFECTION and R.random() < 0.6:
        first.append("L3004")
    if dx & {"E119", "E112"} and R.random() < 0.8 or R.random() < 0.06:
        first.append("L2002")
    if "E785" in dx or dx & CARDIAC or dx & STROKE:
        if R.random() < 0.7:
            first += ["L2009", "L2010"]
    draw(first, 0)
    d = R.randint(2, 3)
    while d <= los - 1:
        codes = ["L1001", "L1002", "L2003", "L2005", "L2006"]
        if dx & INFECTION or main in ("K358", "K859"):
            codes.append("L3001")
        if main == "I219" and d <= 3:
            codes.append("L3002")
        if R.random() < 0.25:
            draw(codes, d)
        d += R.randint(2, 5)

rslt.sort(key=lambda r: r[3])

# ---------------------------------------------------------------- write SQL
L = []
w = L.append
w("-- krhosp: 가상의 한국 종합병원 입원 데이터마트 (평가용, 결정적 생성: gen_schema.py, seed=%d)" % SEED)
w("-- 외래키는 일부러 선언하지 않음. 모든 데이터는 가상이며 실존 인물과 무관함.")
w("SET client_min_messages = warning;")
w("")
DDL = """
CREATE TABLE public.hwanja (
    ptnt_no       varchar(8)  NOT NULL,
    ptnt_nm       varchar(20) NOT NULL,
    sex_cd        char(1)     NOT NULL,
    brth_dt       date        NOT NULL,
    addr_sido_nm  varchar(10),
    frst_vst_dt   date,
    CONSTRAINT hwanja_pk PRIMARY KEY (ptnt_no)
);
CREATE TABLE public.cm_dept (
    dept_cd      varchar(6)  NOT NULL,
    dept_nm      varchar(30) NOT NULL,
    dept_eng_nm  varchar(40),
    dept_gb_cd   char(1)     NOT NULL,
    icu_yn       char(1)     NOT NULL DEFAULT 'N',
    use_yn       char(1)     NOT NULL DEFAULT 'Y',
    CONSTRAINT cm_dept_pk PRIMARY KEY (dept_cd)
);
CREATE TABLE public.cm_kcd (
    sick_cd      varchar(6)   NOT NULL,
    sick_kor_nm  varchar(100) NOT NULL,
    sick_eng_nm  varchar(120),
    CONSTRAINT cm_kcd_pk PRIMARY KEY (sick_cd)
);
CREATE TABLE public.cm_drug (
    drug_cd      varchar(10)  NOT NULL,
    drug_nm      varchar(60)  NOT NULL,
    ingr_eng_nm  varchar(60),
    atc_cd       varchar(7),
    drug_unit    varchar(6),
    CONSTRAINT cm_drug_pk PRIMARY KEY (drug_cd)
);
CREATE TABLE public.cm_geomsa (
    exam_cd      varchar(6)   NOT NULL,
    exam_nm      varchar(40)  NOT NULL,
    exam_eng_nm  varchar(60),
    loinc_cd     varchar(10),
    rslt_unit    varchar(12),
    ref_low      numeric(10,3),
    ref_high     numeric(10,3),
    CONSTRAINT cm_geomsa_pk PRIMARY KEY (exam_cd)
);
CREATE TABLE public.ipwon (
    ipwon_no       varchar(12) NOT NULL,
    ptnt_no        varchar(8)  NOT NULL,
    ipwon_dt       timestamp   NOT NULL,
    toewon_dt      timestamp,
    dept_cd        varchar(6)  NOT NULL,
    ward_cd        varchar(6)  NOT NULL,
    ipwon_path_cd  char(1)     NOT NULL,
    toewon_rslt_cd char(1),
    ht_val         numeric(5,1),
    wt_val         numeric(5,1),
    sbp_val        smallint,
    dbp_val        smallint,
    CONSTRAINT ipwon_pk PRIMARY KEY (ipwon_no)
);
CREATE TABLE public.jindan (
    jindan_seq    integer     NOT NULL,
    ipwon_no      varchar(12) NOT NULL,
    ptnt_no       varchar(8)  NOT NULL,
    sick_cd       varchar(6)  NOT NULL,
    jindan_dt     date        NOT NULL,
    main_sick_yn  char(1)     NOT NULL,
    CONSTRAINT jindan_pk PRIMARY KEY (jindan_seq)
);
CREATE TABLE public.cheobang (
    ord_seq     integer      NOT NULL,
    ipwon_no    varchar(12)  NOT NULL,
    ptnt_no     varchar(8)   NOT NULL,
    ord_dt      timestamp    NOT NULL,
    drug_cd     varchar(10)  NOT NULL,
    once_qty    numeric(6,2) NOT NULL,
    day_freq    smallint     NOT NULL,
    ord_days    smallint     NOT NULL,
    rte_cd      varchar(3)   NOT NULL,
    CONSTRAINT cheobang_pk PRIMARY KEY (ord_seq)
);
CREATE TABLE public.geomsa_rslt (
    rslt_seq    integer      NOT NULL,
    ptnt_no     varchar(8)   NOT NULL,
    ipwon_no    varchar(12),
    exam_cd     varchar(6)   NOT NULL,
    spcm_dt     timestamp    NOT NULL,
    rslt_val    numeric(10,3),
    abnml_flag  char(1),
    CONSTRAINT geomsa_rslt_pk PRIMARY KEY (rslt_seq)
);
"""
w(DDL.strip())
w("")
COMMENTS = [
    ("TABLE", "hwanja", "환자 기본정보"),
    ("COLUMN", "hwanja.ptnt_no", "환자번호(등록번호)"),
    ("COLUMN", "hwanja.ptnt_nm", "환자명"),
    ("COLUMN", "hwanja.sex_cd", "성별코드(M:남, F:여)"),
    ("COLUMN", "hwanja.brth_dt", "생년월일"),
    ("COLUMN", "hwanja.addr_sido_nm", "주소 시도명"),
    ("COLUMN", "hwanja.frst_vst_dt", "최초 내원일자"),
    ("TABLE", "cm_dept", "부서 코드(진료과 및 병동)"),
    ("COLUMN", "cm_dept.dept_cd", "부서코드"),
    ("COLUMN", "cm_dept.dept_nm", "부서명(한글)"),
    ("COLUMN", "cm_dept.dept_eng_nm", "부서 영문명"),
    ("COLUMN", "cm_dept.dept_gb_cd", "부서구분(C:진료과, W:병동)"),
    ("COLUMN", "cm_dept.icu_yn", "중환자실 여부(Y/N)"),
    ("COLUMN", "cm_dept.use_yn", "사용여부"),
    ("TABLE", "cm_kcd", "상병코드 사전(KCD-8)"),
    ("COLUMN", "cm_kcd.sick_cd", "상병코드(점 없이 저장)"),
    ("COLUMN", "cm_kcd.sick_kor_nm", "상병 한글명"),
    ("COLUMN", "cm_kcd.sick_eng_nm", "상병 영문명"),
    ("TABLE", "cm_drug", "약품 코드"),
    ("COLUMN", "cm_drug.drug_cd", "약품코드(원내코드)"),
    ("COLUMN", "cm_drug.drug_nm", "약품명"),
    ("COLUMN", "cm_drug.ingr_eng_nm", "성분명(영문)"),
    ("COLUMN", "cm_drug.atc_cd", "ATC 코드"),
    ("COLUMN", "cm_drug.drug_unit", "투약 단위"),
    ("TABLE", "cm_geomsa", "검사 코드"),
    ("COLUMN", "cm_geomsa.exam_cd", "검사코드"),
    ("COLUMN", "cm_geomsa.exam_nm", "검사명"),
    ("COLUMN", "cm_geomsa.exam_eng_nm", "검사 영문명"),
    ("COLUMN", "cm_geomsa.loinc_cd", "LOINC 코드"),
    ("COLUMN", "cm_geomsa.rslt_unit", "결과 단위"),
    ("COLUMN", "cm_geomsa.ref_low", "참고치 하한"),
    ("COLUMN", "cm_geomsa.ref_high", "참고치 상한"),
    ("TABLE", "ipwon", "입원 내역"),
    ("COLUMN", "ipwon.ipwon_no", "입원번호"),
    ("COLUMN", "ipwon.ptnt_no", "환자번호"),
    ("COLUMN", "ipwon.ipwon_dt", "입원일시"),
    ("COLUMN", "ipwon.toewon_dt", "퇴원일시(재원중이면 NULL)"),
    ("COLUMN", "ipwon.dept_cd", "입원 진료과 코드"),
    ("COLUMN", "ipwon.ward_cd", "입원 병동 코드"),
    ("COLUMN", "ipwon.ipwon_path_cd", "입원경로(1:외래, 2:응급실, 3:타병원 전원)"),
    ("COLUMN", "ipwon.toewon_rslt_cd", "퇴원결과(1:호전, 2:전원, 3:자의퇴원, 4:사망)"),
    ("COLUMN", "ipwon.ht_val", "입원 시 신장(cm)"),
    ("COLUMN", "ipwon.wt_val", "입원 시 체중(kg)"),
    ("COLUMN", "ipwon.sbp_val", "입원 시 수축기 혈압(mmHg)"),
    ("COLUMN", "ipwon.dbp_val", "입원 시 이완기 혈압(mmHg)"),
    ("TABLE", "jindan", "진단(상병) 내역"),
    ("COLUMN", "jindan.jindan_seq", "진단 일련번호"),
    ("COLUMN", "jindan.ipwon_no", "입원번호"),
    ("COLUMN", "jindan.ptnt_no", "환자번호"),
    ("COLUMN", "jindan.sick_cd", "상병코드"),
    ("COLUMN", "jindan.jindan_dt", "진단일자"),
    ("COLUMN", "jindan.main_sick_yn", "주상병 여부(Y:주상병, N:부상병)"),
    ("TABLE", "cheobang", "약품 처방 내역"),
    ("COLUMN", "cheobang.ord_seq", "처방 일련번호"),
    ("COLUMN", "cheobang.ipwon_no", "입원번호"),
    ("COLUMN", "cheobang.ptnt_no", "환자번호"),
    ("COLUMN", "cheobang.ord_dt", "처방일시"),
    ("COLUMN", "cheobang.drug_cd", "약품코드"),
    ("COLUMN", "cheobang.once_qty", "1회 투여량"),
    ("COLUMN", "cheobang.day_freq", "1일 투여횟수"),
    ("COLUMN", "cheobang.ord_days", "투여일수"),
    ("COLUMN", "cheobang.rte_cd", "투여경로(PO:경구, IV:정맥, SC:피하, INH:흡입)"),
    ("TABLE", "geomsa_rslt", "진단검사 결과"),
    ("COLUMN", "geomsa_rslt.rslt_seq", "결과 일련번호"),
    ("COLUMN", "geomsa_rslt.ptnt_no", "환자번호"),
    ("COLUMN", "geomsa_rslt.ipwon_no", "입원번호"),
    ("COLUMN", "geomsa_rslt.exam_cd", "검사코드"),
    ("COLUMN", "geomsa_rslt.spcm_dt", "검체 채취일시"),
    ("COLUMN", "geomsa_rslt.rslt_val", "결과값(수치)"),
    ("COLUMN", "geomsa_rslt.abnml_flag", "이상 여부(H:높음, L:낮음, N:정상)"),
]
for kind, obj, txt in COMMENTS:
    w("COMMENT ON %s public.%s IS %s;" % (kind, obj, q(txt)))
w("")


def inserts(table, cols, rows, batch=400):
    for i in range(0, len(rows), batch):
        w("INSERT INTO public.%s (%s) VALUES" % (table, ", ".join(cols)))
        chunk = rows[i:i + batch]
        w(",\n".join("(" + ", ".join(q(v) for v in r) + ")" for r in chunk) + ";")


inserts("cm_dept", ["dept_cd", "dept_nm", "dept_eng_nm", "dept_gb_cd", "icu_yn", "use_yn"],
        [list(d) + ["Y"] for d in DEPTS])
inserts("cm_kcd", ["sick_cd", "sick_kor_nm", "sick_eng_nm"], [list(k) for k in KCD])
inserts("cm_drug", ["drug_cd", "drug_nm", "ingr_eng_nm", "atc_cd", "drug_unit"],
        [list(d[:5]) for d in DRUGS])
inserts("cm_geomsa", ["exam_cd", "exam_nm", "exam_eng_nm", "loinc_cd", "rslt_unit", "ref_low", "ref_high"],
        [list(e) for e in EXAMS])

first_adm = {}
for a in adm:
    first_adm.setdefault(a["p"]["ptno"], a["start"].date())
pt_rows = []
for p in sorted(patients, key=lambda p: p["ptno"]):
    fv = first_adm.get(p["ptno"])
    if fv is None:
        fv = (DATA_START + dt.timedelta(days=R.randint(0, 700))).date()
    fv = fv - dt.timedelta(days=R.choice([0, 0, 0, R.randint(1, 2000)]))
    pt_rows.append([p["ptno"], p["name"], p["sex"], p["bdate"], p["sido"], fv])
inserts("hwanja", ["ptnt_no", "ptnt_nm", "sex_cd", "brth_dt", "addr_sido_nm", "frst_vst_dt"], pt_rows)
inserts("ipwon", ["ipwon_no", "ptnt_no", "ipwon_dt", "toewon_dt", "dept_cd", "ward_cd", "ipwon_path_cd",
                  "toewon_rslt_cd", "ht_val", "wt_val", "sbp_val", "dbp_val"],
        [[a["no"], a["p"]["ptno"], a["start"], a["end"], a["dept"], a["ward"], a["path"], a["rslt"],
          a["ht"], a["wt"], a["sbp"], a["dbp"]] for a in adm])
inserts("jindan", ["jindan_seq", "ipwon_no", "ptnt_no", "sick_cd", "jindan_dt", "main_sick_yn"],
        [[i + 1] + list(r) for i, r in enumerate(sorted(jindan, key=lambda r: (r[3], r[0], r[4] != "Y")))])
inserts("cheobang", ["ord_seq", "ipwon_no", "ptnt_no", "ord_dt", "drug_cd", "once_qty", "day_freq",
                     "ord_days", "rte_cd"],
        [[i + 1] + r for i, r in enumerate(cheobang)])
inserts("geomsa_rslt", ["rslt_seq", "ptnt_no", "ipwon_no", "exam_cd", "spcm_dt", "rslt_val", "abnml_flag"],
        [[i + 1] + r for i, r in enumerate(rslt)])
w("")
w("ANALYZE;")

with open(OUT, "w", encoding="utf-8") as f:
    f.write("\n".join(L) + "\n")
print("wrote %s: patients=%d admissions=%d diagnoses=%d orders=%d labs=%d"
      % (OUT, len(patients), len(adm), len(jindan), len(cheobang), len(rslt)))
