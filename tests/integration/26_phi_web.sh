#!/usr/bin/env bash
# 26_phi_web.sh: PHI classes on Admin -> Catalog over HTTP: each column's class on the table page and the counts
# on the table list, in both languages; the review list; a direct identifier's page shows no stored value; an
# admin's correction (CSRF, reason) changes the class as `askql phi list` sees it, is audited with the admin's
# id, survives re-indexing, and is cleared back to the classifier's class; every bad input gives a clear
# notice and changes nothing; analysts get 403.
set -uo pipefail
: "${BASE_URL:?}" "${ADMIN_USER:?}" "${ADMIN_PASS:?}" "${ASKQL:?}"
T=$(mktemp -d)
DB=phi_web_$$
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
LANG0=$(q -c "SELECT lang FROM askql.users WHERE name = '$ADMIN_USER'")
cleanup() {
	q -c "UPDATE askql.users SET lang = '$LANG0' WHERE name = '$ADMIN_USER'" >/dev/null 2>&1
	q -c "DELETE FROM askql.targets WHERE name = '$DB'; DELETE FROM askql.cat_targets WHERE name = '$DB';
	      DELETE FROM askql.cat_tables WHERE target = '$DB'; DELETE FROM askql.phi_corrections WHERE target = '$DB';
	      DELETE FROM askql.users WHERE name = 'an26_$$'" >/dev/null 2>&1
	psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
page() { curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=$DB$1"; }
# post ARGS...: a PHI form of the column page; prints "status redirect"
post() { curl -s -o /dev/null -w '%{http_code} %{redirect_url}' -b "$T/admin" --data-urlencode "csrf=$A" \
	--data-urlencode "target=$DB" "$@" "$BASE_URL/admin/catalog"; }
# the state a refusal must leave alone: every class and correction, the audit, the catalog version
state() {
	"$ASKQL" phi list --target "$DB" --json 2>&1
	q -c "SELECT count(*) FROM askql.audit WHERE action LIKE 'phi.%'"
	q -c "SELECT version FROM askql.cat_targets WHERE name = '$DB'"
}
cls() { # cls TABLE.COLUMN: "class classified corrected set_by" as askql phi list --json says
	python3 -c "import json,sys; r={x['column']:x for x in json.loads(sys.argv[1])}[sys.argv[2]]; \
print(r['class'], r['classified'], str(r['corrected']).lower(), r.get('set_by', '-'))" "$("$ASKQL" phi list --target "$DB" --json)" "$1"
}
setlang() { curl -s -o /dev/null -b "$T/admin" -c "$T/admin" --data-urlencode "csrf=$A" --data-urlencode "lang=$1" \
	--data-urlencode next=/ "$BASE_URL/lang"; }

psql -X -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d "$DB" >/dev/null <<'SQL'
CREATE TABLE hwanja (ptnt_no text PRIMARY KEY, ptnt_nm text, jumin_no text, sido_nm text, brth_dt date);
COMMENT ON COLUMN hwanja.ptnt_no IS '환자번호(등록번호)';
COMMENT ON COLUMN hwanja.ptnt_nm IS '환자명';
COMMENT ON COLUMN hwanja.sido_nm IS '거주지 시도';
COMMENT ON COLUMN hwanja.brth_dt IS '생년월일';
INSERT INTO hwanja VALUES
 ('00012345', '홍길동', '800101-1234560', '서울', '1980-01-01'), ('00012346', '김영희', '950715-2345678', '경기', '1995-07-15'),
 ('00012347', '이철수', '020301-3123456', '부산', '2002-03-01'), ('00012348', '박민수', '001231-4123459', '대구', '2000-12-31');
CREATE TABLE ipwon (ipwon_no integer PRIMARY KEY, ptnt_no text REFERENCES hwanja, ipwon_dt timestamp, ward_cd text);
COMMENT ON COLUMN ipwon.ipwon_no IS '입원번호';
COMMENT ON COLUMN ipwon.ipwon_dt IS '입원일시';
INSERT INTO ipwon SELECT g, '0001234' || (5 + g % 4), timestamp '2025-01-01' + g * interval '3 day', 'W' || (g % 3)
	FROM generate_series(1, 12) g;
CREATE TABLE jindan (jindan_seq integer PRIMARY KEY, ptnt_no text REFERENCES hwanja, sick_cd text, sick_nm text);
COMMENT ON COLUMN jindan.sick_cd IS '상병코드(KCD)';
INSERT INTO jindan VALUES (1, '00012345', 'I10', 'Essential hypertension'), (2, '00012346', 'F20.0', 'Paranoid schizophrenia'),
	(3, '00012347', 'E11.9', 'Type 2 diabetes');
GRANT SELECT ON ALL TABLES IN SCHEMA public TO PUBLIC;
SQL
out=$("$ASKQL" index --target "host=$PGHOST port=$PGPORT dbname=$DB user=${PGUSER:-askql}" 2>&1); rc=$?
check "index a small clinic target" '[ $rc -eq 0 ] && grep -q "^indexed $DB" <<<"$out"' "$out"
# a column of a catalog indexed before classification existed, and a stale stored value of a direct
# identifier (the indexer keeps none: the page must not show one even when the index has it)
q -c "UPDATE askql.cat_columns SET phi_class = NULL, phi_rule = NULL, phi_evidence = NULL
      WHERE target = '$DB' AND table_name = 'ipwon' AND name = 'ward_cd';
      INSERT INTO askql.cat_values (target, schema_name, table_name, column_name, value)
      VALUES ('$DB', 'public', 'hwanja', 'ptnt_nm', '홍길동')" >/dev/null
A=$(signin "$T/admin" "$ADMIN_USER" "$ADMIN_PASS")
check "admin signed in" '[ -n "$A" ]'
AID=$(q -c "SELECT id FROM askql.users WHERE name = '$ADMIN_USER'")

# ---- seeing the classes ----
setlang en
p=$(page "")
hw=$(grep -A6 "data-table=\"hwanja\"" <<<"$p")
check "the table list counts each table's classes (hwanja: 3 direct, 2 quasi) and links the review" \
	'grep -q "data-phi=\"direct\">direct identifier <b>3</b>" <<<"$hw" && grep -q "data-phi=\"quasi\">quasi-identifier <b>2</b>" <<<"$hw" &&
	 grep -A6 "data-table=\"jindan\"" <<<"$p" | grep -q "data-phi=\"sensitive\">sensitive <b>" &&
	 grep -q "id=\"phi-review-link\"" <<<"$p"' "$hw"
p=$(page "&table=hwanja")
check "a table's columns show their class as a badge in English (direct, quasi, none)" \
	'grep -A3 "data-column=\"ptnt_nm\"" <<<"$p" | grep -q "data-phi=\"direct\">direct identifier<" &&
	 grep -A3 "data-column=\"sido_nm\"" <<<"$p" | grep -q "data-phi=\"quasi\">quasi-identifier<"' \
	"$(grep -A3 'data-column="ptnt_nm"' <<<"$p")"
setlang ko
p=$(page "&table=hwanja")
check "... and in Korean (직접 식별자, 준식별자)" \
	'grep -A3 "data-column=\"ptnt_nm\"" <<<"$p" | grep -q "data-phi=\"direct\">직접 식별자<" &&
	 grep -A3 "data-column=\"brth_dt\"" <<<"$p" | grep -q "data-phi=\"quasi\">준식별자<"' "$(grep -A3 'data-column="brth_dt"' <<<"$p")"
p=$(page "&table=ipwon")
check "a column indexed before classification is shown as unclassified, with a warning" \
	'grep -A3 "data-column=\"ward_cd\"" <<<"$p" | grep -q "data-phi=\"unclassified\" title=\"[^\"]*직접 식별자로 취급[^\"]*\">⚠ 미분류<" &&
	 grep -A3 "data-column=\"ipwon_no\"" <<<"$p" | grep -q "data-phi=\"none\">해당 없음<"' "$(grep -A3 'data-column="ward_cd"' <<<"$p")"
check "... and its table's page and the review say that such columns are treated as direct identifiers; a fully classified table's page does not" \
	'grep -q "class=\"alert small phi-warn\">아직 분류되지 않은 열(⚠)이 있습니다" <<<"$p" &&
	 grep -q "class=\"alert small phi-warn\">아직 분류되지 않은 열" <<<"$(page "&phi=review")" && ! grep -q "phi-warn" <<<"$(page "&table=hwanja")"' \
	"$(grep -n 'phi-warn' <<<"$p")"
p=$(page "&phi=review")
check "the review lists every column that is not none with its evidence, and no column that is none" \
	'grep -q "data-column=\"hwanja.jumin_no\"" <<<"$p" && grep -q "data-column=\"jindan.sick_cd\"" <<<"$p" &&
	 grep -q "data-column=\"ipwon.ipwon_dt\"" <<<"$p" && grep -q "data-column=\"ipwon.ward_cd\"" <<<"$p" &&
	 ! grep -q "data-column=\"ipwon.ipwon_no\"" <<<"$p" && ! grep -q "data-column=\"jindan.jindan_seq\"" <<<"$p" &&
	 grep -A4 "data-column=\"hwanja.jumin_no\"" <<<"$p" | grep -q "class=\"small phi-evidence\" lang=\"en\"><code class=\"phi-rule\">rrn</code>"' \
	"$(grep -A4 'data-column="hwanja.jumin_no"' <<<"$p")"

# ---- a direct identifier's page shows no stored value ----
p=$(page "&table=hwanja&column=ptnt_nm")
check "a direct identifier's page: class and evidence shown, no stored value (not even a stale one), no mapping form, and says why" \
	'grep -q "phi-classifier" <<<"$p" && grep -q "id=\"values-hidden\"" <<<"$p" && ! grep -q "홍길동" <<<"$p" &&
	 ! grep -q "id=\"add-mapping\"\|id=\"value-options\"\|id=\"samples\"" <<<"$p"' "$(grep -n 'samples\|values-hidden' <<<"$p")"
p=$(page "&table=hwanja")
check "... nor on its table's page" '! grep -q "홍길동" <<<"$p" && grep -q "data-column=\"sido_nm\"" <<<"$p"' ""
p=$(page "&table=hwanja&column=sido_nm")
check "a quasi-identifier's page still shows its stored values (서울) and the mapping form" \
	'grep -q "<code>서울</code>" <<<"$p" && grep -q "id=\"add-mapping\"" <<<"$p" && ! grep -q "id=\"values-hidden\"" <<<"$p"' ""

# ---- refusals change nothing ----
s0=$(state)
c=$(code -b "$T/admin" --data-urlencode "target=$DB" --data-urlencode action=phi_set --data-urlencode table=ipwon \
	--data-urlencode column=ipwon_no --data-urlencode class=direct --data-urlencode "reason=no token" "$BASE_URL/admin/catalog")
check "a correction without the CSRF token is refused (403) and changes nothing" '[ "$c" = 403 ] && [ "$(state)" = "$s0" ]' "$c"
LONG=$(head -c 600 /dev/zero | tr '\0' x)
while IFS='|' read -r what want args; do
	eval "set -- $args"
	out=$(post "$@")
	check "$what: notice=$want, nothing changed" '[[ "$out" == "303 "*"notice=$want"* ]] && [ "$(state)" = "$s0" ]' "$out"
done <<EOF
an empty reason|phi_no_reason|--data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode class=direct --data-urlencode 'reason=   '
no reason at all|phi_no_reason|--data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode class=direct
a 600-byte reason|phi_reason_long|--data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode class=direct --data-urlencode reason=$LONG
an unknown class|phi_bad_class|--data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode class=secret --data-urlencode reason=x
the class 'unclassified'|phi_bad_class|--data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode class=unclassified --data-urlencode reason=x
an unknown column|phi_no_column|--data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=nope --data-urlencode class=direct --data-urlencode reason=x
an unknown table|phi_no_column|--data-urlencode action=phi_set --data-urlencode table=nope --data-urlencode column=ipwon_no --data-urlencode class=direct --data-urlencode reason=x
clearing a column with no correction|phi_no_corr|--data-urlencode action=phi_clear --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode reason=x
EOF
p=$(curl -s -b "$T/admin" "$BASE_URL/admin/catalog?target=$DB&table=ipwon&column=ipwon_no&notice=phi_reason_long")
check "the refusal is said plainly on the column's page (500바이트)" \
	'grep -q "class=\"alert\" role=\"status\">아무것도 바꾸지 않았습니다. 사유는 500바이트" <<<"$p"' "$(grep -n 'role="status"' <<<"$p")"

# ---- a correction: applied, audited with the admin's id, kept by re-indexing, cleared ----
a0=$(q -c "SELECT coalesce(max(id), 0) FROM askql.audit")
v0=$(q -c "SELECT version FROM askql.cat_targets WHERE name = '$DB'")
out=$(post --data-urlencode action=phi_set --data-urlencode table=ipwon --data-urlencode column=ipwon_no \
	--data-urlencode class=direct --data-urlencode "reason=입원번호 is printed on wristbands here")
check "a correction with CSRF and a reason: 303 back to the column with notice=phi_saved" \
	'[[ "$out" == "303 "*"table=ipwon&column=ipwon_no&notice=phi_saved"* ]]' "$out"
check "askql phi list agrees: ipwon.ipwon_no is direct, corrected by $ADMIN_USER (classifier: none)" \
	'[ "$(cls ipwon.ipwon_no)" = "direct none true $ADMIN_USER" ]' "$(cls ipwon.ipwon_no)"
a=$(q -c "SELECT user_id || '|' || (detail->>'column') || '|' || (detail->>'class') || '|' || (detail->>'previous') || '|' || (detail->>'reason')
          FROM askql.audit WHERE id > $a0 AND action = 'phi.set' AND detail->>'target' = '$DB'")
check "one audit row phi.set with the admin's user id, column, class, previous class and reason; the version moved on" \
	'[ "$a" = "$AID|public.ipwon.ipwon_no|direct|none|입원번호 is printed on wristbands here" ] &&
	 [ "$(q -c "SELECT version FROM askql.cat_targets WHERE name = '"'$DB'"'")" -gt "$v0" ]' "$a"
p=$(page "&table=ipwon")
check "the table page marks it corrected" \
	'grep -A3 "data-column=\"ipwon_no\"" <<<"$p" | grep -q "data-phi=\"direct\">직접 식별자</span> <span class=\"badge phi-corrected\">수정됨<"' \
	"$(grep -A3 'data-column="ipwon_no"' <<<"$p")"
p=$(page "&table=ipwon&column=ipwon_no&notice=phi_saved")
check "the column page says who corrected it, when, why, what the classifier said, and offers to remove it" \
	'grep -q "class=\"answer\" role=\"status\">저장했습니다" <<<"$p" && grep -q "class=\"phi-set-by\">$ADMIN_USER · 20" <<<"$p" &&
	 grep -q "class=\"phi-reason\">입원번호 is printed on wristbands here<" <<<"$p" &&
	 grep -q "class=\"badge phi-badge phi-none\" data-phi=\"none\">해당 없음<" <<<"$p" && grep -q "id=\"phi-clear\"" <<<"$p"' ""
out=$("$ASKQL" index --target "$DB" --force 2>&1); rc=$?
check "the correction survives askql index --force of the target" \
	'[ $rc -eq 0 ] && [ "$(cls ipwon.ipwon_no)" = "direct none true $ADMIN_USER" ]' "$out $(cls ipwon.ipwon_no)"
nv=$(q -c "SELECT count(*) FROM askql.cat_values WHERE target = '$DB' AND table_name = 'hwanja' AND column_name = 'sido_nm'")
out=$(post --data-urlencode action=phi_set --data-urlencode table=hwanja --data-urlencode column=sido_nm \
	--data-urlencode class=direct --data-urlencode "reason=small towns here")
nv2=$(q -c "SELECT count(*) FROM askql.cat_values WHERE target = '$DB' AND table_name = 'hwanja' AND column_name = 'sido_nm'")
p=$(page "&table=hwanja&column=sido_nm")
check "a quasi-identifier corrected to direct: its stored values leave the index and its page shows none" \
	'[[ "$out" == *notice=phi_saved* ]] && [ "$nv" -gt 0 ] && [ "$nv2" = 0 ] && ! grep -q "<code>서울</code>" <<<"$p" && grep -q "id=\"values-hidden\"" <<<"$p"' \
	"$out $nv -> $nv2"
s1=$(state)
out=$(post --data-urlencode action=phi_clear --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode "reason= ")
check "clearing without a reason: notice=phi_no_reason, nothing changed" '[[ "$out" == *notice=phi_no_reason* ]] && [ "$(state)" = "$s1" ]' "$out"
out=$(post --data-urlencode action=phi_clear --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode "reason=checked: not printed after all")
c=$(q -c "SELECT count(*) FROM askql.audit WHERE id > $a0 AND action = 'phi.clear' AND user_id = $AID AND detail->>'target' = '$DB' AND detail->>'previous' = 'direct'")
check "clearing with a reason restores the classifier's class (none), audited as phi.clear with the admin's id" \
	'[[ "$out" == *notice=phi_cleared* ]] && [ "$(cls ipwon.ipwon_no)" = "none none false -" ] && [ "$c" = 1 ]' "$out $(cls ipwon.ipwon_no) $c"
p=$(page "&table=ipwon&column=ipwon_no")
check "after clearing, the page has no correction and no remove form" \
	'! grep -q "id=\"phi-clear\"\|phi-corrected" <<<"$p" && grep -Eq "class=\"phi-now\"> *<span class=\"badge phi-badge phi-none\"" <<<"$p"' ""

# ---- analysts ----
U=an26_$$
curl -s -o /dev/null -b "$T/admin" --data-urlencode "csrf=$A" --data-urlencode action=add --data-urlencode "name=$U" \
	--data-urlencode role=analyst --data-urlencode "password=pw-$U-secret" "$BASE_URL/admin/users"
AN=$(signin "$T/an" "$U" "pw-$U-secret")
s2=$(state)
check "an analyst gets 403 on the review and on a correction, and nothing changes" \
	'[ -n "$AN" ] && [ "$(code -b "$T/an" "$BASE_URL/admin/catalog?target=$DB&phi=review")" = 403 ] &&
	 [ "$(code -b "$T/an" --data-urlencode "csrf=$AN" --data-urlencode action=phi_set --data-urlencode "target=$DB" --data-urlencode table=ipwon --data-urlencode column=ipwon_no --data-urlencode class=direct --data-urlencode reason=x "$BASE_URL/admin/catalog")" = 403 ] &&
	 [ "$(state)" = "$s2" ]'
echo "1..$n"
