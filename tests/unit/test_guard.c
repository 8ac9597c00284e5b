/* test_guard.c: the SQL guard against the hostile and ordinary corpora, LIMIT, positions, warnings. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "sql/guard.h"

/* The indexed catalog of the demo target, as the catalog module would answer. */
static int demo_ok(void *ctx, const char *schema, const char *name)
{
	static const char *const rels[] = {"clinical_data_table", "lab_data_table", "vital_data_table",
	                                   "medication_data_table", "diagnosis_table"};

	(void)ctx;
	if (schema && strcmp(schema, "public"))
		return 0;
	for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++)
		if (!strcmp(name, rels[i]))
			return 1;
	return 0;
}

static const struct guard_opts demo = {.limit = 1000, .relation_ok = demo_ok};

/* A corpus: records separated by lines "-- @@"; the part before the first one is a header. */
struct rec { char *sql; char *expect; int line; };

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

static int load(const char *name, struct rec **out)
{
	char path[512], *text, *p, *next;
	const char *top = getenv("TOP");
	struct rec *v = NULL;
	int n = 0, line = 1, first = 1;

	snprintf(path, sizeof path, "%s/tests/data/%s", top ? top : ".", name);
	text = slurp(path);
	assert_non_null(text);
	for (p = text; p; p = next) {
		char *sep = strstr(p, "\n-- @@\n");
		int startline = line;

		if (sep) {
			*sep = '\0';
			next = sep + 7;
		} else {
			next = NULL;
		}
		for (char *q = p; *q; q++)
			line += *q == '\n';
		line += sep ? 2 : 0;
		if (first) {
			first = 0;
			continue;
		}
		v = realloc(v, (size_t)(n + 1) * sizeof *v);
		assert_non_null(v);
		v[n].sql = strdup(p);
		v[n].expect = NULL;
		v[n].line = startline;
		if (!strncmp(p, "-- expect: ", 11)) {
			char *e = strchr(p + 11, '\n');

			v[n].expect = e ? strndup(p + 11, (size_t)(e - p - 11)) : strdup(p + 11);
		}
		n++;
	}
	free(text);
	*out = v;
	return n;
}

static void free_recs(struct rec *v, int n)
{
	for (int i = 0; i < n; i++) {
		free(v[i].sql);
		free(v[i].expect);
	}
	free(v);
}

static void test_hostile(void **state)
{
	struct rec *v;
	int n = load("guard_hostile.sql", &v), bad = 0;

	(void)state;
	assert_true(n >= 150);
	for (int i = 0; i < n; i++) {
		struct guard_result r;

		assert_int_equal(guard_check(v[i].sql, &demo, &r), OK);
		if (r.allowed) {
			fprintf(stderr, "hostile record at line %d ALLOWED: %s\n", v[i].line, v[i].sql);
			bad++;
		} else if (!r.reason || (v[i].expect && !strstr(r.reason, v[i].expect))) {
			fprintf(stderr, "hostile record at line %d refused for the wrong reason: %s (wanted %s)\n",
			        v[i].line, r.reason ? r.reason : "(none)", v[i].expect);
			bad++;
		} else if (r.sql) {
			fprintf(stderr, "hostile record at line %d refused but sql set\n", v[i].line);
			bad++;
		}
		guard_free(&r);
	}
	free_recs(v, n);
	assert_int_equal(bad, 0);
}

static void test_ordinary(void **state)
{
	struct rec *v;
	int n = load("guard_ordinary.sql", &v), bad = 0;

	(void)state;
	assert_true(n >= 100);
	for (int i = 0; i < n; i++) {
		struct guard_result r, r2;

		assert_int_equal(guard_check(v[i].sql, &demo, &r), OK);
		if (!r.allowed) {
			fprintf(stderr, "ordinary record at line %d REFUSED: %s (position %d)\n", v[i].line,
			        r.reason, r.position);
			bad++;
			guard_free(&r);
			continue;
		}
		assert_non_null(r.sql);
		assert_non_null(r.fingerprint);
		if (strstr(r.sql, "_table") && r.ntables == 0) { fprintf(stderr, "no tables: %s\n", r.sql); bad++; }
		/* idempotent: the output passes again, unchanged */
		assert_int_equal(guard_check(r.sql, &demo, &r2), OK);
		if (!r2.allowed || strcmp(r2.sql, r.sql)) {
			fprintf(stderr, "ordinary record at line %d not stable: %s -> %s\n", v[i].line, r.sql,
			        r2.sql ? r2.sql : r2.reason);
			bad++;
		}
		guard_free(&r2);
		guard_free(&r);
	}
	free_recs(v, n);
	assert_int_equal(bad, 0);
}

