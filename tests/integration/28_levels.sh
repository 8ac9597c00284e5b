#!/usr/bin/env bash
# 28_levels.sh: access levels enforced by PostgreSQL (issue 16 item 2): a target with names, registration
# numbers, phones, birth and admission dates, ages over 89 and a psychiatric diagnosis; askql target levels
# makes one role per level, the generalising views and the column GRANTs; target test checks them; an
# identified user reads everything, a limited user month-truncated dates, 90 for ages over 89 and no
# identifier (permission denied from PostgreSQL, said clearly on the run page and in the CLI); nobody
# leaves their role by SQL; Admin -> Users sets a level, audited, CSRF-checked.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
DB=lv_clinic_$$
ROLES="askql_${DB}_identified askql_${DB}_limited askql_${DB}_aggregate"
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
	curl -s -b "$jar" "$BASE_URL/" | field csrf
}
cleanup() {
	q "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	   DELETE FROM askql.cat_tables WHERE target = '$DB'; DELETE FROM askql.target_levels WHERE target = '$DB';
	   DELETE FROM askql.runs WHERE target = '$DB'; DELETE FROM askql.user_levels WHERE target = '$DB'; DELETE FROM askql.users WHERE name IN ('lv_idf_$$', 'lv_lim_$$')" >/dev/null
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	for r in $ROLES; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
	rm -rf "$T"
}
trap cleanup EXIT

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE hwanja (
	subject_id integer PRIMARY KEY,   -- a de-identified surrogate key
	ptnt_nm    text,
	jumin_no   text,
	phone      text,
	brth_dt    date,
	age        integer,
	sex        text,
	zip_cd     text
);
COMMENT ON COLUMN hwanja.subject_id IS 'de-identified subject key';
COMMENT ON COLUMN hwanja.ptnt_nm IS '환자명';
COMMENT ON COLUMN hwanja.brth_dt IS '생년월일';
COMMENT ON COLUMN hwanja.zip_cd IS '우편번호';
INSERT INTO hwanja VALUES
 (1, '홍길동', '800101-1234560', '010-1234-5678', '1980-01-17', 45, 'M', '03187'),
 (2, '김영희', '950715-2345678', '010-2222-3333', '1995-07-15', 30, 'F', '06236'),
 (3, '이철수', '020301-3123456', '010-9876-5432', '2002-03-21', 23, 'M', '48058'),
 (4, '박민수', '001231-4123459', '011-555-1234', '1931-12-31', 93, 'F', '61452'),
 (5, '최지우', '850505-1000001', '010-4444-8888', '1933-05-05', 92, 'F', '03187');
-- 40 more patients, so that groups of at least 11 exist for the aggregate level
INSERT INTO hwanja SELECT g, (ARRAY['정','강','조','윤','장'])[1 + g % 5] || (ARRAY['민준','서연','도윤','하은'])[1 + g % 4],
	lpad((g * 37 % 100)::text, 2, '0') || '0101-1' || lpad(g::text, 6, '0'), '010-' || (1000 + g) || '-' || (2000 + g),
	date '1950-01-01' + g * 300, 30 + g, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END, lpad((g * 1373 % 63000)::text, 5, '0')
	FROM generate_series(6, 45) g;
CREATE TABLE ipwon (ipwon_seq integer PRIMARY KEY, subject_id integer REFERENCES hwanja, ipwon_dt timestamp, ward_cd text);
COMMENT ON COLUMN ipwon.ipwon_dt IS '입원일시';
-- wards W0 and W1 see about 43 patients each, W9 only patients 8 and 9: a small cell
INSERT INTO ipwon SELECT g, 1 + g % 45, timestamp '2025-01-13 08:30' + g * interval '3 day',
	CASE WHEN g % 45 IN (7, 8) THEN 'W9' ELSE 'W' || (g % 2) END FROM generate_series(1, 200) g;
CREATE TABLE jindan (jindan_seq integer PRIMARY KEY, subject_id integer REFERENCES hwanja, sick_cd text, sick_nm text);
COMMENT ON COLUMN jindan.sick_cd IS '상병코드(KCD)';
INSERT INTO jindan VALUES (1, 1, 'I10', 'Essential hypertension'), (2, 2, 'E11.9', 'Type 2 diabetes'),
	(3, 3, 'F20.0', 'Paranoid schizophrenia'), (4, 4, 'K80.2', 'Gallstones'), (5, 5, 'J18.9', 'Pneumonia');
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
RO="host=$PGHOST port=$PGPORT dbname=$DB user=askql_reader"
# the workers' password file names each database (issue 27): the operator lets them reach this one
(. "$TOP/scripts/lib.sh" && pgpass_allow "$VAR" "$PGPORT" "$DB" askql_reader askql_app) || nok "pgpass_allow $DB"
out=$("$ASKQL" index --target "$URL" --ro "$RO" 2>&1); rc=$?
check "index and register the clinic target" '[ $rc -eq 0 ] && grep -q "^indexed $DB" <<<"$out"' "$out"
out=$("$ASKQL" phi list --target "$DB" 2>&1)
check "the classifier marks names, registration numbers, phones direct; birth date, age, admission date quasi" \
	'grep -Eq "^hwanja\.ptnt_nm +direct" <<<"$out" && grep -Eq "^hwanja\.jumin_no +direct" <<<"$out" &&
	 grep -Eq "^hwanja\.phone +direct" <<<"$out" && grep -Eq "^hwanja\.brth_dt +quasi" <<<"$out" &&
	 grep -Eq "^hwanja\.age +quasi" <<<"$out" && grep -Eq "^ipwon\.ipwon_dt +quasi" <<<"$out" &&
	 grep -Eq "^jindan\.sick_cd +sensitive" <<<"$out" && grep -Eq "^hwanja\.zip_cd +quasi" <<<"$out"' "$out"

