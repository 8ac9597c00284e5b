/* test_react_xml.c: the ReAct reply parser (strict, recover, partial), canonical XML and the policy rewrite. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <libxml/parser.h>
#include "agent/react_xml.h"

static void strict_ok(void **st)
{
	struct react_call c;
	char err[200];
	const char *t = "Sure, here is my step.\n```xml\n<reasoning>find the lab table</reasoning>\n"
	                "<tool_call><name>explain</name><parameters><sql><![CDATA[SELECT a FROM t WHERE b < 3 AND c > 1]]></sql>"
	                "</parameters></tool_call>\n```\nthanks";

	(void)st;
	assert_int_equal(react_xml_parse(t, 0, &c, err, sizeof err), OK);
	assert_string_equal(c.tool, "explain");
	assert_string_equal(c.reasoning, "find the lab table");
	assert_string_equal(react_call_param(&c, "sql"), "SELECT a FROM t WHERE b < 3 AND c > 1");
	assert_null(react_call_param(&c, "query"));
	react_call_free(&c);
}

static void strict_json_params(void **st)
{
	struct react_call c;
	char err[200];

	(void)st;
	assert_int_equal(react_xml_parse("<tool_call><name>search_column_values</name><parameters>"
	                                 "{\"column\": \"lab_data_table.name\", \"keyword\": \"칼륨\"}</parameters></tool_call>",
	                                 0, &c, err, sizeof err), OK);
	assert_string_equal(react_call_param(&c, "column"), "lab_data_table.name");
	assert_string_equal(react_call_param(&c, "keyword"), "칼륨");
	react_call_free(&c);
}

static void strict_refuses_malformed(void **st)
{
	struct react_call c;
	char err[200];

	(void)st;
	/* an unescaped '<' in SQL */
	assert_int_equal(react_xml_parse("<reasoning>x</reasoning><tool_call><name>explain</name><parameters>"
	                                 "<sql>SELECT 1 WHERE 2 < 3</sql></parameters></tool_call>", 0, &c, err, sizeof err),
	                 ERR_PARSE);
	assert_non_null(strstr(err, "malformed"));
	assert_null(c.tool);
	react_call_free(&c);
	/* no elements at all */
	assert_int_equal(react_xml_parse("I will look at the tables.", 0, &c, err, sizeof err), ERR_PARSE);
	react_call_free(&c);
	/* well-formed, no tool_call */
	assert_int_equal(react_xml_parse("<reasoning>thinking</reasoning>", 0, &c, err, sizeof err), ERR_PARSE);
	assert_string_equal(c.reasoning, "thinking");
	react_call_free(&c);
	/* external entities are never loaded */
	assert_int_equal(react_xml_parse("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><tool_call><name>&e;</name></tool_call>",
	                                 0, &c, err, sizeof err), ERR_PARSE);
	react_call_free(&c);
}

static void recover_mode(void **st)
{
	struct react_call c;
	char err[200];
	const char *t = "<reasoning>find tables</reasoning><tool_call><name>search_tables</name>"
	                "<parameters><query>lab</query>";

	(void)st;
	assert_int_equal(react_xml_parse(t, 0, &c, err, sizeof err), ERR_PARSE);
	react_call_free(&c);
	assert_int_equal(react_xml_parse(t, 1, &c, err, sizeof err), OK);
	assert_string_equal(c.tool, "search_tables");
	assert_string_equal(react_call_param(&c, "query"), "lab");
	react_call_free(&c);
}

static void partial_extraction(void **st)
{
	struct react_call c;
	const char *t = "<reasoning>count</reasoning><tool_call><name>explain<parameters>"
	                "<sql><![CDATA[SELECT count(*) FROM x WHERE a < 1]]></sql></parameters></tool_call>";

	(void)st;
	assert_int_equal(react_xml_partial(t, &c), OK);
	assert_string_equal(c.tool, "explain");
	assert_string_equal(react_call_param(&c, "sql"), "SELECT count(*) FROM x WHERE a < 1");
	assert_string_equal(c.reasoning, "count");
	assert_int_equal(c.how, REACT_PARTIAL);
	react_call_free(&c);
	/* unterminated parameter: up to the end of the text */
	assert_int_equal(react_xml_partial("<tool_call><name>submit_sql</name><parameters><sql>SELECT 1", &c), OK);
	assert_string_equal(react_call_param(&c, "sql"), "SELECT 1");
	react_call_free(&c);
	assert_int_equal(react_xml_partial("nothing here", &c), ERR_PARSE);
	react_call_free(&c);
}

