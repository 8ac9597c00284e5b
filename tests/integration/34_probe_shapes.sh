#!/usr/bin/env bash
# 34_probe_shapes.sh: issue 26, the mistakes the EHRSQL-style probes found, on a small schema written here (names of our own): each question is checked by execution against gold SQL, and each fails on the planner before the fix (docs/coverage.md, "Probe findings").
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin probe_shapes

# A hospital stay, its unit moves, its intensive-care stays (first and last unit kept apart),
# cultures whose organism is empty when nothing grew, and charted outputs named by a dictionary.
psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE person (person_no int PRIMARY KEY, sex text NOT NULL);
CREATE TABLE org_unit (unit_code text PRIMARY KEY, unit_label text NOT NULL);
COMMENT ON TABLE org_unit IS 'departments and wards (codes)';
CREATE TABLE hospital_admission (adm_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  admit_kind text NOT NULL, admit_age int NOT NULL, admitted timestamp NOT NULL, discharged timestamp,
  dept_code text REFERENCES org_unit, ward_code text);
COMMENT ON COLUMN hospital_admission.dept_code IS 'department code';
COMMENT ON COLUMN hospital_admission.ward_code IS 'ward code';
COMMENT ON TABLE hospital_admission IS 'hospital admissions of patients';
COMMENT ON COLUMN hospital_admission.admit_kind IS 'admission type';
CREATE TABLE unit_move (move_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int REFERENCES hospital_admission, careunit text, move_in timestamp NOT NULL, move_out timestamp);
COMMENT ON TABLE unit_move IS 'moves of patients between care units';
CREATE TABLE icu_stay (icu_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int REFERENCES hospital_admission, first_careunit text NOT NULL, last_careunit text NOT NULL,
  icu_in timestamp NOT NULL, icu_out timestamp);
COMMENT ON TABLE icu_stay IS 'ICU stays (intensive care unit)';
CREATE TABLE culture (culture_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int REFERENCES hospital_admission, organism text, taken timestamp NOT NULL);
COMMENT ON TABLE culture IS 'microbiology cultures';
COMMENT ON COLUMN culture.organism IS 'organism that grew (empty: no growth)';
CREATE TABLE drug_order (order_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  adm_no int REFERENCES hospital_admission, drug text NOT NULL, route text NOT NULL, ordered timestamp NOT NULL);
COMMENT ON TABLE drug_order IS 'medication orders';
COMMENT ON COLUMN drug_order.route IS 'route of administration (iv, po, id: intradermal)';
CREATE TABLE out_item (item_no int PRIMARY KEY, label text NOT NULL);
CREATE TABLE output_event (ev_no int PRIMARY KEY, person_no int NOT NULL REFERENCES person,
  icu_no int REFERENCES icu_stay, item_no int NOT NULL REFERENCES out_item, amount numeric NOT NULL,
  charted timestamp NOT NULL);
COMMENT ON TABLE output_event IS 'output events charted (urine, drains)';
INSERT INTO person SELECT g, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END FROM generate_series(1, 12) g;
INSERT INTO org_unit VALUES ('IMC', 'internal medicine'), ('GSX', 'general surgery'), ('SICU', 'surgical ICU (as a department)');
INSERT INTO hospital_admission SELECT g, 1 + (g % 12), CASE WHEN g % 3 = 0 THEN 'elective' ELSE 'urgent' END,
  30 + g, timestamp '2025-01-01' + g * interval '9 days',
  CASE WHEN g > 36 THEN NULL ELSE timestamp '2025-01-05' + g * interval '9 days' END,
  (ARRAY['IMC', 'GSX'])[1 + g % 2], (ARRAY['SICU', 'W71'])[1 + (g / 2) % 2] FROM generate_series(1, 40) g;
INSERT INTO unit_move SELECT g, 1 + (g % 12), 1 + (g % 40),
  (ARRAY['medicine', 'coronary care unit (ccu)', 'neurology', 'surgical intensive care unit (sicu)'])[1 + g % 4],
  timestamp '2025-01-02' + g * interval '3 days', timestamp '2025-01-03' + g * interval '3 days' FROM generate_series(1, 80) g;
INSERT INTO icu_stay SELECT g, 1 + (g % 12), 1 + (g % 40),
  (ARRAY['surgical intensive care unit (sicu)', 'coronary care unit (ccu)'])[1 + g % 2],
  (ARRAY['coronary care unit (ccu)', 'surgical intensive care unit (sicu)'])[1 + g % 2],
  timestamp '2025-01-02' + g * interval '7 days',
  CASE WHEN g > 17 THEN NULL ELSE timestamp '2025-01-04' + g * interval '7 days' END FROM generate_series(1, 20) g;
INSERT INTO culture SELECT g, 1 + (g % 12), 1 + (g % 40), CASE WHEN g % 3 = 0 THEN NULL ELSE
  (ARRAY['staph aureus', 'e. coli'])[1 + g % 2] END, timestamp '2025-01-02' + g * interval '5 days' FROM generate_series(1, 30) g;
