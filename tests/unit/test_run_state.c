/* test_run_state.c: the typed run state: states saved by the old (JSON dictionary) code load and save back the same, a round trip keeps everything, the keys pages read are there, bad input is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "agent/run_state.h"

/*
 * An extraction run paused at its SQL as the code before the typed parts saved it (the keys
 * of extract.c's back_to_rejected, load_parent, add_history and apply_edits): the analyst
 * rejected a SQL with a comment the planner could not apply, after two plan edits; a follow-up.
 */
static const char old_extract[] =
	"{\"history\":[{\"attempt\":1,\"sql\":\"SELECT x FROM labs\",\"error\":\"42703: column x does not exist\","
	"\"missing_column\":\"x\",\"missing_relation\":\"labs\",\"suggested\":\"labs.value\"},"
	"{\"attempt\":2,\"sql\":\"SELECT count(*) FROM labs\",\"error\":\"rejected by the analyst: 성별로\","
	"\"comment\":\"성별로\"}],"
	"\"parent\":{\"id\":41,\"question\":\"칼륨 검사 수\",\"sql\":\"SELECT count(*) FROM labs\","
	"\"columns\":[{\"name\":\"count\",\"type\":\"number\"}],\"row_count\":1},"
	"\"plan\":{\"tables\":[\"labs\",\"patients\"],\"columns\":[{\"table\":\"labs\",\"column\":\"value\",\"type\":\"numeric\"},"
	"{\"table\":\"labs\",\"column\":\"code\"}],\"joins\":[\"labs.patient_id = patients.id\"],"
	"\"mappings\":[{\"phrase\":\"칼륨\",\"table\":\"labs\",\"column\":\"code\",\"value\":\"K\",\"how\":\"lexicon\"},"
	"{\"phrase\":\"\",\"table\":\"labs\",\"column\":\"code\",\"value\":\"NA\",\"how\":\"analyst\"}],"
	"\"intent\":\"aggregation\",\"block\":\"TABLE labs(patient_id, code, value)\\n\","
	"\"examples\":[{\"question\":\"how many labs\",\"sql\":\"SELECT count(*) FROM labs\",\"score\":0.91}]},"
	"\"edits\":[{\"op\":2,\"table\":\"labs\",\"column\":\"code\",\"value\":\"NA\"},{\"op\":1,\"table\":\"visits\"}],"
	"\"pause\":{\"sql\":\"SELECT count(*) FROM labs\",\"attempt\":1,\"max_attempts\":3,"
	"\"note\":\"no column for 성별\",\"comment\":\"성별로\","
	"\"plan\":{\"tables\":[\"labs\",\"patients\"],\"columns\":[{\"table\":\"labs\",\"column\":\"value\",\"type\":\"numeric\"},"
	"{\"table\":\"labs\",\"column\":\"code\"}],\"joins\":[\"labs.patient_id = patients.id\"],"
	"\"mappings\":[{\"phrase\":\"칼륨\",\"table\":\"labs\",\"column\":\"code\",\"value\":\"K\",\"how\":\"lexicon\"},"
	"{\"phrase\":\"\",\"table\":\"labs\",\"column\":\"code\",\"value\":\"NA\",\"how\":\"analyst\"}],"
	"\"intent\":\"aggregation\"},\"stage\":\"sql\"},"
	"\"v\":1,\"mode\":\"extract\",\"target\":\"demo\",\"provider\":\"builtin\",\"question\":\"칼륨 검사 환자 수\","
	"\"now\":\"2024-05-01 00:00:00\",\"scope\":\"analyst\",\"model\":\"builtin\",\"step_mode\":1,\"no_cache\":1,"
	"\"edited\":1,\"attempt\":1,\"max_retries\":3,\"from_cache\":0,\"next\":\"exec\",\"stage\":\"sql\","
	"\"pending_sql\":\"SELECT count(*) FROM labs\"}";

