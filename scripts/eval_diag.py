#!/usr/bin/env python3
"""eval_diag.py OUTCOMES SETFILE: for `make eval`, counts (never lists) the wrong answers of an EHRSQL
outcome file that differ from the gold by a convention of the gold rather than by a misreading:
  - ties: askql lists every row tied at the first/last time (FETCH ... WITH TIES), the gold keeps one
    (the valid split's LIMIT 1; the test split's gold keeps all of them);
  - input volume: askql sums inputevents.amount (the amount given), the test split's gold sums
    totalamount (the valid split's gold sums amount).
Counts only, so that a held-out half is reported without being read."""
import json, sys

out, setf = sys.argv[1], sys.argv[2]
gold = [json.loads(l) for l in open(setf)]
wrong = ties = volume = 0
for line in open(out):
    d = json.loads(line)
    if d.get('outcome') != 'wrong':
        continue
    wrong += 1
    sql = d.get('sql') or ''
    g = gold[d['line'] - 1].get('gold_sql_sqlite') or ''
    if 'WITH TIES' in sql and 'LIMIT 1' in g and ' = ( SELECT' not in g:
        ties += 1
    elif 'totalamount' in g and 'inputevents.amount' in sql:
        volume += 1
print(f'   of the {wrong} wrong: {ties} list every row tied at the first/last time where the gold keeps one; '
      f'{volume} sum the amount given where the gold sums totalamount')
