/* test_result_check.c: the checks a result must pass before it is shown (breakdown columns, yes/no rows, patients counted, top N) and the splitting of an empty result's conditions (empty_check.c). */
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
	return result_check(q, &eo, NULL, NULL);
}

/* a result of sql with rows of (label, count) */
static char *check_rows(const char *q, const char *sql, const char *const *counts, int n, const char *patient_col)
{
	static char *cells[16][2];
	static char **rows[16];
	struct exec_out eo;

	memset(&eo, 0, sizeof eo);
	eo.ok = 1;
	eo.sql = (char *)sql;
	eo.r.ncols = 2;
	eo.r.nrows = n;
	for (int i = 0; i < n && i < 16; i++) {
		cells[i][0] = "x";
		cells[i][1] = (char *)counts[i];
		rows[i] = cells[i];
	}
	eo.r.rows = rows;
	return result_check(q, &eo, patient_col, patient_col ? "patients" : NULL);
}

static void test_patients_counted(void **state)
{
	const char *one[] = {"825"};
	char *f = check_rows("수술 중 수축기 혈압 90 미만인 환자 수", "SELECT COUNT(DISTINCT t.caseid) FROM t", one, 1, "subjectid");
	assert_non_null(f);
	assert_non_null(strstr(f, "patient identifier subjectid"));
	free(f);
	f = check_rows("how many patients had surgery", "SELECT count(*) FROM cases", one, 1, "subjectid");
	assert_non_null(f);
	free(f);
	assert_null(check_rows("how many patients had surgery", "SELECT COUNT(DISTINCT c.subjectid) FROM c", one, 1, "subjectid"));
	assert_null(check_rows("how many patients had surgery", "SELECT count(*) FROM cases", one, 1, NULL));   /* unknown key */
	/* the patients' own table has one row per patient: its rows are patients */
	assert_null(check_rows("how many patients are there?", "SELECT COUNT(*) FROM patients", one, 1, "subjectid"));
	assert_null(check_rows("how many female patients", "SELECT count(*) FROM patients WHERE sex = 'F'", one, 1, "subjectid"));
	assert_null(check_rows("how many patients are 80 or older", "SELECT count(*) FROM patients WHERE "
	                       "EXTRACT(YEAR FROM age(DATE '2025-12-31', birth)) >= 80", one, 1, "subjectid"));
	f = check_rows("how many patients had surgery", "SELECT count(*) FROM patients JOIN cases USING (x)", one, 1, "subjectid");
	assert_non_null(f);
	free(f);
	f = check_rows("how many patients had surgery", "SELECT count(*) FROM patients p, cases c WHERE p.x = c.x", one, 1, "subjectid");
	assert_non_null(f);
	free(f);
	assert_null(check_rows("how many cases had surgery", "SELECT count(*) FROM cases", one, 1, "subjectid"));
	assert_null(check_rows("환자별 평균 심박수", "SELECT caseid, avg(hr) FROM v GROUP BY 1", one, 1, "subjectid"));
}

static void test_top_n(void **state)
{
	const char *five[] = {"9", "8", "7", "6", "5"}, *tie[] = {"9", "8", "8", "7", "7", "7"};
	char *f = check("top 3 drugs", 1, 3);
	assert_non_null(f);
	assert_non_null(strstr(f, "no measure"));
	free(f);
	f = check_rows("top 3 drugs", "SELECT ...", five, 5, NULL);
	assert_non_null(f);
	assert_non_null(strstr(f, "ranks 5 different values"));
	free(f);
	assert_null(check_rows("top 3 drugs", "SELECT ...", tie, 6, NULL));   /* 6 items, 3 counts: ties kept */
	assert_null(check_rows("top 3 drugs", "SELECT ...", five, 3, NULL));
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
	assert_null(check("which drugs did patient 7 receive by the ih route?", 1, 3));   /* the way given, not a breakdown */
	assert_null(check("average age", 1, 1));
	/* an average of a number per patient is one rate */
	assert_null(check("what is the average number of outpatient visits per patient?", 1, 1));
}

static void test_yes_no(void **state)
{
	char *f = check("has patient 10014078 received any aspirin?", 1, 3);
	assert_non_null(f);
	free(f);
	assert_null(check("has patient 10014078 received any aspirin?", 1, 1));
	assert_null(check(NULL, 1, 1));
}