/* expect_sql: sql allowed under limit lim and rewritten to want. */
static void expect_sql(const char *sql, long lim, const char *want, int added, int clamped)
{
	struct guard_opts o = demo;
	struct guard_result r;

	o.limit = lim;
	assert_int_equal(guard_check(sql, &o, &r), OK);
	if (!r.allowed)
		fprintf(stderr, "refused: %s: %s\n", sql, r.reason);
	assert_true(r.allowed);
	assert_string_equal(r.sql, want);
	assert_int_equal(r.limit_added, added);
	assert_int_equal(r.limit_clamped, clamped);
	guard_free(&r);
}

static void test_limit(void **state)
{
	(void)state;
	expect_sql("SELECT 1", 1000, "SELECT 1 LIMIT 1000", 1, 0);
	expect_sql("SELECT 1;", 1000, "SELECT 1 LIMIT 1000", 1, 0);
	expect_sql("SELECT caseid FROM clinical_data_table -- trailing comment", 50,
	           "SELECT caseid FROM clinical_data_table LIMIT 50", 1, 0);
	expect_sql("SELECT caseid FROM clinical_data_table -- c\n;  -- d\n", 50,
	           "SELECT caseid FROM clinical_data_table LIMIT 50", 1, 0);
	expect_sql("SELECT caseid FROM clinical_data_table;-- a; DELETE FROM x", 50,
	           "SELECT caseid FROM clinical_data_table LIMIT 50", 1, 0);
	expect_sql("/* lead */ SELECT 1 /* tail */ ;", 10, "SELECT 1 LIMIT 10", 1, 0);
	expect_sql("SELECT '--' AS x", 10, "SELECT '--' AS x LIMIT 10", 1, 0);
	/* libpg_query misreports the end of U&'..' tokens: the guard finds it itself */
	expect_sql("SELECT U&'\\0041'", 10, "SELECT U&'\\0041' LIMIT 10", 1, 0);
	expect_sql("SELECT 1 AS U&\"a\"\"b\" -- c", 10, "SELECT 1 AS U&\"a\"\"b\" LIMIT 10", 1, 0);
	expect_sql("SELECT U&'a''b!0041' UESCAPE '!' ;", 10, "SELECT U&'a''b!0041' UESCAPE '!' LIMIT 10", 1, 0);
	expect_sql("SELECT 1 -- inside\n, 2", 10, "SELECT 1 -- inside\n, 2 LIMIT 10", 1, 0);
	expect_sql("SELECT 1 LIMIT 10", 1000, "SELECT 1 LIMIT 10", 0, 0);
	expect_sql("SELECT 1 LIMIT 0", 1000, "SELECT 1 LIMIT 0", 0, 0);
	expect_sql("SELECT 1 FETCH FIRST 5 ROWS ONLY", 1000, "SELECT 1 FETCH FIRST 5 ROWS ONLY", 0, 0);
	expect_sql("SELECT 1 OFFSET 3", 100, "SELECT 1 OFFSET 3 LIMIT 100", 1, 0);
	expect_sql("SELECT 1 UNION SELECT 2 ORDER BY 1", 100, "SELECT 1 UNION SELECT 2 ORDER BY 1 LIMIT 100", 1, 0);
	expect_sql("(SELECT 1)", 100, "(SELECT 1) LIMIT 100", 1, 0);
	expect_sql("VALUES (1), (2)", 100, "VALUES (1), (2) LIMIT 100", 1, 0);
	expect_sql("TABLE diagnosis_table", 100, "TABLE diagnosis_table LIMIT 100", 1, 0);
	expect_sql("WITH a AS (SELECT 1) SELECT * FROM a", 100, "WITH a AS (SELECT 1) SELECT * FROM a LIMIT 100", 1, 0);
	/* an existing LIMIT above the cap (or not a constant) is capped by wrapping */
	expect_sql("SELECT 1 LIMIT 5000 -- big", 1000, "SELECT * FROM (\nSELECT 1 LIMIT 5000\n) AS q LIMIT 1000", 0, 1);
	expect_sql("SELECT 1 LIMIT ALL;", 1000, "SELECT * FROM (\nSELECT 1 LIMIT ALL\n) AS q LIMIT 1000", 0, 1);
	expect_sql("SELECT 1 LIMIT 2 + 3", 1000, "SELECT * FROM (\nSELECT 1 LIMIT 2 + 3\n) AS q LIMIT 1000", 0, 1);
	expect_sql("SELECT hr FROM vital_data_table ORDER BY hr FETCH FIRST 3 ROWS WITH TIES", 1000,
	           "SELECT * FROM (\nSELECT hr FROM vital_data_table ORDER BY hr FETCH FIRST 3 ROWS WITH TIES\n) AS q LIMIT 1000", 0, 1);
	expect_sql("WITH x AS (SELECT 1) SELECT * FROM x LIMIT 5000 -- c", 1000,
	           "SELECT * FROM (\nWITH x AS (SELECT 1) SELECT * FROM x LIMIT 5000\n) AS q LIMIT 1000", 0, 1);
	expect_sql("VALUES (1), (2) LIMIT 50;", 7, "SELECT * FROM (\nVALUES (1), (2) LIMIT 50\n) AS q LIMIT 7", 0, 1);
	expect_sql("SELECT 1 UNION SELECT 2 ORDER BY 1 LIMIT ALL", 7,
	           "SELECT * FROM (\nSELECT 1 UNION SELECT 2 ORDER BY 1 LIMIT ALL\n) AS q LIMIT 7", 0, 1);
	/* limit 0: no LIMIT added, but the text is trimmed to its tokens */
	expect_sql("  SELECT 1 ; -- x", 0, "SELECT 1", 0, 0);
	expect_sql("SELECT 1 LIMIT 99999", 0, "SELECT 1 LIMIT 99999", 0, 0);
}