INSERT INTO drug_order SELECT g, 1 + (g % 12), 1 + (g % 40), (ARRAY['heparin', 'cefazolin', 'insulin', 'tuberculin'])[1 + g % 4],
  (ARRAY['iv', 'iv', 'iv', 'po', 'po', 'id'])[1 + g % 6], timestamp '2025-01-03' + g * interval '2 days' FROM generate_series(1, 60) g;
INSERT INTO out_item VALUES (1, 'foley'), (2, 'chest tube'), (3, 'drain');
INSERT INTO output_event SELECT g, 1 + (g % 3), 1 + (g % 20), 1 + (g % 3), 10 * g, timestamp '2025-12-01' + g * interval '9 hours'
  FROM generate_series(1, 30) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "list the patients currently in the ICU", "gold_sql": "SELECT DISTINCT person_no FROM icu_stay WHERE icu_out IS NULL", "rule": "currently, of an ICU stay: the stay has not ended"}
{"question": "which patients had an elective admission in 2025?", "gold_sql": "SELECT DISTINCT person_no FROM hospital_admission WHERE admit_kind = 'elective' AND admitted >= '2025-01-01' AND admitted < '2026-01-01'", "rule": "which patients: the patients, not a measure of their rows"}
{"question": "what kinds of output were charted for patient 2 this month?", "gold_sql": "SELECT DISTINCT i.label FROM output_event e JOIN out_item i USING (item_no) WHERE e.person_no = 2 AND e.charted >= '2025-12-01'", "rule": "kinds of output: a list of kinds, not a total"}
{"question": "has patient 3 ever been in the coronary care unit (ccu)?", "gold_sql": "SELECT count(*) > 0 FROM unit_move WHERE person_no = 3 AND careunit = 'coronary care unit (ccu)'", "rule": "a stored value of several words: not its 'care unit' column; every move, not the first unit only"}
{"question": "how many patients were in the surgical intensive care unit (sicu) in 2025?", "gold_sql": "SELECT count(DISTINCT person_no) FROM unit_move WHERE careunit = 'surgical intensive care unit (sicu)' AND move_in >= '2025-01-01' AND move_in < '2026-01-01'", "rule": "a stored value of several words with a lexicon ward inside"}
{"question": "IMC SICU 입원 건수", "gold_sql": "SELECT count(*) FROM hospital_admission WHERE dept_code = 'IMC' AND ward_code = 'SICU'", "rule": "two codes side by side, each a value of the admissions (a code shared by two columns read the same way every time)"}
{"question": "GSX SICU 입원 건수", "gold_sql": "SELECT count(*) FROM hospital_admission WHERE dept_code = 'GSX' AND ward_code = 'SICU'", "rule": "the same again in one process: the shared code is not read the other way round"}
{"question": "IMC SICU admissions count", "gold_sql": "SELECT count(*) FROM hospital_admission WHERE dept_code = 'IMC' AND ward_code = 'SICU'", "rule": "and a third time"}
{"question": "how many IMC/W71 admissions?", "expect": "declined_ok", "rule": "either of two values of different columns (a slash) is declined, not ANDed"}
{"question": "그중 SICU만", "parent_question": "IMC 입원 건수", "gold_sql": "SELECT count(*) FROM hospital_admission WHERE dept_code = 'IMC' AND ward_code = 'SICU'", "rule": "a follow-up value of another column is added, though both codes are in the unit dictionary's one column"}
{"question": "only elective", "parent_question": "number of urgent widgets", "expect": "declined_ok", "rule": "a follow-up that changes a declined question is declined, not answered alone"}
{"question": "admit kind별 ward code별 입원 건수", "gold_sql": "SELECT admit_kind, ward_code, count(*) FROM hospital_admission GROUP BY 1, 2", "rule": "a column name in Latin words with a Korean ending (kind별): both groupings"}
{"question": "which female patients had an elective admission? give the patient ids", "gold_sql": "SELECT DISTINCT h.person_no FROM hospital_admission h JOIN person p USING (person_no) WHERE p.sex = 'F' AND h.admit_kind = 'elective'", "rule": "patient ids: the identifier a list shows, not the stored route 'id'"}
{"question": "the two most common routes of medication orders", "gold_sql": "SELECT route FROM (SELECT route, dense_rank() OVER (ORDER BY count(*) DESC) r FROM drug_order GROUP BY route) t WHERE r <= 2", "rule": "a ranking of the column of categories named (routes), not of the rows' label (drugs)"}
{"question": "which organisms were found in patient 4's cultures?", "expect": "declined", "gold_sql": "SELECT DISTINCT organism FROM culture WHERE person_no = 4 AND organism IS NOT NULL", "rule": "a list of names: an empty name is not one found; none is left, and an offline reading that finds no row is asked back (docs/coverage.md, Empty results)"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 15 ] || nok "fifteen questions were scored (got $n)"
# "currently" of a table that records no open stay is declined naming the word, not dropped
own_schema_expect "reason: the question asks what is so 'currently'" \
	"'currently' with no open stay is declined naming the word" "which organisms are currently found in cultures?"
echo "1..$n"
