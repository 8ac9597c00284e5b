#!/usr/bin/env bash
# 28_history_levels.sh: lists, searches, re-runs and follow-ups at the viewer's CURRENT level (issue 27).
# An analyst asks, at the identified level, about a patient with a rare name (Quillfeather) in a small ward
# (QWARD7); an admin moves her to aggregate.  Then her history, its search (question and SQL), the grouped
# view, the recently-deleted list, the withheld run page, an admin's view of all users' runs and a re-run or
# verify by the admin show no trace of the name, and a search for it finds nothing (the same page as a
# search for a word no run has).  A follow-up of the hidden run (form, stream, API) is refused with the
# reason and starts no run.  Back at identified everything returns, and a follow-up carries the parent's
# question (what the refusal keeps out).  Step outputs at limited and aggregate hold no stored value of an
# identifier or quasi-identifier column (docs/privacy.md "Stored results and the viewer's level now").
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
DB=hl_clinic_$$
ROLES="askql_${DB}_identified askql_${DB}_limited askql_${DB}_aggregate"
ANA=hl_ana_$$
T=$(mktemp -d)
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
q() { psql -X -q -tA -d askql -c "$1" 2>/dev/null; }
field() { grep -o "name=\"$1\" value=\"[^\"]*\"" | head -1 | sed 's/.*value="//; s/"$//'; }
signin() {
	local jar=$1 pre
	rm -f "$jar"
	pre=$(curl -s -c "$jar" -b "$jar" "$BASE_URL/signin" | field csrf)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode "name=$2" \
		--data-urlencode "password=$3" "$BASE_URL/signin"
	pre=$(curl -s -b "$jar" "$BASE_URL/" | field csrf)
	# the pages in English (the checks read the English words)
	curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrf=$pre" --data-urlencode lang=en --data-urlencode next=/ "$BASE_URL/lang"
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
cleanup() {
	"$ASKQL" user level "$ADMIN_USER" "$DB" identified >/dev/null 2>&1
	q "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	   DELETE FROM askql.cat_tables WHERE target = '$DB'; DELETE FROM askql.target_levels WHERE target = '$DB';
	   DELETE FROM askql.runs WHERE target = '$DB'; DELETE FROM askql.user_levels WHERE target = '$DB';
	   DELETE FROM askql.api_tokens WHERE user_id IN (SELECT id FROM askql.users WHERE name = '$ANA');
	   DELETE FROM askql.users WHERE name = '$ANA'" >/dev/null
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	for r in $ROLES; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
	rm -rf "$T"
}
trap cleanup EXIT

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE hwanja (subject_id integer PRIMARY KEY, ptnt_nm text, phone text, brth_dt date, age integer, sex text, zip_cd text);
COMMENT ON COLUMN hwanja.subject_id IS 'de-identified subject key';
COMMENT ON COLUMN hwanja.ptnt_nm IS '환자명';
COMMENT ON COLUMN hwanja.brth_dt IS '생년월일';
COMMENT ON COLUMN hwanja.zip_cd IS '우편번호';
INSERT INTO hwanja VALUES (1, 'Quillfeather', '010-7777-1212', '1931-12-31', 93, 'F', '61452');
INSERT INTO hwanja SELECT g, (ARRAY['Alder','Birch','Cedar','Dogwood','Elm'])[1 + g % 5] || g, '010-' || (1000 + g) || '-' || (2000 + g),
	date '1950-01-01' + g * 300, 30 + g, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END, lpad((10000 + g * 1373 % 53000)::text, 5, '0')
	FROM generate_series(2, 45) g;
CREATE TABLE ipwon (ipwon_seq integer PRIMARY KEY, subject_id integer REFERENCES hwanja, ipwon_dt timestamp, ward_cd text);
COMMENT ON COLUMN ipwon.ipwon_dt IS '입원일시';
INSERT INTO ipwon SELECT g, 1 + g % 45, timestamp '2025-01-13 08:30' + g * interval '3 day',
	CASE WHEN g % 45 = 0 THEN 'QWARD7' ELSE 'W' || (g % 2) END FROM generate_series(1, 200) g;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
RO="host=$PGHOST port=$PGPORT dbname=$DB user=askql_reader"
(. "$TOP/scripts/lib.sh" && pgpass_allow "$VAR" "$PGPORT" "$DB" askql_reader askql_app) || nok "pgpass_allow $DB"
out=$("$ASKQL" index --target "$URL" --ro "$RO" 2>&1); rc=$?
check "index and register the clinic target" '[ $rc -eq 0 ] && grep -q "^indexed $DB" <<<"$out"' "$out"
out=$("$ASKQL" target levels "$DB" 2>&1); rc=$?
check "askql target levels sets up its roles and views" '[ $rc -eq 0 ]' "$out"
printf 'hl-password-%s\n' $$ > "$T/pw"
"$ASKQL" user add "$ANA" analyst --password-file "$T/pw" >/dev/null 2>&1
AID=$(q "SELECT id FROM askql.users WHERE name = '$ANA'")
A=$(signin "$T/ana" "$ANA" "hl-password-$$")
check "the analyst signs in" '[ -n "$A" ]'

steprun() {   # steprun QUESTION SQL: a step-mode run of the analyst whose SQL is edited to SQL; prints its id once done
	local loc id
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode mode=step \
		--data-urlencode "target=$DB" --data-urlencode "question=$1" "$BASE_URL/runs"); id=${loc##*/runs/}; id=${id%%[?#]*}
	for _ in 1 2 3; do
		[ "$(q "SELECT status || ' ' || coalesce(state->'pause'->>'stage', '') FROM askql.runs WHERE id = ${id:-0}")" = "paused plan" ] || break
		curl -s -o /dev/null -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode action=approve "$BASE_URL/runs/$id/step"
	done
	[ "$(q "SELECT status FROM askql.runs WHERE id = ${id:-0}")" = paused ] || { echo "${id:-0}"; return; }
	curl -s -o /dev/null -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode action=run --data-urlencode "sql=$2" "$BASE_URL/runs/$id/step"
	for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = $id")" = running ] || break; sleep 0.2; done
	echo "${id:-0}"
}
ids() { grep -o 'href="/runs/[0-9]*"' | sort -u | tr '\n' ' '; }   # the runs a page links to
nruns() { q "SELECT count(*) FROM askql.runs WHERE user_id = $1"; }

