-- load.sql: the deterministic VitalDB-shaped demo clinical database (run: psql -d demo -v scale=1 -f load.sql).
--
-- Every value comes from random() after setseed(), evaluated over generate_series in single-table
-- INSERT ... SELECT statements (never parallel), so the same scale gives the same rows everywhere.
-- :scale multiplies the number of cases (6,388 per unit).  Anchor ("now" of the data set):
-- 2025-12-31 23:59:00; the last 64*scale cases end within 60 hours before it (see README.md).
\set ON_ERROR_STOP on
\if :{?scale}
\else
\set scale 1
\endif
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;

BEGIN;
DROP TABLE IF EXISTS medication_data_table, vital_data_table, lab_data_table, diagnosis_table,
	clinical_data_table CASCADE;

SELECT setseed(0.20251231) AS _seeded \gset

-- normal deviate (Box-Muller); 1 - random() is in (0, 1] so ln() is defined
CREATE FUNCTION pg_temp.rnorm(mu double precision, sd double precision) RETURNS double precision
LANGUAGE sql VOLATILE AS
$$ SELECT mu + sd * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) $$;

-- operation catalogue: department, optype, diagnosis, operation, ICD-10, weight, mean minutes, sex
CREATE TEMP TABLE ops (id int, department text, optype text, dx text, opname text,
	icd text, icd_name text, w int, dur int, sex text, lo double precision, hi double precision);
INSERT INTO ops (id, department, optype, dx, opname, icd, icd_name, w, dur, sex) VALUES
 (1, 'General surgery', 'Colorectal', 'Rectal cancer', 'Low anterior resection', 'C20', 'Malignant neoplasm of rectum', 10, 200, NULL),
 (2, 'General surgery', 'Colorectal', 'Colon cancer', 'Right hemicolectomy', 'C18.9', 'Malignant neoplasm of colon, unspecified', 10, 180, NULL),
 (3, 'General surgery', 'Stomach', 'Stomach cancer', 'Distal gastrectomy', 'C16.9', 'Malignant neoplasm of stomach, unspecified', 12, 190, NULL),
 (4, 'General surgery', 'Biliary/Pancreas', 'Gallbladder stone', 'Cholecystectomy', 'K80.2', 'Calculus of gallbladder without cholecystitis', 10, 70, NULL),
 (5, 'General surgery', 'Biliary/Pancreas', 'Pancreatic cancer', 'Pylorus-preserving pancreaticoduodenectomy', 'C25.0', 'Malignant neoplasm of head of pancreas', 4, 360, NULL),
 (6, 'General surgery', 'Hepatic', 'Hepatocellular carcinoma', 'Hepatectomy', 'C22.0', 'Liver cell carcinoma', 5, 260, NULL),
 (7, 'General surgery', 'Breast', 'Breast cancer', 'Breast-conserving surgery', 'C50.9', 'Malignant neoplasm of breast, unspecified', 8, 90, 'F'),
 (8, 'General surgery', 'Thyroid', 'Thyroid cancer', 'Total thyroidectomy', 'C73', 'Malignant neoplasm of thyroid gland', 9, 110, NULL),
 (9, 'General surgery', 'Transplantation', 'End-stage liver disease', 'Liver transplantation', 'K74.6', 'Other and unspecified cirrhosis of liver', 2, 480, NULL),
 (10, 'General surgery', 'Vascular', 'Abdominal aortic aneurysm', 'Aneurysm repair', 'I71.4', 'Abdominal aortic aneurysm, without rupture', 2, 240, NULL),
 (11, 'General surgery', 'Minor resection', 'Inguinal hernia', 'Herniorrhaphy', 'K40.9', 'Unilateral inguinal hernia without obstruction or gangrene', 6, 60, NULL),
 (12, 'General surgery', 'Others', 'Acute appendicitis', 'Appendectomy', 'K35.8', 'Acute appendicitis, other and unspecified', 5, 60, NULL),
 (13, 'Thoracic surgery', 'Major resection', 'Lung cancer', 'Lobectomy', 'C34.9', 'Malignant neoplasm of bronchus or lung, unspecified', 9, 180, NULL),
 (14, 'Thoracic surgery', 'Minor resection', 'Pneumothorax', 'Wedge resection', 'J93.1', 'Other spontaneous pneumothorax', 3, 70, NULL),
 (15, 'Urology', 'Major resection', 'Prostate cancer', 'Radical prostatectomy', 'C61', 'Malignant neoplasm of prostate', 4, 200, 'M'),
 (16, 'Urology', 'Minor resection', 'Kidney stone', 'Ureteroscopic lithotripsy', 'N20.0', 'Calculus of kidney', 3, 60, NULL),
 (17, 'Gynecology', 'Others', 'Uterine leiomyoma', 'Hysterectomy', 'D25.9', 'Leiomyoma of uterus, unspecified', 5, 130, 'F'),
 (18, 'Gynecology', 'Others', 'Ovarian cyst', 'Ovarian cystectomy', 'N83.2', 'Other and unspecified ovarian cysts', 3, 80, 'F');
