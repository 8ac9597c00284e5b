#!/usr/bin/env bash
# check_b.sh DBNAME [SET] -- validate questions_<SET>.jsonl (SET b, the default, or c) and run its gold SQL.
# Connection from PGHOST / PGPORT / PGUSER. Loads schema.sql into DBNAME (refusing a
# database that holds tables other than this set's nine), checks the file shape
# (40 lines, ids omop-<SET>01..omop-<SET>40, fields, 20 ko / 20 en, 6 unanswerable, halves
# 10 ko + 10 en + 3 unanswerable each), then runs every gold SQL in a read-only
# transaction and fails if any errors, returns no rows, or returns only NULLs.
set -euo pipefail
DB="${1:?usage: check_b.sh DBNAME [SET]}"
SET="${2:-b}"
case $SET in b | c) ;; *) echo "check_b.sh: SET must be b or c, not '$SET'" >&2; exit 2 ;; esac
HERE="$(cd "$(dirname "$0")" && pwd)"
export PSQLRC=/dev/null

tables="care_site concept condition_occurrence death drug_exposure measurement observation_period person visit_occurrence"
others=$(psql -X -At -d "$DB" -c "SELECT string_agg(table_schema||'.'||table_name, ' ') FROM information_schema.tables
  WHERE table_schema NOT IN ('pg_catalog','information_schema')
  AND NOT (table_schema = 'public' AND table_name IN ('$(echo $tables | sed "s/ /','/g")'))")
if [ -n "$others" ]; then echo "refusing: database $DB holds other tables: $others" >&2; exit 2; fi
psql -X -q -d "$DB" -c "DROP TABLE IF EXISTS $(echo $tables | sed 's/ /, /g') CASCADE" >/dev/null 2>&1
t0=$(date +%s%N)
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql" >/dev/null
echo "schema.sql loaded in $(( ($(date +%s%N) - t0) / 1000000 )) ms"

python3 - "$DB" "$HERE/questions_$SET.jsonl" "$SET" <<'PY'
import json, os, re, subprocess, sys
db, path = sys.argv[1], sys.argv[2]
errors = []
lines = open(path, encoding="utf-8").read().splitlines()
if len(lines) != 40:
    errors.append("expected 40 lines, found %d" % len(lines))
rows = []
for n, line in enumerate(lines, 1):
    try:
        r = json.loads(line)
    except ValueError as e:
        errors.append("line %d: not JSON (%s)" % (n, e)); continue
    rows.append(r)
    want_id = "omop-%s%02d" % (sys.argv[3], n)
    if r.get("id") != want_id:
        errors.append("line %d: id %r, expected %r" % (n, r.get("id"), want_id))
    if r.get("lang") not in ("ko", "en"):
        errors.append("%s: bad lang" % want_id)
    if not isinstance(r.get("question"), str) or not r["question"].strip():
        errors.append("%s: empty question" % want_id)
    if r.get("answerable") is True:
        keys = {"id", "question", "lang", "answerable", "gold_sql", "now"}
        sql = r.get("gold_sql", "")
        if not re.match(r"(?is)^\s*(SELECT|WITH)\b", sql) or ";" in sql:
            errors.append("%s: gold_sql must be one SELECT/WITH statement" % want_id)
        if not re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", r.get("now", "")):
            errors.append("%s: bad now" % want_id)
    elif r.get("answerable") is False:
        keys = {"id", "question", "lang", "answerable", "why"}
        if not str(r.get("why", "")).strip():
            errors.append("%s: unanswerable without why" % want_id)
    else:
        errors.append("%s: answerable must be true or false" % want_id); continue
    if set(r) != keys:
        errors.append("%s: fields %s, expected %s" % (want_id, sorted(r), sorted(keys)))

def tally(rs):
    return (sum(r.get("lang") == "ko" for r in rs), sum(r.get("lang") == "en" for r in rs),
            sum(r.get("answerable") is True for r in rs), sum(r.get("answerable") is False for r in rs))
for name, rs, want in (("all", rows, (20, 20, 34, 6)), ("development (odd)", rows[0::2], (10, 10, 17, 3)),
                       ("held-out (even)", rows[1::2], (10, 10, 17, 3))):
    got = tally(rs)
    print("%-18s ko=%d en=%d answerable=%d unanswerable=%d" % ((name,) + got))
    if got != want:
        errors.append("%s: counts %s, expected %s" % (name, got, want))
if errors:
    print("\n".join("SHAPE: " + e for e in errors)); sys.exit(1)
print("file shape ok")

env = dict(os.environ, PGOPTIONS="-c default_transaction_read_only=on -c statement_timeout=20000")
passed = failed = 0
for r in rows:
    if not r["answerable"]:
        continue
    p = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", db,
                        "-c", "BEGIN TRANSACTION READ ONLY", "-c", r["gold_sql"], "-c", "ROLLBACK"],
                       env=env, capture_output=True, text=True)
    out = [l for l in p.stdout.splitlines() if l != ""]
    if p.returncode != 0:
        failed += 1; print("FAIL %s: error: %s" % (r["id"], p.stderr.strip()))
    elif not out or all(f == "" for l in out for f in l.split("\t")):
        failed += 1; print("FAIL %s: no rows or only NULLs" % r["id"])
    else:
        passed += 1
        first = out[0] if len(out) == 1 else "%s ... (%d rows)" % (out[0], len(out))
        print("ok   %s: %s" % (r["id"], first.replace("\t", " | ")))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
