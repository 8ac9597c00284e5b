#!/usr/bin/env bash
# 29_suppress_attacks.sh: the suppression attack suite (issue 27): self-joins, subqueries, CTEs under a table's
# name, conditional aggregates, min/max, differencing, window functions, set operations, LATERAL, set-returning
# functions, DISTINCT ON, row-listing aggregates, unlinked tables, run BY EXECUTION on a target with small groups,
# at the aggregate level and for release (CLI export --release, web download release=1, API download release=1):
# each is refused with its reason or returns no group of fewer than k patients, on the page, in the event stream,
# through the API and in every file; the same queries at the identified level still run and show what the attack
# was after.  Counts and sums are rounded to release_round at the aggregate level and for release, so a total less
# the groups shown no longer gives a left-out group; a sum or an average of a 0/1 flag is held to the minority
# rule (the flagged and the unflagged patients of a group each none or at least k); the agent's explain tool is held
# to the form at the aggregate level.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
DB=sa_clinic_$$
ROLES="askql_${DB}_identified askql_${DB}_limited askql_${DB}_aggregate"
IDF=sa_idf_$$ AGG=sa_agg_$$
T=$(mktemp -d)
FAKE_PID=
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -12; }
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
	[ -n "$FAKE_PID" ] && kill "$FAKE_PID" 2>/dev/null
	q "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	   DELETE FROM askql.cat_tables WHERE target = '$DB'; DELETE FROM askql.target_levels WHERE target = '$DB';
	   DELETE FROM askql.runs WHERE target = '$DB'; DELETE FROM askql.users WHERE name IN ('$IDF', '$AGG')" >/dev/null
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	for r in $ROLES; do psql -X -q -d postgres -c "DROP ROLE IF EXISTS $r" >/dev/null 2>&1; done
	rm -rf "$T"
}
trap cleanup EXIT

# ---- a clinic with small groups, each with a mark the attacks are after ----
#   ward W9: patients 8 and 9 only          diagnosis X70 (self-harm): patient 5 only (age 35)
#   department PSY: subjects 6 and 7 only   lab result 777.7: case 101 (PSY) only
#   the oldest patient: 4, aged 93          admissions: 200 in all, 10 of them in W9
#   operation 7's result REOP, in a log that names patients but has no key
#   smoker: a 0/1 flag, 1 for patient 5 only (a man, in a group of 23 men)
psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
CREATE TABLE hwanja (subject_id integer PRIMARY KEY, ptnt_nm text, age integer, sex text);
COMMENT ON COLUMN hwanja.subject_id IS 'de-identified subject key';
COMMENT ON COLUMN hwanja.ptnt_nm IS '환자명';
INSERT INTO hwanja SELECT g, (ARRAY['정','강','조','윤','장'])[1 + g % 5] || (ARRAY['민준','서연','도윤','하은'])[1 + g % 4],
	CASE WHEN g = 4 THEN 93 ELSE 30 + g END, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END FROM generate_series(1, 45) g;
ALTER TABLE hwanja ADD COLUMN smoker integer;
UPDATE hwanja SET smoker = CASE WHEN subject_id = 5 THEN 1 ELSE 0 END;
CREATE TABLE ipwon (ipwon_seq integer PRIMARY KEY, subject_id integer REFERENCES hwanja, ipwon_dt timestamp, ward_cd text);
INSERT INTO ipwon SELECT g, 1 + g % 45, timestamp '2025-01-13 08:30' + g * interval '3 day',
	CASE WHEN g % 45 IN (7, 8) THEN 'W9' ELSE 'W' || (g % 2) END FROM generate_series(1, 200) g;
CREATE TABLE jindan (jindan_seq integer PRIMARY KEY, subject_id integer REFERENCES hwanja, sick_cd text, sick_nm text);
COMMENT ON COLUMN jindan.sick_cd IS '상병코드(KCD)';
INSERT INTO jindan SELECT g, g, 'I10', 'Essential hypertension' FROM generate_series(1, 30) g;
INSERT INTO jindan SELECT 100 + g, g, 'E11.9', 'Type 2 diabetes' FROM generate_series(10, 45) g;
INSERT INTO jindan VALUES (200, 5, 'X70', 'Intentional self-harm by hanging');
CREATE TABLE cases (caseid integer PRIMARY KEY, subjectid integer NOT NULL, department text, age integer, sex text);
INSERT INTO cases SELECT g, 1 + g % 45, 'GS', 30 + g % 45, CASE WHEN g % 2 = 0 THEN 'F' ELSE 'M' END FROM generate_series(1, 60) g
	WHERE 1 + g % 45 NOT IN (6, 7);
INSERT INTO cases VALUES (101, 6, 'PSY', 77, 'F'), (102, 7, 'PSY', 41, 'M');
CREATE TABLE labs (caseid integer NOT NULL REFERENCES cases, dt timestamp, name text, result numeric);
INSERT INTO labs SELECT c.caseid, timestamp '2025-03-01' + c.caseid * interval '1 hour', n, 1 + (c.caseid % 7) * 0.5
	FROM cases c, unnest(ARRAY['lac', 'k']) n WHERE c.department = 'GS';
