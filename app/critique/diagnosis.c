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
		char ko[400];
		snprintf(line, sizeof line, "%s: %s%s%s", crit_str(f, "id"), crit_str(f, "text"),
		         dx ? "; not part of the documented diagnosis: " : "; no diagnosis documented", dx ? dx : "");
		snprintf(ko, sizeof ko, "%s: %s%s%s", crit_str(f, "id"), crit_ko(f, "text"),
		         dx ? "; 기록된 진단에 포함되지 않음: " : "; 기록된 진단 없음", dx ? dx : "");
		cJSON_AddStringToObject(o, "finding", crit_str(f, "id"));
		crit_say(o, "text", line, ko);
		cJSON_AddStringToObject(o, "span", crit_str(f, "span"));
		cJSON_AddItemToArray(obs, o);
	}
	/* coded diagnoses against the preoperative flags: a disagreement is a documentation issue */
	cJSON *codes = cJSON_AddArrayToObject(a, "coded");
	cJSON *incons = cJSON_AddArrayToObject(a, "inconsistencies");
	const cJSON *pt = cJSON_GetObjectItem(chart, "patient");
	static const struct { const char *what, *flag; } pairs[] = { {"hypertension", "preop_htn"}, {"diabetes", "preop_dm"} };
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "diagnoses")) {
		char line[300];
		snprintf(line, sizeof line, "%s %s", crit_str(f, "code"), crit_str(f, "name"));
		cJSON_AddItemToArray(codes, cJSON_CreateString(line));
	}
	for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
		const cJSON *coded = NULL;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "diagnoses")) {
			const char *w = crit_comorbidity(crit_str(f, "code"));
			if (w && !strcmp(w, pairs[i].what))
				coded = f;
		}
		const cJSON *flag = cJSON_GetObjectItem(pt, pairs[i].flag);
		if (!flag || !cJSON_GetObjectItem(chart, "diagnoses"))
			continue;
		int on = crit_num(pt, pairs[i].flag, 0) == 1;
		if (coded && !on) {
			char line[400];
			cJSON *o = cJSON_CreateObject();
			char ko[400];
			snprintf(line, sizeof line, "%s is coded for this patient (%s %s) but %s = 0 in the case record.",
			         pairs[i].what, crit_str(coded, "code"), crit_str(coded, "name"), pairs[i].flag);
			snprintf(ko, sizeof ko, "이 환자에게 %s 진단 코드가 있으나 (%s %s) 케이스 기록의 %s는 0입니다.",
			         !strcmp(pairs[i].what, "hypertension") ? "고혈압" : "당뇨병", crit_str(coded, "code"),
			         crit_str(coded, "name"), pairs[i].flag);
			crit_say(o, "text", line, ko);
			cJSON_AddStringToObject(o, "ref", crit_str(coded, "ref"));
			if (crit_str(coded, "span"))
				cJSON_AddStringToObject(o, "span", crit_str(coded, "span"));
			cJSON_AddItemToArray(incons, o);
		} else if (!coded && on) {
			char line[300];
			cJSON *o = cJSON_CreateObject();
			char ko[300];
			snprintf(line, sizeof line, "%s = 1 in the case record but no %s code in the patient's diagnoses.",
			         pairs[i].flag, pairs[i].what);
			snprintf(ko, sizeof ko, "케이스 기록의 %s는 1이나 환자의 진단에 %s 코드가 없습니다.", pairs[i].flag,
			         !strcmp(pairs[i].what, "hypertension") ? "고혈압" : "당뇨병");
			crit_say(o, "text", line, ko);
			cJSON_AddItemToArray(incons, o);
		}
	}
	if (cJSON_GetArraySize(obs) == 0 && crit_chart_values(chart) == 0)
		crit_say(a, "summary", "The chart holds no measured values to set beside the diagnosis.",
		         "차트에 진단과 비교할 측정값이 없습니다.");
	else if (cJSON_GetArraySize(obs) == 0)
		crit_say(a, "summary", "No value outside its normal range; nothing contradicts the documented diagnosis.",
		         "정상 범위를 벗어난 값이 없어 기록된 진단과 어긋나는 것이 없습니다.");
	else {
		char s[200], ko[200];
		snprintf(s, sizeof s, "%d abnormal finding(s) recorded beside the documented diagnosis.",
		         cJSON_GetArraySize(obs));
		snprintf(ko, sizeof ko, "기록된 진단 외에 이상 소견 %d건이 기록되어 있습니다.", cJSON_GetArraySize(obs));
		crit_say(a, "summary", s, ko);
	}
	crit_say(a, "offline_note",
	         "Without an LLM, diagnostic appropriateness, omissions and differential diagnoses are not assessed.",
	         "LLM 없이는 진단의 적절성, 누락, 감별 진단을 평가하지 않습니다.");
	cJSON_Delete(st->diagnosis_analysis);
	st->diagnosis_analysis = a;
	return OK;
}
