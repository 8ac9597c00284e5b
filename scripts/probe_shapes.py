#!/usr/bin/env python3
"""probe_shapes.py: plan questions built from a target's own stored values and columns, and list
the answers whose SQL has the wrong shape for them (docs/coverage.md, "Probe findings").

- shares: for every pair of stored values A and B of two low-cardinality text columns of one table,
  and for A with a comparison on a numeric column of that table, the share of B (or of the
  comparison) among A.  Right in shape: the part inside the share (AVG(CAST(part AS int))) and A
  a filter (in the WHERE).
- filters: the same pairs as a count or an average of cases with both values.  Right in shape:
  both values in the WHERE.
- breakdowns: every pair of those columns as a two-way count.  Right in shape: both columns in the
  GROUP BY.
- singles: one value said with an article ("had a thyroid operation").  Right in shape: the value
  in the WHERE.
- follow-ups: a count of one value, then "only" another value of that column (it replaces the
  first), a value of another column (it is added), or a breakdown (it is added).
- thresholds and series: a value with a threshold on a numeric column of its table; a value by
  month of a year or by 10-year bands of an age.  Right in shape: the value in the WHERE, and the
  comparison there or the month or band in the GROUP BY.
Every other answer is listed as a candidate silent wrong answer, for a person to read; a decline
is never listed.  The templates are the askql team's own phrasings, not any evaluation set's
questions.  Needs a running stack (make run; . var/env.sh).

usage: python3 scripts/probe_shapes.py [--bin bin/askql] [--max N] TARGET...
"""
import itertools, json, os, re, subprocess, sys, tempfile

# {a}: the base's value, {b}: the part's value (or a comparison phrase)
TEMPLATES = [
    'share of {a} cases with {b}', 'what percentage of {a} cases had {b}?', 'among {a} cases, what % had {b}',
    'percent of {a} cases that were {b}', '{b} rate among {a} cases', 'in {a} cases, what is the {b} rate?',
    '{a} 중 {b} 비율', '{a} 케이스 중 {b} 비율은?', '{b} 비율 ({a} 중)', '{a}에서 {b} 비율',
    'proportion of {a} patients who were {b}', 'what fraction of {a} cases were {b}?', '{a}의 {b} 비율',
    '{a} 환자 가운데 {b} 비율', 'for {a} cases, the percentage with {b}', '{b} share of {a} cases',
]
FILTERS = ['how many {a} {b} cases?', 'number of cases that are {a} and {b}', '{a} {b} 건수', '{a}이면서 {b}인 케이스 수',
           'average {n} of {a} cases with {b}', '{a} {b} 환자의 평균 {n}']
BREAKDOWNS = ['number of cases by {c} and {d}', '{c}별 {d}별 건수', 'case count by {c} x {d}', '{c}와 {d}에 따른 건수']
# follow-ups: (parent, follow-up, what the follow-up's SQL must hold): another value of the same
# column replaces the parent's; a value of another column is added; a breakdown is added
FOLLOWUPS = [('number of {a} cases', 'only {a2}', 'REPLACE'), ('{a} 건수', '{a2}만', 'REPLACE'),
             ('number of {a} cases', 'only {b}', 'ADD'), ('{a} 건수', '그중 {b}만', 'ADD'),
             ('number of {a} cases', 'by {d}', 'BY'), ('{a} 건수', '{d}별로', 'BY')]
# one value said with an article or a quantity around it ("a thyroid operation", "one robotic case")
SINGLES = ['how many patients had a {a} operation?', 'number of patients with a {a} case', '{a} 수술 받은 환자 수',
           'how many patients had an {a} procedure?']
# a value with a threshold on a number, and a value by month of a year or by bands of a number
THRESHOLDS = ['how many {a} cases with {c} over {n}?', '{a} 중 {c} {n} 이상 건수', 'number of {a} cases where {c} is at least {n}']
SERIES = [('monthly number of {a} cases in 2025', 'MONTH'), ('2025년 {a} 월별 건수', 'MONTH'),
          ('{a} cases by 10-year {c} band', 'BAND'), ('{c}대별 {a} 건수', 'BAND')]