INSERT INTO labs VALUES (101, '2025-03-09 10:00', 'lac', 777.7), (102, '2025-03-09 11:00', 'lac', 2.5);
-- an operation log tied to patients only by their names (withheld below identified): one row says REOP
CREATE TABLE op_log (op_seq integer PRIMARY KEY, surgeon text, ptnt_nm text, op_result text);
COMMENT ON COLUMN op_log.ptnt_nm IS '환자명';
INSERT INTO op_log SELECT g, 'Dr ' || (g % 3), '정민준', CASE WHEN g = 7 THEN 'REOP' ELSE 'OK' END FROM generate_series(1, 30) g;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO askql_reader;
SQL
URL="host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}"
RO="host=$PGHOST port=$PGPORT dbname=$DB user=askql_reader"
# the workers' password file names each database (issue 27): the operator lets them reach this one
(. "$TOP/scripts/lib.sh" && pgpass_allow "$VAR" "$PGPORT" "$DB" askql_reader askql_app) || nok "pgpass_allow $DB"
out=$("$ASKQL" index --target "$URL" --ro "$RO" 2>&1); rc=$?
check "index and register the clinic target" '[ $rc -eq 0 ] && grep -q "^indexed $DB" <<<"$out"' "$out"
out=$("$ASKQL" target levels "$DB" 2>&1); rc=$?
check "askql target levels sets up the roles and views" '[ $rc -eq 0 ]' "$out"
printf 'sa-password-%s\n' $$ > "$T/pw"
"$ASKQL" user add "$IDF" analyst --password-file "$T/pw" >/dev/null 2>&1
"$ASKQL" user add "$AGG" analyst --password-file "$T/pw" >/dev/null 2>&1
out=$("$ASKQL" user level "$AGG" "$DB" aggregate 2>&1); rc=$?
check "one analyst reads at the aggregate level, the other is identified" '[ $rc -eq 0 ]' "$out"

cli() {   # cli USER [--release] SQL: the CSV of an export to stdout, messages on stderr (merged)
	local u=$1; shift
	if [ "$1" = --release ]; then
		"$ASKQL" export --target "$DB" --user "$u" --release --sql "$2" --format csv -o - 2>&1
	else
		"$ASKQL" export --target "$DB" --user "$u" --sql "$1" --format csv -o - 2>&1
	fi | tr -d '\r'
	return "${PIPESTATUS[0]}"
}