# ---- before setup: a limited user is refused, not let through ----
printf 'lv-password-%s\n' $$ > "$T/pw"
"$ASKQL" user add "lv_idf_$$" analyst --password-file "$T/pw" >/dev/null 2>&1
"$ASKQL" user add "lv_lim_$$" analyst --password-file "$T/pw" >/dev/null 2>&1
out=$("$ASKQL" user level "lv_lim_$$" "$DB" limited 2>&1); rc=$?
check "askql user level sets a level" '[ $rc -eq 0 ] && grep -q "reads $DB at level limited" <<<"$out"' "$out"
check "the change is audited with the previous level" \
	'[ "$(q "SELECT detail->>'"'"'previous'"'"' || '"'"' '"'"' || (detail->>'"'"'level'"'"') FROM askql.audit WHERE action = '"'"'level.set'"'"' AND detail->>'"'"'target'"'"' = '"'"'$DB'"'"' ORDER BY id DESC LIMIT 1")" = "identified limited" ]'
out=$("$ASKQL" user level "lv_lim_$$" "$DB" secret 2>&1); rc=$?
check "an unknown level is a usage error" '[ $rc -eq 2 ]' "$out"
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT sex FROM hwanja" --format csv -o - 2>&1); rc=$?
check "levels not set up: a limited user's SQL is refused (not run as the read-only role)" \
	'[ $rc -eq 1 ] && grep -q "access levels are not set up" <<<"$out"' "$out"
out=$("$ASKQL" target test "$DB" 2>&1)
check "target test says levels are not set up" 'grep -q "access levels: not set up" <<<"$out"' "$out"
out=$("$ASKQL" export --target "$DB" --release --sql "SELECT sex, count(*) FROM hwanja GROUP BY sex" --format csv -o - 2>&1); rc=$?
check "levels not set up: an export for release is refused (it reads through the limited views)" \
	'[ $rc -eq 1 ] && grep -q "export for release is read through the de-identified views" <<<"$out" && ! grep -q "^[FM]," <<<"$out"' "$out"

# ---- setup and test ----
out=$("$ASKQL" target levels "$DB" 2>&1); rc=$?
check "askql target levels creates the roles and views" '[ $rc -eq 0 ] && grep -q "roles askql_${DB}_identified" <<<"$out"' "$out"
check "the roles cannot log in; the read-only login is a member of each" \
	'[ "$(psql -X -tA -d postgres -c "SELECT count(*) FROM pg_roles WHERE rolname LIKE '"'"'askql\_${DB}\_%'"'"' AND NOT rolcanlogin AND pg_has_role('"'"'askql_reader'"'"', oid, '"'"'MEMBER'"'"')")" = 3 ]'
out=$("$ASKQL" target test "$DB" 2>&1)
check "target test verifies every level" \
	'grep -q "ok level identified" <<<"$out" && grep -q "ok level limited" <<<"$out" && grep -q "ok level aggregate" <<<"$out" &&
	 ! grep -q "WARNING: level" <<<"$out"' "$out"
out=$("$ASKQL" index --target "$DB" 2>&1); rc=$?
check "re-indexing refreshes the views and grants as the owner" '[ $rc -eq 0 ] && grep -q "views and grants refreshed" <<<"$out"' "$out"

# ---- identified ----
out=$("$ASKQL" export --target "$DB" --user "lv_idf_$$" --sql "SELECT ptnt_nm, jumin_no, phone, brth_dt, age FROM hwanja ORDER BY subject_id" --format csv -o - 2>&1); rc=$?
check "an identified user (no level set: the default) reads names, numbers, phones, exact dates and ages" \
	'[ $rc -eq 0 ] && grep -q "홍길동,800101-1234560,010-1234-5678,1980-01-17,45" <<<"$out" && grep -q ",1931-12-31,93" <<<"$out"' "$out"

# ---- limited ----
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT subject_id, brth_dt, age, sex FROM hwanja ORDER BY subject_id" --format csv -o - 2>&1); rc=$?
check "a limited user gets birth dates truncated to the month and 90 for ages over 89" \
	'[ $rc -eq 0 ] && grep -q "^1,1980-01-01,45,M" <<<"$out" && grep -q "^4,1931-12-01,90,F" <<<"$out" && grep -q "^5,1933-05-01,90,F" <<<"$out"' "$out"
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT subject_id, zip_cd FROM hwanja WHERE subject_id IN (1, 3) ORDER BY 1" --format csv -o - 2>&1); rc=$?
o2=$(tr -d '\r' <<<"$out")
check "and postcodes to their first three digits (the district)" '[ $rc -eq 0 ] && grep -qx "1,031" <<<"$o2" && grep -qx "3,480" <<<"$o2" && ! grep -q "03187\|48058" <<<"$out"' \
	"$out $("$ASKQL" phi list --target "$DB" --table hwanja 2>&1 | grep zip_cd) $(psql -X -tA -d "$DB" -c "SELECT grantee FROM information_schema.column_privileges WHERE table_schema = 'askql_limited' AND column_name = 'zip_cd'")"
