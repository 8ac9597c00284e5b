#!/usr/bin/env bash
# 43_value_readings.sh: issue 26, readings of names and codes the fifth session's probes found wrong, on a small schema written here (names of our own): a ranking of a code column a dictionary names shows the names (the key only inferred from values), codes when codes are asked; a stored text that two dictionaries both hold, reached as directly, is asked about, not guessed (docs/coverage.md, "Probe findings", fifth session).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
. "$TOP/tests/lib/own_schema.sh"
own_schema_begin value_readings

# Admissions with a unit code, an arrival route from a code list with its own validity date (no declared key; the unit dictionary's codes match it) and a kind of
# visit; the place a visit happened and the kind of visit are two dictionaries that both hold 'OP'.
psql -X -q -d "$DB" >/dev/null 2>&1 <<'SQL'
CREATE TABLE route_code (route_id int PRIMARY KEY, route_code text NOT NULL, valid_from date NOT NULL);
COMMENT ON TABLE route_code IS 'codes of the route of arrival';
CREATE TABLE code_dict (unit_code varchar(6) PRIMARY KEY, unit_name text NOT NULL);
COMMENT ON TABLE code_dict IS 'codes and names of hospital units';
CREATE TABLE place (place_id int PRIMARY KEY, place_code text NOT NULL, place_name text NOT NULL);
COMMENT ON TABLE place IS 'places of care';
CREATE TABLE visit_kind (kind_id int PRIMARY KEY, kind_code text NOT NULL, kind_name text NOT NULL);
COMMENT ON TABLE visit_kind IS 'kinds of visit';
CREATE TABLE admission (adm_id int PRIMARY KEY, patient_no int NOT NULL, admitted timestamp NOT NULL,
  unit_code varchar(6) NOT NULL, place_id int NOT NULL REFERENCES place, kind_id int NOT NULL REFERENCES visit_kind,
  sex text NOT NULL, weight_kg numeric NOT NULL, age int NOT NULL, admission_type text NOT NULL, discharged timestamp,
  route_id int REFERENCES route_code);
CREATE TABLE bill (bill_id int PRIMARY KEY, adm_id int NOT NULL REFERENCES admission, amount numeric NOT NULL);
COMMENT ON TABLE admission IS 'admissions and visits';
COMMENT ON COLUMN admission.unit_code IS 'unit (ward) code';
INSERT INTO code_dict VALUES ('U11', 'North ward'), ('U12', 'South ward'), ('U13', 'East ward'), ('U14', 'West ward');
INSERT INTO route_code VALUES (1, 'WALKIN', date '2020-01-01'), (2, 'AMBUL', date '2025-03-01');
INSERT INTO place VALUES (1, 'OP', 'Outpatient building'), (2, 'MAIN', 'Main building');
INSERT INTO visit_kind VALUES (1, 'OP', 'Outpatient visit'), (2, 'IP', 'Inpatient stay');
INSERT INTO admission SELECT g, 1 + g % 9, timestamp '2025-01-01' + g * interval '3 days',
  (ARRAY['U11', 'U12', 'U12', 'U13', 'U13', 'U13', 'U14'])[1 + g % 7], 1 + g % 2, 1 + (g / 3) % 2,
  CASE WHEN g % 5 < 2 THEN 'F' ELSE 'M' END, 50 + g % 37, 20 + g, (ARRAY['urgent', 'elective', 'newborn'])[1 + g % 3],
  timestamp '2025-01-02' + g * interval '3 days', 1 + g % 2 FROM generate_series(1, 70) g;
INSERT INTO bill SELECT g, 1 + g % 70, 100 + g FROM generate_series(1, 90) g;
SQL