static void canonical_roundtrip(void **st)
{
	struct react_call c = {0}, d;
	char err[200], *x, *j;

	(void)st;
	c.tool = strdup("submit_sql");
	c.reasoning = strdup("a < b & c");
	react_call_set(&c, "sql", "SELECT ']]>' AS s WHERE 1 < 2");
	react_call_set(&c, "sql", "SELECT ']]>' AS s WHERE 1 < 3");   /* replaces */
	assert_int_equal(c.nparams, 1);
	x = react_call_xml(&c);
	assert_int_equal(react_xml_parse(x, 0, &d, err, sizeof err), OK);
	assert_string_equal(d.tool, "submit_sql");
	assert_string_equal(d.reasoning, "a < b & c");
	assert_string_equal(react_call_param(&d, "sql"), "SELECT ']]>' AS s WHERE 1 < 3");
	j = react_call_params_json(&d);
	assert_string_equal(j, "{\"sql\":\"SELECT ']]>' AS s WHERE 1 < 3\"}");
	assert_int_equal(react_call_rename(&d, "explain"), OK);
	assert_string_equal(d.tool, "explain");
	free(j);
	free(x);
	react_call_free(&c);
	react_call_free(&d);
}

static void policy(void **st)
{
	const char *r;

	(void)st;
	/* submit or preview before any explain -> explain */
	assert_string_equal(react_policy("submit_sql", 5, 0, 0, 1, &r), "explain");
	assert_string_equal(r, "require_explain_first");
	assert_string_equal(react_policy("execute_sql_preview", 5, 0, 0, 1, &r), "explain");
	/* after a successful explain: as asked (relaxed: any explain counts) */
	assert_null(react_policy("submit_sql", 5, 1, 0, 1, &r));
	assert_null(react_policy("execute_sql_preview", 5, 0, 1, 1, &r));
	/* exploration is never rewritten while calls remain */
	assert_null(react_policy("search_tables", 5, 0, 0, 0, &r));
	/* the last call: forced to submit when a SQL is known */
	assert_string_equal(react_policy("execute_sql_preview", 1, 1, 1, 1, &r), "submit_sql");
	assert_string_equal(r, "last_call_force_submit");
	assert_string_equal(react_policy("search_columns", 1, 1, 0, 1, &r), "submit_sql");
	assert_null(react_policy("search_columns", 1, 0, 0, 0, &r));   /* nothing to submit */
	assert_null(react_policy("submit_sql", 1, 0, 0, 1, &r));       /* explain is inserted by the loop */
	assert_null(react_policy("cannot_answer", 1, 0, 0, 1, &r));
}

struct seen { int n; char what[4][64]; };

static void on_section(void *ctx, const char *section, const char *text)
{
	struct seen *s = ctx;

	if (s->n < 4)
		snprintf(s->what[s->n++], 64, "%s=%s", section, text);
}

static void streaming_sections(void **st)
{
	const char *reply = "<reasoning> look up the lab table </reasoning>\n<tool_call><name>search_tables</name>"
	                    "<parameters><query>lab</query></parameters></tool_call>";
	struct react_stream rs = {0};
	struct seen s = {0};

	(void)st;
	/* three bytes at a time: each section reported once, when complete */
	for (size_t i = 0; i < strlen(reply); i += 3) {
		size_t n = strlen(reply) - i < 3 ? strlen(reply) - i : 3;

		react_stream_feed(&rs, reply + i, n, on_section, &s);
		if (i + n < (size_t)(strstr(reply, "</reasoning>") - reply) + 12)
			assert_int_equal(s.n, 0);
	}
	assert_int_equal(s.n, 2);
	assert_string_equal(s.what[0], "reasoning=look up the lab table");
	assert_string_equal(s.what[1], "tool_call=search_tables");
	/* a restarted stream (retry) reports again */
	react_stream_feed(&rs, NULL, 0, on_section, &s);
	react_stream_feed(&rs, reply, strlen(reply), on_section, &s);
	assert_int_equal(s.n, 4);
	react_stream_free(&rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strict_ok),
		cmocka_unit_test(strict_json_params),
		cmocka_unit_test(strict_refuses_malformed),
		cmocka_unit_test(recover_mode),
		cmocka_unit_test(partial_extraction),
		cmocka_unit_test(canonical_roundtrip),
		cmocka_unit_test(policy),
		cmocka_unit_test(streaming_sections),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	xmlCleanupParser();
	return rc;
}
