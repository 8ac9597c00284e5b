/* evidence_2nd.c: node 4: second evidence pass, queries built from the diagnosis and treatment critiques. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"


static void add_query(cJSON *queries, const char *q)
{
	cJSON *x;

	cJSON_ArrayForEach(x, queries)
		if (!strcmp(x->valuestring, q))
			return;
	cJSON_AddItemToArray(queries, cJSON_CreateString(q));
}

enum err crit_evidence_2nd(struct crit_state *st)
{
	double t0 = crit_now_ms();
	cJSON *ev = cJSON_CreateObject();
	cJSON *queries = cJSON_AddArrayToObject(ev, "queries");
	cJSON *items = cJSON_CreateArray();
	const cJSON *r;
	char q[300];

	/* from the treatment critique: each response (or its absence) asks for its management */
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(st->treatment_analysis, "responses")) {
		const char *status = crit_str(r, "status");
		const cJSON *iv = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "interventions"), 0);
		const char *cls = crit_str(r, "expected_classes");
		if (!strcmp(status, "treated"))
			snprintf(q, sizeof q, "%s %s timing dose", crit_str(r, "finding_text"), crit_str(iv, "drug"));
		else if (!strcmp(status, "no_recorded_intervention"))
			snprintf(q, sizeof q, "%s management %s", crit_str(r, "finding_text"), cls ? cls : "");
		else
			continue;
		add_query(queries, q);
	}
	/* from the diagnosis critique: differential causes of each observation */
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(st->diagnosis_analysis, "observations")) {
		snprintf(q, sizeof q, "%s causes differential", crit_str(r, "text"));
		add_query(queries, q);
	}
	/* LLM critiques, when there are some, are queries too */
	const char *dl = crit_str(cJSON_GetObjectItem(st->diagnosis_analysis, "llm"), "text");
	const char *tl = crit_str(cJSON_GetObjectItem(st->treatment_analysis, "llm"), "text");
	if (dl && dl[0]) {
		snprintf(q, sizeof q, "%.200s", dl);
		add_query(queries, q);
	}
	if (tl && tl[0]) {
		snprintf(q, sizeof q, "%.200s", tl);
		add_query(queries, q);
	}
	const char *status = "ok", *reason = NULL;
	if (cJSON_GetArraySize(queries) == 0) {
		status = "skipped";
		reason = "the diagnosis and treatment analyses raised nothing to search for";
	} else {
		/* keep only sources the first pass did not already bring */
		cJSON *all = cJSON_CreateArray(), *it, *e;
		crit_evidence_collect(st, queries, all, "2nd");
		cJSON_ArrayForEach(it, all) {
			int seen = 0;
			cJSON_ArrayForEach(e, cJSON_GetObjectItem(st->evidence, "items"))
				seen |= !strcmp(crit_str(e, "source"), crit_str(it, "source"));
			if (!seen)
				cJSON_AddItemToArray(items, cJSON_Duplicate(it, 1));
		}
		cJSON_Delete(all);
	}
	cJSON_AddItemToObject(ev, "items", items);
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm && reason == NULL) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "queries", cJSON_Duplicate(queries, 1));
		cJSON_AddItemToObject(payload, "new_evidence", cJSON_Duplicate(items, 1));
		if (crit_llm_ask(st, "evidence_2nd", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(ev, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	st->evidence_2nd = ev;
	crit_step(st, "node", "evidence_2nd", status, reason, ev, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
