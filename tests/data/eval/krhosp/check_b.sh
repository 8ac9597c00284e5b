#!/usr/bin/env bash
# Check the second krhosp question set (questions_b.jsonl), or another of the same shape.
# Usage: PGHOST=... PGPORT=... PGUSER=... ./check_b.sh <database> [SET]   (SET b, the default, or c)
# Loads schema.sql into <database> (ON_ERROR_STOP), checks the file shape (40 lines, ids
# krhosp-<SET>01..<SET>40, fields, 20 ko / 20 en, 6 unanswerable, 10 ko + 10 en and 3 unanswerable per
# half) and runs every gold SQL in a read-only transaction; fails if any errors, returns no
# rows, or returns only NULLs.
set -euo pipefail
DB="${1:?usage: $0 <database> [SET]}"
SET="${2:-b}"
case $SET in b | c) ;; *) echo "check_b.sh: SET must be b or c, not '$SET'" >&2; exit 2 ;; esac
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export PGDATABASE="$DB"

echo "loading schema.sql into $DB"
start=$(date +%s%N)
psql -X -q -v ON_ERROR_STOP=1 -f "$HERE/schema.sql" >/dev/null
end=$(date +%s%N)
echo "schema loaded in $(( (end - start) / 1000000 )) ms"

python3 - "$HERE/questions_$SET.jsonl" "$SET" <<'PY'
import json, subprocess, sys

path, qset = sys.argv[1], sys.argv[2]
fail = []
lines = open(path, encoding="utf-8").read().splitlines()
if len(lines) != 40:
    fail.append("expected 40 lines, got %d" % len(lines))
qs = []
for n, line in enumerate(lines, 1):
    try:
        q = json.loads(line)
    except ValueError as e:
        fail.append("line %d: bad JSON (%s)" % (n, e))
        continue
    qs.append(q)
    want = "krhosp-%s%02d" % (qset, n)
    if q.get("id") != want:
        fail.append("line %d: id %r, expected %r" % (n, q.get("id"), want))
    if not isinstance(q.get("question"), str) or not q["question"].strip():
        fail.append("%s: empty question" % want)
    if q.get("lang") not in ("ko", "en"):
        fail.append("%s: lang %r" % (want, q.get("lang")))
    if q.get("answerable") is True:
        extra = set(q) - {"id", "question", "lang", "answerable", "gold_sql", "now"}
        if not q.get("gold_sql") or not q.get("now") or extra:
            fail.append("%s: answerable needs gold_sql and now only (extra: %s)" % (want, sorted(extra)))
    elif q.get("answerable") is False:
        extra = set(q) - {"id", "question", "lang", "answerable", "why"}
        if not q.get("why") or extra:
            fail.append("%s: unanswerable needs why only (extra: %s)" % (want, sorted(extra)))
    else:
        fail.append("%s: answerable must be true or false" % want)

def tally(sub):
    return (sum(q.get("lang") == "ko" for q in sub), sum(q.get("lang") == "en" for q in sub),
            sum(q.get("answerable") is True for q in sub), sum(q.get("answerable") is False for q in sub))

halves = {"development (odd)": qs[0::2], "held-out (even)": qs[1::2]}
for name, sub in list(halves.items()) + [("all", qs)]:
    ko, en, ans, una = tally(sub)
    print("%-18s ko=%d en=%d answerable=%d unanswerable=%d" % (name, ko, en, ans, una))
for name, sub in halves.items():
    if tally(sub) != (10, 10, 17, 3):
        fail.append("%s half: expected ko=10 en=10 answerable=17 unanswerable=3, got %s" % (name, tally(sub)))

ok = 0
for q in qs:
    if q.get("answerable") is not True:
        continue
    sql = "BEGIN TRANSACTION READ ONLY;\n" + q["gold_sql"].rstrip().rstrip(";") + ";\nROLLBACK;\n"
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-F", "\x1f", "-P", "null=\\N"],
                       input=sql, capture_output=True, text=True)
    rows = [l for l in r.stdout.split("\n") if l != ""]
    if r.returncode != 0:
        fail.append("%s: SQL error: %s" % (q["id"], r.stderr.strip()))
    elif not rows:
        fail.append("%s: no rows" % q["id"])
    elif all(all(v == "\\N" for v in row.split("\x1f")) for row in rows):
        fail.append("%s: only NULLs" % q["id"])
    else:
        ok += 1
print("gold SQL ran read-only and returned non-NULL rows: %d of %d answerable"
      % (ok, sum(q.get("answerable") is True for q in qs)))
if fail:
    print("FAILED:")
    for f in fail:
        print("  " + f)
    sys.exit(1)
print("check_" + qset + ".sh: OK (40 questions, 34 answerable gold SQL checked, 6 unanswerable with why)")
PY
