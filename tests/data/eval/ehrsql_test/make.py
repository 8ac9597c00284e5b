#!/usr/bin/env python3
"""make.py: builds test.jsonl from the EHRSQL 2024 test split (MIMIC-IV demo) in the format of
../../../../shared/eval/ehrsql2024/valid.jsonl. Reads data.json, label.json and answer.json of
data/mimic_iv/test from a checkout of github glee4810/ehrsql-2024 (CC BY 4.0), given as argument.
Drops, as the valid split was, every answerable question whose gold SQL needs d_icd_diagnoses or
d_icd_procedures (both empty in the shared task's demo database). Keeps the file order.
Marks (gold_unavailable, the question kept in its place so that the halves do not move) every answerable
question whose gold SQL reads inputevents.totalamount: the demo database askql loads
(shared/eval/ehrsql2024/schema_pg.sql) has no such column, so its gold answer cannot be reproduced and
`askql eval` skips it."""
import ast, json, sys, os

src = sys.argv[1]
def load(name):
    with open(os.path.join(src, name)) as f:
        return json.load(f)
data = load('data.json')['data']
label = load('label.json')
answer = load('answer.json')
kept = dropped = 0
with open('test.jsonl', 'w') as out:
    for q in data:
        sql = label[q['id']]
        row = {'id': q['id'], 'question': q['question']}
        if sql == 'null':
            row['answerable'] = False
        else:
            if 'd_icd' in sql:
                dropped += 1
                continue
            row['answerable'] = True
            gold = ast.literal_eval(answer[q['id']])
            row['gold_answer'] = [[str(v) for v in r] for r in gold]
            row['gold_sql_sqlite'] = sql
            if 'totalamount' in sql:
                row['gold_unavailable'] = 'the gold SQL reads inputevents.totalamount, which the demo database does not have'
        kept += 1
        out.write(json.dumps(row, ensure_ascii=False) + '\n')
print(f'{kept} questions written, {dropped} dropped (need the empty ICD dictionaries)')
