#!/usr/bin/env bash
# check_everyday_g.sh: validate tests/data/eval_demo/everyday_g.jsonl against the demo database.
#
# Usage: PGHOST=... PGPORT=... PGUSER=... tests/data/eval_demo/check_everyday_g.sh <dbname>
# (the demo loaded with `cd conf/demo && psql -d <dbname> -v scale=1 -f load.sql`)
#
# 1. File shape: exactly 40 JSON lines, ids everyday_g-01..40 in order, required fields per line,
#    known kinds with the planned counts, 20 ko + 20 en, follow-ups carry parent_question,
#    unanswerable lines carry why and no gold_sql; each half (odd / even lines) has 10 ko + 10 en
#    and 2 unanswerable.
# 2. Every gold_sql runs in a read-only transaction without error and returns at least one row
#    with at least one non-NULL value.
set -euo pipefail
db=${1:?usage: $0 <dbname>}
here=$(cd "$(dirname "$0")" && pwd)
file=$here/everyday_g.jsonl
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$file" "$tmp" <<'PY'
import json, sys, collections
path, tmp = sys.argv[1], sys.argv[2]
want = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
        "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
lines = open(path, encoding="utf-8").read().splitlines()
errs = []
if len(lines) != 40:
    errs.append(f"expected 40 lines, got {len(lines)}")
kinds, langs = collections.Counter(), collections.Counter()
half = {0: collections.Counter(), 1: collections.Counter()}
for i, line in enumerate(lines, 1):
    try:
        o = json.loads(line)
    except ValueError as e:
        errs.append(f"line {i}: bad JSON: {e}"); continue
    if o.get("id") != f"everyday_g-{i:02d}":
        errs.append(f"line {i}: id {o.get('id')!r}")
    for k in ("question", "lang", "kind", "answerable"):
        if k not in o:
            errs.append(f"line {i}: missing {k}")
    if not str(o.get("question", "")).strip():
        errs.append(f"line {i}: empty question")
    kind, lang = o.get("kind"), o.get("lang")
    if kind not in want:
        errs.append(f"line {i}: unknown kind {kind!r}")
    if lang not in ("ko", "en"):
        errs.append(f"line {i}: lang {lang!r}")
    kinds[kind] += 1; langs[lang] += 1
    h = half[i % 2]; h[lang] += 1; h[kind] += 1
    if kind == "unanswerable":
        if o.get("answerable") is not False or not o.get("why") or "gold_sql" in o:
            errs.append(f"line {i}: unanswerable needs answerable=false, why, no gold_sql")
    else:
        if o.get("answerable") is not True or not str(o.get("gold_sql", "")).strip():
            errs.append(f"line {i}: answerable line needs answerable=true and gold_sql")
        if o.get("now") != "2025-12-31 23:59:00":
            errs.append(f"line {i}: now {o.get('now')!r}")
        sql = o.get("gold_sql", "").strip()
        if sql.endswith(";") or not sql.upper().startswith(("SELECT", "WITH")):
            errs.append(f"line {i}: gold_sql must be one SELECT without trailing ;")
        with open(f"{tmp}/{i:02d}.sql", "w", encoding="utf-8") as f:
            f.write(sql)
    if (kind == "followup") != bool(o.get("parent_question")):
        errs.append(f"line {i}: parent_question only and always on followup lines")
if dict(kinds) != want:
    errs.append(f"kind counts {dict(kinds)} != {want}")
if langs != collections.Counter(ko=20, en=20):
    errs.append(f"lang counts {dict(langs)}")
for p, h in half.items():
    name = "odd" if p else "even"
    if h["ko"] != 10 or h["en"] != 10 or h["unanswerable"] != 2:
        errs.append(f"{name} half: ko={h['ko']} en={h['en']} unanswerable={h['unanswerable']}")
    for k, n in want.items():
        if abs(h[k] - n / 2) > 0.5:
            errs.append(f"{name} half: kind {k} has {h[k]} of {n}")
if errs:
    print("\n".join("SHAPE: " + e for e in errs)); sys.exit(1)
print(f"shape ok: 40 lines; kinds {dict(sorted(kinds.items()))}; langs {dict(langs)}")
PY

fail=0
for f in "$tmp"/*.sql; do
	n=$(basename "$f" .sql)
	# rows = number of rows; nonnull = rows with at least one non-NULL column
	out=$(PGOPTIONS='-c default_transaction_read_only=on -c statement_timeout=120s' \
		psql -X -q -A -t -v ON_ERROR_STOP=1 -d "$db" 2>&1 <<SQL
BEGIN READ ONLY;
SELECT count(*) || ' ' || count(*) FILTER (WHERE EXISTS (
	SELECT 1 FROM jsonb_each(to_jsonb(t)) e WHERE e.value <> 'null'::jsonb))
FROM ($(cat "$f")) t;
ROLLBACK;
SQL
	) || { echo "everyday_g-$n: ERROR: $out"; fail=1; continue; }
	read -r rows nonnull <<<"$out"
	if [ "${rows:-0}" -eq 0 ]; then
		echo "everyday_g-$n: FAIL: zero rows"; fail=1
	elif [ "${nonnull:-0}" -eq 0 ]; then
		echo "everyday_g-$n: FAIL: only NULLs"; fail=1
	else
		echo "everyday_g-$n: ok ($rows rows)"
	fi
done
if [ "$fail" -ne 0 ]; then echo "check_everyday_g: FAILED"; exit 1; fi
echo "check_everyday_g: all $(ls "$tmp"/*.sql | wc -l) gold SQL ok"
