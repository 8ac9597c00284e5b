/* test_suppress.c: the safe aggregate form (sql/suppress.h): each rule accepted and refused with its code, the rewrite's count, HAVING, rounding and positions, the reasons in Korean. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pages/decline_words.h"
#include "sql/suppress.h"

/*
 * A target like tests/integration/28_levels.sh and the demo:
 *   hwanja(subject_id PK, ptnt_nm, age, sex, zip_cd, brth_dt, smoker)   patients (smoker 0/1)
 *   ipwon(ipwon_seq PK, subject_id, ipwon_dt, ward_cd)         admissions
 *   jindan(jindan_seq PK, subject_id, sick_cd, sick_nm)        diagnoses
 *   cases(caseid PK, subjectid, department, age, sex, los)     surgical cases
 *   labs(caseid, dt, name, result)                             lab results: no patient key
 *   cm_kcd(kcd_cd PK, kcd_nm)                                  a code list: not persons' rows
 */
struct tab { const char *name, *cols[8], *uniq; int tied; };
static const struct tab tabs[] = {
	{"hwanja", {"subject_id", "ptnt_nm", "age", "sex", "zip_cd", "brth_dt", "smoker"}, "subject_id", 1},
	{"ipwon", {"ipwon_seq", "subject_id", "ipwon_dt", "ward_cd"}, "ipwon_seq", 1},
	{"jindan", {"jindan_seq", "subject_id", "sick_cd", "sick_nm"}, "jindan_seq", 1},
	{"cases", {"caseid", "subjectid", "department", "age", "sex", "los"}, "caseid", 1},
	{"labs", {"caseid", "dt", "name", "result"}, NULL, 1},
	{"cm_kcd", {"kcd_cd", "kcd_nm"}, "kcd_cd", 0},
};

static const struct tab *tab(const char *schema, const char *table)
{
	for (size_t i = 0; i < sizeof tabs / sizeof tabs[0]; i++)
		if (!strcmp(tabs[i].name, table) && (!schema || !strcmp(schema, "askql_limited")))
			return &tabs[i];
	return NULL;
}

static int has_col(void *ctx, const char *schema, const char *table, const char *col)
{
	const struct tab *t = tab(schema, table);

	for (int i = 0; t && t->cols[i]; i++)
		if (!strcmp(t->cols[i], col))
			return 1;
	return 0;
}

static int unique(void *ctx, const char *schema, const char *table, const char *col)
{
	const struct tab *t = tab(schema, table);

	return t && t->uniq && !strcmp(t->uniq, col);
}

static int tied(void *ctx, const char *schema, const char *table)
{
	const struct tab *t = tab(schema, table);

	return !t || t->tied;   /* unknown: persons' rows */
}

/* the PHI rules' person and episode keys by name (phi_column_ties) */
static int ident_name(void *ctx, const char *col)
{
	return !strcmp(col, "caseid") || !strcmp(col, "ipwon_seq") || !strcmp(col, "ptnt_nm");
}

static const char *const keys[] = {"patient_id", "subject_id", "subjectid"};
static const struct suppress_db db = {has_col, unique, tied, ident_name, NULL};

/* 1: the rewrite perturbs sums and averages (seed 42), as the executor asks; the rules' tests leave it off */
static int noise_on;

/* rw: suppress_rewrite with k 11, rounding round; asserts the result code (and the refusal's) */
static char *rw_round(const char *sql, long round, enum err want, enum suppress_code code, struct suppress_refusal *why)
{
	struct suppress_opts o = {keys, 3, &db, 11, round, noise_on, 42};
	struct suppress_refusal w;
	char *out = NULL;
	enum err rc = suppress_rewrite(sql, &o, &out, why ? why : &w);

	if (rc != want || (why ? why : &w)->code != code)
		fail_msg("%s\n  got rc %d code %d (%s), want rc %d code %d", sql, rc, (why ? why : &w)->code,
		         (why ? why : &w)->arg, want, code);
	if (want != OK)
		assert_null(out);
	return out;
}

static char *rw(const char *sql, enum err want, enum suppress_code code, struct suppress_refusal *why)
{
	return rw_round(sql, 0, want, code, why);
}

static void ok_is(const char *sql, const char *want)
{
	char *s = rw(sql, OK, SUPP_OK, NULL);

	assert_string_equal(s, want);
	free(s);
}

static void ok_has(const char *sql, const char *part)
{
	char *s = rw(sql, OK, SUPP_OK, NULL);

	if (!strstr(s, part))
		fail_msg("%s\n  became %s\n  without %s", sql, s, part);
	free(s);
}

static void no(const char *sql, enum suppress_code code)
{
	rw(sql, ERR_DENIED, code, NULL);
}

#define H "count(DISTINCT \"hwanja\".\"subject_id\")"

