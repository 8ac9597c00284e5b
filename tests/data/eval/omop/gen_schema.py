#!/usr/bin/env python3
"""Generate schema.sql for the `omop` evaluation set.

Deterministic (random.Random with a fixed seed, standard library only): running it
again writes a byte-identical schema.sql. The data is synthetic; only the table and
column layout follows the OMOP CDM v5.4 and the concept rows mimic the OHDSI
standard vocabularies (Gender, Race, Visit, SNOMED, RxNorm, LOINC, UCUM, ...).

    python3 gen_schema.py > schema.sql
"""
import datetime as dt
import random
import sys

R = random.Random(20250531)
D0 = dt.date(2024, 1, 1)
DEND = dt.date(2025, 12, 31)

# ---------------------------------------------------------------- concepts
# (concept_id, concept_name, domain_id, vocabulary_id, concept_class_id, standard, code)
CONCEPTS = [
    (0, 'No matching concept', 'Metadata', 'None', 'Undefined', None, 'No matching concept'),
    (8507, 'MALE', 'Gender', 'Gender', 'Gender', 'S', 'M'),
    (8532, 'FEMALE', 'Gender', 'Gender', 'Gender', 'S', 'F'),
    (8515, 'Asian', 'Race', 'Race', 'Race', 'S', '2'),
    (8527, 'White', 'Race', 'Race', 'Race', 'S', '5'),
    (8516, 'Black or African American', 'Race', 'Race', 'Race', 'S', '3'),
    (38003563, 'Hispanic or Latino', 'Ethnicity', 'Ethnicity', 'Ethnicity', 'S', 'Hispanic'),
    (38003564, 'Not Hispanic or Latino', 'Ethnicity', 'Ethnicity', 'Ethnicity', 'S', 'Not Hispanic'),
    (9201, 'Inpatient Visit', 'Visit', 'Visit', 'Visit', 'S', 'IP'),
    (9202, 'Outpatient Visit', 'Visit', 'Visit', 'Visit', 'S', 'OP'),
    (9203, 'Emergency Room Visit', 'Visit', 'Visit', 'Visit', 'S', 'ER'),
    (8717, 'Inpatient Hospital', 'Visit', 'CMS Place of Service', 'Visit', 'S', '21'),
    (8756, 'Outpatient Hospital', 'Visit', 'CMS Place of Service', 'Visit', 'S', '22'),
    (8870, 'Emergency Room - Hospital', 'Visit', 'CMS Place of Service', 'Visit', 'S', '23'),
    (8536, 'Home', 'Visit', 'CMS Place of Service', 'Visit', 'S', '12'),
    (32817, 'EHR', 'Type Concept', 'Type Concept', 'Type Concept', 'S', 'OMOP4976890'),
    (32818, 'EHR administration record', 'Type Concept', 'Type Concept', 'Type Concept', 'S', 'OMOP4976891'),
    (32838, 'EHR prescription', 'Type Concept', 'Type Concept', 'Type Concept', 'S', 'OMOP4976911'),
    (32856, 'Lab', 'Type Concept', 'Type Concept', 'Type Concept', 'S', 'OMOP4976929'),
    (32902, 'Primary diagnosis', 'Condition Status', 'Condition Status', 'Condition Status', 'S', 'OMOP4976975'),
    (32908, 'Secondary diagnosis', 'Condition Status', 'Condition Status', 'Condition Status', 'S', 'OMOP4976981'),
    (4132161, 'Oral', 'Route', 'SNOMED', 'Qualifier Value', 'S', '26643006'),
    (4171047, 'Intravenous', 'Route', 'SNOMED', 'Qualifier Value', 'S', '47625008'),
    (4142048, 'Subcutaneous', 'Route', 'SNOMED', 'Qualifier Value', 'S', '34206005'),
]
# conditions: key -> (concept_id, name, snomed code, ICD-10 source value)
COND = {
    't2dm': (201826, 'Type 2 diabetes mellitus', '44054006', 'E11.9'),
    'htn': (320128, 'Essential hypertension', '59621000', 'I10'),
    'hld': (432867, 'Hyperlipidemia', '55822004', 'E78.5'),
    'ckd': (46271022, 'Chronic kidney disease', '709044004', 'N18.9'),
    'af': (313217, 'Atrial fibrillation', '49436004', 'I48.9'),
    'hf': (316139, 'Heart failure', '84114007', 'I50.9'),
    'copd': (255573, 'Chronic obstructive lung disease', '13645005', 'J44.9'),
    'asthma': (317009, 'Asthma', '195967001', 'J45.9'),
    'dep': (440383, 'Depressive disorder', '35489007', 'F32.9'),
    'oa': (80180, 'Osteoarthritis', '396275006', 'M19.9'),
    'pna': (255848, 'Pneumonia', '233604007', 'J18.9'),
    'uti': (81902, 'Urinary tract infectious disease', '68566005', 'N39.0'),
    'mi': (4329847, 'Myocardial infarction', '22298006', 'I21.9'),
    'bronch': (260139, 'Acute bronchitis', '10509002', 'J20.9'),
    'stroke': (443454, 'Cerebral infarction', '432504007', 'I63.9'),
    'sepsis': (132797, 'Sepsis', '91302008', 'A41.9'),
}
for k, (cid, name, code, _) in COND.items():
    CONCEPTS.append((cid, name, 'Condition', 'SNOMED', 'Clinical Finding', 'S', code))
# drugs: key -> (concept_id, ingredient name, RxNorm code)
DRUG = {
    'metformin': (1503297, 'metformin', '6809'),
    'glargine': (1502905, 'insulin glargine', '274783'),
    'lisinopril': (1308216, 'lisinopril', '29046'),
    'amlodipine': (1332418, 'amlodipine', '17767'),
    'metoprolol': (1307046, 'metoprolol', '6918'),
    'atorvastatin': (1545958, 'atorvastatin', '83367'),
    'aspirin': (1112807, 'aspirin', '1191'),
    'warfarin': (1310149, 'warfarin', '11289'),
    'apixaban': (43013024, 'apixaban', '1364430'),
    'furosemide': (956874, 'furosemide', '4603'),
    'omeprazole': (923645, 'omeprazole', '7646'),
    'acetaminophen': (1125315, 'acetaminophen', '161'),
    'amoxicillin': (1713332, 'amoxicillin', '723'),
    'ciprofloxacin': (1797513, 'ciprofloxacin', '2551'),
    'ceftriaxone': (1777806, 'ceftriaxone', '2193'),
    'heparin': (1367571, 'heparin', '5224'),
    'sertraline': (739138, 'sertraline', '36437'),
    'prednisolone': (1550557, 'prednisolone', '8638'),
}
for k, (cid, name, code) in DRUG.items():
    CONCEPTS.append((cid, name, 'Drug', 'RxNorm', 'Ingredient', 'S', code))