# ---- at identified: a question naming the patient, and two runs whose SQL and rows name her (one fingerprint) ----
askrun() {   # askrun QUESTION: the analyst's run (auto mode), done; prints its id
	local loc id
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode mode=auto \
		--data-urlencode "target=$DB" --data-urlencode "question=$1" "$BASE_URL/runs"); id=${loc##*/runs/}; id=${id%%[?#]*}
	for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = ${id:-0}")" = running ] || break; sleep 0.2; done
	echo "${id:-0}"
}
SQLQ="SELECT h.ptnt_nm, i.ward_cd FROM hwanja h JOIN ipwon i USING (subject_id) WHERE h.ptnt_nm = 'Quillfeather'"
RQ=$(askrun "admissions of Quillfeather in ward QWARD7")
# a run made before levels were recorded has none: it counts as identified, the most revealing
q "UPDATE askql.runs SET access_level = NULL WHERE id = ${RQ:-0}" >/dev/null
RS1=$(steprun "number of patients by sex" "$SQLQ")
RS2=$(steprun "number of patients by sex" "$SQLQ")
check "at identified: a run whose question names the patient (run $RQ, its status does not matter; no level recorded)" \
	'[ "$(q "SELECT coalesce(access_level, '"'"'none'"'"') FROM askql.runs WHERE id = ${RQ:-0} AND question LIKE '"'"'%Quillfeather%'"'"'")" = none ]' \
	"$(q "SELECT id, status, access_level, error FROM askql.runs WHERE id = ${RQ:-0}")"
