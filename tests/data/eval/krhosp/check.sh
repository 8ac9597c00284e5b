#!/usr/bin/env bash
# Loads schema.sql into database $1 (which should be empty) and runs every gold SQL in
# questions.jsonl. Fails if the load fails, if any gold SQL errors, or if any answerable
# question returns zero rows or only NULLs. Also checks the file's shape (40 lines,
# ids, fields, 5-6 unanswerable).
# Connection comes from the usual libpq variables: PGHOST, PGPORT, PGUSER (PGPASSWORD).
#   usage: PGHOST=/tmp/krhosp-pg PGPORT=55432 PGUSER=postgres ./check.sh krhosp_check
set -euo pipefail
DB="${1:?usage: check.sh <database name>}"
HERE="$(cd "$(dirname "$0")" && pwd)"

start=$(date +%s.%N)
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql" >/dev/null
end=$(date +%s.%N)
echo "schema.sql loaded into $DB in $(python3 -c "print(round($end - $start, 2))") s"

python3 - "$DB" "$HERE/questions.jsonl" <<'PY'
import json, os, subprocess, sys
db, path = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().splitlines()
bad = []
if len(lines) != 40:
    bad.append("expected 40 lines, got %d" % len(lines))
unans = 0
for n, line in enumerate(lines, 1):
    q = json.loads(line)
    qid = q.get("id")
    if qid != "krhosp-%02d" % n:
        bad.append("line %d: id %r" % (n, qid))
    if q.get("lang") not in ("ko", "en") or not q.get("question"):
        bad.append("%s: bad lang/question" % qid)
    if not q.get("answerable"):
        unans += 1
        if not q.get("why"):
            bad.append("%s: unanswerable without why" % qid)
        print("%s  unanswerable (%s)" % (qid, q["why"]))
        continue
    if not q.get("now") or not q.get("gold_sql"):
        bad.append("%s: missing now/gold_sql" % qid)
        continue
    env = dict(os.environ, PGOPTIONS="-c default_transaction_read_only=on -c statement_timeout=60000")
    r = subprocess.run(["psql", "-X", "-q", "-At", "-F", "|", "-v", "ON_ERROR_STOP=1",
                        "-d", db, "-c", q["gold_sql"]], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        bad.append("%s: error: %s" % (qid, r.stderr.strip()))
        print("%s  ERROR %s" % (qid, r.stderr.strip()))
        continue
    rows = r.stdout.splitlines()
    nonnull = [x for x in rows if x.replace("|", "").strip() != ""]
    if not nonnull:
        bad.append("%s: zero rows (or only NULLs)" % qid)
    preview = "; ".join(rows[:3]) + (" ..." if len(rows) > 3 else "")
    print("%s  %3d row(s)  %s" % (qid, len(rows), preview))
if not 5 <= unans <= 6:
    bad.append("expected 5-6 unanswerable questions, got %d" % unans)
if bad:
    print("\nFAILED:")
    for b in bad:
        print("  " + b)
    sys.exit(1)
print("\nOK: %d questions, %d answerable gold SQL ran and returned rows, %d unanswerable"
      % (len(lines), len(lines) - unans, unans))
PY
