/* test_explain.c: the EXPLAIN walk on canned plans (no database), then explain_run and hypopg on the dev/test database. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "sql/explain.h"
#include "util/conf.h"

static int have_db;

static double rows_of(void *ctx, const char *rel)
{
	return !strcmp(rel, "vital_data_table") ? 128815 : !strcmp(rel, "lab_data_table") ? 96812 : -1;
}

static const struct explain_finding *find(const struct explain_result *r, enum explain_kind k)
{
	for (int i = 0; i < r->nfindings; i++)
		if (r->findings[i].kind == k)
			return &r->findings[i];
	return NULL;
}

static void test_seq_scan_filter(void **state)
{
	const char *plan =
		"[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"vital_data_table\", \"Alias\": \"v\","
		" \"Startup Cost\": 0.0, \"Total Cost\": 5079.19, \"Plan Rows\": 120, \"Plan Width\": 40,"
		" \"Filter\": \"((sbp > '140'::double precision) AND ((\\\"Unit\\\")::text = 'mmHg'::text))\"}}]";
	struct explain_result r = {0};
	const struct explain_finding *f;
	char *j;

	assert_int_equal(explain_analyze(plan, 4096, rows_of, NULL, &r), OK);
	assert_int_equal(r.nfindings, 1);
	f = find(&r, EXPLAIN_SEQ_SCAN);
	assert_non_null(f);
	assert_true(f->warning);
	assert_true(f->rows == 128815);
	assert_string_equal(f->index_table, "vital_data_table");
	/* equality column first, then the range column; quoted names kept */
	assert_string_equal(f->index_columns, "Unit, sbp");
	assert_non_null(strstr(f->text, "128,815"));
	assert_false(r.efficient);
	j = explain_json(&r);
	cJSON *d = cJSON_Parse(j);
	assert_non_null(d);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(d, "findings"), 0), "kind")->valuestring,
	                    "seq_scan");
	cJSON_Delete(d);
	free(j);
	explain_free(&r);
}

static void test_small_and_unselective(void **state)
{
	const char *small = "[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"diagnosis_table\","
	                    " \"Total Cost\": 10, \"Plan Rows\": 500, \"Plan Width\": 8}}]";
	const char *wide = "[{\"Plan\": {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"vital_data_table\","
	                   " \"Total Cost\": 5079, \"Plan Rows\": 120000, \"Plan Width\": 8,"
	                   " \"Filter\": \"(hr > '10'::double precision)\"}}]";
	struct explain_result r = {0};
	char *t;

	assert_int_equal(explain_analyze(small, 4096, NULL, NULL, &r), OK);
	assert_int_equal(r.nfindings, 0);
	assert_true(r.efficient);
	t = explain_text(&r);
	assert_non_null(strstr(t, "No problems"));
	free(t);
	explain_free(&r);
	/* a filter that keeps most rows: reported, but no index suggested */
	assert_int_equal(explain_analyze(wide, 4096, rows_of, NULL, &r), OK);
	assert_int_equal(r.nfindings, 1);
	assert_null(r.findings[0].index_table);
	explain_free(&r);
	assert_int_equal(explain_analyze("{\"not\": \"a plan\"}", 4096, NULL, NULL, &r), ERR_PARSE);
	explain_free(&r);
}

