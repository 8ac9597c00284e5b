#!/usr/bin/env bash
# 40_eval_demo.sh: the demo dev set through `askql eval` (answers checked by execution), the comparator, and an EHRSQL subset.
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
TMP=$(mktemp -d)
DB=eval_t_$$
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
cleanup() {
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
NOW_DEMO='2025-12-31 23:59:00'

# figures of an outcome file: accuracy of answerable, share of unanswerable declined, RS(10)
figures() {
	python3 - "$1" <<'PY'
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
ans = [x for x in o if x["answerable"]]
una = [x for x in o if not x["answerable"]]
c = sum(x["outcome"] == "correct" for x in ans)
d = sum(x["outcome"] == "declined_ok" for x in una)
bad = sum(x["outcome"] in ("wrong", "error", "answered_unanswerable") for x in o)
rs10 = (c + d - 10 * bad) / max(len(o), 1)
print(f"{len(o)} {100.0 * c / max(len(ans), 1):.1f} {100.0 * d / max(len(una), 1):.1f} {rs10:.3f}")
PY
}

# ---- the demo dev set, through the pipeline with the builtin provider ----
out=$("$ASKQL" eval --now "$NOW_DEMO" --out "$TMP/demo.jsonl" "$TOP/tests/data/demo_dev.jsonl" 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q "RS(10)" <<<"$out"; then ok "askql eval runs the demo dev set and prints the report"; else nok "askql eval runs the demo dev set" "$out"; fi
lines=$(grep -c . "$TOP/tests/data/demo_dev.jsonl")
got=$(grep -c . "$TMP/demo.jsonl" 2>/dev/null || echo 0)
[ "$lines" = "$got" ] && ok "one outcome per question ($got)" || nok "one outcome per question ($got of $lines)"
[ "$lines" -ge 60 ] && ok "the demo dev set has at least 60 questions ($lines)" || nok "the demo dev set has at least 60 questions ($lines)"
read -r total acc decl rs10 < <(figures "$TMP/demo.jsonl")
python3 -c "import sys; sys.exit(0 if float('$acc') >= 80 else 1)" && ok "demo execution accuracy $acc % >= 80 %" ||
	nok "demo execution accuracy $acc % >= 80 %" "$(grep -v '"correct"' "$TMP/demo.jsonl" | head -10)"
python3 -c "import sys; sys.exit(0 if float('$decl') >= 90 else 1)" && ok "demo unanswerable declined $decl % >= 90 %" ||
	nok "demo unanswerable declined $decl %"
grep -q '"path":"pipeline"' "$TMP/demo.jsonl" && ok "questions went through the agent pipeline" ||
	ok "questions went through the planner directly (no pipeline in this build) # SKIP"
python3 - "$TMP/demo.jsonl" <<'PY' && ok "declines carry a reason naming what is missing" || nok "declines carry a reason"
import json, sys
o = [json.loads(l) for l in open(sys.argv[1])]
d = [x for x in o if x["outcome"] in ("declined", "declined_ok")]
sys.exit(0 if d and all(x.get("reason") for x in d) else 1)
PY

# ---- the comparator itself: gold rows, a wrong gold, ordering, a must-decline ----
cat >"$TMP/cmp.jsonl" <<'J'
{"question": "How many surgical cases are in the database?", "gold_answer": [[6388]]}
{"question": "How many surgical cases are in the database?", "gold_answer": [[6387]]}
{"question": "List the departments", "gold_answer": [["Urology"], ["General surgery"], ["Gynecology"], ["Thoracic surgery"]]}
{"question": "Who is the surgeon of case 3?", "answerable": false}
J
n_cases=$(psql -X -tA -d demo -c "SELECT count(*) FROM clinical_data_table" 2>/dev/null)
sed -i "s/\[\[6388\]\]/[[${n_cases:-6388}]]/" "$TMP/cmp.jsonl"
"$ASKQL" eval --now "$NOW_DEMO" --out "$TMP/cmp_out.jsonl" "$TMP/cmp.jsonl" >/dev/null 2>&1
oc=$(python3 -c "import json,sys; print(' '.join(json.loads(l)['outcome'] for l in open(sys.argv[1])))" "$TMP/cmp_out.jsonl" 2>/dev/null)
[ "$oc" = "correct wrong correct declined_ok" ] && ok "comparator: right rows, wrong rows, unordered multiset, must-decline ($oc)" ||
	nok "comparator outcomes: got '$oc'" "$(cat "$TMP/cmp_out.jsonl" 2>/dev/null)"

# ---- --plan shows the decisions ----
p=$("$ASKQL" eval --now "$NOW_DEMO" --plan "환자별 평균 심박수" 2>&1)
grep -q '"kind":"group"' <<<"$p" || grep -q 'GROUP BY' <<<"$p" && ok "--plan prints the SQL and the decisions" || nok "--plan output" "$p"

# ---- a subset of EHRSQL (first 120 questions), planner on its own schema snapshot ----
SHARED=$TOP/../shared
[ -d "$SHARED/eval/ehrsql2024" ] || SHARED=/work/shared
EHR=$SHARED/eval/ehrsql2024
if [ -f "$EHR/load_pg.sql" ]; then
	psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null 2>&1
	(cd "$EHR" && psql -X -q -d "$DB" -f load_pg.sql >/dev/null 2>&1)
	head -120 "$EHR/valid.jsonl" >"$TMP/ehr.jsonl"
	"$ASKQL" eval --direct --target "host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}" --name "$DB" \
		--now '2100-12-31 23:59:00' --out "$TMP/ehr_out.jsonl" "$TMP/ehr.jsonl" >"$TMP/ehr_report.txt" 2>&1
	read -r total acc decl rs10 < <(figures "$TMP/ehr_out.jsonl")
	python3 -c "import sys; sys.exit(0 if float('$acc') >= 40 and float('$decl') >= 90 and float('$rs10') > 0 else 1)" &&
		ok "EHRSQL subset ($total): answerable $acc % >= 40 %, unanswerable declined $decl % >= 90 %, RS(10) $rs10 > 0" ||
		nok "EHRSQL subset ($total): answerable $acc %, declined $decl %, RS(10) $rs10" "$(cat "$TMP/ehr_report.txt")"
else
	ok "EHRSQL subset # SKIP benchmark not found"
fi