UPDATE ops o SET lo = c.lo, hi = c.hi FROM (
	SELECT id, (sum(w) OVER (ORDER BY id) - w)::float8 / sum(w) OVER () AS lo,
	       sum(w) OVER (ORDER BY id)::float8 / sum(w) OVER () AS hi FROM ops) c
WHERE o.id = c.id;

-- per-case generation parameters (minutes are relative to the previous milestone)
CREATE TEMP TABLE g AS
SELECT i AS caseid, random() AS r_op, random() AS r_sex, random() AS r_hypo, random() AS r_gap,
       random() AS r_lac, random() AS r_misc, random() AS r_day, random() AS r_tod,
       pg_temp.rnorm(0, 1) AS z_age, pg_temp.rnorm(0, 1) AS z_h, pg_temp.rnorm(0, 1) AS z_bmi,
       pg_temp.rnorm(0, 1) AS z_dur, 5 + 5 * floor(random() * 3)::int AS vstep,
       (5 + random() * 10)::int AS m_ane, (15 + random() * 25)::int AS m_op,
       (5 + random() * 15)::int AS m_aneend, (5 + random() * 10)::int AS m_caseend,
       pg_temp.rnorm(122, 10) AS base_sbp, pg_temp.rnorm(76, 9) AS base_hr
FROM generate_series(1, 6388 * :scale) i;
ALTER TABLE g ADD PRIMARY KEY (caseid);
ALTER TABLE g ADD op int, ADD sex text, ADD age int, ADD dur int, ADD hypo boolean,
	ADD hs int, ADD hl int, ADD gap boolean, ADD gs int, ADD gl int, ADD high_lac boolean,
	ADD casestart timestamp, ADD recent boolean;
UPDATE g SET op = o.id, sex = coalesce(o.sex, CASE WHEN g.r_sex < 0.5 THEN 'F' ELSE 'M' END),
	dur = greatest(25, round(o.dur * exp(0.3 * g.z_dur)))::int,
	age = greatest(18, least(92, round(58 + 14 * g.z_age)))::int
FROM ops o WHERE g.r_op >= o.lo AND g.r_op < o.hi;
-- hypotension is likelier in long operations and old patients
UPDATE g SET hypo = r_hypo < 0.08 + CASE WHEN dur > 200 THEN 0.12 ELSE 0 END
                             + CASE WHEN age >= 70 THEN 0.08 ELSE 0 END,
	gap = r_gap < 0.03 AND dur >= 150,
	recent = caseid > 6388 * :scale - 64 * :scale;
UPDATE g SET hs = (10 + (r_misc * greatest(dur - 40, 1)))::int, hl = 10 + (r_misc * 1000)::int % 26,
	high_lac = CASE WHEN hypo THEN r_lac < 0.75 ELSE r_lac < 0.04 END,
	gs = (dur * 0.3)::int, gl = 60 + (r_gap * 1000)::int % 61;
-- timestamps: uniform over 2023-01-01 .. 2025-12-29, 07:30-16:30; the recent slice ends before the anchor
UPDATE g SET casestart = CASE WHEN recent
	THEN timestamp '2025-12-31 23:59:00'
	     - make_interval(mins => m_ane + m_op + dur + m_aneend + m_caseend + 5 + (r_day * 3300)::int)
	ELSE timestamp '2023-01-01 07:30:00' + make_interval(days => (r_day * 1093)::int,
	     mins => (r_tod * 540)::int) END;
