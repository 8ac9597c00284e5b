/* fuzz_react_xml.c: libFuzzer target for the agent's ReAct reply parser (strict, recover, partial) and canonical XML. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libxml/parser.h>
#include "agent/react_xml.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	xmlInitParser();
	return 0;
}

/* A parsed call's canonical XML must parse strictly back to the same tool. */
static void roundtrip(const struct react_call *c)
{
	struct react_call c2;
	char err[256], *x = react_call_xml(c), *js = react_call_params_json(c);

	if (!x || !js)
		abort();
	if (react_xml_parse(x, 0, &c2, err, sizeof err) == OK) {
		if (!c->tool || strcmp(c2.tool, c->tool))
			abort();
	}
	react_call_free(&c2);
	free(x);
	free(js);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct react_call c;
	char err[256], *text;
	const char *reason = NULL;

	if (size > 128 * 1024)
		return 0;
	if (!(text = malloc(size + 1)))
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	for (int recover = 0; recover <= 1; recover++) {
		if (react_xml_parse(text, recover, &c, err, sizeof err) == OK) {
			if (!c.tool)
				abort();
			roundtrip(&c);
			(void)react_call_set(&c, "sql", "SELECT 1");
			(void)react_call_rename(&c, "submit_sql");
			(void)react_policy(c.tool, 1, 0, 0, 1, &reason);
		} else if (!memchr(err, '\0', sizeof err)) {
			abort();
		}
		react_call_free(&c);
	}
	if (react_xml_partial(text, &c) == OK) {
		if (!c.tool)
			abort();
		roundtrip(&c);
	}
	react_call_free(&c);
	free(text);
	return 0;
}
