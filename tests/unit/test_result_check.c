/* test_result_check.c: the checks a result must pass before it is shown (breakdown columns, yes/no rows). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "agent/agent_int.h"

static char *check(const char *q, int ncols, long long nrows)
{
	struct exec_out eo;

	memset(&eo, 0, sizeof eo);
	eo.ok = 1;
	eo.r.ncols = ncols;
	eo.r.nrows = nrows;
	return result_check(q, &eo);
}

static void test_breakdown(void **state)
{
	char *f = check("average age per department", 1, 1);
	assert_non_null(f);
	assert_non_null(strstr(f, "per 'department'"));
	free(f);
	f = check("진료과별 평균 나이", 1, 1);
	assert_non_null(f);
	free(f);
	assert_null(check("average age per department", 2, 4));
	assert_null(check("list the drugs sorted by time", 1, 12));   /* sorting is not a breakdown */
	assert_null(check("average age", 1, 1));
}

static void test_yes_no(void **state)
{
	char *f = check("has patient 10014078 received any aspirin?", 1, 3);
	assert_non_null(f);
	free(f);
	assert_null(check("has patient 10014078 received any aspirin?", 1, 1));
	assert_null(check(NULL, 1, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_breakdown),
		cmocka_unit_test(test_yes_no),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
