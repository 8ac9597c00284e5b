-- guard_ordinary.sql: analyst queries on the demo schema the SQL guard must allow, records separated by a line "-- @@".
-- @@
SELECT * FROM clinical_data_table
-- @@
SELECT caseid, age, sex, department FROM clinical_data_table WHERE age >= 65 ORDER BY age DESC
-- @@
SELECT count(*) FROM clinical_data_table
-- @@
SELECT department, count(*) AS n FROM clinical_data_table GROUP BY department ORDER BY n DESC
-- @@
SELECT sex, avg(age) AS mean_age, stddev(age) AS sd_age FROM clinical_data_table GROUP BY sex
-- @@
SELECT c.caseid, c.subjectid, avg(v.hr) AS mean_hr
FROM clinical_data_table c
JOIN vital_data_table v ON v.caseid = c.caseid
GROUP BY c.caseid, c.subjectid
ORDER BY mean_hr DESC
LIMIT 20
-- @@
SELECT c.subjectid, avg(v.hr) AS avg_hr FROM clinical_data_table c JOIN vital_data_table v USING (caseid) GROUP BY c.subjectid
-- @@
SELECT caseid, min(sbp) AS lowest_sbp FROM vital_data_table GROUP BY caseid HAVING min(sbp) < 90
-- @@
SELECT DISTINCT v.caseid FROM vital_data_table v WHERE v.sbp < 90
-- @@
WITH hypo AS (
	SELECT DISTINCT caseid FROM vital_data_table WHERE sbp < 90
)
SELECT l.caseid, l.dt, l.result AS potassium
FROM lab_data_table l JOIN hypo h ON h.caseid = l.caseid
WHERE l.name = 'k'
ORDER BY l.caseid, l.dt
-- @@
SELECT name, count(*) AS n, avg(result) AS mean, min(result), max(result) FROM lab_data_table GROUP BY name ORDER BY name
-- @@
SELECT caseid, dt, result FROM lab_data_table WHERE name = 'lac' AND result > 4 ORDER BY result DESC
-- @@
SELECT date_trunc('month', casestart) AS month, count(*) AS cases FROM clinical_data_table GROUP BY 1 ORDER BY 1
-- @@
SELECT date_trunc('week', opstart) AS wk, department, count(*) FROM clinical_data_table GROUP BY wk, department ORDER BY wk, department
-- @@
SELECT caseid, opend - opstart AS op_duration FROM clinical_data_table WHERE opend - opstart > interval '4 hours'
-- @@
SELECT caseid, extract(epoch FROM (aneend - anestart)) / 60 AS anesthesia_minutes FROM clinical_data_table ORDER BY 2 DESC NULLS LAST
-- @@
SELECT caseid, dt, hr, avg(hr) OVER (PARTITION BY caseid ORDER BY dt ROWS BETWEEN 4 PRECEDING AND CURRENT ROW) AS hr_ma5 FROM vital_data_table WHERE caseid = 1
-- @@
SELECT caseid, dt, sbp, lag(sbp) OVER (PARTITION BY caseid ORDER BY dt) AS prev_sbp FROM vital_data_table WHERE caseid IN (1, 2)
-- @@
SELECT caseid, dt, result, row_number() OVER (PARTITION BY caseid ORDER BY dt DESC) AS rn FROM lab_data_table WHERE name = 'hb'
-- @@
SELECT * FROM (
	SELECT caseid, dt, result, row_number() OVER (PARTITION BY caseid ORDER BY dt DESC) AS rn
	FROM lab_data_table WHERE name = 'cr'
) s WHERE rn = 1
-- @@
SELECT department, caseid, icu_days, rank() OVER (PARTITION BY department ORDER BY icu_days DESC) FROM clinical_data_table WHERE icu_days > 0
-- @@
SELECT caseid, CASE WHEN bmi < 18.5 THEN 'underweight' WHEN bmi < 25 THEN 'normal' WHEN bmi < 30 THEN 'overweight' ELSE 'obese' END AS bmi_class FROM clinical_data_table
-- @@
SELECT CASE WHEN age < 40 THEN '<40' WHEN age < 65 THEN '40-64' ELSE '65+' END AS age_group, count(*), avg(icu_days) FROM clinical_data_table GROUP BY 1 ORDER BY 1
-- @@
SELECT asa, count(*) FILTER (WHERE death_inhosp = 1) AS deaths, count(*) AS total FROM clinical_data_table GROUP BY asa ORDER BY asa
-- @@
SELECT asa, round(100.0 * avg(death_inhosp), 2) AS mortality_pct FROM clinical_data_table GROUP BY asa
-- @@
SELECT preop_htn, preop_dm, count(*) FROM clinical_data_table GROUP BY preop_htn, preop_dm
-- @@
SELECT department, optype, count(*) FROM clinical_data_table GROUP BY ROLLUP (department, optype)
-- @@
SELECT department, sex, count(*) FROM clinical_data_table GROUP BY CUBE (department, sex)
-- @@
SELECT department, ane_type, count(*) FROM clinical_data_table GROUP BY GROUPING SETS ((department), (ane_type), ())
-- @@
SELECT m.drug, count(DISTINCT m.caseid) AS cases, sum(m.dose) AS total_dose FROM medication_data_table m GROUP BY m.drug ORDER BY cases DESC
-- @@
SELECT drug, unit, route, avg(dose) FROM medication_data_table GROUP BY drug, unit, route
-- @@
SELECT m.caseid, m.dt, m.drug, m.dose, m.unit FROM medication_data_table m JOIN clinical_data_table c ON c.caseid = m.caseid WHERE c.department = 'General surgery' ORDER BY m.caseid, m.dt
-- @@
SELECT code, name, count(*) FROM diagnosis_table GROUP BY code, name ORDER BY count(*) DESC
-- @@
SELECT d.code, d.name, c.caseid FROM diagnosis_table d JOIN clinical_data_table c ON c.subjectid = d.subject_id
-- @@
SELECT c.caseid, c.age, d.name AS diagnosis FROM clinical_data_table c LEFT JOIN diagnosis_table d ON d.subject_id = c.subjectid WHERE c.age > 70
-- @@
SELECT c.caseid FROM clinical_data_table c WHERE NOT EXISTS (SELECT 1 FROM lab_data_table l WHERE l.caseid = c.caseid)
-- @@
SELECT c.caseid FROM clinical_data_table c WHERE EXISTS (SELECT 1 FROM medication_data_table m WHERE m.caseid = c.caseid AND m.drug ILIKE '%propofol%')
-- @@
SELECT caseid FROM clinical_data_table WHERE caseid IN (SELECT caseid FROM lab_data_table WHERE name = 'k' AND result > 5.5)
-- @@
SELECT caseid FROM vital_data_table WHERE sbp < 90 INTERSECT SELECT caseid FROM lab_data_table WHERE name = 'lac' AND result > 2
-- @@
SELECT caseid FROM clinical_data_table EXCEPT SELECT caseid FROM vital_data_table
-- @@
SELECT caseid, 'vital' AS src FROM vital_data_table WHERE hr > 120 UNION SELECT caseid, 'lab' FROM lab_data_table WHERE name = 'k' AND result > 6 ORDER BY caseid
-- @@
SELECT caseid, dt FROM vital_data_table UNION ALL SELECT caseid, dt FROM lab_data_table
-- @@
VALUES ('k', 'potassium'), ('na', 'sodium'), ('lac', 'lactate')
-- @@
SELECT * FROM (VALUES ('k', 3.5, 5.0), ('na', 135, 145)) AS ref(name, lo, hi)
-- @@
SELECT l.name, l.result, r.lo, r.hi, l.result NOT BETWEEN r.lo AND r.hi AS abnormal
FROM lab_data_table l
JOIN (VALUES ('k', 3.5, 5.0), ('na', 135.0, 145.0), ('lac', 0.5, 2.0)) AS r(name, lo, hi) ON r.name = l.name
-- @@
TABLE diagnosis_table
-- @@
SELECT caseid, percentile_cont(0.5) WITHIN GROUP (ORDER BY hr) AS median_hr FROM vital_data_table GROUP BY caseid
-- @@
SELECT name, percentile_disc(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY result) FROM lab_data_table GROUP BY name
-- @@
SELECT caseid, string_agg(DISTINCT drug, ', ' ORDER BY drug) AS drugs FROM medication_data_table GROUP BY caseid
-- @@
SELECT caseid, array_agg(name ORDER BY dt) AS labs FROM lab_data_table GROUP BY caseid
-- @@
SELECT caseid, json_agg(json_build_object('dt', dt, 'sbp', sbp) ORDER BY dt) FROM vital_data_table WHERE caseid = 2 GROUP BY caseid
-- @@
SELECT caseid, jsonb_object_agg(name, result) FROM lab_data_table WHERE caseid < 10 GROUP BY caseid
-- @@
SELECT caseid, coalesce(icu_days, 0) AS icu FROM clinical_data_table
-- @@
SELECT caseid, nullif(bmi, 0) FROM clinical_data_table
-- @@
SELECT caseid, greatest(sbp, dbp), least(sbp, dbp) FROM vital_data_table LIMIT 100
-- @@
SELECT caseid, round(weight / ((height / 100) ^ 2))::numeric(5,1) AS bmi_calc FROM clinical_data_table WHERE height > 0
-- @@
SELECT caseid, weight::int, height::numeric(5, 1), CAST(age AS text) FROM clinical_data_table
-- @@
SELECT caseid FROM clinical_data_table WHERE opname ~* 'gastrectomy|colectomy'
-- @@
SELECT caseid, upper(department), lower(opname), length(dx), substring(opname FROM 1 FOR 20) FROM clinical_data_table
-- @@
SELECT caseid FROM clinical_data_table WHERE dx LIKE 'Stomach%' OR dx IS NULL
-- @@
SELECT caseid FROM clinical_data_table WHERE approach IS NOT NULL AND ane_type IN ('General', 'Spinal')
-- @@
SELECT caseid, casestart::date AS day, to_char(casestart, 'YYYY-MM-DD HH24:MI') FROM clinical_data_table
-- @@
SELECT caseid FROM clinical_data_table WHERE casestart >= now() - interval '30 days'
-- @@
SELECT caseid FROM clinical_data_table WHERE casestart BETWEEN '2023-01-01' AND '2023-06-30'
-- @@
SELECT caseid, age(caseend, casestart) FROM clinical_data_table
-- @@
SELECT extract(dow FROM casestart) AS weekday, count(*) FROM clinical_data_table GROUP BY 1 ORDER BY 1
-- @@
SELECT extract(hour FROM opstart) AS start_hour, avg(extract(epoch FROM opend - opstart) / 3600) AS hours FROM clinical_data_table GROUP BY 1
-- @@
SELECT g.day::date, count(c.caseid) FROM generate_series(timestamp '2023-01-01', timestamp '2023-01-31', interval '1 day') AS g(day) LEFT JOIN clinical_data_table c ON c.casestart::date = g.day::date GROUP BY 1 ORDER BY 1
-- @@
SELECT v.caseid, v.dt, v.sbp FROM vital_data_table v JOIN clinical_data_table c ON c.caseid = v.caseid WHERE v.dt BETWEEN c.opstart AND c.opstart + interval '30 minutes'
-- @@
SELECT c.caseid, count(*) FILTER (WHERE v.sbp < 90) AS hypo_minutes, count(*) AS total FROM clinical_data_table c JOIN vital_data_table v ON v.caseid = c.caseid GROUP BY c.caseid
-- @@
WITH per_case AS (
	SELECT caseid, avg(mbp) AS mbp, min(spo2) AS min_spo2 FROM vital_data_table GROUP BY caseid
), outcome AS (
	SELECT caseid, death_inhosp, icu_days FROM clinical_data_table
)
SELECT o.death_inhosp, avg(p.mbp), avg(p.min_spo2), avg(o.icu_days)
FROM per_case p JOIN outcome o USING (caseid)
GROUP BY o.death_inhosp
-- @@
WITH RECURSIVE days(d) AS (
	SELECT date '2023-01-01'
	UNION ALL
	SELECT d + 1 FROM days WHERE d < date '2023-01-10'
)
SELECT d, (SELECT count(*) FROM clinical_data_table c WHERE c.casestart::date = d) FROM days
-- @@
WITH last_lab AS (
	SELECT DISTINCT ON (caseid, name) caseid, name, result, dt FROM lab_data_table ORDER BY caseid, name, dt DESC
)
SELECT * FROM last_lab WHERE name IN ('k', 'na')
-- @@
SELECT DISTINCT ON (caseid) caseid, dt, hr FROM vital_data_table ORDER BY caseid, dt
-- @@
SELECT c.caseid, x.max_lac FROM clinical_data_table c CROSS JOIN LATERAL (SELECT max(result) AS max_lac FROM lab_data_table l WHERE l.caseid = c.caseid AND l.name = 'lac') x
-- @@
SELECT c.caseid, v.* FROM clinical_data_table c LEFT JOIN LATERAL (SELECT hr, dt FROM vital_data_table v WHERE v.caseid = c.caseid ORDER BY dt DESC LIMIT 1) v ON true
-- @@
SELECT c.caseid, l.result AS k, v.sbp, m.drug
FROM clinical_data_table c
JOIN lab_data_table l ON l.caseid = c.caseid AND l.name = 'k'
JOIN vital_data_table v ON v.caseid = c.caseid
LEFT JOIN medication_data_table m ON m.caseid = c.caseid
WHERE v.sbp < 90
-- @@
SELECT c.department, avg(l.result) FILTER (WHERE l.name = 'hb') AS hb, avg(l.result) FILTER (WHERE l.name = 'gluc') AS gluc FROM clinical_data_table c JOIN lab_data_table l USING (caseid) GROUP BY c.department
-- @@
SELECT caseid, max(result) FILTER (WHERE name = 'k') AS k, max(result) FILTER (WHERE name = 'na') AS na FROM lab_data_table GROUP BY caseid
-- @@
SELECT caseid, corr(sbp, hr) FROM vital_data_table GROUP BY caseid HAVING count(*) > 10
-- @@
SELECT width_bucket(age, 0, 100, 10) AS bucket, count(*) FROM clinical_data_table GROUP BY 1 ORDER BY 1
-- @@
SELECT ntile(4) OVER (ORDER BY bmi) AS quartile, caseid, bmi FROM clinical_data_table WHERE bmi IS NOT NULL
-- @@
SELECT caseid, dt, result, result - first_value(result) OVER w AS delta FROM lab_data_table WHERE name = 'cr' WINDOW w AS (PARTITION BY caseid ORDER BY dt)
-- @@
SELECT caseid, sum(dose) OVER (PARTITION BY caseid ORDER BY dt RANGE BETWEEN interval '1 hour' PRECEDING AND CURRENT ROW) FROM medication_data_table
-- @@
SELECT department, count(*) * 100.0 / sum(count(*)) OVER () AS pct FROM clinical_data_table GROUP BY department
-- @@
SELECT caseid, bool_or(spo2 < 90) AS desaturation FROM vital_data_table GROUP BY caseid
-- @@
SELECT caseid FROM vital_data_table GROUP BY caseid HAVING every(hr BETWEEN 50 AND 100)
-- @@
SELECT c.caseid, c.opname FROM clinical_data_table c WHERE c.caseid = ANY (ARRAY[1, 2, 3])
-- @@
SELECT caseid, (SELECT count(*) FROM lab_data_table l WHERE l.caseid = c.caseid) AS n_labs FROM clinical_data_table c ORDER BY n_labs DESC
-- @@
SELECT caseid, sbp, hr FROM vital_data_table WHERE (sbp, hr) < (90, 100) FETCH FIRST 50 ROWS ONLY
-- @@
SELECT caseid, dt FROM vital_data_table ORDER BY dt DESC OFFSET 10 LIMIT 10
-- @@
SELECT * FROM lab_data_table TABLESAMPLE BERNOULLI (1) REPEATABLE (42)
-- @@
SELECT current_date, current_timestamp, localtimestamp
-- @@
SELECT now() - max(casestart) AS since_last_case FROM clinical_data_table
-- @@
SELECT sex, count(*) FROM clinical_data_table WHERE age IS NOT DISTINCT FROM 50 GROUP BY sex
-- @@
-- cases with intraoperative hypotension and their lactate
SELECT c.caseid, c.age, max(l.result) AS max_lactate -- peak value
FROM clinical_data_table c
JOIN lab_data_table l ON l.caseid = c.caseid
WHERE l.name = 'lac'
  AND c.caseid IN (SELECT caseid FROM vital_data_table WHERE mbp < 65)
GROUP BY c.caseid, c.age;
-- @@
/* 환자별 평균 심박수 */ SELECT c.subjectid AS "환자", avg(v.hr) AS "평균 심박수" FROM clinical_data_table c JOIN vital_data_table v ON v.caseid = c.caseid GROUP BY c.subjectid
-- @@
SELECT 'it''s' AS a, $$dollar ; quoted$$ AS b, E'tab\t' AS c, U&'\0041' AS d
-- @@
SELECT c.caseid, c.department, l.name, avg(l.result) AS mean
FROM clinical_data_table AS c
INNER JOIN lab_data_table AS l USING (caseid)
WHERE l.dt >= c.casestart - interval '1 day'
GROUP BY ROLLUP (c.department, l.name), c.caseid
ORDER BY c.department NULLS FIRST
-- @@
SELECT caseid, to_char(avg(hr), 'FM999.0') FROM vital_data_table WHERE dt::time BETWEEN '08:00' AND '18:00' GROUP BY caseid
