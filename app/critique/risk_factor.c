/* risk_factor.c: conditional agent: risk factors and comorbidities of a high-risk case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static void factor(cJSON *arr, const char *field, double value, const char *why, const char *span)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "field", field);
	cJSON_AddNumberToObject(o, "value", value);
	cJSON_AddStringToObject(o, "text", why);
	if (span)
		cJSON_AddStringToObject(o, "span", span);
	cJSON_AddItemToArray(arr, o);
}

/* crit_risk_factor: from ASA, age, BMI, comorbidity and emergency fields (deterministic),
 * with the LLM's reading when configured.  Writes st->risk_factor_analysis. */
enum err crit_risk_factor(struct crit_state *st)
{
	double t0 = crit_now_ms();
	const cJSON *chart = st->structured_chart, *sp;
	const cJSON *pt = cJSON_GetObjectItem(chart, "patient"), *out = cJSON_GetObjectItem(chart, "outcome");
	cJSON *a = cJSON_CreateObject(), *fs = cJSON_AddArrayToObject(a, "factors");
	const char *span = NULL;
	char t[160];
	double v;

	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(chart, "evidence_spans"))
		if (!strcmp(crit_str(sp, "category"), "demographic"))
			span = crit_str(sp, "id");
	if ((v = crit_num(pt, "asa", 0)) >= 3) {
		snprintf(t, sizeof t, "ASA physical status %g (severe systemic disease or worse)", v);
		factor(fs, "asa", v, t, span);
	}
	if ((v = crit_num(pt, "age", 0)) >= 65) {
		snprintf(t, sizeof t, "age %g (65 or older)", v);
		factor(fs, "age", v, t, span);
	}
	if (crit_num(pt, "preop_htn", 0) == 1)
		factor(fs, "preop_htn", 1, "preoperative hypertension", span);
	if (crit_num(pt, "preop_dm", 0) == 1)
		factor(fs, "preop_dm", 1, "preoperative diabetes mellitus", span);
	if ((v = crit_num(pt, "bmi", 0)) >= 30 || (v > 0 && v < 18.5)) {
		snprintf(t, sizeof t, "BMI %.1f (%s)", v, v >= 30 ? "obesity" : "underweight");
		factor(fs, "bmi", v, t, span);
	}
	if (crit_num(pt, "emop", 0) == 1)
		factor(fs, "emop", 1, "emergency operation", span);
	/* chronic conditions coded for the patient (the flags above may already name some) */
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(chart, "diagnoses")) {
		const char *w = crit_comorbidity(crit_str(sp, "code"));
		if (!w || (!strcmp(w, "hypertension") && crit_num(pt, "preop_htn", 0) == 1) ||
		    (!strcmp(w, "diabetes") && crit_num(pt, "preop_dm", 0) == 1))
			continue;
		snprintf(t, sizeof t, "%s (%s %s, diagnosis_table)", w, crit_str(sp, "code"), crit_str(sp, "name"));
		factor(fs, "diagnosis", 1, t, crit_str(sp, "span"));
	}
	cJSON_AddNumberToObject(a, "count", cJSON_GetArraySize(fs));
	if (crit_num(out, "death_inhosp", 0) == 1)
		cJSON_AddStringToObject(a, "outcome", "in-hospital death");
	else if (crit_num(out, "icu_days", 0) > 0) {
		snprintf(t, sizeof t, "%g ICU day(s)", crit_num(out, "icu_days", 0));
		cJSON_AddStringToObject(a, "outcome", t);
	}
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "patient", cJSON_Duplicate(pt, 1));
		cJSON_AddItemToObject(payload, "outcome", cJSON_Duplicate(out, 1));
		cJSON_AddItemToObject(payload, "factors", cJSON_Duplicate(fs, 1));
		if (crit_llm_ask(st, "risk_factor", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(a, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	st->risk_factor_analysis = a;
	crit_step(st, "node", "risk_factor", "ok", NULL, a, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
