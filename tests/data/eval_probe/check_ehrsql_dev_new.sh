#!/usr/bin/env bash
# Check tests/data/eval_probe/ehrsql_dev_new.jsonl against a loaded EHRSQL (MIMIC-IV demo) database.
#   usage: PGHOST=... PGPORT=... PGUSER=... check_ehrsql_dev_new.sh DBNAME [FILE]
# 1. shape: exactly 150 lines, valid JSON, unique ids and questions, required fields,
#    100 answerable / 50 unanswerable, known kinds, now = 2100-12-31 23:59:00.
# 2. every gold_sql runs read-only and returns exactly gold_answer (compared as a multiset
#    of rows, each value as the text psql prints).
# Needs psql and jq. Exit status 0 only if everything passes.
set -u
db="${1:?usage: $0 DBNAME [FILE]}"
here="$(cd "$(dirname "$0")" && pwd)"
file="${2:-$here/ehrsql_dev_new.jsonl}"
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

command -v jq >/dev/null || { echo "jq is required" >&2; exit 2; }
command -v psql >/dev/null || { echo "psql is required" >&2; exit 2; }
[ -f "$file" ] || { echo "no such file: $file" >&2; exit 2; }

# ---- shape -------------------------------------------------------------------
n=$(wc -l < "$file")
[ "$n" -eq 150 ] || err "expected 150 lines, found $n"
jq -c . "$file" >/dev/null 2>&1 || { err "file is not one JSON object per line"; echo "check FAILED"; exit 1; }

bad=$(jq -r '
  def str: type == "string" and length > 0;
  select(
    (.id | str | not) or (.question | str | not) or (.answerable | type != "boolean") or
    (if .answerable then
        ((.kind | IN("exists","list","top_n","aggregate","pair","extreme_time","having")) | not)
        or (.gold_sql | str | not)
        or (.now != "2100-12-31 23:59:00")
        or ((.gold_answer | type) != "array") or ((.gold_answer | length) == 0)
        or ([.gold_answer[] | (type == "array" and length > 0 and all(.[]; type == "string"))] | all | not)
        or has("why")
     else
        (.kind != "unanswerable") or (.why | str | not) or has("gold_sql") or has("gold_answer")
     end)
  ) | .id // "(no id)"' "$file")
[ -z "$bad" ] || err "malformed lines: $(echo $bad)"

dups=$(jq -r .id "$file" | sort | uniq -d)
[ -z "$dups" ] || err "duplicate ids: $(echo $dups)"
dupq=$(jq -r .question "$file" | sort | uniq -d)
[ -z "$dupq" ] || err "duplicate questions: $dupq"
na=$(jq -s 'map(select(.answerable)) | length' "$file")
nu=$(jq -s 'map(select(.answerable | not)) | length' "$file")
[ "$na" -eq 100 ] || err "expected 100 answerable, found $na"
[ "$nu" -eq 50 ] || err "expected 50 unanswerable, found $nu"
echo "shape: $n lines, $na answerable, $nu unanswerable"
jq -s -r 'group_by(.kind) | map("  \(.[0].kind): \(length)") | .[]' "$file"

# ---- gold SQL ------------------------------------------------------------------
export PGOPTIONS="${PGOPTIONS:-} -c default_transaction_read_only=on -c statement_timeout=60000"
RS=$'\x1e'; FS=$'\x1f'
ok=0; bad_sql=0
while IFS= read -r line; do
  id=$(jq -r .id <<<"$line")
  sql=$(jq -r .gold_sql <<<"$line")
  want=$(jq -c '.gold_answer | sort' <<<"$line")
  if ! out=$(psql -X -q -d "$db" -v ON_ERROR_STOP=1 -A -t -F "$FS" -R "$RS" -P 'null=\N' \
                 -c "BEGIN READ ONLY" -c "$sql" -c "ROLLBACK" 2>&1); then
    err "$id: gold_sql failed: $out"; bad_sql=$((bad_sql + 1)); continue
  fi
  got=$(printf '%s' "$out" | jq -R -s -c --arg rs "$RS" --arg fs "$FS" '
          sub("\n$"; "") | if . == "" then [] else split($rs) | map(split($fs)) end | sort')
  if [ "$got" != "$want" ]; then
    err "$id: gold_answer mismatch
    want: $want
    got:  $got"; bad_sql=$((bad_sql + 1))
  else
    ok=$((ok + 1))
  fi
done < <(jq -c 'select(.answerable)' "$file")
echo "gold SQL: $ok matched, $bad_sql failed"

if [ "$fail" -eq 0 ]; then echo "check PASSED"; exit 0; else echo "check FAILED"; exit 1; fi