static void test_rewrite_counts_and_having(void **state)
{
	(void)state;
	ok_is("SELECT sex, count(*) FROM hwanja GROUP BY sex",
	      "SELECT " H " AS askql_n, sex, count(*) FROM hwanja GROUP BY sex HAVING " H " >= 11");
	/* no GROUP BY: one group, still counted */
	ok_is("SELECT count(*) FROM hwanja WHERE sex = 'F'",
	      "SELECT " H " AS askql_n, count(*) FROM hwanja WHERE sex = 'F' HAVING " H " >= 11");
	/* the statement's own HAVING is kept, in parentheses, beside ours */
	ok_is("SELECT sex, count(*) FROM hwanja GROUP BY sex HAVING count(*) > 20 OR sex = 'F' ORDER BY 1",
	      "SELECT " H " AS askql_n, sex, count(*) FROM hwanja GROUP BY sex HAVING (count(*) > 20 OR sex = 'F') AND "
	      H " >= 11 ORDER BY 2");
	/* positional references move past the added column; a code list needs no key */
	ok_is("select w.ward_cd, count(*) from cm_kcd k, ipwon w group by 1 order by 2 desc, 1",
	      "select count(DISTINCT \"w\".\"subject_id\") AS askql_n, w.ward_cd, count(*) from cm_kcd k, ipwon w "
	      "group by 2 HAVING count(DISTINCT \"w\".\"subject_id\") >= 11 order by 3 desc, 2");
	/* a trailing comment or ';' stays after HAVING; (SELECT ...) is read inside its parentheses */
	ok_is("SELECT sex, count(*) FROM hwanja GROUP BY sex; -- by sex",
	      "SELECT " H " AS askql_n, sex, count(*) FROM hwanja GROUP BY sex HAVING " H " >= 11; -- by sex");
	ok_is("(SELECT sex, count(*) FROM hwanja GROUP BY sex)",
	      "(SELECT " H " AS askql_n, sex, count(*) FROM hwanja GROUP BY sex HAVING " H " >= 11)");
	ok_has("SELECT sex, count(*) FROM hwanja GROUP BY sex LIMIT 5", "GROUP BY sex HAVING " H " >= 11 LIMIT 5");
	/* found by fuzzing: nothing glues to the text around it */
	ok_has("SELECT@ count(age) FROM hwanja", "SELECT LEAST(");
	ok_has("SELECT sex, count(*) FROM hwanja GROUP BY(sex)LIMIT 5", "GROUP BY(sex) HAVING " H " >= 11 LIMIT 5");
}

static void test_rewrite_every_reference_counted(void **state)
{
	(void)state;
	/* a self-join counts the patients of each side; the group shows only when both reach k */
	ok_has("SELECT a.sex, count(*) FROM hwanja a JOIN hwanja b ON a.sex = b.sex GROUP BY a.sex",
	       "LEAST(count(DISTINCT \"a\".\"subject_id\"), count(DISTINCT \"b\".\"subject_id\")) AS askql_n");
	ok_has("SELECT w.ward_cd, count(*) FROM hwanja h JOIN ipwon w USING (subject_id) GROUP BY w.ward_cd",
	       "LEAST(count(DISTINCT \"h\".\"subject_id\"), count(DISTINCT \"w\".\"subject_id\"))");
	/* each aggregate's values: the patients behind them must be k as well */
	ok_has("SELECT sex, avg(age) FROM hwanja GROUP BY sex",
	       "LEAST(" H ", count(DISTINCT CASE WHEN (age) IS NOT NULL THEN \"hwanja\".\"subject_id\" END), ");
	ok_has("SELECT sex, percentile_disc(0.5) WITHIN GROUP (ORDER BY age DESC NULLS LAST) FROM hwanja GROUP BY sex",
	       "count(DISTINCT CASE WHEN (age) IS NOT NULL THEN \"hwanja\".\"subject_id\" END)");
	/* a column called desc is no direction (found by fuzzing) */
	ok_has("SELECT sex, percentile_disc(0.5) WITHIN GROUP (ORDER BY h. desc) FROM hwanja h GROUP BY sex",
	       "CASE WHEN (h. desc) IS NOT NULL");
	ok_has("SELECT sex, count(DISTINCT zip_cd) FROM hwanja GROUP BY sex",
	       "count(DISTINCT CASE WHEN (zip_cd) IS NOT NULL THEN");
	/* a table without a patient key, joined on a counted table's unique key, has its patients */
	ok_has("SELECT c.department, avg(l.result) FROM labs l JOIN cases c ON l.caseid = c.caseid GROUP BY 1",
	       "LEAST(count(DISTINCT \"c\".\"subjectid\"), count(DISTINCT CASE WHEN (l.result) IS NOT NULL THEN \"c\".\"subjectid\" END), ");
	ok_has("SELECT department, avg(result) FROM labs JOIN cases USING (caseid) GROUP BY department", "\"cases\".\"subjectid\"");
	ok_has("SELECT c.department, count(*) FROM cases c, labs l WHERE c.caseid = l.caseid AND l.name = 'lac' GROUP BY 1",
	       "count(DISTINCT \"c\".\"subjectid\")");
	/* a code list joined for its labels */
	ok_has("SELECT k.kcd_nm, count(DISTINCT d.subject_id) FROM jindan d JOIN cm_kcd k ON k.kcd_cd = d.sick_cd GROUP BY k.kcd_nm",
	       "HAVING LEAST(");
}