check "and two whose SQL and rows name her, with one fingerprint (runs $RS1, $RS2)" \
	'[ "$(q "SELECT count(*) FROM askql.runs WHERE id IN ($RS1, $RS2) AND status = '"'"'ok'"'"' AND access_level = '"'"'identified'"'"' AND preview::text LIKE '"'"'%Quillfeather%'"'"' AND sql LIKE '"'"'%Quillfeather%'"'"'")" = 2 ] &&
	 [ "$(q "SELECT count(DISTINCT fingerprint) FROM askql.runs WHERE id IN ($RS1, $RS2)")" = 1 ]' \
	"$(q "SELECT id, status, access_level, error, fingerprint FROM askql.runs WHERE id IN (${RS1:-0}, ${RS2:-0})")"
P=$(curl -s -b "$T/ana" "$BASE_URL/history")
check "identified: her history shows the question and the SQL" 'grep -q "Quillfeather in ward QWARD7" <<<"$P" && grep -q "ptnt_nm = " <<<"$P"' "$(grep -o 'Quillfeather.\{0,60\}' <<<"$P" | head -3)"
P=$(curl -s -b "$T/ana" "$BASE_URL/history?q=Quillfeather")
check "identified: a search for the name finds the three runs" 'for i in $RQ $RS1 $RS2; do grep -q "href=\"/runs/$i\"" <<<"$P" || exit 1; done'
P=$(curl -s -b "$T/ana" "$BASE_URL/history?group=1")
check "identified: grouped by fingerprint, the two with one SQL are one line '2×'" 'grep -q "2× " <<<"$P"' "$(grep -o 'hrun.\{0,80\}' <<<"$P" | head)"

# ---- moved to aggregate ----
"$ASKQL" user level "$ANA" "$DB" aggregate >/dev/null 2>&1
RV=$(steprun "number of patients by sex" "SELECT ward_cd AS visibleword, count(DISTINCT subject_id) AS patients FROM ipwon GROUP BY ward_cd")
check "at aggregate she asks a grouped question (run $RV, aggregate)" \
	'[ "$(q "SELECT status || '"'"' '"'"' || access_level FROM askql.runs WHERE id = ${RV:-0}")" = "ok aggregate" ]' \
	"$(q "SELECT status, access_level, error FROM askql.runs WHERE id = ${RV:-0}")"
P=$(curl -s -b "$T/ana" "$BASE_URL/history")
check "aggregate: her history lists the hidden runs by number, no question, no SQL, no name" \
	'! grep -q "Quillfeather\|QWARD7\|ptnt_nm" <<<"$P" && grep -q "Run #$RQ: read at the identified access level; its question, SQL and rows are hidden at your current level (aggregate)" <<<"$P" &&
	 grep -q "href=\"/runs/$RQ\"" <<<"$P"' "$(grep -o 'Quillfeather.\{0,80\}\|hrun.\{0,200\}' <<<"$P" | head -5)"
check "aggregate: the run she may see is listed with its SQL" 'grep -q "ward_cd AS visibleword" <<<"$P"'
check "aggregate: a hidden run offers no verify" \
	'[ "$(grep -c "data-hidden=\"1\"" <<<"$P")" -ge 3 ] && ! grep -A11 "data-hidden" <<<"$P" | grep -q "value=\"verify\""'
P=$(curl -s -b "$T/ana" "$BASE_URL/history?q=Quillfeather"); P0=$(curl -s -b "$T/ana" "$BASE_URL/history?q=Zzqxnomatch")
check "aggregate: a search for the name finds nothing, the same page as a word no run has" \
	'! grep -q "href=\"/runs/" <<<"$P" && [ "$(ids <<<"$P")" = "$(ids <<<"$P0")" ]' "$(ids <<<"$P")"
