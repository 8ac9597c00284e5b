#!/usr/bin/env bash
# 56_value_words_heads_concepts.sh: issue 26, sixteenth session, on a schema of our own (docs/coverage.md, "Own phrasings hunted for wrong numbers (sixteenth session)"): a word that is a word of exactly one stored value of a column whose comment lists the values ("thoracic" of 'Thoracic surgery') filters on that value, never shown as the column while the filter is dropped; two entity words side by side ("surgery patients") count the last, the head noun; people counted with the count word last ("diabetic men over 60 count", "diabetic women in urology count") are patients, never their operations; a stored code that is both a dictionary's code (FEMALE's F) and the code as recorded beside a key into that dictionary is one thing, filtered where it is recorded, never declined as two; codes as recorded beside a key of the same thing into a dictionary (sex_source_value beside sex_concept_id, cond_source_value beside cond_concept_id) are broken down by the dictionary's label, said by the column or by the table; a condition right before a word for patients ("sepsis patients who died") is what they had, never the cause of death their death row records ("died of sepsis" is that cause); a diagnosis reached through another table ("average age of appendicitis patients", operations -> patients -> concepts) is found through a key that holds it, never through the patients' sex concept (no row); "born" names only a date of birth, never a concept's start date; "the 1960s" (a decade of years) is declined; a key into a dictionary shown in a list is shown by its label, and a top N of codes as recorded ranks the concepts' names; the first or last of each ("their last value", "각 환자의 마지막") is declined, never one row of all; "list of X with Y" lists each X by its key beside Y, never the distinct Y alone; patients counted from their own table who had a diagnosis ("number of women with pneumothorax") are a semi-join on the diagnoses; "their sex", a word also stored as a dictionary's category, shows the column that begins with it, and "X breakdown" answered by a list is declined; a word for kinds (type, category) said per or by and linked to nothing ("per visit type") is declined, never the rows counted in one total or grouped by something else.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin valwords
trap own_schema_cleanup EXIT

psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
-- a dictionary of concepts, as a common data model keeps them
CREATE TABLE vocab (vocab_id int PRIMARY KEY, vocab_name text NOT NULL, vocab_domain text NOT NULL, vocab_code text NOT NULL,
  vocab_class text, vocab_valid date, vocab_std text);
COMMENT ON TABLE vocab IS 'Concepts: every coded thing with its name';
COMMENT ON COLUMN vocab.vocab_name IS 'Name of the concept';
INSERT INTO vocab VALUES (1, 'MALE', 'Sex', 'M', NULL, NULL, 'S'), (2, 'FEMALE', 'Sex', 'F', NULL, NULL, 'S'),
  (10, 'Appendicitis', 'Condition', 'K35.8', NULL, NULL, 'S'), (11, 'Cholelithiasis', 'Condition', 'K80.2', NULL, NULL, 'S'),
  (12, 'Pneumothorax', 'Condition', 'J93.1', NULL, NULL, 'S');
CREATE TABLE patient (patient_id int PRIMARY KEY, birth_year int NOT NULL, sex_concept_id int NOT NULL REFERENCES vocab,
  sex_source_value text NOT NULL);
COMMENT ON TABLE patient IS 'Patients';
COMMENT ON COLUMN patient.sex_concept_id IS 'Sex of the patient (concept: MALE or FEMALE)';
COMMENT ON COLUMN patient.sex_source_value IS 'Sex code as recorded at the source (M/F)';
INSERT INTO patient SELECT g, 1940 + g % 50, 1 + g % 2, (ARRAY['F', 'M'])[1 + (1 + g % 2) % 2 + 0 * g] FROM generate_series(1, 90) g;
UPDATE patient SET sex_source_value = CASE sex_concept_id WHEN 1 THEN 'M' ELSE 'F' END;
COMMENT ON COLUMN vocab.vocab_valid IS 'Date the concept became valid (start)';
UPDATE vocab SET vocab_valid = date '1970-01-01';
-- operations: the department and the approach as text, the department's comment listing its values
CREATE TABLE surgery (surgery_id int PRIMARY KEY, patient_id int NOT NULL REFERENCES patient, age int NOT NULL,
  dept text NOT NULL, approach text NOT NULL, diabetic int NOT NULL, mortal int NOT NULL, op_day date NOT NULL);
COMMENT ON TABLE surgery IS 'Operations (surgical cases)';
COMMENT ON COLUMN surgery.dept IS 'Surgical department: General surgery, Thoracic surgery, Urology';
COMMENT ON COLUMN surgery.approach IS 'Approach: Open, Laparoscopic, Robotic';
COMMENT ON COLUMN surgery.diabetic IS 'Preoperative diabetes: 1 yes, 0 no';
COMMENT ON COLUMN surgery.mortal IS 'In-hospital mortality flag: 1 yes, 0 no';
INSERT INTO surgery SELECT g, 1 + g % 90, 20 + g % 60, (ARRAY['General surgery', 'Thoracic surgery', 'Urology'])[1 + g % 3],
  (ARRAY['Open', 'Laparoscopic', 'Robotic', 'Open'])[1 + g % 4], (g % 5 = 0)::int, (g % 11 = 0)::int,
  date '2025-01-01' + g FROM generate_series(1, 240) g;
