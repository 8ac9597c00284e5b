/* test_answer.c: the result page's answer sentences (one per shape, ko and en), display rounding, labels,
 * row counts, where a column comes from, and friendly database errors (app/pages/answer.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/answer.h"
#include "util/i18n.h"

static int setup(void **st)
{
	char err[256];

	(void)st;
	if (i18n_load("conf/i18n", err, sizeof err) != 0)
		fail_msg("i18n: %s (run from the repository top)", err);
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	i18n_free();
	return 0;
}

/* sentence: the answer for question/sql, columns cols (fmt filled here) and rows (JSON text) */
static enum answer_kind sentence(char *out, size_t len, const char *lang, const char *q, const char *sql,
                                 struct answer_col *cols, int ncols, const char *rows, long long total, int truncated)
{
	cJSON *r = cJSON_Parse(rows);
	struct sb s = SB_INIT;
	struct answer_in in = {lang, q, sql, cols, ncols, r, total, truncated, NULL};
	enum answer_kind k;

	assert_non_null(r);
	for (int c = 0; c < ncols; c++)
		cols[c].fmt = answer_col_fmt(&cols[c], r, c);
	k = answer_sentence(&s, &in);
	snprintf(out, len, "%s", sb_cstr(&s));
	sb_free(&s);
	cJSON_Delete(r);
	return k;
}

#define GROUP_ROWS "[[\"일반외과\",58.1944616656334],[\"비뇨기과\",59.27],[\"흉부외과\",57.5],[\"부인과\",56.91]]"

static void test_group(void **st)
{
	char b[512];
	struct answer_col cols[] = {{.name = "department", .type = "text"},
	                            {.name = "avg", .type = "number", .agg = "avg", .unit = "years"}};
	const char *sql = "SELECT department, avg(age) FROM clinical_data_table GROUP BY department";

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "진료과별 평균 나이", sql, cols, 2, GROUP_ROWS, 4, 0), ANSWER_GROUP);
	assert_string_equal(b, "진료과별 평균 나이: 비뇨기과 59.3세로 가장 높고 부인과 56.9세로 가장 낮습니다 (4개 진료과)");
	assert_int_equal(sentence(b, sizeof b, "en", "average age by department?", sql, cols, 2,
	                          "[[\"General surgery\",58.19],[\"Urology\",59.27],[\"Thoracic surgery\",57.5],[\"Gynecology\",56.91]]", 4, 0),
	                 ANSWER_GROUP);
	assert_string_equal(b, "Average age by department: Urology is highest at 59.3 years and Gynecology lowest at 56.9 years (4 departments)");
	/* 으로 after a final consonant: 건 */
	{
		struct answer_col c2[] = {{.name = "department", .type = "text"}, {.name = "n", .type = "number", .agg = "count"}};

		sentence(b, sizeof b, "ko", "진료과별 수술 건수", "SELECT department, count(*) AS n FROM t GROUP BY 1", c2, 2,
		         "[[\"A\",1200],[\"B\",35]]", 2, 0);
		assert_string_equal(b, "진료과별 수술 건수: A 1,200건으로 가장 높고 B 35건으로 가장 낮습니다 (2개 진료과)");
	}
	/* two groupings: the rows are department and sex together, so they are counted as groups */
	{
		struct answer_col c3[] = {{.name = "department", .type = "text"}, {.name = "sex", .type = "text"},
		                          {.name = "n", .type = "number", .agg = "count"}};
		const char *rows = "[[\"A\",\"F\",120],[\"A\",\"M\",35],[\"B\",\"F\",80]]";

		sentence(b, sizeof b, "ko", "진료과별 성별 환자 수", "SELECT department, sex, count(*) AS n FROM t GROUP BY 1, 2", c3, 3,
		         rows, 3, 0);
		assert_string_equal(b, "진료과별 성별 환자 수: A / F 120건으로 가장 높고 A / M 35건으로 가장 낮습니다 (3개 그룹)");
		sentence(b, sizeof b, "en", "patients by department and sex", "SELECT department, sex, count(*) AS n FROM t GROUP BY 1, 2",
		         c3, 3, rows, 3, 0);
		assert_non_null(strstr(b, "(3 groups)"));
	}
}

