/* test_run_state.c: the typed run state: a saved state loads back the same, the keys pages read are there, bad input is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "agent/run_state.h"

static void test_round_trip(void **state)
{
	struct run_state s, t;
	char *j, *j2;

	assert_int_equal(run_state_init(&s, RUN_REACT, "demo", "openai", "성별 환자 수", NULL), OK);
	assert_string_equal(s.now, "");            /* NULL is "" */
	assert_string_equal(s.pending_sql, "");
	assert_int_equal(s.max_retries, 3);
	s.attempt = 2;
	s.from_cache = 1;
	s.next = NEXT_EXEC;
	s.stage = RUN_STAGE_SQL;
	assert_int_equal(run_state_set(&s.pending_sql, "SELECT 1"), 0);
	/* the cache key's scope and model, and the analyst's mark, survive a pause */
	assert_string_equal(s.scope, "");
	assert_string_equal(s.model, "");
	assert_int_equal(s.edited, 0);
	assert_int_equal(run_state_set(&s.scope, "analyst"), 0);
	assert_int_equal(run_state_set(&s.model, "model-one"), 0);
	s.edited = 1;
	cJSON_AddObjectToObject(s.doc, "plan");
	j = run_state_json(&s);
	assert_non_null(j);
	/* the keys the run page reads stay where they were */
	cJSON *p = cJSON_Parse(j);
	assert_string_equal(cJSON_GetObjectItem(p, "stage")->valuestring, "sql");
	assert_string_equal(cJSON_GetObjectItem(p, "question")->valuestring, "성별 환자 수");
	assert_string_equal(cJSON_GetObjectItem(p, "mode")->valuestring, "react");
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(p, "history")));
	cJSON_Delete(p);
	assert_int_equal(run_state_load(j, &t), OK);
	assert_int_equal(t.mode, RUN_REACT);
	assert_int_equal(t.attempt, 2);
	assert_int_equal(t.from_cache, 1);
	assert_int_equal(t.next, NEXT_EXEC);
	assert_int_equal(t.stage, RUN_STAGE_SQL);
	assert_string_equal(t.pending_sql, "SELECT 1");
	assert_string_equal(t.provider, "openai");
	assert_string_equal(t.scope, "analyst");
	assert_string_equal(t.model, "model-one");
	assert_int_equal(t.edited, 1);
	assert_null(cJSON_GetObjectItem(t.doc, "attempt"));   /* scalars live in the struct only */
	assert_non_null(cJSON_GetObjectItem(t.doc, "plan"));
	j2 = run_state_json(&t);
	assert_string_equal(j, j2);
	free(j);
	free(j2);
	run_state_free(&s);
	run_state_free(&t);
}

static void test_refusals(void **state)
{
	struct run_state t;

	assert_int_equal(run_state_load(NULL, &t), ERR_PARSE);
	assert_int_equal(run_state_load("[1,2]", &t), ERR_PARSE);
	assert_int_equal(run_state_load("{\"stage\": ", &t), ERR_PARSE);
	/* an unknown stage is "not paused" (a resume is then refused by the agent) */
	assert_int_equal(run_state_load("{\"stage\": \"nonsense\", \"question\": \"q\"}", &t), OK);
	assert_int_equal(t.stage, RUN_STAGE_NONE);
	assert_string_equal(t.target, "");
	/* a state saved before scope, model and edited existed: empty, unedited (the cache key then
	 * uses a scope no current run has: query_cache.c) */
	assert_string_equal(t.scope, "");
	assert_string_equal(t.model, "");
	assert_int_equal(t.edited, 0);
	run_state_free(&t);
	assert_int_equal(run_stage_of("submit"), RUN_STAGE_SUBMIT);
	assert_null(run_stage_name(RUN_STAGE_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