P=$(curl -s -b "$T/ana" "$BASE_URL/history?q=ptnt_nm")
check "aggregate: a search in the hidden SQL finds nothing" '! grep -q "href=\"/runs/$RS1\"\|href=\"/runs/$RS2\"" <<<"$P"' "$(ids <<<"$P")"
P=$(curl -s -b "$T/ana" "$BASE_URL/history?q=visibleword")
check "aggregate: a search still finds what she may see" 'grep -q "href=\"/runs/$RV\"" <<<"$P"'
P=$(curl -s -b "$T/ana" "$BASE_URL/history?group=1")
check "aggregate: grouped, no name, and the hidden runs are not grouped (no '2×' saying they share SQL)" \
	'! grep -q "Quillfeather\|ptnt_nm" <<<"$P" && grep -q "href=\"/runs/$RS1\"" <<<"$P" && grep -q "href=\"/runs/$RS2\"" <<<"$P" && ! grep -q "2× " <<<"$P"' \
	"$(grep -o 'hrun.\{0,200\}' <<<"$P" | head)"
P=$(curl -s -b "$T/ana" "$BASE_URL/history?group=1&q=Quillfeather")
check "aggregate: grouped search for the name finds nothing" '! grep -q "href=\"/runs/" <<<"$P"'
# the ask page's examples: a verified run of hers at identified whose question names the patient (written
# here as an admin's accept leaves it)
RX=$(q "INSERT INTO askql.runs(user_id, question, status, sql, target, access_level, verified, verify_state)
        VALUES ($AID, 'Quillfeather example question', 'ok', 'SELECT 1', '$DB', 'identified', true, 'accepted') RETURNING id")
P=$(curl -s -b "$T/ana" "$BASE_URL/")
check "aggregate: the ask page does not offer the hidden verified run's question as an example" \
	'[ -n "$RX" ] && grep -q "name=\"question\"" <<<"$P" && ! grep -q "Quillfeather" <<<"$P"' "$(grep -o '.\{0,80\}Quillfeather.\{0,40\}' <<<"$P" | head -2)"
body=$(curl -s -w '\n%{http_code}' -b "$T/ana" "$BASE_URL/runs/$RQ")
check "aggregate: the run page is 403 without the question, and offers her the re-run" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q "Quillfeather\|QWARD7" <<<"$body" && grep -q "value=\"rerun\"" <<<"$body" && grep -q "Run #$RQ" <<<"$body"' "$(tail -c 700 <<<"$body")"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode action=verify "$BASE_URL/runs/$RS1/action")
check "aggregate: marking a hidden run verified is refused ($code): its SQL would become an example for everyone" \
	'[ "$code" = 403 ] && [ "$(q "SELECT coalesce(verify_state, '"'"''"'"') FROM askql.runs WHERE id = $RS1")" = "" ]'
# the recently-deleted list
curl -s -o /dev/null -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode action=delete --data-urlencode "id=$RS2" "$BASE_URL/history"
P=$(curl -s -b "$T/ana" "$BASE_URL/history")
check "aggregate: she deletes a hidden run; the recently-deleted list names it by number only" \
	'grep -q "id=\"recently-deleted\"" <<<"$P" && grep -q "Run #$RS2: read at the identified" <<<"$P" && ! grep -q "Quillfeather" <<<"$P"' \
	"$(grep -o 'recently-deleted.\{0,400\}' <<<"$P")"
curl -s -o /dev/null -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode action=undo --data-urlencode "id=$RS2" "$BASE_URL/history"
check "and the undo brings it back" '[ -z "$(q "SELECT deleted_at FROM askql.runs WHERE id = $RS2")" ]'

# ---- follow-ups of the hidden run: refused, no run started ----
before=$(nruns "$AID")
body=$(curl -s -w '\n%{http_code}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode "question=and by sex?" \
	--data-urlencode "parent=$RS1" --data-urlencode "target=$DB" "$BASE_URL/runs")
check "aggregate: a follow-up (form) of the hidden run is 403 with the reason, and starts no run" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && grep -q "a follow-up cannot go on from its question" <<<"$body" && ! grep -q "Quillfeather" <<<"$body" && [ "$(nruns "$AID")" = "$before" ]' \
	"$(tail -c 500 <<<"$body") runs $before -> $(nruns "$AID")"
body=$(curl -s -w '\n%{http_code}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode "question=and by sex?" \
	--data-urlencode "parent=$RS1" "$BASE_URL/runs/0/stream")
check "aggregate: a streamed follow-up too" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q "Quillfeather" <<<"$body" && [ "$(nruns "$AID")" = "$before" ]' "$(tail -c 300 <<<"$body")"
TOK=$("$ASKQL" user token "$ANA" 2>/dev/null | tail -1)
body=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' \
	--data "{\"question\":\"and by sex?\",\"parent\":$RS1}" "$BASE_URL/api/runs")
check "aggregate: an API follow-up: 403 JSON with the reason, no run" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && grep -q "\"status\":403" <<<"$body" && grep -q "follow-up cannot go on" <<<"$body" && ! grep -q "Quillfeather" <<<"$body" && [ "$(nruns "$AID")" = "$before" ]' \
	"$(head -c 400 <<<"$body")"
body=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $TOK" -H 'Content-Type: application/json' \
	--data "{\"question\":\"and by sex?\",\"parent\":$RV}" "$BASE_URL/api/runs")
RF=$(grep -o '"run_id":[0-9]*' <<<"$body" | head -1 | cut -d: -f2)
check "aggregate: a follow-up of the run she may see still starts (run $RF)" '[ "$(tail -1 <<<"$body")" = 201 ] && [ -n "$RF" ]' "$(head -c 400 <<<"$body")"

# ---- an admin at aggregate: others' runs likewise; no re-run of another's hidden question ----
"$ASKQL" user level "$ADMIN_USER" "$DB" aggregate >/dev/null 2>&1
AD=$(signin "$T/adm" "$ADMIN_USER" "$ADMIN_PASS")
ADID=$(q "SELECT id FROM askql.users WHERE name = '$ADMIN_USER'")
P=$(curl -s -b "$T/adm" "$BASE_URL/history?all=1")
check "admin at aggregate: all users' history shows her hidden runs by number, no name" \
	'grep -q "href=\"/runs/$RQ\"" <<<"$P" && ! grep -q "Quillfeather\|QWARD7\|ptnt_nm" <<<"$P"' "$(grep -o 'Quillfeather.\{0,80\}' <<<"$P" | head -3)"
check "admin at aggregate: no re-run button on another's hidden run" \
	'grep -q "data-hidden" <<<"$P" && grep -q "class=\"q\" href=\"/runs/$RQ\"" <<<"$P" && ! grep -A8 "class=\"q\" href=\"/runs/$RQ\"" <<<"$P" | grep -q "/runs/$RQ/action"'
P=$(curl -s -b "$T/adm" "$BASE_URL/history?all=1&q=Quillfeather")
check "admin at aggregate: a search of all users for the name finds nothing" '! grep -q "href=\"/runs/" <<<"$P"' "$(ids <<<"$P")"
body=$(curl -s -w '\n%{http_code}' -b "$T/adm" "$BASE_URL/runs/$RQ")
check "admin at aggregate: her run's page is 403 without the question and without a re-run" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q "Quillfeather" <<<"$body" && ! grep -q "value=\"rerun\"" <<<"$body"' "$(tail -c 500 <<<"$body")"
before=$(nruns "$ADID")
body=$(curl -s -w '\n%{http_code}' -b "$T/adm" --data-urlencode "csrf=$AD" --data-urlencode action=rerun "$BASE_URL/runs/$RQ/action")
check "admin at aggregate: re-running her hidden run is 403, and no run of his carries her question" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && grep -q "Only the person who asked it" <<<"$body" && [ "$(nruns "$ADID")" = "$before" ] &&
	 [ "$(q "SELECT count(*) FROM askql.runs WHERE user_id = $ADID AND question LIKE '"'"'%Quillfeather%'"'"'")" = 0 ]' "$(tail -c 400 <<<"$body")"
"$ASKQL" user level "$ADMIN_USER" "$DB" identified >/dev/null 2>&1

# ---- the owner's re-run from the withheld page: her own words, asked again at her level ----
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode action=rerun "$BASE_URL/runs/$RQ/action")
RX=${loc##*/runs/}; RX=${RX%%[?#]*}
for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = ${RX:-0}")" = running ] || break; sleep 0.2; done
check "aggregate: her re-run is a new run at aggregate that carries no row of the old one (run $RX)" \
	'[ -n "$RX" ] && [ "$RX" != "$RQ" ] && [ "$(q "SELECT access_level FROM askql.runs WHERE id = ${RX:-0}")" = aggregate ] &&
	 ! q "SELECT coalesce(preview::text, '"''"') FROM askql.runs WHERE id = ${RX:-0}" | grep -c "Quillfeather" >/dev/null &&
	 [ "$(q "SELECT coalesce(parent_id::text, '"''"') || coalesce(state->>'"'"'parent'"'"', '"''"') FROM askql.runs WHERE id = ${RX:-0}")" = "" ]' \
	"$loc $(q "SELECT status, access_level, error FROM askql.runs WHERE id = ${RX:-0}")"

# ---- back at identified: everything returns ----
"$ASKQL" user level "$ANA" "$DB" identified >/dev/null 2>&1
P=$(curl -s -b "$T/ana" "$BASE_URL/history?q=Quillfeather")
check "identified again: the search finds the three runs, with the question" \
	'grep -q "href=\"/runs/$RQ\"" <<<"$P" && grep -q "href=\"/runs/$RS1\"" <<<"$P" && grep -q "href=\"/runs/$RS2\"" <<<"$P" && grep -q "Quillfeather in ward QWARD7" <<<"$P" && ! grep -q "data-hidden" <<<"$P"'
P=$(curl -s -b "$T/ana" "$BASE_URL/history?group=1")
check "identified again: grouped as one line '2×'" 'grep -q "2× " <<<"$P" && grep -q "Quillfeather" <<<"$P"'
P=$(curl -s -b "$T/ana" "$BASE_URL/")
check "identified again: the ask page offers the verified run's question" 'grep -q "Quillfeather example question" <<<"$P"'
q "DELETE FROM askql.runs WHERE id = ${RX:-0}" >/dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/ana" "$BASE_URL/runs/$RQ")
check "identified again: the run page opens ($code)" '[ "$code" = 200 ]'
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode "question=and by sex?" \
	--data-urlencode "parent=$RS1" --data-urlencode "target=$DB" "$BASE_URL/runs"); RF2=${loc##*/runs/}; RF2=${RF2%%[?#]*}
for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = ${RF2:-0}")" = running ] || break; sleep 0.2; done
check "identified again: a follow-up of it starts and carries its question and SQL (what the refusal kept out; run $RF2)" \
	'[ -n "$RF2" ] && q "SELECT state->'"'"'parent'"'"' FROM askql.runs WHERE id = ${RF2:-0}" | grep -c "Quillfeather" >/dev/null' \
	"$loc $(q "SELECT left(state->'parent'::text, 300) FROM askql.runs WHERE id = ${RF2:-0}")"

# ---- step outputs at limited and aggregate: no stored value of an identifier or quasi-identifier column ----
# the catalog's stored values of every column the classifier (or an admin) calls direct, quasi or unclassified
q "SELECT DISTINCT v.value FROM askql.cat_values v JOIN askql.cat_columns c ON c.target = v.target AND c.schema_name = v.schema_name
   AND c.table_name = v.table_name AND c.name = v.column_name LEFT JOIN askql.phi_corrections k ON k.target = c.target AND
   k.schema_name = c.schema_name AND k.table_name = c.table_name AND k.column_name = c.name
   WHERE v.target = '$DB' AND coalesce(k.class, c.phi_class, 'unclassified') IN ('direct', 'quasi', 'unclassified') AND length(v.value) >= 4" >"$T/idvals"
check "the catalog holds stored values of quasi-identifier columns (postcodes: $(wc -l <"$T/idvals"))" '[ "$(wc -l <"$T/idvals")" -ge 10 ] && grep -qx 61452 "$T/idvals"' "$(head "$T/idvals")"
QV="how many admissions by ward for patients living in postcode 61452"
# the question's own words are hers, not the catalog's: taken out before looking for stored values
stepsof() { q "SELECT coalesce(input::text, '') || ' ' || coalesce(output::text, '') FROM askql.steps WHERE run_id = ${1:-0}" | sed "s/$QV//g"; }
RI=$(askrun "$QV")
# at identified the catalog links the postcode to its stored value (VALUE MAPPINGS: "61452" -> hwanja.zip_cd =
# '61452'): so a patient lives there.  The limited and aggregate catalogs hold no quasi-identifier text column.
check "identified: the run's steps do show a stored postcode, linked by the catalog (the check below can fail; run $RI)" \
	'stepsof "$RI" | grep -cF -f "$T/idvals" >/dev/null' "$(stepsof "$RI" | head -c 600)"
for lv in limited aggregate; do
	"$ASKQL" user level "$ANA" "$DB" $lv >/dev/null 2>&1
	RL=$(askrun "$QV")
	leaks() { grep -oF -f "$T/idvals" | sort -u | head -5; }
	S=$(stepsof "$RL"); P=$(curl -s -b "$T/ana" "$BASE_URL/runs/$RL" | sed "s/$QV//g"); E=$(curl -s -m 20 -b "$T/ana" "$BASE_URL/runs/$RL/events?after=0" | sed "s/$QV//g")
	J=$(curl -s -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$RL/steps" | sed "s/$QV//g")
	check "$lv: the run's stored steps hold no stored value of an identifier or quasi-identifier column (run $RL)" \
		'[ "$(q "SELECT access_level FROM askql.runs WHERE id = $RL")" = $lv ] && [ -n "$S" ] && [ -z "$(leaks <<<"$S")" ]' "$(leaks <<<"$S") $(head -c 300 <<<"$S")"
	check "$lv: nor its page, its event stream or the API's steps" \
		'[ -z "$(leaks <<<"$P")" ] && [ -z "$(leaks <<<"$E")" ] && [ -z "$(leaks <<<"$J")" ] && grep -q "\"seq\"" <<<"$J"' \
		"page: $(leaks <<<"$P") events: $(leaks <<<"$E") api: $(leaks <<<"$J") $(head -c 200 <<<"$J")"
done
"$ASKQL" user level "$ANA" "$DB" identified >/dev/null 2>&1

# ---- the model's prompt: a private pool whose model is the fake LLM, which records every request ----
. "$TOP/scripts/lib.sh"
FAKE_LLM=${FAKE_LLM:-$TOP/tests/lib/fake_llm.py}
W=$(mktemp -d /tmp/askql-28h.XXXXXX)
chmod 755 "$W"; mkdir -p "$W/run" "$W/log" "$W/exports" "$W/tmp"
python3 "$FAKE_LLM" --requests "$W/req.jsonl" --port-file "$W/fake.port" >"$W/fake.log" 2>&1 &
FAKE_PID=$!
trap 'nginx_stop "$W" 2>/dev/null; pool_stop "$W" 2>/dev/null; kill $FAKE_PID 2>/dev/null; rm -rf "$W"; cleanup' EXIT
for _ in $(seq 50); do [ -s "$W/fake.port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$W/fake.port")
{ grep -v -e '^export_dir' -e '^log_path' "$ASKQL_CONF"
  printf 'export_dir = %s/exports\nlog_path = %s/log/askql.log\nllm_provider = openai\nllm_base_url = %s/v1\n' "$W" "$W" "$FAKE"
  printf 'llm_api_key = sk-test-28h\nllm_timeout_ms = 8000\nllm_retries = 0\nllm_stream = 0\n'; } >"$W/askql.conf"
touch "$W/log/askql.log"; chown -R "$SYSUSER" "$W"
PORT2=$(free_port)
(export TMPDIR=$W/tmp; pool_start "$W" 1) >/dev/null 2>&1
nginx_start "$W" "$PORT2" >/dev/null 2>&1
B=http://127.0.0.1:$PORT2
for _ in $(seq 50); do [ "$(curl -s -o /dev/null -w '%{http_code}' "$B/signin")" = 200 ] && break; sleep 0.1; done
# every request gets the same answer: a grouped count (what the model writes does not matter here)
python3 -c 'import json; print(json.dumps([{"repeat": True, "text": json.dumps({"reasoning": "r",
  "sql": "SELECT ward_cd, count(DISTINCT subject_id) AS patients FROM ipwon GROUP BY ward_cd"})}]))' >"$W/script.json"