static void expect_refused(const char *sql, const char *reason, int pos)
{
	struct guard_result r;

	assert_int_equal(guard_check(sql, &demo, &r), OK);
	assert_false(r.allowed);
	if (!strstr(r.reason, reason) || (pos >= 0 && r.position != pos))
		fprintf(stderr, "%s -> %s at %d\n", sql, r.reason, r.position);
	assert_non_null(strstr(r.reason, reason));
	if (pos >= 0)
		assert_int_equal(r.position, pos);
	assert_null(r.sql);
	guard_free(&r);
}

static void test_positions(void **state)
{
	(void)state;
	expect_refused("SELECT 1; DELETE FROM t", "statement 2 of 2: more than one statement", 11);
	expect_refused("SELECT 1; SELECT 2; SELECT 3", "statement 2 of 3", 11);
	expect_refused("SELECT 1 /* x */ ;\n  -- y\n  UPDATE t SET a = 1", "more than one statement", 29);
	expect_refused("SELECT pg_sleep(1)", "function pg_sleep is not allowed (side effects)", 8);
	expect_refused("SELECT 'é', pg_sleep(1)", "pg_sleep", 13);
	expect_refused("SELECT '한국어', pg_sleep(1)", "pg_sleep", 15);
	expect_refused("SELECT * FROM pg_authid", "pg_authid", 15);
	expect_refused("SELECT * FROM clinical_data_table FOR UPDATE", "FOR UPDATE", 35);
	expect_refused("SELECT 1 INTO t", "SELECT INTO", 15);
	expect_refused("  DELETE FROM t", "DELETE is not allowed", 3);
	expect_refused("SELECT FROM WHERE", "syntax error", 13);
	expect_refused("WITH x AS (DELETE FROM t RETURNING 1) SELECT 1", "data-modifying", 6);
	expect_refused("SELECT * FROM nope", "not in the indexed catalog", 15);
	expect_refused("SELECT 1 \xff", "not valid UTF-8", 10);
	expect_refused("", "empty statement", 0);
	expect_refused("SELECT 1 AS a, 'x\\y' AS b", "backslash", 16);
}