# ---- the attacks: name, what must happen at aggregate and release (refuse | hide), the mark that
#      would tell the small group (an extended regular expression on the output; - for none), the SQL
ATTACKS=$(cat <<'EOF'
self_join_rows	refuse	PSY	SELECT x.caseid, x.subjectid, x.age, x.sex, x.department, count(*) FROM cases k JOIN cases x ON k.caseid <= 11 GROUP BY x.caseid, x.subjectid, x.age, x.sex, x.department
self_join_on_true	hide	PSY	SELECT x.department, x.age, x.sex, count(*) FROM cases k JOIN cases x ON true GROUP BY x.department, x.age, x.sex
self_join_cross	hide	W9	SELECT b.ward_cd, count(*) FROM ipwon a CROSS JOIN ipwon b GROUP BY b.ward_cd
second_table_counted	hide	W9	SELECT b.ward_cd, count(*) AS n FROM hwanja a, ipwon b WHERE a.sex = 'F' GROUP BY b.ward_cd
scalar_subquery	refuse	X70	SELECT ward_cd, count(*), (SELECT sick_cd FROM jindan WHERE sick_cd LIKE 'X%' LIMIT 1) AS code FROM ipwon GROUP BY ward_cd
array_subquery	refuse	X70	SELECT sex, count(*), ARRAY(SELECT sick_cd FROM jindan WHERE subject_id = 5) AS codes FROM hwanja GROUP BY sex
subquery_oracle	refuse	^W0,	SELECT ward_cd, count(*) FROM ipwon WHERE (SELECT count(*) FROM jindan d WHERE d.subject_id = 5 AND d.sick_cd = 'X70') = 1 GROUP BY ward_cd
from_subquery	refuse	W9	SELECT q.ward_cd, count(*) FROM (SELECT w.ward_cd FROM ipwon w) q, hwanja h GROUP BY q.ward_cd
cte_shadow_generate_series	refuse	W9	WITH hwanja AS (SELECT g AS subject_id FROM generate_series(1, 11) g) SELECT w.ward_cd, count(*) FROM hwanja, ipwon w GROUP BY w.ward_cd
cte_plain	refuse	X70	WITH x AS (SELECT sick_cd FROM jindan) SELECT x.sick_cd, count(*) FROM x, hwanja GROUP BY x.sick_cd
filter_identifier	refuse	^1,	SELECT count(*) FILTER (WHERE subject_id = 5 AND sick_cd = 'X70') AS hit, count(*) AS total FROM jindan
filter_small_cell	refuse	^M,1,	SELECT sex, count(*) FILTER (WHERE sick_cd = 'X70') AS self_harm, count(*) FROM jindan JOIN hwanja USING (subject_id) GROUP BY sex
case_max_identifier	refuse	,77$	SELECT department, max(CASE WHEN caseid = 101 THEN age END) FROM cases GROUP BY department
case_sum_identifier	refuse	,77$	SELECT sex, sum(CASE WHEN subjectid = 6 THEN age ELSE 0 END) AS a FROM cases GROUP BY sex
count_case_identifier	refuse	^1,	SELECT count(CASE WHEN subject_id = 5 AND sick_cd = 'X70' THEN 1 END) AS hit, count(*) FROM jindan
avg_of_one_patient	hide	^M,35	SELECT h.sex, avg(CASE WHEN d.sick_cd = 'X70' THEN h.age END) AS age_x70 FROM jindan d JOIN hwanja h USING (subject_id) GROUP BY h.sex
scaled_constant	refuse	-	SELECT sex, sum(age * 0 + 1000) AS n1000 FROM hwanja GROUP BY sex
flag_shifted_off_zero	refuse	-	SELECT h.sex, avg(CASE WHEN d.sick_cd = 'X70' THEN 2 ELSE 1 END) AS f FROM jindan d JOIN hwanja h USING (subject_id) GROUP BY h.sex
interpolated_percentile	refuse	-	SELECT sex, percentile_cont(0.5) WITHIN GROUP (ORDER BY smoker) FROM hwanja GROUP BY sex
percentile_bisection	refuse	-	SELECT sex, percentile_disc(0.37) WITHIN GROUP (ORDER BY smoker) FROM hwanja GROUP BY sex
min_max_of_group	refuse	W9	SELECT ward_cd, min(ipwon_dt), max(ipwon_dt) FROM ipwon GROUP BY ward_cd
max_age	refuse	,93$	SELECT sex, max(age) FROM hwanja GROUP BY sex
percentile_at_edge	refuse	,93$	SELECT sex, percentile_disc(1) WITHIN GROUP (ORDER BY age) FROM hwanja GROUP BY sex
rollup_difference	refuse	W9	SELECT ward_cd, count(*) FROM ipwon GROUP BY ROLLUP (ward_cd)
window_partition	refuse	W9	SELECT ward_cd, count(*) OVER (PARTITION BY ward_cd) FROM ipwon
window_total_difference	refuse	,200$	SELECT ward_cd, count(*), sum(count(*)) OVER () AS total FROM ipwon GROUP BY ward_cd
union_total	refuse	W9	SELECT ward_cd, count(*) FROM ipwon GROUP BY ward_cd UNION ALL SELECT 'ALL', count(*) FROM ipwon
union_rows	refuse	X70	SELECT sick_cd, count(*) FROM jindan GROUP BY sick_cd UNION SELECT 'x', 1
lateral	refuse	X70	SELECT x.sick_cd, count(*) FROM hwanja h CROSS JOIN LATERAL (SELECT sick_cd FROM jindan d WHERE d.sick_cd = 'X70') x GROUP BY x.sick_cd
srf_in_from	refuse	-	SELECT g, count(*) FROM hwanja, generate_series(1, 3) g GROUP BY g
srf_in_select	refuse	-	SELECT sex, count(*), generate_series(1, 2) FROM hwanja GROUP BY sex
distinct_on	refuse	W9	SELECT DISTINCT ON (ward_cd) ward_cd, ipwon_dt FROM ipwon ORDER BY ward_cd, ipwon_dt
string_agg	refuse	X70	SELECT h.sex, string_agg(d.sick_cd, ',') FROM jindan d JOIN hwanja h USING (subject_id) GROUP BY h.sex
array_agg	refuse	X70	SELECT sex, array_agg(DISTINCT sick_cd) FROM jindan JOIN hwanja USING (subject_id) GROUP BY sex
json_agg	refuse	X70	SELECT sex, json_agg(sick_cd) FROM jindan JOIN hwanja USING (subject_id) GROUP BY sex
group_by_patient	refuse	^5,	SELECT subject_id, count(*) FROM jindan GROUP BY subject_id ORDER BY 1
group_by_case	refuse	PSY	SELECT caseid, department, count(*) FROM cases GROUP BY caseid, department
lab_rows_unlinked	refuse	777\.7	SELECT l.name, l.result, count(*) FROM cases c CROSS JOIN labs l GROUP BY l.name, l.result
rows_tied_by_a_withheld_name	refuse	REOP	SELECT o.op_result, count(*) FROM hwanja h CROSS JOIN op_log o GROUP BY o.op_result
lab_rows_linked	hide	PSY	SELECT c.department, l.name, avg(l.result) FROM labs l JOIN cases c ON c.caseid = l.caseid GROUP BY 1, 2
join_on_identifier_oracle	refuse	^W0,	SELECT w.ward_cd, count(*) FROM ipwon w JOIN jindan d ON d.subject_id = 5 AND d.sick_cd = 'X70' GROUP BY w.ward_cd
where_identifier	refuse	^M,	SELECT sex, count(*) FROM hwanja WHERE subject_id IN (1, 3, 5) GROUP BY sex
small_diagnosis	hide	X70	SELECT sick_cd, count(*) FROM jindan GROUP BY sick_cd
small_ward	hide	W9	SELECT ward_cd, count(DISTINCT subject_id) AS patients FROM ipwon GROUP BY ward_cd
small_department	hide	PSY	SELECT department, count(*) FROM cases GROUP BY department
sum_of_a_flag	hide	^M,	SELECT sex, sum(smoker) FROM hwanja GROUP BY sex
avg_of_a_flag	hide	^M,	SELECT sex, avg(smoker) FROM hwanja GROUP BY sex
sum_of_a_condition	hide	^M,	SELECT h.sex, sum(CASE WHEN d.sick_cd = 'X70' THEN 1 ELSE 0 END) AS self_harm FROM jindan d JOIN hwanja h USING (subject_id) GROUP BY h.sex
EOF
)
NATTACK=$(grep -c . <<<"$ATTACKS")
check "the suite holds at least 25 attacks ($NATTACK)" '[ "$NATTACK" -ge 25 ]'

