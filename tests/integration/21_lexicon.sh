#!/usr/bin/env bash
# 21_lexicon.sh: a new user's database with English names, no statistics yet and a comment that
# lists its lab codes: values are indexed at once, Korean words reach English codes and outcome
# values through the lexicon, and values that appear later make the next index "changed".
# A second database named the way Korean hospital systems name things (romanised names, '_cd'
# codes, Korean-only comments, no declared keys): the code join to its dictionary is inferred and
# the offline planner answers an English question through the lexicon and the comments.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
DB=lex_$$
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -12; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
cleanup() {
	psql -X -q -tA -d askql -c "DELETE FROM askql.targets WHERE name IN ('$DB', '${DB}_ko'); DELETE FROM askql.cat_targets WHERE name IN ('$DB', '${DB}_ko')" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ${DB}_ko WITH (FORCE)" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
}
trap cleanup EXIT
maps() { "$ASKQL" search --target "$DB" --json "$1" 2>/dev/null |
	python3 -c "import json,sys; d=json.load(sys.stdin); print(' '.join(v['column']+'='+v['value'] for v in d['value_mappings']))"; }

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" >/dev/null <<'SQL'
CREATE TABLE encounter (enc_id int PRIMARY KEY, sex text, disposition text) WITH (autovacuum_enabled = off);
COMMENT ON COLUMN encounter.disposition IS 'how the stay ended';
CREATE TABLE labresult (enc_id int, test_code text, result numeric) WITH (autovacuum_enabled = off);
COMMENT ON COLUMN labresult.test_code IS 'lab code: K=potassium, NA=sodium, LAC=lactate';
INSERT INTO encounter SELECT g, CASE WHEN g % 2 = 0 THEN 'M' ELSE 'F' END,
  CASE WHEN g % 11 = 0 THEN 'EXPIRED' ELSE 'DISCHARGED' END FROM generate_series(1, 400) g;
INSERT INTO labresult SELECT 1 + g % 400, (ARRAY['K','NA','LAC'])[1 + g % 3], 3 + (g % 30) / 10.0 FROM generate_series(1, 1200) g;
SQL
st=$(psql -X -q -tA -d "$DB" -c "SELECT count(*) FROM pg_stats WHERE schemaname = 'public'")
check "the new database has no statistics yet" '[ "$st" = 0 ]' "$st"
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
out=$("$ASKQL" index --target "$URL" 2>&1)
vals=$(sed -n 's/.*, \([0-9]*\) values,.*/\1/p' <<<"$out")
check "values are indexed before PostgreSQL has statistics" '[ "${vals:-0}" -ge 7 ]' "$out"
m=$(maps "칼륨 평균")
check "a Korean lab name reaches the code the comment names in English (칼륨 -> K)" '[[ " $m " == *" test_code=K "* ]]' "$m"
m=$(maps "젖산 수치")
check "젖산 -> LAC through the comment and the lexicon" '[[ " $m " == *" test_code=LAC "* ]]' "$m"
m=$(maps "사망 환자 수")
check "사망 -> the stored outcome EXPIRED (lexicon)" '[[ " $m " == *" disposition=EXPIRED "* ]]' "$m"
m=$(maps "deceased patients")
check "deceased -> EXPIRED" '[[ " $m " == *" disposition=EXPIRED "* ]]' "$m"
m=$(maps "여성 환자")
check "여성 -> F, a one-letter code accepted because M is its sibling" '[[ " $m " == *" sex=F "* ]]' "$m"
out=$("$ASKQL" index --target "$DB" 2>&1)
check "a second index with nothing new is unchanged" 'grep -q "(unchanged)" <<<"$out"' "$out"
psql -X -q -d "$DB" -c "INSERT INTO encounter VALUES (9001, 'F', 'TRANSFERRED')" >/dev/null
out=$("$ASKQL" index --target "$DB" 2>&1)
check "a value that appeared later makes the next index changed" 'grep -q "(changed)" <<<"$out"' "$out"
m=$(maps "전원 환자")
check "... and it is mapped (전원 -> TRANSFERRED)" '[[ " $m " == *" disposition=TRANSFERRED "* ]]' "$m"

# ---- a Korean-named schema ----
psql -X -q -d postgres -c "CREATE DATABASE ${DB}_ko" >/dev/null
psql -X -q -d "${DB}_ko" >/dev/null <<'SQL'
CREATE TABLE busu_mst (busu_cd text PRIMARY KEY, busu_nm text, busu_en_nm text);
COMMENT ON TABLE busu_mst IS '진료과 코드 사전';
COMMENT ON COLUMN busu_mst.busu_nm IS '진료과 한글명';
COMMENT ON COLUMN busu_mst.busu_en_nm IS '진료과 영문명';
INSERT INTO busu_mst VALUES ('IM', '내과', 'Internal medicine'), ('CV', '순환기내과', 'Cardiology'), ('GS', '외과', 'General surgery');
CREATE TABLE naewon (naewon_no int PRIMARY KEY, busu_cd text, naewon_dt timestamp);
COMMENT ON TABLE naewon IS '입원 내역';
COMMENT ON COLUMN naewon.busu_cd IS '진료과 코드';
COMMENT ON COLUMN naewon.naewon_dt IS '입원 일시';
INSERT INTO naewon SELECT g, (ARRAY['IM','CV','GS'])[1 + g % 3], TIMESTAMP '2025-01-01' + g * INTERVAL '1 day' FROM generate_series(1, 90) g;
SQL
URL2="host=$PGHOST port=$PGPORT dbname=${DB}_ko user=${PGUSER:-askql}"
out=$("$ASKQL" index --name "${DB}_ko" --target "$URL2" 2>&1)
fk=$(psql -X -q -tA -d askql -c "SELECT from_table || '.' || from_col || '>' || to_table || '.' || to_col FROM askql.cat_fks WHERE target = '${DB}_ko'")
check "a '_cd' code column joins its dictionary (inferred, no declared key)" 'grep -qx "naewon.busu_cd>busu_mst.busu_cd" <<<"$fk"' "$out $fk"
plan=$("$ASKQL" eval --target "${DB}_ko" --plan "How many admissions were there in cardiology?" 2>&1)
check "an English question reaches Korean comments through the lexicon (admissions -> 입원 내역)" \
	'grep -q "^sql: SELECT COUNT(\*) .*FROM naewon JOIN busu_mst ON naewon.busu_cd = busu_mst.busu_cd WHERE busu_mst.busu_en_nm = '"'"'Cardiology'"'"'" <<<"$plan"' "$plan"

