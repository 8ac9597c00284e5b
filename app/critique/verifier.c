/* verifier.c: inside critic, only with similar cases: solutions for each critique point from those cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static int k_of(const cJSON *cmp)
{
	return (int)crit_num(cmp, "k", 0);
}

enum err crit_verifier(struct crit_state *st)
{
	double t0 = crit_now_ms();
	const cJSON *tools = cJSON_GetObjectItem(st->critique, "tool_results");
	const cJSON *pre = cJSON_GetObjectItem(st->critique, "preprocessing");
	const cJSON *cmp = cJSON_GetObjectItem(tools, "behavior_topk_direct_compare"), *p, *f, *c;
	cJSON *own = NULL, *sol = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(sol, "solutions");
	char t[600];

	if (!cmp)
		cmp = cJSON_GetObjectItem(pre, "behavior_topk_direct_compare");
	if (!cmp)
		cmp = own = crit_tool_behavior_topk_direct_compare(st, pre);
	int k = (int)crit_num(cmp, "k", 0);
	cJSON *ids = cJSON_AddArrayToObject(sol, "similar_caseids");
	cJSON_ArrayForEach(c, st->similar_cases)
		cJSON_AddItemToArray(ids, cJSON_CreateNumber(crit_num(c, "caseid", 0)));
	crit_say(sol, "comparison", crit_str(cmp, "text") ? crit_str(cmp, "text") : "", crit_ko(cmp, "text"));
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(st->critique, "points")) {
		if (strcmp(crit_str(p, "category"), "abnormal_finding"))
			continue;
		const char *fid = crit_str(p, "finding"), *param = NULL;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(st->structured_chart, "findings"))
			if (!strcmp(crit_str(f, "id"), fid))
				param = crit_str(f, "param");
		int same = -1;
		if (param && (!strcmp(param, "sbp") || !strcmp(param, "mbp") || !strcmp(param, "dbp")))
			same = (int)crit_num(cmp, "with_hypotension", 0);
		else if (param && !strcmp(param, "lac"))
			same = (int)crit_num(cmp, "with_high_lactate", 0);
		char kt[400];
		if (same >= 0) {
			snprintf(kt, sizeof kt, "%s: 유사 케이스 %d건 중 %d건에 같은 종류의 소견이 있었고, %d건에 승압제가 투여되었으며, "
			         "%d건이 원내 사망했습니다.", crit_str(p, "id"), k_of(cmp), same,
			         (int)crit_num(cmp, "with_vasopressor", 0), (int)crit_num(cmp, "deaths", 0));
			snprintf(t, sizeof t, "%s: %d of %d similar cases had the same kind of finding; %d of %d received a "
			         "vasopressor; %d died in hospital.", crit_str(p, "id"), same, k,
			         (int)crit_num(cmp, "with_vasopressor", 0), k, (int)crit_num(cmp, "deaths", 0));
		} else {
			snprintf(kt, sizeof kt, "%s: 이 항목은 유사 케이스와 비교하지 않습니다. 유사 케이스 %d건의 결과: 원내 사망 %d건, "
			         "평균 중환자실 재원 %.1f일.", crit_str(p, "id"), k_of(cmp), (int)crit_num(cmp, "deaths", 0),
			         crit_num(cmp, "mean_icu_days", 0));
			snprintf(t, sizeof t, "%s: similar cases are not compared on this parameter; outcomes among %d similar "
			         "cases: %d in-hospital death(s), mean ICU stay %.1f days.", crit_str(p, "id"), k,
			         (int)crit_num(cmp, "deaths", 0), crit_num(cmp, "mean_icu_days", 0));
		}
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "point", crit_str(p, "id"));
		crit_say(o, "text", t, kt);
		cJSON_AddItemToArray(items, o);
	}
	if (cJSON_GetArraySize(items) == 0)
		crit_say(sol, "note", "No abnormal-finding critique point to verify against similar cases.",
		         "유사 케이스와 대조할 이상 소견 검토 의견이 없습니다.");
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "points", cJSON_Duplicate(cJSON_GetObjectItem(st->critique, "points"), 1));
		cJSON_AddItemToObject(payload, "similar_cases", cJSON_Duplicate(st->similar_cases, 1));
		cJSON_AddItemToObject(payload, "comparison", cJSON_Duplicate(cmp, 1));
		if (crit_llm_ask(st, "verifier", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(sol, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	cJSON_Delete(own);
	st->solutions = sol;
	crit_step(st, "node", "verifier", "ok", NULL, sol, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