/* a sum or an average of a 0/1 flag is a count of the flagged: the patients with a value other than
 * zero must be k, and those with zero none or k (issue 27, "Sums and averages") */
static void test_rewrite_minority_rule(void **state)
{
	(void)state;
	ok_is("SELECT sex, sum(smoker) FROM hwanja GROUP BY sex",
	      "SELECT LEAST(" H ", count(DISTINCT CASE WHEN (smoker) IS NOT NULL THEN \"hwanja\".\"subject_id\" END), "
	      "count(DISTINCT CASE WHEN (smoker) <> '0' THEN \"hwanja\".\"subject_id\" END), "
	      "NULLIF(count(DISTINCT CASE WHEN (smoker) = '0' THEN \"hwanja\".\"subject_id\" END), 0)) AS askql_n, "
	      "sex, sum(smoker) FROM hwanja GROUP BY sex HAVING LEAST(" H ", "
	      "count(DISTINCT CASE WHEN (smoker) IS NOT NULL THEN \"hwanja\".\"subject_id\" END), "
	      "count(DISTINCT CASE WHEN (smoker) <> '0' THEN \"hwanja\".\"subject_id\" END), "
	      "NULLIF(count(DISTINCT CASE WHEN (smoker) = '0' THEN \"hwanja\".\"subject_id\" END), 0)) >= 11");
	/* a flag made with CASE on a column that is no identifier, an average, a percentile: the same */
	ok_has("SELECT h.sex, sum(CASE WHEN d.sick_cd = 'X70' THEN 1 ELSE 0 END) FROM jindan d JOIN hwanja h USING (subject_id) GROUP BY 1",
	       "count(DISTINCT CASE WHEN (CASE WHEN d.sick_cd = 'X70' THEN 1 ELSE 0 END) <> '0' THEN \"d\".\"subject_id\" END)");
	ok_has("SELECT sex, avg(smoker) FROM hwanja GROUP BY sex",
	       "NULLIF(count(DISTINCT CASE WHEN (smoker) = '0' THEN \"hwanja\".\"subject_id\" END), 0)");
	ok_has("SELECT sex, stddev(age) FROM hwanja GROUP BY sex", "CASE WHEN (age) <> '0' THEN");
	ok_has("SELECT sex, variance(age) FROM hwanja GROUP BY sex", "CASE WHEN (age) <> '0' THEN");
	/* percentile_disc takes any type ('0' is no date): its values are counted, no zero rule */
	{
		char *s = rw("SELECT sex, percentile_disc(0.5) WITHIN GROUP (ORDER BY brth_dt) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL);

		assert_null(strstr(s, "<> '0'"));
		assert_non_null(strstr(s, "CASE WHEN (brth_dt) IS NOT NULL"));
		free(s);
	}
	/* one argument, one set of terms, each side of a self-join counted */
	ok_has("SELECT a.sex, sum(a.age), avg(a.age) FROM hwanja a JOIN hwanja b ON a.sex = b.sex GROUP BY 1",
	       "count(DISTINCT CASE WHEN (a.age) <> '0' THEN \"b\".\"subject_id\" END)");
	{
		char *s = rw("SELECT sex, sum(age), avg(age) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL);
		const char *p = strstr(s, "<> '0'");

		assert_non_null(p);
		/* twice: the count column and the HAVING, not once more for the second aggregate */
		assert_non_null(p = strstr(p + 1, "<> '0'"));
		assert_null(strstr(p + 1, "<> '0'"));
		free(s);
	}
	/* a count of values needs no minority rule: its non-null values are the patients counted */
	{
		char *s = rw("SELECT sex, count(CASE WHEN age > 60 THEN 1 END) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL);

		assert_null(strstr(s, "<> '0'"));
		assert_non_null(strstr(s, "CASE WHEN (CASE WHEN age > 60 THEN 1 END) IS NOT NULL"));
		free(s);
	}
}

static void test_rewrite_round_for_release(void **state)
{
	char *s;

	(void)state;
	s = rw_round("SELECT ward_cd, count(*), count(DISTINCT subject_id) AS patients FROM ipwon GROUP BY 1 ORDER BY count(*) DESC",
	             5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, ", ward_cd, (round(count(*)::numeric / 5) * 5)::bigint AS count, "
	                          "(round(count(DISTINCT subject_id)::numeric / 5) * 5)::bigint AS patients FROM ipwon"));
	assert_non_null(strstr(s, "ORDER BY (round(count(*)::numeric / 5) * 5)::bigint DESC"));
	/* the patients counted for HAVING are exact */
	assert_non_null(strstr(s, "HAVING LEAST(count(DISTINCT \"ipwon\".\"subject_id\"), "));
	free(s);
	/* a percentage is made of the rounded count; an average is not a count */
	s = rw_round("SELECT sex, round(100.0 * count(*) / 45, 1) AS pct, avg(age) FROM hwanja GROUP BY sex HAVING count(*) > 3",
	             5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, "round(100.0 * (round(count(*)::numeric / 5) * 5)::bigint / 45, 1) AS pct, avg(age)"));
	assert_non_null(strstr(s, "HAVING ((round(count(*)::numeric / 5) * 5)::bigint > 3) AND"));
	free(s);
	s = rw_round("select sex, count(*)from hwanja group by 1", 5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, "(round(count(*)::numeric / 5) * 5)::bigint "));
	assert_non_null(strstr(s, " AS count from hwanja"));
	free(s);
	s = rw_round("SELECT sex, count(*)::int FROM hwanja GROUP BY sex", 5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, "(round(count(*)::numeric / 5) * 5)::bigint::int AS count FROM"));
	free(s);
	/* a sum is rounded like a count (a sum of a 0/1 flag is one), where shown and where compared,
	 * and keeps its name; an average is not rounded */
	s = rw_round("SELECT sex, sum(smoker), sum(age) AS years, avg(age) FROM hwanja GROUP BY sex HAVING sum(age) > 100 ORDER BY sum(smoker)",
	             5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, ", sex, (round(sum(smoker)::numeric / 5) * 5) AS sum, (round(sum(age)::numeric / 5) * 5) AS years, avg(age) FROM"));
	assert_non_null(strstr(s, "HAVING ((round(sum(age)::numeric / 5) * 5) > 100) AND LEAST("));
	assert_non_null(strstr(s, "ORDER BY (round(sum(smoker)::numeric / 5) * 5)"));
	free(s);
	/* no rounding asked (round 0 or 1): exact */
	s = rw_round("SELECT sex, sum(smoker) FROM hwanja GROUP BY sex", 1, OK, SUPP_OK, NULL);
	assert_null(strstr(s, "round("));
	free(s);
}

