#!/usr/bin/env python3
"""check_eval_set.py: one checker for the hand-written evaluation sets (shape, then gold SQL read-only).

Usage: PGHOST=... PGPORT=... PGUSER=... python3 tests/data/check_eval_set.py --kind KIND FILE DBNAME

KIND names the brief the set was written from (docs/eval/):
  everyday  brief_demo_everyday.md: 40 lines, ids <set>-01.. (the prefix is line 1's id without its digits), kinds with the brief's counts,
            20 ko + 20 en, 10 + 10 and 2 unanswerable per half; every gold SQL returns a
            non-NULL row. FILE's database is the demo (conf/demo/load.sql, scale 1).
  ehrsql    brief_ehrsql_new.md: 150 lines, ids <prefix>001.., 100
            answerable / 50 unanswerable, gold_answer given; every gold SQL returns exactly
            gold_answer (a multiset of text rows). FILE's database is the MIMIC-IV demo.
  second    brief_second_questions.md: 40 lines, 20 ko + 20 en, 6 unanswerable (3 per half);
            every gold SQL returns a non-NULL row.
Exit status 0 when every check passes; every problem is printed, one per line.
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import Counter

FS, RS = "\x1f", "\x1e"
EVERYDAY_KINDS = {"count_filter": 6, "rate": 6, "two_way": 5, "band": 4, "monthly": 4,
                  "threshold_attr": 4, "followup": 5, "top_n": 2, "unanswerable": 4}
EHRSQL_KINDS = {"exists", "list", "top_n", "aggregate", "pair", "extreme_time", "having"}
SHAPES = {
    "everyday": {"lines": 40, "width": 2, "now": "2025-12-31 23:59:00", "unans": 4},
    "ehrsql": {"lines": 150, "width": 3, "now": "2100-12-31 23:59:00", "unans": 50},
    "second": {"lines": 40, "width": 2, "now": None, "unans": 6},
}


def psql_rows(db, sql):
    """Runs one statement read-only; returns its rows as tuples of text (NULL as \\N) or raises."""
    env = dict(os.environ)
    env["PGOPTIONS"] = (env.get("PGOPTIONS", "") +
                        " -c default_transaction_read_only=on -c statement_timeout=120000").strip()
    p = subprocess.run(["psql", "-X", "-q", "-d", db, "-v", "ON_ERROR_STOP=1", "-A", "-t",
                        "-F", FS, "-R", RS, "-P", "null=\\N", "-c", sql],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip())
    out = p.stdout.rstrip("\n")
    if out.endswith(RS):
        out = out[:-1]
    return [] if out == "" else [tuple(r.split(FS)) for r in out.split(RS)]


def check_line(kind, n, o, prefix, errors):
    """Appends to errors every shape problem of line n (1-based) as object o."""
    shape = SHAPES[kind]
    want_id = "%s%0*d" % (prefix, shape["width"], n)
    if o.get("id") != want_id:
        errors.append("line %d: id %r, expected %r" % (n, o.get("id"), want_id))
    if not isinstance(o.get("question"), str) or not o["question"].strip():
        errors.append("%s: empty question" % want_id)
    if kind != "ehrsql" and o.get("lang") not in ("ko", "en"):
        errors.append("%s: lang %r" % (want_id, o.get("lang")))
    k = o.get("kind")
    if kind == "everyday" and k not in EVERYDAY_KINDS:
        errors.append("%s: unknown kind %r" % (want_id, k))
    if o.get("answerable") is False:
        if not str(o.get("why", "")).strip():
            errors.append("%s: unanswerable line without why" % want_id)
        if "gold_sql" in o:
            errors.append("%s: unanswerable line carries gold_sql" % want_id)
        if kind != "second" and k != "unanswerable":
            errors.append("%s: unanswerable line has kind %r" % (want_id, k))
        return
    if o.get("answerable") is not True:
        errors.append("%s: answerable must be true or false" % want_id)
        return
    if kind == "ehrsql" and k not in EHRSQL_KINDS:
        errors.append("%s: unknown kind %r" % (want_id, k))
    if kind == "everyday" and k == "unanswerable":
        errors.append("%s: kind unanswerable but answerable is true" % want_id)
    if kind == "everyday" and k == "followup" and not str(o.get("parent_question", "")).strip():
        errors.append("%s: follow-up without parent_question" % want_id)
    if shape["now"] and o.get("now") != shape["now"]:
        errors.append("%s: now %r, expected %r" % (want_id, o.get("now"), shape["now"]))
    sql = str(o.get("gold_sql", "")).strip().rstrip(";")
    if not re.match(r"(?is)^\s*(select|with)\b", sql) or ";" in sql:
        errors.append("%s: gold_sql must be one SELECT" % want_id)
    if kind == "ehrsql":
        ga = o.get("gold_answer")
        if (not isinstance(ga, list) or not ga or
                not all(isinstance(r, list) and r and all(isinstance(v, str) for v in r) for r in ga)):
            errors.append("%s: gold_answer must be a non-empty list of lists of strings" % want_id)


def check_balance(kind, items, errors):
    """Appends problems of the whole file: counts, halves, repeated questions."""
    shape = SHAPES[kind]
    unans = sum(o.get("answerable") is False for o in items)
    if unans != shape["unans"]:
        errors.append("%d unanswerable, expected %d" % (unans, shape["unans"]))
    if kind == "everyday":
        kc = Counter(o.get("kind") for o in items)
        if dict(kc) != EVERYDAY_KINDS:
            errors.append("kind counts %s, expected %s" % (dict(kc), EVERYDAY_KINDS))
    if kind != "ehrsql":
        for name, half in (("odd", items[0::2]), ("even", items[1::2])):
            hl = Counter(o.get("lang") for o in half)
            hu = sum(o.get("answerable") is False for o in half)
            if hl != Counter({"ko": 10, "en": 10}) or hu != shape["unans"] // 2:
                errors.append("%s half: languages %s, unanswerable %d" % (name, dict(hl), hu))
    qs = Counter(str(o.get("question", "")).strip().lower() for o in items)
    for q, c in qs.items():
        if c > 1:
            errors.append("a question is repeated %d times (line ids %s)" % (
                c, [o.get("id") for o in items if str(o.get("question", "")).strip().lower() == q]))


def check_gold(kind, db, items, errors):
    """Runs every gold SQL read-only; returns how many ran."""
    ran = 0
    for o in items:
        if o.get("answerable") is not True or not o.get("gold_sql"):
            continue
        try:
            got = psql_rows(db, str(o["gold_sql"]).strip().rstrip(";"))
        except RuntimeError as e:
            errors.append("%s: gold_sql failed: %s" % (o.get("id"), e))
            continue
        ran += 1
        if kind == "ehrsql":
            if Counter(got) != Counter(tuple(r) for r in o.get("gold_answer") or []):
                errors.append("%s: gold_sql returned %s, gold_answer %s" % (
                    o.get("id"), got[:5], (o.get("gold_answer") or [])[:5]))
        elif not got:
            errors.append("%s: gold_sql returns zero rows" % o.get("id"))
        elif all(v == "\\N" for r in got for v in r):
            errors.append("%s: gold_sql returns only NULLs" % o.get("id"))
    return ran


def main():
    ap = argparse.ArgumentParser(description="Check an evaluation set written from a brief.")
    ap.add_argument("--kind", choices=sorted(SHAPES), required=True)
    ap.add_argument("file")
    ap.add_argument("db")
    a = ap.parse_args()
    errors, items = [], []
    lines = open(a.file, encoding="utf-8").read().splitlines()
    if len(lines) != SHAPES[a.kind]["lines"]:
        errors.append("%d lines, expected %d" % (len(lines), SHAPES[a.kind]["lines"]))
    prefix = None
    for n, line in enumerate(lines, 1):
        try:
            o = json.loads(line)
        except ValueError as e:
            errors.append("line %d: not JSON: %s" % (n, e))
            continue
        if prefix is None:
            prefix = re.sub(r"\d+$", "", str(o.get("id", "")))
        items.append(o)
        check_line(a.kind, n, o, prefix, errors)
    check_balance(a.kind, items, errors)
    ran = check_gold(a.kind, a.db, items, errors)
    print("%s: %d lines, %d gold SQL run read-only; kinds %s" % (
        a.file, len(lines), ran, dict(sorted(Counter(o.get("kind", "-") for o in items).items()))))
    for e in errors:
        print("FAIL", e)
    if errors:
        sys.exit(1)
    print("PASSED")


if __name__ == "__main__":
    main()