-- conditions: codes as recorded beside the concept of the same thing
CREATE TABLE condition_rec (condition_rec_id int PRIMARY KEY, patient_id int NOT NULL REFERENCES patient,
  cond_concept_id int NOT NULL REFERENCES vocab, cond_source_value text NOT NULL, dx_start date NOT NULL);
COMMENT ON TABLE condition_rec IS 'Conditions (diagnoses) recorded for patients';
COMMENT ON COLUMN condition_rec.cond_concept_id IS 'The condition (concept)';
COMMENT ON COLUMN condition_rec.cond_source_value IS 'Diagnosis code as recorded at the source (ICD-10)';
INSERT INTO condition_rec SELECT g, 1 + g % 90, 10 + g % 3, (ARRAY['K35.8', 'K80.2', 'J93.1'])[1 + g % 3],
  date '2025-01-01' + g FROM generate_series(1, 150) g;
-- blood donors: a date of birth and no age
CREATE TABLE donor (donor_id int PRIMARY KEY, donor_born date NOT NULL, blood_group text NOT NULL);
COMMENT ON TABLE donor IS 'Blood donors';
COMMENT ON COLUMN donor.donor_born IS 'Date of birth of the donor';
INSERT INTO donor SELECT g, date '1950-03-01' + g * 200, (ARRAY['A', 'B', 'O', 'AB'])[1 + g % 4] FROM generate_series(1, 60) g;
-- deaths with their cause, a key into the same concepts
CREATE TABLE death_rec (patient_id int PRIMARY KEY REFERENCES patient, died_on date NOT NULL, cause_id int REFERENCES vocab,
  death_kind_id int REFERENCES vocab);
COMMENT ON TABLE death_rec IS 'Deaths';
COMMENT ON COLUMN death_rec.cause_id IS 'Cause of death (concept)';
INSERT INTO death_rec SELECT g, date '2025-06-01' + g, 10 + g % 3, NULL FROM generate_series(1, 90, 4) g;
SQL

cat >"$TMP/q.jsonl" <<'EOF'
{"question": "open thoracic operations count", "gold_sql": "SELECT count(*) FROM surgery WHERE approach = 'Open' AND dept = 'Thoracic surgery'", "rule": "'thoracic' (a word of one stored department) filters on it, never dropped"}
{"question": "number of urology and thoracic cases", "gold_sql": "SELECT count(*) FROM surgery WHERE dept IN ('Urology', 'Thoracic surgery')", "expect": "not_wrong", "rule": "two departments, one a word of its stored value (either answered right or declined)"}
{"question": "robotic thoracic surgery patients over 50 count", "gold_sql": "SELECT count(DISTINCT patient_id) FROM surgery WHERE approach = 'Robotic' AND dept = 'Thoracic surgery' AND age > 50", "rule": "'surgery patients' counts the patients, the head noun, never the operations"}
{"question": "diabetic men over 60 count", "gold_sql": "SELECT count(DISTINCT s.patient_id) FROM surgery s JOIN patient p USING (patient_id) WHERE p.sex_source_value = 'M' AND s.age > 60 AND s.diabetic = 1", "expect": "not_wrong", "rule": "men counted with the count word last are patients (or declined), never their operations"}
{"question": "average age of women", "gold_sql": "SELECT avg(s.age) FROM surgery s JOIN patient p USING (patient_id) WHERE p.sex_source_value = 'F'", "rule": "'women': a concept's code and the sex code as recorded beside its key are one thing, filtered, never declined as two"}
{"question": "diabetic women in urology count", "gold_sql": "SELECT count(DISTINCT s.patient_id) FROM surgery s JOIN patient p USING (patient_id) WHERE p.sex_source_value = 'F' AND s.diabetic = 1 AND s.dept = 'Urology'", "rule": "women counted with the count word last, after function words and conditions, are patients, never their rows"}
{"question": "number of patients by sex", "gold_sql": "SELECT v.vocab_name, count(*) FROM patient p JOIN vocab v ON v.vocab_id = p.sex_concept_id GROUP BY v.vocab_name", "rule": "by sex: the concept's name, beside the codes as recorded"}
{"question": "number of patients per condition", "gold_sql": "SELECT v.vocab_name, count(DISTINCT c.patient_id) FROM condition_rec c JOIN vocab v ON v.vocab_id = c.cond_concept_id GROUP BY v.vocab_name", "rule": "per condition (the table): the concept's name, never the codes as recorded"}
{"question": "appendicitis patients who died count", "gold_sql": "SELECT count(*) FROM death_rec WHERE patient_id IN (SELECT c.patient_id FROM condition_rec c JOIN vocab v ON v.vocab_id = c.cond_concept_id WHERE v.vocab_name = 'Appendicitis')", "rule": "a condition before a word for patients is what they had, never the cause of death recorded"}
{"question": "average age of appendicitis patients", "gold_sql": "SELECT avg(age) FROM surgery WHERE patient_id IN (SELECT c.patient_id FROM condition_rec c JOIN vocab v ON v.vocab_id = c.cond_concept_id WHERE v.vocab_name = 'Appendicitis')", "rule": "a diagnosis reached through the patients is found through a key that holds it, never through their sex concept (0 rows)"}
{"question": "number of women with pneumothorax", "gold_sql": "SELECT count(*) FROM patient p WHERE p.sex_source_value = 'F' AND p.patient_id IN (SELECT c.patient_id FROM condition_rec c JOIN vocab v ON v.vocab_id = c.cond_concept_id WHERE v.vocab_name = 'Pneumothorax')", "rule": "patients (their own table) who had a diagnosis row: a semi-join on the diagnoses, never declined"}
{"question": "pneumothorax patients by sex", "gold_sql": "SELECT v.vocab_name, count(*) FROM patient p JOIN vocab v ON v.vocab_id = p.sex_concept_id WHERE p.patient_id IN (SELECT c.patient_id FROM condition_rec c JOIN vocab w ON w.vocab_id = c.cond_concept_id WHERE w.vocab_name = 'Pneumothorax') GROUP BY v.vocab_name", "rule": "a breakdown of the patients who had a diagnosis row"}
{"question": "number of patients who died of appendicitis", "gold_sql": "SELECT count(*) FROM death_rec d JOIN vocab v ON v.vocab_id = d.cause_id WHERE v.vocab_name = 'Appendicitis'", "rule": "died of a condition: the cause of death recorded"}
{"question": "donors born before 1960 count", "gold_sql": "SELECT count(*) FROM donor WHERE donor_born < date '1960-01-01'", "rule": "'born' is the date of birth, never a concept's start date"}
EOF
own_schema_eval "$TMP/q.jsonl"

