/* test_llm_policy.c: llm_data_policy: parsing, hosted endpoints, which columns' values pass, SQL and error scrubbing, the schema block. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "catalog/catalog_int.h"
#include "catalog/llm_policy.h"
#include "catalog/phi.h"
#include "util/conf.h"

/* a patient table: a direct name, a quasi birth date, a sex code and a ward (none), an
 * unclassified column (an old catalog) */
static struct catalog *small_catalog(void)
{
	struct catalog *c = cat_new("t", "builtin", 16);
	int t = cat_add_table(c, "public", "patient", "patients", NULL, 10);
	int name = cat_add_column(c, t, "pt_name", "text", "patient name", NULL, NULL);
	int birth = cat_add_column(c, t, "birth_date", "date", NULL, NULL, NULL);
	int sex = cat_add_column(c, t, "sex", "text", NULL, NULL, NULL);
	int ward = cat_add_column(c, t, "ward", "text", "ward of admission", NULL, NULL);
	int old = cat_add_column(c, t, "legacy", "text", NULL, NULL, NULL);

	c->columns[name].phi_auto = PHI_DIRECT;
	c->columns[birth].phi_auto = PHI_QUASI;
	c->columns[sex].phi_auto = PHI_NONE;
	c->columns[ward].phi_auto = PHI_NONE;
	c->columns[ward].phi_fixed = PHI_SENSITIVE;
	c->columns[old].phi_auto = PHI_UNCLASSIFIED;
	cat_add_value(c, name, "김철수");
	cat_add_value(c, sex, "M");
	cat_add_value(c, sex, "F");
	cat_add_value(c, ward, "ICU");
	cat_add_value(c, old, "LEGACY1");
	return c;
}

static void test_parse_and_names(void **state)
{
	enum llm_policy p;

	(void)state;
	assert_int_equal(llm_policy_parse("schema", &p), 0);
	assert_int_equal(p, LLM_POLICY_SCHEMA);
	assert_int_equal(llm_policy_parse("values", &p), 0);
	assert_int_equal(p, LLM_POLICY_VALUES);
	assert_int_equal(llm_policy_parse("rows", &p), 0);
	assert_int_equal(p, LLM_POLICY_ROWS);
	assert_int_equal(llm_policy_parse("Rows", &p), -1);
	assert_int_equal(llm_policy_parse("", &p), -1);
	assert_int_equal(llm_policy_parse(NULL, &p), -1);
	assert_string_equal(llm_policy_name(LLM_POLICY_VALUES), "values");
	assert_string_equal(llm_policy_name(LLM_POLICY_UNSET), "unset");
}

static void test_hosted(void **state)
{
	(void)state;
	assert_false(llm_policy_hosted(""));
	assert_false(llm_policy_hosted(NULL));
	assert_false(llm_policy_hosted("http://127.0.0.1:8000/v1"));
	assert_false(llm_policy_hosted("http://127.9.9.9/v1"));
	assert_false(llm_policy_hosted("http://localhost:11434/v1"));
	assert_false(llm_policy_hosted("http://LOCALHOST/v1"));
	assert_false(llm_policy_hosted("http://llm.localhost/v1"));
	assert_false(llm_policy_hosted("http://[::1]:8000/v1"));
	assert_false(llm_policy_hosted("http://user:pw@127.0.0.1:8000/v1"));
	assert_true(llm_policy_hosted("https://api.openai.com/v1"));
	assert_true(llm_policy_hosted("http://10.0.0.5:8000/v1"));
	assert_true(llm_policy_hosted("http://127.0.0.1.evil.example/v1"));
	assert_true(llm_policy_hosted("http://localhost.evil.example/v1"));
	assert_true(llm_policy_hosted("http://127.0.0.1@evil.example/v1"));
}