static void test_nested_loop_and_spills(void **state)
{
	const char *plan =
		"[{\"Plan\": {\"Node Type\": \"Sort\", \"Total Cost\": 3e8, \"Plan Rows\": 4000000, \"Plan Width\": 80,"
		"  \"Sort Key\": [\"v.hr\"], \"Plans\": ["
		"  {\"Node Type\": \"Nested Loop\", \"Total Cost\": 2.6e8, \"Plan Rows\": 4000000, \"Plan Width\": 80,"
		"   \"Join Filter\": \"(v.hr > l.result)\", \"Plans\": ["
		"    {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"vital_data_table\", \"Alias\": \"v\","
		"     \"Total Cost\": 2000, \"Plan Rows\": 128815, \"Plan Width\": 40},"
		"    {\"Node Type\": \"Materialize\", \"Total Cost\": 3000, \"Plan Rows\": 96812, \"Plan Width\": 40, \"Plans\": ["
		"      {\"Node Type\": \"Seq Scan\", \"Relation Name\": \"lab_data_table\", \"Alias\": \"l\","
		"       \"Total Cost\": 2000, \"Plan Rows\": 96812, \"Plan Width\": 40}]}]}]}}]";
	struct explain_result r = {0};
	const struct explain_finding *f;

	assert_int_equal(explain_analyze(plan, 4096, rows_of, NULL, &r), OK);
	f = find(&r, EXPLAIN_NESTED_LOOP);
	assert_non_null(f);
	assert_string_equal(f->index_table, "lab_data_table");
	assert_string_equal(f->index_columns, "result");
	f = find(&r, EXPLAIN_SORT_SPILL);
	assert_non_null(f);
	assert_string_equal(f->index_table, "vital_data_table");
	assert_string_equal(f->index_columns, "hr");
	assert_non_null(strstr(f->text, "spill"));
	f = find(&r, EXPLAIN_HIGH_COST);
	assert_non_null(f);
	assert_false(f->warning);
	assert_non_null(find(&r, EXPLAIN_SEQ_SCAN));
	explain_free(&r);
}

static void test_top_n_sort_fits(void **state)
{
	/* ORDER BY ... LIMIT 10: a bounded sort keeps ten rows, never spills */
	const char *plan =
		"[{\"Plan\": {\"Node Type\": \"Limit\", \"Total Cost\": 9000, \"Plan Rows\": 10, \"Plan Width\": 80,"
		"  \"Plans\": [{\"Node Type\": \"Sort\", \"Total Cost\": 9000, \"Plan Rows\": 4000000, \"Plan Width\": 80,"
		"  \"Sort Key\": [\"hr\"], \"Plans\": []}]}}]";
	struct explain_result r = {0};

	assert_int_equal(explain_analyze(plan, 4096, NULL, NULL, &r), OK);
	assert_null(find(&r, EXPLAIN_SORT_SPILL));
	explain_free(&r);
}