static void test_value(void **st)
{
	char b[512];
	struct answer_col avg[] = {{.name = "avg_age", .type = "number", .agg = "avg", .unit = "years"}};
	struct answer_col cnt[] = {{.name = "patients", .type = "number", .agg = "count", .patients = 1}};

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "평균 나이는?", NULL, avg, 1, "[[58.1944616656334]]", 1, 0), ANSWER_VALUE);
	assert_string_equal(b, "평균 나이: 58.2세");
	sentence(b, sizeof b, "en", "What is the average age?", NULL, avg, 1, "[[58.1944616656334]]", 1, 0);
	assert_string_equal(b, "Average age: 58.2 years");
	sentence(b, sizeof b, "ko", "당뇨 환자 수 알려줘", NULL, cnt, 1, "[[3867]]", 1, 0);
	assert_string_equal(b, "당뇨 환자 수: 3,867명");
	sentence(b, sizeof b, "en", "how many patients had diabetes", NULL, cnt, 1, "[[3867]]", 1, 0);
	assert_string_equal(b, "How many patients had diabetes: 3,867 patients");
}

static void test_top_n(void **st)
{
	char b[512];
	struct answer_col cols[] = {{.name = "department", .type = "text"}, {.name = "cases", .type = "number", .agg = "count"}};
	const char *sql = "SELECT department, count(*) AS cases FROM t GROUP BY 1 ORDER BY cases DESC LIMIT 3";
	const char *rows = "[[\"General surgery\",4012],[\"Thoracic surgery\",1033],[\"Urology\",228]]";

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "수술 건수 상위 3개 진료과", sql, cols, 2, rows, 3, 0), ANSWER_TOP_N);
	assert_string_equal(b, "수술 건수 상위 3개 진료과: General surgery 4,012건, Thoracic surgery 1,033건, Urology 228건 (상위 3개)");
	sentence(b, sizeof b, "en", "top 3 departments by number of cases", sql, cols, 2, rows, 3, 0);
	assert_string_equal(b, "Top 3 departments by number of cases: General surgery 4,012, Thoracic surgery 1,033, Urology 228 (top 3)");
	/* ties at the cut-off are kept and said */
	const char *tied = "[[\"General surgery\",4012],[\"Thoracic surgery\",1033],[\"Urology\",228],[\"Gynecology\",228]]";
	sentence(b, sizeof b, "ko", "수술 건수 상위 3개 진료과", sql, cols, 2, tied, 4, 0);
	assert_string_equal(b, "수술 건수 상위 3개 진료과: General surgery 4,012건, Thoracic surgery 1,033건, Urology 228건, Gynecology 228건 "
	                       "(상위 3개, 공동 순위 1개 포함)");
	sentence(b, sizeof b, "en", "top 3 departments by number of cases", sql, cols, 2, tied, 4, 0);
	assert_string_equal(b, "Top 3 departments by number of cases: General surgery 4,012, Thoracic surgery 1,033, Urology 228, "
	                       "Gynecology 228 (top 3, including 1 tied)");
}

static void test_yesno(void **st)
{
	char b[512];
	struct answer_col cols[] = {{.name = "exists", .type = "boolean"}};

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "사망한 환자가 있나요?", NULL, cols, 1, "[[true]]", 1, 0), ANSWER_YESNO);
	assert_string_equal(b, "사망한 환자가 있나요: 예");
	sentence(b, sizeof b, "en", "Did any patient die?", NULL, cols, 1, "[[\"f\"]]", 1, 0);
	assert_string_equal(b, "Did any patient die: No.");
}