out=$("$ASKQL" export --target "$DB" --user "lv_idf_$$" --sql "SELECT zip_cd FROM hwanja WHERE subject_id = 1" --format csv -o - 2>&1)
o2=$(tr -d '\r' <<<"$out")
check "while the identified user reads the whole postcode" 'grep -qx "03187" <<<"$o2"' "$out"
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT min(ipwon_dt) FROM ipwon" --format csv -o - 2>&1); rc=$?
check "and admission timestamps truncated to the month" '[ $rc -eq 0 ] && grep -q "2025-01-01 00:00:00" <<<"$out"' "$out"
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT sick_cd, count(*) FROM jindan GROUP BY 1 ORDER BY 1" --format json -o - 2>&1); rc=$?
check "the sensitive diagnosis stays readable at limited (it is not an identifier)" '[ $rc -eq 0 ] && grep -q "F20.0" <<<"$out"' "$out"
for col in ptnt_nm jumin_no phone; do
	out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT subject_id, $col FROM hwanja" --format csv -o - 2>&1); rc=$?
	check "limited: selecting $col is permission denied by PostgreSQL (42501)" \
		'[ $rc -eq 1 ] && grep -q "42501" <<<"$out" && grep -q "permission denied" <<<"$out" && ! grep -q "홍길동\|800101\|010-1234" <<<"$out"' "$out"
done
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT ptnt_nm, brth_dt FROM public.hwanja" --format csv -o - 2>&1); rc=$?
check "limited: the base table by its schema is permission denied too" \
	'[ $rc -eq 1 ] && grep -q "42501" <<<"$out" && ! grep -q "홍길동" <<<"$out"' "$out"

check "the access audit records the limited user's exports at level limited" \
	'[ "$(q "SELECT count(*) FROM askql.access_audit WHERE target = '"'"'$DB'"'"' AND user_name = '"'"'lv_lim_$$'"'"' AND access_level = '"'"'limited'"'"'")" -ge 3 ]'

# ---- a case review reads one patient's chart: identified only ----
out=$("$ASKQL" critique --target "$DB" --user "lv_lim_$$" --case 1 --offline --json 2>&1); rc=$?
check "a limited user's case critique is refused with the level named, before any chart is read" \
	'[ $rc -eq 1 ] && grep -q "needs the identified access level on $DB; yours is limited" <<<"$out" && ! grep -q "홍길동\|800101" <<<"$out"' "$out"
out=$("$ASKQL" critique --target "$DB" --user nosuchuser_$$ --case 1 --offline 2>&1); rc=$?
check "an unknown --user is a clear error" '[ $rc -eq 1 ] && grep -q "no user named nosuchuser_$$" <<<"$out"' "$out"

# ---- no way out of the role by SQL ----
for s in "SET ROLE askql_reader" "RESET ROLE" "SET SESSION AUTHORIZATION askql_reader" \
         "SELECT set_config('role', 'askql_reader', false)" "SELECT set_config('search_path', 'public', true), ptnt_nm FROM hwanja" \
         "WITH x AS (SELECT set_config('role', 'askql_reader', true)) SELECT ptnt_nm FROM hwanja, x"; do
	out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "$s" --format csv -o - 2>&1); rc=$?
	check "limited: '$s' is refused" '[ $rc -eq 1 ] && ! grep -q "홍길동" <<<"$out"' "$out"
done
out=$("$ASKQL" export --target "$DB" --user "lv_lim_$$" --sql "SELECT current_user, session_user" --format csv -o - 2>&1)
check "limited: the session runs as the limited role, logged in as the read-only role" \
	'grep -q "^askql_${DB}_limited,askql_reader" <<<"$out"' "$out"
# even past the guard: the role is a startup parameter, so RESET ROLE returns to it, not to the login
out=$(psql -X -tA "$RO options='-c role=askql_${DB}_limited -c search_path=askql_limited,public'" \
	-c "RESET ROLE" -c "SELECT current_user" -c "SELECT ptnt_nm FROM hwanja" 2>&1)
check "RESET ROLE in a limited session stays limited (the database, not the guard, says so)" \
	'grep -q "^askql_${DB}_limited$" <<<"$out" && grep -q "permission denied" <<<"$out" && ! grep -q "홍길동" <<<"$out"' "$out"

# ---- the web: step-mode edit as the limited user; the friendly 42501 text ----
L=$(signin "$T/lim" "lv_lim_$$" "lv-password-$$")
check "the limited user signs in" '[ -n "$L" ]'
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/lim" --data-urlencode "csrf=$L" --data-urlencode mode=step \
	--data-urlencode "target=$DB" --data-urlencode "question=number of patients by sex" "$BASE_URL/runs"); R=${loc##*/runs/}
