#!/usr/bin/env bash
# 26_phi.sh: PHI classification at indexing (catalog/phi.h): a target with names, registration numbers, phones,
# addresses, birth and admission dates and a psychiatric diagnosis; every column's class and evidence; an
# admin's correction that is audited and survives re-indexing; the demo's surrogate keys; bad input and rules.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
DB=phi_clinic_$$
TMP=$(mktemp -d)
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -30; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
appsql() { psql -X -q -tA -d askql -c "$1"; }
cleanup() {
	appsql "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	        DELETE FROM askql.cat_tables WHERE target = '$DB'; DELETE FROM askql.phi_corrections WHERE target = '$DB'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" >/dev/null <<'SQL'
-- a Korean hospital's patient master: every kind of identifier, some named only by their values
CREATE TABLE hwanja (
	ptnt_no   text PRIMARY KEY,
	ptnt_nm   text,
	jumin_no  text,
	c_contact text,          -- an opaque name: its values are mobile numbers
	email     text,
	addr      text,
	sido_nm   text,
	zip_cd    text,
	brth_dt   date,
	age       integer
);
COMMENT ON TABLE hwanja IS '환자 기본정보';
COMMENT ON COLUMN hwanja.ptnt_no IS '환자번호(등록번호)';
COMMENT ON COLUMN hwanja.ptnt_nm IS '환자명';
COMMENT ON COLUMN hwanja.addr IS '주소';
COMMENT ON COLUMN hwanja.sido_nm IS '거주지 시도';
COMMENT ON COLUMN hwanja.zip_cd IS '우편번호';
COMMENT ON COLUMN hwanja.brth_dt IS '생년월일';
INSERT INTO hwanja VALUES
 ('00012345', '홍길동', '800101-1234560', '010-1234-5678', 'hong@example.org', '서울특별시 종로구 대학로 101', '서울', '03080', '1980-01-01', 45),
 ('00012346', '김영희', '950715-2345678', '010-2222-3333', 'kim@example.org', '경기도 성남시 분당구 구미로 173', '경기', '13620', '1995-07-15', 30),
 ('00012347', '이철수', '020301-3123456', '010-9876-5432', 'lee@example.org', '부산광역시 서구 구덕로 179', '부산', '49241', '2002-03-01', 23),
 ('00012348', '박민수', '001231-4123459', '011-555-1234', 'park@example.org', '대구광역시 중구 동덕로 130', '대구', '41944', '2000-12-31', 24),
 ('00012349', '최지우', '850505-1000001', '010-4444-8888', 'choi@example.org', '광주광역시 동구 제봉로 42', '광주', '61469', '1933-05-05', 92);
-- admissions: an internal admission number and dates of care
CREATE TABLE ipwon (ipwon_no integer PRIMARY KEY, ptnt_no text REFERENCES hwanja, ipwon_dt timestamp,
	toewon_dt timestamp, ward_cd text);
COMMENT ON COLUMN ipwon.ipwon_no IS '입원번호';
COMMENT ON COLUMN ipwon.ipwon_dt IS '입원일시';
COMMENT ON COLUMN ipwon.toewon_dt IS '퇴원일시';
INSERT INTO ipwon SELECT g, '0001234' || (5 + g % 5), timestamp '2025-01-01' + g * interval '3 day',
	timestamp '2025-01-05' + g * interval '3 day', 'W' || (g % 3) FROM generate_series(1, 20) g;
-- diagnoses of patients: one schizophrenia code among ordinary ones
CREATE TABLE jindan (jindan_seq integer PRIMARY KEY, ptnt_no text REFERENCES hwanja, sick_cd text, sick_nm text);
COMMENT ON COLUMN jindan.sick_cd IS '상병코드(KCD)';
COMMENT ON COLUMN jindan.sick_nm IS '상병명';
INSERT INTO jindan VALUES (1, '00012345', 'I10', 'Essential hypertension'), (2, '00012346', 'E11.9', 'Type 2 diabetes'),
	(3, '00012347', 'F20.0', 'Paranoid schizophrenia'), (4, '00012348', 'K80.2', 'Gallstones'), (5, '00012349', 'J18.9', 'Pneumonia');
-- a code dictionary: every code, no patient
CREATE TABLE cm_kcd (sick_cd text PRIMARY KEY, sick_kor_nm text);
COMMENT ON TABLE cm_kcd IS '상병코드 사전';
INSERT INTO cm_kcd VALUES ('F20.0', '편집조현병'), ('F10.2', '알코올 의존'), ('I10', '본태성 고혈압');
-- lab results: a test "name" and 13-digit accession numbers that are not registration numbers
CREATE TABLE lab (caseid integer, name text, accession text, result numeric);
COMMENT ON COLUMN lab.name IS 'Lab test code: k potassium, na sodium';
-- accession numbers of 13 digits with a plausible date and sex digit: only a chance few pass the check digit
INSERT INTO lab SELECT g % 20, (ARRAY['k','na','hb'])[1 + g % 3],
	to_char(date '1980-01-01' + g, 'YYMMDD') || '1' || lpad((g * 7919 % 1000000)::text, 6, '0'), 4 + g % 3
	FROM generate_series(1, 60) g;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"

out=$("$ASKQL" index --target "$URL" 2>&1); rc=$?
check "index the clinic target" '[ $rc -eq 0 ] && grep -q "^indexed $DB" <<<"$out"' "$out"
j=$("$ASKQL" phi list --target "$DB" --json 2>&1)
echo "$j" > "$TMP/list1.json"
# column class rule evidence-substring
expect() {
	python3 - "$TMP/list1.json" "$@" <<'PY'
import json, sys
rows = {r["column"]: r for r in json.load(open(sys.argv[1]))}
col, cls, rule, ev = sys.argv[2:6]
r = rows.get(col)
assert r, f"{col} not listed"
assert r["class"] == cls, f"{col}: class {r['class']} (rule {r['rule']}: {r['evidence']}), expected {cls}"
assert (r["rule"] or "") == rule, f"{col}: rule {r['rule']}, expected {rule}"
assert ev in (r["evidence"] or ""), f"{col}: evidence {r['evidence']!r} lacks {ev!r}"
PY
}
while IFS='|' read -r col cls rule ev; do
	o=$(expect "$col" "$cls" "$rule" "$ev" 2>&1)
	check "$col is $cls ($rule)" '[ -z "$o" ]' "$o"
done <<'EOF'
hwanja.ptnt_no|direct|mrn|patient number
hwanja.ptnt_nm|direct|person_name|'ptnt_nm'
hwanja.jumin_no|direct|rrn|the name has 'jumin'
hwanja.c_contact|direct|phone|5 of 5 sampled values are telephone numbers
hwanja.email|direct|email|'email'
hwanja.addr|direct|address|'addr'
hwanja.sido_nm|quasi|area|the name has 'sido'
hwanja.zip_cd|quasi|postcode|'zip'
hwanja.brth_dt|quasi|birth_date|birth date
hwanja.age|quasi|age|1 of 5 sampled ages over 89 (largest 92)
ipwon.ipwon_no|none||
ipwon.ptnt_no|direct|mrn|patient number
ipwon.ipwon_dt|quasi|care_date|a date of care
ipwon.toewon_dt|quasi|care_date|a date of care
ipwon.ward_cd|none||
jindan.sick_cd|sensitive|code|F200
jindan.sick_nm|sensitive|label|schizophrenia
cm_kcd.sick_cd|none||a code dictionary
lab.name|none||not a table of persons
lab.accession|none||
lab.caseid|none||
EOF
check "the registration numbers' evidence counts them and never shows one" \
	'python3 -c "import json,sys; r={x[\"column\"]:x for x in json.load(open(sys.argv[1]))}; e=r[\"hwanja.jumin_no\"][\"evidence\"]; \
assert \"5 of 5 sampled values are resident registration numbers\" in e, e; assert \"800101\" not in json.dumps(list(r.values()))" "$TMP/list1.json"' \
	"$(grep -A3 jumin_no "$TMP/list1.json")"
nv=$(appsql "SELECT count(*) FROM askql.cat_values WHERE target = '$DB' AND table_name = 'hwanja' AND column_name IN ('ptnt_nm', 'addr', 'jumin_no')")
nd=$(appsql "SELECT count(*) FROM askql.cat_values WHERE target = '$DB' AND table_name = 'jindan' AND column_name = 'sick_cd'")
check "a direct identifier's values are kept out of the value index; a diagnosis code's stay" '[ "$nv" = 0 ] && [ "$nd" -ge 5 ]' "names etc.: $nv, codes: $nd"
out=$("$ASKQL" phi list --target "$DB" --table hwanja 2>&1)
check "phi list prints a table's columns with class, rule and evidence" \
	'grep -Eq "^hwanja\.ptnt_no +direct +mrn +medical record" <<<"$out" && [ $(grep -c "^hwanja\." <<<"$out") -eq 10 ]' "$out"

# ---- an admin's correction: audited, kept across re-indexing --------------------------------
out=$("$ASKQL" phi set --target "$DB" ipwon.ipwon_no direct 2>&1); rc=$?
check "phi set without --reason: usage error" '[ $rc -eq 2 ] && grep -q "reason TEXT is required" <<<"$out"' "$out"
out=$("$ASKQL" phi set --target "$DB" ipwon.ipwon_no secret --reason x 2>&1); rc=$?
check "phi set with an unknown class: usage error" '[ $rc -eq 2 ] && grep -q "one of direct, quasi, sensitive, none" <<<"$out"' "$out"
out=$("$ASKQL" phi set --target "$DB" ipwon.nope direct --reason x 2>&1); rc=$?
check "phi set of an unknown column: clear error" '[ $rc -eq 1 ] && grep -q "no column public.ipwon.nope in the catalog" <<<"$out"' "$out"
out=$("$ASKQL" phi set --target "$DB" ipwon.ipwon_no direct --reason "$(head -c 600 /dev/zero | tr '\0' x)" 2>&1); rc=$?
check "phi set with a reason over 500 bytes: clear error" '[ $rc -eq 1 ] && grep -q "1 to 500 bytes" <<<"$out"' "$out"
out=$("$ASKQL" phi set --target "$DB" ipwon.ipwon_no direct --by nosuchadmin --reason x 2>&1); rc=$?
check "phi set --by a name that is no admin: refused" '[ $rc -eq 1 ] && grep -q "names no admin account" <<<"$out"' "$out"
v0=$(appsql "SELECT version FROM askql.cat_targets WHERE name = '$DB'")
out=$("$ASKQL" phi set --target "$DB" ipwon.ipwon_no direct --by admin --reason "입원번호 is printed on wristbands and forms here" 2>&1); rc=$?
check "phi set ipwon.ipwon_no direct" '[ $rc -eq 0 ] && grep -q "is now direct" <<<"$out"' "$out"
v1=$(appsql "SELECT version FROM askql.cat_targets WHERE name = '$DB'")
check "the correction bumps the catalog version (workers reload)" '[ "$v1" -gt "$v0" ]' "$v0 -> $v1"
a=$(appsql "SELECT u.name || '|' || (a.detail->>'column') || '|' || (a.detail->>'class') || '|' || (a.detail->>'previous') || '|' || (a.detail->>'reason')
            FROM askql.audit a LEFT JOIN askql.users u ON u.id = a.user_id WHERE a.action = 'phi.set' AND a.detail->>'target' = '$DB' ORDER BY a.id DESC LIMIT 1")
check "the correction is audited (who, column, class, previous class, reason)" \
	'[ "$a" = "admin|public.ipwon.ipwon_no|direct|none|입원번호 is printed on wristbands and forms here" ]' "$a"
out=$("$ASKQL" index --target "$DB" --force 2>&1); rc=$?
check "re-index (--force) after the correction" '[ $rc -eq 0 ]' "$out"
j=$("$ASKQL" phi list --target "$DB" --json 2>&1)
check "the correction survived re-indexing and wins over the classifier" \
	'python3 -c "import json,sys; r={x[\"column\"]:x for x in json.loads(sys.argv[1])}[\"ipwon.ipwon_no\"]; \
assert r[\"class\"]==\"direct\" and r[\"classified\"]==\"none\" and r[\"corrected\"] and r[\"set_by\"]==\"cli:admin\" and \"wristbands\" in r[\"reason\"], r" "$j"' "$j"
e=$(appsql "SELECT class || '|' || classified || '|' || corrected FROM askql.phi_columns WHERE target = '$DB' AND table_name = 'ipwon' AND column_name = 'ipwon_no'")
check "the view askql.phi_columns gives the effective class" '[ "$e" = "direct|none|true" ]' "$e"
out=$("$ASKQL" phi clear --target "$DB" ipwon.ipwon_no --reason "checked: not printed after all" 2>&1); rc=$?
c=$(appsql "SELECT count(*) FROM askql.audit WHERE action = 'phi.clear' AND detail->>'target' = '$DB' AND detail->>'previous' = 'direct'")
e=$(appsql "SELECT class || '|' || corrected FROM askql.phi_columns WHERE target = '$DB' AND table_name = 'ipwon' AND column_name = 'ipwon_no'")
check "phi clear: the classifier decides again, audited as phi.clear" '[ $rc -eq 0 ] && [ "$c" = 1 ] && [ "$e" = "none|false" ]' "$out $c $e"
out=$("$ASKQL" phi clear --target "$DB" ipwon.ipwon_no --reason again 2>&1); rc=$?
check "phi clear with nothing to clear: clear error" '[ $rc -eq 1 ] && grep -q "no correction to clear" <<<"$out"' "$out"

# ---- bad rules: indexing stops, the catalog stays -----------------------------------------
printf 'rrn\tdirect\tname\trrn\nphone\tdirect\tnumber\ttel\n' > "$TMP/bad.tsv"
before=$(appsql "SELECT version FROM askql.cat_targets WHERE name = '$DB'")
out=$(ASKQL_PHI_RULES_FILE="$TMP/bad.tsv" "$ASKQL" index --target "$DB" --force 2>&1); rc=$?
after=$(appsql "SELECT version FROM askql.cat_targets WHERE name = '$DB'")
check "a bad rules file stops indexing with file, line and reason; the catalog is kept" \
	'[ $rc -ne 0 ] && grep -q "bad.tsv:2: rule phone cannot use field .number." <<<"$out" && [ "$before" = "$after" ]' "$out"
out=$("$ASKQL" phi check "$TMP/bad.tsv" 2>&1); rc=$?
check "phi check names the same problem" '[ $rc -eq 1 ] && grep -q "bad.tsv:2:" <<<"$out"' "$out"

# ---- the demo: surrogate keys and things named 'name' are no identifiers; dates of care are ----
j=$("$ASKQL" phi list --target demo --json 2>&1)
check "demo: subjectid/caseid are surrogate keys, lab and diagnosis names are things, casestart and dt are dates of care" \
	'python3 -c "import json,sys; r={x[\"column\"]:x[\"class\"] for x in json.loads(sys.argv[1])}; \
want={\"clinical_data_table.subjectid\":\"none\",\"clinical_data_table.caseid\":\"none\",\"diagnosis_table.subject_id\":\"none\", \
\"lab_data_table.name\":\"none\",\"diagnosis_table.name\":\"none\",\"medication_data_table.drug\":\"none\", \
\"clinical_data_table.casestart\":\"quasi\",\"vital_data_table.dt\":\"quasi\",\"clinical_data_table.age\":\"quasi\"}; \
bad={k:(r.get(k),v) for k,v in want.items() if r.get(k)!=v}; assert not bad, bad; \
assert not [k for k,v in r.items() if v==\"direct\"], [k for k,v in r.items() if v==\"direct\"]" "$j"' "$j"
echo "1..$n"
