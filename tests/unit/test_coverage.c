/* test_coverage.c: the coverage check (agent/coverage.h) per kind of drop, on the SQL the offline planner wrote before the check existed (issue 26) and on the right SQL. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "agent/coverage.h"

static struct cov_item *item(struct cov_reading *r, enum cov_need need, const char *span, const char *col,
                             const char *val)
{
	struct cov_item *it = &r->v[r->n++];
	memset(it, 0, sizeof *it);
	it->need = need;
	it->span = span;
	it->columns[it->ncolumns++] = col;
	if (val)
		it->values[it->nvalues++] = val;
	return it;
}

/* findings of sql against r: the number, the first kind in *first */
static int check(const struct cov_reading *r, const char *sql, enum cov_drop *first)
{
	struct cov_finding f[8];
	int n = -1;
	assert_int_equal(coverage_check(r, sql, f, 8, &n), OK);
	*first = n ? f[0].drop : DROP_NONE;
	return n;
}

/* 복강경 수술 건수: the value was linked (approach = 'Videoscopic') and then not used */
static void test_linked_value_unused(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	item(&r, COV_VALUE, "복강경", "approach", "Videoscopic");
	assert_int_equal(check(&r, "SELECT COUNT(DISTINCT clinical_data_table.caseid) AS count FROM clinical_data_table", &d), 1);
	assert_int_equal(d, DROP_VALUE);
	assert_int_equal(check(&r, "SELECT COUNT(*) FROM clinical_data_table WHERE approach = 'Videoscopic'", &d), 0);
	/* case and qualification do not matter; an IN list and a join's ON count as filters */
	assert_int_equal(check(&r, "SELECT count(*) FROM clinical_data_table c WHERE c.APPROACH IN ('Robotic', 'videoscopic')", &d), 0);
	assert_int_equal(check(&r, "SELECT count(*) FROM t JOIN clinical_data_table c ON c.caseid = t.caseid AND c.approach = 'Videoscopic'", &d), 0);
	/* the value on another column is not this value */
	assert_int_equal(check(&r, "SELECT count(*) FROM clinical_data_table WHERE opname = 'Videoscopic'", &d), 1);
	/* a part of stored labels: ILIKE '%v%' */
	struct cov_reading c = {0};
	item(&c, COV_VALUE, "심부전", "label", "heart failure")->contains = 1;
	assert_int_equal(check(&c, "SELECT count(*) FROM d WHERE label ILIKE '%heart failure%'", &d), 0);
	assert_int_equal(check(&c, "SELECT count(*) FROM d", &d), 1);
}

/* 수술 전 크레아티닌 1.5 이상인 환자 수: the window was dropped (the planner's SQL before event windows) */
static void test_window_dropped(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	item(&r, COV_WINDOW, "수술 전", "opstart", NULL)->columns[1] = "opend";
	r.v[0].ncolumns = 2;
	assert_int_equal(check(&r, "SELECT COUNT(DISTINCT clinical_data_table.subjectid) AS count FROM lab_data_table JOIN "
	                           "clinical_data_table ON lab_data_table.caseid = clinical_data_table.caseid WHERE "
	                           "lab_data_table.name = 'cr' AND lab_data_table.result >= 1.5", &d), 1);
	assert_int_equal(d, DROP_WINDOW);
	assert_int_equal(check(&r, "SELECT count(DISTINCT c.subjectid) FROM lab_data_table l JOIN clinical_data_table c ON "
	                           "l.caseid = c.caseid WHERE l.name = 'cr' AND l.result >= 1.5 AND l.dt < c.opstart", &d), 0);
	/* the event's column compared with a constant is no window */
	assert_int_equal(check(&r, "SELECT count(*) FROM clinical_data_table c WHERE c.opstart < '2025-01-01'", &d), 1);
	/* either side, and inside a join's ON */
	assert_int_equal(check(&r, "SELECT count(*) FROM lab_data_table l JOIN clinical_data_table c ON c.caseid = l.caseid "
	                           "AND c.opend < l.dt", &d), 0);
}