R=${R%%[?#]*}
for _ in 1 2 3; do
	st=$(q "SELECT status || ' ' || coalesce(state->'pause'->>'stage', '') FROM askql.runs WHERE id = ${R:-0}")
	[ "$st" = "paused plan" ] || break
	curl -s -o /dev/null -b "$T/lim" --data-urlencode "csrf=$L" --data-urlencode action=approve "$BASE_URL/runs/$R/step"
done
st=$(q "SELECT status FROM askql.runs WHERE id = ${R:-0}")
if [ "$st" = paused ]; then
	curl -s -o /dev/null -b "$T/lim" --data-urlencode "csrf=$L" --data-urlencode action=run \
		--data-urlencode "sql=SELECT ptnt_nm, jumin_no FROM hwanja" "$BASE_URL/runs/$R/step"
	for _ in $(seq 50); do st=$(q "SELECT status FROM askql.runs WHERE id = $R"); [ "$st" = paused ] && [ "$(q "SELECT count(*) FROM askql.steps WHERE run_id = $R AND name = 'edit'")" != 0 ] && break; [ "$st" = running ] || break; sleep 0.2; done
	PAGE=$(curl -s -b "$T/lim" "$BASE_URL/runs/$R")
	check "web: the limited user's edited SQL selecting identifiers fails with the access-level text (run $R)" \
		'grep -q "Your access level on this database does not allow reading a column\|접근 등급으로는 이 질의가 읽어야 하는 열을" <<<"$PAGE" && ! grep -q "홍길동\|800101" <<<"$PAGE"' \
		"status $(q "SELECT status || ' ' || coalesce(error, '') FROM askql.runs WHERE id = $R"); $(grep -o 'permission[^<]*' <<<"$PAGE" | head -3)"
else
	nok "web: a step-mode run to edit (run ${R:-none} is $st)"
fi

# ---- the catalog a run sees: a limited user's retrieval, plan and prompts never offer an identifier ----
I=$(signin "$T/idf" "lv_idf_$$" "lv-password-$$")
askweb() {   # askweb JAR CSRF QUESTION: a run on the clinic target; prints its id
	local loc
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$1" --data-urlencode "csrf=$2" --data-urlencode mode=auto \
		--data-urlencode "target=$DB" --data-urlencode "question=$3" "$BASE_URL/runs"); loc=${loc##*/runs/}; echo "${loc%%[?#]*}"
}
offered() { q "SELECT count(*) FROM askql.steps WHERE run_id = ${1:-0} AND name IN ('inspector', 'planner', 'retrieve', 'llm')
	AND (coalesce(input::text, '') || coalesce(output::text, '')) ~ 'ptnt_nm|jumin_no|\"phone\"|hwanja\\.phone'"; }
RI=$(askweb "$T/idf" "$I" "patient names and phone numbers")
RL=$(askweb "$T/lim" "$L" "patient names and phone numbers")
for _ in $(seq 50); do [ "$(q "SELECT count(*) FROM askql.runs WHERE id IN (${RI:-0}, ${RL:-0}) AND status <> 'running'")" = 2 ] && break; sleep 0.2; done
check "an identified user's run is offered the name and phone columns (run $RI)" '[ "$(offered "$RI")" -ge 1 ]' \
	"$(q "SELECT name, left(output::text, 300) FROM askql.steps WHERE run_id = ${RI:-0} ORDER BY id")"
check "a limited user's run is not: retrieval and the planner see no identifier column (run $RL)" '[ "$(offered "$RL")" = 0 ]' \
	"$(q "SELECT name, left(output::text, 300) FROM askql.steps WHERE run_id = ${RL:-0} ORDER BY id")"
check "the query cache keeps the levels apart (the run's scope names its level)" \
	'[ "$(q "SELECT state->>'"'"'scope'"'"' FROM askql.runs WHERE id = ${RL:-0}")" = "analyst:limited" ] &&
	 [ "$(q "SELECT state->>'"'"'scope'"'"' FROM askql.runs WHERE id = ${RI:-0}")" = "analyst" ]'
check "and its SQL reads no identifier" '! q "SELECT coalesce(sql, '"''"') FROM askql.runs WHERE id = ${RL:-0}" | grep -c "ptnt_nm\|jumin_no\|phone" >/dev/null'

# ---- exports marked for release (item 3): any level, aggregates only, small groups left out ----
rel() { "$ASKQL" export --target "$DB" --user "lv_idf_$$" --release --sql "$1" --format "${2:-csv}" -o - 2>&1; }
out=$(rel "SELECT subject_id, ward_cd FROM ipwon"); rc=$?
check "release (CLI, identified user): a row-level query is refused with the reason" \
	'[ $rc -eq 1 ] && grep -q "for release: only aggregate results may be read" <<<"$out" && ! grep -q "^[0-9]*,W" <<<"$out"' "$out"
out=$("$ASKQL" export --target "$DB" --user "lv_idf_$$" --sql "SELECT ward_cd, count(*) FROM ipwon GROUP BY 1 ORDER BY 1" --format csv -o - 2>&1); rc=$?
check "without --release the identified user's grouped count has the small ward W9" '[ $rc -eq 0 ] && grep -q "^W9," <<<"$out"' "$out"
out=$(rel "SELECT ward_cd, count(*) FROM ipwon GROUP BY 1 ORDER BY 1"); rc=$?
check "with --release W9 (2 patients) is left out, and the CLI says so" \
	'[ $rc -eq 0 ] && grep -q "^W0," <<<"$out" && ! grep -q "W9\|askql_n" <<<"$out" && grep -q "groups of fewer than 11 patients left out (for release)" <<<"$out" &&
	 grep -q "counts rounded to a multiple of 5 (for release)" <<<"$out"' "$out"
out=$(rel "SELECT sex, string_agg(ptnt_nm, ',') FROM hwanja GROUP BY sex"); rc=$?
check "release: a list of each row's values inside an aggregate (string_agg of names) is refused" \
	'[ $rc -eq 1 ] && grep -q "string_agg lists each row" <<<"$out" && ! grep -q "홍길동" <<<"$out"' "$out"
out=$(rel "SELECT sex, count(DISTINCT ptnt_nm) FROM hwanja GROUP BY sex"); rc=$?
check "release reads through the limited views even for an identified user: a count of names is permission denied" \
	'[ $rc -eq 1 ] && grep -q 42501 <<<"$out" && ! grep -q "홍길동" <<<"$out"' "$out"
out=$(rel "SELECT sex, min(brth_dt) FROM hwanja GROUP BY sex"); rc=$?
check "release: min(birth date) is one patient's date, refused" \
	'[ $rc -eq 1 ] && grep -q "for release: min gives one row" <<<"$out" && ! grep -q "1931-12-31" <<<"$out"' "$out"
out=$(rel "SELECT extract(day FROM brth_dt) AS day, count(*) FROM hwanja GROUP BY 1"); rc=$?
check "and birth dates come out truncated to the month (every day is the 1st)" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^[0-9]" <<<"$out")" = 1 ] && grep -q "^1,45" <<<"$(tr -d "\r" <<<"$out")"' "$out"
out=$(rel "SELECT ward_cd, count(*) FROM ipwon GROUP BY 1" json); rc=$?
check "release JSON: the provenance says for_release with k and the rounding, the summary that small groups were left out" \
	'[ $rc -eq 0 ] && grep -q "\"for_release\":true,\"suppress_k\":11,\"release_round\":5" <<<"$out" &&
	 grep -q "\"small_groups_left_out_under\":11" <<<"$out" && ! grep -q "W9\|suppressed_groups" <<<"$out"' "$out"
check "the CLI release export is audited with its detail" \
	'[ "$(q "SELECT count(*) FROM askql.access_audit WHERE target = '"'"'$DB'"'"' AND kind = '"'"'export'"'"' AND (detail->>'"'"'for_release'"'"')::boolean AND detail->>'"'"'release_round'"'"' = '"'"'5'"'"'")" -ge 1 ]'

steprun() {   # steprun JAR CSRF SQL: a step-mode run whose SQL is edited to SQL; prints its id once done
	local loc id
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$1" --data-urlencode "csrf=$2" --data-urlencode mode=step \
		--data-urlencode "target=$DB" --data-urlencode "question=number of patients by sex" "$BASE_URL/runs"); id=${loc##*/runs/}; id=${id%%[?#]*}
	for _ in 1 2 3; do
		[ "$(q "SELECT status || ' ' || coalesce(state->'pause'->>'stage', '') FROM askql.runs WHERE id = ${id:-0}")" = "paused plan" ] || break
		curl -s -o /dev/null -b "$1" --data-urlencode "csrf=$2" --data-urlencode action=approve "$BASE_URL/runs/$id/step"
	done
	[ "$(q "SELECT status FROM askql.runs WHERE id = ${id:-0}")" = paused ] || { echo "${id:-0}"; return; }
	curl -s -o /dev/null -b "$1" --data-urlencode "csrf=$2" --data-urlencode action=run --data-urlencode "sql=$3" "$BASE_URL/runs/$id/step"
	for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = $id")" = running ] || break; sleep 0.2; done
	echo "$id"
}
xlsx_text() { python3 -c 'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(" ".join(z.read(n).decode("utf-8","replace") for n in z.namelist() if n.endswith(".xml") or n.endswith(".json") or n.endswith(".csv")))' "$1" 2>&1; }
RR=$(steprun "$T/idf" "$I" "SELECT ward_cd, count(DISTINCT subject_id) AS patients FROM ipwon GROUP BY ward_cd ORDER BY ward_cd")
PAGE=$(curl -s -b "$T/idf" "$BASE_URL/runs/$RR")
check "web: the identified user's grouped run shows W9, and offers downloads for release with k (run $RR)" \
	'[ "$(q "SELECT status FROM askql.runs WHERE id = $RR")" = ok ] && grep -q "W9" <<<"$PAGE" && grep -q "id=\"release\"" <<<"$PAGE" &&
	 grep -q "download?format=csv&amp;release=1" <<<"$PAGE" && grep -q "fewer than 11 patients\|11명 미만" <<<"$PAGE"' \
	"$(q "SELECT status || ' ' || coalesce(error, '') FROM askql.runs WHERE id = ${RR:-0}")"
curl -s -b "$T/idf" -o "$T/plain.csv" "$BASE_URL/runs/$RR/download?format=csv"
check "its plain CSV download keeps W9 (identified, not for release)" 'grep -q W9 "$T/plain.csv"' "$(head -c 300 "$T/plain.csv")"
for f in csv json xlsx zip; do
	hdr=$(curl -s -D - -b "$T/idf" -o "$T/rel.$f" "$BASE_URL/runs/$RR/download?format=$f&release=1")
	case $f in xlsx|zip) body=$(xlsx_text "$T/rel.$f") ;; *) body=$(cat "$T/rel.$f") ;; esac
	check "web download $f for release: W9 left out, the file named _release" \
		'grep -q W0 <<<"$body" && ! grep -q "W9\|askql_n" <<<"$body" && grep -qi "^content-disposition:.*_release\.$f" <<<"$hdr"' \
		"$(head -c 400 <<<"$body"; grep -i disposition <<<"$hdr")"
	case $f in
	json|zip) check "$f for release: the provenance says so, with the rounding; the summary says small groups were left out" \
		'grep -q "\"for_release\":true,\"suppress_k\":11,\"release_round\":5" <<<"$body" && grep -q "\"small_groups_left_out_under\":11" <<<"$body"' "$(tail -c 400 <<<"$body")" ;;
	xlsx) check "xlsx for release: the provenance sheet says so" 'grep -q "yes: aggregates only, groups of fewer than 11 patients left out, counts rounded to 5" <<<"$body"' ;;
	esac
