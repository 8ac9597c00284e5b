/* alternative_explanation.c: last node: alternative explanations, uncertainties and caveats (always runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static void add(cJSON *arr, const char *about, const char *text)
{
	cJSON *o = cJSON_CreateObject();
	if (about)
		cJSON_AddStringToObject(o, "about", about);
	cJSON_AddStringToObject(o, "text", text);
	cJSON_AddItemToArray(arr, o);
}

enum err crit_alternative_explanation(struct crit_state *st)
{
	double t0 = crit_now_ms();
	const cJSON *chart = st->structured_chart, *f, *g, *s, *x;
	cJSON *a = cJSON_CreateObject();
	cJSON *alts = cJSON_AddArrayToObject(a, "explanations"), *unc = cJSON_AddArrayToObject(a, "uncertainties");
	char t[400];

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		if (crit_num(f, "n", 0) == 1 && crit_str(f, "table") && !strstr(crit_str(f, "table"), "lab")) {
			snprintf(t, sizeof t, "%s is a single reading (%s): a measurement artefact or a transient value cannot be "
			         "excluded from the record.", crit_str(f, "id"), crit_str(f, "extreme_t"));
			add(alts, crit_str(f, "id"), t);
		}
		cJSON_ArrayForEach(g, cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(st->critique, "preprocessing"),
		                                                              "record_gaps"), "gaps"))
			if (crit_num(g, "start_ts", 0) <= crit_num(f, "end_ts", 0) + 1800 &&
			    crit_num(g, "end_ts", 0) >= crit_num(f, "start_ts", 0) - 1800) {
				snprintf(t, sizeof t, "%s: values during the gap %s-%s are unknown; the episode may have been longer "
				         "or shorter.", crit_str(f, "id"), crit_str(g, "start"), crit_str(g, "end"));
				add(unc, crit_str(f, "id"), t);
			}
	}
	/* ranges not from the target's own metadata */
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series"))
		if (cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")) && crit_str(s, "range_source") &&
		    !strcmp(crit_str(s, "range_source"), "builtin default")) {
			snprintf(t, sizeof t, "The normal range of %s (%g-%g) is a built-in default, not from the target's metadata.",
			         crit_str(s, "name"), crit_num(s, "lo", 0), crit_num(s, "hi", 0));
			add(unc, crit_str(s, "name"), t);
		}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(chart, "notes"))
		add(unc, "record", x->valuestring);
	if (!strcmp(crit_str(chart, "source") ? crit_str(chart, "source") : "", "text"))
		add(unc, "record", "Chart text: values and times were read from free text; sentences without a clock time carry "
		    "the previous one.");
	if (!cJSON_GetArraySize(cJSON_GetObjectItem(chart, "findings")))
		cJSON_AddStringToObject(a, "summary", "No abnormal finding to explain.");
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "findings", cJSON_Duplicate(cJSON_GetObjectItem(chart, "findings"), 1));
		cJSON_AddItemToObject(payload, "critique_points",
		                      cJSON_Duplicate(cJSON_GetObjectItem(st->critique, "points"), 1));
		cJSON_AddItemToObject(payload, "uncertainties", cJSON_Duplicate(unc, 1));
		if (crit_llm_ask(st, "alternative_explanation", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(a, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	} else {
		cJSON_AddStringToObject(a, "offline_note",
		                        "Without an LLM, clinical alternative explanations are not generated; only those "
		                        "the record itself supports are listed.");
	}
	st->alternative_explanations = a;
	crit_step(st, "node", "run_alternative_explanation", "ok", NULL, a, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