static void test_list(void **st)
{
	char b[512];
	struct answer_col cols[] = {{.name = "caseid", .type = "number"}, {.name = "opname", .type = "text"}};
	const char *rows = "[[1,\"Gastrectomy\"],[2,\"Lobectomy\"],[3,\"Thyroidectomy\"],[4,\"Colectomy\"]]";

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "수술 목록 보여줘", "SELECT caseid, opname FROM t", cols, 2, rows, 1000, 1),
	                 ANSWER_LIST);
	assert_string_equal(b, "수술 목록: 1,000행 이상 (Gastrectomy, Lobectomy, Thyroidectomy, …)");
	sentence(b, sizeof b, "en", "list the operations", "SELECT caseid, opname FROM t", cols, 2, rows, 4, 0);
	assert_string_equal(b, "Operations: 4 rows (Gastrectomy, Lobectomy, Thyroidectomy, …)");
}

static void test_timeline(void **st)
{
	char b[512];
	struct answer_col cols[] = {{.name = "dt", .type = "datetime"}, {.name = "hr", .type = "number", .unit = "bpm"}};
	const char *rows = "[[\"2011-01-01 12:30:00\",80.5],[\"2011-01-01 10:00:00\",72],[\"2011-01-01 11:00:00\",75]]";

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "케이스 1의 심박수 추이", NULL, cols, 2, rows, 3, 0), ANSWER_TIMELINE);
	assert_string_equal(b, "케이스 1의 심박수 추이: 2011-01-01 10:00:00부터 2011-01-01 12:30:00까지 2.5시간 동안 3건의 기록");
	sentence(b, sizeof b, "en", "heart rate timeline of case 1", NULL, cols, 2, rows, 3, 0);
	assert_string_equal(b, "Heart rate timeline of case 1: 3 records over 2.5 hours, from 2011-01-01 10:00:00 to 2011-01-01 12:30:00");
}

static void test_empty(void **st)
{
	char b[512];
	struct answer_col cols[] = {{.name = "caseid", .type = "number"}};

	(void)st;
	assert_int_equal(sentence(b, sizeof b, "ko", "200세 환자", NULL, cols, 1, "[]", 0, 0), ANSWER_EMPTY);
	assert_string_equal(b, "200세 환자: 조건에 맞는 결과가 없습니다.");
	assert_string_equal(answer_kind_name(ANSWER_TOP_N), "top_n");
}

static void num(const char *want, double x, enum answer_fmt f)
{
	struct sb s = SB_INIT;

	answer_number(&s, x, f);
	assert_string_equal(sb_cstr(&s), want);
	sb_free(&s);
}

static void test_rounding(void **st)
{
	(void)st;
	num("58.2", 58.1944616656334, FMT_AVG);
	num("-1,234.6", -1234.56, FMT_AVG);
	num("3,867", 3867, FMT_COUNT);
	num("1,234,568", 1234567.6, FMT_COUNT);
	num("999", 999, FMT_COUNT);
	num("12.5%", 12.46, FMT_PCT);
	num("2024", 2024, FMT_ID);
	num("100123", 100123, FMT_ID);
	num("1,234,567.89", 1234567.891, FMT_REAL);
	num("0.0123", 0.012345, FMT_REAL);
	num("4.5", 4.50, FMT_REAL);
	num("0.0", -0.0001, FMT_AVG);
}

static void test_col_fmt(void **st)
{
	cJSON *rows = cJSON_Parse("[[1, 2.5, 2024, 7, 0.5, 100001, \"x\", true]]");
	struct answer_col c[] = {{.name = "count", .type = "number", .agg = "count"}, {.name = "mean_hr", .type = "number"},
	                         {.name = "year", .type = "number"}, {.name = "asa", .type = "number"},
	                         {.name = "death_pct", .type = "number"}, {.name = "subjectid", .type = "number"},
	                         {.name = "sex", .type = "text"}, {.name = "died", .type = "boolean"}};
	enum answer_fmt want[] = {FMT_COUNT, FMT_AVG, FMT_ID, FMT_COUNT, FMT_PCT, FMT_ID, FMT_TEXT, FMT_BOOL};

	(void)st;
	for (int i = 0; i < 8; i++)
		assert_int_equal(answer_col_fmt(&c[i], rows, i), want[i]);
	{
		struct sb s = SB_INIT;
		cJSON *v = cJSON_CreateString("58.1944616656334");

		answer_value(&s, v, FMT_AVG, "ko");
		answer_value(&s, cJSON_GetArrayItem(cJSON_GetArrayItem(rows, 0), 7), FMT_BOOL, "ko");
		assert_string_equal(sb_cstr(&s), "58.2예");
		cJSON_Delete(v);
		sb_free(&s);
	}
	cJSON_Delete(rows);
}