/* the memory gate (issue 27): plans as EXPLAIN (VERBOSE, FORMAT JSON) prints them */
static void test_gate(void **state)
{
	/* three array_agg over generate_series(1, 60000000), each in an InitPlan (the review's statement) */
	static const char *arr =
		"[{\"Plan\": {\"Node Type\": \"Result\", \"Total Cost\": 3600000.1, \"Plan Rows\": 1, \"Output\": [\"$0\", \"$1\"],"
		" \"Plans\": [{\"Node Type\": \"Aggregate\", \"Strategy\": \"Plain\", \"Plan Rows\": 1, \"Total Cost\": 1200000,"
		" \"Output\": [\"array_length(array_agg(g.g), 1)\"], \"Plans\": [{\"Node Type\": \"Function Scan\","
		" \"Function Name\": \"generate_series\", \"Function Call\": \"generate_series(1, 60000000)\","
		" \"Plan Rows\": 60000000, \"Total Cost\": 600000, \"Output\": [\"g.g\"]}]}]}}]";
	/* a count over the same series: no accumulating aggregate */
	static const char *cnt =
		"[{\"Plan\": {\"Node Type\": \"Aggregate\", \"Plan Rows\": 1, \"Total Cost\": 750000,"
		" \"Output\": [\"count(*)\", \"my_array_agg(g.g)\"], \"Plans\": [{\"Node Type\": \"Function Scan\","
		" \"Function Call\": \"generate_series(1, 60000000)\", \"Plan Rows\": 60000000, \"Total Cost\": 600000}]}}]";
	/* generate_series in the select list */
	static const char *srf =
		"[{\"Plan\": {\"Node Type\": \"ProjectSet\", \"Plan Rows\": 200000000, \"Total Cost\": 1000000,"
		" \"Output\": [\"generate_series(1, 200000000)\"], \"Plans\": [{\"Node Type\": \"Result\", \"Plan Rows\": 1}]}}]";
	struct explain_gate_limits lim = {10e6, 10e6, 1e9}, off = {0, 0, 0};
	struct explain_gate_out o;
	char *t;

	(void)state;
	assert_int_equal(explain_gate(arr, &lim, &o), OK);
	assert_int_equal(o.kind, GATE_AGG_ROWS);
	assert_string_equal(o.func, "array_agg");
	assert_true(o.value == 60e6);
	t = explain_gate_text(&o);
	assert_string_equal(t, "refused before it ran: array_agg would collect about 60,000,000 rows in the memory of "
	                       "one database process, more than exec_max_agg_rows (10,000,000) allows; count, sum or "
	                       "average them instead, or narrow the rows");
	free(t);
	/* the count's series is over the series limit only when that is lower; my_array_agg is not array_agg */
	assert_int_equal(explain_gate(cnt, &(struct explain_gate_limits){10e6, 100e6, 1e9}, &o), OK);
	assert_int_equal(o.kind, GATE_OK);
	assert_int_equal(explain_gate(cnt, &lim, &o), OK);
	assert_int_equal(o.kind, GATE_SERIES_ROWS);
	assert_int_equal(explain_gate(srf, &lim, &o), OK);
	assert_int_equal(o.kind, GATE_SERIES_ROWS);
	assert_true(o.value == 200e6);
	/* the cost of the whole plan */
	assert_int_equal(explain_gate(cnt, &(struct explain_gate_limits){0, 0, 1000}, &o), OK);
	assert_int_equal(o.kind, GATE_COST);
	t = explain_gate_text(&o);
	assert_non_null(strstr(t, "exec_max_cost (1,000)"));
	free(t);
	/* every limit 0: nothing checked */
	assert_int_equal(explain_gate(arr, &off, &o), OK);
	assert_int_equal(o.kind, GATE_OK);
	/* not an EXPLAIN document */
	assert_int_equal(explain_gate("{\"x\": 1}", &lim, &o), ERR_PARSE);
	assert_int_equal(explain_gate(NULL, &lim, &o), ERR_PARSE);
	assert_int_equal(explain_gate("[{\"Plan\": 1", &lim, &o), ERR_PARSE);
}

static void test_explain_run_db(void **state)
{
	struct explain_result r;
	struct exec_error e = {0};
	const struct explain_finding *f;

	if (!have_db)
		skip();
	assert_int_equal(explain_run("SELECT * FROM vital_data_table WHERE hr > 150", NULL, &r, &e), OK);
	f = find(&r, EXPLAIN_SEQ_SCAN);
	assert_non_null(f);
	assert_string_equal(f->index_columns, "hr");
	if (!r.hypo_note) {
		/* hypopg available: the planner would use an index for so few rows */
		assert_true(f->index_checked);
		assert_true(f->index_used);
		assert_true(f->cost_with < r.total_cost);
	}
	explain_free(&r);
	/* errors come back structured, positions in the caller's text */
	assert_int_equal(explain_run("SELECT nope FROM vital_data_table", NULL, &r, &e), ERR_DB);
	assert_string_equal(e.missing_column, "nope");
	assert_int_equal(e.position, 8);
	explain_free(&r);
	assert_int_equal(explain_run("DELETE FROM vital_data_table", NULL, &r, &e), ERR_DENIED);
	explain_free(&r);
	exec_error_free(&e);
}

static int setup(void **state)
{
	const char *msg;

	if (getenv("ASKQL_CONF") && conf_load(NULL, &msg) == OK) {
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seq_scan_filter),
		cmocka_unit_test(test_small_and_unselective),
		cmocka_unit_test(test_nested_loop_and_spills),
		cmocka_unit_test(test_top_n_sort_fits),
		cmocka_unit_test(test_gate),
		cmocka_unit_test(test_explain_run_db),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
