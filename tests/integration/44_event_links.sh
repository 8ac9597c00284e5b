#!/usr/bin/env bash
# 44_event_links.sh: issue 26, sixth session: readings the EHRSQL development halves declined, on a small schema written here (names of our own): a charge that points at its event by a kind column naming the table and an id (a typed link), a dose kept as text, a measurement named by a word no charted label equals (weight, height), the route asked as "how is X administered", a label found by its abbreviation, drugs given together, the percentile of a value, a total over the parts of the stays named, what is new today against yesterday, "an organism found", a drug given N times, "leave the hospital", "e.r.", and the last of something never a row without its time (docs/schema-model.md, "Typed links" and "Numbers stored as text").
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin event_links

# Stays (one still open: no discharge time), orders with a dose stored as text, lab results
# with a test dictionary, and charges that name the kind of event they bill and its id.
psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE stay (stay_id int PRIMARY KEY, patient_no int NOT NULL, admitted timestamp NOT NULL, discharged timestamp,
  came_from text NOT NULL, age int NOT NULL);
COMMENT ON TABLE stay IS 'hospital stays';
CREATE TABLE test_dict (test_id int PRIMARY KEY, test_name text NOT NULL);
CREATE TABLE lab_result (result_id int PRIMARY KEY, stay_id int NOT NULL REFERENCES stay, test_id int NOT NULL REFERENCES test_dict,
  taken timestamp NOT NULL, result numeric, organism text);
CREATE TABLE med_order (order_id int PRIMARY KEY, stay_id int NOT NULL REFERENCES stay, ordered timestamp NOT NULL,
  drug text NOT NULL, dose_given text NOT NULL, dose_unit text NOT NULL, route text NOT NULL);
COMMENT ON TABLE med_order IS 'medication orders';
CREATE TABLE charge (charge_id int PRIMARY KEY, stay_id int NOT NULL REFERENCES stay, event_kind text NOT NULL,
  event_ref int NOT NULL, charged timestamp NOT NULL, price numeric NOT NULL);
COMMENT ON TABLE charge IS 'charges of each billed event';
INSERT INTO stay SELECT g, 1 + g % 6, timestamp '2025-01-01' + g * interval '9 days',
  CASE WHEN g = 21 THEN NULL ELSE timestamp '2025-01-04' + g * interval '9 days' END,
  (ARRAY['emergency room', 'clinic referral', 'transfer'])[1 + g % 3], 40 + (g % 5) * 7 FROM generate_series(1, 24) g;
INSERT INTO test_dict VALUES (1, 'glucose'), (2, 'sodium'), (3, 'lactate');
INSERT INTO lab_result SELECT g, 1 + g % 24, 1 + g % 3, timestamp '2025-01-01' + g * interval '2 days', 3 + g % 5,
  CASE WHEN g % 7 = 0 THEN (ARRAY['e. coli', 'staph aureus'])[1 + g % 2] END FROM generate_series(1, 90) g;
INSERT INTO med_order SELECT g, 1 + g % 24, timestamp '2025-01-02' + g * interval '2 days',
  (ARRAY['amoxicillin', 'heparin', 'insulin', 'paracetamol'])[1 + g % 4],
  (ARRAY['500.0', '5000.0', '4.5', '1000.0', '0.5'])[1 + g % 5], 'mg', (ARRAY['oral', 'iv'])[1 + g % 2]
  FROM generate_series(1, 80) g;
-- insulin given at the same time as some heparin orders, and once more a day after each of them
INSERT INTO med_order SELECT 200 + order_id, stay_id, ordered, 'insulin', '4.0', 'unit', 'subcutaneous' FROM med_order
  WHERE drug = 'heparin' AND order_id % 3 = 0;
INSERT INTO med_order SELECT 300 + order_id, stay_id, ordered + interval '1 day', 'insulin', '2.0', 'unit', 'subcutaneous'
  FROM med_order WHERE drug = 'heparin' AND order_id < 200;
-- patient 5's orders of the last two days (now is 2025-12-31 23:59)
INSERT INTO med_order VALUES (901, 22, '2025-12-31 08:00', 'heparin', '5000.0', 'unit', 'iv'),
  (902, 22, '2025-12-31 09:00', 'insulin', '4.0', 'unit', 'subcutaneous'),
  (903, 22, '2025-12-31 10:00', 'paracetamol', '1000.0', 'mg', 'oral'),
  (904, 22, '2025-12-30 08:00', 'heparin', '5000.0', 'unit', 'iv');
INSERT INTO charge SELECT g, 1 + g % 24, 'lab_result', g, timestamp '2025-01-01' + g * interval '2 days',
  CASE (1 + g % 3) WHEN 1 THEN 12.5 WHEN 2 THEN 8.25 ELSE 20 END FROM generate_series(1, 90) g;
