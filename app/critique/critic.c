/* critic.c: the critic subgraph (preprocess -> router -> run_tools -> critique_builder), then the verifier. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "util/conf.h"

static const char *tool_names[] = { "lens_severity_risk", "lens_diagnostic_consistency",
                                    "lens_monitoring_response", "behavior_topk_direct_compare" };
#define NTOOLS 4

static int budget_of(const struct crit_state *st)
{
	if (st->tool_budget >= 0)
		return st->tool_budget;
	return conf_get("critique_tool_budget")[0] ? (int)conf_get_int("critique_tool_budget") : 4;
}

/* _structured_chart_to_timeline_and_evidence of the seed: no tool runs, fields are converted. */
static void chart_to_pre(const cJSON *chart, cJSON *pre)
{
	cJSON *tl = cJSON_AddObjectToObject(pre, "timeline"), *ev = cJSON_AddArrayToObject(tl, "events");
	cJSON *evd = cJSON_AddObjectToObject(pre, "evidence"), *sp = cJSON_AddObjectToObject(evd, "evidence_spans");
	const cJSON *e;
	int i = 0;

	cJSON_ArrayForEach(e, cJSON_GetObjectItem(chart, "events")) {
		cJSON *o = cJSON_Duplicate(e, 1);
		char id[16];
		snprintf(id, sizeof id, "T%d", ++i);
		cJSON_AddStringToObject(o, "event_id", id);
		cJSON_AddItemToArray(ev, o);
	}
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(chart, "evidence_spans"))
		cJSON_AddItemToObject(sp, crit_str(e, "id"), cJSON_Duplicate(e, 1));
}

static cJSON *preprocess(struct crit_state *st, int *budget)
{
	double t0 = crit_now_ms(), t1;
	cJSON *pre = cJSON_CreateObject();
	const char *why = "structured_chart present: converted, tool not run";

	if (st->structured_chart) {
		chart_to_pre(st->structured_chart, pre);
		cJSON_AddStringToObject(pre, "source", "structured_chart");
		crit_step(st, "tool", "timeline", "skipped", why, NULL, NULL, NULL, 0, 0);
		crit_step(st, "tool", "evidence", "skipped", why, NULL, NULL, NULL, 0, 0);
	} else {
		cJSON_AddStringToObject(pre, "source", "text tools");
		t1 = crit_now_ms();
		cJSON_AddItemToObject(pre, "timeline", crit_tool_timeline(st->text ? st->text : ""));
		crit_step(st, "tool", "timeline", "ok", NULL, cJSON_GetObjectItem(pre, "timeline"), NULL, NULL,
		          crit_now_ms() - t1, 0);
		t1 = crit_now_ms();
		cJSON_AddItemToObject(pre, "evidence", crit_tool_evidence(st->text ? st->text : ""));
		crit_step(st, "tool", "evidence", "ok", NULL, cJSON_GetObjectItem(pre, "evidence"), NULL, NULL,
		          crit_now_ms() - t1, 0);
	}
	t1 = crit_now_ms();
	cJSON_AddItemToObject(pre, "record_gaps",
	                      crit_tool_record_gaps(st->structured_chart, cJSON_GetObjectItem(pre, "timeline"), 0));
	crit_step(st, "tool", "record_gaps", "ok", NULL, cJSON_GetObjectItem(pre, "record_gaps"), NULL, NULL,
	          crit_now_ms() - t1, 0);
	if (cJSON_GetArraySize(st->similar_cases) > 0 && *budget > 0) {
		t1 = crit_now_ms();
		cJSON_AddItemToObject(pre, "behavior_topk_direct_compare", crit_tool_behavior_topk_direct_compare(st, pre));
		(*budget)--;
		crit_step(st, "tool", "behavior_topk_direct_compare", "ok", "preprocess: similar cases and budget",
		          cJSON_GetObjectItem(pre, "behavior_topk_direct_compare"), NULL, NULL, crit_now_ms() - t1, 0);
	} else {
		crit_step(st, "tool", "behavior_topk_direct_compare", "skipped",
		          cJSON_GetArraySize(st->similar_cases) ? "preprocess: no tool budget" : "preprocess: no similar cases",
		          NULL, NULL, NULL, 0, 0);
	}
	crit_step(st, "node", "preprocess", "ok", NULL, NULL, NULL, NULL, crit_now_ms() - t0, 0);
	return pre;
}