# expect NAME EXPECT MARK SCOPE RC OUT: refused with the scope's reason, or ran and shows no mark
expect() {
	local name=$1 want=$2 mark=$3 scope=$4 rc=$5 out=$6 where=$7
	if [ "$want" = refuse ]; then
		check "$where: $name is refused with the reason" \
			'[ "$rc" -eq 1 ] && grep -q "$scope: " <<<"$out" && { [ "$mark" = - ] || ! grep -Eq "$mark" <<<"$out"; }' "$out"
	else
		check "$where: $name runs and no group of fewer than 11 patients comes back" \
			'[ "$rc" -eq 0 ] && ! grep -Eq "$mark" <<<"$out" && ! grep -q askql_n <<<"$out"' "$out"
	fi
}

while IFS=$'\t' read -r name want mark sql; do
	[ -n "$name" ] || continue
	out=$(cli "$IDF" "$sql"); rc=$?
	check "identified: $name still runs and shows what it was after" \
		'[ $rc -eq 0 ] && { [ "$mark" = - ] || grep -Eq "$mark" <<<"$out"; }' "$out"
	out=$(cli "$AGG" "$sql"); rc=$?
	expect "$name" "$want" "$mark" "at the aggregate level" "$rc" "$out" "aggregate (CLI)"
	out=$(cli "$IDF" --release "$sql"); rc=$?
	expect "$name" "$want" "$mark" "for release" "$rc" "$out" "release (CLI export --release)"
done <<<"$ATTACKS"

# ---- the Korean reasons: the refusal's words as the run page shows them ----
out=$(cli "$AGG" "SELECT subject_id, count(*) FROM jindan GROUP BY subject_id")
check "the refusal names the identifier and the way out" \
	'grep -q "at the aggregate level: GROUP BY subject_id makes a group of each patient" <<<"$out"' "$out"

# ---- release: counts rounded to release_round, totals made of the rounded cells ----
out=$(cli "$IDF" "SELECT ward_cd, count(*) AS adm, count(DISTINCT subject_id) AS pts FROM ipwon GROUP BY 1 ORDER BY 1")
exact=$(grep '^W[01],' <<<"$out")
out=$(cli "$IDF" --release "SELECT ward_cd, count(*) AS adm, count(DISTINCT subject_id) AS pts, round(100.0 * count(*) / 200, 1) AS pct, avg(extract(day FROM ipwon_dt)) AS day FROM ipwon GROUP BY 1 ORDER BY 1"); rc=$?
rel=$(grep '^W[01],' <<<"$out")
check "release: W0 and W1 with counts rounded to multiples of 5 (exact $(tr '\n' ' ' <<<"$exact"))" \
	'[ $rc -eq 0 ] && [ "$(grep -c . <<<"$rel")" = 2 ] && ! grep -q W9 <<<"$out" &&
	 awk -F, '"'"'{ if ($2 % 5 || $3 % 5) bad = 1 } END { exit bad }'"'"' <<<"$rel" && grep -q "^ward_cd,adm,pts,pct,day" <<<"$out" &&
	 grep -q "counts rounded to a multiple of 5 (for release), sums too" <<<"$out"' "$out"
check "release: the percentage is computed from the rounded count" \
	'awk -F, '"'"'{ if (sprintf("%.1f", $2 * 100 / 200) + 0 != $4 + 0) bad = 1 } END { exit bad }'"'"' <<<"$rel"' "$rel"
# ---- differencing: a total less the groups shown, the left-out ward W9 (2 patients) the difference ----
# (admissions before a month, so that the exact counts are not multiples of 5 already and the month the
# limited views generalise dates to reads the same)
CUT="ipwon_dt < timestamp '2026-01-01'"
ex_total=$(cli "$IDF" "SELECT count(*) AS adm FROM ipwon WHERE $CUT" | sed -n 2p)
ex_parts=$(cli "$IDF" "SELECT ward_cd, count(*) AS adm FROM ipwon WHERE $CUT GROUP BY 1 ORDER BY 1")
ex_w9=$(grep '^W9,' <<<"$ex_parts" | cut -d, -f2)
ex_sum=$(grep '^W[01],' <<<"$ex_parts" | cut -d, -f2 | awk '{ s += $1 } END { print s + 0 }')
check "identified: the total ($ex_total) less W0 and W1 ($ex_sum) gives W9's admissions ($ex_w9) exactly" \
	'[ -n "$ex_w9" ] && [ $((ex_total - ex_sum)) = "$ex_w9" ]' "$ex_total / $ex_parts"