# the plan itself: the filter is there, the patients are counted
own_schema_expect "surgery.dept = 'Thoracic surgery'" "the word of one stored value is a filter in the plan" \
	"open thoracic operations count"
own_schema_expect "COUNT(DISTINCT surgery.patient_id)" "'surgery patients ... count' counts distinct patients" \
	"robotic thoracic surgery patients over 50 count"
own_schema_expect "JOIN vocab ON condition_rec.cond_concept_id = vocab.vocab_id" \
	"per condition joins the concept through the condition's own key" "number of patients per condition"
own_schema_expect "WHERE surgery.dept = 'General surgery' GROUP BY surgery.approach" \
	"'general', a word of one stored department, is a filter beside the breakdown" "number of general cases by approach"

own_schema_declined "is declined: 'category' after per names kinds never grouped, never the codes or one total" \
	"count of conditions per condition category"

own_schema_declined "is declined: a decade of years is not an age band" "number of patients born in the 1960s"

own_schema_expect "JOIN vocab ON death_rec.cause_id = vocab.vocab_id" \
	"a key into the concepts shown ('with their cause of death') is shown by the concept's name" \
	"list of patients who died in 2025 with their cause of death"
own_schema_expect "SELECT vocab_name, count FROM" "'top 2 conditions' ranks the concepts' names, never the codes as recorded" \
	"top 2 conditions by number of patients"

own_schema_expect "SELECT DISTINCT donor.donor_id, donor.blood_group" \
	"'list of donors with blood group': each donor by its key, never the distinct groups alone" "list of blood donors with blood group"

own_schema_expect "SELECT DISTINCT patient.patient_id, vocab.vocab_name FROM patient JOIN vocab ON patient.sex_concept_id" \
	"'their sex' (also a domain stored in the concepts) shows the patients' sex, never a filter on the domain" \
	"list of patients with pneumothorax and their sex"
own_schema_declined "is declined: a breakdown said in words is no list of the rows" "sex breakdown of pneumothorax patients"

# on the demo database askql ships
demo_expect "clinical_data_table.department = 'Thoracic surgery'" \
	"demo: 'thoracic' is the one department holding that word, a filter" "open thoracic operations with in-hospital death count"
demo_expect "COUNT(DISTINCT clinical_data_table.subjectid)" "demo: 'thyroid surgery patients under 40 count' counts patients" \
	"thyroid surgery patients under 40 count"
demo_expect "COUNT(DISTINCT clinical_data_table.subjectid)" "demo: 'diabetic men over 60 count' counts patients" \
	"diabetic men over 60 count"
demo_expect "COUNT(DISTINCT clinical_data_table.subjectid)" "demo: 'women with potassium over 5.5 count' counts patients, never lab results" \
	"women with potassium over 5.5 count"
for q in "patients with potassium over 6 and their last potassium value" "각 환자의 마지막 칼륨 수치"; do
	demo_declined "demo: '$q' is declined: the last of each is not built, never one row of all" "$q"
done
[ "$n" -eq 31 ] || nok "thirty-one checks were made (got $n)"
echo "1..$n"