done
check "the release downloads are audited: four rows with for_release, k and the rounding" \
	'[ "$(q "SELECT count(*) FROM askql.access_audit WHERE run_id = $RR AND kind = '"'"'download'"'"' AND (detail->>'"'"'for_release'"'"')::boolean AND detail->>'"'"'suppress_k'"'"' = '"'"'11'"'"' AND detail->>'"'"'release_round'"'"' = '"'"'5'"'"'")" = 4 ]'
RW=$(steprun "$T/idf" "$I" "SELECT subject_id, ward_cd FROM ipwon ORDER BY 1 LIMIT 5")
PAGE=$(curl -s -b "$T/idf" "$BASE_URL/runs/$RW")
check "web: a row-level run offers no download for release (run $RW)" \
	'[ "$(q "SELECT status FROM askql.runs WHERE id = $RW")" = ok ] && grep -q "download?format=csv" <<<"$PAGE" && ! grep -q "release=1" <<<"$PAGE"'
body=$(curl -s -w '\n%{http_code}' -b "$T/idf" "$BASE_URL/runs/$RW/download?format=csv&release=1")
check "and asked for one anyway, it is refused (422) with the reason, and no row leaves" \
	'[ "$(tail -1 <<<"$body")" = 422 ] && grep -q "cannot be exported for release\|반출용으로 내려받을 수 없습니다" <<<"$body" &&
	 grep -q "only aggregate results may be read\|집계 결과만 읽을 수 있습니다" <<<"$body" && ! grep -q "^[0-9]*,W" <<<"$body"' "$(head -c 600 <<<"$body")"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/idf" "$BASE_URL/runs/$RR/download?format=csv&release=yes")
