/* risk_factor.c: conditional agent: risk factors and comorbidities of a high-risk case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static void factor(cJSON *arr, const char *field, double value, const char *why, const char *why_ko,
                   const char *span)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "field", field);
	cJSON_AddNumberToObject(o, "value", value);
	crit_say(o, "text", why, why_ko);
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
	char t[160], k[200];
	double v;

	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(chart, "evidence_spans"))
		if (!strcmp(crit_str(sp, "category"), "demographic"))
			span = crit_str(sp, "id");
	if ((v = crit_num(pt, "asa", 0)) >= 3) {
		snprintf(t, sizeof t, "ASA physical status %g (severe systemic disease or worse)", v);
		snprintf(k, sizeof k, "ASA 신체 등급 %g (중증 전신 질환 이상)", v);
		factor(fs, "asa", v, t, k, span);
	}
	if ((v = crit_num(pt, "age", 0)) >= 65) {
		snprintf(t, sizeof t, "age %g (65 or older)", v);
		snprintf(k, sizeof k, "나이 %g세 (65세 이상)", v);
		factor(fs, "age", v, t, k, span);
	}
	if (crit_num(pt, "preop_htn", 0) == 1)
		factor(fs, "preop_htn", 1, "preoperative hypertension", "수술 전 고혈압", span);
	if (crit_num(pt, "preop_dm", 0) == 1)
		factor(fs, "preop_dm", 1, "preoperative diabetes mellitus", "수술 전 당뇨병", span);
	if ((v = crit_num(pt, "bmi", 0)) >= 30 || (v > 0 && v < 18.5)) {
		snprintf(t, sizeof t, "BMI %.1f (%s)", v, v >= 30 ? "obesity" : "underweight");
		snprintf(k, sizeof k, "BMI %.1f (%s)", v, v >= 30 ? "비만" : "저체중");
		factor(fs, "bmi", v, t, k, span);
	}
	if (crit_num(pt, "emop", 0) == 1)
		factor(fs, "emop", 1, "emergency operation", "응급 수술", span);
	/* chronic conditions coded for the patient (the flags above may already name some) */
	cJSON_ArrayForEach(sp, cJSON_GetObjectItem(chart, "diagnoses")) {
		const char *w = crit_comorbidity(crit_str(sp, "code"));
		if (!w || (!strcmp(w, "hypertension") && crit_num(pt, "preop_htn", 0) == 1) ||
		    (!strcmp(w, "diabetes") && crit_num(pt, "preop_dm", 0) == 1))
			continue;
		snprintf(t, sizeof t, "%s (%s %s, diagnosis_table)", w, crit_str(sp, "code"), crit_str(sp, "name"));
		snprintf(k, sizeof k, "동반 질환: %s (%s %s, diagnosis_table)", w, crit_str(sp, "code"), crit_str(sp, "name"));
		factor(fs, "diagnosis", 1, t, k, crit_str(sp, "span"));
	}
	cJSON_AddNumberToObject(a, "count", cJSON_GetArraySize(fs));
	if (crit_num(out, "death_inhosp", 0) == 1)
		crit_say(a, "outcome", "in-hospital death", "원내 사망");
	else if (crit_num(out, "icu_days", 0) > 0) {
		snprintf(t, sizeof t, "%g ICU day(s)", crit_num(out, "icu_days", 0));
		snprintf(k, sizeof k, "중환자실 %g일", crit_num(out, "icu_days", 0));
		crit_say(a, "outcome", t, k);
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