/* A ReAct run paused at its submit (react.c's pause_for_decision), the builtin driver's plan kept. */
static const char old_react[] =
	"{\"history\":[{\"attempt\":1,\"sql\":\"SELECT bad\",\"error\":\"the SQL to submit did not pass explain: syntax\"}],"
	"\"plan\":{\"tables\":[\"patients\"],\"columns\":[{\"table\":\"patients\",\"column\":\"gender\",\"type\":\"text\"}],"
	"\"joins\":[],\"mappings\":[],\"intent\":\"aggregation\",\"block\":\"TABLE patients(id, gender)\\n\","
	"\"note\":\"Nothing in the question matched\"},"
	"\"react\":{\"max_calls\":8,\"calls\":4,\"iteration\":5,\"any_explain\":1,"
	"\"explained\":[\"SELECT gender, count(*) FROM patients GROUP BY 1\"],"
	"\"tools_used\":[\"search_tables\",\"search_columns\",\"find_similar_query\",\"explain\"],"
	"\"messages\":[{\"role\":\"system\",\"content\":\"Reply with <reasoning>\"},{\"role\":\"user\",\"content\":\"[User Query]\"},"
	"{\"role\":\"assistant\",\"content\":\"<tool_call><name>explain</name></tool_call>\"},"
	"{\"role\":\"user\",\"content\":\"<tool_result name=\\\"explain\\\" status=\\\"ok\\\">\"}],"
	"\"xml_streak\":0,\"builtin_sql\":\"SELECT gender, count(*) FROM patients GROUP BY 1\",\"builtin_planned_at\":1,"
	"\"pending\":{\"params\":{\"sql\":\"SELECT gender, count(*) FROM patients GROUP BY 1\"},\"tool\":\"submit_sql\","
	"\"reasoning\":\"builtin: explain passed, submit\",\"raw\":\"<reasoning>r</reasoning>\","
	"\"rewrite\":\"execute_sql_preview -> submit_sql (last_call_force_submit)\"}},"
	"\"pause\":{\"tool\":\"submit_sql\",\"sql\":\"SELECT gender, count(*) FROM patients GROUP BY 1\","
	"\"rewrite\":\"execute_sql_preview -> submit_sql (last_call_force_submit)\",\"calls\":4,\"max_calls\":8,"
	"\"stage\":\"submit\"},"
	"\"v\":1,\"mode\":\"react\",\"target\":\"demo\",\"provider\":\"builtin\",\"question\":\"성별 환자 수\",\"now\":\"\","
	"\"scope\":\"cli\",\"model\":\"builtin\",\"step_mode\":1,\"no_cache\":0,\"edited\":0,\"attempt\":0,"
	"\"max_retries\":3,\"from_cache\":0,\"next\":\"inspect\",\"stage\":\"submit\",\"pending_sql\":\"\"}";

/* A ReAct run paused on its plan: the pause shows the plan without its prompt block. */
static const char old_react_plan[] =
	"{\"history\":[],\"plan\":{\"tables\":[\"patients\"],\"columns\":[],\"joins\":[],\"mappings\":[],"
	"\"intent\":\"count\",\"block\":\"TABLE patients(id)\\n\",\"examples\":[{\"question\":\"q\",\"sql\":\"SELECT 1\",\"score\":0.5}]},"
	"\"react\":{\"max_calls\":8,\"calls\":0,\"iteration\":0,\"any_explain\":0,\"explained\":[],\"tools_used\":[]},"
	"\"pause\":{\"plan\":{\"tables\":[\"patients\"],\"columns\":[],\"joins\":[],\"mappings\":[],\"intent\":\"count\","
	"\"examples\":[{\"question\":\"q\",\"sql\":\"SELECT 1\",\"score\":0.5}]},\"stage\":\"plan\"},"
	"\"mode\":\"react\",\"stage\":\"plan\",\"question\":\"환자 수\"}";

/* The state the old packager saved at the end of a run: the parts only, no scalar keys. */
static const char old_finished[] =
	"{\"history\":[],\"plan\":{\"tables\":[\"patients\"],\"columns\":[],\"joins\":[],\"mappings\":[],\"intent\":\"count\"}}";

/* same_json: a and b hold the same keys and values (key order aside). */
static void same_json(const char *a, const char *b)
{
	cJSON *x = cJSON_Parse(a), *y = cJSON_Parse(b);

	assert_non_null(x);
	assert_non_null(y);
	if (!cJSON_Compare(x, y, 1))
		fail_msg("differ:\n%s\n%s", a, b);
	cJSON_Delete(x);
	cJSON_Delete(y);
}

/* round_trip: load json, save it, load that, save again: the two saves are the same text; the
 * first save is returned (heap) with the state loaded from it in *t. */
static char *round_trip(const char *json, struct run_state *t)
{
	struct run_state s;
	char *j, *j2;

	assert_int_equal(run_state_load(json, &s), OK);
	j = run_state_json(&s);
	assert_non_null(j);
	run_state_free(&s);
	assert_int_equal(run_state_load(j, t), OK);
	j2 = run_state_json(t);
	assert_string_equal(j, j2);
	free(j2);
	return j;
}