-- the two documented cases: 1 = hypotension + high lactate + vasopressors, 2 = uneventful
UPDATE g SET op = 3, sex = 'M', age = 74, dur = 180, vstep = 5, hypo = true, hs = 60, hl = 30,
	high_lac = true, gap = false, casestart = timestamp '2025-12-31 08:00:00',
	m_ane = 10, m_op = 20, m_aneend = 10, m_caseend = 10 WHERE caseid = 1;
UPDATE g SET op = 4, sex = 'F', age = 45, dur = 75, vstep = 5, hypo = false, high_lac = false,
	gap = false, casestart = timestamp '2025-12-31 09:00:00', z_h = 0, z_bmi = 0,
	base_sbp = 118, base_hr = 72, m_ane = 10, m_op = 20, m_aneend = 10, m_caseend = 10,
	r_misc = 0.5 WHERE caseid = 2;

CREATE TABLE clinical_data_table (
	caseid       integer PRIMARY KEY,
	subjectid    integer NOT NULL,
	age          integer,
	sex          char(1) CHECK (sex IN ('F', 'M')),
	height       real,
	weight       real,
	bmi          real,
	asa          smallint CHECK (asa BETWEEN 1 AND 6),
	department   text NOT NULL,
	optype       text,
	dx           text,
	opname       text,
	approach     text,
	ane_type     text,
	preop_htn    smallint CHECK (preop_htn IN (0, 1)),
	preop_dm     smallint CHECK (preop_dm IN (0, 1)),
	icu_days     integer,
	death_inhosp smallint CHECK (death_inhosp IN (0, 1)),
	casestart    timestamp NOT NULL,
	caseend      timestamp NOT NULL,
	opstart      timestamp,
	opend        timestamp,
	anestart     timestamp,
	aneend       timestamp
);

INSERT INTO clinical_data_table
SELECT g.caseid,
	-- about 10% of cases belong to a patient who also has another case; case 1 and 2 are different patients
	CASE WHEN g.caseid <= 2 OR random() < 0.9 THEN 100000 + g.caseid
	     ELSE 100000 + 3 + floor(random() * (6388 * :scale - 3))::int END,
	g.age, g.sex,
	CASE WHEN g.caseid <> 2 AND random() < 0.01 THEN NULL
	     ELSE round((CASE g.sex WHEN 'M' THEN 171 ELSE 158 END + 6 * g.z_h)::numeric, 1) END,
	NULL, NULL,
	CASE WHEN g.caseid <> 2 AND random() < 0.03 THEN NULL
	     WHEN g.age >= 75 OR o.id IN (5, 9, 10) THEN 3 ELSE 1 + floor(random() * 2.6)::int END,
	o.department, o.optype, o.dx, o.opname,
	CASE WHEN o.id IN (9, 10, 5) THEN 'Open' WHEN random() < 0.15 THEN 'Robotic'
	     WHEN random() < 0.6 THEN 'Videoscopic' ELSE 'Open' END,
	CASE WHEN o.id = 16 AND random() < 0.4 THEN 'Spinal'
	     WHEN o.id IN (11, 16) AND random() < 0.1 THEN 'Sedationalgesia' ELSE 'General' END,
	CASE WHEN g.caseid = 2 THEN 0 WHEN random() < 0.08 + g.age * 0.004 THEN 1 ELSE 0 END,
	CASE WHEN g.caseid = 2 THEN 0 WHEN random() < 0.04 + g.age * 0.002 THEN 1 ELSE 0 END,
	CASE WHEN g.caseid = 2 THEN 0
	     WHEN o.id = 9 THEN 2 + floor(random() * 6)::int
	     WHEN g.hypo AND random() < 0.35 THEN 1 + floor(random() * 4)::int
	     WHEN random() < 0.04 THEN 1 + floor(random() * 3)::int ELSE 0 END,
	CASE WHEN g.caseid <= 2 THEN 0 WHEN random() < CASE WHEN g.hypo THEN 0.03 ELSE 0.006 END THEN 1 ELSE 0 END,
	g.casestart,
	g.casestart + make_interval(mins => g.m_ane + g.m_op + g.dur + g.m_aneend + g.m_caseend),
	g.casestart + make_interval(mins => g.m_ane + g.m_op),
	g.casestart + make_interval(mins => g.m_ane + g.m_op + g.dur),
	g.casestart + make_interval(mins => g.m_ane),
	g.casestart + make_interval(mins => g.m_ane + g.m_op + g.dur + g.m_aneend)
