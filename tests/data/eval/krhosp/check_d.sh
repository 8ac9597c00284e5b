#!/usr/bin/env bash
# Check the fourth krhosp question set (questions_d.jsonl).
#   PGHOST=... PGPORT=... PGUSER=... ./check_d.sh DBNAME
# Loads schema.sql into DBNAME (dropping the 9 krhosp tables first if present), checks the file
# shape (40 lines, ids krhosp-d01..d40, fields, 20 ko / 20 en, 6 unanswerable, 3 per half,
# 10 ko + 10 en per half) and runs every gold SQL in a read-only session, failing if any
# errors, returns no rows, or returns only NULLs.
set -euo pipefail
DB=${1:?usage: check_d.sh DBNAME (connection from PGHOST/PGPORT/PGUSER)}
HERE=$(cd "$(dirname "$0")" && pwd)

PGOPTIONS='-c client_min_messages=warning' psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c \
  'DROP TABLE IF EXISTS hwanja, cm_dept, cm_kcd, cm_drug, cm_geomsa, ipwon, jindan, cheobang, geomsa_rslt' >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql" >/dev/null

python3 - "$DB" "$HERE/questions_d.jsonl" <<'PY'
import json, os, subprocess, sys
db, path = sys.argv[1], sys.argv[2]
fail = []
raw = open(path, encoding="utf-8").read().splitlines()
if len(raw) != 40:
    fail.append("expected 40 lines, got %d" % len(raw))
qs = []
for n, line in enumerate(raw, 1):
    try:
        q = json.loads(line)
    except ValueError as e:
        fail.append("line %d: bad JSON (%s)" % (n, e)); continue
    qs.append(q)
    want_id = "krhosp-d%02d" % n
    if q.get("id") != want_id:
        fail.append("line %d: id %r, expected %r" % (n, q.get("id"), want_id))
    if not isinstance(q.get("question"), str) or not q["question"].strip():
        fail.append("%s: empty question" % want_id)
    if q.get("lang") not in ("ko", "en"):
        fail.append("%s: lang %r" % (want_id, q.get("lang")))
    if q.get("answerable") is True:
        keys = {"id", "question", "lang", "answerable", "gold_sql", "now"}
        sql = q.get("gold_sql", "")
        if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            fail.append("%s: gold_sql must start with SELECT or WITH" % want_id)
        if ";" in sql:
            fail.append("%s: gold_sql must be a single statement without ';'" % want_id)
        if q.get("now") != "2025-12-31 23:59:00":
            fail.append("%s: now %r" % (want_id, q.get("now")))
    elif q.get("answerable") is False:
        keys = {"id", "question", "lang", "answerable", "why"}
        if not isinstance(q.get("why"), str) or not q["why"].strip():
            fail.append("%s: unanswerable without why" % want_id)
    else:
        fail.append("%s: answerable must be true/false" % want_id); continue
    if set(q) != keys:
        fail.append("%s: fields %s, expected %s" % (want_id, sorted(q), sorted(keys)))

def tally(sub):
    return (sum(q.get("lang") == "ko" for q in sub), sum(q.get("lang") == "en" for q in sub),
            sum(q.get("answerable") is False for q in sub))
if len(qs) == 40:
    if tally(qs) != (20, 20, 6):
        fail.append("whole set ko/en/unanswerable = %s, expected (20, 20, 6)" % (tally(qs),))
    for name, sub in (("odd (development)", qs[0::2]), ("even (held-out)", qs[1::2])):
        if tally(sub) != (10, 10, 3):
            fail.append("%s half ko/en/unanswerable = %s, expected (10, 10, 3)" % (name, tally(sub)))

env = dict(os.environ, PGOPTIONS="-c default_transaction_read_only=on -c statement_timeout=30000")
NUL = "\x01NULL\x01"
ran = 0
for q in qs:
    if q.get("answerable") is not True:
        continue
    p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\x1f", "-P", "null=" + NUL,
                        "-v", "ON_ERROR_STOP=1", "-d", db, "-c", q["gold_sql"]],
                       env=env, capture_output=True, text=True)
    ran += 1
    if p.returncode != 0:
        fail.append("%s: SQL error: %s" % (q["id"], p.stderr.strip()))
        continue
    rows = [r for r in p.stdout.split("\n") if r != ""]
    if not rows:
        fail.append("%s: no rows" % q["id"])
    elif all(v == NUL for r in rows for v in r.split("\x1f")):
        fail.append("%s: only NULLs" % q["id"])
    else:
        print("%s ok (%d row%s)" % (q["id"], len(rows), "" if len(rows) == 1 else "s"))
if fail:
    print("FAILED:")
    for f in fail:
        print("  " + f)
    sys.exit(1)
print("PASS: 40 lines, shape ok, %d gold SQL ran read-only with non-empty, non-NULL results" % ran)
PY