reset_llm() { curl -s -XPOST --data-binary @"$W/script.json" "$FAKE/__script" >/dev/null; }
requests() { curl -s "$FAKE/__requests"; }
askb() {   # askb QUESTION [PARENT]: the analyst's react run through the private pool; prints its id
	local loc id
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode mode=auto \
		--data-urlencode kind=react --data-urlencode "target=$DB" --data-urlencode "question=$1" ${2:+--data-urlencode "parent=$2"} "$B/runs")
	id=${loc##*/runs/}; id=${id%%[?#]*}
	for _ in $(seq 100); do [ "$(q "SELECT status FROM askql.runs WHERE id = ${id:-0}")" = running ] || break; sleep 0.2; done
	echo "${id:-0}"
}
reset_llm
RP=$(askb "and by sex?" "$RS1")
check "identified: a follow-up's prompt carries the parent's SQL naming the patient (the control; run $RP)" \
	'[ "$(requests | grep -o "Quillfeather" | wc -l)" -ge 1 ]' "$(q "SELECT status, error FROM askql.runs WHERE id = ${RP:-0}") $(requests | head -c 400)"
"$ASKQL" user level "$ANA" "$DB" aggregate >/dev/null 2>&1
reset_llm; before=$(nruns "$AID")
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/ana" --data-urlencode "csrf=$A" --data-urlencode kind=react \
	--data-urlencode "target=$DB" --data-urlencode "question=and by sex?" --data-urlencode "parent=$RS1" "$B/runs")
