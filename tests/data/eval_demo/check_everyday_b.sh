#!/usr/bin/env bash
# check_everyday_b.sh: check tests/data/eval_demo/everyday_b.jsonl against the demo database.
#
# usage: PGHOST=... PGPORT=... PGUSER=... tests/data/eval_demo/check_everyday_b.sh DBNAME
# (the demo loaded with `psql -d DBNAME -v scale=1 -f load.sql`, run from conf/demo)
#
# 1. file shape: 40 lines of JSON, ids everyday_b-01..40 in order, the fields each kind needs,
#    kinds from the brief's list, follow-ups carry parent_question, unanswerable lines carry why,
#    each half (odd lines / even lines) has 10 ko + 10 en and 2 unanswerable;
# 2. every gold_sql runs in a read-only transaction without error and returns at least one row
#    that is not entirely NULL.
# Exit status 0 when everything passes, 1 otherwise.
set -u
db=${1:?usage: $0 DBNAME}
here=$(cd "$(dirname "$0")" && pwd)
file=$here/everyday_b.jsonl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- 1. shape (python3 writes one gold per file: $tmp/<id>.sql) -------------------------------
python3 - "$file" "$tmp" <<'PY' || { echo "FAIL: file shape"; exit 1; }
import json, sys, collections
path, out = sys.argv[1], sys.argv[2]
kinds = {"count_filter", "rate", "two_way", "band", "monthly", "threshold_attr",
         "followup", "top_n", "unanswerable"}
errs = []
lines = open(path, encoding="utf-8").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
if len(lines) != 40:
    errs.append(f"{len(lines)} lines, want 40")
half = {0: collections.Counter(), 1: collections.Counter()}
per_kind = collections.Counter()
for n, line in enumerate(lines, 1):
    try:
        o = json.loads(line)
    except Exception as e:
        errs.append(f"line {n}: not JSON ({e})"); continue
    want_id = f"everyday_b-{n:02d}"
    if o.get("id") != want_id:
        errs.append(f"line {n}: id {o.get('id')!r}, want {want_id}")
    k = o.get("kind")
    if k not in kinds:
        errs.append(f"line {n}: kind {k!r}")
    if o.get("lang") not in ("ko", "en"):
        errs.append(f"line {n}: lang {o.get('lang')!r}")
    if not isinstance(o.get("question"), str) or not o["question"].strip():
        errs.append(f"line {n}: no question")
    if k == "unanswerable":
        need, forbid = {"id", "question", "lang", "kind", "answerable", "why"}, {"gold_sql", "parent_question"}
        if o.get("answerable") is not False:
            errs.append(f"line {n}: unanswerable must have answerable false")
        if not str(o.get("why", "")).strip():
            errs.append(f"line {n}: unanswerable without why")
    else:
        need, forbid = {"id", "question", "lang", "kind", "answerable", "gold_sql", "now"}, {"why"}
        if o.get("answerable") is not True:
            errs.append(f"line {n}: answerable must be true")
        if not str(o.get("gold_sql", "")).lstrip().upper().startswith(("SELECT", "WITH")):
            errs.append(f"line {n}: gold_sql is not a SELECT")
        if o.get("now") != "2025-12-31 23:59:00":
            errs.append(f"line {n}: now {o.get('now')!r}")
    if k == "followup":
        need = need | {"parent_question"}
        if not str(o.get("parent_question", "")).strip():
            errs.append(f"line {n}: followup without parent_question")
    else:
        forbid = forbid | {"parent_question"}
    for f in sorted(need - o.keys()):
        errs.append(f"line {n}: missing {f}")
    for f in sorted(forbid & o.keys()):
        errs.append(f"line {n}: unexpected {f}")
    for f in sorted(o.keys() - need - forbid):
        errs.append(f"line {n}: unknown field {f}")
    h = half[n % 2]
    h[o.get("lang")] += 1
    h["unanswerable"] += k == "unanswerable"
    per_kind[k] += 1
    if "gold_sql" in o:
        open(f"{out}/{want_id}.sql", "w", encoding="utf-8").write(o["gold_sql"].strip().rstrip(";"))
for par, name in ((1, "odd (development)"), (0, "even (held-out)")):
    h = half[par]
    if (h["ko"], h["en"], h["unanswerable"]) != (10, 10, 2):
        errs.append(f"{name} half: {h['ko']} ko, {h['en']} en, {h['unanswerable']} unanswerable; want 10, 10, 2")
for e in errs:
    print("  " + e)
print("kinds:", ", ".join(f"{k} {per_kind[k]}" for k in sorted(per_kind)))
sys.exit(1 if errs else 0)
PY
echo "shape ok"

# --- 2. gold SQL ------------------------------------------------------------------------------
fail=0
for f in "$tmp"/*.sql; do
	id=$(basename "$f" .sql)
	# rows, and rows that are not entirely NULL (a row value IS NULL only when every field is)
	res=$(PGOPTIONS='-c default_transaction_read_only=on -c statement_timeout=120s' \
		psql -X -q -At -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<SQL
BEGIN READ ONLY;
SELECT count(*) || ' ' || count(*) FILTER (WHERE NOT (g IS NULL)) FROM (
$(cat "$f")
) g;
ROLLBACK;
SQL
	)
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL $id: error: $res"; fail=1; continue
	fi
	set -- $res
	if [ "${1:-0}" -eq 0 ]; then
		echo "FAIL $id: no rows"; fail=1
	elif [ "${2:-0}" -eq 0 ]; then
		echo "FAIL $id: only NULLs"; fail=1
	else
		echo "ok   $id: $1 rows"
	fi
done
n=$(ls "$tmp"/*.sql | wc -l)
if [ $fail -ne 0 ]; then echo "FAIL: gold SQL ($n checked)"; exit 1; fi
echo "PASS: shape and $n gold SQL"
