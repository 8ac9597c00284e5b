#!/usr/bin/env bash
# check_everyday_h.sh: shape check of everyday_h.jsonl and read-only run of every gold SQL.
# Usage: PGHOST=... PGPORT=... PGUSER=... tests/data/eval_demo/check_everyday_h.sh <database>
# The database must hold the demo loaded with `psql -d <db> -v scale=1 -f load.sql` (from conf/demo).
set -euo pipefail
DB=${1:?usage: $0 <database>}
HERE=$(cd "$(dirname "$0")" && pwd)
export EVAL_FILE="$HERE/everyday_h.jsonl" EVAL_DB="$DB"
exec python3 - <<'PY'
import json, os, subprocess, sys
from collections import Counter

path, db, set_name = os.environ["EVAL_FILE"], os.environ["EVAL_DB"], "everyday_h"
kinds = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
         "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
errors = []
lines = open(path, encoding="utf-8").read().splitlines()
if len(lines) != 40:
    errors.append("expected 40 lines, found %d" % len(lines))
items = []
for n, line in enumerate(lines, 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        errors.append("line %d: bad JSON: %s" % (n, e)); continue
    items.append(o)
    want_id = "%s-%02d" % (set_name, n)
    if o.get("id") != want_id:
        errors.append("line %d: id %r, expected %r" % (n, o.get("id"), want_id))
    k = o.get("kind")
    if k not in kinds:
        errors.append("%s: unknown kind %r" % (want_id, k))
    if o.get("lang") not in ("ko", "en"):
        errors.append("%s: lang %r" % (want_id, o.get("lang")))
    if not isinstance(o.get("question"), str) or not o["question"].strip():
        errors.append("%s: empty question" % want_id)
    keys = set(o)
    if k == "unanswerable":
        want = {"id", "question", "lang", "kind", "answerable", "why"}
        if o.get("answerable") is not False or not str(o.get("why", "")).strip():
            errors.append("%s: unanswerable needs answerable=false and why" % want_id)
    else:
        want = {"id", "question", "lang", "kind", "answerable", "gold_sql", "now"}
        if k == "followup":
            want.add("parent_question")
            if not str(o.get("parent_question", "")).strip():
                errors.append("%s: followup without parent_question" % want_id)
        if o.get("answerable") is not True:
            errors.append("%s: answerable must be true" % want_id)
        if o.get("now") != "2025-12-31 23:59:00":
            errors.append("%s: now %r" % (want_id, o.get("now")))
        sql = str(o.get("gold_sql", "")).strip()
        if not sql.upper().startswith(("SELECT", "WITH")) or ";" in sql:
            errors.append("%s: gold_sql must be a single SELECT" % want_id)
    if keys != want:
        errors.append("%s: fields %s, expected %s" % (want_id, sorted(keys), sorted(want)))

kc = Counter(o.get("kind") for o in items)
if dict(kc) != kinds:
    errors.append("kind counts %s, expected %s" % (dict(kc), kinds))
lc = Counter(o.get("lang") for o in items)
if lc != Counter({"ko": 20, "en": 20}):
    errors.append("language counts %s" % dict(lc))
for half, name in ((items[0::2], "odd"), (items[1::2], "even")):
    hl = Counter(o.get("lang") for o in half)
    hu = sum(o.get("kind") == "unanswerable" for o in half)
    if hl != Counter({"ko": 10, "en": 10}) or hu != 2:
        errors.append("%s half: langs %s, unanswerable %d" % (name, dict(hl), hu))
    for k, total in kinds.items():
        c = sum(o.get("kind") == k for o in half)
        if abs(2 * c - total) > 1:
            errors.append("%s half: kind %s has %d of %d" % (name, k, c, total))

env = dict(os.environ, PGOPTIONS="-c default_transaction_read_only=on -c statement_timeout=60000")
ran = 0
for o in items:
    sql = o.get("gold_sql")
    if not sql:
        continue
    wrapped = ("SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM json_each_text(row_to_json(g)) e "
               "WHERE e.value IS NOT NULL)) FROM (%s) g" % sql)
    p = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", db, "-c", wrapped],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        errors.append("%s: SQL error: %s" % (o["id"], p.stderr.strip())); continue
    total, nonnull = (int(x) for x in p.stdout.strip().split("|"))
    if total == 0:
        errors.append("%s: zero rows" % o["id"])
    elif nonnull == 0:
        errors.append("%s: only NULLs" % o["id"])
    ran += 1

for e in errors:
    print("FAIL", e)
if errors:
    sys.exit(1)
print("OK %s: 40 lines, %d gold SQL run read-only with rows; kinds %s; langs %s"
      % (set_name, ran, dict(sorted(kc.items())), dict(sorted(lc.items()))))
PY
