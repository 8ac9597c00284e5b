# own_schema.sh: the frame of a planner test on a small schema the test writes itself (names of our
# own): a database made and dropped, questions with gold SQL scored by execution, TAP output.
# Source it, then: own_schema_begin NAME; psql -d "$DB" <<SQL ...; own_schema_eval FILE; own_schema_end N.
# FILE has one JSON object per line: question, gold_sql (absent: not answerable), optional
# parent_question, expect (correct | declined | declined_ok; default correct) and rule (the check's name).

n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }

own_schema_cleanup() {
	psql -X -q -d askql -c "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$TMP"
}

# own_schema_begin NAME: sets TMP, DB (NAME_pid) and OWN_URL, creates the empty database; dropped at exit
own_schema_begin() {
	TMP=$(mktemp -d)
	DB=$1_$$
	OWN_URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
	trap own_schema_cleanup EXIT
	psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null 2>&1
}

# own_schema_eval FILE: indexes the database, asks every question of FILE (now 2025-12-31 23:59)
# and prints one TAP line per question; the run's report is in $TMP/report.txt
own_schema_eval() {
	python3 - "$1" "$TMP/eval.jsonl" "$TMP/want.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out, open(sys.argv[3], "w") as want:
    for line in open(sys.argv[1]):
        q = json.loads(line)
        e = {"question": q["question"]}
        if "parent_question" in q:
            e["parent_question"] = q["parent_question"]
        if "gold_sql" in q:
            e["gold_sql"] = q["gold_sql"]
        else:
            e["answerable"] = False
        out.write(json.dumps(e) + "\n")
        want.write(json.dumps({"question": q["question"], "expect": q.get("expect", "correct"), "rule": q["rule"]}) + "\n")
PY
	"$ASKQL" index --quiet --target "$OWN_URL" --name "$DB" >/dev/null 2>&1
	"$ASKQL" eval --target "$OWN_URL" --name "$DB" --now '2025-12-31 23:59:00' --out "$TMP/out.jsonl" \
		"$TMP/eval.jsonl" >"$TMP/report.txt" 2>&1
	local line
	while IFS= read -r line; do
		case $line in
		OK\ *) ok "${line#OK }" ;;
		*) nok "${line#NOK }" "$(tail -5 "$TMP/report.txt")" ;;
		esac
	done < <(python3 "$TOP/tests/lib/eval_expect.py" "$TMP/want.jsonl" "$TMP/out.jsonl")
}

# own_schema_plan QUESTION: the offline planner's plan of one question (sql:, reason:, explanation: lines)
own_schema_plan() {
	"$ASKQL" eval --direct --target "$OWN_URL" --name "$DB" --now '2025-12-31 23:59:00' --plan "$1" 2>&1
}

# own_schema_expect TEXT NAME QUESTION: ok when the plan of QUESTION contains TEXT
own_schema_expect() {
	local out
	out=$(own_schema_plan "$3")
	case $out in
	*"$1"*) ok "$2" ;;
	*) nok "$2" "$out" ;;
	esac
}

# own_schema_declined NAME QUESTION...: ok for each QUESTION the planner declines (no SQL), the
# check named "'QUESTION' NAME"
own_schema_declined() {
	local name=$1 q out
	shift
	for q in "$@"; do
		out=$(own_schema_plan "$q")
		case $out in
		*"sql: SELECT"*) nok "'$q' $name" "$out" ;;
		*) ok "'$q' $name" ;;
		esac
	done
}

# demo_plan QUESTION: the offline planner's plan of one question on the demo database askql ships
demo_plan() { "$ASKQL" eval --target demo --now '2025-12-31 23:59:00' --plan "$1" 2>&1; }
# demo_expect TEXT NAME QUESTION: ok when the demo plan of QUESTION contains TEXT
demo_expect() {
	local out
	out=$(demo_plan "$3")
	case $out in
	*"$1"*) ok "$2" ;;
	*) nok "$2" "$out" ;;
	esac
}
# demo_declined NAME QUESTION: ok when the demo plan of QUESTION has no SQL
demo_declined() {
	local out
	out=$(demo_plan "$2")
	case $out in
	*"sql: SELECT"*) nok "$1" "$out" ;;
	*) ok "$1" ;;
	esac
}