static void test_accepts_bands_and_results(void **state)
{
	(void)state;
	ok_has("SELECT date_trunc('month', ipwon_dt) AS m, ward_cd, count(*) FROM ipwon GROUP BY 1, 2", "GROUP BY 2, 3");
	ok_has("SELECT extract(year FROM ipwon_dt), count(*) FROM ipwon GROUP BY extract(year FROM ipwon_dt)", "HAVING");
	ok_has("SELECT floor(age / 10) * 10 AS band, count(*) FROM hwanja GROUP BY band ORDER BY band", "HAVING");
	ok_has("SELECT width_bucket(age, 0, 100, 10), count(*) FROM hwanja GROUP BY 1", "HAVING");
	ok_has("SELECT CASE WHEN age < 40 THEN 'young' ELSE 'old' END AS g, round(avg(age), 1) FROM hwanja GROUP BY 1", "HAVING");
	ok_has("SELECT left(zip_cd, 3), count(*) FROM hwanja GROUP BY left(zip_cd, 3)", "HAVING");
	ok_has("SELECT h.sex, w.ward_cd, count(*), sum(h.age), stddev(h.age), variance(h.age) FROM hwanja h JOIN ipwon w "
	       "ON w.subject_id = h.subject_id WHERE h.age BETWEEN 20 AND 80 AND w.ward_cd IN ('W0', 'W1') GROUP BY h.sex, w.ward_cd",
	       "HAVING");
	/* a condition inside an aggregate that tests no identifier; a grouped column named otherwise */
	ok_has("SELECT sex, sum(CASE WHEN age > 60 THEN 1 ELSE 0 END) FROM hwanja h GROUP BY h.sex", "HAVING");
	ok_has("SELECT count(DISTINCT subject_id), count(subject_id) FROM ipwon", "HAVING");
	ok_has("SELECT DISTINCT sex, count(*) FROM hwanja GROUP BY sex", "SELECT DISTINCT count(DISTINCT");
	ok_has("SELECT coalesce(sex, '?'), count(*) FROM hwanja GROUP BY coalesce(sex, '?')", "HAVING");
	ok_has("SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY age) FROM hwanja", "HAVING");
}