static void test_old_extract(void **state)
{
	struct run_state t;
	char *j = round_trip(old_extract, &t);

	/* every key and value the old code saved comes back */
	same_json(old_extract, j);
	assert_int_equal(t.mode, RUN_EXTRACT);
	assert_int_equal(t.stage, RUN_STAGE_SQL);
	assert_int_equal(t.next, NEXT_EXEC);
	assert_int_equal(t.edited, 1);
	assert_int_equal(t.nhistory, 2);
	assert_int_equal(t.history[0].attempt, 1);
	assert_string_equal(t.history[0].missing_column, "x");
	assert_string_equal(t.history[0].missing_relation, "labs");
	assert_string_equal(t.history[0].suggested, "labs.value");
	assert_null(t.history[0].comment);
	assert_string_equal(run_history_last(&t)->comment, "성별로");
	assert_null(run_history_last(&t)->suggested);
	assert_int_equal(t.parent.id, 41);
	assert_string_equal(t.parent.question, "칼륨 검사 수");
	assert_string_equal(t.parent.sql, "SELECT count(*) FROM labs");
	assert_int_equal(t.parent.ncolumns, 1);
	assert_string_equal(t.parent.columns[0].name, "count");
	assert_string_equal(t.parent.columns[0].type, "number");
	assert_int_equal(t.parent.row_count, 1);
	assert_true(t.plan.set);
	assert_int_equal(t.plan.tables.n, 2);
	assert_int_equal(t.plan.ncolumns, 2);
	assert_null(t.plan.columns[1].type);
	assert_int_equal(t.plan.joins.n, 1);
	assert_int_equal(t.plan.nmappings, 2);
	assert_string_equal(t.plan.mappings[1].how, "analyst");
	assert_int_equal(t.plan.nexamples, 1);
	assert_string_equal(t.plan.intent, "aggregation");
	assert_non_null(t.plan.block);
	assert_null(t.plan.note);
	assert_int_equal(t.nedits, 2);
	assert_int_equal(t.edits[0].op, PLAN_ADD_MAPPING);
	assert_string_equal(t.edits[0].value, "NA");
	assert_null(t.edits[0].phrase);
	assert_int_equal(t.edits[1].op, PLAN_REMOVE_TABLE);
	assert_null(t.edits[1].column);
	assert_int_equal(t.pause.plan, PLAN_VIEW_BRIEF);
	assert_string_equal(t.pause.note, "no column for 성별");
	assert_string_equal(t.pause.comment, "성별로");
	assert_int_equal(t.pause.max_attempts, 3);
	assert_null(t.pause.tool);
	assert_false(t.react.set);
	/* what the run page reads (run.c add_pause, page_run's notice) */
	{
		cJSON *o = cJSON_Parse(j), *p = cJSON_GetObjectItem(o, "pause"), *pl = cJSON_GetObjectItem(p, "plan");

		assert_string_equal(cJSON_GetObjectItem(p, "stage")->valuestring, "sql");
		assert_string_equal(cJSON_GetObjectItem(p, "sql")->valuestring, "SELECT count(*) FROM labs");
		assert_true(cJSON_IsString(cJSON_GetObjectItem(p, "note")));
		assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(pl, "mappings")), 2);
		assert_null(cJSON_GetObjectItem(pl, "block"));
		assert_null(cJSON_GetObjectItem(pl, "examples"));
		assert_string_equal(cJSON_GetObjectItem(o, "model")->valuestring, "builtin");
		cJSON_Delete(o);
	}
	free(j);
	run_state_free(&t);
}

static void test_old_react(void **state)
{
	struct run_state t;
	char *j = round_trip(old_react, &t);

	same_json(old_react, j);
	assert_int_equal(t.mode, RUN_REACT);
	assert_int_equal(t.stage, RUN_STAGE_SUBMIT);
	assert_true(t.react.set);
	assert_int_equal(t.react.max_calls, 8);
	assert_int_equal(t.react.calls, 4);
	assert_int_equal(t.react.iteration, 5);
	assert_int_equal(t.react.any_explain, 1);
	assert_int_equal(t.react.explained.n, 1);
	assert_int_equal(run_strs_find(&t.react.tools_used, "find_similar_query"), 2);
	assert_int_equal(t.react.nmessages, 4);
	assert_int_equal(t.react.messages[0].role, ROLE_SYSTEM);
	assert_int_equal(t.react.messages[2].role, ROLE_ASSISTANT);
	assert_true(t.react.pending.set);
	assert_string_equal(t.react.pending.call.tool, "submit_sql");
	assert_string_equal(react_call_param(&t.react.pending.call, "sql"), t.react.builtin_sql);
	assert_false(t.react.pending.decided);
	assert_null(t.react.builtin_missing);
	assert_int_equal(t.react.builtin_planned_at, 1);
	assert_string_equal(t.plan.note, "Nothing in the question matched");
	assert_int_equal(t.pause.plan, PLAN_VIEW_NONE);
	assert_string_equal(t.pause.tool, "submit_sql");
	assert_int_equal(t.pause.max_calls, 8);
	assert_int_equal(t.pause.max_attempts, 0);
	assert_int_equal(t.history[0].attempt, 1);
	free(j);
	run_state_free(&t);
}