static void test_default(void **state)
{
	const char *why, *msg;

	(void)state;
	assert_int_equal(conf_load(NULL, &msg), OK);
	assert_int_equal(llm_policy_default(&why), LLM_POLICY_ROWS);   /* builtin */
	conf_set("llm_provider", "openai", "test");
	conf_set("llm_base_url", "http://127.0.0.1:9/v1", "test");
	assert_int_equal(llm_policy_default(&why), LLM_POLICY_ROWS);
	conf_set("llm_base_url", "https://api.example.com/v1", "test");
	assert_int_equal(llm_policy_default(&why), LLM_POLICY_VALUES);
	assert_non_null(strstr(why, "hosted"));
	conf_set("llm_data_policy", "schema", "test");
	assert_int_equal(llm_policy_default(&why), LLM_POLICY_SCHEMA);
	/* a target's own setting wins over the default, either way */
	assert_int_equal(llm_policy_resolve("rows", &why), LLM_POLICY_ROWS);
	assert_string_equal(why, "target setting");
	assert_int_equal(llm_policy_resolve("", &why), LLM_POLICY_SCHEMA);
	assert_int_equal(llm_policy_resolve(NULL, NULL), LLM_POLICY_SCHEMA);
	/* a word conf does not know stops loading */
	setenv("ASKQL_LLM_DATA_POLICY", "everything", 1);
	assert_int_equal(conf_load(NULL, &msg), ERR_INPUT);
	assert_non_null(strstr(msg, "llm_data_policy"));
	unsetenv("ASKQL_LLM_DATA_POLICY");
	assert_int_equal(conf_load(NULL, &msg), OK);
}

static void test_values_ok(void **state)
{
	struct catalog *c = small_catalog();

	(void)state;
	/* values: none and sensitive pass; direct, quasi, unclassified and unknown do not */
	assert_true(llm_policy_values_ok(LLM_POLICY_VALUES, c, "patient.sex"));
	assert_true(llm_policy_values_ok(LLM_POLICY_VALUES, c, "public.patient.ward"));
	assert_false(llm_policy_values_ok(LLM_POLICY_VALUES, c, "patient.pt_name"));
	assert_false(llm_policy_values_ok(LLM_POLICY_VALUES, c, "patient.birth_date"));
	assert_false(llm_policy_values_ok(LLM_POLICY_VALUES, c, "patient.legacy"));
	assert_false(llm_policy_values_ok(LLM_POLICY_VALUES, c, "patient.nope"));
	assert_false(llm_policy_values_ok(LLM_POLICY_VALUES, NULL, "patient.sex"));
	assert_false(llm_policy_values_ok2(LLM_POLICY_VALUES, c, "patient", NULL));
	assert_true(llm_policy_values_ok2(LLM_POLICY_VALUES, c, "patient", "sex"));
	/* schema: nothing; rows and unset: everything */
	assert_false(llm_policy_values_ok(LLM_POLICY_SCHEMA, c, "patient.sex"));
	assert_true(llm_policy_values_ok(LLM_POLICY_ROWS, c, "patient.pt_name"));
	assert_true(llm_policy_values_ok(LLM_POLICY_UNSET, NULL, "x.y"));
	/* an admin's correction to direct wins over the classifier's none */
	c->columns[cat_find_column(c, "patient.sex")].phi_fixed = PHI_DIRECT;
	assert_false(llm_policy_values_ok(LLM_POLICY_VALUES, c, "patient.sex"));
	cat_free(c);
}

static void test_scrub_sql(void **state)
{
	struct catalog *c = small_catalog();
	const char *sql = "SELECT \"pt_name\", count(*) FROM patient WHERE pt_name = '김철수' AND sex = 'M' "
	                  "AND ward = 'O''Brien' AND id = 8001011234567 AND age > 30 AND x = $q$secret$q$ LIMIT 10";
	char *s;

	(void)state;
	s = llm_policy_scrub_sql(LLM_POLICY_SCHEMA, c, sql);
	assert_null(strstr(s, "김철수"));
	assert_null(strstr(s, "'M'"));
	assert_null(strstr(s, "Brien"));
	assert_null(strstr(s, "8001011234567"));
	assert_null(strstr(s, "secret"));
	assert_non_null(strstr(s, "\"pt_name\""));
	assert_non_null(strstr(s, "age > 30"));
	assert_non_null(strstr(s, "LIMIT 10"));
	free(s);
	/* values: a stored value of an allowed column stays, an identifier's does not */
	s = llm_policy_scrub_sql(LLM_POLICY_VALUES, c, sql);
	assert_null(strstr(s, "김철수"));
	assert_non_null(strstr(s, "sex = 'M'"));
	free(s);
	s = llm_policy_scrub_sql(LLM_POLICY_ROWS, c, sql);
	assert_string_equal(s, sql);
	free(s);
	/* an unterminated literal is still withheld */
	s = llm_policy_scrub_sql(LLM_POLICY_SCHEMA, NULL, "SELECT 1 WHERE a = 'Kim");
	assert_null(strstr(s, "Kim"));
	free(s);
	cat_free(c);
}

