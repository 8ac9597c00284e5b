#!/usr/bin/env bash
# Check the fifth krhosp question set (questions_e.jsonl).
# Usage: PGHOST=... PGPORT=... PGUSER=... ./check_e.sh <database>
# Loads schema.sql into <database>, checks the file shape and runs every gold SQL read-only,
# failing if any query errors, returns no rows, or returns only NULLs.
set -euo pipefail
DB="${1:?usage: check_e.sh <database>}"
HERE="$(cd "$(dirname "$0")" && pwd)"
Q="$HERE/questions_e.jsonl"

psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql" >/dev/null

python3 - "$Q" "$DB" <<'PY'
import json, subprocess, sys
path, db = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().splitlines()
errors = []
if len(lines) != 40:
    errors.append(f"expected 40 lines, got {len(lines)}")
langs = {"ko": 0, "en": 0}
unans = []
for n, line in enumerate(lines, 1):
    try:
        q = json.loads(line)
    except ValueError as e:
        errors.append(f"line {n}: bad JSON ({e})"); continue
    want = "krhosp-e%02d" % n
    if q.get("id") != want:
        errors.append(f"line {n}: id {q.get('id')!r}, expected {want}")
    if q.get("lang") not in langs:
        errors.append(f"{want}: bad lang"); continue
    langs[q["lang"]] += 1
    if not isinstance(q.get("question"), str) or not q["question"].strip():
        errors.append(f"{want}: empty question")
    if q.get("answerable") is True:
        if set(q) != {"id", "question", "lang", "answerable", "gold_sql", "now"}:
            errors.append(f"{want}: fields {sorted(q)}")
            continue
        sql = "BEGIN TRANSACTION READ ONLY;\n" + q["gold_sql"].rstrip().rstrip(";") + ";\nROLLBACK;"
        r = subprocess.run(["psql", "-X", "-q", "-At", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", "-d", db],
                           input=sql, capture_output=True, text=True)
        if r.returncode != 0:
            errors.append(f"{want}: SQL error: {r.stderr.strip()}"); continue
        rows = [x for x in r.stdout.splitlines() if x != ""]
        if not rows:
            errors.append(f"{want}: zero rows")
        elif all(all(c == "" for c in row.split("\x1f")) for row in rows):
            errors.append(f"{want}: only NULLs")
    elif q.get("answerable") is False:
        unans.append(n)
        if set(q) != {"id", "question", "lang", "answerable", "why"} or not q["why"].strip():
            errors.append(f"{want}: fields {sorted(q)}")
    else:
        errors.append(f"{want}: answerable must be true/false")
if langs != {"ko": 20, "en": 20}:
    errors.append(f"language mix {langs}, expected 20/20")
if len(unans) != 6:
    errors.append(f"{len(unans)} unanswerable, expected 6")
odd = [q for q in (json.loads(l) for l in lines[0::2])]
even = [q for q in (json.loads(l) for l in lines[1::2])]
for name, half in (("odd", odd), ("even", even)):
    ko = sum(q["lang"] == "ko" for q in half)
    un = sum(q["answerable"] is False for q in half)
    if ko != 10 or un != 3:
        errors.append(f"{name} half: {ko} ko, {un} unanswerable (expected 10 and 3)")
if errors:
    print("FAIL"); print("\n".join(errors)); sys.exit(1)
print(f"OK: 40 questions, {langs['ko']} ko / {langs['en']} en, {len(unans)} unanswerable, 34 gold SQL ran with rows")
PY
