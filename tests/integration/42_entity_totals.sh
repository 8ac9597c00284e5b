#!/usr/bin/env bash
# 42_entity_totals.sh: issue 26, per-stay and per-patient totals and the probe mistakes found with them, on a small schema written here (names of our own): each question checked by execution against gold SQL (docs/architecture.md, "Per-entity totals"); each was declined or answered wrong before.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin entity_totals

# Hospital stays with where they ended, charges billed to a stay, lab results named by a test
# dictionary, drug orders, intensive-care stays inside a hospital stay, cultures with organisms.
psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE person (person_no int PRIMARY KEY, sex text NOT NULL);
CREATE TABLE hospital_admission (adm_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  admitted timestamp NOT NULL, discharged timestamp, discharge_place text);
COMMENT ON TABLE hospital_admission IS 'hospital admissions of patients';
COMMENT ON COLUMN hospital_admission.discharge_place IS 'where the patient went at discharge';
CREATE TABLE charge (charge_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int NOT NULL REFERENCES hospital_admission, charged timestamp NOT NULL, cost numeric NOT NULL);
COMMENT ON TABLE charge IS 'charges billed during hospital admissions';
CREATE TABLE test_item (test_no int PRIMARY KEY, test_label text NOT NULL);
CREATE TABLE lab_result (result_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int NOT NULL REFERENCES hospital_admission, test_no int NOT NULL REFERENCES test_item,
  value numeric, taken timestamp NOT NULL);
COMMENT ON TABLE lab_result IS 'laboratory test results';
CREATE TABLE drug_order (order_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int NOT NULL REFERENCES hospital_admission, drug text NOT NULL, ordered timestamp NOT NULL);
COMMENT ON TABLE drug_order IS 'medication orders';
CREATE TABLE icu_stay (icu_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int NOT NULL REFERENCES hospital_admission, icu_in timestamp NOT NULL, icu_out timestamp);
COMMENT ON TABLE icu_stay IS 'ICU stays (intensive care unit)';
CREATE TABLE culture (culture_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int REFERENCES hospital_admission, organism text, taken timestamp NOT NULL);
COMMENT ON TABLE culture IS 'microbiology cultures';
INSERT INTO person SELECT g, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END FROM generate_series(1, 12) g;
INSERT INTO hospital_admission SELECT g, 1 + (g % 12), timestamp '2025-01-01' + g * interval '8 days',
  CASE WHEN g > 28 THEN NULL ELSE timestamp '2025-01-04' + g * interval '8 days' + g * interval '3 hours' END,
  CASE WHEN g > 28 THEN NULL ELSE (ARRAY['home', 'rehab', 'died'])[1 + g % 3] END FROM generate_series(1, 30) g;
INSERT INTO charge SELECT g, a.person_no, a.adm_no, a.admitted + (g % 3) * interval '1 day', 10 * (1 + g % 7)
  FROM generate_series(1, 120) g JOIN hospital_admission a ON a.adm_no = 1 + (g * 7) % 30;
INSERT INTO test_item VALUES (1, 'potassium'), (2, 'sodium'), (3, 'lactate');
INSERT INTO lab_result SELECT g, a.person_no, a.adm_no, 1 + (g % 3), 3 + (g % 5), a.admitted + interval '2 hours'
  FROM generate_series(1, 90) g JOIN hospital_admission a ON a.adm_no = 1 + (g * 11) % 30;
INSERT INTO drug_order SELECT g, a.person_no, a.adm_no, (ARRAY['heparin', 'cefazolin', 'insulin'])[1 + g % 3],
  a.admitted + interval '3 hours' FROM generate_series(1, 45) g JOIN hospital_admission a ON a.adm_no = 1 + (g * 13) % 30;
INSERT INTO icu_stay SELECT g, a.person_no, a.adm_no, a.admitted + interval '5 hours',
  a.admitted + interval '5 hours' + (10 + g) * interval '1 hour' FROM generate_series(1, 14) g
  JOIN hospital_admission a ON a.adm_no = 1 + (g % 10);