static void test_refuses_shapes(void **state)
{
	(void)state;
	no("SELECT subject_id, sex FROM hwanja", SUPP_NOT_AGGREGATE);
	no("SELECT 1; SELECT 2", SUPP_NOT_ONE_SELECT);
	no("DELETE FROM hwanja", SUPP_NOT_ONE_SELECT);
	no("SELECT sex, count(*) FROM hwanja GROUP BY sex UNION ALL SELECT ward_cd, count(*) FROM ipwon GROUP BY 1", SUPP_SET_OP);
	no("SELECT sex FROM hwanja EXCEPT SELECT sex FROM hwanja WHERE age > 90", SUPP_SET_OP);
	no("VALUES (1), (2)", SUPP_VALUES);
	/* a CTE under a table's name made every group look large (generate_series) */
	no("WITH hwanja AS (SELECT g AS subject_id, 'F' AS sex FROM generate_series(1, 11) g) "
	   "SELECT sex, count(*) FROM hwanja GROUP BY sex", SUPP_CTE);
	no("SELECT sex, count(*), (SELECT max(age) FROM hwanja) FROM hwanja GROUP BY sex", SUPP_SUBQUERY);
	no("SELECT sex, ARRAY(SELECT ptnt_nm FROM hwanja) FROM hwanja GROUP BY sex", SUPP_SUBQUERY);
	no("SELECT sex, count(*) FROM hwanja WHERE subject_id IN (SELECT subject_id FROM jindan WHERE sick_cd = 'F20.0') GROUP BY sex",
	   SUPP_SUBQUERY);
	no("SELECT count(*) FROM hwanja h WHERE EXISTS (SELECT 1 FROM jindan d WHERE d.subject_id = h.subject_id)", SUPP_SUBQUERY);
	no("SELECT count(*) FROM (SELECT * FROM hwanja) q", SUPP_SUBQUERY);
	no("SELECT h.sex, count(*) FROM hwanja h, LATERAL (SELECT * FROM ipwon w WHERE w.subject_id = h.subject_id LIMIT 1) x GROUP BY 1",
	   SUPP_LATERAL);
	no("SELECT count(*) FROM hwanja, generate_series(1, 11) g", SUPP_FROM_FUNCTION);
	no("SELECT count(*) FROM hwanja h, LATERAL unnest(ARRAY[h.age]) u", SUPP_LATERAL);
	no("SELECT sex, count(*) FROM hwanja TABLESAMPLE SYSTEM (50) GROUP BY sex", SUPP_FROM_OTHER);
	no("SELECT ward_cd, count(*) FROM hwanja NATURAL JOIN ipwon GROUP BY 1", SUPP_NATURAL);
	no("SELECT sex, count(*) OVER () FROM hwanja", SUPP_WINDOW);
	no("SELECT sex, count(*), sum(count(*)) OVER () FROM hwanja GROUP BY sex", SUPP_WINDOW);
	no("SELECT sex, count(*) FROM hwanja GROUP BY sex WINDOW w AS (PARTITION BY sex)", SUPP_WINDOW);
	no("SELECT sex, generate_series(1, count(*)::int) FROM hwanja GROUP BY sex", SUPP_SRF);
	no("SELECT DISTINCT ON (sex) sex, age FROM hwanja", SUPP_DISTINCT_ON);
	no("SELECT ward_cd, count(*) FROM ipwon GROUP BY ROLLUP (ward_cd)", SUPP_GROUPING_SETS);
	no("SELECT sex, ward_cd, count(*) FROM hwanja JOIN ipwon USING (subject_id) GROUP BY CUBE (sex, ward_cd)", SUPP_GROUPING_SETS);
	no("SELECT h.*, count(*) FROM hwanja h GROUP BY h.subject_id", SUPP_STAR);
	rw("SELECT count(*) FROM", ERR_PARSE, SUPP_PARSE, NULL);
}

