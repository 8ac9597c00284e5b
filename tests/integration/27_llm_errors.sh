#!/usr/bin/env bash
# 27_llm_errors.sh: database errors under llm_data_policy schema and values (issue 27, "errors to the model"):
# the model's SQL provokes errors with a value of every identifier kind (a name, a registration number, a
# patient number, a phone, an e-mail, a birth date, a diagnosis) in a cast or function whose message prints
# the value, quoted or not (chr() of a number, an XML parse of a name, a json cast, make_date).  Extraction
# retries and ReAct previews feed each error back; the fake LLM records every request.  Under schema and
# values no stored value, and no value derived from one (the number chr() was given), is in any body; the
# model reads the SQLSTATE and the position.  Under rows the same runs do carry them (the check can fail).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
DB=llmerr_$$
WORK=$(mktemp -d /tmp/askql-27e.XXXXXX); echo "# work $WORK"
FAKE_PID=
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -30; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
appsql() { psql -X -q -tA -d askql -c "$1"; }
cleanup() {
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
	appsql "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	        DELETE FROM askql.cat_tables WHERE target = '$DB'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	[ -n "${KEEPW:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
cp "$ASKQL" "$WORK/askql" && ASKQL=$WORK/askql

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" >/dev/null <<'SQL'
CREATE TABLE patient (
	pt_no      text PRIMARY KEY,
	pt_name    text,
	jumin_no   text,
	phone      text,
	email      text,
	birth_date date,
	dx_code    text,
	ward       text
);
COMMENT ON TABLE patient IS '환자 기본정보';
COMMENT ON COLUMN patient.pt_no IS '환자번호(등록번호)';
COMMENT ON COLUMN patient.pt_name IS '환자명';
COMMENT ON COLUMN patient.jumin_no IS '주민등록번호';
COMMENT ON COLUMN patient.phone IS '연락처 휴대전화';
COMMENT ON COLUMN patient.email IS '이메일 주소';
COMMENT ON COLUMN patient.birth_date IS '생년월일';
COMMENT ON COLUMN patient.dx_code IS '주진단 코드 (상병)';
COMMENT ON COLUMN patient.ward IS 'ward of the current admission';
INSERT INTO patient VALUES
 ('00081234', '이서연1', '109001-1234560', '010-4821-7713', 'seoyeonlee.k@example.kr', '1990-01-07', 'F32.1', 'WESTWING7'),
 ('00081235', 'Kimberlyn', '871122-2345671', '010-3307-9912', 'kimberlyn.h@example.kr', '1987-11-22', 'X70.9', 'EASTWING3'),
 ('00081236', '박도윤', '030415-3123452', '011-629-4410', 'doyunpark.p@example.kr', '2003-04-15', 'B20.0', 'WESTWING7');
GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
out=$("$ASKQL" index --target "$URL" 2>&1); rc=$?
check "the clinic target indexes" '[ $rc -eq 0 ]' "$out"

# every stored value of every column (schema withholds them all), and of the identifier columns phi found
"$ASKQL" phi list --target "$DB" --json >"$WORK/phi.json" 2>&1
python3 - "$WORK/phi.json" >"$WORK/idcols" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1])):
    if c["class"] in ("direct", "quasi", "unclassified"):
        print(c["column"])
PY
check "phi classifies the name, numbers, phone and birth date as identifiers" \
	'[ "$(grep -cxE "patient.(pt_name|jumin_no|phone|pt_no|birth_date)" "$WORK/idcols")" = 5 ]' \
	"$(cat "$WORK/phi.json")"
