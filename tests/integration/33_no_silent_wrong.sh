#!/usr/bin/env bash
# 33_no_silent_wrong.sh: issue 26 by execution on the demo: each question that used to get a wrong number that looked right now answers right (checked against SQL written here) or is declined naming the word, and its answer sentence says back what the SQL that ran computes (docs/coverage.md).
set -uo pipefail
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
ASKQL=${ASKQL:-$TOP/bin/askql}
: "${BASE_URL:?}" "${ADMIN_USER:?}"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && sed 's/^/# /' <<<"$2" | head -20; }
j() { python3 -c "import sys,json; d=json.load(sys.stdin); v=d$1; print(v if not isinstance(v,(list,dict)) else json.dumps(v, ensure_ascii=False))" 2>/dev/null; }
gold() { psql -X -q -tA -d demo -c "$1" 2>/dev/null; }
TOK=$("$ASKQL" user token "$ADMIN_USER" 2>/dev/null | tail -1)
lang_was=$(psql -X -q -tA -d askql -c "SELECT lang FROM askql.users WHERE name = '$ADMIN_USER'")
trap 'psql -X -q -d askql -c "UPDATE askql.users SET lang = '"'"'$lang_was'"'"' WHERE name = '"'"'$ADMIN_USER'"'"'" >/dev/null 2>&1' EXIT
setlang() { psql -X -q -d askql -c "UPDATE askql.users SET lang = '$1' WHERE name = '$ADMIN_USER'" >/dev/null; }
# ask Q: the run's JSON (CLI, no cache) in $R, its id in $ID
ask() { R=$("$ASKQL" ask --target demo --no-cache --json "$@" 2>/dev/null); ID=$(j "['run_id']" <<<"$R"); }
# said LANG: the answer sentence of run $ID as the API gives it in LANG
said() { setlang "$1"; curl -s -H "Authorization: Bearer $TOK" "$BASE_URL/api/runs/$ID" | j "['answer']"; }
# value: the first cell of the run's rows
value() { j "['rows'][0][0]" <<<"$R"; }
has() { case "$2" in *"$3"*) ok "$1";; *) nok "$1" "want '$3' in: $2";; esac; }

# ---- filters said in words: the stored value is filtered on, and the sentence names it ----
ask "복강경 수술 건수"
want=$(gold "SELECT count(*) FROM clinical_data_table WHERE approach = 'Videoscopic'")
[ "$(value)" = "$want" ] && ok "복강경 수술 건수 counts the videoscopic cases ($want)" || nok "복강경 수술 건수" "$R"
has "its answer names the filter that ran (ko)" "$(said ko)" "approach) = Videoscopic"
has "its answer names the filter that ran (en)" "$(said en)" "approach) = Videoscopic"
ask "GS 환자 수"
want=$(gold "SELECT count(DISTINCT subjectid) FROM clinical_data_table WHERE department = 'General surgery'")
[ "$(value)" = "$want" ] && ok "GS 환자 수 counts general-surgery patients ($want)" || nok "GS 환자 수" "$R"
has "its answer says patients of General surgery" "$(said ko)" "= General surgery인 환자 수"
ask "OS 환자 수"
[ "$(j "['status']" <<<"$R")" = unanswerable ] && has "OS (no such department here) is declined naming it" "$(j "['error']" <<<"$R")" "'os'" ||
	nok "OS 환자 수 is declined" "$R"

# ---- a share: the denominator is the group named after 중 / of ----
for q in "여자 환자 중 당뇨 있는 환자 비율" "what percentage of female patients had diabetes" "share of women with diabetes" \
	"당뇨 환자 비율 (여자 중)"; do
	ask "$q"
	want=$(gold "SELECT round(100.0 * avg((preop_dm = 1)::int), 2)::float8 FROM clinical_data_table WHERE sex = 'F'")
	[ "$(value)" = "$want" ] && ok "$q: the share of women with diabetes ($want%)" || nok "$q: share of women with diabetes ($want)" "$R"
done
ask "여자 환자 중 당뇨 있는 환자 비율"
s=$(said ko)
has "the share's sentence says its base and part" "$s" "성별(sex) = F인 경우 중"
has "the share's sentence gives how many of how many" "$s" "$(gold "SELECT to_char(count(*), 'FM9,999') FROM clinical_data_table WHERE sex = 'F'")건 중"
ask "in-hospital mortality rate"
[ "$(j "['columns'][0]" <<<"$R")" = rate_percent ] && [ "$(j "['row_count']" <<<"$R")" = 1 ] &&
	ok "in-hospital mortality rate is one percentage, not a timeline of the dead" || nok "in-hospital mortality rate" "$R"
ask "mortality rate of women"
want=$(gold "SELECT round(100.0 * avg((death_inhosp = 1)::int), 2)::float8 FROM clinical_data_table WHERE sex = 'F'")
[ "$(value)" = "$want" ] && ok "mortality rate of women: deaths among women ($want%)" || nok "mortality rate of women ($want)" "$R"

# ---- two-way breakdowns: every grouping named, in order, never the patient id ----
for q in "진료과별 성별 환자 수" "진료과와 성별에 따른 환자 수" "number of patients by department and sex" "진료과 × 성별 환자 수"; do
	ask "$q"
	sql=$(j "['sql']" <<<"$R")
	want=$(gold "SELECT count(*) FROM (SELECT 1 FROM clinical_data_table GROUP BY department, sex) g")
	if [[ "$sql" == *"GROUP BY clinical_data_table.department, clinical_data_table.sex" ]] && [ "$(j "['row_count']" <<<"$R")" = "$want" ]; then
		ok "$q: grouped by department × sex ($want groups)"
	else
		nok "$q: grouped by department × sex" "$R"
	fi
