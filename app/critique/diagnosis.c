/* diagnosis.c: node 3a: diagnosis analysis: documented diagnosis against the abnormal findings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

/* crit_diagnosis: the deterministic part (the LLM part runs in graph.c, concurrently with
 * treatment).  Offline it can only set findings beside the documented diagnosis; judging
 * appropriateness, omissions and differentials is left to the LLM and said so. */
enum err crit_diagnosis(struct crit_state *st)
{
	const cJSON *chart = st->structured_chart, *f;
	const cJSON *op = cJSON_GetObjectItem(chart, "operation");
	const char *dx = crit_str(op, "dx");
	cJSON *a = cJSON_CreateObject();
	cJSON *doc = cJSON_AddObjectToObject(a, "documented");
	cJSON *obs = cJSON_AddArrayToObject(a, "observations");

	cJSON_AddStringToObject(doc, "dx", dx ? dx : "");
	cJSON_AddStringToObject(doc, "opname", crit_str(op, "opname") ? crit_str(op, "opname") : "");
	cJSON_AddStringToObject(doc, "optype", crit_str(op, "optype") ? crit_str(op, "optype") : "");
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		char line[400];
		cJSON *o = cJSON_CreateObject();
		snprintf(line, sizeof line, "%s: %s%s%s", crit_str(f, "id"), crit_str(f, "text"),
		         dx ? "; not part of the documented diagnosis: " : "; no diagnosis documented", dx ? dx : "");
		cJSON_AddStringToObject(o, "finding", crit_str(f, "id"));
		cJSON_AddStringToObject(o, "text", line);
		cJSON_AddStringToObject(o, "span", crit_str(f, "span"));
		cJSON_AddItemToArray(obs, o);
	}
	if (cJSON_GetArraySize(obs) == 0)
		cJSON_AddStringToObject(a, "summary", "No value outside its normal range; nothing contradicts the documented diagnosis.");
	else {
		char s[200];
		snprintf(s, sizeof s, "%d abnormal finding(s) recorded beside the documented diagnosis.",
		         cJSON_GetArraySize(obs));
		cJSON_AddStringToObject(a, "summary", s);
	}
	cJSON_AddStringToObject(a, "offline_note",
	                        "Without an LLM, diagnostic appropriateness, omissions and differential diagnoses are not assessed.");
	cJSON_Delete(st->diagnosis_analysis);
	st->diagnosis_analysis = a;
	return OK;
}
