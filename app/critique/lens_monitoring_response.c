/* lens_monitoring_response.c: critic tool: was each finding watched and answered in time. */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

cJSON *crit_tool_lens_monitoring_response(const struct crit_state *st, const cJSON *pre)
{
	cJSON *out = cJSON_CreateObject(), *rs = cJSON_AddArrayToObject(out, "reviews");
	const cJSON *f, *r, *g;
	char t[500];

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(st->structured_chart, "findings")) {
		const cJSON *rec = NULL;
		const char *gap = NULL;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(st->intervention_coverage, "reconciled"))
			if (!strcmp(crit_str(r, "finding"), crit_str(f, "id")))
				rec = r;
		cJSON_ArrayForEach(g, cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "record_gaps"), "gaps"))
			if (crit_num(g, "start_ts", 0) <= crit_num(f, "end_ts", 0) + 1800 &&
			    crit_num(g, "end_ts", 0) >= crit_num(f, "start_ts", 0) - 1800)
				gap = crit_str(g, "text");
		cJSON *o = cJSON_CreateObject();
		snprintf(t, sizeof t, "%s: response %s%s%s%s", crit_str(f, "id"),
		         rec ? crit_str(rec, "after") : "not assessed", rec ? " - " : "", rec ? crit_str(rec, "text") : "",
		         gap ? "; monitoring gap nearby" : "");
		cJSON_AddStringToObject(o, "finding", crit_str(f, "id"));
		cJSON_AddStringToObject(o, "response", rec ? crit_str(rec, "after") : "not_assessed");
		if (gap)
			cJSON_AddStringToObject(o, "gap", gap);
		cJSON_AddStringToObject(o, "text", t);
		cJSON_AddItemToArray(rs, o);
	}
	/* reference only: the process contributor agent's result, when it ran */
	const cJSON *pc = st->process_contributor_analysis;
	cJSON_AddNumberToObject(out, "reference_process_contributors",
	                        pc ? cJSON_GetArraySize(cJSON_GetObjectItem(pc, "contributors")) : -1);
	cJSON_AddNumberToObject(out, "gaps", cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "record_gaps"), "gaps")));
	return out;
}