INSERT INTO culture SELECT g, 1 + (g % 12), 1 + (g % 30), CASE WHEN g % 3 = 0 THEN NULL ELSE
  (ARRAY['staph aureus', 'e. coli'])[1 + g % 2] END, timestamp '2025-01-02' + g * interval '5 days' FROM generate_series(1, 60) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "what is the maximum total cost of a hospital admission that included a potassium lab test?", "gold_sql": "SELECT max(t) FROM (SELECT sum(cost) t FROM charge WHERE adm_no IN (SELECT adm_no FROM lab_result JOIN test_item USING (test_no) WHERE test_label = 'potassium') GROUP BY adm_no) x", "rule": "a per-stay total, then the largest; the test is a condition on the same stay"}
{"question": "average total cost of hospital admissions with the drug named heparin", "gold_sql": "SELECT avg(t) FROM (SELECT sum(cost) t FROM charge WHERE adm_no IN (SELECT adm_no FROM drug_order WHERE drug = 'heparin') GROUP BY adm_no) x", "rule": "the column word of a value on another table (drug) is not a column to show"}
{"question": "what is the average total cost per hospital admission?", "gold_sql": "SELECT avg(t) FROM (SELECT sum(cost) t FROM charge GROUP BY adm_no) x", "rule": "the average of the stays' totals, not of the charges"}
{"question": "average number of lab results per admission", "gold_sql": "SELECT avg(n) FROM (SELECT count(*) n FROM lab_result GROUP BY adm_no) x", "rule": "rows counted per stay, then averaged (not the results' value)"}
{"question": "maximum number of drug orders per patient", "gold_sql": "SELECT max(n) FROM (SELECT count(*) n FROM drug_order GROUP BY person_no) x", "rule": "rows counted per patient, then the largest count"}
{"question": "among patients with at least 3 drug orders, what is the average number of drug orders per patient?", "gold_sql": "SELECT avg(n) FROM (SELECT count(*) n FROM drug_order GROUP BY person_no HAVING count(*) >= 3) x", "rule": "among those with N or more: the counts kept, then averaged (not a list of patients)"}
{"question": "average total cost per hospital admission by sex", "expect": "declined_ok", "rule": "per-stay totals within a breakdown are declined, not guessed"}
{"question": "Where was patient 5 discharged to after the first hospital admission?", "gold_sql": "SELECT discharge_place FROM hospital_admission WHERE person_no = 5 AND discharged IS NOT NULL ORDER BY admitted LIMIT 1", "rule": "where: the place of the event, not its time"}
{"question": "Which patients had two or more ICU stays within a single hospital admission?", "expect": "declined_ok", "rule": "the rows counted (ICU stays) are not the admissions' rows: declined, not admissions counted"}
{"question": "Which lab tests were done more than 30 times?", "gold_sql": "SELECT test_label FROM lab_result JOIN test_item USING (test_no) GROUP BY test_label HAVING count(*) > 30", "rule": "which lab tests: the tests' label, not the patients"}
{"question": "Which organisms were reported in at least 15 cultures?", "gold_sql": "SELECT organism FROM culture WHERE organism IS NOT NULL GROUP BY organism HAVING count(*) >= 15", "rule": "an empty organism is no organism"}
{"question": "How long, in hours, was patient 3 in the ICU?", "gold_sql": "SELECT extract(epoch FROM icu_out - icu_in) / 3600 FROM icu_stay WHERE person_no = 3", "rule": "in hours: the unit asked, not days"}
{"question": "which patients died since 2025-06-01 according to the discharge place?", "gold_sql": "SELECT DISTINCT person_no FROM hospital_admission WHERE discharge_place = 'died' AND discharged >= '2025-06-01'", "rule": "the window is of the event the value belongs to (discharged), not the admission"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 13 ] || nok "thirteen questions were scored (got $n)"
# the restatement says what is totalled and per what
own_schema_expect "MAX of the total cost per adm_no, where the same patient or stay has test_label = 'potassium'" \
	"the restatement names the per-stay total and the test" \
	"what is the maximum total cost of a hospital admission that included a potassium lab test?"
echo "1..$n"