FROM g JOIN ops o ON o.id = g.op
ORDER BY g.caseid;
UPDATE clinical_data_table c SET
	weight = round((greatest(15, 23.5 + 3.5 * g.z_bmi) * (c.height / 100) ^ 2)::numeric, 1)
FROM g WHERE g.caseid = c.caseid AND c.height IS NOT NULL AND (c.caseid = 2 OR random() >= 0.01);
UPDATE clinical_data_table SET bmi = round((weight / (height / 100) ^ 2)::numeric, 1)
WHERE weight IS NOT NULL AND height IS NOT NULL;

-- vitals every vstep minutes during the operation, with a gap (no rows) in a few cases
CREATE TABLE vital_data_table (
	caseid integer NOT NULL,
	dt     timestamp NOT NULL,
	sbp    real,
	dbp    real,
	mbp    real,
	hr     real,
	spo2   real,
	bt     real,
	rr     real
);
INSERT INTO vital_data_table (caseid, dt, sbp, hr, spo2, bt, rr)
SELECT g.caseid, c.opstart + make_interval(mins => m, secs => (random() * 50)::int),
	CASE WHEN g.caseid <> 2 AND random() < 0.02 THEN NULL
	     WHEN g.hypo AND m BETWEEN g.hs AND g.hs + g.hl THEN round(68 + random() * 20)
	     WHEN g.hypo AND m BETWEEN g.hs - 10 AND g.hs + g.hl + 15 THEN round(88 + random() * 14)
	     ELSE round(greatest(96, least(182, pg_temp.rnorm(g.base_sbp, 9)))) END,
	CASE WHEN g.caseid <> 2 AND random() < 0.015 THEN NULL
	     ELSE round(greatest(48, least(135, pg_temp.rnorm(g.base_hr, 7)
	          + CASE WHEN g.hypo AND m BETWEEN g.hs AND g.hs + g.hl THEN 14 ELSE 0 END))) END,
	CASE WHEN g.caseid <> 2 AND random() < 0.02 THEN NULL
	     ELSE round(greatest(91, least(100, pg_temp.rnorm(98.6, 1.1)))) END,
	CASE WHEN g.caseid = 2 THEN 36.4 WHEN random() < 0.6 THEN NULL
	     ELSE round(pg_temp.rnorm(36.3, 0.35)::numeric, 1) END,
	CASE WHEN g.caseid <> 2 AND random() < 0.1 THEN NULL
	     ELSE round(greatest(8, least(22, pg_temp.rnorm(12, 1.6)))) END
FROM g JOIN clinical_data_table c ON c.caseid = g.caseid,
	generate_series(0, g.dur, g.vstep) m
WHERE NOT (g.gap AND m >= g.gs AND m < g.gs + g.gl)
ORDER BY g.caseid, m;
UPDATE vital_data_table SET dbp = round(greatest(30, sbp * 0.56 + pg_temp.rnorm(0, 4))) WHERE sbp IS NOT NULL;
UPDATE vital_data_table SET mbp = round((sbp + 2 * dbp) / 3) WHERE sbp IS NOT NULL;

-- labs: a preoperative panel, an intraoperative blood gas (always after a hypotension
-- episode, sometimes otherwise) and a postoperative panel for most cases
CREATE TEMP TABLE labdef (name text, mu double precision, sd double precision,
	lo double precision, hi double precision, digits int, preop bool, intra bool, post bool);
INSERT INTO labdef VALUES
 ('k', 4.1, 0.35, 2.5, 7.5, 1, true, true, true),
 ('lac', 1.1, 0.35, 0.3, 12, 1, false, true, false),
 ('na', 139.5, 2.5, 120, 155, 0, true, true, true),
 ('hb', 12.8, 1.7, 5, 19, 1, true, true, true),
 ('gluc', 112, 25, 50, 400, 0, true, true, false),
 ('cr', 0.85, 0.25, 0.3, 8, 2, true, false, true),
 ('alb', 4.0, 0.45, 1.5, 5.5, 1, true, false, false),
 ('wbc', 6.8, 2.0, 1.5, 30, 1, true, false, true),
 ('plt', 235, 60, 20, 700, 0, true, false, true),
 ('ph', 7.40, 0.035, 6.9, 7.6, 2, false, true, false);

