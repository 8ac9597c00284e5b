#!/usr/bin/env bash
# 20_catalog.sh: askql index/search on the demo and on a second database without foreign keys; error paths keep the catalog.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
T2=catalog_t2_$$
ROLE=catalog_noperm_$$
TMP=$(mktemp -d)
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
appsql() { psql -X -q -tA -d askql -c "$1"; }
cleanup() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $T2" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS ${T2}_oa" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP ROLE IF EXISTS $ROLE" >/dev/null 2>&1
	appsql "DELETE FROM askql.targets WHERE name IN ('$T2', '${T2}_oa', '${T2}_x'); DELETE FROM askql.cat_targets WHERE name IN ('$T2', '${T2}_oa'); DELETE FROM askql.cat_fk_decisions WHERE target = '$T2'" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
[ -n "${KEEP:-}" ] && trap - EXIT
# jq-free JSON checks
py() { python3 -c "$1" "$2"; }

# ---- the demo -------------------------------------------------------------------------------
out=$("$ASKQL" index --name demo 2>&1)
check "index demo" '[ $? -eq 0 ] || grep -q "^indexed demo" <<<"$out"' "$out"
v1=$(appsql "SELECT version FROM askql.cat_targets WHERE name = 'demo'")
out=$("$ASKQL" index --name demo 2>&1)
v2=$(appsql "SELECT version FROM askql.cat_targets WHERE name = 'demo'")
check "re-index without changes keeps the version" '[ "$v1" = "$v2" ] && grep -q "(unchanged)" <<<"$out"' "$out"

j=$("$ASKQL" search --json "환자별 평균 심박수" 2>&1)
check "환자별 평균 심박수: vital_data_table.hr and clinical_data_table.subjectid with the join path" \
	'py "import json,sys; d=json.loads(sys.argv[1]); c={(x[\"table\"],x[\"name\"]) for x in d[\"columns\"]}; \
assert (\"vital_data_table\",\"hr\") in c and (\"clinical_data_table\",\"subjectid\") in c; \
assert any(j[\"from_table\"]==\"vital_data_table\" and j[\"to_table\"]==\"clinical_data_table\" and j[\"to_col\"]==\"caseid\" \
for p in d[\"join_paths\"] for j in p[\"joins\"]); assert d[\"intent\"]==\"aggregation\"" "$j"' "$j"