static void test_old_react_plan(void **state)
{
	struct run_state t;
	char *j = round_trip(old_react_plan, &t);
	cJSON *a = cJSON_Parse(old_react_plan), *b = cJSON_Parse(j);

	/* the pause is the same object; the ReAct part gains only its zero xml_streak */
	assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "pause"), cJSON_GetObjectItem(b, "pause"), 1));
	assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "plan"), cJSON_GetObjectItem(b, "plan"), 1));
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(b, "react"), "xml_streak");
	assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "react"), cJSON_GetObjectItem(b, "react"), 1));
	assert_int_equal(t.pause.plan, PLAN_VIEW_SHOWN);
	assert_false(t.react.pending.set);
	assert_int_equal(t.react.nmessages, 0);
	cJSON_Delete(a);
	cJSON_Delete(b);
	free(j);
	run_state_free(&t);
}

static void test_old_finished(void **state)
{
	struct run_state t;
	char *j = round_trip(old_finished, &t);

	/* verify.c completes such a state from the run's columns */
	assert_int_equal(t.mode, RUN_EXTRACT);
	assert_int_equal(t.stage, RUN_STAGE_NONE);
	assert_string_equal(t.model, "");
	assert_true(t.plan.set);
	assert_null(strstr(j, "\"pause\""));
	free(j);
	run_state_free(&t);
}

/* A new run built through the typed API, paused, saved, loaded: the same state. */
static void test_round_trip(void **state)
{
	struct run_state s, t;
	struct run_attempt *at;
	struct planner_edit e = {.op = PLAN_ADD_MAPPING, .table = "labs", .column = "code", .value = "K",
	                         .phrase = "칼륨"};
	struct run_pause_spec ps = {.plan = PLAN_VIEW_BRIEF, .sql = "SELECT 1", .attempt = 2, .max_attempts = 3};
	char *j, *j2;

	assert_int_equal(run_state_init(&s, RUN_EXTRACT, "demo", "openai", "성별 환자 수", NULL), OK);
	assert_string_equal(s.now, "");            /* NULL is "" */
	assert_string_equal(s.pending_sql, "");
	assert_int_equal(s.max_retries, 3);
	assert_int_equal(s.nhistory, 0);
	assert_null(run_history_last(&s));
	s.attempt = 2;
	s.from_cache = 1;
	s.next = NEXT_EXEC;
	assert_int_equal(run_state_set(&s.pending_sql, "SELECT 1"), 0);
	assert_int_equal(run_state_set(&s.scope, "analyst"), 0);
	assert_int_equal(run_state_set(&s.model, "model-one"), 0);
	s.edited = 1;
	assert_int_equal(run_history_add(&s, 1, "SELECT x", NULL, &at), OK);
	assert_string_equal(at->error, "");
	assert_int_equal(run_state_opt(&at->suggested, "t.y"), 0);
	assert_int_equal(run_parent_set(&s, 7, "q", NULL, "[{\"name\":\"n\",\"type\":\"number\"}]", 12), OK);
	assert_null(s.parent.sql);
	assert_int_equal(run_strs_add(&s.plan.tables, "labs"), OK);
	s.plan.set = 1;
	assert_int_equal(run_plan_add_column(&s.plan, "labs", "code", NULL), OK);
	assert_int_equal(run_edit_add(&s, &e), OK);
	assert_int_equal(run_plan_edit(&s.plan, &e), OK);
	assert_string_equal(s.plan.mappings[0].how, "analyst");
	assert_int_equal(run_pause_set(&s, RUN_STAGE_SQL, &ps), OK);
	assert_int_equal(s.stage, RUN_STAGE_SQL);
	j = run_state_json(&s);
	assert_non_null(j);
	{
		cJSON *p = cJSON_Parse(j);

		assert_string_equal(cJSON_GetObjectItem(p, "stage")->valuestring, "sql");
		assert_string_equal(cJSON_GetObjectItem(p, "question")->valuestring, "성별 환자 수");
		assert_string_equal(cJSON_GetObjectItem(p, "mode")->valuestring, "extract");
		assert_true(cJSON_IsArray(cJSON_GetObjectItem(p, "history")));
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "pause"), "stage")->valuestring, "sql");
		cJSON_Delete(p);
	}
	assert_int_equal(run_state_load(j, &t), OK);
	assert_int_equal(t.attempt, 2);
	assert_int_equal(t.from_cache, 1);
	assert_int_equal(t.next, NEXT_EXEC);
	assert_string_equal(t.pending_sql, "SELECT 1");
	assert_string_equal(t.provider, "openai");
	assert_string_equal(t.scope, "analyst");
	assert_string_equal(t.model, "model-one");
	assert_int_equal(t.edited, 1);
	assert_string_equal(t.history[0].suggested, "t.y");
	assert_int_equal(t.parent.row_count, 12);
	assert_string_equal(t.edits[0].phrase, "칼륨");
	assert_int_equal(t.pause.attempt, 2);
	j2 = run_state_json(&t);
	assert_string_equal(j, j2);
	free(j);
	free(j2);
	run_state_free(&s);
	run_state_free(&t);
}

