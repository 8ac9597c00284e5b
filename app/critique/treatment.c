/* treatment.c: node 3b: treatment analysis: did an intervention follow each abnormal finding, and when. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

/* An intervention answers a finding when its drug class is one that treats it and it was
 * given from 10 minutes before the episode to 60 minutes after its end. */
#define WIN_BEFORE (10 * 60)
#define WIN_AFTER  (60 * 60)

static int class_in(const char *cls, const char *list)
{
	size_t l = strlen(cls);
	for (const char *p = list; p && (p = strstr(p, cls)) != NULL; p += l)
		if ((p == list || p[-1] == ',') && (p[l] == 0 || p[l] == ','))
			return 1;
	return 0;
}

/* crit_treatment: deterministic part; writes st->treatment_analysis. */
enum err crit_treatment(struct crit_state *st)
{
	const cJSON *chart = st->structured_chart, *f, *m;
	const cJSON *procs = cJSON_GetObjectItem(chart, "procedures_performed");
	cJSON *a = cJSON_CreateObject();
	cJSON *resp = cJSON_AddArrayToObject(a, "responses");
	int untreated = 0;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		const char *classes = crit_responsive_classes(crit_str(f, "param"), crit_str(f, "direction"));
		double s = crit_num(f, "start_ts", 0), e = crit_num(f, "end_ts", 0);
		cJSON *r = cJSON_CreateObject(), *iv = cJSON_CreateArray();
		char line[400], ko[400], kcls[256];
		const char *lab_ko = crit_param_ko(NULL, crit_str(f, "param"));

		cJSON_AddStringToObject(r, "finding", crit_str(f, "id"));
		cJSON_AddStringToObject(r, "finding_text", crit_str(f, "text"));
		cJSON_AddStringToObject(r, "expected_classes", classes);
		cJSON_ArrayForEach(m, procs) {
			double t = crit_num(m, "ts", -1);
			if (t < 0 || !class_in(crit_str(m, "class"), classes) || t < s - WIN_BEFORE || t > e + WIN_AFTER)
				continue;
			cJSON *x = cJSON_CreateObject();
			cJSON_AddStringToObject(x, "drug", crit_str(m, "drug"));
			cJSON_AddStringToObject(x, "class", crit_str(m, "class"));
			cJSON_AddStringToObject(x, "t", crit_str(m, "t"));
			cJSON_AddNumberToObject(x, "delay_min", (t - s) / 60.0);
			cJSON_AddStringToObject(x, "ref", crit_str(m, "ref"));
			if (crit_str(m, "span"))
				cJSON_AddStringToObject(x, "span", crit_str(m, "span"));
			cJSON_AddItemToArray(iv, x);
		}
		/* the answering intervention shown first: the most specific class, then the earliest */
		int ni = cJSON_GetArraySize(iv), best = -1, bestrank = 99;
		for (int q = 0; q < ni; q++) {
			const char *c = crit_str(cJSON_GetArrayItem(iv, q), "class");
			const char *pos = strstr(classes, c);
			int rank = pos ? (int)(pos - classes) : 98;
			if (rank < bestrank) {
				bestrank = rank;
				best = q;
			}
		}
		if (best > 0)
			cJSON_InsertItemInArray(iv, 0, cJSON_DetachItemFromArray(iv, best));
		if (!classes[0]) {
			cJSON_AddStringToObject(r, "status", "not_applicable");
			snprintf(line, sizeof line, "%s: no drug response is expected from the medication records.",
			         crit_str(f, "id"));
			snprintf(ko, sizeof ko, "%s: 투약 기록상 약물 대응이 필요한 소견이 아닙니다.", crit_str(f, "id"));
		} else if (cJSON_GetArraySize(iv) > 0) {
			const cJSON *x0 = cJSON_GetArrayItem(iv, 0);
			cJSON_AddStringToObject(r, "status", "treated");
			double d = crit_num(x0, "delay_min", 0);
			snprintf(line, sizeof line, "%s (%s): %s given at %s, %.0f min %s onset at %s.",
			         crit_str(f, "id"), crit_str(f, "label"), crit_str(x0, "drug"), crit_str(x0, "t"),
			         d < 0 ? -d : d, d < 0 ? "before" : "after", crit_str(f, "start"));
			snprintf(ko, sizeof ko, "%s (%s): %s에 %s 투여, %s 시작 %.0f분 %s.",
			         crit_str(f, "id"), lab_ko, crit_str(x0, "t"), crit_str(x0, "drug"), crit_str(f, "start"),
			         d < 0 ? -d : d, d < 0 ? "전" : "후");
		} else {
			untreated++;
			cJSON_AddStringToObject(r, "status", "no_recorded_intervention");
			snprintf(line, sizeof line, "%s (%s): no %s recorded between %s-10 min and %s+60 min.",
			         crit_str(f, "id"), crit_str(f, "label"), classes, crit_str(f, "start"), crit_str(f, "end"));
			snprintf(ko, sizeof ko, "%s (%s): %s 10분 전부터 %s 60분 후까지 기록된 %s 투여가 없습니다.",
			         crit_str(f, "id"), lab_ko, crit_str(f, "start"), crit_str(f, "end"),
			         crit_classes_ko(classes, kcls, sizeof kcls));
		}
		crit_say(r, "text", line, ko);
		cJSON_AddItemToObject(r, "interventions", iv);
		cJSON_AddItemToArray(resp, r);
	}
	cJSON_AddNumberToObject(a, "interventions_recorded", cJSON_GetArraySize(procs));
	cJSON_AddNumberToObject(a, "findings_without_response", untreated);
	{
		const cJSON *out = cJSON_GetObjectItem(chart, "outcome");
		if (out && out->child)
			cJSON_AddItemToObject(a, "outcome", cJSON_Duplicate(out, 1));
	}
	crit_say(a, "offline_note",
	         "Without an LLM, dosing, discharge decisions and overall treatment appropriateness are not assessed.",
	         "LLM 없이는 용량, 퇴실·퇴원 결정, 전반적인 치료의 적절성을 평가하지 않습니다.");
	cJSON_Delete(st->treatment_analysis);
	st->treatment_analysis = a;
	return OK;
}