/* "A 중 B 비율": a share asked and a count computed (the rate lost on the way to SQL) */
static void test_share_dropped(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	(void)state;
	item(&r, COV_SHARE, "비율", NULL, NULL);
	assert_int_equal(check(&r, "SELECT count(DISTINCT m.stay) FROM measures m JOIN stays s ON m.stay = s.stay "
	                           "WHERE m.value < 90", &d), 1);
	assert_int_equal(d, DROP_SHARE);
	/* a division, an average of a condition or of a 0/1 flag: each computes a share */
	assert_int_equal(check(&r, "SELECT 100.0 * count(*) FILTER (WHERE x = 1) / count(*) FROM stays", &d), 0);
	assert_int_equal(check(&r, "SELECT avg((x = 1)::int) FROM stays WHERE y = 1", &d), 0);
	assert_int_equal(check(&r, "SELECT avg(died) FROM stays", &d), 0);
	/* a count of those with the condition is no share, however filtered */
	assert_int_equal(check(&r, "SELECT count(*) FILTER (WHERE x = 1), count(*) FROM stays", &d), 1);
}

/* "patients with the most visits, top 4": a count of distinct patients per patient is 1 for every
 * group, whatever the question was */
static void test_count_of_one(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	struct cov_finding f[4];
	int n = 0;
	(void)state;
	assert_int_equal(check(&r, "SELECT p.src, count(DISTINCT c.person_id) FROM cond c JOIN person p ON c.person_id = p.person_id "
	                           "GROUP BY p.src, c.person_id", &d), 1);
	assert_int_equal(d, DROP_COUNT_ONE);
	assert_int_equal(coverage_check(&r, "SELECT person_id, count(DISTINCT person_id) FROM visits GROUP BY person_id", f, 4, &n), OK);
	assert_int_equal(n, 1);
	assert_string_equal(f[0].counted, "person_id");
	char *say = coverage_say(&r, f, n);
	assert_non_null(strstr(say, "every count is 1"));
	free(say);
	/* visits per patient, patients per department, a distinct count in a subquery: all fine */
	assert_int_equal(check(&r, "SELECT person_id, count(*) FROM visits GROUP BY person_id", &d), 0);
	assert_int_equal(check(&r, "SELECT dept, count(DISTINCT person_id) FROM visits GROUP BY dept", &d), 0);
	assert_int_equal(check(&r, "SELECT v.person_id, (SELECT count(DISTINCT person_id) FROM visits) FROM visits v GROUP BY v.person_id", &d), 0);
	/* the same name of another table is another column */
	assert_int_equal(check(&r, "SELECT a.person_id, count(DISTINCT b.person_id) FROM a JOIN b ON a.k = b.k GROUP BY a.person_id", &d), 0);
}

/* 진료과별 성별 환자 수: the second breakdown was dropped */
static void test_lost_grouping(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	item(&r, COV_GROUP, "진료과별", "department", NULL);
	item(&r, COV_GROUP, "성별", "sex", NULL);
	assert_int_equal(check(&r, "SELECT clinical_data_table.department, COUNT(DISTINCT clinical_data_table.subjectid) AS count "
	                           "FROM clinical_data_table GROUP BY clinical_data_table.department", &d), 1);
	assert_int_equal(d, DROP_GROUP);
	assert_int_equal(check(&r, "SELECT department, sex, count(DISTINCT subjectid) FROM clinical_data_table GROUP BY department, sex", &d), 0);
	/* by position and by output name */
	assert_int_equal(check(&r, "SELECT department, sex AS s, count(*) FROM clinical_data_table GROUP BY 1, s", &d), 0);
	/* a band of the column groups it */
	struct cov_reading b = {0};
	item(&b, COV_GROUP, "월별", "opstart", NULL);
	assert_int_equal(check(&b, "SELECT date_trunc('month', opstart) AS m, count(*) FROM c GROUP BY 1 ORDER BY 1", &d), 0);
	/* a list with no aggregate shows each row of the column: no GROUP BY needed */
	assert_int_equal(check(&b, "SELECT opstart, caseid FROM c ORDER BY opstart", &d), 0);
	assert_int_equal(check(&b, "SELECT count(*) FROM c", &d), 1);
}