COMPARISONS = [('{c} over {n}', '{c} > {n}'), ('{c} of {n} or more', '{c} >= {n}'), ('{c} {n} 이상', '{c} >= {n}')]


def psql(sql):
    out = subprocess.run(['psql', '-X', '-q', '-At', '-F', '\t', '-c', sql], capture_output=True, text=True)
    return [r.split('\t') for r in out.stdout.splitlines() if r]


def cases(target, limit):
    """(question, table, base column, base value, part SQL fragment) tuples."""
    vals = {}
    for t, c, v in psql("SELECT table_name, column_name, value FROM askql.cat_values WHERE target = '%s' AND "
                        "(table_name, column_name) IN (SELECT table_name, column_name FROM askql.cat_values WHERE "
                        "target = '%s' GROUP BY 1, 2 HAVING count(*) BETWEEN 2 AND 12)" % (target, target)):
        if re.fullmatch(r'[A-Za-z][A-Za-z /-]{2,30}', v):
            vals.setdefault((t, c), []).append(v)
    nums = {}
    for t, c in psql("SELECT table_name, name FROM askql.cat_columns WHERE target = '%s' AND "
                     "type IN ('integer', 'numeric', 'double precision', 'real', 'smallint', 'bigint') AND "
                     "name NOT LIKE '%%id'" % target):
        nums.setdefault(t, []).append(c)
    out = []
    for (t1, c1), (t2, c2) in itertools.permutations(vals, 2):
        if t1 != t2 or c1 == c2:
            continue
        for a, b in itertools.product(vals[(t1, c1)][:2], vals[(t2, c2)][:2]):
            for tpl in TEMPLATES:
                out.append((tpl.format(a=a, b=b), t1, c1, a, "%s = '%s'" % (c2, b)))
    for (t1, c1), vs in vals.items():
        for c in nums.get(t1, [])[:3]:
            for phrase, frag in COMPARISONS:
                for tpl in TEMPLATES[:4] + TEMPLATES[6:8]:
                    p = phrase.format(c=c.replace('_', ' '), n=3)
                    out.append((tpl.format(a=vs[0], b=p), t1, c1, vs[0], frag.format(c=c, n=3)))
    for (t1, c1), (t2, c2) in itertools.combinations(vals, 2):
        if t1 != t2 or c1 == c2:
            continue
        for a, b in itertools.product(vals[(t1, c1)][:2], vals[(t2, c2)][:2]):
            for tpl in FILTERS:
                n = (nums.get(t1) or ['x'])[0]
                if '{n}' in tpl and n == 'x':
                    continue
                out.append((tpl.format(a=a, b=b, n=n.replace('_', ' ')), t1, c1, a, 'FILTER', c2, b))
        for tpl in BREAKDOWNS:
            out.append((tpl.format(c=c1.replace('_', ' '), d=c2.replace('_', ' ')), t1, c1, None, 'GROUP', c2, None))
    for (t1, c1), (t2, c2) in itertools.permutations(vals, 2):
        if t1 != t2 or c1 == c2 or len(vals[(t1, c1)]) < 2:
            continue
        a, a2, b = vals[(t1, c1)][0], vals[(t1, c1)][1], vals[(t2, c2)][0]
        for parent, tpl, kind in FOLLOWUPS:
            q = tpl.format(a2=a2, b=b, d=c2.replace('_', ' '))
            want = {'REPLACE': (c1, a2, None, None), 'ADD': (c1, a, c2, b), 'BY': (c1, a, c2, None)}[kind]
            out.append((q, t1, want[0], want[1], 'FOLLOW_' + kind, want[2], want[3], parent.format(a=a)))
    for (t1, c1), vs in vals.items():
        for a in vs[:3]:
            for tpl in SINGLES:
                out.append((tpl.format(a=a), t1, c1, a, 'SINGLE', None, None))
        for c in nums.get(t1, [])[:3]:
            for tpl in THRESHOLDS:
                out.append((tpl.format(a=vs[0], c=c.replace('_', ' '), n=5), t1, c1, vs[0], 'THRESHOLD', c, '5'))
        for tpl, kind in SERIES:
            cs = [c for c in nums.get(t1, []) if 'age' in c][:1] if kind == 'BAND' else [None]
            for c in cs:
                out.append((tpl.format(a=vs[0], c=(c or '').replace('_', ' ')), t1, c1, vs[0], kind, c, None))
    return out[:limit]