check "a release parameter that is not a digit is a clear 400 ($code)" '[ "$code" = 400 ]'
body=$(curl -s -w '\n%{http_code}' -b "$T/idf" "$BASE_URL/runs/$RR/download?format=csv&release=2")
check "release=2 is a 400 too, never a download that is not for release" '[ "$(tail -1 <<<"$body")" = 400 ] && ! grep -q W9 <<<"$body"' "$(head -c 300 <<<"$body")"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/idf" "$BASE_URL/runs/$RR/download?format=csv&release=0")
check "release=0 is the plain download ($code)" '[ "$code" = 200 ]'

# ---- Admin -> Users sets a level: audited, CSRF-checked, declared inputs ----
A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
IDF=$(q "SELECT id FROM askql.users WHERE name = 'lv_idf_$$'")
PAGE=$(curl -s -b "$T/admin" "$BASE_URL/admin/users")
check "Admin -> Users shows each user's level per target" 'grep -q "name=\"level\"" <<<"$PAGE" && grep -q "$DB" <<<"$PAGE"' \
	"$(grep -n 'level' <<<"$PAGE" | head -5)"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=bogus" --data-urlencode action=level \
	--data-urlencode "id=$IDF" --data-urlencode "target=$DB" --data-urlencode level=limited "$BASE_URL/admin/users")
check "a level change without the CSRF token is refused ($code)" '[ "$code" = 403 ] && [ -z "$(q "SELECT level FROM askql.user_levels WHERE user_id = $IDF")" ]'
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=level \
	--data-urlencode "id=$IDF" --data-urlencode "target=$DB" --data-urlencode level=superuser "$BASE_URL/admin/users")
check "an unknown level changes nothing" '[ -z "$(q "SELECT level FROM askql.user_levels WHERE user_id = $IDF")" ]' "$code"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=level \
	--data-urlencode "id=$IDF" --data-urlencode "target=$DB" --data-urlencode level=aggregate "$BASE_URL/admin/users")
check "the admin sets aggregate ($code), audited with who did it" \
	'[ "$(q "SELECT level FROM askql.user_levels WHERE user_id = $IDF")" = aggregate ] &&
	 [ "$(q "SELECT count(*) FROM askql.audit WHERE action = '"'"'level.set'"'"' AND user_id IS NOT NULL AND detail->>'"'"'user_id'"'"' = '"'"'$IDF'"'"'")" = 1 ]'
out=$("$ASKQL" export --target "$DB" --user "lv_idf_$$" --sql "SELECT sex, count(DISTINCT ptnt_nm) FROM hwanja GROUP BY 1" --format csv -o - 2>&1); rc=$?
check "at once, the former identified user gets permission denied for names" '[ $rc -eq 1 ] && grep -q 42501 <<<"$out"' "$out"

# ---- issue 27: stored results follow the viewer's CURRENT level, not the level they were made at ----
check "a run records the level its SQL read at (RR: identified)" '[ "$(q "SELECT access_level FROM askql.runs WHERE id = ${RR:-0}")" = identified ]'
body=$(curl -s -w '\n%{http_code}' -b "$T/idf" "$BASE_URL/runs/$RR")
check "the user now at aggregate opens her identified run $RR: 403, no row (W9), the levels said, a re-run offered" \
	'[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q W9 <<<"$body" && grep -q "id=\"withheld\"" <<<"$body" &&
	 grep -q "read at the identified access level\|식별(identified) 접근 등급" <<<"$body" && grep -q "value=\"rerun\"" <<<"$body"' "$(tail -c 600 <<<"$body")"