static void test_refuses_groups_and_aggregates(void **state)
{
	(void)state;
	/* grouping by an identifier: a patient key, an episode key by name, a unique key of persons' rows */
	no("SELECT subject_id, count(*) FROM ipwon GROUP BY subject_id", SUPP_GROUP_IDENT);
	no("SELECT x.caseid, x.age, x.sex, count(*) FROM cases k JOIN cases x ON k.sex = x.sex GROUP BY x.caseid, x.age, x.sex",
	   SUPP_GROUP_IDENT);
	no("SELECT jindan_seq, count(*) FROM jindan GROUP BY 1", SUPP_GROUP_IDENT);
	no("SELECT sid, count(*) FROM (VALUES (1)) v(sid) GROUP BY 1", SUPP_SUBQUERY);
	no("SELECT subject_id % 2, count(*) FROM hwanja GROUP BY 1", SUPP_GROUP_IDENT);
	no("SELECT age + los, count(*) FROM cases GROUP BY 1", SUPP_GROUP_SHAPE);
	no("SELECT md5(sex), count(*) FROM hwanja GROUP BY 1", SUPP_GROUP_SHAPE);
	no("SELECT CASE WHEN age > 80 THEN sex END, count(*) FROM hwanja GROUP BY 1", SUPP_GROUP_SHAPE);
	no("SELECT count(*) FROM hwanja GROUP BY 7", SUPP_GROUP_SHAPE);
	/* aggregates: one row's value, each row's value, part of a group, outside the list */
	no("SELECT department, max(CASE WHEN caseid = 1 THEN age END) FROM cases GROUP BY department", SUPP_AGG_EXTREME);
	no("SELECT sex, min(brth_dt) FROM hwanja GROUP BY sex", SUPP_AGG_EXTREME);
	no("SELECT sex, bool_or(age > 90) FROM hwanja GROUP BY sex", SUPP_AGG_EXTREME);
	no("SELECT sex, mode() WITHIN GROUP (ORDER BY age) FROM hwanja GROUP BY sex", SUPP_AGG_EXTREME);
	no("SELECT sex, string_agg(ptnt_nm, ',') FROM hwanja GROUP BY sex", SUPP_AGG_LISTS);
	no("SELECT sex, pg_catalog.json_agg(age) FROM hwanja GROUP BY sex", SUPP_AGG_LISTS);
	no("SELECT sex, array_agg(age ORDER BY age) FROM hwanja GROUP BY sex", SUPP_AGG_LISTS);
	no("SELECT count(*) FILTER (WHERE patient_id = 5 AND sick_cd = 'X70') FROM jindan", SUPP_AGG_FILTER);
	no("SELECT sex, count(*) FILTER (WHERE age > 90) FROM hwanja GROUP BY sex", SUPP_AGG_FILTER);
	no("SELECT sex, corr(age, age) FROM hwanja GROUP BY sex", SUPP_AGG_OTHER);
	no("SELECT sex, rank(93) WITHIN GROUP (ORDER BY age) FROM hwanja GROUP BY sex", SUPP_AGG_OTHER);
	no("SELECT sex, sum(age ORDER BY age) FROM hwanja GROUP BY sex", SUPP_AGG_ORDER);
	no("SELECT sex, sum(1) FROM hwanja GROUP BY sex", SUPP_AGG_OTHER);   /* a count past the rounding */
	no("SELECT count(x := age) FROM hwanja", SUPP_AGG_OTHER);   /* an argument by name: no text of its own to count */
	no("SELECT percentile_disc(1) WITHIN GROUP (ORDER BY age) FROM hwanja", SUPP_PERCENTILE);
	no("SELECT percentile_disc(0) WITHIN GROUP (ORDER BY age) FROM hwanja", SUPP_PERCENTILE);
	no("SELECT percentile_disc(0.05) WITHIN GROUP (ORDER BY age) FROM hwanja", SUPP_PERCENTILE);
	no("SELECT percentile_disc(0.95) WITHIN GROUP (ORDER BY age) FROM hwanja", SUPP_PERCENTILE);
	no("SELECT percentile_disc(ARRAY[0.5, 1]) WITHIN GROUP (ORDER BY age) FROM hwanja", SUPP_PERCENTILE);
	no("SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY subject_id) FROM hwanja", SUPP_IDENT);
	/* a fraction that can be moved a little at a time finds where the answer changes: the group's size */
	no("SELECT percentile_disc(0.37) WITHIN GROUP (ORDER BY smoker) FROM hwanja", SUPP_PERCENTILE);
	no("SELECT percentile_disc(0.501) WITHIN GROUP (ORDER BY smoker) FROM hwanja", SUPP_PERCENTILE);
	/* an interpolation between two patients' values says where they stand: the group's size */
	no("SELECT sex, percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM hwanja GROUP BY sex", SUPP_INTERPOLATE);
}

static void test_refuses_identifiers_and_results(void **state)
{
	struct suppress_refusal why;

	(void)state;
	/* an identifier: counted, or joined on, nothing else */
	rw("SELECT department, sum(CASE WHEN caseid = 1 THEN age ELSE 0 END) FROM cases GROUP BY department", ERR_DENIED, SUPP_IDENT, &why);
	assert_string_equal(why.arg, "caseid");
	assert_int_equal(why.position, 34);
	no("SELECT sex, count(*) FROM hwanja WHERE subject_id = 5 GROUP BY sex", SUPP_IDENT);
	no("SELECT count(*) FROM jindan WHERE subject_id IN (5, 6) AND sick_cd = 'X70'", SUPP_IDENT);
	no("SELECT x.sex, count(*) FROM cases k JOIN cases x ON k.caseid <= 11 GROUP BY x.sex", SUPP_IDENT);
	no("SELECT sex, sum(subject_id) FROM hwanja GROUP BY sex", SUPP_IDENT);
	no("SELECT sex, count(DISTINCT CASE WHEN subject_id = 5 THEN sex END) FROM hwanja GROUP BY sex", SUPP_IDENT);
	no("SELECT sex, avg(age) FROM hwanja h JOIN ipwon w ON h.subject_id = w.subject_id OR w.ipwon_seq = 1 GROUP BY sex", SUPP_IDENT);
	/* results: grouped, aggregated, or functions on those */
	no("SELECT sex, age, count(*) FROM hwanja GROUP BY sex", SUPP_ITEM);
	no("SELECT sex, count(*) FROM hwanja GROUP BY sex ORDER BY age", SUPP_ITEM);
	no("SELECT sex, md5(string_agg(ptnt_nm, '')) FROM hwanja GROUP BY sex", SUPP_FUNCTION);
	no("SELECT sex, count(*) FROM hwanja GROUP BY sex HAVING max(age) > 90", SUPP_AGG_EXTREME);
	no("SELECT sex, myagg(age) FROM hwanja GROUP BY sex", SUPP_FUNCTION);
}

