/* test_suppress.c: the aggregate level's rewrite (sql/suppress.h): refusals with reasons, the count column, positional references. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "sql/suppress.h"

/* tables with a patient key: hwanja and ipwon have subject_id; cm_kcd has none */
static int has_col(void *ctx, const char *table, const char *col)
{
	(void)ctx;
	return (!strcmp(table, "hwanja") || !strcmp(table, "ipwon")) && !strcmp(col, "subject_id");
}

static const char *const keys[] = {"patient_id", "subject_id"};

static char *rw(const char *sql, enum err want, char *reason, size_t n)
{
	char *out = NULL;
	enum err rc = suppress_rewrite(sql, keys, 2, has_col, NULL, &out, reason, n);

	assert_int_equal(rc, want);
	if (want != OK)
		assert_null(out);
	return out;
}

static void test_rewrites(void **state)
{
	char reason[512], *s;

	(void)state;
	s = rw("SELECT sex, count(*) FROM hwanja GROUP BY sex", OK, reason, sizeof reason);
	assert_string_equal(s, "SELECT count(DISTINCT \"hwanja\".\"subject_id\") AS askql_n, sex, count(*) FROM hwanja GROUP BY sex");
	free(s);
	/* the alias qualifies the count; positional references move past the added column */
	s = rw("select w.ward_cd, count(*) from cm_kcd k, ipwon w group by 1 order by 2 desc, 1", OK, reason, sizeof reason);
	assert_string_equal(s, "select count(DISTINCT \"w\".\"subject_id\") AS askql_n, w.ward_cd, count(*) from cm_kcd k, ipwon w "
	                       "group by 2 order by 3 desc, 2");
	free(s);
	/* through a join; an aggregate without GROUP BY is one group */
	s = rw("SELECT avg(age) FROM cm_kcd JOIN hwanja h ON true", OK, reason, sizeof reason);
	assert_non_null(strstr(s, "count(DISTINCT \"h\".\"subject_id\") AS askql_n, avg(age)"));
	free(s);
	/* FILTER makes an aggregate of any name */
	s = rw("SELECT myagg(x) FILTER (WHERE x > 1) FROM hwanja", OK, reason, sizeof reason);
	free(s);
}

static void test_refusals(void **state)
{
	char reason[512];

	(void)state;
	rw("SELECT subject_id, sex FROM hwanja", ERR_DENIED, reason, sizeof reason);
	assert_non_null(strstr(reason, "only aggregate results may be read"));
	rw("SELECT sex, count(*) OVER () FROM hwanja", ERR_DENIED, reason, sizeof reason);   /* a window is not a group */
	rw("SELECT sex FROM hwanja UNION SELECT ward_cd FROM ipwon", ERR_DENIED, reason, sizeof reason);
	assert_non_null(strstr(reason, "UNION"));
	rw("SELECT sex, string_agg(name, ',') FROM hwanja GROUP BY sex", ERR_DENIED, reason, sizeof reason);
	assert_non_null(strstr(reason, "string_agg lists each row's value"));
	rw("SELECT sex, count(*), (SELECT array_agg(x) FROM hwanja) FROM hwanja GROUP BY sex", ERR_DENIED, reason, sizeof reason);
	assert_non_null(strstr(reason, "array_agg"));
	rw("SELECT sex, pg_catalog.json_agg(h) FROM hwanja h GROUP BY sex", ERR_DENIED, reason, sizeof reason);
	rw("SELECT count(*) FROM cm_kcd", ERR_DENIED, reason, sizeof reason);
	assert_non_null(strstr(reason, "patient key (patient_id, ...)"));
	rw("SELECT count(*) FROM (SELECT * FROM hwanja) q", ERR_DENIED, reason, sizeof reason);  /* no table of its own */
	rw("SELECT (SELECT count(*) FROM hwanja) FROM hwanja", ERR_DENIED, reason, sizeof reason); /* aggregate only inside */
	rw("SELECT 1; SELECT 2", ERR_DENIED, reason, sizeof reason);
	rw("DELETE FROM hwanja", ERR_DENIED, reason, sizeof reason);
	rw("SELECT count(*) FROM", ERR_PARSE, reason, sizeof reason);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_rewrites), cmocka_unit_test(test_refusals)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
