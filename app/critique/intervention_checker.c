/* intervention_checker.c: node 5: interventions actually given, turning "no treatment" into "was it timely". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static int class_in(const char *cls, const char *list)
{
	size_t l = strlen(cls);
	for (const char *p = list; p && (p = strstr(p, cls)) != NULL; p += l)
		if ((p == list || p[-1] == ',') && (p[l] == 0 || p[l] == ','))
			return 1;
	return 0;
}

enum err crit_intervention_checker(struct crit_state *st)
{
	double t0 = crit_now_ms();
	const cJSON *chart = st->structured_chart, *m, *f, *r;
	cJSON *cov = cJSON_CreateObject();
	cJSON *ivs = cJSON_AddArrayToObject(cov, "interventions");
	cJSON *rec = cJSON_AddArrayToObject(cov, "reconciled");

	/* every intervention with the findings it may answer */
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "procedures_performed")) {
		cJSON *o = cJSON_Duplicate(m, 1), *ans = cJSON_AddArrayToObject(o, "answers");
		double t = crit_num(m, "ts", -1);
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
			const char *cls = crit_responsive_classes(crit_str(f, "param"), crit_str(f, "direction"));
			if (t >= 0 && class_in(crit_str(m, "class"), cls) && t >= crit_num(f, "start_ts", 0) - 600 &&
			    t <= crit_num(f, "end_ts", 0) + 3600)
				cJSON_AddItemToArray(ans, cJSON_CreateString(crit_str(f, "id")));
		}
		cJSON_AddItemToArray(ivs, o);
	}
	/* treatment critiques of absence re-read against everything given later */
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(st->treatment_analysis, "responses")) {
		const char *status = crit_str(r, "status"), *cls = crit_str(r, "expected_classes");
		const cJSON *fd = NULL;
		cJSON *o = cJSON_CreateObject();
		char line[400], ko[400], kcls[256];
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings"))
			if (!strcmp(crit_str(f, "id"), crit_str(r, "finding")))
				fd = f;
		cJSON_AddStringToObject(o, "finding", crit_str(r, "finding"));
		cJSON_AddStringToObject(o, "before", status);
		if (!strcmp(status, "treated")) {
			const cJSON *x = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "interventions"), 0);
			double d = crit_num(x, "delay_min", 0);
			cJSON_AddStringToObject(o, "after", d > 15 ? "treated_late" : "treated_timely");
			snprintf(line, sizeof line, "%s: %s given %.0f min %s onset (%s).", crit_str(r, "finding"),
			         crit_str(x, "drug"), d < 0 ? -d : d, d < 0 ? "before" : "after",
			         d > 15 ? "later than 15 min" : "within 15 min");
			snprintf(ko, sizeof ko, "%s: %s 시작 %.0f분 %s %s 투여 (%s).", crit_str(r, "finding"),
			         "소견", d < 0 ? -d : d, d < 0 ? "전" : "후", crit_str(x, "drug"),
			         d > 15 ? "15분보다 늦음" : "15분 이내");
		} else if (!strcmp(status, "no_recorded_intervention")) {
			const cJSON *late = NULL;
			cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "procedures_performed"))
				if (!late && class_in(crit_str(m, "class"), cls) && crit_num(m, "ts", -1) > crit_num(fd, "end_ts", 0))
					late = m;
			if (late) {
				cJSON_AddStringToObject(o, "after", "treated_outside_window");
				snprintf(line, sizeof line, "%s: not absent: %s given at %s, after the 60 min window.",
				         crit_str(r, "finding"), crit_str(late, "drug"), crit_str(late, "t"));
				snprintf(ko, sizeof ko, "%s: 대응 없음이 아님: 60분 창 이후 %s에 %s 투여.",
				         crit_str(r, "finding"), crit_str(late, "t"), crit_str(late, "drug"));
			} else {
				cJSON_AddStringToObject(o, "after", "absent");
				snprintf(line, sizeof line, "%s: no %s recorded after onset.", crit_str(r, "finding"), cls);
				snprintf(ko, sizeof ko, "%s: 시작 후 기록된 %s 투여가 없습니다.", crit_str(r, "finding"),
				         crit_classes_ko(cls, kcls, sizeof kcls));
			}
		} else {
			cJSON_AddStringToObject(o, "after", "not_applicable");
			snprintf(line, sizeof line, "%s: no drug response expected.", crit_str(r, "finding"));
			snprintf(ko, sizeof ko, "%s: 약물 대응이 필요한 소견이 아닙니다.", crit_str(r, "finding"));
		}
		crit_say(o, "text", line, ko);
		cJSON_AddItemToArray(rec, o);
	}
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "interventions", cJSON_Duplicate(ivs, 1));
		cJSON_AddItemToObject(payload, "treatment_analysis", cJSON_Duplicate(st->treatment_analysis, 1));
		if (crit_llm_ask(st, "intervention_checker", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(cov, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	st->intervention_coverage = cov;
	crit_step(st, "node", "intervention_checker", "ok", NULL, cov, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