cat >"$TMP/q.jsonl" <<'J'
{"question": "top 2 units by number of admissions, with counts", "gold_sql": "SELECT u.unit_name, count(*) FROM admission a JOIN code_dict u ON u.unit_code = a.unit_code GROUP BY u.unit_name ORDER BY 2 DESC LIMIT 2", "rule": "a ranking of a code column a dictionary names shows the names (key inferred from the values)"}
{"question": "top 2 unit codes by number of admissions, with counts", "gold_sql": "SELECT unit_code, count(*) FROM admission GROUP BY unit_code ORDER BY 2 DESC LIMIT 2", "rule": "a ranking of codes when codes are asked for"}
{"question": "number of admissions by unit", "gold_sql": "SELECT u.unit_name, count(*) FROM admission a JOIN code_dict u ON u.unit_code = a.unit_code GROUP BY u.unit_name", "rule": "a breakdown by the same code shows the same names"}
{"question": "number of admissions of men and women by unit", "gold_sql": "SELECT u.unit_name, sex, count(*) FROM admission a JOIN code_dict u ON u.unit_code = a.unit_code GROUP BY u.unit_name, sex", "rule": "every value of a column named with a breakdown: one more grouping, not a filter that keeps everything"}
{"question": "number of admissions of men and women by unit, in columns", "gold_sql": "SELECT u.unit_name, count(*) FILTER (WHERE sex = 'M'), count(*) FILTER (WHERE sex = 'F') FROM admission a JOIN code_dict u ON u.unit_code = a.unit_code GROUP BY u.unit_name", "rule": "the same in columns: one aggregate column per value"}
{"question": "average weight of male and female admissions", "gold_sql": "SELECT sex, avg(weight_kg) FROM admission GROUP BY sex", "rule": "every value of a column named: each apart, not one average of all"}
{"question": "which patients had at least 3 different units?", "expect": "declined", "gold_sql": "SELECT patient_no FROM admission GROUP BY patient_no HAVING count(DISTINCT unit_code) >= 3", "rule": "a number that counts the thing named after it is not compared with a measure or an age"}
{"question": "how many types of admission are there?", "expect": "declined", "gold_sql": "SELECT count(*) FROM visit_kind", "rule": "kinds asked with no column of kinds: declined, not the rows counted"}
{"question": "count the admissions whose admission type was urgent", "gold_sql": "SELECT count(*) FROM admission WHERE admission_type = 'urgent'", "rule": "a column named after whose is a filter's column, not a count of its values"}
{"question": "when was the first admission of patient 3 reported?", "expect": "declined_ok", "rule": "the time of an act the tables do not record is declined, not the event's time"}
{"question": "Which hospital was patient 3 admitted from?", "expect": "declined_ok", "rule": "which hospital: no column names hospitals"}
{"question": "number of admissions by unit and year", "gold_sql": "SELECT date_trunc('year', admitted), u.unit_name, count(*) FROM admission a JOIN code_dict u ON u.unit_code = a.unit_code GROUP BY 1, 2", "rule": "a time bucket at the end of a list after by is a breakdown too"}
{"question": "AMBUL count in 2025", "gold_sql": "SELECT count(*) FROM admission a JOIN route_code r ON r.route_id = a.route_id WHERE r.route_code = 'AMBUL' AND admitted >= '2025-01-01' AND admitted < '2026-01-01'", "rule": "a count that would be of a dictionary's entries reached through a value is declined, not the code list counted", "expect": "declined"}
{"question": "how many AMBUL patients in 2025", "gold_sql": "SELECT count(DISTINCT patient_no) FROM admission a JOIN route_code r ON r.route_id = a.route_id WHERE r.route_code = 'AMBUL' AND admitted >= '2025-01-01' AND admitted < '2026-01-01'", "rule": "the same value with the patients counted: answered through the key"}
{"question": "How many patients had at least one admission with the admission type listed as urgent?", "gold_sql": "SELECT count(DISTINCT patient_no) FROM admission WHERE admission_type = 'urgent'", "rule": "'listed as' is a participle, not a request for a list: the patients are counted"}
{"question": "how many admissions per day in January 2025? show the day and the count", "gold_sql": "SELECT admitted::date, count(*) FROM admission WHERE admitted >= '2025-01-01' AND admitted < '2025-02-01' GROUP BY 1", "rule": "a day is shown as its date"}
{"question": "admission and discharge times of patient 3", "gold_sql": "SELECT admitted, discharged FROM admission WHERE patient_no = 3", "rule": "two times named with one time noun: both shown"}
{"question": "각 unit의 평균 weight", "gold_sql": "SELECT u.unit_name, avg(weight_kg) FROM admission a JOIN code_dict u ON u.unit_code = a.unit_code GROUP BY 1", "rule": "각 X (each X) is a breakdown by X"}
{"question": "how many OP visits were there?", "expect": "declined_ok", "rule": "a code two dictionaries hold, reached as directly: asked, not guessed"}
J
own_schema_eval "$TMP/q.jsonl"
[ "$n" -eq 19 ] || nok "nineteen questions were scored (got $n)"
own_schema_expect "'OP' is stored as the value of two different things the question's table reaches; say which one is meant" \
	"the decline names the word stored in two dictionaries" "how many OP visits were there?"
own_schema_expect "apart for each sex: 'M', 'F'" "the explanation says each value is apart" \
	"number of admissions of men and women by unit"
# a top N over a two-way breakdown (within each group, or of the pairs?) is asked, on the demo database
out=$("$ASKQL" eval --direct --target demo --now '2025-12-31 23:59:00' --plan "진료과별 성별 케이스 수 상위 3개" 2>&1)
case $out in
*"reason: a top N over a breakdown in two ways"*) ok "a top N over two groupings is declined naming both readings" ;;
*) nok "a top N over two groupings is declined naming both readings" "$out" ;;
esac
echo "1..$n"