/* 여자 환자 중 당뇨 있는 환자 비율: AVG(sex = 'F') WHERE preop_dm = 1 is the share of diabetics who are women */
static void test_inverted_denominator(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	item(&r, COV_RATE_BASE, "여자", "sex", "F");
	item(&r, COV_RATE_PART, "당뇨", "preop_dm", NULL);
	assert_int_equal(check(&r, "SELECT ROUND((AVG(CAST(clinical_data_table.sex = 'F' AS int)) * 100), 2) AS rate_percent "
	                           "FROM clinical_data_table WHERE clinical_data_table.preop_dm = 1", &d), 1);
	assert_int_equal(d, DROP_DENOMINATOR);
	assert_int_equal(check(&r, "SELECT ROUND(AVG(CAST(preop_dm = 1 AS int)) * 100, 2) FROM clinical_data_table WHERE sex = 'F'", &d), 0);
	/* FILTER and two scalar subqueries are the same shape */
	assert_int_equal(check(&r, "SELECT 100.0 * count(*) FILTER (WHERE preop_dm = 1) / count(*) FROM c WHERE sex = 'F'", &d), 0);
	assert_int_equal(check(&r, "SELECT 100.0 * (SELECT count(*) FROM c WHERE sex = 'F' AND preop_dm = 1) / "
	                           "(SELECT count(*) FROM c WHERE sex = 'F')", &d), 0);
	/* both only filtered: a count of women with diabetes, no share at all */
	assert_int_equal(check(&r, "SELECT count(*) FROM c WHERE sex = 'F' AND preop_dm = 1", &d), 1);
	assert_int_equal(d, DROP_DENOMINATOR);
	/* the part filtered as well: a share that is 100% whatever the data (the reading need not know) */
	struct cov_reading none = {0};
	assert_int_equal(check(&none, "SELECT department, AVG(CAST(death_inhosp = 1 AS int)) FROM c WHERE death_inhosp = 1 "
	                              "GROUP BY department", &d), 1);
	assert_int_equal(d, DROP_DENOMINATOR);
	assert_int_equal(check(&none, "SELECT department, AVG(CAST(death_inhosp = 1 AS int)) FROM c GROUP BY department", &d), 0);
	/* the base missing altogether */
	assert_int_equal(check(&r, "SELECT AVG(CAST(preop_dm = 1 AS int)) FROM c", &d), 1);
	assert_int_equal(d, DROP_VALUE);
}

/* 칼륨 5.5 이상인 여자 환자: a threshold put on another column still uses the number; a number
 * nowhere is a drop */
static void test_number_unused(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	r.v[r.n].need = COV_NUMBER;
	r.v[r.n].span = "65";
	r.v[r.n++].num = 65;
	assert_int_equal(check(&r, "SELECT count(*) FROM c WHERE age >= 65", &d), 0);
	assert_int_equal(check(&r, "SELECT count(*) FROM c WHERE age >= 65.0", &d), 0);
	assert_int_equal(check(&r, "SELECT count(*) FROM c WHERE t > now() - interval '65 days'", &d), 0);
	assert_int_equal(check(&r, "SELECT count(*) FROM c WHERE age >= 650", &d), 1);
	assert_int_equal(d, DROP_NUMBER);
	assert_int_equal(check(&r, "SELECT count(*) FROM c LIMIT 65", &d), 0);
}

/* 진료과와 성별에 따른 환자 수: grouped by sex and the patient id, 1,000+ groups of 1 */
static void test_identifier_grouped(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	r.entity_keys[r.nkeys++] = "subjectid";
	r.entity_keys[r.nkeys++] = "caseid";
	item(&r, COV_GROUP, "성별", "sex", NULL);
	assert_int_equal(check(&r, "SELECT sex, subjectid, COUNT(*) FROM clinical_data_table GROUP BY sex, subjectid", &d), 1);
	assert_int_equal(d, DROP_ENTITY_GROUPED);
	/* asked per patient: allowed; inside a subquery (patients with 3 cases or more): allowed */
	r.entity_grouping_asked = 1;
	assert_int_equal(check(&r, "SELECT sex, subjectid, COUNT(*) FROM clinical_data_table GROUP BY sex, subjectid", &d), 0);
	r.entity_grouping_asked = 0;
	assert_int_equal(check(&r, "SELECT sex, count(*) FROM (SELECT sex, subjectid FROM c GROUP BY sex, subjectid "
	                           "HAVING count(*) >= 3) x GROUP BY sex", &d), 0);
}