static void test_standard_strings(void **state)
{
	struct guard_opts o = demo;
	struct guard_result r;

	(void)state;
	/* E'...' and $$...$$ mean the same whatever standard_conforming_strings is */
	assert_int_equal(guard_check("SELECT E'a\\d', $$b\\$$, U&'\\0041'", &demo, &r), OK);
	assert_true(r.allowed);
	guard_free(&r);
	/* the caller vouches for standard_conforming_strings=on: plain backslashes allowed */
	o.standard_strings = 1;
	assert_int_equal(guard_check("SELECT opname FROM clinical_data_table WHERE opname ~ '\\d'", &o, &r), OK);
	assert_true(r.allowed);
	guard_free(&r);
	assert_int_equal(guard_check("SELECT opname FROM clinical_data_table WHERE opname ~ '\\d'", &demo, &r), OK);
	assert_false(r.allowed);
	guard_free(&r);
}

static void test_warnings(void **state)
{
	struct guard_result r;

	(void)state;
	assert_int_equal(guard_check("SELECT 1 FROM clinical_data_table a JOIN lab_data_table b USING (caseid) "
	                             "JOIN vital_data_table c USING (caseid) JOIN medication_data_table d USING (caseid)",
	                             &demo, &r), OK);
	assert_true(r.allowed);
	assert_int_equal(r.nwarnings, 0);
	guard_free(&r);
	assert_int_equal(guard_check("SELECT 1 FROM clinical_data_table a JOIN lab_data_table b USING (caseid) "
	                             "JOIN vital_data_table c USING (caseid) JOIN medication_data_table d USING (caseid) "
	                             "LEFT JOIN diagnosis_table e ON e.subject_id = a.subjectid",
	                             &demo, &r), OK);
	assert_true(r.allowed);
	assert_int_equal(r.nwarnings, 1);
	assert_non_null(strstr(r.warnings[0], "4 JOINs"));
	guard_free(&r);
	/* comma joins count as joins too */
	assert_int_equal(guard_check("SELECT 1 FROM clinical_data_table a, lab_data_table b, vital_data_table c, "
	                             "medication_data_table d, diagnosis_table e", &demo, &r), OK);
	assert_int_equal(r.nwarnings, 1);
	guard_free(&r);
	/* joins are counted per SELECT: a UNION of arms with two joins each is not "6 JOINs"
	 * (issue 15: a UNION showed a false "9 JOINs" warning) */
	assert_int_equal(guard_check("SELECT a.caseid FROM clinical_data_table a JOIN lab_data_table b USING (caseid) "
	                             "JOIN vital_data_table c USING (caseid) "
	                             "UNION SELECT a.caseid FROM clinical_data_table a JOIN lab_data_table b USING (caseid) "
	                             "JOIN medication_data_table c USING (caseid) "
	                             "UNION ALL SELECT a.caseid FROM clinical_data_table a, lab_data_table b, vital_data_table c "
	                             "WHERE a.caseid = b.caseid AND b.caseid = c.caseid", &demo, &r), OK);
	assert_true(r.allowed);
	assert_int_equal(r.nwarnings, 0);
	guard_free(&r);
	/* ... nor summed with a subquery's joins */
	assert_int_equal(guard_check("SELECT 1 FROM clinical_data_table a JOIN lab_data_table b USING (caseid) "
	                             "JOIN (SELECT v.caseid FROM vital_data_table v JOIN medication_data_table m USING (caseid) "
	                             "JOIN diagnosis_table d ON d.subject_id = v.caseid) s USING (caseid)", &demo, &r), OK);
	assert_int_equal(r.nwarnings, 0);
	guard_free(&r);
	/* one arm with four joins still warns, with that arm's count */
	assert_int_equal(guard_check("SELECT 1 FROM clinical_data_table UNION SELECT 1 FROM clinical_data_table a "
	                             "JOIN lab_data_table b USING (caseid) JOIN vital_data_table c USING (caseid) "
	                             "JOIN medication_data_table d USING (caseid) "
	                             "LEFT JOIN diagnosis_table e ON e.subject_id = a.subjectid", &demo, &r), OK);
	assert_int_equal(r.nwarnings, 1);
	assert_non_null(strstr(r.warnings[0], "4 JOINs"));
	guard_free(&r);
	assert_int_equal(guard_check("SELECT 1 WHERE 1 IN (SELECT 1 WHERE 1 IN (SELECT 1))", &demo, &r), OK);
	assert_int_equal(r.nwarnings, 0);
	guard_free(&r);
	assert_int_equal(guard_check("SELECT 1 WHERE 1 IN (SELECT 1 WHERE 1 IN (SELECT 1 FROM "
	                             "(SELECT 1) s))", &demo, &r), OK);
	assert_true(r.allowed);
	assert_int_equal(r.nwarnings, 1);
	assert_non_null(strstr(r.warnings[0], "subquery depth 3"));
	guard_free(&r);
}

