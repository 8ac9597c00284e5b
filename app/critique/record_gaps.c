/* record_gaps.c: critic tool: stretches of the record without measurements (always run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "util/conf.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorted unique times of a point list (ts >= 0). */
static int times_of(const cJSON *points, double **out, char ***refs)
{
	int n = cJSON_GetArraySize(points), k = 0;
	double *v = calloc((size_t)(n ? n : 1), sizeof *v);
	const cJSON *p;

	*refs = NULL;
	cJSON_ArrayForEach(p, points) {
		double t = crit_num(p, "ts", -1);
		if (t >= 0)
			v[k++] = t;
	}
	qsort(v, (size_t)k, sizeof *v, cmp_d);
	int u = 0;
	for (int i = 0; i < k; i++)
		if (u == 0 || v[u - 1] != v[i])
			v[u++] = v[i];
	*out = v;
	return u;
}

static const char *ref_at(const cJSON *points, double t)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, points)
		if (crit_num(p, "ts", -1) == t)
			return crit_str(p, "ref");
	return NULL;
}

/* Gaps of one time list: an interval longer than max(gap_min, 3 x median interval). */
static void gaps_of(cJSON *gaps, const char *param, const cJSON *points, int gap_min, double *median_out)
{
	double *v;
	char **refs;
	int n = times_of(points, &v, &refs);

	if (n >= 3) {
		double *d = calloc((size_t)n, sizeof *d);
		for (int i = 1; i < n; i++)
			d[i - 1] = v[i] - v[i - 1];
		qsort(d, (size_t)(n - 1), sizeof *d, cmp_d);
		double med = d[(n - 2) / 2], thr = gap_min * 60.0;   /* lower median */
		if (3 * med > thr)
			thr = 3 * med;
		if (median_out && *median_out < 0)
			*median_out = med / 60.0;
		free(d);
		for (int i = 1; i < n; i++) {
			if (v[i] - v[i - 1] <= thr)
				continue;
			cJSON *g = NULL, *x;
			cJSON_ArrayForEach(x, gaps)
				if (crit_num(x, "start_ts", 0) == v[i - 1] && crit_num(x, "end_ts", 0) == v[i])
					g = x;
			if (!g) {
				char a[8], b[8], text[160];
				g = cJSON_CreateObject();
				cJSON_AddNumberToObject(g, "start_ts", v[i - 1]);
				cJSON_AddNumberToObject(g, "end_ts", v[i]);
				cJSON_AddStringToObject(g, "start", crit_time_hm((long long)v[i - 1], a, sizeof a));
				cJSON_AddStringToObject(g, "end", crit_time_hm((long long)v[i], b, sizeof b));
				cJSON_AddNumberToObject(g, "minutes", (v[i] - v[i - 1]) / 60.0);
				char ko[160];
				snprintf(text, sizeof text, "no measurement from %s to %s (%.0f min)", a, b, (v[i] - v[i - 1]) / 60.0);
				snprintf(ko, sizeof ko, "%s부터 %s까지 측정 없음 (%.0f분)", a, b, (v[i] - v[i - 1]) / 60.0);
				crit_say(g, "text", text, ko);
				const char *r1 = ref_at(points, v[i - 1]), *r2 = ref_at(points, v[i]);
				if (r1)
					cJSON_AddStringToObject(g, "before_ref", r1);
				if (r2)
					cJSON_AddStringToObject(g, "after_ref", r2);
				cJSON_AddArrayToObject(g, "params");
				cJSON_AddItemToArray(gaps, g);
			}
			cJSON_AddItemToArray(cJSON_GetObjectItem(g, "params"), cJSON_CreateString(param));
		}
	}
	free(v);
}

cJSON *crit_tool_record_gaps(const cJSON *chart, const cJSON *timeline, int gap_min)
{
	cJSON *out = cJSON_CreateObject(), *gaps = cJSON_CreateArray();
	const cJSON *s;
	double median = -1;

	if (gap_min <= 0)
		gap_min = conf_get_int("critique_gap_min") > 0 ? (int)conf_get_int("critique_gap_min") : 20;
	/* Measured series only: labs are sparse by nature, and a vital recorded in under 80% of
	 * the records (temperature, often) has no rhythm to break. */
	int most = 0;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series"))
		if (cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")) > most)
			most = cJSON_GetArraySize(cJSON_GetObjectItem(s, "points"));
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series")) {
		const char *tb = crit_str(s, "table");
		if (tb && strstr(tb, "lab"))
			continue;
		if (cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")) * 5 < most * 4)
			continue;
		gaps_of(gaps, crit_str(s, "name"), cJSON_GetObjectItem(s, "points"), gap_min, &median);
	}
	/* no series (text charts without values): the timeline's own times */
	if (cJSON_GetArraySize(gaps) == 0 && timeline && median < 0)
		gaps_of(gaps, "timeline", cJSON_GetObjectItem(timeline, "events"), gap_min > 60 ? gap_min : 60, &median);
	cJSON_AddNumberToObject(out, "threshold_min", gap_min);
	cJSON_AddNumberToObject(out, "median_interval_min", median);
	cJSON_AddItemToObject(out, "gaps", gaps);
	return out;
}