/* crit_route_tools: lenses for abnormal findings, monitoring lens also for gaps, direct
 * comparison when similar cases exist and preprocess did not already run it. */
cJSON *crit_route_tools(const struct crit_state *st, const cJSON *pre)
{
	cJSON *sel = cJSON_CreateArray();
	int nf = cJSON_GetArraySize(cJSON_GetObjectItem(st->structured_chart, "findings"));
	int ng = cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "record_gaps"), "gaps"));

	if (nf > 0)
		cJSON_AddItemToArray(sel, cJSON_CreateString("lens_severity_risk"));
	if (nf > 1 || (nf > 0 && crit_str(cJSON_GetObjectItem(st->structured_chart, "operation"), "dx")))
		cJSON_AddItemToArray(sel, cJSON_CreateString("lens_diagnostic_consistency"));
	if (nf > 0 || ng > 0)
		cJSON_AddItemToArray(sel, cJSON_CreateString("lens_monitoring_response"));
	if (cJSON_GetArraySize(st->similar_cases) > 0 && !cJSON_GetObjectItem(pre, "behavior_topk_direct_compare"))
		cJSON_AddItemToArray(sel, cJSON_CreateString("behavior_topk_direct_compare"));
	return sel;
}

static int is_tool(const char *s)
{
	for (int i = 0; s && i < NTOOLS; i++)
		if (!strcmp(tool_names[i], s))
			return 1;
	return 0;
}

static cJSON *router(struct crit_state *st, const cJSON *pre)
{
	double t0 = crit_now_ms();
	cJSON *rule = crit_route_tools(st, pre), *sel = NULL, *out = cJSON_CreateObject();
	char *prompt = NULL, *raw = NULL;
	int used = 0;

	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL, *tools = cJSON_AddArrayToObject(payload, "tools");
		for (int i = 0; i < NTOOLS; i++)
			cJSON_AddItemToArray(tools, cJSON_CreateString(tool_names[i]));
		cJSON_AddItemToObject(payload, "findings",
		                      cJSON_Duplicate(cJSON_GetObjectItem(st->structured_chart, "findings"), 1));
		cJSON_AddItemToObject(payload, "record_gaps", cJSON_Duplicate(cJSON_GetObjectItem(pre, "record_gaps"), 1));
		cJSON_AddNumberToObject(payload, "similar_cases", cJSON_GetArraySize(st->similar_cases));
		cJSON_AddItemToObject(payload, "rule_suggestion", cJSON_Duplicate(rule, 1));
		if (crit_llm_ask(st, "router", payload, &ans, &prompt, &raw) == OK) {
			const cJSON *a = cJSON_GetObjectItem(ans, "selected_tools"), *x;
			used = 1;
			if (cJSON_IsArray(a)) {
				sel = cJSON_CreateArray();
				cJSON_ArrayForEach(x, a)
					if (cJSON_IsString(x) && is_tool(x->valuestring))
						cJSON_AddItemToArray(sel, cJSON_CreateString(x->valuestring));
			}
			cJSON_AddItemToObject(out, "llm", ans);
		}
		cJSON_Delete(payload);
	}
	cJSON_AddStringToObject(out, "how", sel ? "llm" : "rule");
	if (!sel)
		sel = cJSON_Duplicate(rule, 1);
	cJSON_AddItemToObject(out, "selected_tools", cJSON_Duplicate(sel, 1));
	cJSON_AddItemToObject(out, "rule_suggestion", rule);
	crit_step(st, "node", "router", "ok", NULL, out, prompt, raw, crit_now_ms() - t0, used);
	cJSON_AddItemToObject(cJSON_GetArrayItem(st->nodes, cJSON_GetArraySize(st->nodes) - 1), "detail", out);
	free(prompt);
	free(raw);
	return sel;
}

static int selected(const cJSON *sel, const char *name)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, sel)
		if (cJSON_IsString(x) && !strcmp(x->valuestring, name))
			return 1;
	return 0;
}