static void test_fingerprint(void **state)
{
	struct guard_result a, b, c;

	(void)state;
	assert_int_equal(guard_check("SELECT * FROM lab_data_table WHERE name = 'k'", &demo, &a), OK);
	assert_int_equal(guard_check("select *\n  from lab_data_table   where name='na' -- other value", &demo, &b), OK);
	assert_int_equal(guard_check("SELECT * FROM lab_data_table WHERE result = 1", &demo, &c), OK);
	assert_non_null(a.fingerprint);
	assert_string_equal(a.fingerprint, b.fingerprint);
	assert_string_not_equal(a.fingerprint, c.fingerprint);
	assert_string_equal(a.normalized, "SELECT * FROM lab_data_table WHERE name = $1");
	guard_free(&a);
	guard_free(&b);
	guard_free(&c);
	/* the same fingerprint every run (stable across processes: a pure function of the tree) */
	assert_int_equal(guard_check("SELECT 1", &demo, &a), OK);
	assert_string_equal(a.fingerprint, "50fde20626009aba");
	guard_free(&a);
}

static int has(char **v, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

static void test_tables_columns(void **state)
{
	struct guard_result r;

	(void)state;
	assert_int_equal(guard_check("WITH h AS (SELECT caseid FROM vital_data_table v WHERE v.sbp < 90) "
	                             "SELECT c.subjectid, l.result, h.caseid, age FROM clinical_data_table c "
	                             "JOIN lab_data_table l ON l.caseid = c.caseid JOIN h ON h.caseid = c.caseid",
	                             &demo, &r), OK);
	assert_true(r.allowed);
	assert_int_equal(r.ntables, 3);
	assert_true(has(r.tables, r.ntables, "vital_data_table"));
	assert_true(has(r.tables, r.ntables, "clinical_data_table"));
	assert_true(has(r.tables, r.ntables, "lab_data_table"));
	assert_false(has(r.tables, r.ntables, "h"));
	assert_true(has(r.columns, r.ncolumns, "vital_data_table.sbp"));
	assert_true(has(r.columns, r.ncolumns, "vital_data_table.caseid"));
	assert_true(has(r.columns, r.ncolumns, "clinical_data_table.subjectid"));
	assert_true(has(r.columns, r.ncolumns, "lab_data_table.result"));
	assert_true(has(r.columns, r.ncolumns, "h.caseid"));
	assert_true(has(r.columns, r.ncolumns, "age"));
	guard_free(&r);
	assert_int_equal(guard_check("SELECT l.name FROM lab_data_table l TABLESAMPLE SYSTEM (1) FOR READ ONLY",
	                             &demo, &r), OK);
	assert_true(r.allowed);
	assert_true(has(r.columns, r.ncolumns, "lab_data_table.name"));
	guard_free(&r);
	assert_int_equal(guard_check("SELECT hr FROM public.vital_data_table", &demo, &r), OK);
	assert_true(r.allowed);
	assert_true(has(r.tables, r.ntables, "public.vital_data_table"));
	assert_true(has(r.columns, r.ncolumns, "public.vital_data_table.hr"));
	guard_free(&r);
}

static void test_system_catalogs(void **state)
{
	struct guard_opts o = demo;
	struct guard_result r;

	(void)state;
	o.allow_system_catalogs = 1;
	assert_int_equal(guard_check("SELECT relname FROM pg_class c JOIN pg_catalog.pg_namespace n "
	                             "ON n.oid = c.relnamespace", &o, &r), OK);
	assert_true(r.allowed);
	guard_free(&r);
	assert_int_equal(guard_check("SELECT table_name FROM information_schema.columns", &o, &r), OK);
	assert_true(r.allowed);
	guard_free(&r);
	assert_int_equal(guard_check("SELECT * FROM pg_catalog.pg_authid", &o, &r), OK);
	assert_false(r.allowed);
	guard_free(&r);
	assert_int_equal(guard_check("SELECT * FROM pg_class", &demo, &r), OK);
	assert_false(r.allowed);
	guard_free(&r);
	/* no callback: any ordinary relation is allowed (no catalog to check against) */
	o.relation_ok = NULL;
	assert_int_equal(guard_check("SELECT * FROM anything", &o, &r), OK);
	assert_true(r.allowed);
	guard_free(&r);
}

static void test_json_and_limits(void **state)
{
	struct guard_result r;
	cJSON *j;
	char *s, *big;

	(void)state;
	assert_int_equal(guard_check("SELECT hr FROM vital_data_table", &demo, &r), OK);
	s = guard_result_json(&r);
	assert_non_null(s);
	j = cJSON_Parse(s);
	assert_non_null(j);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "allowed")));
	assert_string_equal(cJSON_GetObjectItem(j, "sql")->valuestring, "SELECT hr FROM vital_data_table LIMIT 1000");
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "reason")));
	assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "tables"), 0)->valuestring, "vital_data_table");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "limit_added")));
	cJSON_Delete(j);
	free(s);
	guard_free(&r);

	big = malloc(200 * 1024);
	assert_non_null(big);
	memset(big, ' ', 200 * 1024 - 1);
	memcpy(big, "SELECT 1", 8);
	big[200 * 1024 - 1] = '\0';
	assert_int_equal(guard_check(big, &demo, &r), ERR_LIMIT);
	/* deep nesting is refused, not a crash */
	{
		size_t n = 20000, k = 0;

		memcpy(big, "SELECT ", 7);
		k = 7;
		for (size_t i = 0; i < n; i++)
			big[k++] = '(';
		big[k++] = '1';
		for (size_t i = 0; i < n; i++)
			big[k++] = ')';
		big[k] = '\0';
		assert_int_equal(guard_check(big, &demo, &r), OK);
		assert_false(r.allowed);
		guard_free(&r);
		k = 0;
		for (size_t i = 0; i < 300; i++)
			k += (size_t)sprintf(big + k, "SELECT * FROM (");
		k += (size_t)sprintf(big + k, "SELECT 1");
		for (size_t i = 0; i < 300; i++)
			k += (size_t)sprintf(big + k, ") s%zu", i);
		assert_int_equal(guard_check(big, &demo, &r), OK);
		assert_false(r.allowed);
		guard_free(&r);
	}
	free(big);
	assert_int_equal(guard_check(NULL, &demo, &r), ERR_INPUT);
}