static void test_scrub_text(void **state)
{
	const char *q = "환자 800101-1234560의 입원, 전화 010-1234-5678, mail kim@example.com, 환자번호 12345678. "
	                "masked 800101-1******; top 3 wards in 2025-01-13, ward W9, 4,489명";
	char *s;

	(void)state;
	s = llm_policy_scrub_text(LLM_POLICY_SCHEMA, q);
	assert_null(strstr(s, "800101"));
	assert_null(strstr(s, "010-1234"));
	assert_null(strstr(s, "kim@"));
	assert_null(strstr(s, "12345678"));
	assert_non_null(strstr(s, "환자 …의 입원"));
	assert_non_null(strstr(s, "환자번호 …"));
	assert_non_null(strstr(s, "top 3 wards in 2025-01-13, ward W9, 4,489명"));
	free(s);
	s = llm_policy_scrub_text(LLM_POLICY_VALUES, q);
	assert_null(strstr(s, "800101"));
	free(s);
	s = llm_policy_scrub_text(LLM_POLICY_ROWS, q);
	assert_string_equal(s, q);
	free(s);
	s = llm_policy_scrub_text(LLM_POLICY_SCHEMA, NULL);
	assert_string_equal(s, "");
	free(s);
}

static void test_scrub_error(void **state)
{
	struct catalog *c = small_catalog();
	char *s;

	(void)state;
	/* a value read from a row: withheld */
	s = llm_policy_scrub_error(LLM_POLICY_VALUES, c, "22P02: invalid input syntax for type integer: \"김철수\"",
	                           "SELECT pt_name::int FROM patient");
	assert_null(strstr(s, "김철수"));
	assert_non_null(strstr(s, "invalid input syntax for type integer"));
	free(s);
	/* names the model needs to correct itself: kept (in the SQL, or the catalog's) */
	s = llm_policy_scrub_error(LLM_POLICY_SCHEMA, c, "42703: column \"nme\" does not exist (Perhaps you meant "
	                           "to reference the column \"patient.pt_name\".)", "SELECT nme FROM patient");
	assert_non_null(strstr(s, "\"nme\""));
	assert_non_null(strstr(s, "\"patient.pt_name\""));
	free(s);
	/* a literal the model wrote itself: kept; a part of a word is not "written" */
	s = llm_policy_scrub_error(LLM_POLICY_SCHEMA, c, "invalid input syntax for type date: \"yesterday-ish\"",
	                           "SELECT 1 WHERE birth_date = 'yesterday-ish'");
	assert_non_null(strstr(s, "yesterday-ish"));
	free(s);
	s = llm_policy_scrub_error(LLM_POLICY_SCHEMA, c, "bad value \"Kim\"", "SELECT Kimura FROM x");
	assert_null(strstr(s, "Kim\""));
	free(s);
	s = llm_policy_scrub_error(LLM_POLICY_ROWS, c, "bad value \"Kim\"", NULL);
	assert_string_equal(s, "bad value \"Kim\"");
	free(s);
	cat_free(c);
}

/* errors of the database (issue 27): under schema and values the code and the position, never the
 * message, whose unquoted parts print values; askql's own refusals (no SQLSTATE) are scrubbed */
