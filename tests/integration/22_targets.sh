#!/usr/bin/env bash
# 22_targets.sh: the target registry from the CLI: add/list/test/rm, resolving a URL to its
# registered target, index then ask with only the URL, and the clear errors for the rest.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
DB=tgt_clinic_$$
DB2=tgt_unindexed_$$
RW=tgt_rw_$$
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
appsql() { psql -X -q -tA -d askql -c "$1"; }
cleanup() {
	appsql "DELETE FROM askql.targets WHERE name IN ('$DB', '$DB2', 'clinic_$$'); DELETE FROM askql.cat_targets WHERE name IN ('$DB', '$DB2', 'clinic_$$')" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB2" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS $RW" >/dev/null 2>&1
}
trap cleanup EXIT

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d postgres -c "CREATE DATABASE $DB2" >/dev/null
psql -X -q -d postgres -c "CREATE ROLE $RW LOGIN PASSWORD 'sekr3t-pw'" >/dev/null
psql -X -q -d "$DB" >/dev/null <<SQL
CREATE TABLE ward (ward_id int PRIMARY KEY, ward_name text NOT NULL);
COMMENT ON TABLE ward IS 'Hospital wards (병동)';
CREATE TABLE admission (adm_id int PRIMARY KEY, ward_id int REFERENCES ward, age int, outcome text);
COMMENT ON TABLE admission IS 'Admissions (입원)';
COMMENT ON COLUMN admission.outcome IS 'Discharge outcome (퇴원 결과)';
INSERT INTO ward VALUES (1, 'Medical ICU'), (2, 'Surgical ward');
INSERT INTO admission SELECT g, 1 + g % 2, 30 + g % 50, CASE WHEN g % 7 = 0 THEN 'EXPIRED' ELSE 'DISCHARGED' END
  FROM generate_series(1, 37) g;
GRANT CONNECT ON DATABASE $DB TO askql_reader;
GRANT USAGE ON SCHEMA public TO askql_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader;
GRANT INSERT ON admission TO $RW;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO $RW;
SQL
H="host=$PGHOST port=$PGPORT"
URL="$H dbname=$DB user=${PGUSER:-askql}"
RO="$H dbname=$DB user=askql_reader"

# ---- the configured target is registered and the default ----
out=$("$ASKQL" target list 2>&1)
check "target list shows the configured demo as the default" 'grep -Eq "^demo +yes" <<<"$out"' "$out"

# ---- errors before anything is registered ----
out=$("$ASKQL" ask --target "$URL" "how many admissions are there" 2>&1); rc=$?
check "ask against an unregistered, unindexed URL: clear error naming askql index" \
	'[ $rc -ne 0 ] && grep -q "neither registered nor indexed" <<<"$out" && grep -q "askql index --target" <<<"$out"' "$out"
out=$("$ASKQL" ask --target nosuchtarget "how many admissions are there" 2>&1); rc=$?
check "ask against an unknown name: clear error" '[ $rc -ne 0 ] && grep -q "no target named .nosuchtarget." <<<"$out"' "$out"
out=$("$ASKQL" search --target "$URL" "admissions" 2>&1); rc=$?
check "search against an unregistered URL: clear error" '[ $rc -ne 0 ] && grep -q "neither registered nor indexed" <<<"$out"' "$out"
out=$("$ASKQL" target add "bad name!" "$URL" 2>&1); rc=$?
check "target add with a bad name: usage error" '[ $rc -eq 2 ] && grep -q "target name is" <<<"$out"' "$out"
out=$("$ASKQL" target add x "host='unterminated" 2>&1); rc=$?
check "target add with a conninfo that does not parse: clear error" '[ $rc -ne 0 ] && grep -q "does not parse" <<<"$out"' "$out"

# ---- index with only the URL registers it; ask with only the URL uses its catalog ----
out=$("$ASKQL" index --target "$URL" 2>&1); rc=$?
check "index --target URL indexes and registers the database under its name" \
	'[ $rc -eq 0 ] && grep -q "registered target .$DB." <<<"$out" && grep -q "^indexed $DB" <<<"$out"' "$out"
out=$("$ASKQL" ask --json --no-cache --target "$URL" "how many admissions are there" 2>&1); rc=$?
check "ask --target URL answers from that database's catalog (37 admissions)" \
	'[ $rc -eq 0 ] && python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d[\"status\"]==\"ok\", d; assert \"admission\" in d[\"sql\"]; assert d[\"rows\"]==[[37]], d[\"rows\"]" "$out"' "$out"
