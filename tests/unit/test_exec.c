/* test_exec.c: the executor against the dev/test database: chunks, caps, errors and hints, READ ONLY, timeouts, reconnect. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "sql/exec.h"
#include "store/db.h"
#include "util/conf.h"

static int have_db;

struct count {
	int begins, ends, ncols;
	long long rows, sum, end_rows;
	int truncated;
	size_t bytes;
	int fail_after;     /* >0: the row callback fails after this many rows */
};

static enum err c_begin(void *ctx, const struct exec_col *cols, int ncols)
{
	struct count *k = ctx;

	k->begins++;
	k->ncols = ncols;
	return OK;
}

static enum err c_row(void *ctx, const char *const *vals, const int *lens, int ncols)
{
	struct count *k = ctx;

	if (k->fail_after && k->rows >= k->fail_after)
		return ERR_IO;
	k->rows++;
	k->sum += vals[0] ? atoll(vals[0]) : 0;
	for (int j = 0; j < ncols; j++)
		k->bytes += (size_t)lens[j];
	return OK;
}

static enum err c_end(void *ctx, long long nrows, int truncated)
{
	struct count *k = ctx;

	k->ends++;
	k->end_rows = nrows;
	k->truncated = truncated;
	return OK;
}

static int setup(void **state)
{
	const char *msg;

	if (!getenv("ASKQL_CONF") || conf_load(NULL, &msg) != OK)
		return 0;
	{
		char err[256];
		PGconn *c = exec_pool_get(NULL, err, sizeof err);

		have_db = c != NULL;
		exec_pool_put(c, 0);
	}
	return 0;
}

static int teardown(void **state)
{
	exec_pool_close();
	return 0;
}

#define NEED_DB() do { if (!have_db) { skip(); } } while (0)

static void test_chunked_fetch(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_opts o = {.chunk_rows = 7};
	struct exec_error e = {0};

	NEED_DB();
	assert_int_equal(exec_run("SELECT g, md5(g::text) FROM generate_series(1, 100) g", &o, &s, &e), OK);
	assert_int_equal(k.begins, 1);
	assert_int_equal(k.ends, 1);
	assert_int_equal(k.ncols, 2);
	assert_int_equal(k.rows, 100);
	assert_int_equal(k.sum, 5050);
	assert_int_equal(k.end_rows, 100);
	assert_int_equal(k.truncated, 0);
	/* exactly one chunk's worth and an empty result end cleanly too */
	memset(&k, 0, sizeof k);
	o.chunk_rows = 10;
	assert_int_equal(exec_run("SELECT g FROM generate_series(1, 10) g", &o, &s, &e), OK);
	assert_int_equal(k.rows, 10);
	memset(&k, 0, sizeof k);
	assert_int_equal(exec_run("SELECT g FROM generate_series(1, 0) g", &o, &s, &e), OK);
	assert_int_equal(k.begins, 1);
	assert_int_equal(k.rows, 0);
	assert_int_equal(k.ends, 1);
}

static void test_caps(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_opts o = {.max_rows = 10, .chunk_rows = 4};
	struct exec_error e = {0};

	NEED_DB();
	assert_int_equal(exec_run("SELECT g FROM generate_series(1, 100) g", &o, &s, &e), OK);
	assert_int_equal(k.rows, 10);
	assert_int_equal(k.truncated, 1);
	/* exactly max_rows rows is not truncated */
	memset(&k, 0, sizeof k);
	assert_int_equal(exec_run("SELECT g FROM generate_series(1, 10) g", &o, &s, &e), OK);
	assert_int_equal(k.rows, 10);
	assert_int_equal(k.truncated, 0);
	/* a byte cap: rows stop before the sum of value bytes exceeds it */
	memset(&k, 0, sizeof k);
	o.max_rows = 0;
	o.max_bytes = 50;
	assert_int_equal(exec_run("SELECT md5(g::text) FROM generate_series(1, 100) g", &o, &s, &e), OK);
	assert_int_equal(k.rows, 1);
	assert_true(k.bytes <= 50);
	assert_int_equal(k.truncated, 1);
}