static void test_db_error(void **state)
{
	static const char *leaky[][3] = {
		{"54000", "54000: requested character too large for encoding: 10900101", "10900101"},
		{"2200M", "2200M: invalid XML document [line 1: Couldn't find end of Start Tag 이서연1 line 1]", "이서연1"},
		{"22P02", "22P02: invalid input syntax for type json [Token \"홍길동\" is invalid.]", "홍길동"},
		{"22008", "22008: date field value out of range: 1990-13-07", "1990-13-07"},
		{"22003", "22003: value \"01048217713\" is out of range for type smallint", "01048217713"},
		{"XX000", "XX000: 800101-1234560", "800101"},
	};
	struct catalog *c = small_catalog();
	char *s;

	(void)state;
	for (size_t i = 0; i < sizeof leaky / sizeof leaky[0]; i++) {
		for (enum llm_policy p = LLM_POLICY_SCHEMA; p <= LLM_POLICY_VALUES; p++) {
			s = llm_policy_db_error(p, c, leaky[i][0], 0, leaky[i][1], "SELECT chr(x) FROM patient");
			assert_null(strstr(s, leaky[i][2]));
			assert_non_null(strstr(s, leaky[i][0]));
			free(s);
		}
		/* under rows the message as PostgreSQL wrote it */
		s = llm_policy_db_error(LLM_POLICY_ROWS, c, leaky[i][0], 0, leaky[i][1], NULL);
		assert_string_equal(s, leaky[i][1]);
		free(s);
	}
	s = llm_policy_db_error(LLM_POLICY_SCHEMA, c, "54000", 0, leaky[0][1], NULL);
	assert_string_equal(s, "SQLSTATE 54000 (program limit exceeded: program_limit_exceeded); the message text "
	                       "is withheld (llm_data_policy schema)");
	free(s);
	/* the position, and a code askql has no name for: the class only */
	s = llm_policy_db_error(LLM_POLICY_VALUES, c, "42P99", 17, "42P99: whatever \"x\"", NULL);
	assert_non_null(strstr(s, "SQLSTATE 42P99 (syntax error or access rule violation) at character 17"));
	free(s);
	/* no SQLSTATE (the guard's refusal): askql's text, its quoted values scrubbed */
	s = llm_policy_db_error(LLM_POLICY_SCHEMA, c, "", 0, "refused by the SQL guard: \"Kim\"", "SELECT 1");
	assert_non_null(strstr(s, "refused by the SQL guard"));
	assert_null(strstr(s, "Kim"));
	free(s);
	/* not a SQLSTATE: treated as none */
	s = llm_policy_db_error(LLM_POLICY_SCHEMA, c, "22p0'", 0, "bad \"Kim\"", NULL);
	assert_null(strstr(s, "Kim"));
	free(s);
	cat_free(c);
}

/* the schema block: category values only of allowed columns; none under schema */
static void test_block(void **state)
{
	struct catalog *c = small_catalog();
	struct retrieval r;
	struct retrieval_opts o = {.k = 10, .token_budget = 1500};
	char err[256];

	(void)state;
	assert_int_equal(cat_finish(c, err, sizeof err), OK);
	o.llm_policy = LLM_POLICY_ROWS;
	assert_int_equal(catalog_retrieve(c, "patients by sex and ward", &o, &r), OK);
	assert_non_null(strstr(r.prompt_block, "M | F"));
	assert_non_null(strstr(r.prompt_block, "김철수"));
	retrieval_free(&r);
	o.llm_policy = LLM_POLICY_VALUES;
	assert_int_equal(catalog_retrieve(c, "patients by sex and ward", &o, &r), OK);
	assert_non_null(strstr(r.prompt_block, "M | F"));
	assert_non_null(strstr(r.prompt_block, "ICU"));
	assert_null(strstr(r.prompt_block, "김철수"));
	assert_null(strstr(r.prompt_block, "LEGACY1"));
	retrieval_free(&r);
	o.llm_policy = LLM_POLICY_SCHEMA;
	assert_int_equal(catalog_retrieve(c, "patients by sex and ward", &o, &r), OK);
	assert_null(strstr(r.prompt_block, "M | F"));
	assert_null(strstr(r.prompt_block, "ICU"));
	assert_non_null(strstr(r.prompt_block, "pt_name"));
	retrieval_free(&r);
	cat_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_and_names),
		cmocka_unit_test(test_hosted),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_values_ok),
		cmocka_unit_test(test_scrub_sql),
		cmocka_unit_test(test_scrub_text),
		cmocka_unit_test(test_scrub_error),
		cmocka_unit_test(test_db_error),
		cmocka_unit_test(test_block),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