# units: key -> (concept_id, name, UCUM code)
UNIT = {
    'pct': (8554, 'percent', '%'),
    'mgdl': (8840, 'milligram per deciliter', 'mg/dL'),
    'mmhg': (8876, 'millimeter mercury column', 'mm[Hg]'),
    'permin': (8541, 'per minute', '/min'),
    'kg': (9529, 'kilogram', 'kg'),
    'kgm2': (9531, 'kilogram per square meter', 'kg/m2'),
    'gdl': (8713, 'gram per deciliter', 'g/dL'),
    'mmoll': (8753, 'millimole per liter', 'mmol/L'),
}
for k, (cid, name, code) in UNIT.items():
    CONCEPTS.append((cid, name, 'Unit', 'UCUM', 'Unit', 'S', code))
# measurements: key -> (concept_id, LOINC name, LOINC code, unit key, range_low, range_high, source value)
MEAS = {
    'hba1c': (3004410, 'Hemoglobin A1c/Hemoglobin.total in Blood', '4548-4', 'pct', 4.0, 5.6, 'HBA1C'),
    'creat': (3016723, 'Creatinine [Mass/volume] in Serum or Plasma', '2160-0', 'mgdl', 0.6, 1.2, 'CREAT'),
    'sbp': (3004249, 'Systolic blood pressure', '8480-6', 'mmhg', None, None, 'SBP'),
    'dbp': (3012888, 'Diastolic blood pressure', '8462-4', 'mmhg', None, None, 'DBP'),
    'hr': (3027018, 'Heart rate', '8867-4', 'permin', None, None, 'HR'),
    'wt': (3025315, 'Body weight', '29463-7', 'kg', None, None, 'WT'),
    'bmi': (3038553, 'Body mass index (BMI) [Ratio]', '39156-5', 'kgm2', None, None, 'BMI'),
    'hgb': (3000963, 'Hemoglobin [Mass/volume] in Blood', '718-7', 'gdl', 12.0, 16.0, 'HGB'),
    'ldl': (3028437, 'Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation', '13457-7', 'mgdl', 0.0, 130.0, 'LDL'),
    'tchol': (3027114, 'Cholesterol [Mass/volume] in Serum or Plasma', '2093-3', 'mgdl', 0.0, 200.0, 'TCHOL'),
    'glu': (3004501, 'Glucose [Mass/volume] in Serum or Plasma', '2345-7', 'mgdl', 70.0, 99.0, 'GLU'),
    'k': (3023103, 'Potassium [Moles/volume] in Serum or Plasma', '2823-3', 'mmoll', 3.5, 5.1, 'K'),
    'na': (3019550, 'Sodium [Moles/volume] in Serum or Plasma', '2951-2', 'mmoll', 136.0, 145.0, 'NA'),
}
for k, (cid, name, code, *_rest) in MEAS.items():
    CONCEPTS.append((cid, name, 'Measurement', 'LOINC', 'Lab Test' if k not in ('sbp', 'dbp', 'hr', 'wt', 'bmi') else 'Clinical Observation', 'S', code))

# ---------------------------------------------------------------- care sites
CARE_SITES = [
    # id, name, place_of_service, source value
    (1, 'Internal Medicine Clinic', 8756, 'IM-OPD'),
    (2, 'Cardiology Clinic', 8756, 'CV-OPD'),
    (3, 'Endocrinology Clinic', 8756, 'EN-OPD'),
    (4, 'Pulmonology Clinic', 8756, 'PU-OPD'),
    (5, 'Nephrology Clinic', 8756, 'NE-OPD'),
    (6, 'Psychiatry Clinic', 8756, 'PS-OPD'),
    (7, 'Orthopedics Clinic', 8756, 'OS-OPD'),
    (8, 'Emergency Department', 8870, 'ER'),
    (9, 'General Medicine Ward', 8717, 'W-GM'),
    (10, 'Cardiology Ward', 8717, 'W-CV'),
    (11, 'Medical ICU', 8717, 'MICU'),
]
CLINIC_OF = {'htn': 2, 'af': 2, 'hf': 2, 't2dm': 3, 'hld': 3, 'ckd': 5, 'copd': 4,
             'asthma': 4, 'dep': 6, 'oa': 7}


def rdate(a, b):
    return a + dt.timedelta(days=R.randint(0, (b - a).days))


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


persons, obs, visits, conds, drugs, meas, deaths = [], [], [], [], [], [], []
ids = {'v': 0, 'c': 0, 'd': 0, 'm': 0}


def nid(k):
    ids[k] += 1
    return ids[k]


def add_visit(pid, concept, start, end, site, preceding=None, discharged=None):
    vid = nid('v')
    visits.append((vid, pid, concept, start.date(), start, end.date(), end, 32817, site,
                   {9201: 'IP', 9202: 'OP', 9203: 'ER'}[concept] + '-%06d' % vid,
                   discharged, preceding))
    return vid


def add_cond(pid, key, when, vid, primary, end=None):
    cid, _, _, icd = COND[key]
    conds.append((nid('c'), pid, cid, when.date(), when, end, 32817,
                  32902 if primary else 32908, vid, icd))


def add_drug(pid, key, start, days, qty, route, vid, dtype, sig):
    cid, name, _ = DRUG[key]
    end = start.date() + dt.timedelta(days=max(days, 1) - 1)
    drugs.append((nid('d'), pid, cid, start.date(), start, end, dtype, 0, qty, days, sig,
                  route, vid, name))


def add_meas(pid, key, when, value, vid):
    cid, _, _, ukey, lo, hi, src = MEAS[key]
    ucid, _, ucode = UNIT[ukey]
    mtype = 32817 if key in ('sbp', 'dbp', 'hr', 'wt', 'bmi') else 32856
    meas.append((nid('m'), pid, cid, when.date(), when, mtype, value, ucid, lo, hi, vid, src, ucode))


def at(day, h0, h1):
    return dt.datetime.combine(day, dt.time(0)) + dt.timedelta(minutes=R.randint(h0 * 60, h1 * 60 - 1))