: >"$WORK/idvals"; : >"$WORK/allvals"
while read -r col; do
	c=${col#*.}
	psql -X -q -tA -d "$DB" -c "SELECT DISTINCT \"$c\"::text FROM patient WHERE \"$c\" IS NOT NULL" >>"$WORK/idvals"
done <"$WORK/idcols"
for c in pt_no pt_name jumin_no phone email birth_date dx_code; do
	psql -X -q -tA -d "$DB" -c "SELECT DISTINCT \"$c\"::text FROM patient" >>"$WORK/allvals"
done

# the cases: SQL the model writes | SQL giving what its error would print of a row (beyond the stored values)
CASES=(
	"SELECT chr(replace(substr(jumin_no, 1, 8), '-', '')::int) AS c FROM patient ;; SELECT replace(substr(jumin_no, 1, 8), '-', '') FROM patient"
	"SELECT xmlparse(document '<' || pt_name) AS x FROM patient ;; "
	"SELECT pt_name::json AS j FROM patient ;; "
	"SELECT jumin_no::int AS j FROM patient ;; "
	"SELECT chr(pt_no::int * 1000) AS c FROM patient ;; SELECT (pt_no::int * 1000)::text FROM patient"
	"SELECT make_date(extract(year FROM birth_date)::int, extract(month FROM birth_date)::int + 12, extract(day FROM birth_date)::int) AS d FROM patient ;; SELECT format('%s-%s-%s', extract(year FROM birth_date)::int, extract(month FROM birth_date)::int + 12, lpad(extract(day FROM birth_date)::int::text, 2, '0')) FROM patient"
	"SELECT replace(phone, '-', '')::smallint AS p FROM patient ;; SELECT replace(phone, '-', '') FROM patient"
	"SELECT email::json AS e FROM patient ;; SELECT split_part(email, '.', 1) FROM patient"
	"SELECT xmlparse(document '<' || dx_code) AS x FROM patient ;; "
)
: >"$WORK/derived"
for c in "${CASES[@]}"; do
	d=${c#* ;; }
	[ -n "$d" ] && psql -X -q -tA -d "$DB" -c "$d" >>"$WORK/derived"
done
# every case does fail on the database, with a message that prints the value (the check of the test itself)
errs=0; leaky=0
for c in "${CASES[@]}"; do
	e=$(psql -X -q -tA -d "$DB" -c "${c%% ;; *}" 2>&1 >/dev/null) && continue
	errs=$((errs + 1))
	if grep -qFf <(cat "$WORK/allvals" "$WORK/derived") <<<"$e"; then leaky=$((leaky + 1)); else echo "# prints no value: $e"; fi
done
check "each of the ${#CASES[@]} casts fails on the database and its message prints a value of a row" \
	'[ $errs -eq ${#CASES[@]} ] && [ $leaky -eq ${#CASES[@]} ]' "errors $errs, printing a value $leaky"
cat "$WORK/idvals" "$WORK/derived" >"$WORK/idleak"
cat "$WORK/allvals" "$WORK/derived" >"$WORK/allleak"

python3 "$FAKE_LLM" --requests "$WORK/req.jsonl" --port-file "$WORK/port" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$WORK/port")
export ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=sk-test
export ASKQL_LLM_BACKOFF_MS=10 ASKQL_LLM_BACKOFF_MAX_MS=50 ASKQL_LLM_RETRIES=1 ASKQL_LLM_TIMEOUT_MS=5000
export ASKQL_MAX_RETRIES=$(( ${#CASES[@]} + 2 )) ASKQL_REACT_MAX_CALLS=$(( ${#CASES[@]} + 3 ))
unset ASKQL_LLM_DATA_POLICY

script() { curl -s -XPOST --data-binary "$1" "$FAKE/__script" >/dev/null; }
resp() { python3 -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$1"; }
jsql() { python3 -c 'import json,sys; print(json.dumps({"reasoning":"r","sql":sys.argv[1]}))' "$1"; }
call() { printf '<reasoning>step</reasoning><tool_call><name>%s</name><parameters><sql><![CDATA[%s]]></sql></parameters></tool_call>' "$1" "$2"; }
jget() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read() or "{}"); v=d.get(sys.argv[1]); print("" if v is None else v)' "$1"; }
ask() { OUT=$("$ASKQL" ask --json --no-cache --target "$DB" "$@" 2>>"$WORK/stderr"); }
GOOD="SELECT ward, count(*) AS n FROM patient GROUP BY ward ORDER BY ward"

# runs POLICY: every case as an extraction attempt, then as a ReAct preview, then the good SQL
runs() {
	local s="" c
	: >"$WORK/req.jsonl"
	for c in "${CASES[@]}"; do s="$s$(resp "$(jsql "${c%% ;; *}")"),"; done
	script "[$s$(resp "$(jsql "$GOOD")")]"
	ask --mode extract "how many patients are on each ward"
	echo "$OUT" >"$WORK/$1.extract.json"
	s=""
	for c in "${CASES[@]}"; do s="$s$(resp "$(call execute_sql_preview "${c%% ;; *}")"),"; done
	script "[$s$(resp "$(call submit_sql "$GOOD")")]"
	ask --mode react "count the patients per ward"
	echo "$OUT" >"$WORK/$1.react.json"
	cp "$WORK/req.jsonl" "$WORK/$1.req.jsonl"
}

# found FILE VALUES: the values of VALUES (one a line, 3 characters or more) in any recorded body, raw,
# as UTF-8 JSON or \u-escaped JSON
found() {
	python3 - "$1" "$2" <<'PY'
import json, sys
bodies = []
for line in open(sys.argv[1], encoding="utf-8"):
    e = json.loads(line)
    if not e["path"].endswith("/chat/completions"):
        continue
    bodies += [e.get("raw", ""), json.dumps(e["body"], ensure_ascii=False), json.dumps(e["body"])]
vals = {v.strip() for v in open(sys.argv[2], encoding="utf-8") if len(v.strip()) >= 3}
hits = set()
for v in vals:
    forms = {v, json.dumps(v)[1:-1], json.dumps(v, ensure_ascii=False)[1:-1]}
    if any(f in b for f in forms for b in bodies):
        hits.add(v)
print("\n".join(sorted(hits)))
PY
}
has_states() { local f=$1 s; shift; for s; do grep -q "SQLSTATE $s" "$f" || return 1; done; }
nreq() { grep -c chat/completions "$1"; }
both_ran() {
	[ "$(jget status <"$WORK/$1.extract.json")" = ok ] && [ "$(jget attempts <"$WORK/$1.extract.json")" = $(( ${#CASES[@]} + 1 )) ] &&
		[ "$(jget status <"$WORK/$1.react.json")" = ok ]
}

for pol in schema values; do
	"$ASKQL" target policy "$DB" $pol >/dev/null
	runs $pol
	check "$pol: every case was tried and both runs answered after them" 'both_ran $pol' \
		"$(cat "$WORK/$pol.extract.json" "$WORK/$pol.react.json"; tail -5 "$WORK/stderr")"
	h=$(found "$WORK/$pol.req.jsonl" "$WORK/idleak")
	check "$pol: no identifier value, nor a number made of one, in any of $(nreq "$WORK/$pol.req.jsonl") request bodies" \
		'[ -z "$h" ]' "$h"
	check "$pol: the model read the SQLSTATEs (54000 chr, 2200M xml, 22P02 json/int, 22008 make_date, 22003 int range)" \
		'has_states "$WORK/$pol.req.jsonl" 54000 2200M 22P02 22008 22003'
	check "$pol: and no message text of them" \
		'! grep -qE "too large for encoding|Start Tag|Token .* is invalid|field value out of range" "$WORK/$pol.req.jsonl"'
done
h=$(found "$WORK/schema.req.jsonl" "$WORK/allleak")
check "schema: no stored value of any column (the diagnosis included) in any body" '[ -z "$h" ]' "$h"

"$ASKQL" target policy "$DB" rows >/dev/null
runs rows
check "rows: both runs answered" 'both_ran rows' "$(cat "$WORK/rows.extract.json" "$WORK/rows.react.json")"
h=$(found "$WORK/rows.req.jsonl" "$WORK/derived")
check "rows: the messages reach the model as PostgreSQL wrote them, numbers made of values included (the check can fail)" \
	'grep -q "too large for encoding" "$WORK/rows.req.jsonl" && [ -n "$h" ]' "$h"

echo "1..$n"
