#!/usr/bin/env bash
# Check the fifth omop question set (questions_e.jsonl).
# Usage: PGHOST=... PGPORT=... PGUSER=... bash check_e.sh DBNAME
# Loads schema.sql into DBNAME (which should be empty), checks the file's shape (40 lines,
# ids omop-e01..omop-e40, fields, 20 ko + 20 en, 6 unanswerable, 3 in each half) and runs every
# gold SQL in a read-only transaction, failing if one errors, returns no rows or only NULLs.
set -euo pipefail
DB="${1:?usage: check_e.sh DBNAME}"
HERE="$(cd "$(dirname "$0")" && pwd)"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql" >/dev/null
python3 - "$DB" "$HERE/questions_e.jsonl" <<'PY'
import json, subprocess, sys
db, path = sys.argv[1], sys.argv[2]
errors = []
lines = open(path, encoding="utf-8").read().splitlines()
if len(lines) != 40:
    errors.append(f"expected 40 lines, found {len(lines)}")
rows = [json.loads(l) for l in lines]
common = {"id", "question", "lang", "answerable"}
for i, q in enumerate(rows, 1):
    want_id = f"omop-e{i:02d}"
    if q.get("id") != want_id:
        errors.append(f"line {i}: id {q.get('id')!r}, expected {want_id}")
    extra = {"gold_sql", "now"} if q.get("answerable") is True else {"why"}
    if set(q) != common | extra:
        errors.append(f"{want_id}: fields {sorted(q)}")
    if q.get("lang") not in ("ko", "en"):
        errors.append(f"{want_id}: lang {q.get('lang')!r}")
    if not str(q.get("question", "")).strip():
        errors.append(f"{want_id}: empty question")
for half, name in ((rows[0::2], "odd"), (rows[1::2], "even")):
    ko = sum(q.get("lang") == "ko" for q in half)
    un = sum(q.get("answerable") is False for q in half)
    if ko != 10 or len(half) - ko != 10:
        errors.append(f"{name} half: {ko} ko / {len(half) - ko} en, expected 10/10")
    if un != 3:
        errors.append(f"{name} half: {un} unanswerable, expected 3")
for q in rows:
    if q.get("answerable") is not True:
        continue
    sql = "SET default_transaction_read_only = on;\nBEGIN READ ONLY;\n" + q["gold_sql"].rstrip().rstrip(";") + ";\nROLLBACK;\n"
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", "-d", db],
                       input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f"{q['id']}: error: {r.stderr.strip()}")
        continue
    out = [l for l in r.stdout.splitlines() if l != ""]
    if not out:
        errors.append(f"{q['id']}: no rows")
    elif all(v == "" for l in out for v in l.split("\x1f")):
        errors.append(f"{q['id']}: only NULLs")
n_ans = sum(q.get("answerable") is True for q in rows)
if len(rows) - n_ans != 6:
    errors.append(f"expected 6 unanswerable, found {len(rows) - n_ans}")
for e in errors:
    print("FAIL", e)
print(f"questions_e.jsonl: {len(rows)} questions, {n_ans} gold SQL run, {len(errors)} problems")
sys.exit(1 if errors else 0)
PY