done
ask "성별 진료과별 평균 나이"
[[ "$(j "['sql']" <<<"$R")" == *"GROUP BY clinical_data_table.sex, clinical_data_table.department" ]] &&
	ok "성별 진료과별 평균 나이: by sex, then department" || nok "성별 진료과별 평균 나이" "$R"
has "its sentence names both groupings" "$(said ko)" "성별(sex) × 진료과(department)별 평균"
ask "진료과별 성별 환자 수"
has "the English sentence names both groupings" "$(said en)" "by "

# ---- a grouping the database does not have, and admissions it does not record ----
ask "병동별 평균 재원일수"
# (the word is named as written, 병동별, or without its breakdown suffix, 병동)
[ "$(j "['status']" <<<"$R")" = unanswerable ] && has "병동별 (no wards: a dose unit is not a ward) is declined naming the word" \
	"$(j "['error']" <<<"$R" | sed "s/'병동별'/'병동'/")" "'병동'" || nok "병동별 평균 재원일수 is declined" "$R"
ask "입원 건수"
[ "$(j "['status']" <<<"$R")" = unanswerable ] && has "입원 (no admissions here) is declined naming the word" "$(j "['error']" <<<"$R")" "'입원'" ||
	nok "입원 건수 is declined, not counted as cases" "$R"

# ---- a threshold with an attribute: on the lab value, never on the attribute ----
ask "당뇨 환자 중 칼륨 5.5 이상인 환자 수"
want=$(gold "SELECT count(DISTINCT c.subjectid) FROM lab_data_table l JOIN clinical_data_table c ON c.caseid = l.caseid WHERE c.preop_dm = 1 AND l.name = 'k' AND l.result >= 5.5")
[ "$(value)" = "$want" ] && ok "당뇨 환자 중 칼륨 5.5 이상: diabetic patients with potassium >= 5.5 ($want)" || nok "threshold with an attribute ($want)" "$R"

# ---- bands and calendars: 10-year age bands, months of their year, in time order ----
ask "연령대별 환자 수"
rows=$(j "['rows']" <<<"$R")
want=$(gold "SELECT json_agg(json_build_array(b, n) ORDER BY b) FROM (SELECT (floor(age / 10) * 10)::int b, count(DISTINCT subjectid) n FROM clinical_data_table GROUP BY 1) x")
[ "$(tr -d ' ' <<<"$rows")" = "$(tr -d ' ' <<<"$want")" ] && ok "연령대별 환자 수: 10-year bands, youngest first" || nok "연령대별 환자 수" "$rows vs $want"
ask "월별 수술 건수"
first=$(j "['rows'][0][0]" <<<"$R"); second=$(j "['rows'][1][0]" <<<"$R")
[[ "$first" =~ ^20[0-9][0-9]-[0-9][0-9]-01 ]] && [[ "$first" < "$second" ]] && ok "월별 수술 건수: months with their year, in time order ($first, $second, ...)" ||
	nok "월별 수술 건수 ordered with the year" "$R"

# ---- follow-ups: a value replaces the parent's on its column; a grouping is added ----
ask "남자 환자 수"
parent=$ID
ask --parent "$parent" "여자만"
want=$(gold "SELECT count(DISTINCT subjectid) FROM clinical_data_table WHERE sex = 'F'")
[ "$(value)" = "$want" ] && ok "남자 환자 수 then 여자만: women replace men ($want)" || nok "여자만 after 남자 환자 수 ($want)" "$R"
has "the follow-up's sentence says women, not men" "$(said ko)" "성별(sex) = F"
ask --parent "$parent" "연령대별로"
sql=$(j "['sql']" <<<"$R")
[[ "$sql" == *"sex = 'M'"* && "$sql" == *"floor"* ]] && ok "남자 환자 수 then 연령대별로: men, by age band" || nok "연령대별로 after 남자 환자 수" "$R"
ask "How many male patients?"
ask --parent "$ID" "only women"
[ "$(value)" = "$want" ] && ok "How many male patients? then only women ($want)" || nok "only women after male patients" "$R"
ask "진료과별 수술 건수"
ask --parent "$ID" "같은 걸 성별로"
[[ "$(j "['sql']" <<<"$R")" == *"GROUP BY clinical_data_table.department, clinical_data_table.sex" ]] &&
	ok "진료과별 수술 건수 then 같은 걸 성별로: sex added to department" || nok "같은 걸 성별로 adds a grouping" "$R"

# ---- an analyst's edited SQL is what the sentence describes ----
R=$("$ASKQL" ask --target demo --step --no-cache --json "남자 환자의 진료과별 평균 나이" 2>/dev/null); ID=$(j "['run_id']" <<<"$R")
"$ASKQL" ask --resume "$ID" --decision '{"decision":"approve"}' >/dev/null 2>&1
R=$("$ASKQL" ask --resume "$ID" --json --decision "{\"decision\":\"edit\",\"sql\":\"SELECT count(*) FROM clinical_data_table WHERE sex = 'F'\"}" 2>/dev/null)
want=$(gold "SELECT to_char(count(*), 'FM9,999') FROM clinical_data_table WHERE sex = 'F'")
s=$(said ko)
[[ "$s" == "성별(sex) = F인 건수: $want건" ]] && ok "an edited SQL (women, a count) is described, not the question (men, by department)" ||
	nok "the sentence of an edited SQL" "$s"
echo "1..$n"
