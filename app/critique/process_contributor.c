/* process_contributor.c: conditional agent: delays, gaps and record inconsistencies of the care process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

static void item(cJSON *arr, const char *kind, const char *text, const char *text_ko, const char *ref)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "kind", kind);
	crit_say(o, "text", text, text_ko);
	if (ref)
		cJSON_AddStringToObject(o, "ref", ref);
	cJSON_AddItemToArray(arr, o);
}

enum err crit_process_contributor(struct crit_state *st)
{
	double t0 = crit_now_ms();
	const cJSON *chart = st->structured_chart, *r, *f, *g, *m;
	cJSON *a = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(a, "contributors");
	char t[400], k[500];

	/* late or missing responses */
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(st->intervention_coverage, "reconciled")) {
		const char *after = crit_str(r, "after");
		if (!strcmp(after, "treated_late") || !strcmp(after, "treated_outside_window") || !strcmp(after, "absent"))
			item(items, !strcmp(after, "absent") ? "missing_response" : "delay", crit_str(r, "text"),
			     crit_ko(r, "text"), NULL);
	}
	/* monitoring gaps, and gaps that overlap an abnormal episode */
	cJSON *gaps = crit_tool_record_gaps(chart, NULL, 0);
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(gaps, "gaps")) {
		double gs = crit_num(g, "start_ts", 0), ge = crit_num(g, "end_ts", 0);
		const char *during = NULL;
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings"))
			if (crit_num(f, "start_ts", 0) <= ge + 1800 && crit_num(f, "end_ts", 0) >= gs - 1800)
				during = crit_str(f, "id");
		snprintf(t, sizeof t, "%s%s%s", crit_str(g, "text"), during ? ", around abnormal finding " : "",
		         during ? during : "");
		snprintf(k, sizeof k, "%s%s%s", crit_ko(g, "text"), during ? ", 이상 소견 " : "", during ? during : "");
		if (during)
			snprintf(k + strlen(k), sizeof k - strlen(k), " 전후");
		item(items, "record_gap", t, k, crit_str(g, "after_ref"));
	}
	cJSON_Delete(gaps);
	/* an abnormal lab never repeated */
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		const cJSON *s;
		if (!crit_str(f, "table") || !strstr(crit_str(f, "table"), "lab"))
			continue;
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series")) {
			if (strcmp(crit_str(s, "name"), crit_str(f, "param")))
				continue;
			int later = 0;
			const cJSON *p;
			cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points"))
				later += crit_num(p, "ts", 0) > crit_num(f, "end_ts", 0);
			if (!later) {
				snprintf(t, sizeof t, "%s: abnormal %s at %s not re-measured afterwards", crit_str(f, "id"),
				         crit_str(f, "label"), crit_str(f, "end"));
				snprintf(k, sizeof k, "%s: %s의 비정상 %s 이후 재측정 없음", crit_str(f, "id"), crit_str(f, "end"),
				         crit_param_ko(NULL, crit_str(f, "param")));
				item(items, "no_follow_up", t, k, crit_str(f, "extreme_ref"));
			}
		}
	}
	/* medications recorded outside the anaesthesia time */
	const cJSON *times = cJSON_GetObjectItem(chart, "times");
	long long as = crit_time_parse(crit_str(times, "anestart")), ae = crit_time_parse(crit_str(times, "aneend"));
	if (as > 0 && ae > as) {
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "procedures_performed")) {
			double ts = crit_num(m, "ts", -1);
			if (ts >= 0 && (ts < as - 3600 || ts > ae + 3600)) {
				snprintf(t, sizeof t, "%s recorded more than 1 h outside the anaesthesia time", crit_str(m, "text"));
				snprintf(k, sizeof k, "%s: 마취 시간에서 1시간 넘게 벗어나 기록됨", crit_ko(m, "text"));
				item(items, "record_inconsistency", t, k, crit_str(m, "ref"));
			}
		}
	}
	if (cJSON_GetArraySize(items) == 0)
		crit_say(a, "summary", "No delay, gap or inconsistency found in the records.",
		         "기록에서 지연, 공백, 불일치를 찾지 못했습니다.");
	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON_AddItemToObject(payload, "contributors", cJSON_Duplicate(items, 1));
		cJSON_AddItemToObject(payload, "findings", cJSON_Duplicate(cJSON_GetObjectItem(chart, "findings"), 1));
		cJSON_AddItemToObject(payload, "intervention_coverage", cJSON_Duplicate(st->intervention_coverage, 1));
		if (crit_llm_ask(st, "process_contributor", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(a, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	st->process_contributor_analysis = a;
	crit_step(st, "node", "process_contributor", "ok", NULL, a, prompt, raw, crit_now_ms() - t0, used);
	free(prompt);
	free(raw);
	return OK;
}
