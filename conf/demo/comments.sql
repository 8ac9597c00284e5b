-- comments.sql: COMMENT ON every demo table and column (included by load.sql).
COMMENT ON TABLE clinical_data_table IS 'One row per surgical case (operation under anaesthesia): patient demographics, operation, anaesthesia and outcome, with the case timeline.';
COMMENT ON COLUMN clinical_data_table.caseid IS 'Case ID: one surgical case (operation); key joined by the lab, vital and medication tables';
COMMENT ON COLUMN clinical_data_table.subjectid IS 'Subject (patient) ID, de-identified hospital patient number; one patient can have several cases';
COMMENT ON COLUMN clinical_data_table.age IS 'Age of the patient at surgery, years';
COMMENT ON COLUMN clinical_data_table.sex IS 'Sex: F = female, M = male';
COMMENT ON COLUMN clinical_data_table.height IS 'Height, cm';
COMMENT ON COLUMN clinical_data_table.weight IS 'Body weight, kg';
COMMENT ON COLUMN clinical_data_table.bmi IS 'Body mass index, kg/m2 (weight / height squared)';
COMMENT ON COLUMN clinical_data_table.asa IS 'ASA physical status classification 1-6 (American Society of Anesthesiologists)';
COMMENT ON COLUMN clinical_data_table.department IS 'Surgical department: General surgery, Thoracic surgery, Urology, Gynecology';
COMMENT ON COLUMN clinical_data_table.optype IS 'Operation type (surgical category), e.g. Colorectal, Stomach, Biliary/Pancreas, Thyroid, Transplantation';
COMMENT ON COLUMN clinical_data_table.dx IS 'Preoperative diagnosis (free text)';
COMMENT ON COLUMN clinical_data_table.opname IS 'Operation name (procedure performed)';
COMMENT ON COLUMN clinical_data_table.approach IS 'Surgical approach: Open, Videoscopic (laparoscopic/thoracoscopic), Robotic';
COMMENT ON COLUMN clinical_data_table.ane_type IS 'Anaesthesia type: General, Spinal, Sedationalgesia';
COMMENT ON COLUMN clinical_data_table.preop_htn IS 'Preoperative hypertension: 1 yes, 0 no';
COMMENT ON COLUMN clinical_data_table.preop_dm IS 'Preoperative diabetes mellitus: 1 yes, 0 no';
COMMENT ON COLUMN clinical_data_table.icu_days IS 'Postoperative ICU stay, days (0 = no ICU admission)';
COMMENT ON COLUMN clinical_data_table.death_inhosp IS 'In-hospital death: 1 died, 0 discharged alive';
COMMENT ON COLUMN clinical_data_table.casestart IS 'Case start: patient enters the operating room';
COMMENT ON COLUMN clinical_data_table.caseend IS 'Case end: patient leaves the operating room';
COMMENT ON COLUMN clinical_data_table.opstart IS 'Operation start (incision)';
COMMENT ON COLUMN clinical_data_table.opend IS 'Operation end (closure)';
COMMENT ON COLUMN clinical_data_table.anestart IS 'Anaesthesia start (induction)';
COMMENT ON COLUMN clinical_data_table.aneend IS 'Anaesthesia end (emergence)';

COMMENT ON TABLE lab_data_table IS 'Laboratory results, one row per test: preoperative panel, intraoperative blood gas and postoperative panel. Test names are short codes (k, lac, na, hb, gluc, cr, alb, wbc, plt, ph).';
COMMENT ON COLUMN lab_data_table.caseid IS 'Case ID (clinical_data_table.caseid)';
COMMENT ON COLUMN lab_data_table.dt IS 'Time the sample was taken';
COMMENT ON COLUMN lab_data_table.name IS 'Lab test code: k potassium, lac lactate, na sodium, hb hemoglobin, gluc glucose, cr creatinine, alb albumin, wbc white blood cells, plt platelets, ph arterial pH';
COMMENT ON COLUMN lab_data_table.result IS 'Numeric result in the unit of the test (mmol/L, g/dL, mg/dL, 10^3/uL; pH unitless); NULL when the sample was rejected';

COMMENT ON TABLE vital_data_table IS 'Intraoperative vital signs sampled every 5-15 minutes from operation start to end; a few cases have gaps without rows.';
COMMENT ON COLUMN vital_data_table.caseid IS 'Case ID (clinical_data_table.caseid)';
COMMENT ON COLUMN vital_data_table.dt IS 'Measurement time';
COMMENT ON COLUMN vital_data_table.sbp IS 'Systolic blood pressure, mmHg';
COMMENT ON COLUMN vital_data_table.dbp IS 'Diastolic blood pressure, mmHg';
COMMENT ON COLUMN vital_data_table.mbp IS 'Mean blood pressure (mean arterial pressure), mmHg';
COMMENT ON COLUMN vital_data_table.hr IS 'Heart rate, beats per minute';
COMMENT ON COLUMN vital_data_table.spo2 IS 'Peripheral oxygen saturation (pulse oximetry), %';
COMMENT ON COLUMN vital_data_table.bt IS 'Body temperature, degrees Celsius (often not recorded)';
COMMENT ON COLUMN vital_data_table.rr IS 'Respiratory rate, breaths per minute';

COMMENT ON TABLE medication_data_table IS 'Drugs and fluids given during the case: anaesthetics, antibiotics, fluids and vasopressors, one row per administration.';
COMMENT ON COLUMN medication_data_table.caseid IS 'Case ID (clinical_data_table.caseid)';
COMMENT ON COLUMN medication_data_table.dt IS 'Administration time';
COMMENT ON COLUMN medication_data_table.drug IS 'Drug name (lower case generic name), e.g. phenylephrine, ephedrine, norepinephrine, cefazolin, propofol, plasma solution a';
COMMENT ON COLUMN medication_data_table.dose IS 'Dose given, in unit';
COMMENT ON COLUMN medication_data_table.unit IS 'Dose unit: mg, mcg, g, mL, mcg/kg/min (infusion rate)';
COMMENT ON COLUMN medication_data_table.route IS 'Route of administration: IV intravenous';

COMMENT ON TABLE diagnosis_table IS 'Diagnoses (ICD-10) per patient; subject_id matches clinical_data_table.subjectid (not declared as a foreign key because subjectid is not unique there).';
COMMENT ON COLUMN diagnosis_table.subject_id IS 'Subject (patient) ID, same as clinical_data_table.subjectid';
COMMENT ON COLUMN diagnosis_table.code IS 'ICD-10 diagnosis code, e.g. I10 hypertension, E11.9 type 2 diabetes, C16.9 stomach cancer';
COMMENT ON COLUMN diagnosis_table.name IS 'ICD-10 diagnosis name (English)';