# ---- abbreviations shared by a drug and a date (DOB: dobutamine, date of birth) ----
psql -X -q -d "${DB}_ko" >/dev/null <<'SQL'
CREATE TABLE person (person_id int PRIMARY KEY, gender text, dob timestamp, dod timestamp);
INSERT INTO person SELECT g, CASE WHEN g % 2 = 0 THEN 'M' ELSE 'F' END, TIMESTAMP '1950-01-01' + g * INTERVAL '100 days',
  CASE WHEN g % 7 = 0 THEN TIMESTAMP '2025-01-01' + g * INTERVAL '1 day' END FROM generate_series(1, 70) g;
CREATE TABLE rx (person_id int, drug text, given timestamp);
INSERT INTO rx SELECT 1 + g % 70, (ARRAY['heparin', 'insulin'])[1 + g % 2], TIMESTAMP '2025-02-01' + g * INTERVAL '1 hour' FROM generate_series(1, 200) g;
SQL
"$ASKQL" index --name "${DB}_ko" --target "$URL2" >/dev/null 2>&1
syn=$(psql -X -q -tA -d askql -c "SELECT array_to_string(synonyms, '|') FROM askql.cat_columns WHERE target = '${DB}_ko' AND table_name = 'person' AND name = 'dob'")
check "a date column named dob gets the date of birth's terms, not dobutamine's" \
	'[[ "|$syn|" == *"|date of birth|"* && "|$syn|" != *"|dobutamine|"* ]]' "$syn"
plan=$("$ASKQL" eval --target "${DB}_ko" --plan "how many patients were given dobutamine" 2>&1)
check "a drug named by a date column's abbreviation is not that date (no count of every person)" \
	'! grep -q "^sql: SELECT COUNT(DISTINCT person" <<<"$plan"' "$plan"
plan=$("$ASKQL" eval --target "${DB}_ko" --plan "how many female patients have a recorded date of death" 2>&1)
check "'a recorded date of death': the lexicon's term for dod, read as dod IS NOT NULL" \
	'grep -q "person.dod IS NOT NULL" <<<"$plan"' "$plan"
plan=$("$ASKQL" eval --target "${DB}_ko" --plan "average age at date of death of female patients" 2>&1)
check "a column named by several words and then left out is declined, naming it" \
	'grep -q "^status: ok" <<<"$plan" && grep -q "dod" <<<"$plan" || grep -q "date of death" <<<"$plan"' "$plan"

# ---- two event tables that both reference one dictionary (OMOP-style concept ids) ----
psql -X -q -d "${DB}_ko" >/dev/null <<'SQL'
CREATE TABLE concept (concept_id int PRIMARY KEY, concept_name text);
CREATE TABLE cond (cond_id int PRIMARY KEY, person_id int REFERENCES person, condition_concept_id int REFERENCES concept, start_date date);
CREATE TABLE meas (meas_id int PRIMARY KEY, person_id int REFERENCES person, measurement_concept_id int REFERENCES concept, source_value text, value numeric);
INSERT INTO concept VALUES (1, 'Essential hypertension'), (2, 'Asthma'), (3, 'Systolic blood pressure'), (4, 'Potassium');
INSERT INTO cond SELECT g, 1 + g % 70, 1 + g % 2, DATE '2025-01-01' + g FROM generate_series(1, 80) g;
INSERT INTO meas SELECT g, 1 + g % 70, 3 + g % 2, CASE WHEN g % 2 = 0 THEN 'SBP' ELSE 'K' END,
  CASE WHEN g % 2 = 0 THEN 70 + g % 80 ELSE 3 + (g % 30) / 10.0 END FROM generate_series(1, 300) g;
SQL
"$ASKQL" index --name "${DB}_ko" --target "$URL2" >/dev/null 2>&1
plan=$("$ASKQL" eval --target "${DB}_ko" --plan "list the asthma patients with hypotension" 2>&1)
check "a condition on another event table goes through the patient, not through the concept ids both reference" \
	'grep -q "person_id IN (SELECT meas.person_id FROM meas" <<<"$plan" && ! grep -q "concept_id IN (SELECT" <<<"$plan"' "$plan"
echo "1..$n"