static void test_refuses_tables(void **state)
{
	struct suppress_refusal why;

	(void)state;
	rw("SELECT kcd_nm, count(*) FROM cm_kcd GROUP BY 1", ERR_DENIED, SUPP_NO_KEY, &why);
	assert_string_equal(why.arg, "patient_id, subject_id, subjectid");
	/* lab rows beside an unrelated count of patients: each lab row would be its own group of 11 */
	rw("SELECT l.dt, l.name, l.result, count(*) FROM cases c JOIN labs l ON true GROUP BY 1, 2, 3", ERR_DENIED, SUPP_UNLINKED, &why);
	assert_string_equal(why.arg, "labs");
	no("SELECT l.name, avg(l.result) FROM labs l JOIN cases c ON l.result = c.age GROUP BY 1", SUPP_UNLINKED);
	no("SELECT l.name, avg(l.result) FROM cases c JOIN labs l ON c.age > 0 GROUP BY 1", SUPP_UNLINKED);
	/* joined on a column that is not unique there: one lab row meets many cases */
	no("SELECT l.name, avg(l.result) FROM labs l JOIN cases c ON l.name = c.department GROUP BY 1", SUPP_UNLINKED);
	/* too many tables for the check */
	{
		char sql[4096] = "SELECT count(*) FROM hwanja t0";

		for (int i = 1; i < 40; i++)
			snprintf(sql + strlen(sql), sizeof sql - strlen(sql), " JOIN hwanja t%d USING (subject_id)", i);
		no(sql, SUPP_TOO_LARGE);
	}
}

/* without the database: the form as far as the SQL tells (the run page's offer) */
static void test_form_only(void **state)
{
	struct suppress_opts o = {keys, 3, NULL, 11, 0, 0, 0};
	struct suppress_refusal why;
	char *out = (char *)1;

	(void)state;
	assert_int_equal(suppress_rewrite("SELECT ward_cd, count(*) FROM ipwon GROUP BY 1", &o, &out, &why), OK);
	assert_null(out);
	assert_int_equal(suppress_rewrite("SELECT kcd_nm, count(*) FROM cm_kcd GROUP BY 1", &o, NULL, &why), OK);
	assert_int_equal(suppress_rewrite("SELECT subject_id, count(*) FROM ipwon GROUP BY 1", &o, NULL, &why), ERR_DENIED);
	assert_int_equal(why.code, SUPP_GROUP_IDENT);
	assert_int_equal(suppress_rewrite("SELECT subject_id, ward_cd FROM ipwon", &o, NULL, &why), ERR_DENIED);
	assert_int_equal(why.code, SUPP_NOT_AGGREGATE);
}

/* tag: the draw's tag of the first numerator in s (":<tag>:1'"), into buf */
static const char *tag(const char *s, char *buf, size_t n)
{
	const char *p = strstr(s, "::text || ':");

	assert_non_null(p);
	p += strlen("::text || ':");
	snprintf(buf, n, "%.*s", (int)strcspn(p, ":"), p);
	return buf;
}

/* the release's noise (issue 27, differencing): the measures whose noise cannot be cancelled, and
 * the rewrite that perturbs sums and averages by the patients' cell key and coarsens spreads */
