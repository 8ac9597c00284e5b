#!/usr/bin/env bash
# Load schema.sql into database $1 and run every gold SQL of questions.jsonl.
# Connection comes from the usual libpq variables (PGHOST, PGPORT, PGUSER, ...).
# Fails if the schema does not load, questions.jsonl is malformed, or any gold SQL
# errors or returns zero rows.  Usage: PGHOST=... PGPORT=... PGUSER=... ./check.sh omop
set -euo pipefail
DB="${1:?usage: check.sh DBNAME}"
HERE="$(cd "$(dirname "$0")" && pwd)"

# Refuse to touch a database that holds anything but this set's own tables; drop those
# (so the check can be re-run) and load schema.sql.
TABLES="concept care_site person observation_period visit_occurrence condition_occurrence drug_exposure measurement death"
others=$(psql -X -q -At -d "$DB" -c "SELECT string_agg(table_name, ',') FROM information_schema.tables
  WHERE table_schema = 'public' AND table_name NOT IN ('$(echo $TABLES | sed "s/ /','/g")')")
if [ -n "$others" ]; then
  echo "FAIL: database $DB has other tables in public ($others); use an empty database" >&2
  exit 1
fi
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c "SET client_min_messages = warning; DROP TABLE IF EXISTS $(echo $TABLES | sed 's/ /, /g') CASCADE;"
t0=$(date +%s%N)
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -f "$HERE/schema.sql"
t1=$(date +%s%N)
echo "schema.sql loaded in $(( (t1 - t0) / 1000000 )) ms"
psql -X -q -At -d "$DB" -c "SELECT 'rows ' || string_agg(t || '=' || n, ' ' ORDER BY t) FROM (
  SELECT 'concept' t, count(*) n FROM concept UNION ALL SELECT 'care_site', count(*) FROM care_site
  UNION ALL SELECT 'person', count(*) FROM person UNION ALL SELECT 'observation_period', count(*) FROM observation_period
  UNION ALL SELECT 'visit_occurrence', count(*) FROM visit_occurrence UNION ALL SELECT 'condition_occurrence', count(*) FROM condition_occurrence
  UNION ALL SELECT 'drug_exposure', count(*) FROM drug_exposure UNION ALL SELECT 'measurement', count(*) FROM measurement
  UNION ALL SELECT 'death', count(*) FROM death) x"

python3 - "$DB" "$HERE/questions.jsonl" <<'PY'
import json, subprocess, sys
db, path = sys.argv[1], sys.argv[2]
lines = open(path, encoding='utf-8').read().splitlines()
bad = 0
ok = 0
if len(lines) != 40:
    print('FAIL: expected 40 lines, got %d' % len(lines)); bad += 1
counts = {}
for n, line in enumerate(lines, 1):
    q = json.loads(line)
    half = 'dev' if n % 2 else 'held-out'
    key = (half, q['lang'], q['answerable'])
    counts[key] = counts.get(key, 0) + 1
    if q['id'] != 'omop-%02d' % n or q['lang'] not in ('ko', 'en'):
        print('FAIL %s: bad id/lang' % q.get('id')); bad += 1; continue
    if not q['answerable']:
        if not q.get('why'):
            print('FAIL %s: unanswerable without why' % q['id']); bad += 1
        continue
    # read-only transaction: gold SQL must not change anything
    sql = 'BEGIN READ ONLY; ' + q['gold_sql'].rstrip().rstrip(';') + '; ROLLBACK;'
    r = subprocess.run(['psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', db, '-c', sql],
                       capture_output=True, text=True)
    rows = [x for x in r.stdout.splitlines() if x.strip()]
    if r.returncode != 0:
        print('FAIL %s: %s' % (q['id'], r.stderr.strip())); bad += 1
    elif not rows:
        print('FAIL %s: zero rows' % q['id']); bad += 1
    else:
        ok += 1
        print('ok   %s  %3d row(s)  first: %s' % (q['id'], len(rows), rows[0][:70]))
for k in sorted(counts):
    print('  %-8s %s answerable=%-5s %d' % (k[0], k[1], k[2], counts[k]))
print('%d passed, %d failed' % (ok, bad))
sys.exit(1 if bad else 0)
PY