CREATE TABLE lab_data_table (
	caseid integer NOT NULL,
	dt     timestamp NOT NULL,
	name   text NOT NULL,
	result double precision
);
WITH ev AS (
	SELECT g.caseid, 'pre' AS kind, c.casestart - make_interval(hours => 2 + (g.r_misc * 70)::int) AS dt
	FROM g JOIN clinical_data_table c USING (caseid)
	UNION ALL
	SELECT g.caseid, 'intra', c.opstart + make_interval(mins => CASE WHEN g.hypo
		THEN least(g.dur, g.hs + g.hl + 5) ELSE g.dur / 2 END)
	FROM g JOIN clinical_data_table c USING (caseid)
	WHERE g.hypo OR (g.dur >= 120 AND g.r_lac > 0.6) OR g.high_lac
	UNION ALL
	SELECT g.caseid, 'post', c.opend + make_interval(hours => 12 + (g.r_gap * 8)::int)
	FROM g JOIN clinical_data_table c USING (caseid)
	WHERE g.r_tod < 0.8 OR g.hypo OR g.caseid = 2
)
INSERT INTO lab_data_table
SELECT ev.caseid, ev.dt, d.name,
	CASE WHEN ev.caseid <> 2 AND random() < 0.01 THEN NULL
	     WHEN ev.caseid = 2 THEN round(d.mu::numeric, d.digits)
	     ELSE round(greatest(d.lo, least(d.hi,
		CASE
		WHEN d.name = 'lac' AND g.high_lac THEN 2.2 + random() * random() * 7
		WHEN d.name = 'ph' AND g.high_lac THEN pg_temp.rnorm(7.31, 0.04)
		WHEN d.name = 'k' AND random() < 0.03 THEN 5.6 + random() * 1.2   -- hyperkalaemia
		WHEN d.name = 'k' AND random() < 0.03 THEN 2.8 + random() * 0.6   -- hypokalaemia
		WHEN d.name = 'hb' AND ev.kind = 'post' AND g.hypo THEN pg_temp.rnorm(10.2, 1.4)
		WHEN d.name = 'cr' AND random() < 0.05 THEN 1.5 + random() * 3
		WHEN d.name = 'gluc' AND random() < 0.08 THEN 180 + random() * 120
		ELSE pg_temp.rnorm(d.mu, d.sd) END))::numeric, d.digits) END
FROM ev JOIN g USING (caseid) JOIN labdef d
	ON (ev.kind = 'pre' AND d.preop) OR (ev.kind = 'intra' AND d.intra) OR (ev.kind = 'post' AND d.post)
ORDER BY ev.caseid, ev.dt, d.name;

-- the data set is a snapshot taken at the anchor: later postoperative samples do not exist yet
DELETE FROM lab_data_table WHERE dt > timestamp '2025-12-31 23:59:00';

-- case 1 is the documented eventful case: make its numbers unambiguous
UPDATE lab_data_table SET result = CASE name WHEN 'lac' THEN 4.8 WHEN 'ph' THEN 7.28 WHEN 'k' THEN 4.3 END
WHERE caseid = 1 AND name IN ('lac', 'ph', 'k') AND dt >= timestamp '2025-12-31 09:00';
UPDATE lab_data_table SET result = 4.2 WHERE caseid = 1 AND name = 'k' AND dt < timestamp '2025-12-31 09:00';