static void test_rows_labels(void **st)
{
	struct sb s = SB_INIT;

	(void)st;
	answer_rows(&s, "ko", 1000, 1);
	assert_string_equal(sb_cstr(&s), "1,000개 이상 (미리보기)");
	sb_reset(&s);
	answer_rows(&s, "en", 1000, 1);
	assert_string_equal(sb_cstr(&s), "1,000+ (preview)");
	sb_reset(&s);
	answer_rows(&s, "en", 3867, 0);
	assert_string_equal(sb_cstr(&s), "3,867 rows");
	sb_reset(&s);
	answer_rows(&s, "ko", 3867, 0);
	assert_string_equal(sb_cstr(&s), "3,867행");
	sb_reset(&s);
	answer_label(&s, "en", "avg_age");
	assert_string_equal(sb_cstr(&s), "Average age");
	sb_reset(&s);
	answer_label(&s, "ko", "avg_age");
	assert_string_equal(sb_cstr(&s), "평균 나이");
	sb_reset(&s);
	answer_label(&s, "ko", "count");
	assert_string_equal(sb_cstr(&s), "건수");
	sb_reset(&s);
	answer_label(&s, "en", "opname");
	assert_string_equal(sb_cstr(&s), "Opname");
	sb_free(&s);
}

static void src(const char *sql, const char *name, const char *agg, const char *col)
{
	char a[16], c[64];

	assert_int_equal(answer_source(sql, name, a, sizeof a, c, sizeof c), agg[0] != 0);
	assert_string_equal(a, agg);
	assert_string_equal(c, col);
}

static void test_source(void **st)
{
	(void)st;
	src("SELECT department, round(avg(c.age)::numeric, 1) AS avg_age FROM t c GROUP BY 1", "avg_age", "avg", "age");
	src("SELECT department, AVG(age) FROM t GROUP BY 1", "avg", "avg", "age");
	src("SELECT count(*) FROM t", "count", "count", "*");
	src("SELECT count(DISTINCT subjectid) AS patients FROM t", "patients", "count", "subjectid");
	src("SELECT max(hr) mx FROM v", "mx", "max", "hr");
	src("SELECT department, age FROM t", "age", "", "");
	src("SELECT sum(CASE WHEN x THEN 1 ELSE 0 END) AS n FROM t", "n", "sum", "");
}

static void test_errors(void **st)
{
	(void)st;
	assert_string_equal(answer_error_key("no working SQL after 3 of 3 attempts; last error: 57014: canceling statement due to statement timeout"),
	                    "result.err.timeout");
	assert_string_equal(answer_error_key("42501: permission denied for table secrets"), "result.err.permission");
	assert_string_equal(answer_error_key("42703: column \"agee\" does not exist"), "result.err.column");
	assert_string_equal(answer_error_key("42P01: relation \"x\" does not exist"), "result.err.table");
	assert_string_equal(answer_error_key("22012: division by zero"), "result.err.divzero");
	assert_string_equal(answer_error_key("08006: server closed the connection"), "result.err.connection");
	assert_string_equal(answer_error_key("53200: out of memory"), "result.err.resources");
	assert_null(answer_error_key("the planner's reply contains no SQL"));
	assert_null(answer_error_key("XX000: internal error"));
	assert_null(answer_error_key(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),    cmocka_unit_test(test_value),       cmocka_unit_test(test_top_n),
		cmocka_unit_test(test_yesno),    cmocka_unit_test(test_list),        cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_empty),    cmocka_unit_test(test_rounding),    cmocka_unit_test(test_col_fmt),
		cmocka_unit_test(test_rows_labels), cmocka_unit_test(test_source),   cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
