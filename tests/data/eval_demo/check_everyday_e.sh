#!/usr/bin/env bash
# check_everyday_e.sh DBNAME: check the shape of everyday_e.jsonl, then run every gold SQL
# read-only on the demo database (loaded with `psql -d DBNAME -v scale=1 -f load.sql` from
# conf/demo). Connection from PGHOST / PGPORT / PGUSER. Fails when the file is malformed or any
# gold SQL errors, returns no rows, or returns only NULLs.
set -euo pipefail
db=${1:?usage: check_everyday_e.sh DBNAME}
here=$(cd "$(dirname "$0")" && pwd)
file=$here/everyday_e.jsonl

python3 - "$file" <<'PY'
import json, sys
path = sys.argv[1]
want = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
        "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
lines = open(path, encoding="utf-8").read().splitlines()
errs = []
if len(lines) != 40:
    errs.append(f"{len(lines)} lines, want 40")
kinds, langs, halves = {}, {}, {0: {"ko": 0, "en": 0, "un": 0}, 1: {"ko": 0, "en": 0, "un": 0}}
for i, line in enumerate(lines, 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        errs.append(f"line {i}: not JSON ({e})"); continue
    if o.get("id") != f"everyday_e-{i:02d}":
        errs.append(f"line {i}: id {o.get('id')!r}")
    if not isinstance(o.get("question"), str) or not o["question"].strip():
        errs.append(f"line {i}: no question")
    if o.get("lang") not in ("ko", "en"):
        errs.append(f"line {i}: lang {o.get('lang')!r}")
    k = o.get("kind")
    if k not in want:
        errs.append(f"line {i}: kind {k!r}")
    kinds[k] = kinds.get(k, 0) + 1
    langs[o.get("lang")] = langs.get(o.get("lang"), 0) + 1
    h = halves[i % 2]
    if o.get("lang") in ("ko", "en"):
        h[o["lang"]] += 1
    if k == "unanswerable":
        h["un"] += 1
        if o.get("answerable") is not False or not o.get("why") or "gold_sql" in o:
            errs.append(f"line {i}: unanswerable needs answerable false, why, no gold_sql")
    else:
        if o.get("answerable") is not True:
            errs.append(f"line {i}: answerable must be true")
        if not str(o.get("gold_sql", "")).lstrip().upper().startswith(("SELECT", "WITH")):
            errs.append(f"line {i}: gold_sql must be a SELECT")
        if o.get("now") != "2025-12-31 23:59:00":
            errs.append(f"line {i}: now {o.get('now')!r}")
    if (k == "followup") != bool(o.get("parent_question")):
        errs.append(f"line {i}: parent_question must be present exactly on follow-ups")
if kinds != want:
    errs.append(f"kinds {kinds}, want {want}")
if langs != {"ko": 20, "en": 20}:
    errs.append(f"languages {langs}, want 20 ko + 20 en")
for half, h in halves.items():
    if h != {"ko": 10, "en": 10, "un": 2}:
        errs.append(f"{'development' if half else 'held-out'} half {h}, want 10 ko, 10 en, 2 unanswerable")
if errs:
    print("shape: FAIL"); print("\n".join(errs)); sys.exit(1)
print("shape: ok (40 lines, kinds and languages as specified)")
PY

fail=0; n=0
export PGOPTIONS="-c default_transaction_read_only=on -c statement_timeout=60000"
while IFS=$'\t' read -r id sql; do
	n=$((n + 1))
	if ! out=$(psql -X -q -d "$db" -v ON_ERROR_STOP=1 -At -F $'\t' -c "$sql" 2>&1); then
		echo "$id: ERROR: $out"; fail=1; continue
	fi
	# rows, and rows with at least one non-NULL value
	if ! cnt=$(psql -X -q -d "$db" -v ON_ERROR_STOP=1 -At -F ' ' \
		-c "SELECT count(*), count(*) FILTER (WHERE NOT (q IS NULL)) FROM ($sql) q" 2>&1); then
		echo "$id: ERROR counting rows: $cnt"; fail=1; continue
	fi
	read -r rows nonnull <<<"$cnt"
	if [ "$rows" -eq 0 ]; then
		echo "$id: no rows"; fail=1; continue
	fi
	if [ "$nonnull" -eq 0 ]; then
		echo "$id: only NULLs"; fail=1; continue
	fi
done < <(python3 -c '
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(line)
    if o.get("answerable"):
        print(o["id"] + "\t" + " ".join(o["gold_sql"].split()))
' "$file")
if [ "$fail" -ne 0 ]; then
	echo "gold: FAIL"; exit 1
fi
echo "gold: ok ($n gold SQL ran read-only, each returned non-NULL rows)"