check "aggregate: the same follow-up is refused ($code) and the model gets no request at all" \
	'[ "$code" = 403 ] && [ "$(requests)" = "[]" ] && [ "$(nruns "$AID")" = "$before" ]' "$(requests | head -c 300)"
for lv in limited aggregate; do
	"$ASKQL" user level "$ANA" "$DB" $lv >/dev/null 2>&1
	reset_llm
	RM=$(askb "$QV")
	R=$(requests | sed "s/$QV//g")
	check "$lv: the model's prompts hold no stored value of an identifier or quasi-identifier column (run $RM)" \
		'[ "$(requests)" != "[]" ] && grep -q "ipwon" <<<"$R" && [ -z "$(grep -oF -f "$T/idvals" <<<"$R" | head -3)" ]' \
		"$(grep -oF -f "$T/idvals" <<<"$R" | sort -u | head -5) $(q "SELECT status, error FROM askql.runs WHERE id = ${RM:-0}") $(head -c 300 <<<"$R")"
done
"$ASKQL" user level "$ANA" "$DB" identified >/dev/null 2>&1
reset_llm
RM=$(askb "$QV")
R=$(requests | sed "s/$QV//g")
check "identified: the model's prompt does get the catalog's postcode link (the control; run $RM)" \
	'grep -qF -f "$T/idvals" <<<"$R"' "$(head -c 600 <<<"$R")"

echo "1..$n"
