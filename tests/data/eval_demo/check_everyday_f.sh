#!/usr/bin/env bash
# check_everyday_f.sh: check everyday_f.jsonl (shape) and run its gold SQL read-only.
# Usage: PGHOST=... PGPORT=... PGUSER=... tests/data/eval_demo/check_everyday_f.sh DBNAME
# The database must hold the demo loaded with `psql -d DBNAME -v scale=1 -f load.sql` (from conf/demo).
set -euo pipefail
db=${1:?usage: check_everyday_f.sh DBNAME}
here=$(cd "$(dirname "$0")" && pwd)
file=$here/everyday_f.jsonl
fail=0

# 1. file shape
python3 - "$file" <<'PY' || fail=1
import json, sys
from collections import Counter
want = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
        "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
errs = []
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
if len(lines) != 40:
    errs.append(f"{len(lines)} lines, want 40")
kinds, langs = Counter(), Counter()
half = {0: Counter(), 1: Counter()}
for n, line in enumerate(lines, 1):
    try:
        d = json.loads(line)
    except ValueError as e:
        errs.append(f"line {n}: not JSON ({e})"); continue
    if d.get("id") != f"everyday_f-{n:02d}":
        errs.append(f"line {n}: id {d.get('id')!r}")
    k, lang = d.get("kind"), d.get("lang")
    if k not in want: errs.append(f"line {n}: kind {k!r}")
    if lang not in ("ko", "en"): errs.append(f"line {n}: lang {lang!r}")
    if not isinstance(d.get("question"), str) or not d["question"].strip():
        errs.append(f"line {n}: no question")
    kinds[k] += 1; langs[lang] += 1
    h = half[(n - 1) % 2]; h[lang] += 1; h[k] += 1
    if k == "unanswerable":
        keys = {"id", "question", "lang", "kind", "answerable", "why"}
        if d.get("answerable") is not False or not str(d.get("why", "")).strip():
            errs.append(f"line {n}: unanswerable needs answerable false and why")
    else:
        keys = {"id", "question", "lang", "kind", "answerable", "gold_sql", "now"}
        if k == "followup": keys |= {"parent_question"}
        if d.get("answerable") is not True: errs.append(f"line {n}: answerable must be true")
        if not str(d.get("gold_sql", "")).lstrip().upper().startswith(("SELECT", "WITH")):
            errs.append(f"line {n}: gold_sql must be one SELECT")
        if d.get("now") != "2025-12-31 23:59:00": errs.append(f"line {n}: now {d.get('now')!r}")
        if k == "followup" and not str(d.get("parent_question", "")).strip():
            errs.append(f"line {n}: followup without parent_question")
    if k != "followup" and "parent_question" in d:
        errs.append(f"line {n}: parent_question on a {k} line")
    if set(d) != keys:
        errs.append(f"line {n}: fields {sorted(d)} want {sorted(keys)}")
for k, c in want.items():
    if kinds[k] != c: errs.append(f"kind {k}: {kinds[k]}, want {c}")
    for h in (0, 1):
        if abs(half[h][k] - c / 2) > 0.5: errs.append(f"kind {k}: {half[h][k]} in half {h}, want {c/2}")
if langs["ko"] != 20 or langs["en"] != 20: errs.append(f"langs {dict(langs)}, want 20 + 20")
for h in (0, 1):
    if half[h]["ko"] != 10 or half[h]["en"] != 10: errs.append(f"half {h}: {half[h]['ko']} ko + {half[h]['en']} en")
    if half[h]["unanswerable"] != 2: errs.append(f"half {h}: {half[h]['unanswerable']} unanswerable")
for e in errs: print("shape:", e)
print("shape:", "ok" if not errs else f"{len(errs)} problem(s)")
sys.exit(1 if errs else 0)
PY

# 2. gold SQL: read-only, no error, at least one row, not only NULLs
n=0; bad=0
while IFS=$'\t' read -r id sql; do
	n=$((n + 1))
	out=$(PGOPTIONS='-c default_transaction_read_only=on -c statement_timeout=60s' \
		psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<SQL
BEGIN READ ONLY;
SELECT count(*) || ' ' || count(*) FILTER (WHERE NOT (g IS NULL)) FROM ($sql) g;
ROLLBACK;
SQL
	) || { echo "$id: ERROR: $out"; bad=$((bad + 1)); continue; }
	set -- $out
	if [ "${1:-0}" -eq 0 ]; then echo "$id: zero rows"; bad=$((bad + 1))
	elif [ "${2:-0}" -eq 0 ]; then echo "$id: only NULLs"; bad=$((bad + 1)); fi
done < <(jq -r 'select(.answerable) | [.id, .gold_sql] | @tsv' "$file")
[ "$n" -eq 36 ] || { echo "gold: $n answerable lines, want 36"; bad=$((bad + 1)); }
echo "gold: $((n - bad))/$n ok"
[ "$bad" -eq 0 ] || fail=1

if [ "$fail" -eq 0 ]; then echo PASS; else echo FAIL; exit 1; fi