out=$(cli "$AGG" "SELECT ward_cd, count(*) AS adm, sum(extract(day FROM ipwon_dt)) AS days FROM ipwon WHERE $CUT GROUP BY 1 ORDER BY 1"); rc=$?
agg=$(grep '^W[01],' <<<"$out")
check "aggregate level: counts and sums rounded to multiples of 5 as for release (exact: $(grep "^W[01]," <<<"$ex_parts" | tr "\n" " "))" \
	'[ $rc -eq 0 ] && [ "$(grep -c . <<<"$agg")" = 2 ] && awk -F, '"'"'{ if ($2 % 5 || $3 % 5) bad = 1 } END { exit bad }'"'"' <<<"$agg" &&
	 grep -q "counts rounded to a multiple of 5 (aggregate level), sums too" <<<"$out"' "$out"

differencing() {   # differencing WHERE USER [--release]: the total and the groups as USER reads them, the difference
	local total parts sum m lo hi
	total=$(cli "$2" ${3:+"$3"} "SELECT count(*) AS adm FROM ipwon WHERE $CUT" | grep -v "^askql export" | sed -n 2p)
	parts=$(cli "$2" ${3:+"$3"} "SELECT ward_cd, count(*) AS adm FROM ipwon WHERE $CUT GROUP BY 1 ORDER BY 1" | grep '^W[0-9],')
	sum=$(cut -d, -f2 <<<"$parts" | awk '{ s += $1 } END { print s + 0 }')
	m=$(grep -c . <<<"$parts"); total=${total:-0}
	# each cell rounded to 5 is within 2 of the exact count: the difference within 2 (m + 1) of the left-out count
	lo=$((total - sum - 2 * (m + 1))); hi=$((total - sum + 2 * (m + 1)))
	check "$1: a total ($total) less the $m wards shown ($sum) no longer gives W9's $ex_w9 admissions: the difference $((total - sum)) says only $lo..$hi" \
		'[ "$total" != 0 ] && ! grep -q "^W9," <<<"$parts" && [ $((total % 5)) = 0 ] && [ $((sum % 5)) = 0 ] &&
		 [ $((total - sum)) != "$ex_w9" ] && [ "$ex_w9" -ge "$lo" ] && [ "$ex_w9" -le "$hi" ]' "$total / $parts"
}
differencing "aggregate (CLI)" "$AGG"
differencing "release (CLI export --release)" "$IDF" --release

# ---- group sizes from sums and averages: a sum over an average is the number of values, and an average of
#      a 0/1 condition is m/n; exact, either gives the exact size of every group, and the total less the groups
#      shown gives the left-out one exactly.  With noise on both (docs/privacy.md "Differencing") neither is
#      a whole number of patients any more ----
SIZES="SELECT w.ward_cd, sum(h.age) AS s, avg(h.age) AS a, avg(CASE WHEN h.age > 50 THEN 1 ELSE 0 END) AS f FROM ipwon w JOIN hwanja h USING (subject_id) WHERE w.$CUT GROUP BY 1 ORDER BY 1"
ex_n=$(cli "$IDF" "SELECT ward_cd, count(*) FROM ipwon WHERE $CUT GROUP BY 1 ORDER BY 1" | grep '^W[01],')
out=$(cli "$IDF" "$SIZES" | grep '^W[01],')
check "identified: sum / avg of age gives W0's and W1's admissions exactly, and avg of a condition times them is whole ($(tr '\n' ' ' <<<"$ex_n"))" \
	'[ -n "$ex_n" ] && [ "$(awk -F, '"'"'{ printf "%s,%d\n", $1, $2 / $3 + 0.5 }'"'"' <<<"$out")" = "$ex_n" ] &&
	 join -t, <(echo "$out") <(echo "$ex_n") | awk -F, '"'"'{ m = $4 * $5; if (m - int(m + 0.5) > 1e-6 || int(m + 0.5) - m > 1e-6) bad = 1 } END { exit bad }'"'"'' "$out"
for who in "$AGG" "$IDF --release"; do
	# shellcheck disable=SC2086
	out=$(cli $who "$SIZES"); rc=$?
	rows=$(grep '^W[01],' <<<"$out")
	check "$([ "$who" = "$AGG" ] && echo aggregate || echo release): sum / avg is no whole number of admissions, nor avg of a condition times the true count a whole number of patients" \
		'[ $rc -eq 0 ] && [ "$(grep -c . <<<"$rows")" = 2 ] && ! grep -q "^W9," <<<"$out" &&
		 join -t, <(echo "$rows") <(echo "$ex_n") | awk -F, '"'"'{ n = $2 / $3; m = $4 * $5;
			if (n - int(n + 0.5) < 1e-3 && int(n + 0.5) - n < 1e-3) bad = 1;
			if (m - int(m + 0.5) < 1e-6 && int(m + 0.5) - m < 1e-6) bad = 1 } END { exit bad }'"'"'' "$out"
