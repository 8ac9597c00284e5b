/* alternative_explanation.c: last node: alternative explanations, uncertainties and caveats (always runs). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static void add(cJSON *arr, const char *about, const char *text, const char *text_ko)
{
	cJSON *o = cJSON_CreateObject();
	if (about)
		cJSON_AddStringToObject(o, "about", about);
	crit_say(o, "text", text, text_ko);
	cJSON_AddItemToArray(arr, o);
}

enum err crit_alternative_explanation(struct crit_state *st)
{
	double t0 = crit_now_ms();
	const cJSON *chart = st->structured_chart, *f, *g, *s, *x;
	cJSON *a = cJSON_CreateObject();
	cJSON *alts = cJSON_AddArrayToObject(a, "explanations"), *unc = cJSON_AddArrayToObject(a, "uncertainties");
	char t[400], k[500];

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		if (crit_num(f, "n", 0) == 1 && crit_str(f, "table") && !strstr(crit_str(f, "table"), "lab")) {
			snprintf(t, sizeof t, "%s is a single reading (%s): a measurement artefact or a transient value cannot be "
			         "excluded from the record.", crit_str(f, "id"), crit_str(f, "extreme_t"));
			snprintf(k, sizeof k, "%s는 한 번의 측정값입니다 (%s): 기록만으로는 측정 오류나 일시적인 값을 배제할 수 "
			         "없습니다.", crit_str(f, "id"), crit_str(f, "extreme_t"));
			add(alts, crit_str(f, "id"), t, k);
		}
		cJSON_ArrayForEach(g, cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(st->critique, "preprocessing"),
		                                                              "record_gaps"), "gaps"))
			if (crit_num(g, "start_ts", 0) <= crit_num(f, "end_ts", 0) + 1800 &&
			    crit_num(g, "end_ts", 0) >= crit_num(f, "start_ts", 0) - 1800) {
				snprintf(t, sizeof t, "%s: values during the gap %s-%s are unknown; the episode may have been longer "
				         "or shorter.", crit_str(f, "id"), crit_str(g, "start"), crit_str(g, "end"));
				snprintf(k, sizeof k, "%s: 공백 %s-%s 동안의 값을 알 수 없어 소견이 더 길었거나 짧았을 수 "
				         "있습니다.", crit_str(f, "id"), crit_str(g, "start"), crit_str(g, "end"));
				add(unc, crit_str(f, "id"), t, k);
			}
	}
	/* ranges not from the target's own metadata */
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series"))
		if (cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")) && crit_str(s, "range_source") &&
		    !strcmp(crit_str(s, "range_source"), "builtin default")) {
			snprintf(t, sizeof t, "The normal range of %s (%g-%g) is a built-in default, not from the target's metadata.",
			         crit_str(s, "name"), crit_num(s, "lo", 0), crit_num(s, "hi", 0));
			snprintf(k, sizeof k, "%s의 정상 범위 (%g-%g)는 대상 데이터베이스의 메타데이터가 아닌 기본값입니다.",
			         crit_str(s, "name"), crit_num(s, "lo", 0), crit_num(s, "hi", 0));
			add(unc, crit_str(s, "name"), t, k);
		}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(chart, "notes"))
		add(unc, "record", x->valuestring, NULL);
	if (!strcmp(crit_str(chart, "source") ? crit_str(chart, "source") : "", "text"))
		add(unc, "record", "Chart text: values and times were read from free text; sentences without a clock time carry "
		    "the previous one.", "차트 원문: 값과 시각을 자유 서술에서 읽었으며, 시각이 없는 문장은 앞 문장의 시각을 "
		    "따릅니다.");
	if (!cJSON_GetArraySize(cJSON_GetObjectItem(chart, "findings")))
		crit_say(a, "summary", "No abnormal finding to explain.", "설명할 이상 소견이 없습니다.");
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
		crit_say(a, "offline_note",
		         "Without an LLM, clinical alternative explanations are not generated; only those "
		         "the record itself supports are listed.",
		         "LLM 없이는 임상적 대안 설명을 만들지 않으며, 기록 자체가 뒷받침하는 것만 나열합니다.");
	}
	st->alternative_explanations = a;
	crit_step(st, "node", "run_alternative_explanation", "ok", NULL, a, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