INSERT INTO charge SELECT 100 + g, 1 + g % 24, 'med_order', g, timestamp '2025-01-02' + g * interval '2 days',
  CASE g % 4 WHEN 0 THEN 3.1 WHEN 1 THEN 7.75 WHEN 2 THEN 1.2 ELSE 0.9 END FROM generate_series(1, 80) g;
CREATE TABLE chart_item (item_id int PRIMARY KEY, item_label text NOT NULL, item_abbrev text NOT NULL);
CREATE TABLE chart_value (chart_id int PRIMARY KEY, stay_id int NOT NULL REFERENCES stay, item_id int NOT NULL REFERENCES chart_item,
  charted timestamp NOT NULL, reading numeric);
COMMENT ON TABLE chart_value IS 'charted observations';
INSERT INTO chart_item VALUES (1, 'admission weight (kg)', 'admit wt'), (2, 'daily weight', 'daily weight'),
  (3, 'height', 'height'), (4, 'height (cm)', 'height (cm)'), (5, 'skin temperature', 'skin temp'),
  (6, 'core temperature', 'core temperature'), (7, 'weight bearing status', 'weight bearing');
INSERT INTO chart_value SELECT g, 1 + g % 24, (ARRAY[2, 4, 5, 6])[1 + g % 4], timestamp '2025-01-01' + g * interval '1 day',
  (ARRAY[70, 172, 33, 37])[1 + g % 4] + g % 3 FROM generate_series(1, 120) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "What is the price of a lab glucose test?", "gold_sql": "SELECT DISTINCT c.price FROM charge c JOIN lab_result r ON c.event_kind = 'lab_result' AND c.event_ref = r.result_id JOIN test_dict d ON d.test_id = r.test_id WHERE d.test_name = 'glucose'", "rule": "a charge reached by its kind and id (a typed link): the price of a kind of test, each value once"}
{"question": "How much does the drug heparin cost?", "gold_sql": "SELECT DISTINCT c.price FROM charge c JOIN med_order o ON c.event_kind = 'med_order' AND c.event_ref = o.order_id WHERE o.drug = 'heparin'", "rule": "how much does X cost: the price, not a total over every order"}
{"question": "What was the total dose of amoxicillin given to patient 3?", "gold_sql": "SELECT sum(dose_given::numeric) FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 3 AND o.drug = 'amoxicillin'", "rule": "a dose kept as text is summed as a number"}
{"question": "What are the top 2 drugs ordered in stays where age was 60 or above?", "gold_sql": "SELECT drug FROM (SELECT drug, dense_rank() OVER (ORDER BY count(*) DESC) AS r FROM med_order o JOIN stay s USING (stay_id) WHERE s.age >= 60 GROUP BY drug) t WHERE r <= 2", "rule": "a number beside an age is not compared with a dose kept as text"}
{"question": "When did patient 3 leave the hospital for the last time?", "gold_sql": "SELECT max(discharged) FROM stay WHERE patient_no = 3", "rule": "leave the hospital is the discharge; the last one is never a stay still open (no time)"}
{"question": "What was the last weight of patient 3?", "expect": "declined", "gold_sql": "SELECT v.reading FROM chart_value v JOIN stay s USING (stay_id) JOIN chart_item i USING (item_id) WHERE s.patient_no = 3 AND i.item_label = 'daily weight' ORDER BY v.charted DESC LIMIT 1", "rule": "a measurement word no label equals: the one charted label holding it (admission weight never charted; the plan is checked below); its result has no row, which is asked back (docs/coverage.md, Empty results)"}
{"question": "What was the first height of patient 3?", "gold_sql": "SELECT v.reading FROM chart_value v JOIN stay s USING (stay_id) JOIN chart_item i USING (item_id) WHERE s.patient_no = 3 AND i.item_label = 'height (cm)' ORDER BY v.charted LIMIT 1", "rule": "a label equal to the word but never charted gives way to the one charted label holding it"}
{"question": "How is heparin administered?", "gold_sql": "SELECT DISTINCT route FROM med_order WHERE drug = 'heparin'", "rule": "how is X administered asks the route"}
{"question": "What are the methods for taking amoxicillin?", "gold_sql": "SELECT DISTINCT route FROM med_order WHERE drug = 'amoxicillin'", "rule": "methods for taking X asks the route"}
{"question": "Was heparin given to patient 3?", "gold_sql": "SELECT count(*) > 0 FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 3 AND o.drug = 'heparin'", "rule": "given, without how, is no route"}
{"question": "What label corresponds to core temperature?", "gold_sql": "SELECT item_label FROM chart_item WHERE item_abbrev = 'core temperature'", "rule": "what label corresponds to X: the row found by the other column holding X"}
{"question": "When was patient 5 given heparin and insulin at the same time for the first time?", "gold_sql": "SELECT min(a.ordered) FROM med_order a JOIN med_order b ON a.stay_id = b.stay_id AND a.ordered = b.ordered JOIN stay s ON s.stay_id = a.stay_id WHERE s.patient_no = 5 AND a.drug = 'heparin' AND b.drug = 'insulin'", "rule": "two things at the same time: the first time both were given"}
{"question": "Among patients who were given heparin, what are the top 2 drugs given at the same time?", "gold_sql": "SELECT drug FROM (SELECT b.drug, dense_rank() OVER (ORDER BY count(*) DESC) AS r FROM med_order a JOIN med_order b ON a.ordered = b.ordered JOIN stay sa ON sa.stay_id = a.stay_id JOIN stay sb ON sb.stay_id = b.stay_id AND sb.patient_no = sa.patient_no WHERE a.drug = 'heparin' GROUP BY b.drug) t WHERE r <= 2", "rule": "the top things given at the same time as X (pairs counted)"}
{"question": "What is the percentile of 5 in a glucose test among patients of the same age as patient 3 on the last hospital stay?", "gold_sql": "SELECT DISTINCT pr FROM (SELECT r.result, percent_rank() OVER (ORDER BY r.result) AS pr FROM lab_result r JOIN test_dict d USING (test_id) WHERE d.test_name = 'glucose' AND r.stay_id IN (SELECT stay_id FROM stay WHERE age = (SELECT age FROM stay WHERE patient_no = 3 AND discharged IS NOT NULL ORDER BY admitted DESC LIMIT 1))) t WHERE result = 5", "rule": "the percentile of a value among patients of the same age as a named one at a named stay"}
{"question": "What is the total price of the hospital stays of patient 3?", "gold_sql": "SELECT sum(c.price) FROM charge c JOIN stay s USING (stay_id) WHERE s.patient_no = 3", "rule": "the total of rows that are parts of the stays named is the total of the stays"}
{"question": "How many hospital stays had a total price of at least 100?", "expect": "declined", "gold_sql": "SELECT count(*) FROM (SELECT stay_id FROM charge GROUP BY stay_id HAVING sum(price) >= 100) t", "rule": "stays counted by their total are not the total summed"}
{"question": "What new drugs were ordered for patient 5 today compared to yesterday?", "gold_sql": "SELECT drug FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 5 AND o.ordered >= '2025-12-31' EXCEPT SELECT drug FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 5 AND o.ordered >= '2025-12-30' AND o.ordered < '2025-12-31'", "rule": "what is new today against yesterday: today's things except yesterday's"}
{"question": "How many patients had an organism found in a lactate test?", "gold_sql": "SELECT count(DISTINCT s.patient_no) FROM lab_result r JOIN stay s USING (stay_id) JOIN test_dict d USING (test_id) WHERE d.test_name = 'lactate' AND r.organism IS NOT NULL", "rule": "a thing found, said of any one: the rows where it has a value"}
{"question": "What drug was patient 1 ordered six times?", "gold_sql": "SELECT drug FROM (SELECT o.drug, count(*) AS c FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 1 GROUP BY o.drug) t WHERE c = 6", "rule": "one patient's things given exactly N times"}
{"question": "For the first time, how much amoxicillin was ordered for patient 2?", "gold_sql": "SELECT o.dose_given::numeric FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 2 AND o.drug = 'amoxicillin' ORDER BY o.ordered LIMIT 1", "rule": "how much the first time: that order's amount, not the total"}
{"question": "How much heparin was ordered for patient 3 in total?", "gold_sql": "SELECT sum(o.dose_given::numeric) FROM med_order o JOIN stay s USING (stay_id) WHERE s.patient_no = 3 AND o.drug = 'heparin'", "rule": "how much in total: the sum of the one number of the orders, kept as text"}
{"question": "Tell me the total hospital stays of patient 3.", "gold_sql": "SELECT count(*) FROM stay WHERE patient_no = 3", "rule": "the total of visits is their number"}
{"question": "When was patient 3's last hospital stay?", "gold_sql": "SELECT max(admitted) FROM stay WHERE patient_no = 3", "rule": "when was the last visit: the visits ordered by their start"}
{"question": "Has patient 4 been to the e.r.?", "gold_sql": "SELECT count(*) > 0 FROM stay WHERE patient_no = 4 AND came_from = 'emergency room'", "rule": "e.r. written with points is ER, the emergency room"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 24 ] || nok "twenty-four questions were scored (got $n)"
own_schema_expect "a typed link: the type column names the table the id points into" \
	"the explanation says how the charge reaches its event" "What is the price of a lab glucose test?"
own_schema_expect "where item_label is 'daily weight'" "the explanation names the one charted label, not every label holding the word" \
	"What was the last weight of patient 3?"
own_schema_expect "CAST(med_order.dose_given AS numeric)" "the text dose is read through a cast" \
	"What was the total dose of amoxicillin given to patient 3?"
echo "1..$n"