N = 260
for pid in range(1, N + 1):
    gender = 8507 if R.random() < 0.48 else 8532
    yob = clamp(int(R.gauss(1962, 16)), 1932, 2004)
    mob, dob = R.randint(1, 12), R.randint(1, 28)
    r = R.random()
    race = 8515 if r < 0.9 else (8527 if r < 0.97 else 8516)
    eth = 38003563 if R.random() < 0.02 else 38003564
    age = 2025 - yob
    f = clamp((age - 25) / 50.0, 0.05, 1.2)
    chronic = set()
    for key, base in (('htn', 0.45), ('t2dm', 0.28), ('hld', 0.35), ('ckd', 0.12), ('af', 0.09),
                      ('hf', 0.08), ('copd', 0.12), ('oa', 0.2)):
        if R.random() < base * f:
            chronic.add(key)
    if R.random() < 0.07:
        chronic.add('asthma')
    if R.random() < 0.1:
        chronic.add('dep')
    # fixed medication plan per patient
    plan = {}
    if 'htn' in chronic:
        plan['htn'] = [d for d, p in (('amlodipine', 0.6), ('lisinopril', 0.45)) if R.random() < p] or ['amlodipine']
    if 't2dm' in chronic:
        plan['t2dm'] = [d for d, p in (('metformin', 0.85), ('glargine', 0.25)) if R.random() < p]
    if 'hld' in chronic:
        plan['hld'] = ['atorvastatin'] if R.random() < 0.8 else []
    if 'af' in chronic:
        x = R.random()
        plan['af'] = (['warfarin'] if x < 0.4 else ['apixaban'] if x < 0.85 else []) + ['metoprolol']
    if 'hf' in chronic:
        plan['hf'] = ['furosemide', 'metoprolol'] if R.random() < 0.7 else ['furosemide']
    if 'ckd' in chronic:
        plan['ckd'] = ['furosemide'] if R.random() < 0.3 else []
    if 'copd' in chronic:
        plan['copd'] = ['prednisolone'] if R.random() < 0.35 else []
    if 'asthma' in chronic:
        plan['asthma'] = ['prednisolone'] if R.random() < 0.25 else []
    if 'dep' in chronic:
        plan['dep'] = ['sertraline'] if R.random() < 0.8 else []
    if 'oa' in chronic:
        plan['oa'] = ['acetaminophen'] if R.random() < 0.7 else []
    ppi = R.random() < 0.12
    # patient-level baselines
    base = {
        'sbp': R.gauss(122, 9) + (16 if 'htn' in chronic else 0),
        'dbp': R.gauss(76, 6) + (8 if 'htn' in chronic else 0),
        'hr': R.gauss(74, 7) + (10 if 'af' in chronic else 0),
        'bmi': clamp(R.gauss(23.8, 3.2) + (2.5 if 't2dm' in chronic else 0), 16.5, 41),
        'hba1c': clamp(R.gauss(7.4, 1.0), 5.9, 12) if 't2dm' in chronic else clamp(R.gauss(5.4, 0.3), 4.5, 6.2),
        'creat': (clamp(R.gauss(2.2, 0.7), 1.4, 5.5) if 'ckd' in chronic else
                  clamp(R.gauss(0.95 if gender == 8507 else 0.75, 0.15), 0.45, 1.4)),
        'hgb': R.gauss(14.5 if gender == 8507 else 12.9, 1.0) - (1.5 if 'ckd' in chronic else 0),
        'ldl': clamp(R.gauss(145 if 'hld' in chronic else 110, 28), 45, 260),
        'glu': 0,
        'k': R.gauss(4.3, 0.3) + (0.5 if 'ckd' in chronic else 0),
        'na': R.gauss(140, 2),
    }
    base['glu'] = 28.7 * base['hba1c'] - 46.7
    height = clamp(R.gauss(171 if gender == 8507 else 158, 6), 140, 195) / 100.0
    persons.append((pid, gender, yob, mob, dob, dt.datetime(yob, mob, dob), race, eth,
                    'P%06d' % pid, 'M' if gender == 8507 else 'F', race, eth))

    op_start = rdate(D0, dt.date(2024, 6, 30))
    # death: a few percent, more in the old and sick
    p_death = 0.035 + 0.015 * len(chronic & {'hf', 'ckd', 'copd', 'af'}) + (0.04 if age >= 80 else 0)
    death_day = rdate(op_start + dt.timedelta(days=60), dt.date(2025, 12, 20)) if R.random() < p_death else None
    last_day = death_day or DEND

    # ---- schedule of encounters
    events = []
    n_op = 1 + 2 * len(chronic) + R.randint(0, 2)
    for _ in range(n_op):
        events.append((rdate(op_start, last_day), 'OP'))
    n_er = sum(R.random() < p for p in (0.25, 0.12 + 0.05 * len(chronic), 0.06 * len(chronic)))
    for _ in range(n_er):
        events.append((rdate(op_start, last_day), 'ER'))
    if death_day and R.random() < 0.7:
        events.append((death_day - dt.timedelta(days=R.randint(2, 9)), 'ERDEATH'))
    events.sort()

    busy_until = dt.date(1900, 1, 1)
    last_ip_end = None
    i = 0
    while i < len(events):
        day, kind = events[i]
        i += 1
        if day <= busy_until or day > last_day or day < op_start:
            continue
        if kind == 'OP':
            keys = sorted(chronic) or []
            if keys and R.random() < 0.85:
                main = R.choice(keys)
                site = CLINIC_OF[main]
                listed = [main] + [k for k in keys if k != main and CLINIC_OF[k] == site]
            else:
                main, site = None, 1
                listed = [k for k in keys if R.random() < 0.5]
            start = at(day, 8, 17)
            vid = add_visit(pid, 9202, start, start + dt.timedelta(minutes=R.randint(10, 40)), site)
            acute = None
            if site == 1 and R.random() < 0.3:
                acute = R.choice(['uti', 'bronch', 'bronch'])
                add_cond(pid, acute, start, vid, True, end=day + dt.timedelta(days=7))
            for i, k in enumerate(listed):
                add_cond(pid, k, start, vid, i == 0 and acute is None)
            days = R.choice([30, 30, 60, 90, 90])
            seen = set()
            for k in listed:
                for d in plan.get(k, []):
                    if d in seen:
                        continue
                    seen.add(d)
                    if d == 'glargine':
                        add_drug(pid, d, start, days, float(days * 20), 4142048, vid, 32838, '20 units SC at bedtime')
                    elif d == 'metformin':
                        add_drug(pid, d, start, days, float(days * 2), 4132161, vid, 32838, '500 mg PO BID')
                    else:
                        add_drug(pid, d, start, days, float(days), 4132161, vid, 32838, '1 tab PO daily')
            if acute == 'uti':
                add_drug(pid, 'ciprofloxacin', start, 5, 10.0, 4132161, vid, 32838, '250 mg PO BID')
            elif acute == 'bronch' and R.random() < 0.6:
                add_drug(pid, 'amoxicillin', start, 7, 21.0, 4132161, vid, 32838, '500 mg PO TID')
            if ppi and R.random() < 0.7:
                add_drug(pid, 'omeprazole', start, days, float(days), 4132161, vid, 32838, '20 mg PO daily')
            # vitals
            t = start + dt.timedelta(minutes=2)
            if R.random() < 0.85:
                add_meas(pid, 'sbp', t, round(R.gauss(base['sbp'], 8)), vid)
                add_meas(pid, 'dbp', t, round(R.gauss(base['dbp'], 5)), vid)
            if R.random() < 0.3:
                add_meas(pid, 'hr', t, round(R.gauss(base['hr'], 6)), vid)
            if R.random() < 0.25:
                b = round(R.gauss(base['bmi'], 0.4), 1)
                add_meas(pid, 'wt', t, round(b * height * height, 1), vid)
                add_meas(pid, 'bmi', t, b, vid)
            # labs
            lt = start - dt.timedelta(minutes=R.randint(20, 90))
            labs = set()
            if 't2dm' in listed:
                labs |= {'hba1c', 'glu'}
            if 'ckd' in listed:
                labs |= {'creat', 'k', 'hgb'}
            if 'hld' in listed:
                labs |= {'ldl', 'tchol'}
            if 'hf' in listed:
                labs |= {'creat', 'k', 'na'}
            if R.random() < 0.15:
                labs |= {'hgb', 'creat', 'glu'}
            for lk in sorted(labs):
                if lk == 'hba1c':
                    v = round(R.gauss(base['hba1c'], 0.35), 1)
                elif lk == 'glu':
                    v = round(R.gauss(base['glu'], 14))
                elif lk == 'creat':
                    v = round(max(0.3, R.gauss(base['creat'], 0.12)), 2)
                elif lk == 'k':
                    v = round(R.gauss(base['k'], 0.25), 1)
                elif lk == 'hgb':
                    v = round(R.gauss(base['hgb'], 0.5), 1)
                elif lk == 'ldl':
                    v = round(R.gauss(base['ldl'] - (35 if 'atorvastatin' in plan.get('hld', []) else 0), 12))
                elif lk == 'tchol':
                    v = round(R.gauss(base['ldl'] + 75, 15))
                else:
                    v = round(R.gauss(base['na'], 1.5))
                add_meas(pid, lk, lt, float(v), vid)
            busy_until = day
        else:  # ER visit, maybe followed by an admission
            dying = kind == 'ERDEATH'
            cand = ['pna', 'uti', 'bronch', 'pna', 'mi', 'stroke', 'sepsis']
            cand += [k for k in ('hf', 'copd', 'af', 'asthma') if k in chronic] * 2
            dx = R.choice(['sepsis', 'pna', 'mi', 'stroke'] if dying else cand)
            s = at(day, 0, 24)
            admit = dying or dx in ('mi', 'stroke', 'sepsis') or (dx in ('pna', 'hf', 'copd') and R.random() < 0.65)
            er_len = dt.timedelta(minutes=R.randint(90, 600))
            if s.date() == last_day:
                s = min(s, dt.datetime.combine(last_day, dt.time(13, 0)))
            er_vid = add_visit(pid, 9203, s, s + er_len, 8, discharged=None if admit else 8536)
            add_cond(pid, dx, s, er_vid, True)
            for k in sorted(chronic):
                if R.random() < 0.3:
                    add_cond(pid, k, s, er_vid, False)
            ts = s + dt.timedelta(minutes=15)
            add_meas(pid, 'sbp', ts, round(R.gauss(base['sbp'] + 6, 14)), er_vid)
            add_meas(pid, 'dbp', ts, round(R.gauss(base['dbp'] + 3, 8)), er_vid)
            add_meas(pid, 'hr', ts, round(R.gauss(base['hr'] + 14, 10)), er_vid)
            for lk in ('hgb', 'creat', 'k', 'na', 'glu'):
                sick = 1.0 + (0.35 if dx == 'sepsis' else 0)
                v = {'hgb': round(R.gauss(base['hgb'] - 0.6, 0.8), 1),
                     'creat': round(max(0.3, R.gauss(base['creat'] * sick, 0.2)), 2),
                     'k': round(R.gauss(base['k'] + 0.1, 0.4), 1),
                     'na': float(round(R.gauss(base['na'] - 1, 3))),
                     'glu': float(round(R.gauss(base['glu'] + 25, 30)))}[lk]
                add_meas(pid, lk, ts + dt.timedelta(minutes=10), v, er_vid)
            if dx == 'uti':
                add_drug(pid, 'ciprofloxacin', s + er_len / 2, 5, 10.0, 4132161, er_vid, 32838, '500 mg PO BID')
            elif dx == 'bronch':
                add_drug(pid, 'acetaminophen', s + er_len / 2, 3, 9.0, 4132161, er_vid, 32838, '650 mg PO TID')
            elif dx in ('pna', 'sepsis'):
                add_drug(pid, 'ceftriaxone', s + er_len / 2, 1, 1.0, 4171047, er_vid, 32818, '2 g IV once')
            elif dx in ('mi', 'stroke'):
                add_drug(pid, 'aspirin', s + er_len / 2, 1, 1.0, 4132161, er_vid, 32818, '300 mg PO once')
            elif dx == 'hf':
                add_drug(pid, 'furosemide', s + er_len / 2, 1, 1.0, 4171047, er_vid, 32818, '40 mg IV once')
            end_day = day
            if admit:
                los = R.randint(2, 6) + (R.randint(2, 10) if dx in ('sepsis', 'stroke', 'mi') else 0)
                if dying:
                    los = max(1, (death_day - day).days)
                ward = 11 if (dx == 'sepsis' or (dx == 'mi' and R.random() < 0.5) or (dying and R.random() < 0.6)) \
                    else (10 if dx in ('mi', 'hf', 'af') else 9)
                ip_s = s + er_len
                ip_e = at(ip_s.date() + dt.timedelta(days=los), 9, 16)
                if ip_e <= ip_s:
                    ip_e = ip_s + dt.timedelta(hours=6)
                if dying:
                    ip_e = at(death_day, 0, 24)
                    if ip_e <= ip_s:
                        ip_e = ip_s + dt.timedelta(hours=5)
                if ip_e.date() > last_day:
                    ip_e = at(last_day, 9, 10)
                    if ip_e <= ip_s:
                        ip_e = ip_s + dt.timedelta(hours=3)
                ip_vid = add_visit(pid, 9201, ip_s, ip_e, ward, preceding=er_vid,
                                   discharged=None if dying else 8536)
                add_cond(pid, dx, ip_s, ip_vid, True)
                for k in sorted(chronic):
                    if R.random() < 0.6:
                        add_cond(pid, k, ip_s, ip_vid, False)
                nd = (ip_e.date() - ip_s.date()).days
                for dd in range(0, nd + 1, R.choice([2, 3])):
                    lt = at(ip_s.date() + dt.timedelta(days=dd), 5, 7)
                    if lt <= ip_s or lt >= ip_e:
                        continue
                    drift = dd / max(nd, 1)
                    add_meas(pid, 'hgb', lt, round(R.gauss(base['hgb'] - 1.2 - 0.5 * drift, 0.7), 1), ip_vid)
                    add_meas(pid, 'creat', lt, round(max(0.3, R.gauss(base['creat'] * (1.25 if dx == 'sepsis' else 1.05), 0.2)), 2), ip_vid)
                    add_meas(pid, 'k', lt, round(R.gauss(base['k'], 0.45), 1), ip_vid)
                    if 't2dm' in chronic:
                        add_meas(pid, 'glu', lt, float(round(R.gauss(base['glu'] + 20, 30))), ip_vid)
                ds = ip_s + dt.timedelta(hours=2)
                stay = max(nd, 1)
                if dx in ('pna', 'sepsis'):
                    add_drug(pid, 'ceftriaxone', ds, min(stay, 7), float(min(stay, 7)), 4171047, ip_vid, 32818, '2 g IV q24h')
                if dx in ('mi', 'stroke'):
                    add_drug(pid, 'aspirin', ds, stay, float(stay), 4132161, ip_vid, 32818, '100 mg PO daily')
                    add_drug(pid, 'atorvastatin', ds, stay, float(stay), 4132161, ip_vid, 32818, '40 mg PO daily')
                if dx in ('hf',):
                    add_drug(pid, 'furosemide', ds, stay, float(stay * 2), 4171047, ip_vid, 32818, '40 mg IV BID')
                if dx in ('copd', 'asthma'):
                    add_drug(pid, 'prednisolone', ds, min(stay, 5), float(min(stay, 5)), 4132161, ip_vid, 32818, '40 mg PO daily')
                if R.random() < 0.75:
                    add_drug(pid, 'heparin', ds, stay, float(stay * 2), 4142048, ip_vid, 32818, '5000 units SC q12h')
                if R.random() < 0.6:
                    add_drug(pid, 'acetaminophen', ds, min(stay, 3), float(min(stay, 3) * 3), 4132161, ip_vid, 32818, '650 mg PO q8h prn')
                end_day = ip_e.date()
                last_ip_end = end_day
                if dying:
                    deaths.append((pid, death_day, ip_e, 32817, COND[dx][0], COND[dx][3]))
                # early readmission for frail chronic patients
                if not dying and chronic & {'hf', 'copd', 'ckd'} and R.random() < 0.35:
                    rd = end_day + dt.timedelta(days=R.randint(4, 45))
                    if rd < last_day:
                        events.append((rd, 'ER'))
                        events.sort()
            busy_until = end_day
    if death_day and not any(d[0] == pid for d in deaths):
        cause = R.choice(sorted(chronic & {'hf', 'copd', 'ckd', 'af'}) or ['mi'])
        deaths.append((pid, death_day, None, 32817, COND[cause][0], COND[cause][3]))
    pv = [v for v in visits if v[1] == pid]
    end = max([death_day or DEND] + [v[5] for v in pv])
    start = min([op_start] + [v[3] for v in pv])
    obs.append((pid, pid, start, end, 32817))