body=$(curl -s -w '\n%{http_code}' -b "$T/idf" "$BASE_URL/runs/$RR/events?after=0")
check "and its event stream: 403, no step, no row" '[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q "W9\|^event: step" <<<"$body"' "$(head -c 400 <<<"$body")"
ITOK=$("$ASKQL" user token "lv_idf_$$" 2>/dev/null | tail -1)
body=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $ITOK" "$BASE_URL/api/runs/$RR")
check "the API's run: 403 JSON saying why, no row" '[ "$(tail -1 <<<"$body")" = 403 ] && grep -q "\"status\":403" <<<"$body" && grep -q "access level\|접근 등급" <<<"$body" && ! grep -q W9 <<<"$body"' "$(head -c 400 <<<"$body")"
body=$(curl -s -w '\n%{http_code}' -H "Authorization: Bearer $ITOK" "$BASE_URL/api/runs/$RR/steps")
check "the API's steps: 403, no row" '[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q W9 <<<"$body"' "$(head -c 400 <<<"$body")"
curl -s -b "$T/idf" -o "$T/dl_agg.csv" "$BASE_URL/runs/$RR/download?format=csv"
check "a download of it is read again at her level: W0 kept, W9 suppressed" 'grep -q W0 "$T/dl_agg.csv" && ! grep -q W9 "$T/dl_agg.csv"' "$(head -c 300 "$T/dl_agg.csv")"
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/idf" --data-urlencode "csrf=$I" --data-urlencode action=rerun "$BASE_URL/runs/$RR/action")
RX=${loc##*/runs/}; RX=${RX%%[?#]*}
for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = ${RX:-0}")" = running ] || break; sleep 0.2; done
check "the offered re-run is a new run at her level, on the run's database (run $RX)" \
	'[ -n "$RX" ] && [ "$RX" != "$RR" ] && [ "$(q "SELECT target || '"'"' '"'"' || coalesce(access_level, '"'"'none'"'"') FROM askql.runs WHERE id = ${RX:-0}")" = "$DB aggregate" ]' \
	"$loc $(q "SELECT status, access_level, error FROM askql.runs WHERE id = ${RX:-0}")"
"$ASKQL" user level "$ADMIN_USER" "$DB" aggregate >/dev/null 2>&1
body=$(curl -s -w '\n%{http_code}' -b "$T/admin" "$BASE_URL/runs/$RR")
check "an admin at aggregate opening another user's identified run: 403, no row" '[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q W9 <<<"$body"' "$(tail -c 300 <<<"$body")"
"$ASKQL" user level "$ADMIN_USER" "$DB" limited >/dev/null 2>&1
body=$(curl -s -w '\n%{http_code}' -b "$T/admin" "$BASE_URL/runs/$RR")
check "at limited too (the run holds identified rows)" '[ "$(tail -1 <<<"$body")" = 403 ] && ! grep -q W9 <<<"$body"'
"$ASKQL" user level "$ADMIN_USER" "$DB" identified >/dev/null 2>&1
body=$(curl -s -w '\n%{http_code}' -b "$T/admin" "$BASE_URL/runs/$RR")
check "the admin back at identified sees it (W9 shown)" '[ "$(tail -1 <<<"$body")" = 200 ] && grep -q W9 <<<"$body"' "$(tail -c 300 <<<"$body")"
code=$(curl -s -o /dev/null -w '%{http_code}' -b "$T/lim" --data-urlencode "csrf=$L" --data-urlencode action=level \
	--data-urlencode "id=$IDF" --data-urlencode "target=$DB" --data-urlencode level=identified "$BASE_URL/admin/users")
check "an analyst cannot change levels ($code)" '[ "$code" = 403 ] && [ "$(q "SELECT level FROM askql.user_levels WHERE user_id = $IDF")" = aggregate ]'

# ---- the aggregate level (item 3): aggregates only, groups of fewer than 11 patients suppressed ----
agg() { "$ASKQL" export --target "$DB" --user "lv_idf_$$" --sql "$1" --format "${2:-csv}" -o "${3:--}" 2>&1; }
out=$(agg "SELECT subject_id, ward_cd FROM ipwon"); rc=$?
check "aggregate: a row-level query is refused with the reason" \
	'[ $rc -eq 1 ] && grep -q "only aggregate results may be read" <<<"$out" && ! grep -q "^[0-9]*,W" <<<"$out"' "$out"
out=$(agg "SELECT ward_cd FROM ipwon UNION SELECT sex FROM hwanja"); rc=$?
check "aggregate: a UNION at the top is refused" '[ $rc -eq 1 ] && grep -q "UNION" <<<"$out"' "$out"
out=$(agg "SELECT count(*) FROM jindan d JOIN hwanja h USING (subject_id) WHERE h.sex = 'F' AND d.sick_cd LIKE 'F%'"); rc=$?
check "aggregate: a count over fewer than 11 patients is left out (no row), and the CLI says groups under 11 are" \
	'[ $rc -eq 0 ] && [ "$(grep -vc "^askql export" <<<"$out")" -le 1 ] && grep -q "groups of fewer than 11 patients left out (aggregate level)" <<<"$out"' "$out"
out=$(agg "SELECT ward_cd, count(*) AS admissions FROM ipwon GROUP BY ward_cd ORDER BY 1"); rc=$?
check "aggregate CSV: the wards with at least 11 patients, not W9 (2 patients), no count column of ours" \
	'[ $rc -eq 0 ] && grep -q "^ward_cd,admissions" <<<"$out" && grep -q "^W0," <<<"$out" && grep -q "^W1," <<<"$out" &&
	 ! grep -q "W9\|askql_n" <<<"$out"' "$out"
out=$(agg "SELECT ward_cd, count(*) FROM ipwon GROUP BY 1 ORDER BY 2 DESC, 1"); rc=$?
check "aggregate: positional GROUP BY / ORDER BY still mean the user's columns" \
	'[ $rc -eq 0 ] && [ "$(sed -n 2p <<<"$out" | cut -d, -f1)" = W0 ] && ! grep -q W9 <<<"$out"' "$out"
out=$(agg "SELECT ward_cd, count(*) AS admissions FROM ipwon GROUP BY ward_cd" json); rc=$?
check "aggregate JSON: W9 left out, and the summary says groups under 11 patients are (never how many)" \
	'[ $rc -eq 0 ] && grep -q "\"W0\"" <<<"$out" && ! grep -q "W9\|askql_n\|suppressed_groups" <<<"$out" && grep -q "\"small_groups_left_out_under\":11" <<<"$out"' "$out"
