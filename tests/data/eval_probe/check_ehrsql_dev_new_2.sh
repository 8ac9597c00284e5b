#!/usr/bin/env bash
# Check tests/data/eval_probe/ehrsql_dev_new_2.jsonl (second new EHRSQL-style development probe).
# Usage: PGHOST=... PGPORT=... PGUSER=... check_ehrsql_dev_new_2.sh DBNAME
# Checks the file's shape (150 lines, ids new2-001..new2-150, fields, 100 answerable / 50 unanswerable,
# kinds) and runs every gold_sql read-only, comparing its rows with gold_answer as a multiset of text rows.
# Exit status 0 when everything passes.
set -euo pipefail
db="${1:?usage: $0 DBNAME (connection from PGHOST/PGPORT/PGUSER)}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
file="$here/ehrsql_dev_new_2.jsonl"
command -v psql >/dev/null || { echo "psql not found" >&2; exit 2; }
DB="$db" FILE="$file" python3 - <<'PY'
import json, os, subprocess, sys
from collections import Counter

db, path = os.environ["DB"], os.environ["FILE"]
FS, RS = "\x1f", "\x1e"
KINDS = {"exists", "list", "top_n", "aggregate", "pair", "extreme_time", "having"}
errors = []

def run(sql):
    env = dict(os.environ)
    env["PGOPTIONS"] = (env.get("PGOPTIONS", "") + " -c default_transaction_read_only=on -c statement_timeout=120000").strip()
    p = subprocess.run(["psql", "-X", "-q", "-d", db, "-v", "ON_ERROR_STOP=1", "-A", "-t",
                        "-F", FS, "-R", RS, "-P", "null=\\N", "-c", sql],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    out = p.stdout
    if out.endswith("\n"):
        out = out[:-1]
    if out.endswith(RS):
        out = out[:-1]
    if out == "":
        return []
    return [tuple(r.split(FS)) for r in out.split(RS)]

lines = open(path, encoding="utf-8").read().splitlines()
if len(lines) != 150:
    errors.append(f"expected 150 lines, found {len(lines)}")
ids, n_ans, n_un, kinds = set(), 0, 0, Counter()
rows = []
for i, line in enumerate(lines, 1):
    try:
        d = json.loads(line)
    except Exception as e:
        errors.append(f"line {i}: not JSON ({e})"); continue
    rows.append(d)
    want_id = f"new2-{i:03d}"
    if d.get("id") != want_id:
        errors.append(f"line {i}: id {d.get('id')!r}, expected {want_id}")
    if d.get("id") in ids:
        errors.append(f"line {i}: duplicate id {d.get('id')}")
    ids.add(d.get("id"))
    if not isinstance(d.get("question"), str) or not d["question"].strip():
        errors.append(f"{want_id}: missing question")
    if d.get("answerable") is True:
        n_ans += 1
        need = {"id", "question", "answerable", "kind", "gold_sql", "gold_answer", "now"}
        if set(d) != need:
            errors.append(f"{want_id}: fields {sorted(d)} != {sorted(need)}")
        if d.get("kind") not in KINDS:
            errors.append(f"{want_id}: bad kind {d.get('kind')!r}")
        if d.get("now") != "2100-12-31 23:59:00":
            errors.append(f"{want_id}: now {d.get('now')!r}")
        ga = d.get("gold_answer")
        if not isinstance(ga, list) or not ga or not all(isinstance(r, list) and r and all(isinstance(v, str) for v in r) for r in ga):
            errors.append(f"{want_id}: gold_answer must be a non-empty list of non-empty lists of strings")
        elif all(all(v in ("", "\\N") for v in r) for r in ga):
            errors.append(f"{want_id}: gold_answer is empty/NULL only")
        if not str(d.get("gold_sql", "")).lstrip().upper().startswith("SELECT"):
            errors.append(f"{want_id}: gold_sql is not a SELECT")
        kinds[d.get("kind")] += 1
    elif d.get("answerable") is False:
        n_un += 1
        need = {"id", "question", "answerable", "kind", "why"}
        if set(d) != need:
            errors.append(f"{want_id}: fields {sorted(d)} != {sorted(need)}")
        if d.get("kind") != "unanswerable":
            errors.append(f"{want_id}: unanswerable line has kind {d.get('kind')!r}")
        if not str(d.get("why", "")).strip():
            errors.append(f"{want_id}: missing why")
    else:
        errors.append(f"{want_id}: answerable must be true or false")
if (n_ans, n_un) != (100, 50):
    errors.append(f"expected 100 answerable / 50 unanswerable, found {n_ans} / {n_un}")
qs = Counter(d.get("question", "").strip().lower() for d in rows)
for q, c in qs.items():
    if c > 1:
        errors.append(f"question repeated {c} times: {q!r}")

checked = 0
for d in rows:
    if d.get("answerable") is not True:
        continue
    try:
        got = run(d["gold_sql"])
    except Exception as e:
        errors.append(f"{d['id']}: gold_sql failed: {e}"); continue
    want = Counter(tuple(r) for r in d["gold_answer"])
    if Counter(got) != want:
        errors.append(f"{d['id']}: gold_sql returned {got[:5]}{'...' if len(got) > 5 else ''}, gold_answer {d['gold_answer'][:5]}")
    checked += 1

print(f"{path}: {len(lines)} lines, {n_ans} answerable / {n_un} unanswerable; kinds: "
      + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
print(f"gold_sql run read-only on database {db!r}: {checked} checked")
if errors:
    print(f"FAILED: {len(errors)} problem(s)")
    for e in errors:
        print("  " + e)
    sys.exit(1)
print("PASSED")
PY