-- medications: routine anaesthesia drugs and fluids for everyone, vasopressors for hypotension
CREATE TABLE medication_data_table (
	caseid integer NOT NULL,
	dt     timestamp NOT NULL,
	drug   text NOT NULL,
	dose   double precision,
	unit   text,
	route  text
);
WITH m AS (
	SELECT g.caseid, c.anestart + interval '1 min' AS dt, 'propofol' AS drug,
		round(100 + g.r_misc * 80) AS dose, 'mg' AS unit, 'IV' AS route
	FROM g JOIN clinical_data_table c USING (caseid) WHERE c.ane_type = 'General'
	UNION ALL
	SELECT g.caseid, c.anestart + interval '2 min', 'rocuronium', 50, 'mg', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE c.ane_type = 'General'
	UNION ALL
	SELECT g.caseid, c.anestart + interval '1 min', 'fentanyl', 50 + 50 * (g.r_lac > 0.5)::int, 'mcg', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid)
	UNION ALL
	SELECT g.caseid, c.anestart + interval '5 min', 'cefazolin', 2, 'g', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE g.r_gap < 0.92 OR g.caseid <= 2
	UNION ALL
	SELECT g.caseid, c.anestart + interval '245 min', 'cefazolin', 1, 'g', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE g.dur > 240 AND g.r_gap < 0.92
	UNION ALL
	SELECT g.caseid, c.anestart + make_interval(mins => 3 + f), 'plasma solution a', 500, 'mL', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid), generate_series(0, g.dur, 60) f
	UNION ALL
	SELECT g.caseid, c.opstart + make_interval(mins => g.hs + f), 'phenylephrine',
		50 * (1 + floor(g.r_lac * 4)), 'mcg', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid),
		generate_series(0, 4 * (2 + (g.r_misc * 100)::int % 4), 4) f WHERE g.hypo
	UNION ALL
	SELECT g.caseid, c.opstart + make_interval(mins => g.hs + 2), 'ephedrine',
		5 + 5 * (g.r_sex > 0.5)::int, 'mg', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE g.hypo AND (g.r_tod < 0.6 OR g.caseid = 1)
	UNION ALL
	SELECT g.caseid, c.opstart + make_interval(mins => g.hs + 8), 'norepinephrine',
		round((0.05 + g.r_gap * 0.15)::numeric, 2), 'mcg/kg/min', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE g.hypo AND (g.r_day < 0.3 OR g.caseid = 1)
	UNION ALL
	SELECT g.caseid, c.opstart + make_interval(mins => g.hs + 6), 'hydroxyethyl starch', 500, 'mL', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE g.hypo AND (g.r_sex < 0.4 OR g.caseid = 1)
	UNION ALL
	-- a single post-induction ephedrine in a few uneventful cases
	SELECT g.caseid, c.anestart + interval '8 min', 'ephedrine', 5, 'mg', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE NOT g.hypo AND g.r_sex > 0.92 AND g.caseid > 2
	UNION ALL
	SELECT g.caseid, c.opend - interval '10 min', 'ondansetron', 4, 'mg', 'IV'
	FROM g JOIN clinical_data_table c USING (caseid) WHERE g.r_tod > 0.4 OR g.caseid = 2
)
INSERT INTO medication_data_table SELECT * FROM m ORDER BY caseid, dt, drug;

-- diagnoses per patient: the operated condition plus hypertension / diabetes when present
CREATE TABLE diagnosis_table (
	subject_id integer NOT NULL,
	code       text NOT NULL,
	name       text NOT NULL,
	PRIMARY KEY (subject_id, code)
);
INSERT INTO diagnosis_table
SELECT DISTINCT c.subjectid, o.icd, o.icd_name
FROM clinical_data_table c JOIN ops o ON o.dx = c.dx
UNION
SELECT DISTINCT subjectid, 'I10', 'Essential (primary) hypertension' FROM clinical_data_table WHERE preop_htn = 1
UNION
SELECT DISTINCT subjectid, 'E11.9', 'Type 2 diabetes mellitus without complications' FROM clinical_data_table WHERE preop_dm = 1
ORDER BY 1, 2;

ALTER TABLE lab_data_table ADD FOREIGN KEY (caseid) REFERENCES clinical_data_table (caseid);
ALTER TABLE vital_data_table ADD FOREIGN KEY (caseid) REFERENCES clinical_data_table (caseid);
ALTER TABLE medication_data_table ADD FOREIGN KEY (caseid) REFERENCES clinical_data_table (caseid);
CREATE INDEX clinical_subjectid_idx ON clinical_data_table (subjectid);
CREATE INDEX clinical_casestart_idx ON clinical_data_table (casestart);
CREATE INDEX lab_caseid_dt_idx ON lab_data_table (caseid, dt);
CREATE INDEX lab_name_dt_idx ON lab_data_table (name, dt);
CREATE INDEX vital_caseid_dt_idx ON vital_data_table (caseid, dt);
CREATE INDEX vital_dt_idx ON vital_data_table (dt);
CREATE INDEX medication_caseid_dt_idx ON medication_data_table (caseid, dt);
CREATE INDEX medication_drug_idx ON medication_data_table (drug);

\ir comments.sql

COMMIT;
ANALYZE clinical_data_table, lab_data_table, vital_data_table, medication_data_table, diagnosis_table;
