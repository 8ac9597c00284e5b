/* agent_router.c: node 6: which conditional agents run (selected_agents), by LLM or by rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

/* What each conditional agent is for: shown to the LLM and in the report. */
static const struct { const char *name, *doc; } agents[] = {
	{"risk_factor", "High-risk case (ASA >= 3, age >= 65, comorbidities, emergency, poor outcome): analyses risk factors and comorbidities."},
	{"process_contributor", "Abnormal values with late or missing response, or record gaps: analyses delays and inconsistencies of the care process."},
};

static int is_agent(const char *s)
{
	for (size_t i = 0; s && i < sizeof agents / sizeof agents[0]; i++)
		if (!strcmp(agents[i].name, s))
			return 1;
	return 0;
}

/* crit_route_agents: the rule: risk_factor for a high-risk case (ASA >= 3, age >= 65, preop
 * flags, emergency, death, or a coded chronic condition), process_contributor when a finding
 * went without timely response or the record has gaps. */
cJSON *crit_route_agents(const struct crit_state *st)
{
	const cJSON *chart = st->structured_chart;
	const cJSON *pt = cJSON_GetObjectItem(chart, "patient"), *out = cJSON_GetObjectItem(chart, "outcome");
	const cJSON *r;
	cJSON *sel = cJSON_CreateArray();
	int process = 0;

	if (crit_num(pt, "asa", 0) >= 3 || crit_num(pt, "age", 0) >= 65 || crit_num(pt, "preop_htn", 0) == 1 ||
	    crit_num(pt, "preop_dm", 0) == 1 || crit_num(pt, "emop", 0) == 1 || crit_num(out, "death_inhosp", 0) == 1)
		cJSON_AddItemToArray(sel, cJSON_CreateString("risk_factor"));
	const cJSON *d;
	int comorbid = 0;
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(chart, "diagnoses"))
		comorbid |= crit_comorbidity(crit_str(d, "code")) != NULL;
	if (comorbid && !cJSON_GetArraySize(sel))
		cJSON_AddItemToArray(sel, cJSON_CreateString("risk_factor"));
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(st->intervention_coverage, "reconciled")) {
		const char *a = crit_str(r, "after");
		if (a && strcmp(a, "treated_timely") && strcmp(a, "not_applicable"))
			process = 1;
	}
	cJSON *gaps = crit_tool_record_gaps(chart, NULL, 0);
	if (cJSON_GetArraySize(cJSON_GetObjectItem(gaps, "gaps")) > 0)
		process = 1;
	cJSON_Delete(gaps);
	if (process)
		cJSON_AddItemToArray(sel, cJSON_CreateString("process_contributor"));
	return sel;
}

enum err crit_agent_router(struct crit_state *st)
{
	double t0 = crit_now_ms();
	cJSON *rule = crit_route_agents(st), *sel = NULL, *out = cJSON_CreateObject();
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	const char *how = "rule";

	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *docs = cJSON_AddArrayToObject(payload, "agents"), *ans = NULL;
		for (size_t i = 0; i < sizeof agents / sizeof agents[0]; i++) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddStringToObject(d, "name", agents[i].name);
			cJSON_AddStringToObject(d, "doc", agents[i].doc);
			cJSON_AddItemToArray(docs, d);
		}
		cJSON_AddItemToObject(payload, "patient", cJSON_Duplicate(cJSON_GetObjectItem(st->structured_chart, "patient"), 1));
		cJSON_AddItemToObject(payload, "findings", cJSON_Duplicate(cJSON_GetObjectItem(st->structured_chart, "findings"), 1));
		cJSON_AddItemToObject(payload, "intervention_coverage", cJSON_Duplicate(st->intervention_coverage, 1));
		cJSON_AddItemToObject(payload, "rule_suggestion", cJSON_Duplicate(rule, 1));
		if (crit_llm_ask(st, "agent_router", payload, &ans, &prompt, &raw) == OK) {
			used = 1;
			const cJSON *a = cJSON_GetObjectItem(ans, "selected_agents"), *x;
			if (cJSON_IsArray(a)) {
				sel = cJSON_CreateArray();
				cJSON_ArrayForEach(x, a)
					if (cJSON_IsString(x) && is_agent(x->valuestring))
						cJSON_AddItemToArray(sel, cJSON_CreateString(x->valuestring));
				how = "llm";
			}
			cJSON_AddItemToObject(out, "llm", ans);
		}
		cJSON_Delete(payload);
	}
	if (!sel)
		sel = cJSON_Duplicate(rule, 1);
	cJSON_AddStringToObject(out, "how", how);
	cJSON_AddItemToObject(out, "selected_agents", cJSON_Duplicate(sel, 1));
	cJSON_AddItemToObject(out, "rule_suggestion", rule);
	st->selected_agents = sel;
	crit_step(st, "node", "agent_router", st->llm && strcmp(how, "llm") ? "degraded" : "ok",
	          st->llm && strcmp(how, "llm") ? "LLM gave no selected_agents; rule used" : NULL, out, prompt, raw,
	          crit_now_ms() - t0, used);
	/* keep the router's answer for the report */
	cJSON_AddItemToObject(cJSON_GetArrayItem(st->nodes, cJSON_GetArraySize(st->nodes) - 1), "detail", out);
	free(prompt);
	free(raw);
	return OK;
}
