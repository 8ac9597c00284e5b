#!/usr/bin/env bash
# Check the fourth omop question set (questions_d.jsonl).
# Usage: PGHOST=... PGPORT=... PGUSER=... ./check_d.sh DBNAME
# DBNAME must be an existing, empty database: schema.sql is loaded into it, then every gold SQL
# is run in a read-only session and must succeed and return at least one row that is not all NULL.
# The file shape is checked too: 40 lines, ids omop-d01..omop-d40, fields, 20 ko / 20 en,
# 6 unanswerable, and both halves (odd / even lines) with 10 ko + 10 en and 3 unanswerable.
set -euo pipefail
DB="${1:?usage: check_d.sh DBNAME}"
HERE="$(cd "$(dirname "$0")" && pwd)"

psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql" >/dev/null

python3 - "$DB" "$HERE/questions_d.jsonl" <<'PY'
import csv, io, json, os, re, subprocess, sys

db, path = sys.argv[1], sys.argv[2]
errors = []
lines = open(path, encoding="utf-8").read().splitlines()
if len(lines) != 40:
    errors.append("expected 40 lines, got %d" % len(lines))
env = dict(os.environ, PGOPTIONS="-c default_transaction_read_only=on -c statement_timeout=30000")
half = {0: {"ko": 0, "en": 0, "un": 0}, 1: {"ko": 0, "en": 0, "un": 0}}
langs = {"ko": 0, "en": 0}
unanswerable = 0
for i, line in enumerate(lines, 1):
    try:
        q = json.loads(line)
    except ValueError as e:
        errors.append("line %d: not JSON (%s)" % (i, e)); continue
    want_id = "omop-d%02d" % i
    if q.get("id") != want_id:
        errors.append("line %d: id %r, expected %s" % (i, q.get("id"), want_id))
    if q.get("lang") not in ("ko", "en"):
        errors.append("%s: bad lang" % want_id); continue
    if not isinstance(q.get("question"), str) or not q["question"].strip():
        errors.append("%s: empty question" % want_id)
    h = half[(i - 1) % 2]
    h[q["lang"]] += 1
    langs[q["lang"]] += 1
    if q.get("answerable") is True:
        if set(q) != {"id", "question", "lang", "answerable", "gold_sql", "now"}:
            errors.append("%s: fields %s" % (want_id, sorted(q)))
        if not re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", str(q.get("now", ""))):
            errors.append("%s: bad now" % want_id)
        sql = q.get("gold_sql", "")
        if not re.match(r"\s*(SELECT|WITH)\b", sql, re.I):
            errors.append("%s: gold_sql is not a SELECT" % want_id); continue
        r = subprocess.run(["psql", "-X", "-q", "--csv", "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql],
                           capture_output=True, text=True, env=env)
        if r.returncode != 0:
            errors.append("%s: SQL error: %s" % (want_id, r.stderr.strip())); continue
        rows = list(csv.reader(io.StringIO(r.stdout)))[1:]
        if not rows:
            errors.append("%s: zero rows" % want_id)
        elif all(all(cell == "" for cell in row) for row in rows):
            errors.append("%s: only NULLs" % want_id)
        else:
            print("%s ok: %d row(s), first %s" % (want_id, len(rows), rows[0]))
    elif q.get("answerable") is False:
        unanswerable += 1
        h["un"] += 1
        if set(q) != {"id", "question", "lang", "answerable", "why"} or not str(q.get("why", "")).strip():
            errors.append("%s: fields %s" % (want_id, sorted(q)))
        else:
            print("%s ok: unanswerable" % want_id)
    else:
        errors.append("%s: answerable must be true or false" % want_id)
if unanswerable != 6:
    errors.append("expected 6 unanswerable, got %d" % unanswerable)
if langs != {"ko": 20, "en": 20}:
    errors.append("expected 20 ko + 20 en, got %s" % langs)
for k, name in ((0, "odd (development)"), (1, "even (held-out)")):
    if half[k] != {"ko": 10, "en": 10, "un": 3}:
        errors.append("%s half: %s, expected 10 ko, 10 en, 3 unanswerable" % (name, half[k]))
if errors:
    print("\n".join("FAIL " + e for e in errors), file=sys.stderr)
    sys.exit(1)
print("check_d: all %d lines ok (%d gold SQL run, %d unanswerable)" % (len(lines), len(lines) - unanswerable, unanswerable))
PY
