#!/usr/bin/env bash
# 35_history.sh: history and users (issue 15): table filter by prefix, delete with undo (soft delete, window,
# purge), filters kept across verify/delete/undo, runs without an owner hidden and labelled; users page (current
# role selected, one active toggle, duplicate names refused without an audit entry, notices); downloads carrying
# provenance (zip of CSV + provenance.json, JSON and XLSX with user, target and run); configuration descriptions
# in both languages.
set -uo pipefail
: "${TOP:?}" "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${PGHOST:?}" "${PGPORT:?}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
code() { curl -s -o /dev/null -m 30 -w '%{http_code}' "$@"; }
loc() { curl -s -o /dev/null -m 30 -w '%{redirect_url}' "$@"; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
q() { psql -X -q -tA -d askql -v ON_ERROR_STOP=1 "$@"; }
signin() { # signin JAR NAME PASS -> the session's CSRF token
	local jar=$1 pre
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
# page_has JAR URL TEXT: the page at URL shows TEXT (read whole first: grep -q on a pipe would
# end curl early and pipefail would call that a failure)
page_has() { local b; b=$(curl -s -b "$1" "$2"); grep -qF -- "$3" <<<"$b"; }
lang() { curl -s -o /dev/null -b "$1" -c "$1" --data-urlencode "csrf=$2" --data-urlencode "lang=$3" "$BASE_URL/lang"; }

A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" "[ -n '$A' ]"
lang "$T/admin" "$A" en

# ---- users ----
S=$RANDOM$RANDOM
ANN=ann$S BOB=bob$S
audits() { q -c "SELECT count(*) FROM askql.audit WHERE action = 'user.add' AND detail->>'name' = '$1'"; }
l=$(loc -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$ANN" \
	--data-urlencode role=analyst --data-urlencode "password=pw-$ANN-secret" "$BASE_URL/admin/users")
check "adding a user redirects to a notice" "grep -q '/admin/users?notice=added&id=[0-9]' <<<'$l'" "$l"
page=$(curl -s -b "$T/admin" "$l")
check "the users page says the user was added" "grep -q 'User $ANN was added.' <<<\"\$page\"" ""
check "one user.add audit entry" "[ \$(audits $ANN) = 1 ]"
c=$(curl -s -o "$T/dup.html" -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add \
	--data-urlencode "name=$ANN" --data-urlencode role=admin --data-urlencode "password=another-secret" "$BASE_URL/admin/users")
check "adding an existing name is refused (409)" "[ $c = 409 ]" "got $c"
check "... with a message naming it" "grep -q 'A user named $ANN already exists' '$T/dup.html'"
check "... the form keeps the name and the role given" \
	"grep -q 'name=\"name\" required maxlength=\"64\" value=\"$ANN\"' '$T/dup.html' && grep -q '<option value=\"admin\" selected>' '$T/dup.html'"
check "... and no audit entry, no second user, the role unchanged" \
	"[ \$(audits $ANN) = 1 ] && [ \$(q -c \"SELECT count(*) || role FROM askql.users WHERE name = '$ANN' GROUP BY role\") = 1analyst ]"
curl -s -o /dev/null -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$BOB" \
	--data-urlencode role=admin --data-urlencode "password=pw-$BOB-secret" "$BASE_URL/admin/users"
ANNID=$(q -c "SELECT id FROM askql.users WHERE name = '$ANN'")
BOBID=$(q -c "SELECT id FROM askql.users WHERE name = '$BOB'")
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/users")
row() { tr -d '\n' <<<"$page" | grep -o "<tr data-user=\"$1\">.*" | sed 's|</tr>.*||'; }
check "an admin's row opens its dropdown on admin" "grep -q '<option value=\"admin\" selected>' <<<\"\$(row $BOB)\"" "$(row $BOB)"
check "an analyst's row opens its dropdown on analyst" "grep -q '<option value=\"analyst\" selected>' <<<\"\$(row $ANN)\""
check "one active toggle: an active user shows Disable only, with status Active" \
	"grep -q 'value=\"disable\"' <<<\"\$(row $ANN)\" && ! grep -q 'value=\"enable\"' <<<\"\$(row $ANN)\" && grep -q '>Active<' <<<\"\$(row $ANN)\""
check "the signed-in admin's own row has no role, disable or reset controls" \
	"grep -q '(you)' <<<\"\$(row $ADMIN_USER)\" && ! grep -q 'name=\"action\"' <<<\"\$(row $ADMIN_USER)\""
check "no raw 'Disabled: false' anywhere" "! grep -q 'Disabled: \\(true\\|false\\)' <<<\"\$page\""
l=$(loc -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=role --data-urlencode "id=$BOBID" \
	--data-urlencode role=admin "$BASE_URL/admin/users")
check "saving an admin's row untouched keeps the role and records nothing" \
	"grep -q 'notice=same' <<<'$l' && [ \$(q -c \"SELECT role FROM askql.users WHERE id = $BOBID\") = admin ] &&
	 [ \$(q -c \"SELECT count(*) FROM askql.audit WHERE action = 'user.role' AND detail->>'id' = '$BOBID'\") = 0 ]" "$l"
l=$(loc -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=role --data-urlencode "id=$BOBID" \
	--data-urlencode role=analyst "$BASE_URL/admin/users")
check "a role change is made, audited and announced" \
	"[ \$(q -c \"SELECT role FROM askql.users WHERE id = $BOBID\") = analyst ] &&
	 page_has '$T/admin' '$l' '$BOB is now an analyst.'" "$l"
l=$(loc -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=disable --data-urlencode "id=$BOBID" "$BASE_URL/admin/users")
page=$(curl -s -b "$T/admin" "$l")
check "disabling shows a notice, status Disabled and only Enable" \
	"grep -q '$BOB was disabled' <<<\"\$page\" && grep -q '>Disabled<' <<<\"\$(row $BOB)\" && grep -q 'value=\"enable\"' <<<\"\$(row $BOB)\" && ! grep -q 'value=\"disable\"' <<<\"\$(row $BOB)\""
curl -s -o /dev/null -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=enable --data-urlencode "id=$BOBID" "$BASE_URL/admin/users"
lang "$T/admin" "$A" ko
page=$(curl -s -b "$T/admin" "$BASE_URL/admin/users?notice=added&id=$ANNID")
check "in Korean: notice, role names and status in words" \
	"grep -q '사용자 $ANN을(를) 추가했습니다.' <<<\"\$page\" && grep -q '>분석가</option>' <<<\"\$(row $ANN)\" && grep -q '>활성<' <<<\"\$(row $ANN)\""
lang "$T/admin" "$A" en

# ---- history: runs to look at ----
AN=$(signin "$T/ann" "$ANN" "pw-$ANN-secret")
BO=$(signin "$T/bob" "$BOB" "pw-$BOB-secret")
check "both users signed in" "[ -n '$AN' ] && [ -n '$BO' ]"
lang "$T/ann" "$AN" en
mk() { # mk USER_ID|NULL QUESTION TABLES STATUS -> run id
	q -c "INSERT INTO askql.runs(user_id, question, status, sql, tables, row_count)
	      VALUES ($1, '$2', '$4', 'SELECT caseid, sex FROM clinical_data_table ORDER BY caseid LIMIT 7', '$3', 7) RETURNING id" | head -1
}
R1=$(mk "$ANNID" "h35 lab one $S" '{lab_data_table}' ok)
R2=$(mk "$ANNID" "h35 lab two $S" '{public.Lab_results,clinical_data_table}' ok)
R3=$(mk "$ANNID" "h35 vital $S" '{vital_data_table}' ok)
R4=$(mk "$ANNID" "h35 underscore $S" '{la_x}' ok)
R5=$(mk NULL "h35 cli run $S" '{lab_data_table}' ok)
R6=$(mk "$BOBID" "h35 bob run $S" '{lab_data_table}' ok)
hist() { curl -s -b "$T/ann" "$BASE_URL/history?q=h35&$1"; }
has() { grep -q "href=\"/runs/$1\"" <<<"$2"; }
h=$(hist table=lab)
check "table=lab finds lab_data_table and public.Lab_results (prefix, any case, after the schema)" "has $R1 \"\$h\" && has $R2 \"\$h\""
check "... not vital_data_table, not la_x" "! has $R3 \"\$h\" && ! has $R4 \"\$h\""
h=$(hist table=LAB_D)
check "table=LAB_D finds lab_data_table only" "has $R1 \"\$h\" && ! has $R2 \"\$h\""
h=$(hist table=la_)
check "table=la_ treats _ literally: la_x only" "has $R4 \"\$h\" && ! has $R1 \"\$h\""
h=$(hist table=ab)
check "table=ab (not a prefix) finds nothing" "! has $R1 \"\$h\" && ! has $R2 \"\$h\""
q -c "UPDATE askql.runs SET row_count = 1000, truncated = true WHERE id = $R3" >/dev/null
q -c "UPDATE askql.runs SET row_count = 3867 WHERE id = $R1" >/dev/null
h=$(hist '')
check "row counts as the run page says them: the whole count, or the preview's size with + (preview)" \
	"grep -A3 'href=\"/runs/$R1\"' <<<\"\$h\" | grep -q '3,867 rows' && grep -A3 'href=\"/runs/$R3\"' <<<\"\$h\" | grep -q '1,000+ (preview)'"
check "an analyst never sees another's run or an owner-less one" "h=\$(hist ''); ! has $R6 \"\$h\" && ! has $R5 \"\$h\""

# ---- owner-less runs for the admin ----
ha=$(curl -s -b "$T/admin" "$BASE_URL/history?q=h35&all=1")
check "admin, all users: runs without an owner hidden by default" "has $R6 \"\$ha\" && ! has $R5 \"\$ha\""
ha=$(curl -s -b "$T/admin" "$BASE_URL/history?q=h35&all=1&noowner=1")
check "... shown with the toggle, labelled CLI / evaluation" \
	"has $R5 \"\$ha\" && grep -q 'hist-noowner\">CLI / evaluation<' <<<\"\$(grep -A3 'href=\"/runs/$R5\"' <<<\"\$ha\")\""

# ---- delete, undo, filters kept ----
l=$(loc -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=delete --data-urlencode "id=$R1" \
	--data-urlencode q=h35 --data-urlencode table=lab --data-urlencode status=ok --data-urlencode page=1 "$BASE_URL/history")
check "delete keeps the filters and asks for a notice" \
	"grep -q '/history?q=h35&status=ok&table=lab&done=deleted&id=$R1' <<<'$l'" "$l"
page=$(curl -s -b "$T/ann" "$l")
check "the notice says deleted, offers Undo with the filters, and the run is gone from the list" \
	"grep -q 'Run #$R1 was deleted. You can undo this for 10 minutes.' <<<\"\$page\" && grep -q 'value=\"undo\"' <<<\"\$page\" &&
	 grep -q 'name=\"table\" value=\"lab\"' <<<\"\$page\" && ! has $R1 \"\$(sed -n '/<ul class=\"history\">/,/<\/ul>/p' <<<\"\$page\")\""
check "... and under 'Deleted in the last 10 minutes'" "grep -q 'Deleted in the last 10 minutes' <<<\"\$page\""
check "the deleted run's page is 404 and its row waits (deleted_at set)" \
	"[ \$(code -b '$T/ann' '$BASE_URL/runs/$R1') = 404 ] && [ \$(q -c 'SELECT deleted_by FROM askql.runs WHERE id = $R1 AND deleted_at IS NOT NULL') = $ANNID ]"
check "its download is 404 too" "[ \$(code -b '$T/ann' '$BASE_URL/runs/$R1/download?format=csv') = 404 ]"
l=$(loc -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=undo --data-urlencode "id=$R1" \
	--data-urlencode q=h35 --data-urlencode table=lab "$BASE_URL/history")
check "undo restores it, keeping the filters" \
	"grep -q 'q=h35&table=lab&done=restored&id=$R1' <<<'$l' && has $R1 \"\$(hist table=lab)\" && [ \$(code -b '$T/ann' '$BASE_URL/runs/$R1') = 200 ]" "$l"
check "another user cannot delete it (404) and it stays" \
	"[ \$(code -b '$T/bob' --data-urlencode 'csrf=$BO' --data-urlencode action=delete --data-urlencode 'id=$R1' '$BASE_URL/history') = 404 ] && has $R1 \"\$(hist '')\""
check "delete without the CSRF token is refused" \
	"[ \$(code -b '$T/ann' --data-urlencode action=delete --data-urlencode 'id=$R1' '$BASE_URL/history') = 403 ]"
check "a bad filter value is refused (400), nothing deleted" \
	"[ \$(code -b '$T/ann' --data-urlencode 'csrf=$AN' --data-urlencode action=delete --data-urlencode 'id=$R1' --data-urlencode 'table=a b' '$BASE_URL/history') = 400 ] && has $R1 \"\$(hist '')\""
# the window passes: undo says so, the next delete purges it for good
curl -s -o /dev/null -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=delete --data-urlencode "id=$R3" "$BASE_URL/history"
q -c "UPDATE askql.runs SET deleted_at = now() - interval '11 minutes' WHERE id = $R3" >/dev/null
l=$(loc -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=undo --data-urlencode "id=$R3" "$BASE_URL/history")
check "undo after the window says it is too late" \
	"grep -q 'done=gone&id=$R3' <<<'$l' && page_has '$T/ann' '$l' 'can no longer be restored'" "$l"
curl -s -o /dev/null -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=delete --data-urlencode "id=$R4" "$BASE_URL/history"
check "the next delete purges runs past the window (and their steps), keeps the recent one" \
	"[ \$(q -c 'SELECT count(*) FROM askql.runs WHERE id = $R3') = 0 ] && [ \$(q -c 'SELECT count(*) FROM askql.runs WHERE id = $R4') = 1 ]"
l=$(loc -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=verify --data-urlencode "id=$R2" \
	--data-urlencode q=h35 --data-urlencode table=lab --data-urlencode group=1 "$BASE_URL/history")
check "verify from history keeps the filters and announces the proposal" \
	"grep -q 'q=h35&table=lab&group=1&done=proposed&id=$R2' <<<'$l' && page_has '$T/ann' '$l' 'Run #$R2 was proposed as verified' &&
	 [ \$(q -c 'SELECT verify_state FROM askql.runs WHERE id = $R2') = proposed ]" "$l"
h=$(curl -s -b "$T/ann" "$BASE_URL/history?q=h35&table=lab&page=2")
check "paging links and action forms keep the filters" \
	"grep -q 'href=\"/history?page=1&amp;q=h35&amp;table=lab\"' <<<\"\$h\""
l=$(loc -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=delete "$BASE_URL/runs/$R2/action")
check "delete on the run page is undoable too" "grep -q '/history?done=deleted&id=$R2' <<<'$l' && [ \$(q -c 'SELECT count(*) FROM askql.runs WHERE id = $R2 AND deleted_at IS NOT NULL') = 1 ]" "$l"
curl -s -o /dev/null -b "$T/ann" --data-urlencode "csrf=$AN" --data-urlencode action=undo --data-urlencode "id=$R2" "$BASE_URL/history"
lang "$T/ann" "$AN" ko
page=$(curl -s -b "$T/ann" "$BASE_URL/history?done=deleted&id=$R4")
check "in Korean: the delete notice and Undo" "grep -q '실행 #$R4을(를) 삭제했습니다. 10분 안에는 되돌릴 수 있습니다.' <<<\"\$page\" && grep -q '>되돌리기<' <<<\"\$page\""
lang "$T/ann" "$AN" en

# ---- downloads carry provenance ----
curl -s -b "$T/ann" -o "$T/d.zip" -D "$T/zh" "$BASE_URL/runs/$R1/download?format=zip"
check "format=zip is an attachment extraction_*.zip" "grep -qi 'content-disposition: attachment; filename=\"extraction_[0-9_]*\.zip\"' '$T/zh' && grep -qi 'content-type: application/zip' '$T/zh'"
check "the zip passes unzip -t and holds the CSV and provenance.json" \
	"unzip -tq '$T/d.zip' >/dev/null && grep -q '^extraction_[0-9_]*\.csv$' <<<\"\$(unzip -Z1 '$T/d.zip')\" && grep -qx provenance.json <<<\"\$(unzip -Z1 '$T/d.zip')\""
unzip -p "$T/d.zip" provenance.json >"$T/p.json" 2>/dev/null
unzip -p "$T/d.zip" '*.csv' >"$T/d.csv" 2>/dev/null
check "the CSV has the header and 7 rows" "[ \$(tr -d '\r' <'$T/d.csv' | wc -l) = 8 ] && grep -q 'caseid,sex' '$T/d.csv'"
check "provenance.json: question, SQL, time, user, target, run, row count" \
	"python3 -c \"import json,sys; d=json.load(open('$T/p.json')); p=d['provenance']; s=d['summary']; sys.exit(not (p['question']=='h35 lab one $S' and 'clinical_data_table' in p['sql'] and p['started_at'].endswith('Z') and p['user']=='$ANN' and p['target']=='demo' and p['run_id']==$R1 and s['row_count']==7 and s['truncated'] is False and p['file'].endswith('.csv')))\"" "$(cat "$T/p.json")"
curl -s -b "$T/ann" -o "$T/d.json" "$BASE_URL/runs/$R1/download?format=json"
check "JSON carries user, target and run in its provenance, the row count in its summary" \
	"python3 -c \"import json,sys; d=json.load(open('$T/d.json')); p=d['provenance']; sys.exit(not (p['user']=='$ANN' and p['target']=='demo' and p['run_id']==$R1 and p['question']=='h35 lab one $S' and d['summary']['row_count']==7))\""
curl -s -b "$T/ann" -o "$T/d.xlsx" "$BASE_URL/runs/$R1/download?format=xlsx"
mkdir -p "$T/x" && (cd "$T/x" && unzip -q ../d.xlsx)
check "XLSX provenance sheet names the user, target and run" \
	"grep -q '$ANN' '$T/x/xl/sharedStrings.xml' 2>/dev/null || grep -rq '>$ANN<' '$T/x/xl/worksheets/sheet2.xml'"
curl -s -b "$T/ann" -o "$T/d.csv2" "$BASE_URL/runs/$R1/download?format=csv"
check "format=csv is still the plain CSV" "[ \"\$(head -c 3 '$T/d.csv2' | od -An -tx1 | tr -d ' ')\" = efbbbf ] && grep -q 'caseid,sex' '$T/d.csv2'"
check "another user's run downloads nothing (404)" "[ \$(code -b '$T/bob' '$BASE_URL/runs/$R1/download?format=zip') = 404 ]"

# ---- configuration descriptions in both languages ----
cfg=$(curl -s -b "$T/admin" "$BASE_URL/admin/config")
check "configuration descriptions in English" "grep -q 'seconds a deleted run can still be restored' <<<\"\$cfg\""
lang "$T/admin" "$A" ko
cfg=$(curl -s -b "$T/admin" "$BASE_URL/admin/config")
check "configuration descriptions in Korean" "grep -q '삭제한 실행을 기록 페이지에서 되살릴 수 있는 시간' <<<\"\$cfg\" && grep -q '분석가 SQL의 statement_timeout' <<<\"\$cfg\""
lang "$T/admin" "$A" en
echo "1..$n"