def shape_ok(sql, table, col, val, part, col2=None, val2=None):
    s = ' '.join(sql.split())
    where = s.split(' WHERE ', 1)[1] if ' WHERE ' in s else ''
    if part == 'FILTER':
        return all("%s.%s = '%s'" % (table, c, v) in where for c, v in ((col, val), (col2, val2)))
    if part.startswith('FOLLOW_'):
        group = s.split(' GROUP BY ', 1)[1] if ' GROUP BY ' in s else ''
        ok = "%s.%s = '%s'" % (table, col, val) in where
        if part == 'FOLLOW_REPLACE':
            return ok and not re.search(r"%s\.%s (=|IN) \(?'(?!%s')" % (table, col, re.escape(val)), where)
        if part == 'FOLLOW_ADD':
            return ok and "%s.%s = '%s'" % (table, col2, val2) in where
        return ok and re.search(r'\b%s\.%s\b' % (table, col2), group)
    if part == 'SINGLE':
        return "%s.%s = '%s'" % (table, col, val) in where
    if part == 'THRESHOLD':
        return "%s.%s = '%s'" % (table, col, val) in where and re.search(r'\b%s\.%s (>|>=) 5\b' % (table, col2), where)
    if part in ('MONTH', 'BAND'):
        group = s.split(' GROUP BY ', 1)[1] if ' GROUP BY ' in s else ''
        shape = r"date_trunc\('month'" if part == 'MONTH' else r'floor\(\(?%s\.%s\b' % (table, col2)
        return "%s.%s = '%s'" % (table, col, val) in where and re.search(shape, group)
    if part == 'GROUP':
        group = s.split(' GROUP BY ', 1)[1] if ' GROUP BY ' in s else ''
        return all(re.search(r'\b%s\.%s\b' % (table, c), group) for c in (col, col2))
    m = re.search(r'AVG\(CAST\((.*?) AS int\)\)', s)
    if not m or part.split()[0] not in m.group(1) or "'%s'" % val in m.group(1):
        return False
    return "%s.%s = '%s'" % (table, col, val) in where


def main(argv):
    binp, limit = 'bin/askql', 4000
    while len(argv) > 2 and argv[1] in ('--bin', '--max'):
        if argv[1] == '--bin':
            binp = argv[2]
        else:
            limit = int(argv[2])
        argv = [argv[0]] + argv[3:]
    if len(argv) < 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        for target in argv[1:]:
            cs = cases(target, limit)
            src, out = os.path.join(d, target + '_q.jsonl'), os.path.join(d, target + '.jsonl')
            with open(src, 'w', encoding='utf-8') as f:
                for i, c in enumerate(cs):
                    line = {'id': 's%d' % i, 'question': c[0], 'answerable': False, 'why': 'probe'}
                    if c[4].startswith('FOLLOW_'):
                        line['parent_question'] = c[7]
                    f.write(json.dumps(line, ensure_ascii=False) + '\n')
            subprocess.run([binp, 'eval', '--target', target, src, '--out', out],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            answered, listed = 0, []
            for line in open(out, encoding='utf-8'):
                r = json.loads(line)
                if not r.get('sql'):
                    continue
                answered += 1
                c = cs[int(r['id'][1:])]
                if not shape_ok(r['sql'], *c[1:7]):
                    listed.append((r['question'], r['sql']))
            print('%s: %d questions (shares, filters, breakdowns), %d answered, %d of the wrong shape' %
                  (target, len(cs), answered, len(listed)))
            for q, s in listed:
                print('   %s\n      %s' % (q, s[:300]))


if __name__ == '__main__':
    main(sys.argv)