/* a named column not used; bad input */
static void test_column_and_errors(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	struct cov_finding f[2];
	int n;
	item(&r, COV_COLUMN, "마취 시간", "anend", NULL);
	assert_int_equal(check(&r, "SELECT avg(hr) FROM v", &d), 1);
	assert_int_equal(d, DROP_COLUMN);
	assert_int_equal(check(&r, "SELECT avg(anend - anstart) FROM c", &d), 0);
	assert_int_equal(coverage_check(&r, "SELEC nothing", f, 2, &n), ERR_PARSE);
	assert_int_equal(coverage_check(&r, "SELECT 1; SELECT 2", f, 2, &n), ERR_PARSE);
	assert_int_equal(coverage_check(NULL, "SELECT 1", f, 2, &n), ERR_INPUT);
	/* the sentence names the word and the column */
	assert_int_equal(coverage_check(&r, "SELECT 1", f, 2, &n), OK);
	char *s = coverage_say(&r, f, n);
	assert_non_null(strstr(s, "'마취 시간'"));
	assert_non_null(strstr(s, "anend"));
	free(s);
	assert_string_equal(coverage_drop_name(DROP_DENOMINATOR), "denominator");
}

/* 진료과별 수술 건수와 사망 건수: the planner counted the deaths alone (one count, the deaths' filter
 * on it); two counts are two output aggregates, a count and a FILTERed count */
static void test_measures_dropped(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	struct cov_finding f[2];
	int n;
	struct cov_item *it = item(&r, COV_MEASURES, "건수와 사망 건수", "", NULL);
	it->ncolumns = 0;
	it->num = 2;
	const char *wrong = "SELECT c.department, COUNT(DISTINCT c.caseid) AS count FROM clinical_data_table c "
	                    "WHERE c.death_inhosp = 1 GROUP BY c.department";
	assert_int_equal(check(&r, wrong, &d), 1);
	assert_int_equal(d, DROP_MEASURES);
	assert_int_equal(coverage_check(&r, wrong, f, 2, &n), OK);
	assert_int_equal(f[0].computed, 1);
	char *s = coverage_say(&r, f, n);
	assert_non_null(strstr(s, "2 measures ('건수와 사망 건수')"));
	free(s);
	assert_int_equal(check(&r, "SELECT department, COUNT(*), COUNT(*) FILTER (WHERE death_inhosp = 1) "
	                           "FROM clinical_data_table GROUP BY department", &d), 0);
	/* two scalar subqueries are two measures */
	assert_int_equal(check(&r, "SELECT (SELECT count(*) FROM c), (SELECT count(*) FROM c WHERE death_inhosp = 1)", &d), 0);
	/* the count a ranking orders by is no second output; nor is an aggregate inside another */
	assert_int_equal(check(&r, "SELECT dept, n FROM (SELECT dept, DENSE_RANK() OVER (ORDER BY COUNT(*) DESC) AS rk, "
	                           "COUNT(*) AS n FROM c GROUP BY dept) s WHERE rk <= 3", &d), 1);
	assert_int_equal(check(&r, "SELECT dept, COUNT(*) FROM c GROUP BY dept HAVING COUNT(*) > 2 ORDER BY COUNT(*)", &d), 1);
	/* a share with its two counts beside it is three */
	it->num = 3;
	assert_int_equal(check(&r, "SELECT ROUND(AVG(CAST(x = 1 AS int)) * 100, 2), SUM(CAST(x = 1 AS int)), COUNT(*) FROM c", &d), 0);
	assert_string_equal(coverage_drop_name(DROP_MEASURES), "measures");
}

/* "average age of patients with bmi over 30": the planner compared the age (the first numeric column
 * named) with 30 and averaged the bmi; every word and number was used */
