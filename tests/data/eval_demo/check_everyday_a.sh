#!/usr/bin/env bash
# check_everyday_a.sh DBNAME: check the shape of everyday_a.jsonl and run every gold SQL
# read-only against the demo database (PGHOST/PGPORT/PGUSER from the environment; the demo
# loaded with `psql -d DBNAME -v scale=1 -f load.sql` from conf/demo).
# Fails if the file shape is wrong or any gold SQL errors, returns no rows or only NULLs.
set -euo pipefail
db=${1:?usage: check_everyday_a.sh DBNAME}
here=$(cd "$(dirname "$0")" && pwd)
file=$here/everyday_a.jsonl
export PGOPTIONS='-c default_transaction_read_only=on -c statement_timeout=60000'

# 1. file shape
python3 - "$file" <<'PY'
import json, sys
from collections import Counter
want = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
        "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
err = []
if len(lines) != 40:
    err.append(f"{len(lines)} lines, want 40")
kinds, halves = Counter(), {0: Counter(), 1: Counter()}
for i, line in enumerate(lines, 1):
    try:
        d = json.loads(line)
    except ValueError as e:
        err.append(f"line {i}: not JSON: {e}"); continue
    if d.get("id") != f"everyday_a-{i:02d}":
        err.append(f"line {i}: id {d.get('id')!r}")
    k = d.get("kind")
    if k not in want:
        err.append(f"line {i}: kind {k!r}")
    if d.get("lang") not in ("ko", "en"):
        err.append(f"line {i}: lang {d.get('lang')!r}")
    if not isinstance(d.get("question"), str) or not d["question"].strip():
        err.append(f"line {i}: no question")
    base = {"id", "question", "lang", "kind", "answerable"}
    if k == "unanswerable":
        keys = base | {"why"}
        if d.get("answerable") is not False or not d.get("why"):
            err.append(f"line {i}: unanswerable needs answerable false and why")
    else:
        keys = base | {"gold_sql", "now"} | ({"parent_question"} if k == "followup" else set())
        if d.get("answerable") is not True or not str(d.get("gold_sql", "")).lstrip().upper().startswith(("SELECT", "WITH")):
            err.append(f"line {i}: answerable needs answerable true and a SELECT gold_sql")
        if d.get("now") != "2025-12-31 23:59:00":
            err.append(f"line {i}: now {d.get('now')!r}")
    if k == "followup" and not str(d.get("parent_question", "")).strip():
        err.append(f"line {i}: followup without parent_question")
    if set(d) != keys:
        err.append(f"line {i}: fields {sorted(d)} want {sorted(keys)}")
    kinds[k] += 1
    h = halves[(i - 1) % 2]  # 0 = odd lines (development), 1 = even lines (held out)
    h[d.get("lang")] += 1; h["k:" + str(k)] += 1
if dict(kinds) != want:
    err.append(f"kinds {dict(kinds)} want {want}")
for n, h in halves.items():
    name = "odd" if n == 0 else "even"
    if h["ko"] != 10 or h["en"] != 10 or h["k:unanswerable"] != 2:
        err.append(f"{name} half: ko {h['ko']} en {h['en']} unanswerable {h['k:unanswerable']}")
for k, n in want.items():
    a, b = halves[0]["k:" + k], halves[1]["k:" + k]
    if abs(a - b) > 1:
        err.append(f"kind {k} split {a}/{b}")
if err:
    print("\n".join("shape: " + e for e in err)); sys.exit(1)
print("shape ok: 40 lines,", ", ".join(f"{k} {n}" for k, n in want.items()))
PY

# 2. every gold SQL, read-only
fail=0; n=0
while IFS=$'\t' read -r id sql; do
	n=$((n + 1))
	if ! out=$(psql -X -q -d "$db" -v ON_ERROR_STOP=1 -At -F $'\t' -P null='<NULL>' -c "$sql" 2>&1); then
		echo "FAIL $id: error: $out"; fail=1; continue
	fi
	if [ -z "$out" ]; then echo "FAIL $id: no rows"; fail=1; continue; fi
	if ! grep -qv -x -E $'(<NULL>)(\t<NULL>)*' <<<"$out"; then
		echo "FAIL $id: only NULLs"; fail=1; continue
	fi
	echo "ok   $id: $(wc -l <<<"$out") row(s), first: $(head -1 <<<"$out" | tr '\t' '|')"
done < <(jq -r 'select(.answerable) | [.id, .gold_sql] | @tsv' "$file")
[ "$n" -eq 36 ] || { echo "FAIL: $n gold SQLs, want 36"; fail=1; }
[ "$fail" -eq 0 ] && echo "check_everyday_a: PASS ($n gold SQLs)" || { echo "check_everyday_a: FAILED"; exit 1; }