done
# the noise is the patients': the same question asked again, or asked otherwise of the same patients (an
# alias, a condition every row meets), gets the same answer, so asking many times averages nothing away
a1=$(cli "$AGG" "SELECT w.ward_cd, avg(h.age) AS a FROM ipwon w JOIN hwanja h USING (subject_id) GROUP BY 1 ORDER BY 1" | grep '^W[01],')
a2=$(cli "$AGG" "SELECT x.ward_cd, avg(y.age) AS a FROM ipwon x JOIN hwanja y USING (subject_id) WHERE y.age >= 0 GROUP BY 1 ORDER BY 1" | grep '^W[01],')
check "aggregate: the same patients' average is the same however it is asked ($(tr '\n' ' ' <<<"$a1"))" '[ -n "$a1" ] && [ "$a1" = "$a2" ]' "$a1 / $a2"

# ---- sums and averages of a flag: a large group, a small flagged minority ----
out=$(cli "$AGG" "SELECT sex, sum(age) AS years, round(avg(age), 1) AS mean FROM hwanja GROUP BY sex ORDER BY 1"); rc=$?
check "aggregate: a sum over groups with no small minority is shown, rounded to 5" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^[FM],[0-9]*[05],[0-9.]*$" <<<"$out")" = 2 ]' "$out"
out=$(cli "$AGG" "SELECT sex, sum(smoker) AS smokers FROM hwanja GROUP BY sex"); rc=$?
check "aggregate: a sum of a flag held by one man of 23 leaves out both groups (the minority rule, not only rounding)" \
	'[ $rc -eq 0 ] && ! grep -q "^[FM]," <<<"$out"' "$out"
out=$(cli "$AGG" "SELECT ward_cd, percentile_disc(0.5) WITHIN GROUP (ORDER BY ipwon_dt) AS mid FROM ipwon GROUP BY 1 ORDER BY 1"); rc=$?
check "aggregate: percentile_disc of a date is left alone by the minority rule (W0, W1 shown)" \
	'[ $rc -eq 0 ] && [ "$(grep -c "^W[01],20" <<<"$out")" = 2 ] && ! grep -q "^W9," <<<"$out"' "$out"
# a date less a constant is a measure shifted by it: avg(d - c1) less avg(d - c2) would take the noise off
for sql in "SELECT ward_cd, avg(ipwon_dt - timestamp '2024-01-01') AS since FROM ipwon GROUP BY 1" \
           "SELECT ward_cd, sum(ipwon_dt - timestamp '2025-01-01') AS total FROM ipwon GROUP BY 1"; do
	out=$(cli "$AGG" "$sql"); rc=$?
	check "aggregate: a measure shifted by a constant is refused, never exact (${sql:18:24}...)" \
		'[ $rc -ne 0 ] && grep -q "at the aggregate level: the argument of \(avg\|sum\) must be a column" <<<"$out" && ! grep -q "^W[019]," <<<"$out"' "$out"
done
out=$(cli "$IDF" "SELECT sex, sum(smoker) AS smokers, avg(smoker) AS share FROM hwanja GROUP BY sex ORDER BY 1")
check "identified: the same sum and average are exact (M,1,0.0434...)" 'grep -q "^M,1,0\.0434" <<<"$out" && grep -q "^F,0,0" <<<"$out"' "$out"
out=$(cli "$IDF" --release "SELECT count(*) AS adm FROM ipwon")
total=$(sed -n 2p <<<"$out")
parts=$(awk -F, '{ s += $2 } END { print s }' <<<"$rel")
check "release: a total less its rounded parts ($total - $parts) does not give the left-out ward exactly: each rounded cell may be 2 off" \
	'[ $((total % 5)) = 0 ] && [ $((parts % 5)) = 0 ]' "$out"