static cJSON *run_tools(struct crit_state *st, cJSON *pre, const cJSON *sel, int *budget)
{
	double t0 = crit_now_ms();
	cJSON *res = cJSON_CreateObject();
	int total = budget_of(st);

	for (int i = 0; i < NTOOLS; i++) {
		const char *n = tool_names[i];
		char why[96];
		if (!selected(sel, n)) {
			crit_step(st, "tool", n, "skipped", "not selected by the critic router", NULL, NULL, NULL, 0, 0);
			continue;
		}
		if (!strcmp(n, "behavior_topk_direct_compare") && cJSON_GetObjectItem(pre, n)) {
			cJSON_AddItemToObject(res, n, cJSON_Duplicate(cJSON_GetObjectItem(pre, n), 1));
			crit_step(st, "tool", n, "skipped", "already ran in preprocess; result reused", NULL, NULL, NULL, 0, 0);
			continue;
		}
		if (*budget <= 0) {
			snprintf(why, sizeof why, "tool budget (%d) used up", total);
			crit_step(st, "tool", n, "skipped", why, NULL, NULL, NULL, 0, 0);
			continue;
		}
		double t1 = crit_now_ms();
		cJSON *r = !strcmp(n, "lens_severity_risk") ? crit_tool_lens_severity_risk(st, pre)
		         : !strcmp(n, "lens_diagnostic_consistency") ? crit_tool_lens_diagnostic_consistency(st, pre)
		         : !strcmp(n, "lens_monitoring_response") ? crit_tool_lens_monitoring_response(st, pre)
		         : crit_tool_behavior_topk_direct_compare(st, pre);
		(*budget)--;
		cJSON_AddItemToObject(res, n, r);
		crit_step(st, "tool", n, "ok", NULL, r, NULL, NULL, crit_now_ms() - t1, 0);
	}
	crit_step(st, "node", "run_tools", "ok", NULL, NULL, NULL, NULL, crit_now_ms() - t0, 0);
	return res;
}

static const char *severity_of(const cJSON *tools, const char *fid)
{
	const cJSON *a;
	cJSON_ArrayForEach(a, cJSON_GetObjectItem(cJSON_GetObjectItem(tools, "lens_severity_risk"), "assessments"))
		if (!strcmp(crit_str(a, "finding"), fid))
			return crit_str(a, "severity");
	return "unrated";
}

static cJSON *point(cJSON *points, const char *category, const char *severity, const char *text,
                    const char *text_ko)
{
	cJSON *p = cJSON_CreateObject();
	char id[16];

	snprintf(id, sizeof id, "C%d", cJSON_GetArraySize(points) + 1);
	cJSON_AddStringToObject(p, "id", id);
	cJSON_AddStringToObject(p, "category", category);
	cJSON_AddStringToObject(p, "severity", severity);
	crit_say(p, "text", text, text_ko);
	cJSON_AddArrayToObject(p, "evidence");
	cJSON_AddArrayToObject(p, "refs");
	cJSON_AddArrayToObject(p, "knowledge");
	cJSON_AddItemToArray(points, p);
	return p;
}

static void add_unique(cJSON *arr, const char *s)
{
	const cJSON *x;
	if (!s)
		return;
	cJSON_ArrayForEach(x, arr)
		if (!strcmp(x->valuestring, s))
			return;
	cJSON_AddItemToArray(arr, cJSON_CreateString(s));
}