static void test_release_noise(void **state)
{
	char *s, *t;
	char a[32], b[32];

	(void)state;
	noise_on = 1;
	/* a constant added to a measure: avg(f + 1000) less avg(1000 + 0 * age) would take the noise
	 * off; a scaled constant is a count times 1000 */
	no("SELECT sex, sum(age * 0 + 1000) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(smoker + 1000) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(age - age + 1) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(CAST(age + 1000 AS int)) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(CASE WHEN age > 60 THEN 1001 ELSE 1000 END) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(CASE smoker WHEN 1 THEN 1 ELSE 0 END) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(age * 0) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, sum(DISTINCT age) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(abs(age)) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	/* the measures analysts ask for stay in the form */
	free(rw("SELECT sex, avg(CAST(smoker = 1 AS int)) * 100 FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL));
	free(rw("SELECT sex, avg(CASE WHEN age > 60 THEN 1 ELSE 0 END) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL));
	free(rw("SELECT sex, avg(CASE WHEN zip_cd LIKE '1%' THEN age END), avg(extract(day FROM brth_dt)) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL));
	no("SELECT sex, avg(brth_dt - date '2000-01-01') FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	no("SELECT sex, avg(CASE WHEN age > 60 THEN age ELSE 1000 END) FROM hwanja GROUP BY sex", SUPP_AGG_ARG);
	free(rw("SELECT sex, avg(date_part('epoch', out_dt - in_dt) / 60) FROM ipwon JOIN hwanja USING (subject_id) GROUP BY sex", OK, SUPP_OK, NULL));
	free(rw("SELECT sex, avg(out_dt - in_dt), sum(age * 2), avg(age::numeric) FROM ipwon JOIN hwanja USING (subject_id) GROUP BY sex", OK, SUPP_OK, NULL));
	/* an average: the total with one patient's worth of noise over the count with its own; named avg */
	s = rw_round("SELECT sex, avg(age) FROM hwanja GROUP BY sex", 5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, ", sex, ((sum(age) + ((hashtextextended((coalesce(sum(DISTINCT CASE WHEN (age) <> '0' "
	                          "THEN hashtextextended((\"hwanja\".\"subject_id\")::text, 42) END), 0))::text || ':"));
	assert_non_null(strstr(s, " * coalesce(avg(greatest((age), -(age))) FILTER (WHERE (age) <> '0'), sum(age) * 0)) / NULLIF(count(age) + "
	                          "((hashtextextended((coalesce(sum(DISTINCT CASE WHEN (age) IS NOT NULL THEN "));
	assert_non_null(strstr(s, ":0:1', 42) % 1000000 + "));
	assert_non_null(strstr(s, ") AS avg FROM hwanja"));
	free(s);
	/* a sum: perturbed the same way, then rounded */
	s = rw_round("SELECT sex, sum(age) AS years FROM hwanja GROUP BY sex HAVING sum(age) > 100", 5, OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, ", sex, (round((sum(age) + ((hashtextextended("));
	assert_non_null(strstr(s, "FILTER (WHERE (age) <> '0'), sum(age) * 0)) / 5) * 5) AS years FROM"));
	assert_non_null(strstr(s, "HAVING ((round((sum(age) + "));
	free(s);
	/* the draw is the measure's columns' whatever the alias or a scale; another column, another draw */
	t = rw("SELECT sex, avg(h.age * 2) FROM hwanja h GROUP BY sex", OK, SUPP_OK, NULL);
	s = rw("SELECT sex, avg(age) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL);
	assert_string_equal(tag(s, a, sizeof a), tag(t, b, sizeof b));
	free(t);
	t = rw("SELECT sex, avg(smoker) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL);
	assert_string_not_equal(tag(s, a, sizeof a), tag(t, b, sizeof b));
	free(t);
	free(s);
	/* a spread to two significant digits (a sample's over a population's is n / (n - 1)) */
	s = rw("SELECT sex, stddev(age), var_pop(age) FROM hwanja GROUP BY sex", OK, SUPP_OK, NULL);
	assert_non_null(strstr(s, "(CASE WHEN (stddev(age)) = 0 THEN 0 ELSE round((stddev(age))::numeric, 1 - floor(log(abs((stddev(age))::numeric)))::int) END) AS stddev"));
	assert_non_null(strstr(s, "END) AS var_pop FROM"));
	free(s);
	/* a count is rounded only; percentile_disc is a value a patient has */
	s = rw_round("SELECT sex, count(*), percentile_disc(0.5) WITHIN GROUP (ORDER BY age) FROM hwanja GROUP BY sex", 5, OK, SUPP_OK, NULL);
	assert_null(strstr(s, "hashtextextended"));
	free(s);
	noise_on = 0;
}

static void test_reasons(void **state)
{
	struct suppress_refusal why = {SUPP_AGG_LISTS, "string_agg", 12};
	struct sb b = SB_INIT;
	char err[256];

	(void)state;
	suppress_reason(&why, &b);
	assert_string_equal(sb_cstr(&b), "string_agg lists each row's value, whatever the size of the group; count or summarise instead");
	sb_free(&b);
	why.code = SUPP_NOT_AGGREGATE;
	suppress_reason(&why, &b);
	assert_non_null(strstr(sb_cstr(&b), "only aggregate results may be read"));
	sb_free(&b);
	/* every reason, and the executor's two openings, has its Korean */
	assert_int_equal(decline_words_load("conf/i18n", err, sizeof err), OK);
	for (int c = 1; c < SUPP__MAX; c++)
		if (!decline_words_has("ko", suppress_format((enum suppress_code)c)))
			fail_msg("conf/i18n/ko.decline.tsv has no line for: %s", suppress_format((enum suppress_code)c));
	assert_true(decline_words_has("ko", "at the aggregate level: %s"));
	assert_true(decline_words_has("ko", "for release: %s"));
	decline_words("ko", "for release: GROUP BY subject_id makes a group of each patient or episode of care; group by a category "
	                    "or a band of dates or ages instead", &b);
	assert_non_null(strstr(sb_cstr(&b), "subject_id"));
	assert_null(strstr(sb_cstr(&b), "makes a group"));
	sb_free(&b);
	decline_words_free();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewrite_counts_and_having),
		cmocka_unit_test(test_rewrite_every_reference_counted),
		cmocka_unit_test(test_rewrite_minority_rule),
		cmocka_unit_test(test_rewrite_round_for_release),
		cmocka_unit_test(test_accepts_bands_and_results),
		cmocka_unit_test(test_refuses_shapes),
		cmocka_unit_test(test_refuses_groups_and_aggregates),
		cmocka_unit_test(test_refuses_identifiers_and_results),
		cmocka_unit_test(test_refuses_tables),
		cmocka_unit_test(test_form_only),
		cmocka_unit_test(test_release_noise),
		cmocka_unit_test(test_reasons),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