static void test_errors_and_hints(void **state)
{
	struct exec_result r;
	struct exec_error e = {0};
	char *t, *j;

	NEED_DB();
	assert_int_equal(exec_fetch("SELECT nosuch FROM vital_data_table", NULL, &r, &e), ERR_DB);
	assert_string_equal(e.sqlstate, "42703");
	assert_string_equal(e.missing_column, "nosuch");
	assert_int_equal(e.position, 8);   /* in the caller's text, not in the DECLARE we sent */

	assert_int_equal(exec_fetch("SELECT v.hrr FROM vital_data_table v", NULL, &r, &e), ERR_DB);
	assert_string_equal(e.missing_column, "hrr");
	assert_non_null(e.hint);
	assert_string_equal(e.suggested, "v.hr");
	t = exec_error_text(&e);
	assert_non_null(strstr(t, "42703: column v.hrr does not exist"));
	free(t);
	j = exec_error_json(&e);
	assert_non_null(strstr(j, "\"suggested\":\"v.hr\""));
	free(j);

	assert_int_equal(exec_fetch("SELECT * FROM nosuch_table", NULL, &r, &e), ERR_DB);
	assert_string_equal(e.sqlstate, "42P01");
	assert_string_equal(e.missing_relation, "nosuch_table");
	assert_int_equal(e.position, 15);

	/* the guard's refusal comes back as ERR_DENIED with its reason */
	assert_int_equal(exec_fetch("DELETE FROM vital_data_table", NULL, &r, &e), ERR_DENIED);
	assert_non_null(e.message);
	exec_error_free(&e);
}

static void test_hint_parsing(void **state)
{
	struct exec_error e = {0};

	e.message = strdup("column \"Weird Name\" does not exist");
	e.hint = strdup("Perhaps you meant to reference the column \"c.weight\" or the column \"v.wt\".");
	exec_error_parse_hints(&e);
	assert_string_equal(e.missing_column, "Weird Name");
	assert_string_equal(e.suggested, "c.weight");
	exec_error_free(&e);
	/* the seed's form, "T"."C" */
	e.message = strdup("relation \"public.labs\" does not exist");
	e.hint = strdup("Perhaps you meant to reference the column \"lab\".\"name\".");
	exec_error_parse_hints(&e);
	assert_null(e.missing_column);
	assert_string_equal(e.missing_relation, "public.labs");
	assert_string_equal(e.suggested, "lab.name");
	exec_error_free(&e);
	e.message = strdup("syntax error at or near \"FROM\"");
	exec_error_parse_hints(&e);
	assert_null(e.missing_column);
	assert_null(e.missing_relation);
	assert_null(e.suggested);
	exec_error_free(&e);
}

static void test_read_only(void **state)
{
	struct exec_result r;
	struct exec_error e = {0};
	char err[256];
	PGconn *c;
	PGresult *pr;

	NEED_DB();
	/* the executor's session: read-only transaction, least-privilege role */
	assert_int_equal(exec_fetch("SELECT current_setting('transaction_read_only') AS ro, current_user AS u",
	                            NULL, &r, &e), OK);
	assert_int_equal(r.nrows, 1);
	assert_string_equal(r.rows[0][0], "on");
	if (strstr(exec_conninfo(), "askql_reader"))
		assert_string_equal(r.rows[0][1], "askql_reader");
	exec_result_free(&r);
	/* even a statement the guard never lets through fails inside exec's transaction */
	c = exec_pool_get(NULL, err, sizeof err);
	assert_non_null(c);
	assert_int_equal(exec_begin(c, &e), OK);
	pr = PQexec(c, "CREATE TEMP TABLE exec_ro_probe (a int)");
	assert_int_not_equal(PQresultStatus(pr), PGRES_COMMAND_OK);
	assert_string_equal(PQresultErrorField(pr, PG_DIAG_SQLSTATE), "25006");
	PQclear(pr);
	PQclear(PQexec(c, "ROLLBACK"));
	exec_pool_put(c, 0);
}

/* the memory gate (issue 27): the review's statement refused before it runs, with the reason */
static void test_gate_db(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_error e = {0};
	enum err rc;

	NEED_DB();
	rc = exec_run("SELECT array_length(array_agg(g), 1) AS n FROM generate_series(1, 60000000) g", NULL, &s, &e);
	assert_int_equal(rc, ERR_DENIED);
	assert_non_null(e.message);
	assert_non_null(strstr(e.message, "exec_max_agg_rows"));
	exec_error_free(&e);
	/* an error of the statement itself still comes back as the database's, positioned in the caller's text */
	rc = exec_run("SELECT nosuchcol FROM generate_series(1, 3) g", NULL, &s, &e);
	assert_int_equal(rc, ERR_DB);
	assert_string_equal(e.sqlstate, "42703");
	assert_int_equal(e.position, 8);
	exec_error_free(&e);
}