DDL = r"""-- omop evaluation database for askql
-- An OMOP-CDM-v5.4-like subset (9 tables) holding synthetic data for 260 patients of one
-- hospital, with encounters in 2024-2025. Table and column names follow the OMOP CDM v5.4;
-- every coded value is a concept_id whose name lives only in the concept table.
-- Generated by gen_schema.py (fixed seed). Load with: psql -v ON_ERROR_STOP=1 -f schema.sql

CREATE TABLE concept (
    concept_id          integer      PRIMARY KEY,
    concept_name        varchar(255) NOT NULL,
    domain_id           varchar(20)  NOT NULL,
    vocabulary_id       varchar(20)  NOT NULL,
    concept_class_id    varchar(20)  NOT NULL,
    standard_concept    varchar(1),
    concept_code        varchar(50)  NOT NULL,
    valid_start_date    date         NOT NULL,
    valid_end_date      date         NOT NULL,
    invalid_reason      varchar(1)
);
COMMENT ON TABLE concept IS 'Standardized vocabulary: one row per concept (gender, race, visit type, condition, drug ingredient, measurement, unit, route, type concept...). Every *_concept_id column in the other tables points here; the human-readable name is concept_name.';
COMMENT ON COLUMN concept.concept_id IS 'Unique identifier of the concept (OHDSI standard concept id).';
COMMENT ON COLUMN concept.concept_name IS 'Unambiguous English name of the concept, e.g. ''Type 2 diabetes mellitus'', ''metformin'', ''Hemoglobin A1c/Hemoglobin.total in Blood'', ''FEMALE'', ''Inpatient Visit'', ''milligram per deciliter''.';
COMMENT ON COLUMN concept.domain_id IS 'Domain of the concept: Gender, Race, Ethnicity, Visit, Condition, Drug, Measurement, Unit, Route, Type Concept, Condition Status, Metadata.';
COMMENT ON COLUMN concept.vocabulary_id IS 'Source vocabulary: SNOMED (conditions, routes), RxNorm (drug ingredients), LOINC (measurements), UCUM (units), Gender, Race, Ethnicity, Visit, CMS Place of Service, Type Concept, Condition Status.';
COMMENT ON COLUMN concept.concept_class_id IS 'Class within the vocabulary, e.g. Clinical Finding, Ingredient, Lab Test, Clinical Observation, Unit.';
COMMENT ON COLUMN concept.standard_concept IS '''S'' for a standard concept, NULL otherwise.';
COMMENT ON COLUMN concept.concept_code IS 'Code in the source vocabulary: SNOMED CT id, RxNorm RXCUI, LOINC code, UCUM unit code, etc.';
COMMENT ON COLUMN concept.valid_start_date IS 'Date the concept became valid.';
COMMENT ON COLUMN concept.valid_end_date IS 'Date the concept stopped being valid (2099-12-31 if still valid).';
COMMENT ON COLUMN concept.invalid_reason IS 'NULL if valid; D (deleted) or U (updated) otherwise.';

CREATE TABLE care_site (
    care_site_id                 integer      PRIMARY KEY,
    care_site_name               varchar(255) NOT NULL,
    place_of_service_concept_id  integer      REFERENCES concept (concept_id),
    location_id                  integer,
    care_site_source_value       varchar(50)
);
COMMENT ON TABLE care_site IS 'Departments, clinics and wards of the hospital where visits take place (outpatient clinics, the emergency department, inpatient wards and the medical ICU).';
COMMENT ON COLUMN care_site.care_site_id IS 'Unique identifier of the care site.';
COMMENT ON COLUMN care_site.care_site_name IS 'Name of the department, clinic or ward, e.g. ''Cardiology Clinic'', ''Emergency Department'', ''Medical ICU''.';
COMMENT ON COLUMN care_site.place_of_service_concept_id IS 'Kind of care site (CMS Place of Service concept: Inpatient Hospital, Outpatient Hospital, Emergency Room - Hospital).';
COMMENT ON COLUMN care_site.location_id IS 'Physical location (not populated in this extract).';
COMMENT ON COLUMN care_site.care_site_source_value IS 'Department code in the hospital system, e.g. CV-OPD, MICU.';

CREATE TABLE person (
    person_id               integer     PRIMARY KEY,
    gender_concept_id       integer     NOT NULL REFERENCES concept (concept_id),
    year_of_birth           integer     NOT NULL,
    month_of_birth          integer,
    day_of_birth            integer,
    birth_datetime          timestamp,
    race_concept_id         integer     NOT NULL REFERENCES concept (concept_id),
    ethnicity_concept_id    integer     NOT NULL REFERENCES concept (concept_id),
    location_id             integer,
    provider_id             integer,
    care_site_id            integer     REFERENCES care_site (care_site_id),
    person_source_value     varchar(50),
    gender_source_value     varchar(50),
    gender_source_concept_id integer    REFERENCES concept (concept_id),
    race_source_value       varchar(50),
    race_source_concept_id  integer     REFERENCES concept (concept_id),
    ethnicity_source_value  varchar(50),
    ethnicity_source_concept_id integer REFERENCES concept (concept_id)
);
COMMENT ON TABLE person IS 'One row per patient: demographics (gender, year of birth, race, ethnicity).';
COMMENT ON COLUMN person.person_id IS 'Unique identifier of the patient.';
COMMENT ON COLUMN person.gender_concept_id IS 'Gender of the patient (concept: MALE or FEMALE).';
COMMENT ON COLUMN person.year_of_birth IS 'Year of birth.';
COMMENT ON COLUMN person.month_of_birth IS 'Month of birth (1-12).';
COMMENT ON COLUMN person.day_of_birth IS 'Day of the month of birth.';
COMMENT ON COLUMN person.birth_datetime IS 'Date and time of birth.';
COMMENT ON COLUMN person.race_concept_id IS 'Race of the patient (concept in the Race vocabulary).';
COMMENT ON COLUMN person.ethnicity_concept_id IS 'Ethnicity of the patient (Hispanic or Latino / Not Hispanic or Latino).';
COMMENT ON COLUMN person.location_id IS 'Residence (not populated).';
COMMENT ON COLUMN person.provider_id IS 'Primary care provider (not populated).';
COMMENT ON COLUMN person.care_site_id IS 'Primary care site (not populated).';
COMMENT ON COLUMN person.person_source_value IS 'Patient number in the hospital system.';
COMMENT ON COLUMN person.gender_source_value IS 'Gender code as recorded at the source (M/F).';
COMMENT ON COLUMN person.race_source_value IS 'Race as recorded at the source.';
COMMENT ON COLUMN person.ethnicity_source_value IS 'Ethnicity as recorded at the source.';

CREATE TABLE observation_period (
    observation_period_id          integer PRIMARY KEY,
    person_id                      integer NOT NULL REFERENCES person (person_id),
    observation_period_start_date  date    NOT NULL,
    observation_period_end_date    date    NOT NULL,
    period_type_concept_id         integer NOT NULL REFERENCES concept (concept_id)
);
COMMENT ON TABLE observation_period IS 'Span of time during which the patient''s clinical events are expected to be recorded in this database.';
COMMENT ON COLUMN observation_period.observation_period_id IS 'Unique identifier of the observation period.';
COMMENT ON COLUMN observation_period.person_id IS 'Patient.';
COMMENT ON COLUMN observation_period.observation_period_start_date IS 'First day of observation.';
COMMENT ON COLUMN observation_period.observation_period_end_date IS 'Last day of observation (end of data or death).';
COMMENT ON COLUMN observation_period.period_type_concept_id IS 'Provenance of the period (Type Concept).';

CREATE TABLE visit_occurrence (
    visit_occurrence_id            integer   PRIMARY KEY,
    person_id                      integer   NOT NULL REFERENCES person (person_id),
    visit_concept_id               integer   NOT NULL REFERENCES concept (concept_id),
    visit_start_date               date      NOT NULL,
    visit_start_datetime           timestamp,
    visit_end_date                 date      NOT NULL,
    visit_end_datetime             timestamp,
    visit_type_concept_id          integer   NOT NULL REFERENCES concept (concept_id),
    provider_id                    integer,
    care_site_id                   integer   REFERENCES care_site (care_site_id),
    visit_source_value             varchar(50),
    visit_source_concept_id        integer   REFERENCES concept (concept_id),
    admitted_from_concept_id       integer   REFERENCES concept (concept_id),
    admitted_from_source_value     varchar(50),
    discharged_to_concept_id       integer   REFERENCES concept (concept_id),
    discharged_to_source_value     varchar(50),
    preceding_visit_occurrence_id  integer   REFERENCES visit_occurrence (visit_occurrence_id)
);
COMMENT ON TABLE visit_occurrence IS 'Encounters of patients with the hospital: outpatient visits, emergency room visits and inpatient stays (admissions). An admission through the ER is an Emergency Room Visit followed by an Inpatient Visit.';
COMMENT ON COLUMN visit_occurrence.visit_occurrence_id IS 'Unique identifier of the visit.';
COMMENT ON COLUMN visit_occurrence.person_id IS 'Patient.';
COMMENT ON COLUMN visit_occurrence.visit_concept_id IS 'Kind of visit (concept: Inpatient Visit, Outpatient Visit, Emergency Room Visit).';
COMMENT ON COLUMN visit_occurrence.visit_start_date IS 'Start date of the visit (admission date for inpatient stays).';
COMMENT ON COLUMN visit_occurrence.visit_start_datetime IS 'Start date and time of the visit.';
COMMENT ON COLUMN visit_occurrence.visit_end_date IS 'End date of the visit (discharge date for inpatient stays).';
COMMENT ON COLUMN visit_occurrence.visit_end_datetime IS 'End date and time of the visit.';
COMMENT ON COLUMN visit_occurrence.visit_type_concept_id IS 'Provenance of the record (Type Concept, here EHR).';
COMMENT ON COLUMN visit_occurrence.provider_id IS 'Attending provider (not populated).';
COMMENT ON COLUMN visit_occurrence.care_site_id IS 'Department, clinic or ward of the visit.';
COMMENT ON COLUMN visit_occurrence.visit_source_value IS 'Encounter number in the hospital system.';
COMMENT ON COLUMN visit_occurrence.admitted_from_concept_id IS 'Where the patient came from (not populated).';
COMMENT ON COLUMN visit_occurrence.discharged_to_concept_id IS 'Where the patient went after the visit (Place of Service concept, e.g. Home); NULL when admitted onwards or died.';
COMMENT ON COLUMN visit_occurrence.preceding_visit_occurrence_id IS 'Visit immediately before this one for the same patient when linked (the ER visit that led to an admission).';

CREATE TABLE condition_occurrence (
    condition_occurrence_id        integer   PRIMARY KEY,
    person_id                      integer   NOT NULL REFERENCES person (person_id),
    condition_concept_id           integer   NOT NULL REFERENCES concept (concept_id),
    condition_start_date           date      NOT NULL,
    condition_start_datetime       timestamp,
    condition_end_date             date,
    condition_end_datetime         timestamp,
    condition_type_concept_id      integer   NOT NULL REFERENCES concept (concept_id),
    condition_status_concept_id    integer   REFERENCES concept (concept_id),
    stop_reason                    varchar(20),
    provider_id                    integer,
    visit_occurrence_id            integer   REFERENCES visit_occurrence (visit_occurrence_id),
    visit_detail_id                integer,
    condition_source_value         varchar(50),
    condition_source_concept_id    integer   REFERENCES concept (concept_id),
    condition_status_source_value  varchar(50)
);
COMMENT ON TABLE condition_occurrence IS 'Diagnoses recorded for a patient at a visit (one row per diagnosis per visit).';
COMMENT ON COLUMN condition_occurrence.condition_occurrence_id IS 'Unique identifier of the diagnosis record.';
COMMENT ON COLUMN condition_occurrence.person_id IS 'Patient.';
COMMENT ON COLUMN condition_occurrence.condition_concept_id IS 'Diagnosis (SNOMED concept, e.g. Essential hypertension, Type 2 diabetes mellitus, Pneumonia).';
COMMENT ON COLUMN condition_occurrence.condition_start_date IS 'Date the diagnosis was recorded.';
COMMENT ON COLUMN condition_occurrence.condition_start_datetime IS 'Date and time the diagnosis was recorded.';
COMMENT ON COLUMN condition_occurrence.condition_end_date IS 'Date the condition resolved, when known (acute conditions only).';
COMMENT ON COLUMN condition_occurrence.condition_type_concept_id IS 'Provenance of the record (Type Concept).';
COMMENT ON COLUMN condition_occurrence.condition_status_concept_id IS 'Primary diagnosis or Secondary diagnosis of the visit (Condition Status concept).';
COMMENT ON COLUMN condition_occurrence.visit_occurrence_id IS 'Visit at which the diagnosis was recorded.';
COMMENT ON COLUMN condition_occurrence.condition_source_value IS 'Diagnosis code as recorded at the source (ICD-10 / KCD code such as E11.9).';
COMMENT ON COLUMN condition_occurrence.condition_source_concept_id IS 'Concept of the source code (not populated).';

CREATE TABLE drug_exposure (
    drug_exposure_id               integer   PRIMARY KEY,
    person_id                      integer   NOT NULL REFERENCES person (person_id),
    drug_concept_id                integer   NOT NULL REFERENCES concept (concept_id),
    drug_exposure_start_date       date      NOT NULL,
    drug_exposure_start_datetime   timestamp,
    drug_exposure_end_date         date      NOT NULL,
    drug_exposure_end_datetime     timestamp,
    verbatim_end_date              date,
    drug_type_concept_id           integer   NOT NULL REFERENCES concept (concept_id),
    stop_reason                    varchar(20),
    refills                        integer,
    quantity                       numeric,
    days_supply                    integer,
    sig                            text,
    route_concept_id               integer   REFERENCES concept (concept_id),
    lot_number                     varchar(50),
    provider_id                    integer,
    visit_occurrence_id            integer   REFERENCES visit_occurrence (visit_occurrence_id),
    visit_detail_id                integer,
    drug_source_value              varchar(50),
    drug_source_concept_id         integer   REFERENCES concept (concept_id),
    route_source_value             varchar(50),
    dose_unit_source_value         varchar(50)
);
COMMENT ON TABLE drug_exposure IS 'Medications prescribed (outpatient prescriptions) or administered (ER and inpatient administrations), one row per order, at ingredient level.';
COMMENT ON COLUMN drug_exposure.drug_exposure_id IS 'Unique identifier of the drug record.';
COMMENT ON COLUMN drug_exposure.person_id IS 'Patient.';
COMMENT ON COLUMN drug_exposure.drug_concept_id IS 'Drug ingredient (RxNorm concept, e.g. metformin, amlodipine, warfarin).';
COMMENT ON COLUMN drug_exposure.drug_exposure_start_date IS 'Start date of the prescription or administration.';
COMMENT ON COLUMN drug_exposure.drug_exposure_start_datetime IS 'Start date and time.';
COMMENT ON COLUMN drug_exposure.drug_exposure_end_date IS 'Last day of drug supply/administration.';
COMMENT ON COLUMN drug_exposure.drug_type_concept_id IS 'Provenance: EHR prescription (outpatient) or EHR administration record (ER/inpatient).';
COMMENT ON COLUMN drug_exposure.refills IS 'Number of refills.';
COMMENT ON COLUMN drug_exposure.quantity IS 'Quantity dispensed or administered (tablets, units, doses).';
COMMENT ON COLUMN drug_exposure.days_supply IS 'Number of days covered by the prescription.';
COMMENT ON COLUMN drug_exposure.sig IS 'Dosing instructions as written.';
COMMENT ON COLUMN drug_exposure.route_concept_id IS 'Route of administration (concept: Oral, Intravenous, Subcutaneous).';
COMMENT ON COLUMN drug_exposure.visit_occurrence_id IS 'Visit during which the drug was ordered.';
COMMENT ON COLUMN drug_exposure.drug_source_value IS 'Drug name as recorded at the source.';

CREATE TABLE measurement (
    measurement_id                 integer   PRIMARY KEY,
    person_id                      integer   NOT NULL REFERENCES person (person_id),
    measurement_concept_id         integer   NOT NULL REFERENCES concept (concept_id),
    measurement_date               date      NOT NULL,
    measurement_datetime           timestamp,
    measurement_time               varchar(10),
    measurement_type_concept_id    integer   NOT NULL REFERENCES concept (concept_id),
    operator_concept_id            integer   REFERENCES concept (concept_id),
    value_as_number                numeric,
    value_as_concept_id            integer   REFERENCES concept (concept_id),
    unit_concept_id                integer   REFERENCES concept (concept_id),
    range_low                      numeric,
    range_high                     numeric,
    provider_id                    integer,
    visit_occurrence_id            integer   REFERENCES visit_occurrence (visit_occurrence_id),
    visit_detail_id                integer,
    measurement_source_value       varchar(50),
    measurement_source_concept_id  integer   REFERENCES concept (concept_id),
    unit_source_value              varchar(50),
    unit_source_concept_id         integer   REFERENCES concept (concept_id),
    value_source_value             varchar(50),
    measurement_event_id           bigint,
    meas_event_field_concept_id    integer   REFERENCES concept (concept_id)
);
COMMENT ON TABLE measurement IS 'Laboratory results and vital signs (blood pressure, heart rate, weight, BMI), one row per result.';
COMMENT ON COLUMN measurement.measurement_id IS 'Unique identifier of the result.';
COMMENT ON COLUMN measurement.person_id IS 'Patient.';
COMMENT ON COLUMN measurement.measurement_concept_id IS 'What was measured (LOINC concept, e.g. Hemoglobin A1c/Hemoglobin.total in Blood, Creatinine [Mass/volume] in Serum or Plasma, Systolic blood pressure).';
COMMENT ON COLUMN measurement.measurement_date IS 'Date of the measurement (specimen collection for labs).';
COMMENT ON COLUMN measurement.measurement_datetime IS 'Date and time of the measurement.';
COMMENT ON COLUMN measurement.measurement_type_concept_id IS 'Provenance: Lab (laboratory result) or EHR (vital sign charted in the record).';
COMMENT ON COLUMN measurement.operator_concept_id IS 'Operator such as < or > for censored values (not populated).';
COMMENT ON COLUMN measurement.value_as_number IS 'Numeric result, in the unit given by unit_concept_id.';
COMMENT ON COLUMN measurement.value_as_concept_id IS 'Categorical result (not populated).';
COMMENT ON COLUMN measurement.unit_concept_id IS 'Unit of value_as_number (UCUM concept, e.g. percent, milligram per deciliter, millimeter mercury column).';
COMMENT ON COLUMN measurement.range_low IS 'Lower limit of the reference range, when the lab reports one.';
COMMENT ON COLUMN measurement.range_high IS 'Upper limit of the reference range, when the lab reports one.';
COMMENT ON COLUMN measurement.visit_occurrence_id IS 'Visit during which the measurement was taken.';
COMMENT ON COLUMN measurement.measurement_source_value IS 'Test code in the hospital system.';
COMMENT ON COLUMN measurement.unit_source_value IS 'Unit as recorded at the source.';

CREATE TABLE death (
    person_id                integer   PRIMARY KEY REFERENCES person (person_id),
    death_date               date      NOT NULL,
    death_datetime           timestamp,
    death_type_concept_id    integer   REFERENCES concept (concept_id),
    cause_concept_id         integer   REFERENCES concept (concept_id),
    cause_source_value       varchar(50),
    cause_source_concept_id  integer   REFERENCES concept (concept_id)
);
COMMENT ON TABLE death IS 'Deaths of patients: date and underlying cause (at most one row per patient).';
COMMENT ON COLUMN death.person_id IS 'Patient who died.';
COMMENT ON COLUMN death.death_date IS 'Date of death.';
COMMENT ON COLUMN death.death_datetime IS 'Date and time of death, when known (in-hospital deaths).';
COMMENT ON COLUMN death.death_type_concept_id IS 'Provenance of the death record (Type Concept).';
COMMENT ON COLUMN death.cause_concept_id IS 'Cause of death (SNOMED condition concept).';
COMMENT ON COLUMN death.cause_source_value IS 'Cause of death code as recorded (ICD-10).';

CREATE INDEX idx_visit_person ON visit_occurrence (person_id);
CREATE INDEX idx_condition_person ON condition_occurrence (person_id);
CREATE INDEX idx_condition_concept ON condition_occurrence (condition_concept_id);
CREATE INDEX idx_drug_person ON drug_exposure (person_id);
CREATE INDEX idx_drug_concept ON drug_exposure (drug_concept_id);
CREATE INDEX idx_measurement_person ON measurement (person_id);
CREATE INDEX idx_measurement_concept ON measurement (measurement_concept_id);
"""