/* critique_builder: every point rests on findings, gaps or contributors found in the record. */
static void critique_builder(struct crit_state *st, cJSON *crit)
{
	double t0 = crit_now_ms();
	const cJSON *pre = cJSON_GetObjectItem(crit, "preprocessing"), *tools = cJSON_GetObjectItem(crit, "tool_results");
	const cJSON *chart = st->structured_chart, *f, *x, *g;
	cJSON *points = cJSON_AddArrayToObject(crit, "points");
	char t[700], ko[900];

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		const cJSON *rec = NULL;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(st->intervention_coverage, "reconciled"))
			if (!strcmp(crit_str(x, "finding"), crit_str(f, "id")))
				rec = x;
		snprintf(t, sizeof t, "%s.%s%s", crit_str(f, "text"), rec ? " " : "", rec ? crit_str(rec, "text") : "");
		snprintf(ko, sizeof ko, "%s.%s%s", crit_ko(f, "text"), rec ? " " : "", rec ? crit_ko(rec, "text") : "");
		cJSON *p = point(points, "abnormal_finding", severity_of(tools, crit_str(f, "id")), t, ko);
		cJSON_AddStringToObject(p, "finding", crit_str(f, "id"));
		add_unique(cJSON_GetObjectItem(p, "evidence"), crit_str(f, "span"));
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(st->intervention_coverage, "interventions")) {
			const cJSON *a;
			cJSON_ArrayForEach(a, cJSON_GetObjectItem(x, "answers"))
				if (!strcmp(a->valuestring, crit_str(f, "id"))) {
					add_unique(cJSON_GetObjectItem(p, "evidence"), crit_str(x, "span"));
					add_unique(cJSON_GetObjectItem(p, "refs"), crit_str(x, "ref"));
				}
		}
		int nr = 0;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(f, "refs"))
			if (nr++ < 12)
				add_unique(cJSON_GetObjectItem(p, "refs"), x->valuestring);
		/* knowledge cited for a finding is a document on its topic (hypotension for a low
		 * pressure), not whatever a search for it also returned (the lactate page) */
		const char *topic = crit_finding_topic(crit_str(f, "param"), crit_str(f, "direction"));
		for (int pass = 0; pass < 2; pass++) {
			const cJSON *ev = pass ? st->evidence_2nd : st->evidence;
			cJSON_ArrayForEach(x, cJSON_GetObjectItem(ev, "items"))
				if (crit_kb_on_topic(x, topic))
					add_unique(cJSON_GetObjectItem(p, "knowledge"), crit_str(x, "id"));
		}
	}
	cJSON_ArrayForEach(g, cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "record_gaps"), "gaps")) {
		struct { char b[200]; } ps = {""};
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(g, "params")) {
			size_t l = strlen(ps.b);
			snprintf(ps.b + l, sizeof ps.b - l, "%s%s", l ? "," : "", x->valuestring);
		}
		snprintf(t, sizeof t, "Record gap: %s [%s].", crit_str(g, "text"), ps.b);
		snprintf(ko, sizeof ko, "기록 공백: %s [%s].", crit_ko(g, "text"), ps.b);
		cJSON *p = point(points, "record_gap", crit_num(g, "minutes", 0) >= 60 ? "moderate" : "mild", t, ko);
		add_unique(cJSON_GetObjectItem(p, "refs"), crit_str(g, "before_ref"));
		add_unique(cJSON_GetObjectItem(p, "refs"), crit_str(g, "after_ref"));
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(st->diagnosis_analysis, "inconsistencies")) {
		cJSON *p = point(points, "documentation", "mild", crit_str(x, "text"), crit_ko(x, "text"));
		add_unique(cJSON_GetObjectItem(p, "evidence"), crit_str(x, "span"));
		add_unique(cJSON_GetObjectItem(p, "refs"), crit_str(x, "ref"));
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(st->process_contributor_analysis, "contributors")) {
		const char *k = crit_str(x, "kind");
		if (!strcmp(k, "no_follow_up") || !strcmp(k, "record_inconsistency")) {
			cJSON *p = point(points, "process", "mild", crit_str(x, "text"), crit_ko(x, "text"));
			add_unique(cJSON_GetObjectItem(p, "refs"), crit_str(x, "ref"));
		}
	}
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(cJSON_GetObjectItem(tools, "lens_diagnostic_consistency"), "co_occurring"))
		point(points, "consistency", "info", crit_str(x, "text"), crit_ko(x, "text"));

	int np = cJSON_GetArraySize(points);
	int nf = cJSON_GetArraySize(cJSON_GetObjectItem(chart, "findings"));
	int ng = cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(pre, "record_gaps"), "gaps"));
	double thr = crit_num(cJSON_GetObjectItem(pre, "record_gaps"), "threshold_min", 0);
	if (np == 0 && crit_chart_values(chart) == 0) {
		snprintf(t, sizeof t, "No critique points: the chart holds no measured values to check.");
		snprintf(ko, sizeof ko, "검토 의견 없음: 차트에 확인할 측정값이 없습니다.");
	} else if (np == 0) {
		snprintf(t, sizeof t, "No critique points: every recorded value is within its normal range and no record gap "
		         "exceeds %g min.", thr);
		snprintf(ko, sizeof ko, "검토 의견 없음: 기록된 값이 모두 정상 범위 안에 있고 %g분을 넘는 기록 공백이 없습니다.",
		         thr);
	} else {
		snprintf(t, sizeof t, "%d critique point(s) from %d abnormal finding(s) and %d record gap(s).", np, nf, ng);
		snprintf(ko, sizeof ko, "이상 소견 %d건과 기록 공백 %d건에서 검토 의견 %d건이 나왔습니다.", nf, ng, np);
	}
	crit_say(crit, "summary", t, ko);

	char *prompt = NULL, *raw = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = cJSON_CreateObject(), *ans = NULL;
		cJSON *ref = cJSON_AddObjectToObject(payload, "reference_only_prior_results");
		cJSON_AddItemToObject(payload, "preprocessing", cJSON_Duplicate(pre, 1));
		cJSON_AddItemToObject(payload, "tool_results", cJSON_Duplicate(tools, 1));
		cJSON_AddItemToObject(payload, "points", cJSON_Duplicate(points, 1));
		cJSON_AddItemToObject(ref, "diagnosis_analysis", cJSON_Duplicate(st->diagnosis_analysis, 1));
		cJSON_AddItemToObject(ref, "treatment_analysis", cJSON_Duplicate(st->treatment_analysis, 1));
		cJSON_AddItemToObject(ref, "evidence", cJSON_Duplicate(cJSON_GetObjectItem(st->evidence, "items"), 1));
		cJSON_AddItemToObject(ref, "intervention_coverage", cJSON_Duplicate(st->intervention_coverage, 1));
		if (crit_llm_ask(st, "critique_builder", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(crit, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	cJSON *out = cJSON_CreateObject();
	cJSON_AddItemToObject(out, "points", cJSON_Duplicate(points, 1));
	crit_say(out, "summary", t, ko);
	if (used)
		cJSON_AddItemToObject(out, "llm", cJSON_Duplicate(cJSON_GetObjectItem(crit, "llm"), 1));
	crit_step(st, "node", "critique_builder", "ok", NULL, out, prompt, raw, crit_now_ms() - t0, used);
	cJSON_Delete(out);
	free(prompt);
	free(raw);
}

enum err crit_critic(struct crit_state *st)
{
	double t0 = crit_now_ms();
	int budget = budget_of(st);
	cJSON *crit = cJSON_CreateObject();

	cJSON_AddNumberToObject(crit, "tool_budget", budget);
	cJSON *pre = preprocess(st, &budget);
	cJSON_AddItemToObject(crit, "preprocessing", pre);
	cJSON *sel = router(st, pre);
	cJSON_AddItemToObject(crit, "selected_tools", sel);
	cJSON_AddItemToObject(crit, "tool_results", run_tools(st, pre, sel, &budget));
	critique_builder(st, crit);
	cJSON_AddNumberToObject(crit, "budget_left", budget);
	st->critique = crit;
	if (cJSON_GetArraySize(st->similar_cases) > 0)
		crit_verifier(st);
	else
		crit_step(st, "node", "verifier", "skipped", "no similar cases", NULL, NULL, NULL, 0, 0);
	cJSON *out = cJSON_CreateObject();
	cJSON_AddItemToObject(out, "selected_tools", cJSON_Duplicate(sel, 1));
	cJSON_AddStringToObject(out, "summary", crit_str(crit, "summary"));
	cJSON_AddNumberToObject(out, "points", cJSON_GetArraySize(cJSON_GetObjectItem(crit, "points")));
	crit_step(st, "node", "critic", "ok", NULL, out, NULL, NULL, crit_now_ms() - t0, 0);
	cJSON_Delete(out);
	return OK;
}
