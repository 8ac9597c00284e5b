#!/usr/bin/env bash
# 24_catalog_edit.sh: Admin -> Catalog over HTTP: a target's tables, a table's columns, a column's values;
# a synonym added there is used by retrieval and the planner on the very next question (the workers'
# cached catalog reloads because the version moved), edited, kept by a re-index, removed again (and a
# synonym from the metadata file removed and kept removed); value mappings and descriptions added, edited
# and removed; every edit one audit row and one version step; refusals change nothing; analysts get 403.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
T=$(mktemp -d)
W=zorblat$$           # a word no catalog knows
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -15; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
signin() {
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
ver() { q -c "SELECT version FROM askql.cat_targets WHERE name = 'demo'"; }
audits() { q -c "SELECT count(*) FROM askql.audit WHERE action LIKE 'catalog.%'"; }
# post ARGS...: an edit on the demo catalog; prints where it went (the notice tells the outcome)
post() { curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" \
	--data-urlencode target=demo "$@" "$BASE_URL/admin/catalog"; }
# ask Q: a run through the web (the workers' cached catalog), prints "status sql"
ask() {
	local loc run
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" \
		--data-urlencode "question=$1" --data-urlencode mode=auto "$BASE_URL/runs")
	run=${loc##*/}
	q -c "SELECT status || ' ' || coalesce(sql, '') FROM askql.runs WHERE id = ${run:-0}"
}
cleanup() {
	# the demo catalog as it was: no edits of this test, then a re-index rewrites the changed tables
	q -c "DELETE FROM askql.catalog_edits WHERE target = 'demo' AND (phrase LIKE '%$W%' OR phrase = '고령' OR (kind = 'description' AND ((tbl = 'lab_data_table' AND col = '' AND lang = 'ko') OR (tbl = 'clinical_data_table' AND col = 'age' AND lang = 'en'))))" >/dev/null 2>&1
	ASKQL_CONF=${ASKQL_CONF:-} "$ASKQL" index --name demo >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" '[ -n "$A" ]'

# ---- browse: target -> tables -> columns -> values ----
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo")
check "the catalog page lists the demo's tables with row counts and column counts, not the catalog's own tables" \
	'grep -q "data-table=\"clinical_data_table\"" <<<"$page" && grep -q "class=\"rows\">6,388<" <<<"$page" &&
	 grep -q "class=\"ncols\">24<" <<<"$page" && ! grep -q "cat_columns\|cat_targets" <<<"$page" && ! grep -q ">?<" <<<"$page"' \
	"$(grep -n 'rows\|ncols' <<<"$page" | head -5)"
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=clinical_data_table")
check "a table's page lists its columns with type, and marks which identify a patient and a case" \
	'grep -q "data-column=\"age\"" <<<"$page" && grep -q "cat-type\">integer<\|cat-type\">int" <<<"$page" &&
	 grep -A2 "data-column=\"subjectid\"" <<<"$page" | grep -q "cat-ent" && grep -A2 "data-column=\"caseid\"" <<<"$page" | grep -q "cat-ent"' \
	"$(grep -A2 'data-column="subjectid"' <<<"$page")"
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=diagnosis_table")
check "a column joined to the patient key (diagnosis_table.subject_id) identifies a patient too" \
	'grep -A2 "data-column=\"subject_id\"" <<<"$page" | grep -q "cat-ent"' "$(grep -A2 'data-column="subject_id"' <<<"$page")"
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=lab_data_table&column=name")
check "a column's page shows its stored values and their mappings (lab codes k and lac, 칼륨 -> k)" \
	'grep -q "<code>k</code>" <<<"$page" && grep -q "<code>lac</code>" <<<"$page" && grep -q "data-phrase=\"칼륨\" data-value=\"k\"" <<<"$page"' ""

# ---- a synonym: unknown before, used on the next question, edited, kept by re-indexing, removed ----
r=$(ask "average $W by department")
check "before: '$W' links to nothing, the question is declined" '[[ "$r" == unanswerable* ]]' "$r"
v0=$(ver); a0=$(audits)
out=$(post --data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase= $W ")
check "add synonym '$W' to clinical_data_table.age: 303 back to the column with notice=saved" \
	'[[ "$out" == "303 "*"table=clinical_data_table&column=age&notice=saved"* ]]' "$out"
check "the add wrote one audit row with target, table, column and phrase, and bumped the version by one" \
	'[ "$(ver)" = $((v0 + 1)) ] && [ "$(audits)" = $((a0 + 1)) ] &&
	 [ "$(q -c "SELECT concat(detail->>'"'target'"', detail->>'"'table'"', detail->>'"'column'"', detail->>'"'phrase'"') FROM askql.audit WHERE action = '"'catalog.synonym.add'"' ORDER BY id DESC LIMIT 1")" = "democlinical_data_tableage$W" ]' \
	"$(ver) $v0 $(audits) $a0"
r=$(ask "average $W by department")
check "the next question uses it: the planner averages age by department" '[[ "$r" == ok* ]] && [[ "$r" == *age* ]] && [[ "$r" == *department* ]]' "$r"
s=$(ASKQL_CONF=${ASKQL_CONF:-} "$ASKQL" search --json "$W" 2>&1)
check "retrieval finds the column by it" 'python3 -c "import json,sys; d=json.load(sys.stdin); sys.exit(0 if any(c[\"name\"] == \"age\" for c in d[\"columns\"]) else 1)" <<<"$s"' "$s"
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=clinical_data_table&column=age")
check "the column page lists it, with edit and remove" 'grep -q "data-phrase=\"$W\"" <<<"$page" && grep -q "value=\"syn_remove\"" <<<"$page"' ""
v0=$(ver); a0=$(audits)
out=$(post --data-urlencode action=syn_edit --data-urlencode table=clinical_data_table --data-urlencode column=age \
	--data-urlencode "old_phrase=$W" --data-urlencode "phrase=${W}x")
check "edit it to '${W}x': saved, one audit row catalog.synonym.edit, one version" \
	'[[ "$out" == *notice=saved* ]] && [ "$(ver)" = $((v0 + 1)) ] && [ "$(audits)" = $((a0 + 1)) ] &&
	 [ "$(q -c "SELECT concat(detail->>'"'old_phrase'"', '"'>'"', detail->>'"'phrase'"') FROM askql.audit WHERE action = '"'catalog.synonym.edit'"' ORDER BY id DESC LIMIT 1")" = "$W>${W}x" ]' "$out"
r=$(ask "average ${W}x by department")
r2=$(ask "average $W by department")
check "the new word is used, the old one no longer" '[[ "$r" == ok*age* ]] && [[ "$r2" == unanswerable* ]]' "$r / $r2"
out=$(post --data-urlencode action=reindex)
check "a re-index keeps the edit (in the catalog and in what the planner reads)" \
	'[[ "$out" == *notice=reindexed* ]] && [ "$(q -c "SELECT '"'${W}x'"' = ANY(synonyms) FROM askql.cat_columns WHERE target = '"'demo'"' AND table_name = '"'clinical_data_table'"' AND name = '"'age'"'")" = t ] &&
	 [[ "$(ask "average ${W}x by department")" == ok*age* ]]' "$out"
v0=$(ver); a0=$(audits)
out=$(post --data-urlencode action=syn_remove --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase=${W}x")
check "remove it: notice=removed, one audit row catalog.synonym.remove, one version" \
	'[[ "$out" == *notice=removed* ]] && [ "$(ver)" = $((v0 + 1)) ] && [ "$(audits)" = $((a0 + 1)) ] &&
	 [ "$(q -c "SELECT detail->>'"'phrase'"' FROM askql.audit WHERE action = '"'catalog.synonym.remove'"' ORDER BY id DESC LIMIT 1")" = "${W}x" ]' "$out"
r=$(ask "average ${W}x by department")
check "the next question no longer knows it" '[[ "$r" == unanswerable* ]]' "$r"
# a synonym the metadata file gives (고령 of age): removed, it stays removed after a re-index
out=$(post --data-urlencode action=syn_remove --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase=고령")
post --data-urlencode action=reindex >/dev/null
check "a synonym from the metadata file, removed, stays removed after re-indexing (catalog and planner metadata)" \
	'[[ "$out" == *notice=removed* ]] && [ "$(q -c "SELECT '"'고령'"' = ANY(synonyms) FROM askql.cat_columns WHERE target = '"'demo'"' AND table_name = '"'clinical_data_table'"' AND name = '"'age'"'")" = f ] &&
	 [ "$(q -c "SELECT metadata->'"'columns'"'->'"'clinical_data_table.age'"'->'"'synonyms'"' ? '"'고령'"' FROM askql.cat_targets WHERE name = '"'demo'"'")" = f ]' "$out"
out=$(post --data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase=고령")
check "and comes back when added again" '[[ "$out" == *notice=saved* ]] && [ "$(q -c "SELECT '"'고령'"' = ANY(synonyms) FROM askql.cat_columns WHERE target = '"'demo'"' AND table_name = '"'clinical_data_table'"' AND name = '"'age'"'")" = t ]' "$out"
# a table synonym
out=$(post --data-urlencode action=syn_add --data-urlencode table=lab_data_table --data-urlencode "phrase=${W}lab")
out2=$(post --data-urlencode action=syn_remove --data-urlencode table=lab_data_table --data-urlencode "phrase=${W}lab")
check "a table's synonym is added and removed the same way" '[[ "$out" == *notice=saved* ]] && [[ "$out2" == *notice=removed* ]]' "$out / $out2"

# ---- value mappings ----
v0=$(ver); a0=$(audits)
out=$(post --data-urlencode action=map_add --data-urlencode table=lab_data_table --data-urlencode column=name \
	--data-urlencode "phrase=${W}ium" --data-urlencode value=k)
r=$(ask "average ${W}ium")
check "a value mapping ${W}ium -> k is used on the next question (name = 'k')" \
	'[[ "$out" == *notice=saved* ]] && [[ "$r" == ok* ]] && [[ "$r" == *"'"'k'"'"* ]] && [ "$(ver)" = $((v0 + 1)) ] && [ "$(audits)" = $((a0 + 1)) ]' "$out / $r"
out=$(post --data-urlencode action=map_edit --data-urlencode table=lab_data_table --data-urlencode column=name \
	--data-urlencode "old_phrase=${W}ium" --data-urlencode old_value=k --data-urlencode "phrase=${W}ium" --data-urlencode value=na)
r=$(ask "average ${W}ium")
check "edited to -> na: the next question filters na, audit catalog.mapping.edit" \
	'[[ "$out" == *notice=saved* ]] && [[ "$r" == *"'"'na'"'"* ]] && [ "$(q -c "SELECT concat(detail->>'"'old_value'"', '"'>'"', detail->>'"'value'"') FROM askql.audit WHERE action = '"'catalog.mapping.edit'"' ORDER BY id DESC LIMIT 1")" = "k>na" ]' "$out / $r"
out=$(post --data-urlencode action=map_remove --data-urlencode table=lab_data_table --data-urlencode column=name \
	--data-urlencode "phrase=${W}ium" --data-urlencode value=na)
r=$(ask "average ${W}ium")
check "removed: the next question no longer maps it, audit catalog.mapping.remove" \
	'[[ "$out" == *notice=removed* ]] && [[ "$r" != *"'"'na'"'"* ]] && [ "$(ver)" = $((v0 + 3)) ] && [ "$(audits)" = $((a0 + 3)) ]' "$out / $r"

# ---- descriptions in both languages ----
v0=$(ver); a0=$(audits)
out=$(post --data-urlencode action=desc_set --data-urlencode table=lab_data_table --data-urlencode lang=ko --data-urlencode "text=검사 결과 <b>표</b>")
ko=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=lab_data_table")
check "a Korean table description is saved, shown escaped, audited, versioned" \
	'[[ "$out" == *notice=saved* ]] && grep -q "검사 결과 &lt;b&gt;표&lt;/b&gt;" <<<"$ko" && ! grep -q "<b>표</b>" <<<"$ko" && [ "$(ver)" = $((v0 + 1)) ] && [ "$(audits)" = $((a0 + 1)) ]' "$out"
out=$(post --data-urlencode action=desc_set --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode lang=en --data-urlencode "text=Age at surgery, years")
post --data-urlencode action=reindex >/dev/null
check "an English column description is kept by a re-index" \
	'[[ "$out" == *notice=saved* ]] && [ "$(q -c "SELECT description FROM askql.cat_columns WHERE target = '"'demo'"' AND table_name = '"'clinical_data_table'"' AND name = '"'age'"'")" = "Age at surgery, years" ] &&
	 [ "$(q -c "SELECT description_ko FROM askql.cat_tables WHERE target = '"'demo'"' AND name = '"'lab_data_table'"'")" = "검사 결과 <b>표</b>" ]' "$out"
out=$(post --data-urlencode action=desc_remove --data-urlencode table=lab_data_table --data-urlencode lang=ko)
check "removing the Korean description: notice=removed, audit catalog.description.remove, none shown" \
	'[[ "$out" == *notice=removed* ]] && [ "$(q -c "SELECT description_ko IS NULL FROM askql.cat_tables WHERE target = '"'demo'"' AND name = '"'lab_data_table'"'")" = t ] &&
	 [ "$(q -c "SELECT count(*) FROM askql.audit WHERE action = '"'catalog.description.remove'"'")" -ge 1 ]' "$out"

# ---- refusals: a clear notice, nothing changed, no audit row ----
v0=$(ver); a0=$(audits)
o1=$(post --data-urlencode action=map_add --data-urlencode table=lab_data_table --data-urlencode column=name --data-urlencode "phrase=x$W" --data-urlencode value=nosuch)
o2=$(post --data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase=나이")
o3=$(post --data-urlencode action=syn_remove --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase=never$W")
o4=$(post --data-urlencode action=syn_add --data-urlencode table=no_such_table --data-urlencode "phrase=x$W")
o5=$(post --data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode column=age --data-urlencode "phrase=   ")
o6=$(post --data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode "phrase=$(printf 'x%.0s' $(seq 201))")
check "refused edits say why (no_value, exists, not_found, not_found, empty) and change nothing" \
	'[[ "$o1" == *notice=no_value* ]] && [[ "$o2" == *notice=exists* ]] && [[ "$o3" == *notice=not_found* ]] && [[ "$o4" == *notice=not_found* ]] &&
	 [[ "$o5" == *notice=empty* ]] && [ "$(ver)" = "$v0" ] && [ "$(audits)" = "$a0" ]' "$o1 / $o2 / $o3 / $o4 / $o5 / v $(ver) $v0"
o7=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode target=nosuch_$$ \
	--data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode "phrase=x$W" "$BASE_URL/admin/catalog")
check "an edit naming an unregistered target is refused, the default target untouched" \
	'[[ "$o7" == *notice=not_indexed* ]] && [ "$(ver)" = "$v0" ] && [ "$(audits)" = "$a0" ]' "$o7"
check "a phrase over its declared limit (200) is a 400" '[[ "$o6" == 400* ]]' "$o6"
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=clinical_data_table&column=age&notice=exists")
check "the notice is shown in the interface language" 'grep -q "role=\"status\"" <<<"$page"' ""
c=$(code -b "$T/admin" --data-urlencode action=syn_add --data-urlencode table=clinical_data_table --data-urlencode "phrase=x$W" "$BASE_URL/admin/catalog")
check "POST without the CSRF token is refused (403)" '[ "$c" = 403 ] && [ "$(ver)" = "$v0" ]' "$c"
c=$(code -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=$(printf 'y%.0s' $(seq 129))")
check "a table name over its declared limit (128) is a 400" '[ "$c" = 400 ]' "$c"
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=demo&table=%3Cscript%3Ex")
check "an unknown table is named, escaped, and the tables still listed" \
	'grep -q "&lt;script&gt;x" <<<"$page" && ! grep -q "<script>x" <<<"$page" && grep -q "data-table=\"lab_data_table\"" <<<"$page"' ""

# ---- analysts ----
U=an24_$$
curl -s -o /dev/null -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$U" \
	--data-urlencode role=analyst --data-urlencode "password=pw-$U-secret" "$BASE_URL/admin/users"
AN=$(signin "$T/an" "$U" "pw-$U-secret")
check "an analyst gets 403 on the page and on an edit, and nothing changes" \
	'[ -n "$AN" ] && [ "$(code -b "$T/an" "$BASE_URL/admin/catalog?target=demo&table=clinical_data_table")" = 403 ] &&
	 [ "$(code -b "$T/an" --data-urlencode "csrf=$AN" --data-urlencode action=syn_add --data-urlencode target=demo --data-urlencode table=clinical_data_table --data-urlencode "phrase=x$W" "$BASE_URL/admin/catalog")" = 403 ] &&
	 [ "$(ver)" = "$v0" ]'
q -c "DELETE FROM askql.users WHERE name = '$U'" >/dev/null
echo "1..$n"