rt=$(appsql "SELECT target FROM askql.runs ORDER BY id DESC LIMIT 1")
check "the run records its target" '[ "$rt" = "$DB" ]' "$rt"
out=$("$ASKQL" ask --json --no-cache --target "$DB" "how many admissions are there" 2>&1)
check "the same by name" 'python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d[\"rows\"]==[[37]], d" "$out"' "$out"
out=$("$ASKQL" ask --json --no-cache --target "postgresql://${PGUSER:-askql}@localhost:$PGPORT/$DB?host=$PGHOST" "how many admissions are there" 2>&1)
check "the same database as a URI resolves to the same target" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d[\"rows\"]==[[37]], d" "$out"' "$out"
out=$("$ASKQL" ask --json --no-cache "how many admissions are there" 2>&1)
check "without --target the default (demo) is used, which has no admissions table" \
	'! python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d[\"rows\"]==[[37]]" "$out" 2>/dev/null' "$out"
out=$("$ASKQL" ask --target "$URL" --name demo "how many admissions are there" 2>&1); rc=$?
check "a URL paired with another target's name is refused" '[ $rc -ne 0 ] && grep -q "names the database of target" <<<"$out"' "$out"
out=$("$ASKQL" index --target "$URL" --name "clinic_$$" 2>&1); rc=$?
check "indexing one database under a second name is refused" '[ $rc -ne 0 ] && grep -q "names the database of target" <<<"$out"' "$out"
out=$("$ASKQL" guard --target "$URL" "SELECT count(*) FROM vital_data_table" 2>&1); rc=$?
check "the guard uses the target's catalog: a demo table is unknown there" '[ $rc -ne 0 ]' "$out"
out=$("$ASKQL" guard --target "$DB" "SELECT count(*) FROM admission" 2>&1); rc=$?
check "the guard accepts the target's own table" '[ $rc -eq 0 ]' "$out"

# ---- the query cache never answers a run of another provider or model ----
"$ASKQL" ask --json --target "$DB" "how many admissions are there" >/dev/null 2>&1
out=$("$ASKQL" ask --json --target "$DB" "how many admissions are there" 2>&1)
hits=$(appsql "SELECT count(*) FROM askql.query_cache WHERE target = '$DB'")
check "a builtin answer is cached for its target" '[ "$hits" -ge 1 ] && grep -q "\"status\":\"ok\"" <<<"$out"' "$out"
out=$(ASKQL_LLM_BASE_URL=http://127.0.0.1:1/v1 ASKQL_LLM_RETRIES=0 ASKQL_LLM_TIMEOUT_MS=2000 \
	"$ASKQL" ask --json --provider openai --target "$DB" "how many admissions are there" 2>/dev/null)
check "an openai run of the same question is not served the builtin answer from the cache" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d[\"status\"]!=\"ok\", d" "$out"' "$out"

# ---- a registered but not indexed target ----
out=$("$ASKQL" target add "$DB2" "$H dbname=$DB2 user=$RW password=sekr3t-pw" --ro "$H dbname=$DB2 user=$RW password='sekr3t-pw'" 2>&1); rc=$?
check "target add registers a second database" '[ $rc -eq 0 ] && grep -q "askql target test $DB2" <<<"$out"' "$out"
out=$("$ASKQL" target list 2>&1)
check "target list masks passwords" 'grep -q "$DB2" <<<"$out" && ! grep -q "sekr3t" <<<"$out" && grep -q "password=\*\*\*\*" <<<"$out"' "$out"
out=$("$ASKQL" target add "${DB2}" "$URL" 2>&1); rc=$?
check "a duplicate name is refused" '[ $rc -ne 0 ] && grep -q "already registered" <<<"$out"' "$out"
out=$("$ASKQL" target add "other_$$" "$RO" 2>&1); rc=$?
check "a second name for a registered database is refused" '[ $rc -ne 0 ] && grep -q "already registered as .$DB." <<<"$out"' "$out"
out=$("$ASKQL" ask --target "$DB2" "how many admissions are there" 2>&1); rc=$?
check "ask against a registered target that is not indexed: clear error" '[ $rc -ne 0 ] || grep -qi "not indexed\|index" <<<"$out"' "$out"

# ---- target test: versions, privileges, loud warnings ----
psql -X -q -d "$DB2" -c "CREATE TABLE t (x int); GRANT SELECT, INSERT ON t TO $RW" >/dev/null
out=$("$ASKQL" target test "$DB2" 2>&1); rc=$?
check "target test warns loudly when the read-only role can write" \
	'[ $rc -eq 0 ] && grep -q "server version: *15" <<<"$out" && grep -q "WARNING: the read-only role can write 1 table" <<<"$out" && ! grep -q sekr3t <<<"$out"' "$out"
appsql "UPDATE askql.targets SET ro_conninfo = '$RO' WHERE name = '$DB'" >/dev/null
out=$("$ASKQL" target test "$URL" 2>&1); rc=$?
check "target test of a least-privilege role: no warnings" \
	'[ $rc -eq 0 ] && grep -q "read-only role: *askql_reader (reads 2 tables; writes 0" <<<"$out" && ! grep -q WARNING <<<"$out"' "$out"
appsql "UPDATE askql.targets SET ro_conninfo = '$H dbname=$DB user=askql_reader password=wrong port=1' WHERE name = '$DB'" >/dev/null
out=$("$ASKQL" target test "$DB" 2>&1); rc=$?
check "target test of a connection that fails: exit 1 with the reason" '[ $rc -ne 0 ] && grep -qi "read-only connection: .*\(connect\|refused\|No such\|no PostgreSQL server answered\)" <<<"$out"' "$out"
appsql "UPDATE askql.targets SET ro_conninfo = '$RO' WHERE name = '$DB'" >/dev/null

# ---- default, rm ----
out=$("$ASKQL" target rm demo 2>&1); rc=$?
check "the configured target cannot be removed" '[ $rc -ne 0 ] && grep -q "configured in askql.conf" <<<"$out"' "$out"
out=$("$ASKQL" target default "$DB" 2>&1) && out=$("$ASKQL" ask --json --no-cache "how many admissions are there" 2>&1)
check "target default switches what a bare ask uses" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); assert d[\"rows\"]==[[37]], d" "$out"' "$out"
"$ASKQL" target default demo >/dev/null 2>&1
out=$("$ASKQL" target rm "$DB" 2>&1); rc=$?
check "target rm removes the target and its catalog" \
	'[ $rc -eq 0 ] && [ "$(appsql "SELECT count(*) FROM askql.cat_targets WHERE name = '"'$DB'"'")" = 0 ]' "$out"
out=$("$ASKQL" ask --target "$URL" "how many admissions are there" 2>&1); rc=$?
check "after rm, the URL is a clear error again" '[ $rc -ne 0 ] && grep -q "neither registered nor indexed" <<<"$out"' "$out"
echo "1..$n"