static void test_number_on_other_column(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	item(&r, COV_NUMBER, "30", "bmi", NULL)->num = 30;
	assert_int_equal(check(&r, "SELECT AVG(bmi) FROM clinical_data_table WHERE age > 30", &d), 1);
	assert_int_equal(d, DROP_NUMBER_COLUMN);
	assert_int_equal(check(&r, "SELECT AVG(age) FROM clinical_data_table WHERE bmi > 30", &d), 0);
	assert_int_equal(check(&r, "SELECT AVG(age) FROM clinical_data_table WHERE 30 <= c.bmi", &d), 0);
	assert_int_equal(check(&r, "SELECT AVG(age) FROM clinical_data_table WHERE bmi BETWEEN 30 AND 40", &d), 0);
	assert_int_equal(check(&r, "SELECT AVG(age) FROM clinical_data_table", &d), 1);
	assert_int_equal(d, DROP_NUMBER);
}

/* "hemoglobin under 8 cases per month in 2024" counted cases with fewer than 8 tests, once for the
 * year: a period said per must be a time bucket of the GROUP BY */
static void test_bucket_dropped(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	struct cov_item *it = item(&r, COV_BUCKET, "per month", "", NULL);
	it->ncolumns = 0;
	assert_int_equal(check(&r, "SELECT COUNT(*) FROM (SELECT caseid FROM lab GROUP BY caseid HAVING COUNT(*) < 8) t", &d), 1);
	assert_int_equal(d, DROP_BUCKET);
	assert_int_equal(check(&r, "SELECT date_trunc('month', dt) AS month, COUNT(*) FROM lab GROUP BY 1", &d), 0);
	assert_int_equal(check(&r, "SELECT date_trunc('month', dt) AS month, COUNT(*) FROM lab GROUP BY month", &d), 0);
	assert_int_equal(check(&r, "SELECT EXTRACT(month FROM dt), COUNT(*) FROM lab GROUP BY EXTRACT(month FROM dt)", &d), 0);
	assert_int_equal(check(&r, "SELECT CAST(dt AS date), COUNT(*) FROM lab GROUP BY CAST(dt AS date)", &d), 0);
	assert_int_equal(check(&r, "SELECT dept, COUNT(*) FROM lab GROUP BY dept", &d), 1);
	/* a list (no aggregate) is left alone */
	assert_int_equal(check(&r, "SELECT dt, result FROM lab ORDER BY dt", &d), 0);
}

static void test_rank_dropped(void **state)
{
	struct cov_reading r = {0};
	enum cov_drop d;
	struct cov_item *it = item(&r, COV_RANK, "longest average", "", NULL);
	it->ncolumns = 0;
	/* one figure of all rows: the groups are not ranked (the superlative became MAX) */
	assert_int_equal(check(&r, "SELECT MAX(opend - opstart), AVG(opend - opstart) FROM cases", &d), 1);
	assert_int_equal(d, DROP_RANK);
	assert_int_equal(check(&r, "SELECT dept, MAX(icu_days), AVG(icu_days) FROM cases GROUP BY dept", &d), 1);
	/* ranked: ORDER BY, a rank window, or the extreme of a grouped subquery's averages */
	assert_int_equal(check(&r, "SELECT opname, AVG(opend - opstart) FROM cases GROUP BY opname ORDER BY 2 DESC LIMIT 1", &d), 0);
	assert_int_equal(check(&r, "SELECT opname FROM (SELECT opname, DENSE_RANK() OVER (ORDER BY AVG(bmi) DESC) AS rnk "
	                           "FROM cases GROUP BY opname) t WHERE rnk = 1", &d), 0);
	assert_int_equal(check(&r, "SELECT MAX(a) FROM (SELECT AVG(age) AS a FROM cases GROUP BY dept) t", &d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linked_value_unused), cmocka_unit_test(test_lost_grouping), cmocka_unit_test(test_share_dropped),
		cmocka_unit_test(test_inverted_denominator), cmocka_unit_test(test_number_unused),
		cmocka_unit_test(test_identifier_grouped), cmocka_unit_test(test_column_and_errors),
		cmocka_unit_test(test_window_dropped), cmocka_unit_test(test_count_of_one),
		cmocka_unit_test(test_measures_dropped), cmocka_unit_test(test_number_on_other_column),
		cmocka_unit_test(test_bucket_dropped), cmocka_unit_test(test_rank_dropped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