j=$("$ASKQL" search --json "hypotension patients' potassium" 2>&1)
check "hypotension patients' potassium: sbp, lab_data_table, potassium -> name='k'" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert any(x[\"name\"]==\"sbp\" for x in d[\"columns\"]); \
assert any(t[\"name\"]==\"lab_data_table\" for t in d[\"tables\"]); \
assert any(v[\"phrase\"]==\"potassium\" and v[\"table\"]==\"lab_data_table\" and v[\"column\"]==\"name\" and v[\"value\"]==\"k\" for v in d[\"value_mappings\"]); \
assert any(k[\"name\"]==\"hypotension\" for k in d[\"concepts\"]); assert \"sbp < 90\" in d[\"prompt_block\"]" "$j"' "$j"

j=$("$ASKQL" search --json "저혈압 환자의 칼륨" 2>&1)
check "저혈압 환자의 칼륨: Korean particles stripped, 칼륨 -> name='k'" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert any(v[\"phrase\"]==\"칼륨\" and v[\"value\"]==\"k\" for v in d[\"value_mappings\"]); \
assert any(x[\"name\"]==\"sbp\" for x in d[\"columns\"])" "$j"' "$j"

j=$("$ASKQL" search --json "여성 일반외과 환자 수" 2>&1)
check "value synonyms: 여성 -> sex='F', 일반외과 -> department='General surgery'" \
	'py "import json,sys; d=json.loads(sys.argv[1]); m={(v[\"column\"],v[\"value\"]) for v in d[\"value_mappings\"]}; \
assert (\"sex\",\"F\") in m and (\"department\",\"General surgery\") in m" "$j"' "$j"

j=$("$ASKQL" search --json "zzqx vvkw" 2>&1)
check "nothing relevant: suggestions instead of an empty answer" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert not d[\"tables\"] and len(d[\"suggestions\"])>1" "$j"' "$j"

# the budget bounds the optional lines; the tables the question reaches stay (whole schema off)
j=$(ASKQL_CONTEXT_WHOLE_SCHEMA_TOKENS=0 "$ASKQL" search --json --budget 120 "hypotension patients' potassium" 2>&1)
j2=$(ASKQL_CONTEXT_WHOLE_SCHEMA_TOKENS=0 "$ASKQL" search --json --budget 3000 "hypotension patients' potassium" 2>&1)
check "a small budget trims the block but keeps the reached tables" \
	'python3 -c "import json,sys; d=json.loads(sys.argv[1]); e=json.loads(sys.argv[2]); assert 0 < d[\"prompt_tokens\"] < e[\"prompt_tokens\"]; \
b=d[\"prompt_block\"]; assert \"Table: lab_data_table\" in b and \"Table: vital_data_table\" in b" "$j" "$j2"' "$j"

out=$(ASKQL_EMBED_DIM=128 "$ASKQL" search --json "심박수" 2>&1)
check "searching with a different embedding dimension is refused" \
	'[ $? -ne 0 ] || true; grep -q "was built with embedding builtin/256" <<<"$out"' "$out"

# verified question-SQL pairs come back for similar questions
j=$("$ASKQL" search --json --add-verified "SELECT avg(hr) FROM vital_data_table" "평균 심박수" 2>&1)
j=$("$ASKQL" search --json "환자별 평균 심박수는?" 2>&1)
check "verified pairs: a similar question finds the stored SQL" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert any(s[\"sql\"].startswith(\"SELECT avg(hr)\") for s in d[\"similar\"])" "$j"' "$j"
appsql "DELETE FROM askql.cat_verified WHERE target = 'demo' AND question = '평균 심박수'" >/dev/null

# admin edits (askql.catalog_edits) are merged by the next index run
eid=$(appsql "INSERT INTO askql.catalog_edits (kind, tbl, col, phrase, value) VALUES ('mapping', 'medication_data_table', 'drug', '네오시네프린', 'phenylephrine') RETURNING id")
"$ASKQL" index --name demo >/dev/null 2>&1
j=$("$ASKQL" search --json "네오시네프린 투여 환자" 2>&1)
check "admin value mapping merged by the indexer" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert any(v[\"value\"]==\"phenylephrine\" and v[\"column\"]==\"drug\" for v in d[\"value_mappings\"])" "$j"' "$j"
appsql "DELETE FROM askql.catalog_edits WHERE id = $eid" >/dev/null
"$ASKQL" index --name demo >/dev/null 2>&1

# ---- a second database: another schema, no declared foreign keys ----------------------------
psql -X -q -d postgres -c "CREATE DATABASE $T2" >/dev/null
psql -X -q -d "$T2" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE SCHEMA ward;
CREATE TABLE ward.patients (patient_id integer PRIMARY KEY, gender text, birth_year integer);
CREATE TABLE ward.admissions (hadm_id integer PRIMARY KEY, patient_id integer, admit_time timestamp,
	discharge_time timestamp, admission_type text);
CREATE TABLE ward.d_labitems (itemid integer PRIMARY KEY, label text, fluid text);
CREATE TABLE ward.labevents (row_id serial, hadm_id integer, itemid integer, charttime timestamp, valuenum numeric);
COMMENT ON TABLE ward.labevents IS 'laboratory measurements of an admission';
COMMENT ON COLUMN ward.labevents.valuenum IS 'numeric lab value';
INSERT INTO ward.patients SELECT g, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END, 1940 + g % 50 FROM generate_series(1, 200) g;
INSERT INTO ward.admissions SELECT g, 1 + g % 200, '2024-01-01'::timestamp + g * interval '7 hours',
	'2024-01-03'::timestamp + g * interval '7 hours', (ARRAY['EMERGENCY','ELECTIVE','URGENT'])[1 + g % 3]
	FROM generate_series(1, 400) g;
INSERT INTO ward.d_labitems VALUES (50931, 'Glucose', 'Blood'), (50971, 'Potassium', 'Blood'),
	(50983, 'Sodium', 'Blood'), (50813, 'Lactate', 'Blood');
INSERT INTO ward.labevents (hadm_id, itemid, charttime, valuenum)
	SELECT 1 + g % 400, (ARRAY[50931, 50971, 50983, 50813])[1 + g % 4], '2024-01-01'::timestamp + g * interval '1 hour',
	100 + g % 50 FROM generate_series(1, 3000) g;
ANALYZE;
SQL
conn2="host=$PGHOST port=$PGPORT dbname=$T2 user=askql"
out=$("$ASKQL" index --target "$conn2" --name "$T2" 2>&1)
check "index a second database" '[ $? -eq 0 ] && grep -q "^indexed $T2" <<<"$out"' "$out"
check "foreign keys inferred from names and value overlap" \
	'[ "$(appsql "SELECT count(*) FROM askql.cat_fks WHERE target = '"'$T2'"' AND inferred AND
	  ((from_table = '"'labevents'"' AND from_col = '"'hadm_id'"' AND to_table = '"'admissions'"') OR
	   (from_table = '"'admissions'"' AND from_col = '"'patient_id'"' AND to_table = '"'patients'"') OR
	   (from_table = '"'labevents'"' AND from_col = '"'itemid'"' AND to_table = '"'d_labitems'"'))")" = 3 ]' \
	"$(appsql "SELECT from_table, from_col, to_table, to_col, inferred, score FROM askql.cat_fks WHERE target = '$T2'")"

j=$("$ASKQL" search --name "$T2" --json "average glucose per patient" 2>&1)
check "second database: glucose -> d_labitems.label, inferred join path to patients" \
	'py "import json,sys; d=json.loads(sys.argv[1]); \
assert any(v[\"value\"]==\"Glucose\" and v[\"column\"]==\"label\" for v in d[\"value_mappings\"]); \
js=[j for p in d[\"join_paths\"] for j in p[\"joins\"]]; assert js and all(j[\"inferred\"] for j in js); \
names={t[\"name\"] for t in d[\"tables\"]}; assert \"ward.labevents\" in names and \"ward.patients\" in names" "$j"' "$j"

# admin decisions on inferred edges survive re-indexing
"$ASKQL" index --name "$T2" --fk-remove ward.labevents.itemid=ward.d_labitems.itemid >/dev/null 2>&1
"$ASKQL" index --target "$conn2" --name "$T2" --force >/dev/null 2>&1
check "a removed inferred edge stays removed after re-indexing" \
	'[ "$(appsql "SELECT count(*) FROM askql.cat_fks WHERE target = '"'$T2'"' AND from_col = '"'itemid'"'")" = 0 ]'
"$ASKQL" index --name "$T2" --fk-confirm ward.labevents.itemid=ward.d_labitems.itemid >/dev/null 2>&1
check "a confirmed edge is back and marked confirmed" \
	'[ "$(appsql "SELECT count(*) FROM askql.cat_fks WHERE target = '"'$T2'"' AND from_col = '"'itemid'"' AND confirmed")" = 1 ]'

# change detection: one changed table is re-indexed, a new version is written
v1=$(appsql "SELECT version FROM askql.cat_targets WHERE name = '$T2'")
psql -X -q -d "$T2" -c "COMMENT ON COLUMN ward.admissions.admission_type IS 'how the patient was admitted'" >/dev/null
out=$("$ASKQL" index --target "$conn2" --name "$T2" 2>&1)
v2=$(appsql "SELECT version FROM askql.cat_targets WHERE name = '$T2'")
check "a changed comment re-indexes one table under a new version" \
	'[ "$v2" = $((v1 + 1)) ] && grep -q "1 tables re-indexed" <<<"$out"' "$out"

# the openai embedding provider against a local OpenAI-compatible /v1/embeddings endpoint
cat >"$TMP/emb.py" <<'PY'
import hashlib, json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if not self.path.endswith("/embeddings") or self.headers.get("Authorization") != "Bearer sk-test":
            self.send_response(401); self.end_headers(); return
        data = []
        for i, text in enumerate(body["input"]):
            v = [0.0] * 16
            for w in text.lower().split():
                h = hashlib.sha256(w.encode()).digest()
                v[h[0] % 16] += 1.0
            v[15] += 0.01
            data.append({"object": "embedding", "index": i, "embedding": v})
        out = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
s = HTTPServer(("127.0.0.1", 0), H)
print(s.server_port, flush=True)
s.serve_forever()
PY
python3 "$TMP/emb.py" >"$TMP/emb.port" &
EMBPID=$!
for _ in $(seq 50); do [ -s "$TMP/emb.port" ] && break; sleep 0.1; done
export_emb() { ASKQL_EMBED_PROVIDER=openai ASKQL_EMBED_DIM=16 ASKQL_EMBED_MODEL=test-embed \
	ASKQL_EMBED_API_KEY=sk-test ASKQL_EMBED_BASE_URL="http://127.0.0.1:$(cat "$TMP/emb.port")/v1" "$@"; }
# one database has one catalog: the openai-embedded catalog is of a copy of the database
psql -X -q -d postgres -c "CREATE DATABASE ${T2}_oa TEMPLATE $T2" >/dev/null
conn_oa="host=$PGHOST port=$PGPORT dbname=${T2}_oa user=${PGUSER:-askql}"
out=$(export_emb "$ASKQL" index --target "$conn2" --name "${T2}_oa" 2>&1)
check "the same database under a second name is refused" '[ $? -ne 0 ] && grep -q "names the database of target" <<<"$out"' "$out"
out=$(export_emb "$ASKQL" index --target "$conn_oa" --name "${T2}_oa" 2>&1)
check "openai provider: index through /v1/embeddings" '[ $? -eq 0 ] && grep -q "^indexed ${T2}_oa" <<<"$out" &&
	[ "$(appsql "SELECT embed_provider || embed_dim FROM askql.cat_targets WHERE name = '"'${T2}_oa'"'")" = openai16 ]' "$out"
j=$(export_emb "$ASKQL" search --name "${T2}_oa" --json "admission type" 2>&1)
check "openai provider: search embeds the question the same way" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert any(c[\"name\"]==\"admission_type\" for c in d[\"columns\"])" "$j"' "$j"
out=$("$ASKQL" search --name "${T2}_oa" --json "admission type" 2>&1)
check "openai-built catalog searched with builtin is refused" 'grep -q "was built with embedding openai/16" <<<"$out"' "$out"
kill "$EMBPID" 2>/dev/null; wait "$EMBPID" 2>/dev/null
out=$(export_emb "$ASKQL" index --target "$conn_oa" --name "${T2}_oa" --force 2>&1)
check "embedding endpoint down: clear error, catalog intact" \
	'grep -q "embedding request" <<<"$out" && [ "$(appsql "SELECT count(*) FROM askql.cat_columns WHERE target = '"'${T2}_oa'"'")" -gt 0 ]' "$out"

# errors leave the previous catalog intact
cnt() { appsql "SELECT version, (SELECT count(*) FROM askql.cat_columns WHERE target = '$T2') FROM askql.cat_targets WHERE name = '$T2'"; }
before=$(cnt)
out=$("$ASKQL" index --target "host=/nonexistent-dir port=1 dbname=nope connect_timeout=2" --name "$T2" 2>&1)
rc=$?
check "a registered name for another database: clear error, catalog intact" \
	'[ $rc -ne 0 ] && grep -q "registered for another database" <<<"$out" && [ "$(cnt)" = "$before" ]' "$out"
out=$("$ASKQL" index --target "host=/nonexistent-dir port=1 dbname=nope connect_timeout=2" --name "${T2}_x" 2>&1)
rc=$?
check "unreachable new target: clear error, nothing registered, catalog intact" \
	'[ $rc -ne 0 ] && grep -q "cannot connect" <<<"$out" && [ "$(cnt)" = "$before" ] &&
	[ "$(appsql "SELECT count(*) FROM askql.targets WHERE name = '"'${T2}_x'"'")" = 0 ]' "$out"

mkdir -p "$TMP/docs"
printf 'no heading here\n' >"$TMP/docs/labevents.md"
out=$("$ASKQL" index --target "$conn2" --name "$T2" --docs "$TMP/docs" 2>&1)
rc=$?
check "malformed doc: clear error naming the file, catalog intact" \
	'[ $rc -ne 0 ] && grep -q "labevents.md" <<<"$out" && grep -q "# Table:" <<<"$out" && [ "$(cnt)" = "$before" ]' "$out"

printf '{"columns": {"ward.labevents.valuenum": {"unit": "mg/dL",}}}' >"$TMP/bad.json"
out=$("$ASKQL" index --target "$conn2" --name "$T2" --metadata "$TMP/bad.json" 2>&1)
rc=$?
check "malformed metadata: clear error, catalog intact" \
	'[ $rc -ne 0 ] && grep -q "bad.json" <<<"$out" && [ "$(cnt)" = "$before" ]' "$out"

psql -X -q -d postgres -c "CREATE ROLE $ROLE LOGIN PASSWORD 'pw-$ROLE'" >/dev/null
out=$("$ASKQL" index --target "host=$PGHOST port=$PGPORT dbname=$T2 user=$ROLE password=pw-$ROLE" --name "$T2" 2>&1)
rc=$?
check "missing permissions: clear error, catalog intact" \
	'[ $rc -ne 0 ] && grep -q "may not SELECT" <<<"$out" && [ "$(cnt)" = "$before" ]' "$out"

j=$("$ASKQL" search --name "$T2" --json "potassium values" 2>&1)
check "the previous catalog still answers after the failed runs" \
	'py "import json,sys; d=json.loads(sys.argv[1]); assert any(v[\"value\"]==\"Potassium\" for v in d[\"value_mappings\"])" "$j"' "$j"

# a dropped table disappears from the catalog
psql -X -q -d "$T2" -c "DROP TABLE ward.d_labitems" >/dev/null
out=$("$ASKQL" index --target "$conn2" --name "$T2" 2>&1)
check "a dropped table leaves the catalog" \
	'[ "$(appsql "SELECT count(*) FROM askql.cat_tables WHERE target = '"'$T2'"' AND name = '"'d_labitems'"'")" = 0 ]' "$out"
echo "1..$n"
