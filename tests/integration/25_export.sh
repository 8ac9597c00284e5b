#!/usr/bin/env bash
# 25_export.sh: `askql export` of the demo database in every format, typed XLSX cells, and failures that leave no file.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
out=$(mktemp -d /tmp/askql_25_export.XXXXXX)
chmod 755 "$out"
trap 'rm -rf "$out"' EXIT

ok() { echo "ok - $*"; }
nok() { echo "not ok - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
# no_leftovers DIR: nothing but the files we expect (no temp files, no half exports)
no_leftovers() { [ -z "$(find "$1" -name '.*.tmp.*' -o -name 'bad.csv' -o -name 'bad.xlsx' | head -1)" ]; }

SQL="SELECT c.caseid, c.age, c.sex, c.casestart, c.bmi FROM clinical_data_table c ORDER BY c.caseid LIMIT 200"
Q="200 cases with age & sex"

# ---- CSV: identical to PostgreSQL's own COPY apart from RFC 4180 line ends
if "$ASKQL" export --sql "$SQL" --format csv --question "$Q" -o "$out/a.csv" >"$out/a.log" 2>&1; then
	ok "csv export exits 0"
else
	nok "csv export exits 0: $(cat "$out/a.log")"
fi
psql -XAtq -d demo -c "\\copy ($SQL) TO STDOUT CSV HEADER" >"$out/ref.csv" 2>/dev/null
check "csv equals psql COPY CSV (after CRLF -> LF)" cmp -s <(tr -d '\r' <"$out/a.csv") "$out/ref.csv"
check "csv lines end with CRLF" grep -q $'\r$' "$out/a.csv"
check "csv reports 200 rows" grep -q $'\t200 rows' "$out/a.log"

# ---- JSON and NDJSON with provenance
"$ASKQL" export --sql "$SQL" --format json --question "$Q" -o "$out/a.json" >/dev/null 2>&1
check "json parses with provenance, 200 rows and a summary" python3 - "$out/a.json" "$Q" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["provenance"]
assert p["question"] == sys.argv[2] and p["sql"].startswith("SELECT c.caseid") and p["started_at"].endswith("Z")
assert [c["name"] for c in p["columns"]] == ["caseid", "age", "sex", "casestart", "bmi"]
assert len(d["rows"]) == 200 and d["rows"][0]["caseid"] == 1 and isinstance(d["rows"][0]["age"], (int, type(None)))
assert d["summary"]["row_count"] == 200 and d["summary"]["truncated"] is False and d["summary"]["complete"]
PY
"$ASKQL" export --sql "$SQL" --format ndjson -o "$out/a.ndjson" >/dev/null 2>&1
check "ndjson has a header, 200 row lines and a summary line" python3 - "$out/a.ndjson" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 202 and "provenance" in lines[0] and lines[-1]["summary"]["row_count"] == 200
assert lines[1]["caseid"] == 1
PY

# ---- XLSX: typed cells, bold frozen header, provenance sheet
"$ASKQL" export --sql "$SQL" --format xlsx --question "$Q" -o "$out/a.xlsx" >/dev/null 2>&1
check "xlsx is a zip with two sheets" sh -c "unzip -l '$out/a.xlsx' | grep -q sheet2.xml"
check "xlsx sheet has numeric cells and a frozen header" sh -c \
	"unzip -p '$out/a.xlsx' xl/worksheets/sheet1.xml | grep -q '<c r=\"A2\"><v>1</v></c>' &&
	 unzip -p '$out/a.xlsx' xl/worksheets/sheet1.xml | grep -q 'state=\"frozen\"'"
if /usr/bin/python3 -c 'import openpyxl' 2>/dev/null; then
	check "openpyxl reads typed cells, bold header, provenance" /usr/bin/python3 - "$out/a.xlsx" "$Q" <<'PY'
import datetime, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
assert wb.sheetnames == ["data", "provenance"], wb.sheetnames
ws = wb["data"]
assert [c.value for c in ws[1]] == ["caseid", "age", "sex", "casestart", "bmi"]
assert ws["A1"].font.b and ws.freeze_panes == "A2"
assert ws["A2"].value == 1 and isinstance(ws["A2"].value, int)
assert isinstance(ws["C2"].value, str)
assert isinstance(ws["D2"].value, datetime.datetime), type(ws["D2"].value)
assert ws["E2"].value is None or isinstance(ws["E2"].value, float)
assert ws.max_row == 201
prov = {r[0].value: r[1].value for r in wb["provenance"].iter_rows(min_row=2)}
assert prov["question"] == sys.argv[2] and prov["row_count"] == 200 and prov["truncated"] == "no"
assert prov["sql"].startswith("SELECT c.caseid")
PY
else
	nok "python3-openpyxl is missing (scripts/deps.sh installs it): typed cells not checked"
fi

# ---- file names, stdout, truncation
"$ASKQL" export --sql "$SQL" --format csv -o "$out" >/dev/null 2>&1
check "a directory gets extraction_YYYYmmdd_HHMMSS.csv" \
	sh -c "ls '$out' | grep -Eq '^extraction_[0-9]{8}_[0-9]{6}\.csv$'"
check "-o - streams to stdout" sh -c "'$ASKQL' export --sql '$SQL' -o - 2>/dev/null | head -1 | grep -q '^caseid,age,sex,casestart,bmi'"
"$ASKQL" export --sql "SELECT caseid FROM clinical_data_table" --max-rows 10 --format json -o "$out/t.json" >"$out/t.log" 2>&1
check "a row cap is reported as truncated" sh -c "grep -q truncated '$out/t.log' &&
	python3 -c 'import json,sys; d=json.load(open(\"$out/t.json\")); assert len(d[\"rows\"])==10 and d[\"summary\"][\"truncated\"]'"

# ---- failures leave no file
for fmt in csv xlsx; do
	# fails after 20,000 rows, several chunks into the stream
	if "$ASKQL" export --sql "SELECT g, 1 / (g - 20000) AS x FROM generate_series(1, 30000) g" \
		--format $fmt -o "$out/bad.$fmt" >"$out/bad.log" 2>&1; then
		nok "a query failing mid-stream ($fmt) exits non-zero"
	else
		check "a query failing mid-stream ($fmt) leaves no file and says why" \
			sh -c "[ ! -e '$out/bad.$fmt' ] && grep -q 'division by zero' '$out/bad.log'"
	fi
done
"$ASKQL" export --sql "DELETE FROM clinical_data_table" -o "$out/bad.csv" >"$out/bad.log" 2>&1
check "a refused statement exits 1 with the guard's reason" sh -c "[ ! -e '$out/bad.csv' ] && grep -q 'refused' '$out/bad.log'"
check "no temp files are left behind" no_leftovers "$out"
rows=$(psql -XAtq -d demo -c "SELECT count(*) FROM clinical_data_table")
check "the refused statement changed nothing" [ "$rows" -gt 0 ]

# ---- unwritable output
"$ASKQL" export --sql "SELECT 1" -o /nonexistent/dir/x.csv >"$out/nw.log" 2>&1
check "a missing directory is a clear error" sh -c "grep -q 'output directory /nonexistent/dir does not exist' '$out/nw.log'"
mkdir -p "$out/ro" && chmod 555 "$out/ro"
if [ "$(id -u)" = 0 ] && id -u askql >/dev/null 2>&1; then
	# as the workers run: the service user, its passwords from askql.conf (root's PGPASSFILE is root's)
	runuser -u askql -- env -u PGPASSFILE ASKQL_CONF="${ASKQL_CONF:-}" PGHOST="${PGHOST:-}" PGPORT="${PGPORT:-}" \
		"$ASKQL" export --sql "SELECT 1" -o "$out/ro/x.csv" >"$out/ro.log" 2>&1
	rc=$?
else
	"$ASKQL" export --sql "SELECT 1" -o "$out/ro/x.csv" >"$out/ro.log" 2>&1
	rc=$?
fi
check "a read-only directory is a clear error" sh -c "[ $rc -ne 0 ] && grep -q 'Permission denied' '$out/ro.log'"
exit 0