/* empty_parts_of: the FROM list and the WHERE's conditions, a window's two ends one condition */
static void test_empty_parts(void **state)
{
	struct empty_parts p;

	assert_int_equal(empty_parts_of("SELECT DISTINCT c.subjectid FROM lab l JOIN c ON l.caseid = c.caseid "
	                                "WHERE l.name = 'lac' AND l.result > 40 AND c.casestart >= TIMESTAMP '2025-01-01' "
	                                "AND c.casestart < TIMESTAMP '2026-01-01' ORDER BY 1 LIMIT 10", &p), OK);
	assert_string_equal(p.from, "lab l JOIN c ON l.caseid = c.caseid");
	assert_int_equal(p.n, 3);
	assert_string_equal(p.cond[0], "l.name = 'lac'");
	assert_string_equal(p.cond[1], "l.result > 40");
	assert_string_equal(p.cond[2], "c.casestart >= TIMESTAMP '2025-01-01' AND c.casestart < TIMESTAMP '2026-01-01'");
	empty_parts_free(&p);
	/* an AND inside a string, a parenthesis or a BETWEEN is no conjunct; GROUP BY ends the WHERE */
	assert_int_equal(empty_parts_of("SELECT t.a, count(*) FROM t WHERE t.name = 'salt AND pepper' AND (t.x = 1 AND t.y = 2) "
	                                "AND t.age BETWEEN 10 AND 20 GROUP BY t.a", &p), OK);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.cond[0], "t.name = 'salt AND pepper'");
	assert_string_equal(p.cond[1], "(t.x = 1 AND t.y = 2)");
	assert_string_equal(p.cond[2], "t.age BETWEEN 10 AND 20");
	empty_parts_free(&p);
	/* a top-level OR: the whole WHERE is one condition */
	assert_int_equal(empty_parts_of("SELECT * FROM t WHERE t.a = 1 AND t.b = 2 OR t.c = 3", &p), OK);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.cond[0], "t.a = 1 AND t.b = 2 OR t.c = 3");
	empty_parts_free(&p);
	/* no single reading to split: a set operation, a WITH, no WHERE, an unclosed quote */
	assert_int_equal(empty_parts_of("SELECT a FROM t WHERE a = 1 UNION SELECT a FROM u WHERE a = 2", &p), ERR_PARSE);
	assert_int_equal(empty_parts_of("WITH x AS (SELECT 1) SELECT * FROM x WHERE 1 = 1", &p), ERR_PARSE);
	assert_int_equal(empty_parts_of("SELECT count(*) FROM t", &p), ERR_PARSE);
	assert_int_equal(empty_parts_of("SELECT a FROM t WHERE a = 'x", &p), ERR_PARSE);
	assert_int_equal(empty_parts_of(NULL, &p), ERR_INPUT);
	/* EXTRACT(YEAR FROM ...) in the select list is not the FROM */
	assert_int_equal(empty_parts_of("SELECT EXTRACT(YEAR FROM t.d) FROM t WHERE t.a = 1;", &p), OK);
	assert_string_equal(p.from, "t");
	assert_string_equal(p.cond[0], "t.a = 1");
	empty_parts_free(&p);
	(void)state;
}

/* the query cache's key form: trailing marks cut whole, never a byte of a Korean syllable ("몇 %야":
 * 야 ends in 0xBC, a byte of ？ and ！; the key was invalid UTF-8 and the cache store failed) */
static void test_normalize_question(void **state)
{
	char *k = agent_normalize_question("  GS 비율  몇 %야?  ");
	assert_string_equal(k, "gs 비율 몇 %야");
	free(k);
	k = agent_normalize_question("비율 몇 %야？！。");
	assert_string_equal(k, "비율 몇 %야");
	free(k);
	k = agent_normalize_question("?!");
	assert_string_equal(k, "");
	free(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_breakdown),
		cmocka_unit_test(test_yes_no),
		cmocka_unit_test(test_patients_counted),
		cmocka_unit_test(test_top_n),
		cmocka_unit_test(test_empty_parts),
		cmocka_unit_test(test_normalize_question),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
