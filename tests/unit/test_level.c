/* test_level.c: access level names, role prefixes and the aggregate check of a conninfo (store/level.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "store/level.h"

static void test_names(void **state)
{
	enum level lv;

	(void)state;
	for (int i = 0; i < LEVEL__MAX; i++) {
		assert_int_equal(level_parse(level_name((enum level)i), &lv), 0);
		assert_int_equal(lv, i);
	}
	assert_int_equal(level_parse("Limited", &lv), -1);
	assert_int_equal(level_parse("superuser", &lv), -1);
	assert_int_equal(level_parse(NULL, &lv), -1);
	assert_string_equal(level_name((enum level)7), "identified");
}

static void test_prefix(void **state)
{
	char p[64];

	(void)state;
	level_role_prefix("demo", p, sizeof p);
	assert_string_equal(p, "askql_demo");
	/* anything but a-z 0-9 _ becomes _, upper case folds: a role name that needs no quoting */
	level_role_prefix("Clinic-DB.2\"; DROP ROLE x", p, sizeof p);
	assert_string_equal(p, "askql_clinic_db_2___drop_role_x");
	level_role_prefix("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", p, sizeof p);
	assert_int_equal(strlen(p), 46);   /* + "_identified" stays within PostgreSQL's 63 bytes */
}

static void test_aggregate(void **state)
{
	(void)state;
	assert_int_equal(level_conninfo_is_aggregate("host=/x dbname=d user=r options='-c role=askql_demo_aggregate -c search_path=askql_limited,public'"), 1);
	assert_int_equal(level_conninfo_is_aggregate("host=/x dbname=d user=r options='-c role=askql_demo_limited -c search_path=askql_limited,public'"), 0);
	assert_int_equal(level_conninfo_is_aggregate("host=/x dbname=d_aggregate user=r"), 0);
	assert_int_equal(level_conninfo_is_aggregate("host=/x dbname=d user=r options='-c role=other_aggregate'"), 0);
	assert_int_equal(level_conninfo_is_aggregate("postgresql://r@h/d_aggregate"), 0);
	assert_int_equal(level_conninfo_is_aggregate("not a conninfo _aggregate '"), 0);
	assert_int_equal(level_conninfo_is_aggregate(NULL), 0);
}

/* issue 27: a stored run is shown to a viewer whose level now is the same or less restrictive */
static void test_allows(void **state)
{
	(void)state;
	assert_true(level_allows(LEVEL_IDENTIFIED, LEVEL_IDENTIFIED));
	assert_true(level_allows(LEVEL_IDENTIFIED, LEVEL_AGGREGATE));
	assert_true(level_allows(LEVEL_LIMITED, LEVEL_LIMITED));
	assert_true(level_allows(LEVEL_LIMITED, LEVEL_AGGREGATE));
	assert_true(level_allows(LEVEL_AGGREGATE, LEVEL_AGGREGATE));
	assert_false(level_allows(LEVEL_LIMITED, LEVEL_IDENTIFIED));
	assert_false(level_allows(LEVEL_AGGREGATE, LEVEL_IDENTIFIED));
	assert_false(level_allows(LEVEL_AGGREGATE, LEVEL_LIMITED));
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_names), cmocka_unit_test(test_prefix),
	                                   cmocka_unit_test(test_aggregate), cmocka_unit_test(test_allows)};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
