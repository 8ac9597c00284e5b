#!/usr/bin/env bash
# check_everyday_c.sh: check everyday_c.jsonl (file shape, then every gold SQL, read-only).
#
# Usage: PGHOST=... PGPORT=... PGUSER=... tests/data/eval_demo/check_everyday_c.sh DBNAME
# DBNAME holds the demo database loaded at scale 1 (cd conf/demo && psql -d DBNAME -v scale=1 -f load.sql).
# Fails (exit 1) if the file shape is wrong, or a gold SQL errors, returns zero rows or only NULLs.
# Needs psql and jq.
set -u -o pipefail

db=${1:?usage: $0 DBNAME}
here=$(cd "$(dirname "$0")" && pwd)
file=$here/everyday_c.jsonl
set_name=everyday_c
fail=0
err() { echo "FAIL: $*" >&2; fail=1; }

command -v jq >/dev/null || { echo "FAIL: jq not found" >&2; exit 1; }
command -v psql >/dev/null || { echo "FAIL: psql not found" >&2; exit 1; }
[ -f "$file" ] || { echo "FAIL: $file missing" >&2; exit 1; }

# ---- file shape -------------------------------------------------------------------------
lines=$(wc -l <"$file")
[ "$lines" -eq 40 ] || err "expected 40 lines, found $lines"

n=0
while IFS= read -r line || [ -n "$line" ]; do
	n=$((n + 1))
	want=$(printf '%s-%02d' "$set_name" "$n")
	if ! jq -e . >/dev/null 2>&1 <<<"$line"; then err "line $n: not valid JSON"; continue; fi
	id=$(jq -r '.id // ""' <<<"$line")
	[ "$id" = "$want" ] || err "line $n: id '$id', expected '$want'"
	problems=$(jq -r '
		def kinds: ["count_filter","rate","two_way","band","monthly","threshold_attr","followup","top_n","unanswerable"];
		[
		  (if (.question | type) != "string" or .question == "" then "question missing" else empty end),
		  (if (.lang | IN("ko","en")) | not then "lang must be ko or en" else empty end),
		  (if (.kind as $k | kinds | index($k)) == null then "unknown kind \(.kind)" else empty end),
		  (if (.answerable | type) != "boolean" then "answerable must be a boolean" else empty end),
		  (if .answerable == true then
		     (if .kind == "unanswerable" then "answerable line has kind unanswerable" else empty end),
		     (if (.gold_sql | type) != "string" or (.gold_sql | test("^\\s*(SELECT|WITH)\\b"; "i") | not)
		      then "gold_sql missing or not a SELECT" else empty end),
		     (if (.gold_sql // "") | test(";") then "gold_sql must be one statement without ;" else empty end),
		     (if .now != "2025-12-31 23:59:00" then "now missing or not the anchor" else empty end),
		     (if has("why") then "answerable line has why" else empty end)
		   else
		     (if .kind != "unanswerable" then "unanswerable line must have kind unanswerable" else empty end),
		     (if (.why | type) != "string" or .why == "" then "why missing" else empty end),
		     (if has("gold_sql") then "unanswerable line has gold_sql" else empty end)
		   end),
		  (if .kind == "followup" then
		     (if (.parent_question | type) != "string" or .parent_question == ""
		      then "followup without parent_question" else empty end)
		   else
		     (if has("parent_question") then "parent_question on a non-followup line" else empty end)
		   end),
		  ((keys - ["id","parent_question","question","lang","kind","answerable","gold_sql","now","why"])[]
		   | "unexpected field \(.)")
		] | .[]' <<<"$line")
	while IFS= read -r p; do [ -n "$p" ] && err "line $n ($id): $p"; done <<<"$problems"
done <"$file"

# counts per kind and language, and the two halves (odd = development, even = held-out)
summary=$(jq -s -r '
	def cnt(f): map(select(f)) | length;
	{ kinds: (group_by(.kind) | map({key: .[0].kind, value: length}) | from_entries),
	  ko: cnt(.lang == "ko"), en: cnt(.lang == "en"),
	  odd: (to_entries | map(select(.key % 2 == 0) | .value)),
	  even: (to_entries | map(select(.key % 2 == 1) | .value)) }
	| [ (.kinds | to_entries[] | "kind \(.key) \(.value)"),
	    "lang ko \(.ko)", "lang en \(.en)",
	    "odd ko \(.odd | cnt(.lang == "ko")) en \(.odd | cnt(.lang == "en")) unanswerable \(.odd | cnt(.kind == "unanswerable"))",
	    "even ko \(.even | cnt(.lang == "ko")) en \(.even | cnt(.lang == "en")) unanswerable \(.even | cnt(.kind == "unanswerable"))"
	  ] | .[]' "$file")
for want in "kind count_filter 6" "kind rate 6" "kind two_way 5" "kind band 4" "kind monthly 4" \
	"kind threshold_attr 4" "kind followup 5" "kind top_n 2" "kind unanswerable 4" \
	"lang ko 20" "lang en 20" "odd ko 10 en 10 unanswerable 2" "even ko 10 en 10 unanswerable 2"; do
	grep -qxF "$want" <<<"$summary" || err "expected '$want'; counts are: $(tr '\n' ',' <<<"$summary")"
done
dups=$(jq -r .id "$file" | sort | uniq -d)
[ -z "$dups" ] || err "duplicate ids: $dups"
shape_fail=$fail
[ "$shape_fail" -eq 0 ] && echo "shape ok: 40 lines, ids, fields, kinds, follow-ups with parent_question"

# ---- gold SQL, read-only ----------------------------------------------------------------
ok=0
while IFS=$'\t' read -r id sql; do
	# wrapped so that a row counts as "only NULLs" when every column is NULL
	out=$(PGOPTIONS='-c default_transaction_read_only=on -c statement_timeout=60000' \
		psql -X -q -d "$db" -v ON_ERROR_STOP=1 -At -F '|' 2>&1 <<-EOF
		BEGIN READ ONLY;
		SELECT count(*), count(*) FILTER (WHERE NOT (g IS NULL)) FROM ($sql) g;
		ROLLBACK;
		EOF
	)
	rc=$?
	if [ $rc -ne 0 ]; then err "$id: gold SQL failed: $out"; continue; fi
	rows=${out%%|*}; nonnull=${out##*|}
	if [ "$rows" = "0" ]; then err "$id: gold SQL returned zero rows"; continue; fi
	if [ "$nonnull" = "0" ]; then err "$id: gold SQL returned only NULLs"; continue; fi
	ok=$((ok + 1))
done < <(jq -r 'select(.answerable == true) | [.id, .gold_sql] | @tsv' "$file")
want_ok=$(jq -s 'map(select(.answerable == true)) | length' "$file")
[ "$ok" -eq "$want_ok" ] || err "only $ok of $want_ok gold SQLs ok"

if [ "$fail" -ne 0 ]; then echo "check_everyday_c: FAILED" >&2; exit 1; fi
echo "gold ok: $ok gold SQLs ran read-only with at least one non-NULL row"
echo "check_everyday_c: PASS"