static void test_timeout(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_error e = {0};

	NEED_DB();
	/* set once and never restored: conf keeps every value it is given (runs last) */
	conf_set("statement_timeout_ms", "300", "test");
	/* a long series is what the memory gate refuses before it runs: off here, the server's timeout
	 * is the subject (the gate: test_gate_db) */
	conf_set("exec_max_series_rows", "0", "test");
	assert_int_equal(exec_run("SELECT count(*) FROM generate_series(1, 200000000) g", NULL, &s, &e), ERR_DB);
	assert_string_equal(e.sqlstate, "57014");
	exec_error_free(&e);
}

static double ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* rows that cost the server ~5 ms each: every FETCH is short, the whole result minutes long */
#define SLOW_SQL "SELECT g, (SELECT count(*) FROM generate_series(1, 100000 + g % 2)) AS n FROM generate_series(1, 100000) g"

/* in_tx: other sessions inside a transaction on the target database (the executor's, when it left
 * one open: nothing else runs there during the unit tests) */
static int in_tx(void)
{
	char err[256];
	PGconn *su = db_connect(conf_get("target_db"), err, sizeof err);
	PGresult *r;
	int n;

	assert_non_null(su);
	r = PQexec(su, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
	               "AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND xact_start IS NOT NULL");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	n = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(su);
	return n;
}

static void test_deadline(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_opts o = {.chunk_rows = 1000, .timeout_ms = 700};
	struct exec_error e = {0};
	struct exec_result r;
	double t0;

	NEED_DB();
	/* the whole run ends by the deadline, though each FETCH is within statement_timeout */
	t0 = ms_now();
	assert_int_equal(exec_run(SLOW_SQL, &o, &s, &e), ERR_TIMEOUT);
	assert_true(ms_now() - t0 >= 690 && ms_now() - t0 < 4000);   /* loose above: valgrind on a busy machine */
	assert_non_null(strstr(e.message, "time limit"));
	assert_int_equal(k.ends, 0);
	exec_error_free(&e);
	/* the statement was cancelled and rolled back: nothing stays open, the pooled connection works */
	assert_int_equal(in_tx(), 0);
	assert_int_equal(exec_fetch("SELECT 42", NULL, &r, &e), OK);
	assert_string_equal(r.rows[0][0], "42");
	exec_result_free(&r);
	/* rows that come fast end at the deadline too (single-row mode, a text column; a cross join
	 * streams where a function's result would be materialised first) */
	memset(&k, 0, sizeof k);
	o.timeout_ms = 1000;   /* long enough for the first rows under valgrind on a busy machine */
	t0 = ms_now();
	assert_int_equal(exec_run("SELECT v.caseid, l.name FROM vital_data_table v, lab_data_table l", &o, &s, &e),
	                 ERR_TIMEOUT);
	assert_true(ms_now() - t0 < 4000);
	assert_true(k.rows > 0);
	exec_error_free(&e);
	assert_int_equal(in_tx(), 0);
}

struct gone {
	double at;      /* the reader "leaves" at this time */
	int asked;
};

static int c_gone(void *ctx)
{
	struct gone *g = ctx;

	g->asked++;
	return ms_now() >= g->at;
}

static void test_cancelled(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct gone g = {0};
	struct exec_opts o = {.chunk_rows = 1000, .cancelled = c_gone, .cancel_ctx = &g};
	struct exec_error e = {0};
	double t0 = ms_now();

	NEED_DB();
	/* a reader that leaves while the server works on a FETCH is noticed within EXEC_POLL_MS */
	g.at = t0 + 400;
	assert_int_equal(exec_run(SLOW_SQL, &o, &s, &e), ERR_IO);
	assert_true(ms_now() - g.at < EXEC_POLL_MS + 600);
	assert_true(g.asked >= 2 && g.asked < 50);
	assert_non_null(strstr(e.message, "went away"));
	exec_error_free(&e);
	assert_int_equal(in_tx(), 0);
}