/* The plan edits an analyst makes in step mode. */
static void test_plan_edit(void **state)
{
	struct run_plan p = {0};
	struct planner_edit add = {.op = PLAN_ADD_TABLE, .table = "visits"};
	struct planner_edit rm = {.op = PLAN_REMOVE_TABLE, .table = "labs"};
	struct planner_edit rmm = {.op = PLAN_REMOVE_MAPPING, .table = "labs", .column = "code", .value = "NA"};
	struct planner_edit rmc = {.op = PLAN_REMOVE_COLUMN, .table = "labs", .column = "code"};
	cJSON *j;

	assert_int_equal(run_strs_add(&p.tables, "labs"), OK);
	assert_int_equal(run_plan_add_mapping(&p, NULL, "labs", "code", "K", NULL), OK);
	assert_int_equal(run_plan_add_mapping(&p, "sodium", "labs", "code", "NA", "lexicon"), OK);
	assert_int_equal(run_plan_add_column(&p, "labs", "value", "numeric"), OK);
	assert_int_equal(run_plan_add_column(&p, "labs", "code", NULL), OK);
	assert_int_equal(run_plan_edit(&p, &add), OK);
	assert_int_equal(run_plan_edit(&p, &rm), OK);
	assert_int_equal(run_plan_edit(&p, &rm), OK);   /* gone already: no error */
	assert_int_equal(run_plan_edit(&p, &rmm), OK);
	assert_int_equal(run_plan_edit(&p, &rmc), OK);
	assert_true(p.set);
	assert_int_equal(p.tables.n, 1);
	assert_string_equal(p.tables.v[0], "visits");
	assert_int_equal(p.nmappings, 1);
	assert_string_equal(p.mappings[0].value, "K");
	assert_string_equal(p.mappings[0].phrase, "");
	assert_int_equal(p.ncolumns, 1);
	assert_string_equal(p.columns[0].column, "value");
	assert_null(run_plan_json(&p, PLAN_VIEW_NONE));
	j = run_plan_json(&p, PLAN_VIEW_BRIEF);
	assert_non_null(j);
	assert_null(cJSON_GetObjectItem(j, "intent"));
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "mappings"), 0), "how"));
	cJSON_Delete(j);
	run_plan_free(&p);
	assert_false(p.set);
	j = run_plan_json(&p, PLAN_VIEW_ALL);       /* an unset plan is {} */
	assert_int_equal(cJSON_GetArraySize(j), 0);
	cJSON_Delete(j);
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
	/* parts of the wrong shape are empty, not an error */
	assert_int_equal(run_state_load("{\"history\": 3, \"plan\": [], \"parent\": {\"id\": \"x\"}, \"edits\": "
	                                "[{\"op\": 9, \"table\": \"t\"}, {\"op\": 0}], \"react\": 1}", &t), OK);
	assert_int_equal(t.nhistory, 0);
	assert_false(t.plan.set);
	assert_int_equal(t.parent.id, 0);
	assert_int_equal(t.nedits, 0);
	assert_false(t.react.set);
	run_state_free(&t);
	assert_int_equal(run_stage_of("submit"), RUN_STAGE_SUBMIT);
	assert_null(run_stage_name(RUN_STAGE_NONE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_old_extract),
		cmocka_unit_test(test_old_react),
		cmocka_unit_test(test_old_react_plan),
		cmocka_unit_test(test_old_finished),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_plan_edit),
		cmocka_unit_test(test_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
