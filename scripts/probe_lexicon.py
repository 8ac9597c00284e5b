#!/usr/bin/env python3
"""probe_lexicon.py: plan one question per lexicon term on each target and list the answers whose
SQL names nothing of the term (docs/lexicon.md, "Shared codes").

The questions are made from conf/lexicon/clinical_ko_en.tsv and the templates below, not from any
evaluation set. Each listed answer is a candidate silent wrong answer, for a person to read; a
decline is never listed. Needs a running stack (make run; . var/env.sh).

usage: python3 scripts/probe_lexicon.py [--bin bin/askql] TARGET...
"""
import json, os, re, subprocess, sys, tempfile

TEMPLATES = {
    'drug': ['how many patients received {en}', '{ko} 투여받은 환자 수', 'average age of patients given {en}',
             '{ko} 처방받은 여자 환자 수', 'number of male patients on {en} by year'],
    'lab': ['average {en} value of patients', '{ko} 평균 수치', 'number of patients with {en} above 5',
            '남자 환자의 {ko} 최댓값', 'average {en} by sex'],
    'vital': ['average {en} of patients', '{ko} 평균', '여자 환자 {ko} 평균'],
    'diagnosis': ['number of patients diagnosed with {en}', '{ko} 환자 수', 'share of women among {en} patients',
                  '{ko} 진단받은 환자 평균 나이'],
    'procedure': ['how many patients had {en}', '{ko} 받은 환자 수', '{ko} 건수 월별'],
    'department': ['how many patients in {en}', '{ko} 환자 수', 'average age of {en} patients'],
    'ward': ['how many patients in the {en}', '{ko} 입원 환자 수'],
}


def questions(lexicon):
    out = []
    for line in open(lexicon, encoding='utf-8'):
        if line.startswith('#') or not line.strip():
            continue
        f = line.rstrip('\n').split('\t')
        if len(f) != 4 or f[0] not in TEMPLATES:
            continue
        en, ko = f[1].split('|')[0], f[2].split('|')[0]
        keys = [w[:5] for w in re.split(r'\W+', en.lower()) if len(w) >= 4] + [ko]
        keys += [c.lower() for c in f[3].split('|') if len(c) >= 2]
        for t in TEMPLATES[f[0]]:
            out.append({'id': 'p%d' % len(out), 'question': t.format(en=en, ko=ko), 'answerable': False,
                        'why': 'probe', 'keys': keys})
    return out


def main(argv):
    binp = 'bin/askql'
    if len(argv) > 2 and argv[1] == '--bin':
        binp, argv = argv[2], [argv[0]] + argv[3:]
    if len(argv) < 2:
        sys.exit(__doc__)
    qs = questions(os.path.join(os.path.dirname(__file__), '..', 'conf', 'lexicon', 'clinical_ko_en.tsv'))
    keys = {q['id']: q.pop('keys') for q in qs}
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'probe.jsonl')
        with open(src, 'w', encoding='utf-8') as f:
            for q in qs:
                f.write(json.dumps(q, ensure_ascii=False) + '\n')
        for target in argv[1:]:
            out = os.path.join(d, target + '.jsonl')
            subprocess.run([binp, 'eval', '--target', target, src, '--out', out],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            answered, listed = 0, []
            for line in open(out, encoding='utf-8'):
                r = json.loads(line)
                sql = (r.get('sql') or '').lower()
                if not sql:
                    continue
                answered += 1
                if not any(k and k in sql for k in keys[r['id']]):
                    listed.append((r['question'], r.get('sql')))
            print('%s: %d questions, %d answered, %d answers name nothing of the term' %
                  (target, len(qs), answered, len(listed)))
            for q, s in listed:
                print('   %s\n      %s' % (q, s[:300]))


if __name__ == '__main__':
    main(sys.argv)
