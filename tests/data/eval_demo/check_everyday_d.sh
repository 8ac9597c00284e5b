#!/bin/sh
# check_everyday_d.sh: check tests/data/eval_demo/everyday_d.jsonl.
#
# Usage: PGHOST=... PGPORT=... PGUSER=... tests/data/eval_demo/check_everyday_d.sh DBNAME
# The database must hold the demo loaded at scale 1
# (cd conf/demo && psql -d DBNAME -v scale=1 -f load.sql).
#
# 1. file shape: 40 lines, ids everyday_d-01 .. everyday_d-40 in order, the fields of each
#    kind, kinds and their counts, lang ko/en (20 each; 10 + 10 in each half), follow-ups
#    carry parent_question, unanswerable lines carry why and no gold_sql;
# 2. every gold_sql runs read-only (default_transaction_read_only) without error and returns
#    at least one row that is not only NULLs.
# Exit status 0 when everything passes, 1 otherwise.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DBNAME" >&2; exit 2; }
DB=$1
HERE=$(cd "$(dirname "$0")" && pwd)
FILE=$HERE/everyday_d.jsonl
export DB FILE
exec python3 - <<'PY'
import json, os, subprocess, sys
from collections import Counter

SET = "everyday_d"
KINDS = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
         "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
NOW = "2025-12-31 23:59:00"
errors = []

def err(msg):
    errors.append(msg)
    print("FAIL:", msg)

with open(os.environ["FILE"], encoding="utf-8") as f:
    raw = f.read().split("\n")
if raw and raw[-1] == "":
    raw.pop()
if len(raw) != 40:
    err(f"expected 40 lines, got {len(raw)}")
rows = []
for n, line in enumerate(raw, 1):
    try:
        rows.append(json.loads(line))
    except ValueError as e:
        err(f"line {n}: not JSON ({e})")
        rows.append({})

kinds, langs = Counter(), Counter()
half_lang = {0: Counter(), 1: Counter()}
half_unans = Counter()
for n, r in enumerate(rows, 1):
    rid = r.get("id")
    if rid != f"{SET}-{n:02d}":
        err(f"line {n}: id {rid!r}, expected {SET}-{n:02d}")
    kind, lang = r.get("kind"), r.get("lang")
    if kind not in KINDS:
        err(f"{rid}: bad kind {kind!r}")
    if lang not in ("ko", "en"):
        err(f"{rid}: bad lang {lang!r}")
    if not isinstance(r.get("question"), str) or not r["question"].strip():
        err(f"{rid}: empty question")
    kinds[kind] += 1
    langs[lang] += 1
    half_lang[n % 2][lang] += 1
    if kind == "unanswerable":
        half_unans[n % 2] += 1
        want = {"id", "question", "lang", "kind", "answerable", "why"}
        if r.get("answerable") is not False:
            err(f"{rid}: unanswerable line must have answerable false")
        if not isinstance(r.get("why"), str) or not r["why"].strip():
            err(f"{rid}: unanswerable line needs a why")
    else:
        want = {"id", "question", "lang", "kind", "answerable", "gold_sql", "now"}
        if kind == "followup":
            want.add("parent_question")
            if not isinstance(r.get("parent_question"), str) or not r["parent_question"].strip():
                err(f"{rid}: follow-up without parent_question")
        if r.get("answerable") is not True:
            err(f"{rid}: answerable line must have answerable true")
        if r.get("now") != NOW:
            err(f"{rid}: now is {r.get('now')!r}, expected {NOW!r}")
        sql = r.get("gold_sql")
        if not isinstance(sql, str) or not sql.lstrip().upper().startswith(("SELECT", "WITH")):
            err(f"{rid}: gold_sql must be a SELECT")
    if set(r) != want:
        err(f"{rid}: fields {sorted(r)}, expected {sorted(want)}")

for k, c in KINDS.items():
    if kinds[k] != c:
        err(f"kind {k}: {kinds[k]} lines, expected {c}")
if langs["ko"] != 20 or langs["en"] != 20:
    err(f"languages {dict(langs)}, expected 20 ko + 20 en")
for h, name in ((1, "odd"), (0, "even")):
    if half_lang[h]["ko"] != 10 or half_lang[h]["en"] != 10:
        err(f"{name} half: languages {dict(half_lang[h])}, expected 10 + 10")
    if half_unans[h] != 2:
        err(f"{name} half: {half_unans[h]} unanswerable, expected 2")
print(f"shape: {len(rows)} lines, kinds {dict(kinds)}, langs {dict(langs)}")

env = dict(os.environ)
env["PGOPTIONS"] = (env.get("PGOPTIONS", "") +
                    " -c default_transaction_read_only=on -c statement_timeout=60000").strip()
ok = 0
for r in rows:
    sql = r.get("gold_sql")
    if not isinstance(sql, str):
        continue
    p = subprocess.run(["psql", "-X", "-q", "-d", os.environ["DB"], "-v", "ON_ERROR_STOP=1",
                        "-A", "-t", "-F", "\x1f", "-P", "null=\x1e", "-c", sql],
                       env=env, capture_output=True, text=True)
    rid = r["id"]
    if p.returncode != 0:
        err(f"{rid}: gold_sql failed: {p.stderr.strip()}")
        continue
    out = [l for l in p.stdout.split("\n") if l != ""]
    if not out:
        err(f"{rid}: gold_sql returned no rows")
        continue
    if all(v == "\x1e" for l in out for v in l.split("\x1f")):
        err(f"{rid}: gold_sql returned only NULLs")
        continue
    ok += 1
print(f"gold: {ok} gold SQL ok")
if errors:
    print(f"FAILED: {len(errors)} problem(s)")
    sys.exit(1)
print("PASS")
PY