# ---------------------------------------------------------------- SQL output
def lit(x):
    if x is None:
        return 'NULL'
    if isinstance(x, bool):
        return 'TRUE' if x else 'FALSE'
    if isinstance(x, (int,)):
        return str(x)
    if isinstance(x, float):
        return repr(round(x, 4))
    if isinstance(x, dt.datetime):
        return "'%s'" % x.strftime('%Y-%m-%d %H:%M:%S')
    if isinstance(x, dt.date):
        return "'%s'" % x.isoformat()
    return "'%s'" % str(x).replace("'", "''")


def inserts(out, table, cols, rows, batch=400):
    for i in range(0, len(rows), batch):
        out.write('INSERT INTO %s (%s) VALUES\n' % (table, ', '.join(cols)))
        out.write(',\n'.join('(' + ', '.join(lit(v) for v in r) + ')' for r in rows[i:i + batch]))
        out.write(';\n')


def main():
    out = sys.stdout
    out.write(DDL)
    out.write('\n-- ------------------------------------------------------------------ data\n')
    out.write('-- Synthetic rows written by gen_schema.py (fixed seed); not real patients.\n')
    out.write('BEGIN;\n')
    inserts(out, 'concept', ['concept_id', 'concept_name', 'domain_id', 'vocabulary_id', 'concept_class_id',
                             'standard_concept', 'concept_code', 'valid_start_date', 'valid_end_date', 'invalid_reason'],
            [c + (dt.date(1970, 1, 1), dt.date(2099, 12, 31), None) for c in sorted(CONCEPTS)])
    inserts(out, 'care_site', ['care_site_id', 'care_site_name', 'place_of_service_concept_id', 'care_site_source_value'],
            CARE_SITES)
    inserts(out, 'person', ['person_id', 'gender_concept_id', 'year_of_birth', 'month_of_birth', 'day_of_birth',
                            'birth_datetime', 'race_concept_id', 'ethnicity_concept_id', 'person_source_value',
                            'gender_source_value', 'race_source_value', 'ethnicity_source_value'], persons)
    inserts(out, 'observation_period', ['observation_period_id', 'person_id', 'observation_period_start_date',
                                        'observation_period_end_date', 'period_type_concept_id'], obs)
    inserts(out, 'visit_occurrence', ['visit_occurrence_id', 'person_id', 'visit_concept_id', 'visit_start_date',
                                      'visit_start_datetime', 'visit_end_date', 'visit_end_datetime',
                                      'visit_type_concept_id', 'care_site_id', 'visit_source_value',
                                      'discharged_to_concept_id', 'preceding_visit_occurrence_id'], visits)
    inserts(out, 'condition_occurrence', ['condition_occurrence_id', 'person_id', 'condition_concept_id',
                                          'condition_start_date', 'condition_start_datetime', 'condition_end_date',
                                          'condition_type_concept_id', 'condition_status_concept_id',
                                          'visit_occurrence_id', 'condition_source_value'], conds)
    inserts(out, 'drug_exposure', ['drug_exposure_id', 'person_id', 'drug_concept_id', 'drug_exposure_start_date',
                                   'drug_exposure_start_datetime', 'drug_exposure_end_date', 'drug_type_concept_id',
                                   'refills', 'quantity', 'days_supply', 'sig', 'route_concept_id',
                                   'visit_occurrence_id', 'drug_source_value'], drugs)
    inserts(out, 'measurement', ['measurement_id', 'person_id', 'measurement_concept_id', 'measurement_date',
                                 'measurement_datetime', 'measurement_type_concept_id', 'value_as_number',
                                 'unit_concept_id', 'range_low', 'range_high', 'visit_occurrence_id',
                                 'measurement_source_value', 'unit_source_value'], meas)
    inserts(out, 'death', ['person_id', 'death_date', 'death_datetime', 'death_type_concept_id', 'cause_concept_id',
                           'cause_source_value'], deaths)
    out.write('COMMIT;\nANALYZE;\n')
    sys.stderr.write('persons %d visits %d conds %d drugs %d meas %d deaths %d\n' % (
        len(persons), len(visits), len(conds), len(drugs), len(meas), len(deaths)))


main()