# ---- the web and the API: the attacks as step-mode runs ----
I=$(signin "$T/idf" "$IDF" "sa-password-$$")
A=$(signin "$T/agg" "$AGG" "sa-password-$$")
check "both analysts sign in" '[ -n "$I" ] && [ -n "$A" ]'
ITOK=$("$ASKQL" user token "$IDF" 2>/dev/null | tail -1)
ATOK=$("$ASKQL" user token "$AGG" 2>/dev/null | tail -1)
steprun() {   # steprun JAR CSRF SQL: a step-mode run whose SQL is edited to SQL; prints its id once it stops
	local loc id
	loc=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$1" --data-urlencode "csrf=$2" --data-urlencode mode=step \
		--data-urlencode "target=$DB" --data-urlencode "question=count by sex" "$BASE_URL/runs"); id=${loc##*/runs/}; id=${id%%[?#]*}
	for _ in 1 2 3; do
		[ "$(q "SELECT status || ' ' || coalesce(state->'pause'->>'stage', '') FROM askql.runs WHERE id = ${id:-0}")" = "paused plan" ] || break
		curl -s -o /dev/null -b "$1" --data-urlencode "csrf=$2" --data-urlencode action=approve "$BASE_URL/runs/$id/step"
	done
	if [ "$(q "SELECT status FROM askql.runs WHERE id = ${id:-0}")" = paused ]; then
		curl -s -o /dev/null -b "$1" --data-urlencode "csrf=$2" --data-urlencode action=run --data-urlencode "sql=$3" "$BASE_URL/runs/$id/step"
		for _ in $(seq 50); do [ "$(q "SELECT status FROM askql.runs WHERE id = $id")" = running ] || break; sleep 0.2; done
	fi
	echo "${id:-0}"
}
everything() {   # everything JAR TOKEN RUN: the run page, its event stream, the API's run and steps, one after another
	curl -s -b "$1" "$BASE_URL/runs/$3"
	curl -s -b "$1" "$BASE_URL/runs/$3/events?after=0"
	curl -s -H "Authorization: Bearer $2" "$BASE_URL/api/runs/$3"
	curl -s -H "Authorization: Bearer $2" "$BASE_URL/api/runs/$3/steps"
}
webmark() {   # webmark MARK: a result value as a page cell or a JSON string shows it ("" when the mark is a number)
	local m
	m=$(sed -e 's/^\^//; s/\$$//; s/^,//; s/,$//' <<<"$1")
	grep -Eq '^[A-Z][A-Z0-9]*$' <<<"$m" && echo "[>\"]$m[<\"]"
}
stored() {   # stored RUN: what the run keeps of its result (the page, the events and the API show it from there)
	q "SELECT preview::text FROM askql.runs WHERE id = $1"
}
values() {   # values: the stored preview as CSV lines
	python3 -c 'import json,sys
try: d=json.loads(sys.stdin.read())
except Exception: sys.exit(0)
rows=d.get("rows", d) if isinstance(d, dict) else d
for r in rows if isinstance(rows, list) else []:
    print(",".join("" if v is None else str(v) for v in (r if isinstance(r, list) else r.values())))'
}
while IFS=$'\t' read -r name want mark sql; do
	[ -n "$name" ] || continue
	wm=$(webmark "$mark")
	# the aggregate analyst: whatever the run ends as, the result is not anywhere it can be read
	R=$(steprun "$T/agg" "$A" "$sql")
	st=$(q "SELECT status FROM askql.runs WHERE id = $R")
	body=$(everything "$T/agg" "$ATOK" "$R")
	kept=$(stored "$R" | values)
	if [ "$want" = refuse ]; then
		check "web, aggregate: $name (run $R, $st) is refused with the reason, no result kept" \
			'[ "$st" != ok ] && [ "$st" != running ] && grep -q "at the aggregate level: " <<<"$body" && [ -z "$kept" ]' \
			"$(q "SELECT status, error FROM askql.runs WHERE id = $R") $(grep -o "at the aggregate.\{80\}" <<<"$body" | head -2)"
	else
		check "web, aggregate: $name (run $R, $st) shows no small group: stored, page, events, API run and steps" \
			'[ "$st" = ok ] && ! grep -Eq -- "$mark" <<<"$kept" && { [ -z "$wm" ] || ! grep -Eq -- "$wm" <<<"$body"; }' \
			"$kept $(grep -Eo -- ".{80}$wm.{40}" <<<"$body" | head -3)"
	fi
	# the identified analyst: the run shows it; its files for release do not
	R=$(steprun "$T/idf" "$I" "$sql")
	st=$(q "SELECT status FROM askql.runs WHERE id = $R")
	kept=$(stored "$R" | values)
	check "web, identified: $name runs and shows what it was after (run $R, $st)" \
		'[ "$st" = ok ] && { [ "$mark" = - ] || grep -Eq -- "$mark" <<<"$kept"; }' "$(q "SELECT error FROM askql.runs WHERE id = $R") $kept"
	for f in csv zip; do
		c=$(curl -s -o "$T/rel.$f" -w '%{http_code}' -b "$T/idf" "$BASE_URL/runs/$R/download?format=$f&release=1")
		if [ "$f" = zip ]; then body=$(python3 -c 'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); print("\n".join(z.read(n).decode("utf-8","replace") for n in z.namelist()))' "$T/rel.zip" 2>/dev/null | tr -d '\r' || cat "$T/rel.zip"); else body=$(tr -d '\r' < "$T/rel.$f"); fi
		if [ "$want" = refuse ]; then
			check "web download $f for release: $name refused ($c)" \
				'[ "$c" = 422 ] && { [ "$mark" = - ] || ! grep -Eq -- "$mark" <<<"$body"; }' "$(head -c 300 <<<"$body")"
		else
			check "web download $f for release: $name without the small group ($c)" \
				'[ "$c" = 200 ] && ! grep -Eq -- "$mark" <<<"$body" && ! grep -q askql_n <<<"$body"' "$(head -c 300 <<<"$body")"
		fi
	done
	c=$(curl -s -o "$T/api.csv" -w '%{http_code}' -H "Authorization: Bearer $ITOK" "$BASE_URL/api/runs/$R/download?format=csv&release=1")
	check "API download for release: $name ($c) gives no small group" \
		'{ [ "$c" = 422 ] || [ "$c" = 200 ]; } && { [ "$mark" = - ] || ! grep -Eq -- "$mark" <(tr -d "\r" < "$T/api.csv"); }' "$(head -c 300 "$T/api.csv")"