/* Every entry of the denylist file is enforced, as written there (read the file itself). */
static void test_denylist_file(void **state)
{
	char path[512], *text, *p;
	const char *top = getenv("TOP");
	struct guard_opts sys = demo;
	int funcs = 0, rels = 0;

	(void)state;
	sys.allow_system_catalogs = 1;
	snprintf(path, sizeof path, "%s/app/sql/guard_denylist.def", top ? top : ".");
	text = slurp(path);
	assert_non_null(text);
	for (p = text; (p = strstr(p, "\nDENY_")); p++) {
		char name[128], sql[256];
		int is_func = !strncmp(p + 1, "DENY_FUNC(\"", 11), n = 0;
		const char *q = strchr(p, '"');
		struct guard_result r;

		if (!q)
			break;
		for (q++; *q && *q != '"' && n < 120; q++)
			name[n++] = *q == '*' ? 'x' : *q;   /* a prefix pattern: any name under it */
		name[n] = '\0';
		if (is_func) {
			snprintf(sql, sizeof sql, "SELECT 1 FROM clinical_data_table WHERE %s() IS NULL", name);
			funcs++;
		} else {
			snprintf(sql, sizeof sql, "SELECT * FROM pg_catalog.%s", name);
			rels++;
		}
		assert_int_equal(guard_check(sql, &sys, &r), OK);
		if (r.allowed || !strstr(r.reason, "not allowed"))
			fprintf(stderr, "denylist entry not enforced: %s -> %s\n", sql, r.reason ? r.reason : "allowed");
		assert_false(r.allowed);
		assert_non_null(strstr(r.reason, "not allowed"));
		guard_free(&r);
	}
	free(text);
	assert_true(funcs >= 70);
	assert_true(rels >= 15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_ordinary),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_positions),
		cmocka_unit_test(test_standard_strings),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_tables_columns),
		cmocka_unit_test(test_system_catalogs),
		cmocka_unit_test(test_json_and_limits),
		cmocka_unit_test(test_denylist_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
