/* lens_severity_risk.c: critic tool: how far each finding is from normal, read with the risk factors. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"

/* Values that are severe whatever the relative deviation (common perioperative alarm limits). */
static int severe_abs(const char *p, const char *dir, double v)
{
	int low = !strcmp(dir, "low");
	if (!strcmp(p, "sbp")) return low ? v < 70 : v > 180;
	if (!strcmp(p, "mbp")) return low ? v < 55 : v > 130;
	if (!strcmp(p, "lac")) return !low && v >= 4;
	if (!strcmp(p, "k")) return low ? v < 3.0 : v > 6.0;
	if (!strcmp(p, "spo2")) return low && v < 88;
	if (!strcmp(p, "hr")) return low ? v < 40 : v > 130;
	if (!strcmp(p, "hb")) return low && v < 7;
	return 0;
}

cJSON *crit_tool_lens_severity_risk(const struct crit_state *st, const cJSON *pre)
{
	cJSON *out = cJSON_CreateObject(), *as = cJSON_AddArrayToObject(out, "assessments");
	const cJSON *f;

	cJSON_ArrayForEach(f, cJSON_GetObjectItem(st->structured_chart, "findings")) {
		const char *p = crit_str(f, "param"), *dir = crit_str(f, "direction");
		double v = crit_num(f, "extreme", 0), lo = crit_num(f, "lo", 0), hi = crit_num(f, "hi", 0);
		double dev = !strcmp(dir, "low") ? (lo - v) / (lo ? lo : 1) : (v - hi) / (hi ? hi : 1);
		const char *sev = severe_abs(p, dir, v) || dev > 0.3 ? "severe" : dev > 0.1 ? "moderate" : "mild";
		char t[300];
		cJSON *a = cJSON_CreateObject();
		snprintf(t, sizeof t, "%s: %s %s %g %s is %.0f%% beyond the normal limit (%s)", crit_str(f, "id"),
		         crit_str(f, "label"), dir, v, crit_str(f, "unit"), dev * 100, sev);
		cJSON_AddStringToObject(a, "finding", crit_str(f, "id"));
		cJSON_AddStringToObject(a, "severity", sev);
		cJSON_AddNumberToObject(a, "deviation_pct", round(dev * 1000) / 10.0);
		cJSON_AddStringToObject(a, "text", t);
		cJSON_AddItemToArray(as, a);
	}
	/* reference only: the risk factor agent's result, when it ran */
	const cJSON *rf = st->risk_factor_analysis;
	cJSON_AddNumberToObject(out, "reference_risk_factor_count", rf ? crit_num(rf, "count", 0) : -1);
	if (rf && crit_num(rf, "count", 0) > 0 && cJSON_GetArraySize(as) > 0)
		cJSON_AddStringToObject(out, "risk_context", "abnormal findings in a patient with recorded risk factors");
	(void)pre;
	return out;
}