out=$(agg "SELECT ward_cd, count(*) AS admissions FROM ipwon GROUP BY ward_cd" xlsx "$T/agg.xlsx"); rc=$?
x=$(python3 -c 'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(" ".join(z.read(n).decode("utf-8","replace") for n in z.namelist() if n.endswith(".xml")))' "$T/agg.xlsx" 2>&1)
check "aggregate XLSX: W9 suppressed, the provenance sheet says so" \
	'[ $rc -eq 0 ] && grep -q "W0" <<<"$x" && ! grep -q "W9\|askql_n" <<<"$x" && grep -q "groups under 11 patients left out" <<<"$out" &&
	 grep -q "groups of fewer than 11 patients left out by the database" <<<"$x"' "$out"
out=$(agg "SELECT ptnt_nm, count(*) FROM hwanja GROUP BY ptnt_nm"); rc=$?
check "aggregate: grouping by a name is refused before it runs" \
	'[ $rc -eq 1 ] && grep -q "at the aggregate level: GROUP BY ptnt_nm makes a group of each patient" <<<"$out" && ! grep -q "홍길동" <<<"$out"' "$out"
out=$(agg "SELECT sex, count(DISTINCT ptnt_nm) FROM hwanja GROUP BY sex"); rc=$?
check "aggregate: identifiers stay denied by PostgreSQL, counted or not" '[ $rc -eq 1 ] && grep -q 42501 <<<"$out"' "$out"
# the web: a step-mode run edited to a grouped count; the page, its chart data and the download
loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$T/idf" --data-urlencode "csrf=$I" --data-urlencode mode=step \
	--data-urlencode "target=$DB" --data-urlencode "question=number of patients by sex" "$BASE_URL/runs"); RA=${loc##*/runs/}; RA=${RA%%[?#]*}
for _ in 1 2 3; do
	[ "$(q "SELECT status || ' ' || coalesce(state->'pause'->>'stage', '') FROM askql.runs WHERE id = ${RA:-0}")" = "paused plan" ] || break
	curl -s -o /dev/null -b "$T/idf" --data-urlencode "csrf=$I" --data-urlencode action=approve "$BASE_URL/runs/$RA/step"
done
if [ "$(q "SELECT status FROM askql.runs WHERE id = ${RA:-0}")" = paused ]; then
	curl -s -o /dev/null -b "$T/idf" --data-urlencode "csrf=$I" --data-urlencode action=run \
		--data-urlencode "sql=SELECT ward_cd, count(DISTINCT subject_id) AS patients FROM ipwon GROUP BY ward_cd ORDER BY ward_cd" "$BASE_URL/runs/$RA/step"
	for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = $RA")" = running ] || break; sleep 0.2; done
	PAGE=$(curl -s -b "$T/idf" "$BASE_URL/runs/$RA")
	check "web: the aggregate run's page shows W0 and W1, not W9, and says groups under 11 patients are left out (run $RA)" \
		'[ "$(q "SELECT status FROM askql.runs WHERE id = $RA")" = ok ] && grep -q "id=\"suppressed-note\"" <<<"$PAGE" &&
		 grep -q "W0" <<<"$PAGE" && ! grep -q "W9" <<<"$PAGE" && ! q "SELECT preview::text FROM askql.runs WHERE id = $RA" | grep -c W9 >/dev/null' \
		"$(q "SELECT status || ' ' || coalesce(error, '') FROM askql.runs WHERE id = $RA"); $(grep -o 'suppressed[^<]*' <<<"$PAGE" | head -2)"
	for f in csv json xlsx; do
		curl -s -b "$T/idf" -o "$T/dl.$f" "$BASE_URL/runs/$RA/download?format=$f"
		if [ "$f" = xlsx ]; then body=$(python3 -c 'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print(" ".join(z.read(n).decode("utf-8","replace") for n in z.namelist() if n.endswith(".xml")))' "$T/dl.$f" 2>&1); else body=$(cat "$T/dl.$f"); fi
		check "web download $f of the aggregate run: W9 suppressed" 'grep -q W0 <<<"$body" && ! grep -q "W9\|askql_n" <<<"$body"' "$(head -c 400 <<<"$body")"
	done
else
	nok "web: a step-mode run to edit at the aggregate level (run ${RA:-none})"
fi

# ---- Admin -> Audit -> Data access lists these accesses with their level ----
AP=$(curl -s -b "$T/admin" "$BASE_URL/admin/audit/access?target=$DB")
check "the data-access audit page lists this target's accesses at the limited and the aggregate level" \
	'grep -q " · \(limited\|제한\)" <<<"$AP" && grep -q " · \(aggregate\|집계만\)" <<<"$AP" && grep -q "<code>$DB</code>" <<<"$AP"' \
	"$(grep -o "access-meta.\{0,200\}" <<<"$AP" | head -3)"
check "the audit page marks the downloads for release with k and the rounding" \
	'grep -q "access-release\">\(for release: groups under 11 patients left out, counts rounded to 5\|반출용: 환자 11명 미만 그룹 제외, 건수는 5의 배수로 반올림\)" <<<"$AP"' \
	"$(grep -o "access-release.\{0,120\}" <<<"$AP" | head -2)"
check "an UPDATE of these accesses' audit rows fails (refused whoever asks; the app role is tested in 27_access_audit)" \
	'! q "UPDATE askql.access_audit SET row_count = 0 WHERE target = '"'"'$DB'"'"'" >/dev/null 2>&1'

echo "1..$n"
