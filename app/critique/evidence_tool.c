/* evidence_tool.c: critic tool "evidence": claimable sentences of chart text as evidence spans. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"


/* A sentence is claimable when it holds a number (a value, a dose, a time) or a clinical act. */
static const char *category(const char *s)
{
	static const char *acts[] = { "given", "started", "administered", "transfus", "intubat", "투여", "시행", "수혈" };
	int digit = 0;

	for (const char *p = s; *p; p++)
		digit |= isdigit((unsigned char)*p);
	for (size_t i = 0; i < sizeof acts / sizeof acts[0]; i++)
		if (strcasestr(s, acts[i]))
			return "intervention";
	return digit ? "measurement" : NULL;
}

cJSON *crit_tool_evidence(const char *text)
{
	size_t st[512], en[512];
	int n = crit_sentences(text, st, en, 512), k = 0;
	cJSON *out = cJSON_CreateObject(), *sp = cJSON_AddObjectToObject(out, "evidence_spans");

	for (int i = 0; i < n; i++) {
		char *s = strndup(text + st[i], en[i] - st[i]), id[16];
		const char *cat = category(s);
		if (cat) {
			cJSON *e = cJSON_CreateObject();
			snprintf(id, sizeof id, "E%d", ++k);
			cJSON_AddStringToObject(e, "category", cat);
			cJSON_AddStringToObject(e, "quote", s);
			cJSON_AddNumberToObject(e, "start", (double)st[i]);
			cJSON_AddNumberToObject(e, "end", (double)en[i]);
			cJSON_AddItemToObject(sp, id, e);
		}
		free(s);
	}
	return out;
}