static void test_target_slots(void **state)
{
	struct count k = {0};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_error e = {0};
	char err[256];
	PGconn *su;
	PGresult *r;
	double t0;

	NEED_DB();
	conf_set("target_max_statements", "2", "test");
	conf_set("target_wait_ms", "300", "test");
	/* both slots held elsewhere (class 'ast\0', slots 0 and 1), as two busy workers would */
	su = db_connect(conf_get("target_db"), err, sizeof err);
	assert_non_null(su);
	r = PQexec(su, "SELECT pg_advisory_lock(1634956288, 0), pg_advisory_lock(1634956288, 1)");
	assert_int_equal(PQresultStatus(r), PGRES_TUPLES_OK);
	PQclear(r);
	t0 = ms_now();
	assert_int_equal(exec_run("SELECT 1", NULL, &s, &e), ERR_LIMIT);
	assert_true(ms_now() - t0 >= 290 && ms_now() - t0 < 2000);
	assert_non_null(strstr(e.message, "target_max_statements"));
	assert_int_equal(k.begins, 0);
	exec_error_free(&e);
	/* one comes free: the statement runs, and its slot ends with its transaction */
	PQclear(PQexec(su, "SELECT pg_advisory_unlock(1634956288, 1)"));
	assert_int_equal(exec_run("SELECT 1", NULL, &s, &e), OK);
	assert_int_equal(k.rows, 1);
	r = PQexec(su, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = 1634956288 "
	               "AND pid <> pg_backend_pid()");
	assert_string_equal(PQgetvalue(r, 0, 0), "0");
	PQclear(r);
	/* 0: no limit */
	conf_set("target_max_statements", "0", "test");
	PQclear(PQexec(su, "SELECT pg_advisory_lock(1634956288, 1)"));
	assert_int_equal(exec_run("SELECT 1", NULL, &s, &e), OK);
	PQfinish(su);
	conf_set("target_max_statements", "8", "test");
	conf_set("target_wait_ms", "2000", "test");
}

static void test_sink_error_cancels(void **state)
{
	struct count k = {.fail_after = 5};
	struct exec_sink s = {c_begin, c_row, c_end, &k};
	struct exec_opts o = {.chunk_rows = 1000};
	struct exec_result r;
	struct exec_error e = {0};

	NEED_DB();
	/* a sink failure stops an expensive stream and leaves the pooled connection usable */
	/* a cross join streams (no materialised function result): ~12 billion rows */
	assert_int_equal(exec_run("SELECT v.caseid FROM vital_data_table v, lab_data_table l", &o, &s, &e),
	                 ERR_IO);
	assert_int_equal(k.rows, 5);
	assert_int_equal(k.ends, 0);
	assert_int_equal(exec_fetch("SELECT 42", NULL, &r, &e), OK);
	assert_string_equal(r.rows[0][0], "42");
	exec_result_free(&r);
}

static void test_reconnect(void **state)
{
	struct exec_result r;
	struct exec_error e = {0};
	char err[256], *pid;
	PGconn *su;
	PGresult *pr;
	const char *p[1];

	NEED_DB();
	assert_int_equal(exec_fetch("SELECT pg_backend_pid()", NULL, &r, &e), OK);
	pid = strdup(r.rows[0][0]);
	exec_result_free(&r);
	/* kill the pooled backend, as a server restart would: as the superuser the test runner's
	 * environment names (PGUSER, PGPASSFILE), since no role of askql.conf may */
	su = db_connect("dbname=postgres", err, sizeof err);
	assert_non_null(su);
	p[0] = pid;
	pr = PQexecParams(su, "SELECT pg_terminate_backend($1::int, 5000)", 1, NULL, p, NULL, NULL, 0);
	assert_int_equal(PQresultStatus(pr), PGRES_TUPLES_OK);
	PQclear(pr);
	PQfinish(su);
	assert_int_equal(exec_fetch("SELECT pg_backend_pid()", NULL, &r, &e), OK);
	assert_string_not_equal(r.rows[0][0], pid);
	exec_result_free(&r);
	free(pid);
}

static void test_result_json(void **state)
{
	struct exec_result r;
	struct exec_error e = {0};
	char *j;

	NEED_DB();
	assert_int_equal(exec_fetch("SELECT 1 AS a, 'x\"y' AS b, NULL::int AS c, 'NaN'::float8 AS d, true AS e, "
	                            "1.50::numeric AS f", NULL, &r, &e), OK);
	j = exec_result_json(&r);
	assert_non_null(strstr(j, "\"columns\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"]"));
	assert_non_null(strstr(j, "\"rows\":[[1,\"x\\\"y\",null,\"NaN\",true,1.50]]"));
	assert_non_null(strstr(j, "\"row_count\":1,\"truncated\":false"));
	free(j);
	exec_result_free(&r);
	/* previews are capped and say so */
	{
		struct exec_opts o = {.max_rows = 3};

		assert_int_equal(exec_fetch("SELECT g FROM generate_series(1, 10) g", &o, &r, &e), OK);
		assert_int_equal(r.nrows, 3);
		assert_int_equal(r.truncated, 1);
		exec_result_free(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hint_parsing),
		cmocka_unit_test(test_chunked_fetch),
		cmocka_unit_test(test_caps),
		cmocka_unit_test(test_errors_and_hints),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_sink_error_cancels),
		cmocka_unit_test(test_reconnect),
		cmocka_unit_test(test_result_json),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_cancelled),
		cmocka_unit_test(test_target_slots),
		cmocka_unit_test(test_gate_db),
		cmocka_unit_test(test_timeout),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
