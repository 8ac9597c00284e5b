/* test_restate.c: a SQL statement read off its parse tree (sql/reading.h) and said back in Korean and English (pages/restate.h), for the shapes of issue 26. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "pages/restate.h"
#include "sql/reading.h"
#include "util/i18n.h"

static const char *ko_label(void *ctx, const char *col)
{
	static const char *const m[][2] = {{"sex", "성별"}, {"department", "진료과"}, {"age", "나이"}, {"approach", "수술 접근법"},
	                                   {"preop_dm", "수술 전 당뇨"}, {"casestart", "수술 시작"}, {NULL, NULL}};
	for (int i = 0; m[i][0]; i++)
		if (!strcmp(m[i][0], col))
			return m[i][1];
	return NULL;
}

static char out[1024];

static const char *say(const char *lang, const char *sql)
{
	struct sql_reading rd;
	struct restate_names nm = {.label = !strcmp(lang, "ko") ? ko_label : NULL, .patient_col = "subjectid"};
	struct sb sb = SB_INIT;
	sql_reading_of(sql, &rd);
	restate(&sb, lang, &rd, &nm);
	snprintf(out, sizeof out, "%s", sb_cstr(&sb));
	sb_free(&sb);
	return out;
}

static void test_reading(void **state)
{
	struct sql_reading rd;
	assert_int_equal(sql_reading_of("SELECT department, sex, count(DISTINCT subjectid) FROM c WHERE approach = 'Videoscopic' "
	                                "AND age >= 65 AND 5 < bmi GROUP BY 1, sex", &rd), OK);
	assert_string_equal(rd.agg, "count");
	assert_string_equal(rd.agg_col, "subjectid");
	assert_true(rd.agg_distinct);
	assert_int_equal(rd.nfilter, 3);
	assert_string_equal(rd.filter[2].col, "bmi");
	assert_string_equal(rd.filter[2].op, ">");   /* 5 < bmi read as bmi > 5 */
	assert_int_equal(rd.ngroup, 2);
	assert_string_equal(rd.group[0].col, "department");
	assert_true(rd.complete);
	/* a share: AVG of a condition; bands; a subquery it cannot say back */
	assert_int_equal(sql_reading_of("SELECT ROUND(AVG(CAST(preop_dm = 1 AS int)) * 100, 2) FROM c WHERE sex = 'F'", &rd), OK);
	assert_true(rd.rate);
	assert_string_equal(rd.num[0].col, "preop_dm");
	assert_int_equal(sql_reading_of("SELECT CAST(floor(age / 10) * 10 AS int), count(*) FROM c GROUP BY 1", &rd), OK);
	assert_int_equal(rd.group[0].band, RD_BAND);
	assert_int_equal(rd.group[0].width, 10);
	assert_string_equal(rd.group[0].col, "age");
	assert_int_equal(sql_reading_of("SELECT count(*) FROM c WHERE caseid IN (SELECT caseid FROM l WHERE name = 'k')", &rd), OK);
	assert_false(rd.complete);
	assert_int_equal(sql_reading_of("DELETE FROM c", &rd), ERR_PARSE);
	assert_int_equal(sql_reading_of("not sql", &rd), ERR_PARSE);
	assert_int_equal(sql_reading_of(NULL, &rd), ERR_INPUT);
}

static void test_said_back(void **state)
{
	/* 복강경 수술 건수: the filter the SQL applies is named */
	assert_string_equal(say("ko", "SELECT COUNT(*) FROM clinical_data_table WHERE clinical_data_table.approach = 'Videoscopic'"),
	                    "수술 접근법(approach) = Videoscopic인 건수");
	assert_string_equal(say("en", "SELECT COUNT(*) FROM clinical_data_table WHERE clinical_data_table.approach = 'Videoscopic'"),
	                    "Number of rows, where approach = Videoscopic");
	/* a share: its base and its part, the right way round */
	assert_string_equal(say("ko", "SELECT ROUND(AVG(CAST(preop_dm = 1 AS int)) * 100, 2) FROM c WHERE sex = 'F'"),
	                    "성별(sex) = F인 경우 중 수술 전 당뇨(preop_dm) = 1인 비율");
	assert_string_equal(say("en", "SELECT ROUND(AVG(CAST(sex = 'F' AS int)) * 100, 2) FROM c WHERE preop_dm = 1"),
	                    "Share with sex = F among rows where preop_dm = 1");
	/* every grouping, in order */
	assert_string_equal(say("ko", "SELECT department, sex, count(DISTINCT subjectid) FROM c GROUP BY department, sex"),
	                    "진료과(department) × 성별(sex)별 환자 수");
	assert_string_equal(say("en", "SELECT sex, department, avg(age) FROM c GROUP BY sex, department"),
	                    "Average age by sex × department");
	assert_string_equal(say("ko", "SELECT CAST(floor(age / 10) * 10 AS int) AS g, count(*) FROM c WHERE sex = 'M' GROUP BY 1 ORDER BY 1"),
	                    "성별(sex) = M인 나이(age) 10 단위 구간별 건수");
	assert_string_equal(say("en", "SELECT CAST(date_part('year', casestart) AS int), CAST(date_part('month', casestart) AS int), count(*) "
	                              "FROM c GROUP BY 1, 2 ORDER BY 1, 2"), "Number of rows by month of casestart");
	/* a yes/no, a list, a timeline */
	assert_string_equal(say("ko", "SELECT COUNT(*) > 0 FROM (SELECT 1 FROM c WHERE c.death_inhosp = 1) AS x"),
	                    "death_inhosp = 1인 기록이 있는지");
	assert_string_equal(say("en", "SELECT DISTINCT caseid FROM c ORDER BY caseid"), "List of caseid");
	assert_string_equal(say("en", "SELECT caseid, dt, 'hr' AS m, hr FROM v WHERE caseid = 3 UNION ALL "
	                              "SELECT caseid, dt, name, result FROM l WHERE caseid = 3 AND name = 'k' ORDER BY 1, 2"),
	                    "Records in time order, where caseid = 3 and name = k");
	/* one column per value of a column (admissions of men and women by ward): a dimension, not a share */
	assert_string_equal(say("ko", "SELECT department, COUNT(*) FILTER (WHERE sex = 'M') AS count_m, COUNT(*) FILTER (WHERE sex = 'F') "
	                              "AS count_f FROM c GROUP BY department"),
	                    "진료과(department) × 성별(sex)(M, F, 열로 나눠)별 건수");
	assert_string_equal(say("en", "SELECT AVG(age) FILTER (WHERE sex = 'M'), AVG(age) FILTER (WHERE sex = 'F') FROM c WHERE preop_dm = 1"),
	                    "Average age by sex (M, F, a column each), where preop_dm = 1");
	/* one count with a FILTER stays a share's part */
	assert_string_equal(say("en", "SELECT COUNT(*) FILTER (WHERE sex = 'F') FROM c WHERE preop_dm = 1"),
	                    "Share with sex = F among rows where preop_dm = 1");
	/* what cannot be read is said */
	assert_string_equal(say("en", "SELECT count(*) FROM c WHERE caseid IN (SELECT caseid FROM l)"),
	                    "Number of rows (and conditions not said here: see the SQL)");
	assert_string_equal(say("en", "this is not SQL"), "The result of this SQL");
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_reading), cmocka_unit_test(test_said_back)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