done <<<"$ATTACKS"

# a 422 for release says why in the reader's language
R=$(steprun "$T/idf" "$I" "SELECT subject_id, count(*) FROM jindan GROUP BY subject_id")
body=$(curl -s -b "$T/idf" "$BASE_URL/runs/$R/download?format=csv&release=1")
check "the refusal of a download for release gives the reason, in English or Korean" \
	'grep -q "cannot be exported for release\|반출용으로 내려받을 수 없습니다" <<<"$body" &&
	 grep -q "GROUP BY subject_id makes a group of each patient\|GROUP BY subject_id은(는) 환자나 진료 건마다" <<<"$body"' "$(head -c 600 <<<"$body")"

# ---- the web at the aggregate level: what the run keeps (page, events, API) is rounded too ----
R=$(steprun "$T/agg" "$A" "SELECT ward_cd, count(*) AS adm FROM ipwon WHERE $CUT GROUP BY 1 ORDER BY 1")
kept=$(stored "$R" | values)
check "web, aggregate: the stored counts of run $R are rounded (exact: $(grep "^W[01]," <<<"$ex_parts" | tr "\n" " "))" \
	'[ "$(grep -c "^W[01],[0-9]*[05]$" <<<"$kept")" = 2 ] && ! grep -q "^W9," <<<"$kept" &&
	 [ "$kept" != "$(grep "^W[01]," <<<"$ex_parts")" ]' "$kept"
page=$(curl -s -b "$T/agg" "$BASE_URL/runs/$R")
check "web, aggregate: the run page says counts and sums are rounded to a multiple of 5" \
	'grep -q "Counts and sums are rounded to a multiple of 5\|건수와 합계는 5의 배수로 반올림" <<<"$page"' "$(grep -o "left out by the database.\{200\}" <<<"$page" | head -2)"

# ---- the agent's explain tool: held to the form at the aggregate level (a fake model asks for two plans) ----
python3 "$FAKE_LLM" --requests "$T/req.jsonl" --port-file "$T/port" &
FAKE_PID=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
FAKE=http://127.0.0.1:$(cat "$T/port")
call() { printf '<reasoning>step</reasoning><tool_call><name>%s</name><parameters><%s><![CDATA[%s]]></%s></parameters></tool_call>' "$1" "$2" "$3" "$2"; }
resp() { python3 -c 'import json,sys; print(json.dumps({"text": sys.argv[1]}))' "$1"; }
ROWSQL="SELECT subject_id, count(*) FROM jindan WHERE sick_cd = 'X70' GROUP BY subject_id"
FORMSQL="SELECT sick_cd, count(*) FROM jindan GROUP BY sick_cd"
agent_explain() {   # agent_explain USER: a ReAct run as USER: explain ROWSQL, explain FORMSQL, cannot_answer
	curl -s -XPOST --data-binary "[$(resp "$(call explain sql "$ROWSQL")"), $(resp "$(call explain sql "$FORMSQL")"), $(resp "$(call cannot_answer missing "done")")]" "$FAKE/__script" >/dev/null
	ASKQL_LLM_PROVIDER=openai ASKQL_LLM_BASE_URL=$FAKE/v1 ASKQL_LLM_API_KEY=sk-test ASKQL_LLM_RETRIES=1 ASKQL_LLM_TIMEOUT_MS=5000 \
		"$ASKQL" ask --json --no-cache --target "$DB" --user "$1" --mode react "which patient has X70" 2>&1 |
		python3 -c 'import json,sys; print(json.loads(sys.stdin.read() or "{}").get("run_id", 0))' 2>/dev/null
}
explains() { q "SELECT string_agg(status || ':' || coalesce(error, ''), ' | ' ORDER BY seq) FROM askql.steps WHERE run_id = ${1:-0} AND name = 'explain'"; }
R=$(agent_explain "$AGG")
ex=$(explains "$R")
sent=$(curl -s "$FAKE/__requests")
check "agent, aggregate: the explain tool refuses a row-level plan with the form's reason (run $R)" \
	'[[ "$ex" == error:*"at the aggregate level: "*"subject_id"* ]]' "$ex"
check "agent, aggregate: a plan in the form is made (of the statement as it would run)" '[[ "$ex" == *" | ok:"* ]]' "$ex"
check "agent, aggregate: the model was told the reason, and got no plan of the refused SQL" \
	'python3 -c "import json,sys; r=json.loads(sys.argv[1]); t=r[1][\"raw\"]; sys.exit(0 if \"at the aggregate level\" in t and \"total_cost\" not in t else 1)" "$sent"' \
	"$(head -c 600 <<<"$sent")"
R=$(agent_explain "$IDF")
ex=$(explains "$R")
check "agent, identified: both plans are made (run $R)" '[[ "$ex" == ok:*" | ok:"* ]]' "$ex"

echo "1..$n"
