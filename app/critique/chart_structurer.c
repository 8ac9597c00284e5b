/* chart_structurer.c: node 1: the chart (database case or pasted text) as structured JSON. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "util/conf.h"

/* The VitalDB-shaped tables the demo (and any compatible target) uses. */
#define T_CASE "clinical_data_table"
#define T_LAB  "lab_data_table"
#define T_VIT  "vital_data_table"
#define T_MED  "medication_data_table"

static const char *patient_cols[] = { "subjectid", "age", "sex", "height", "weight", "bmi", "asa",
                                      "emop", "preop_htn", "preop_dm", NULL };
static const char *op_cols[] = { "department", "optype", "dx", "opname", "approach", "ane_type", NULL };
static const char *outcome_cols[] = { "icu_days", "death_inhosp", "los", "los_postop", NULL };

static int in_list(const char **l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

/* Add a value keeping numbers numeric (JSON numbers) and everything else text. */
static void add_val(cJSON *o, const char *k, const cJSON *v)
{
	char *end;

	if (!cJSON_IsString(v)) {
		cJSON_AddNullToObject(o, k);
		return;
	}
	double d = strtod(v->valuestring, &end);
	if (end != v->valuestring && *end == 0 && v->valuestring[0])
		cJSON_AddNumberToObject(o, k, d);
	else
		cJSON_AddStringToObject(o, k, v->valuestring);
}

static cJSON *series_get(cJSON *series, const char *name, const char *table, const cJSON *ranges)
{
	cJSON *s;
	double lo, hi;
	const char *unit = NULL;

	cJSON_ArrayForEach(s, series)
		if (!strcmp(crit_str(s, "name"), name))
			return s;
	s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "name", name);
	cJSON_AddStringToObject(s, "label", crit_param_label(ranges, name));
	cJSON_AddStringToObject(s, "table", table);
	if (crit_range(ranges, name, &lo, &hi, &unit)) {
		cJSON_AddNumberToObject(s, "lo", lo);
		cJSON_AddNumberToObject(s, "hi", hi);
		cJSON_AddStringToObject(s, "unit", unit ? unit : "");
		cJSON_AddStringToObject(s, "range_source",
		                        crit_str(cJSON_GetObjectItem(ranges, name), "source"));
	}
	cJSON_AddArrayToObject(s, "points");
	cJSON_AddItemToArray(series, s);
	return s;
}

/* One measurement: flagged low/high against the series' normal range. */
static void add_point(cJSON *s, long long ts, const char *dt, double v, const char *ref, int start, int end)
{
	cJSON *p = cJSON_CreateObject();
	char hm[8];

	cJSON_AddNumberToObject(p, "ts", (double)ts);
	cJSON_AddStringToObject(p, "t", crit_time_hm(ts, hm, sizeof hm));
	if (dt)
		cJSON_AddStringToObject(p, "dt", dt);
	cJSON_AddNumberToObject(p, "v", v);
	cJSON_AddStringToObject(p, "ref", ref);
	if (start >= 0) {
		cJSON_AddNumberToObject(p, "start", start);
		cJSON_AddNumberToObject(p, "end", end);
	}
	if (cJSON_GetObjectItem(s, "lo")) {
		double lo = crit_num(s, "lo", 0), hi = crit_num(s, "hi", 0);
		if (v < lo)
			cJSON_AddStringToObject(p, "flag", "low");
		else if (v > hi)
			cJSON_AddStringToObject(p, "flag", "high");
	}
	cJSON_AddItemToArray(cJSON_GetObjectItem(s, "points"), p);
}

static void add_event(cJSON *events, long long ts, const char *kind, const char *name,
                      const char *text, const char *ref, const char *flag)
{
	cJSON *e = cJSON_CreateObject();
	char hm[8];

	cJSON_AddNumberToObject(e, "ts", (double)ts);
	cJSON_AddStringToObject(e, "t", ts >= 0 ? crit_time_hm(ts, hm, sizeof hm) : "");
	cJSON_AddStringToObject(e, "kind", kind);
	cJSON_AddStringToObject(e, "name", name);
	cJSON_AddStringToObject(e, "text", text);
	if (ref)
		cJSON_AddStringToObject(e, "ref", ref);
	if (flag)
		cJSON_AddStringToObject(e, "flag", flag);
	cJSON_AddItemToArray(events, e);
}

static int cmp_ts(const void *a, const void *b)
{
	double x = crit_num(*(cJSON *const *)a, "ts", 0), y = crit_num(*(cJSON *const *)b, "ts", 0);
	return x < y ? -1 : x > y;
}

/* Sort an array of objects by "ts" (stable enough: qsort then rebuild). */
static void sort_by_ts(cJSON *arr)
{
	int n = cJSON_GetArraySize(arr), i = 0;
	cJSON **v, *c;

	if (n < 2)
		return;
	v = calloc((size_t)n, sizeof *v);
	if (!v)
		return;
	while ((c = cJSON_DetachItemFromArray(arr, 0)) != NULL)
		v[i++] = c;
	qsort(v, (size_t)n, sizeof *v, cmp_ts);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, v[i]);
	free(v);
}

/* Episodes: runs of consecutive out-of-range points of one series in one direction. */
static void find_findings(cJSON *chart)
{
	cJSON *series = cJSON_GetObjectItem(chart, "series");
	cJSON *findings = cJSON_AddArrayToObject(chart, "findings");
	cJSON *s;
	int fid = 0;

	cJSON_ArrayForEach(s, series) {
		cJSON *p, *cur = NULL;
		const char *curflag = NULL;
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points")) {
			const char *flag = crit_str(p, "flag");
			if (!flag) {
				cur = NULL;
				curflag = NULL;
				continue;
			}
			double v = crit_num(p, "v", 0);
			/* readings more than 6 h apart are separate episodes (pre- and postoperative labs) */
			if (cur && crit_num(p, "ts", 0) - crit_num(cur, "end_ts", 0) > 6 * 3600)
				cur = NULL;
			if (!cur || strcmp(curflag, flag)) {
				char id[16];
				snprintf(id, sizeof id, "F%d", ++fid);
				cur = cJSON_CreateObject();
				cJSON_AddStringToObject(cur, "id", id);
				cJSON_AddStringToObject(cur, "param", crit_str(s, "name"));
				cJSON_AddStringToObject(cur, "label", crit_str(s, "label"));
				cJSON_AddStringToObject(cur, "table", crit_str(s, "table"));
				cJSON_AddStringToObject(cur, "direction", flag);
				cJSON_AddStringToObject(cur, "unit", crit_str(s, "unit") ? crit_str(s, "unit") : "");
				cJSON_AddNumberToObject(cur, "lo", crit_num(s, "lo", 0));
				cJSON_AddNumberToObject(cur, "hi", crit_num(s, "hi", 0));
				cJSON_AddNumberToObject(cur, "start_ts", crit_num(p, "ts", 0));
				cJSON_AddStringToObject(cur, "start", crit_str(p, "t"));
				cJSON_AddNumberToObject(cur, "end_ts", crit_num(p, "ts", 0));
				cJSON_AddStringToObject(cur, "end", crit_str(p, "t"));
				cJSON_AddNumberToObject(cur, "n", 0);
				cJSON_AddNumberToObject(cur, "extreme", v);
				cJSON_AddStringToObject(cur, "extreme_t", crit_str(p, "t"));
				cJSON_AddStringToObject(cur, "extreme_ref", crit_str(p, "ref"));
				cJSON_AddArrayToObject(cur, "refs");
				cJSON_AddItemToArray(findings, cur);
				curflag = crit_str(cur, "direction");
			}
			cJSON_SetNumberValue(cJSON_GetObjectItem(cur, "n"), crit_num(cur, "n", 0) + 1);
			cJSON_SetNumberValue(cJSON_GetObjectItem(cur, "end_ts"), crit_num(p, "ts", 0));
			cJSON_ReplaceItemInObject(cur, "end", cJSON_CreateString(crit_str(p, "t")));
			cJSON_AddItemToArray(cJSON_GetObjectItem(cur, "refs"), cJSON_CreateString(crit_str(p, "ref")));
			double ex = crit_num(cur, "extreme", 0);
			if ((!strcmp(flag, "low") && v < ex) || (!strcmp(flag, "high") && v > ex)) {
				cJSON_SetNumberValue(cJSON_GetObjectItem(cur, "extreme"), v);
				cJSON_ReplaceItemInObject(cur, "extreme_t", cJSON_CreateString(crit_str(p, "t")));
				cJSON_ReplaceItemInObject(cur, "extreme_ref", cJSON_CreateString(crit_str(p, "ref")));
			}
		}
	}
	/* Keep as findings only the clinically meaningful episodes: the extreme is at least 20% of
	 * the normal range's width beyond the limit, or 10% over two or more readings.  Respiratory
	 * rate under general anaesthesia is the ventilator's setting, not the patient's.  The rest
	 * stay visible as minor deviations. */
	cJSON *minor = cJSON_AddArrayToObject(chart, "minor_deviations");
	const char *ane = crit_str(cJSON_GetObjectItem(chart, "operation"), "ane_type");
	int general = ane && strcasestr(ane, "general");
	for (int i = cJSON_GetArraySize(findings) - 1; i >= 0; i--) {
		cJSON *x = cJSON_GetArrayItem(findings, i);
		double lo = crit_num(x, "lo", 0), hi = crit_num(x, "hi", 0), v = crit_num(x, "extreme", 0);
		double w = hi > lo ? hi - lo : 1;
		double dev = !strcmp(crit_str(x, "direction"), "low") ? (lo - v) / w : (v - hi) / w;
		int n = (int)crit_num(x, "n", 0);
		const char *why = NULL, *why_ko = NULL;
		cJSON_AddNumberToObject(x, "deviation", round(dev * 1000) / 1000.0);
		if (general && !strcmp(crit_str(x, "param"), "rr"))
			why = "respiratory rate under general anaesthesia is set by the ventilator",
			why_ko = "전신마취 중 호흡수는 인공호흡기 설정값입니다";
		else if (!(dev >= 0.2 || (n >= 2 && dev >= 0.1)))
			why = "small deviation (under 20% of the normal range's width, or 10% over 2+ readings)",
			why_ko = "작은 편차 (정상 범위 폭의 20% 미만, 또는 2회 이상 측정에서 10% 미만)";
		if (why) {
			cJSON *m = cJSON_DetachItemFromArray(findings, i);
			crit_say(m, "why_minor", why, why_ko);
			cJSON_InsertItemInArray(minor, 0, m);
		}
	}
	/* findings are numbered again after the filter */
	int k = 0;
	cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		char id[16];
		snprintf(id, sizeof id, "F%d", ++k);
		cJSON_ReplaceItemInObject(f, "id", cJSON_CreateString(id));
	}
	k = 0;
	cJSON_ArrayForEach(f, minor) {
		char id[16];
		snprintf(id, sizeof id, "M%d", ++k);
		cJSON_ReplaceItemInObject(f, "id", cJSON_CreateString(id));
	}
	/* A readable line per finding.  Times are clock times on the day of the operation; a
	 * value from another day (a preoperative or postoperative lab) carries its date. */
	const cJSON *times = cJSON_GetObjectItem(chart, "times");
	const char *anchor = crit_str(times, "opstart");
	if (!anchor)
		anchor = crit_str(times, "casestart");
	long long aday = anchor && crit_time_parse(anchor) > 100000 ? crit_time_parse(anchor) / 86400 : -1;
	for (int pass = 0; pass < 2; pass++) {
	cJSON *list = pass ? minor : findings;
	cJSON_ArrayForEach(f, list) {
		char line[320], when[3][32];
		const char *keys[3] = { "extreme_ts", "start_ts", "end_ts" }, *hm[3] = { "extreme_t", "start", "end" };
		int n = (int)crit_num(f, "n", 0);
		for (int k = 0; k < 3; k++) {
			double ts = k == 0 ? -1 : crit_num(f, keys[k], -1);
			if (k == 0) {
				/* the extreme's time: find its point */
				const cJSON *sr, *pt;
				cJSON_ArrayForEach(sr, cJSON_GetObjectItem(chart, "series"))
					cJSON_ArrayForEach(pt, cJSON_GetObjectItem(sr, "points"))
						if (!strcmp(crit_str(pt, "ref"), crit_str(f, "extreme_ref")) &&
						    !strcmp(crit_str(sr, "name"), crit_str(f, "param")))
							ts = crit_num(pt, "ts", -1);
			}
			long long day = ts > 100000 ? (long long)ts / 86400 : -1;
			if (aday >= 0 && day >= 0 && day != aday) {
				time_t tt = (time_t)ts;
				struct tm tm;
				gmtime_r(&tt, &tm);
				strftime(when[k], sizeof when[k], "%Y-%m-%d %H:%M", &tm);
			} else {
				snprintf(when[k], sizeof when[k], "%s", crit_str(f, hm[k]) ? crit_str(f, hm[k]) : "");
			}
		}
		const char *u = crit_str(f, "unit") ? crit_str(f, "unit") : "";
		char ko[400];
		snprintf(line, sizeof line, "%s %s: %s %g%s%s at %s (normal %g-%g)", crit_str(f, "label"),
		         crit_str(f, "direction"), crit_str(f, "param"), crit_num(f, "extreme", 0), u[0] ? " " : "", u,
		         when[0], crit_num(f, "lo", 0), crit_num(f, "hi", 0));
		snprintf(ko, sizeof ko, "%s %s: %s %g%s%s, %s (정상 %g-%g)", crit_param_ko(NULL, crit_str(f, "param")),
		         crit_dir_ko(crit_str(f, "direction")), crit_str(f, "param"), crit_num(f, "extreme", 0),
		         u[0] ? " " : "", u, when[0], crit_num(f, "lo", 0), crit_num(f, "hi", 0));
		if (n > 1) {
			size_t l = strlen(line);
			snprintf(line + l, sizeof line - l, ", %d readings %s-%s", n, when[1], when[2]);
			l = strlen(ko);
			snprintf(ko + l, sizeof ko - l, ", %s-%s 사이 %d회 측정", when[1], when[2], n);
		}
		crit_say(f, "text", line, ko);
	}
	}
}

static void add_span(cJSON *spans, const char *category, const char *quote, const char *ref,
                     int start, int end)
{
	cJSON *e = cJSON_CreateObject();
	char id[16];

	snprintf(id, sizeof id, "E%d", cJSON_GetArraySize(spans) + 1);
	cJSON_AddStringToObject(e, "id", id);
	cJSON_AddStringToObject(e, "category", category);
	cJSON_AddStringToObject(e, "quote", quote);
	if (ref)
		cJSON_AddStringToObject(e, "ref", ref);
	if (start >= 0) {
		cJSON_AddNumberToObject(e, "start", start);
		cJSON_AddNumberToObject(e, "end", end);
	}
	cJSON_AddItemToArray(spans, e);
}

/* Spans, procedures_performed and the clinical course from series, meds and findings. */
static void finish_chart(cJSON *chart)
{
	cJSON *spans = cJSON_AddArrayToObject(chart, "evidence_spans");
	cJSON *f, *m, *e;
	cJSON *events = cJSON_GetObjectItem(chart, "events");
	cJSON *patient = cJSON_GetObjectItem(chart, "patient");

	find_findings(chart);
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(chart, "findings")) {
		cJSON *sp;
		add_span(spans, crit_str(f, "table") && strstr(crit_str(f, "table"), "lab") ? "lab" : "vital",
		         crit_str(f, "text"), crit_str(f, "extreme_ref"), -1, -1);
		sp = cJSON_GetArrayItem(spans, cJSON_GetArraySize(spans) - 1);
		cJSON_AddStringToObject(f, "span", crit_str(sp, "id"));
		/* text charts: the span points at the sentence offsets of the extreme point */
		cJSON *s, *p;
		cJSON_ArrayForEach(s, cJSON_GetObjectItem(chart, "series"))
			cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points"))
				if (!strcmp(crit_str(p, "ref"), crit_str(f, "extreme_ref")) && cJSON_GetObjectItem(p, "start")) {
					cJSON_AddNumberToObject(sp, "start", crit_num(p, "start", 0));
					cJSON_AddNumberToObject(sp, "end", crit_num(p, "end", 0));
				}
		add_event(events, (long long)crit_num(f, "start_ts", 0), "finding", crit_str(f, "param"),
		          crit_str(f, "text"), crit_str(f, "extreme_ref"), crit_str(f, "direction"));
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "procedures_performed")) {
		add_span(spans, "medication", crit_str(m, "text"), crit_str(m, "ref"),
		         cJSON_GetObjectItem(m, "start") ? (int)crit_num(m, "start", 0) : -1,
		         (int)crit_num(m, "end", -1));
		cJSON_AddStringToObject(m, "span", crit_str(cJSON_GetArrayItem(spans, cJSON_GetArraySize(spans) - 1), "id"));
	}
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "diagnoses")) {
		char q[300];
		snprintf(q, sizeof q, "diagnosis %s %s", crit_str(m, "code"), crit_str(m, "name"));
		add_span(spans, "diagnosis", q, crit_str(m, "ref"), -1, -1);
		cJSON_AddStringToObject(m, "span", crit_str(cJSON_GetArrayItem(spans, cJSON_GetArraySize(spans) - 1), "id"));
	}
	if (patient && patient->child) {
		char q[256];
		snprintf(q, sizeof q, "age %g, sex %s, ASA %g, preop_htn %g, preop_dm %g",
		         crit_num(patient, "age", -1), crit_str(patient, "sex") ? crit_str(patient, "sex") : "?",
		         crit_num(patient, "asa", -1), crit_num(patient, "preop_htn", -1),
		         crit_num(patient, "preop_dm", -1));
		add_span(spans, "demographic", q, cJSON_GetObjectItem(chart, "caseid") ? "case" : NULL,
		         (int)crit_num(patient, "_start", -1), (int)crit_num(patient, "_end", -1));
		cJSON_DeleteItemFromObject(patient, "_start");
		cJSON_DeleteItemFromObject(patient, "_end");
	}
	sort_by_ts(events);
	cJSON *course = cJSON_AddObjectToObject(chart, "clinical_course");
	cJSON *cev = cJSON_AddArrayToObject(course, "events");
	cJSON_ArrayForEach(e, events)
		if (strcmp(crit_str(e, "kind"), "vital"))
			cJSON_AddItemToArray(cev, cJSON_CreateString(crit_str(e, "text")));
}

/* ---- database case ---- */

static enum err from_db(struct crit_state *st, cJSON *chart, char *err, size_t errlen)
{
	char sql[512];
	cJSON *rows, *r, *c;
	cJSON *notes = cJSON_AddArrayToObject(chart, "notes");
	cJSON *series = cJSON_AddArrayToObject(chart, "series");
	cJSON *events = cJSON_AddArrayToObject(chart, "events");
	cJSON *procs = cJSON_AddArrayToObject(chart, "procedures_performed");
	int i;

	snprintf(sql, sizeof sql, "SELECT * FROM " T_CASE " WHERE caseid = %lld", st->caseid);
	rows = crit_sql_fetch(st, sql, err, errlen);
	if (!rows)
		return ERR_DB;
	if (cJSON_GetArraySize(rows) == 0) {
		cJSON_Delete(rows);
		snprintf(err, errlen, "case %lld not found in " T_CASE, st->caseid);
		return ERR_NOTFOUND;
	}
	cJSON_AddStringToObject(chart, "source", "db");
	cJSON_AddNumberToObject(chart, "caseid", (double)st->caseid);
	cJSON *patient = cJSON_AddObjectToObject(chart, "patient");
	cJSON *op = cJSON_AddObjectToObject(chart, "operation");
	cJSON *outcome = cJSON_AddObjectToObject(chart, "outcome");
	cJSON *times = cJSON_AddObjectToObject(chart, "times");
	cJSON *other = cJSON_AddObjectToObject(chart, "other");
	r = cJSON_GetArrayItem(rows, 0);
	cJSON_ArrayForEach(c, r) {
		const char *k = c->string;
		if (!strcmp(k, "caseid"))
			continue;
		if (in_list(patient_cols, k) || !strncmp(k, "preop_", 6))
			add_val(patient, k, c);
		else if (in_list(op_cols, k))
			add_val(op, k, c);
		else if (in_list(outcome_cols, k) || !strncmp(k, "postop_", 7) || !strncmp(k, "death", 5))
			add_val(outcome, k, c);
		else if (cJSON_IsString(c) && crit_time_parse(c->valuestring) > 100000) {
			long long ts = crit_time_parse(c->valuestring);
			char text[96];
			cJSON_AddStringToObject(times, k, c->valuestring);
			snprintf(text, sizeof text, "%s", k);
			add_event(events, ts, "time", k, text, "case", NULL);
		} else
			add_val(other, k, c);
	}
	cJSON_Delete(rows);

	/* the patient's coded diagnoses (per patient, not per case) */
	if (cJSON_GetObjectItem(patient, "subjectid")) {
		snprintf(sql, sizeof sql, "SELECT code, name FROM diagnosis_table WHERE subject_id = %lld ORDER BY code",
		         (long long)crit_num(patient, "subjectid", 0));
		rows = crit_sql_fetch(st, sql, err, errlen);
		if (!rows) {
			cJSON_AddItemToArray(notes, cJSON_CreateString(err));
		} else {
			cJSON *dxs = cJSON_AddArrayToObject(chart, "diagnoses");
			i = 0;
			cJSON_ArrayForEach(r, rows) {
				char ref[32];
				cJSON *d = cJSON_CreateObject();
				snprintf(ref, sizeof ref, "dx-%d", i++);
				cJSON_AddStringToObject(d, "code", crit_str(r, "code") ? crit_str(r, "code") : "");
				cJSON_AddStringToObject(d, "name", crit_str(r, "name") ? crit_str(r, "name") : "");
				cJSON_AddStringToObject(d, "ref", ref);
				cJSON_AddItemToArray(dxs, d);
			}
			cJSON_Delete(rows);
		}
	}
	err[0] = 0;

	/* labs */
	snprintf(sql, sizeof sql, "SELECT dt, name, result FROM " T_LAB " WHERE caseid = %lld ORDER BY dt, name",
	         st->caseid);
	rows = crit_sql_fetch(st, sql, err, errlen);
	if (!rows) {
		cJSON_AddItemToArray(notes, cJSON_CreateString(err));
	} else {
		i = 0;
		cJSON_ArrayForEach(r, rows) {
			const char *dt = crit_str(r, "dt"), *nm = crit_str(r, "name"), *res = crit_str(r, "result");
			char ref[48], text[160];
			if (!nm || !res || crit_time_parse(dt) < 0) {
				i++;
				continue;
			}
			snprintf(ref, sizeof ref, "lab-%d", i++);
			cJSON *s = series_get(series, nm, T_LAB, st->ranges);
			add_point(s, crit_time_parse(dt), dt, atof(res), ref, -1, -1);
			cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "points"),
			                              cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")) - 1);
			snprintf(text, sizeof text, "lab %s = %s %s", nm, res,
			         crit_str(s, "unit") ? crit_str(s, "unit") : "");
			add_event(events, crit_time_parse(dt), "lab", nm, text, ref, crit_str(p, "flag"));
		}
		cJSON_Delete(rows);
	}

	/* vitals: every numeric column but the keys is a series */
	snprintf(sql, sizeof sql, "SELECT * FROM " T_VIT " WHERE caseid = %lld ORDER BY dt", st->caseid);
	rows = crit_sql_fetch(st, sql, err, errlen);
	if (!rows) {
		cJSON_AddItemToArray(notes, cJSON_CreateString(err));
	} else {
		i = 0;
		cJSON_AddNumberToObject(chart, "vital_rows", cJSON_GetArraySize(rows));
		cJSON_ArrayForEach(r, rows) {
			const char *dt = crit_str(r, "dt");
			long long ts = crit_time_parse(dt);
			char ref[48];
			snprintf(ref, sizeof ref, "vital-%d", i++);
			if (ts < 0)
				continue;
			cJSON_ArrayForEach(c, r) {
				char *end;
				if (!strcmp(c->string, "caseid") || !strcmp(c->string, "dt") || !strcmp(c->string, "id") ||
				    !cJSON_IsString(c))
					continue;
				double v = strtod(c->valuestring, &end);
				if (end == c->valuestring || *end)
					continue;
				add_point(series_get(series, c->string, T_VIT, st->ranges), ts, dt, v, ref, -1, -1);
			}
		}
		cJSON_Delete(rows);
	}

	/* medications */
	snprintf(sql, sizeof sql, "SELECT * FROM " T_MED " WHERE caseid = %lld ORDER BY dt", st->caseid);
	rows = crit_sql_fetch(st, sql, err, errlen);
	if (!rows) {
		cJSON_AddItemToArray(notes, cJSON_CreateString(err));
	} else {
		i = 0;
		cJSON_ArrayForEach(r, rows) {
			const char *dt = crit_str(r, "dt"), *drug = crit_str(r, "drug");
			char ref[48], text[200], hm[8];
			long long ts = crit_time_parse(dt);
			snprintf(ref, sizeof ref, "med-%d", i++);
			if (!drug)
				continue;
			snprintf(text, sizeof text, "%s %s %s %s at %s", drug,
			         crit_str(r, "dose") ? crit_str(r, "dose") : "", crit_str(r, "unit") ? crit_str(r, "unit") : "",
			         crit_str(r, "route") ? crit_str(r, "route") : "", ts >= 0 ? crit_time_hm(ts, hm, sizeof hm) : "?");
			cJSON *m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "drug", drug);
			cJSON_AddStringToObject(m, "class", crit_drug_class(drug));
			add_val(m, "dose", cJSON_GetObjectItem(r, "dose"));
			cJSON_AddStringToObject(m, "unit", crit_str(r, "unit") ? crit_str(r, "unit") : "");
			cJSON_AddStringToObject(m, "route", crit_str(r, "route") ? crit_str(r, "route") : "");
			cJSON_AddNumberToObject(m, "ts", (double)ts);
			cJSON_AddStringToObject(m, "t", ts >= 0 ? crit_time_hm(ts, hm, sizeof hm) : "");
			if (dt)
				cJSON_AddStringToObject(m, "dt", dt);
			cJSON_AddStringToObject(m, "ref", ref);
			char tko[220];
			snprintf(tko, sizeof tko, "%s %s %s %s (%s 투여)", drug,
			         crit_str(r, "dose") ? crit_str(r, "dose") : "", crit_str(r, "unit") ? crit_str(r, "unit") : "",
			         crit_str(r, "route") ? crit_str(r, "route") : "", ts >= 0 ? crit_time_hm(ts, hm, sizeof hm) : "?");
			crit_say(m, "text", text, tko);
			cJSON_AddItemToArray(procs, m);
			add_event(events, ts, "medication", drug, text, ref, NULL);
		}
		cJSON_Delete(rows);
	}
	return OK;
}

/* ---- pasted text ---- */

struct kw { const char *param; const char *words; };
static const struct kw kws[] = {
	{"bp", "blood pressure,bp,혈압,abp,nibp"},
	{"sbp", "sbp,systolic,수축기"},
	{"dbp", "dbp,diastolic,이완기"},
	{"mbp", "mbp,map,mean arterial,평균동맥압,평균 동맥압"},
	{"hr", "heart rate,hr,pulse,심박수,맥박"},
	{"spo2", "spo2,saturation,산소포화도"},
	{"bt", "temperature,bt,체온"},
	{"rr", "respiratory rate,rr,호흡수"},
	{"lac", "lactate,lactic acid,lac,젖산"},
	{"k", "potassium,k+,칼륨"},
	{"na", "sodium,na+,나트륨"},
	{"hb", "hemoglobin,haemoglobin,hb,혈색소"},
	{"gluc", "glucose,blood sugar,혈당"},
	{"cr", "creatinine,cr,크레아티닌"},
};

static int word_at(const char *s, size_t i, const char *w, size_t wl)
{
	if (strncasecmp(s + i, w, wl))
		return 0;
	/* ASCII words need boundaries; Hangul words do not */
	if ((unsigned char)w[0] < 0x80) {
		if (i > 0 && isalnum((unsigned char)s[i - 1]))
			return 0;
		if (isalnum((unsigned char)s[i + wl]) && isalpha((unsigned char)w[wl - 1]))
			return 0;
	}
	return 1;
}

/* The first number within a short distance after position p (skips words like "of", "was"). */
static int number_after(const char *s, size_t p, size_t lim, double *v, size_t *endp)
{
	for (size_t i = p; s[i] && i < p + lim; i++) {
		if (isdigit((unsigned char)s[i])) {
			char *end;
			*v = strtod(s + i, &end);
			if (*end == ':')   /* a clock time, not a value */
				return 0;
			*endp = (size_t)(end - s);
			return 1;
		}
		if (s[i] == '.' && !isdigit((unsigned char)s[i + 1]))
			return 0;
	}
	return 0;
}

static int has_word(const char *s, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; s[i]; i++)
		if (word_at(s, i, w, wl))
			return 1;
	return 0;
}

/* A sentence ends at newline, ';', '。' or a '.' that is not a decimal point. */
/* labelled: for each "Label:" of keys (NULL-terminated) in sent, set op[field] to the text after it
 * (the last label found wins, as before). */
static void labelled(const char *sent, const char *const *keys, cJSON *op, const char *field)
{
	for (int k = 0; keys[k]; k++) {
		const char *p = strcasestr(sent, keys[k]);

		if (!p)
			continue;
		p += strlen(keys[k]);
		while (*p == ' ')
			p++;
		cJSON_DeleteItemFromObject(op, field);
		cJSON_AddStringToObject(op, field, p);
	}
}

static size_t sentence_end(const char *t, size_t i)
{
	for (; t[i]; i++) {
		if (t[i] == '\n' || t[i] == ';')
			return i;
		if (t[i] == '.' && !(i > 0 && isdigit((unsigned char)t[i - 1]) && isdigit((unsigned char)t[i + 1])))
			return i;
	}
	return i;
}

static void text_value(struct crit_state *st, cJSON *chart, const char *param, double v, long long ts,
                       size_t ss, size_t se, int *nref)
{
	char ref[32];

	snprintf(ref, sizeof ref, "text-%d", (*nref)++);
	cJSON *s = series_get(cJSON_GetObjectItem(chart, "series"), param, "text", st->ranges);
	add_point(s, ts, NULL, v, ref, (int)ss, (int)se);
	cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(s, "points"),
	                              cJSON_GetArraySize(cJSON_GetObjectItem(s, "points")) - 1);
	char text[160];
	snprintf(text, sizeof text, "%s %g %s", param, v, crit_str(s, "unit") ? crit_str(s, "unit") : "");
	add_event(cJSON_GetObjectItem(chart, "events"), ts, "text", param, text, ref, crit_str(p, "flag"));
}

static void from_text(struct crit_state *st, cJSON *chart)
{
	const char *t = st->text;
	cJSON *patient = cJSON_AddObjectToObject(chart, "patient");
	cJSON *op = cJSON_AddObjectToObject(chart, "operation");
	cJSON *outcome = cJSON_AddObjectToObject(chart, "outcome");
	cJSON *procs;
	long long cur = -1;
	int nref = 0, nmed = 0;
	size_t i = 0;

	cJSON_AddStringToObject(chart, "source", "text");
	cJSON_AddArrayToObject(chart, "notes");
	cJSON_AddArrayToObject(chart, "series");
	cJSON_AddArrayToObject(chart, "events");
	procs = cJSON_AddArrayToObject(chart, "procedures_performed");
	while (t[i]) {
		size_t e = sentence_end(t, i), ss = i;
		char *sent = strndup(t + i, e - i);
		double v, v2;
		size_t ve;

		/* the clock time of this sentence, carried forward */
		for (size_t k = 0; sent[k]; k++) {
			if (isdigit((unsigned char)sent[k]) && (k == 0 || !isdigit((unsigned char)sent[k - 1]))) {
				long long tt = crit_time_parse(sent + k);
				if (tt >= 0 && strchr(sent + k, ':') && strchr(sent + k, ':') - (sent + k) <= 2) {
					cur = tt;
					break;
				}
			}
		}
		/* "Diagnosis: X" / "진단: X" / "Operation: X" lines */
		static const char *dxk[] = { "diagnosis:", "dx:", "진단:", "진단명:", NULL };
		static const char *opk[] = { "operation:", "procedure:", "수술:", "수술명:", NULL };
		labelled(sent, dxk, op, "dx");
		labelled(sent, opk, op, "opname");
		/* demographics */
		for (size_t k = 0; sent[k]; k++) {
			if (!cJSON_GetObjectItem(patient, "age") && isdigit((unsigned char)sent[k]) &&
			    (k == 0 || !isdigit((unsigned char)sent[k - 1]))) {
				char *end;
				long a = strtol(sent + k, &end, 10);
				if (a > 0 && a < 120 && (!strncasecmp(end, "-year", 5) || !strncasecmp(end, " year", 5) ||
				                         !strncmp(end, "세", strlen("세")) || !strncasecmp(end, "yo", 2) ||
				                         !strncasecmp(end, " yo", 3))) {
					cJSON_AddNumberToObject(patient, "age", (double)a);
					cJSON_AddNumberToObject(patient, "_start", (double)(ss + k));
					cJSON_AddNumberToObject(patient, "_end", (double)(ss + (size_t)(end - sent)));
				}
			}
		}
		if (!cJSON_GetObjectItem(patient, "asa")) {
			char *p = strcasestr(sent, "asa");
			if (p && number_after(p, 3, 8, &v, &ve) && v >= 1 && v <= 6)
				cJSON_AddNumberToObject(patient, "asa", v);
		}
		if (!cJSON_GetObjectItem(patient, "sex")) {
			if (has_word(sent, "male") || has_word(sent, "man") || strstr(sent, "남성") || strstr(sent, "남자"))
				cJSON_AddStringToObject(patient, "sex", "M");
			if (has_word(sent, "female") || has_word(sent, "woman") || strstr(sent, "여성") || strstr(sent, "여자")) {
				cJSON_DeleteItemFromObject(patient, "sex");
				cJSON_AddStringToObject(patient, "sex", "F");
			}
		}
		int neg = has_word(sent, "no") || has_word(sent, "denies") || has_word(sent, "without") || strstr(sent, "없");
		if (has_word(sent, "hypertension") || has_word(sent, "htn") || strstr(sent, "고혈압"))
			cJSON_AddNumberToObject(patient, "preop_htn", neg ? 0 : 1);
		if (has_word(sent, "diabetes") || has_word(sent, "dm") || strstr(sent, "당뇨"))
			cJSON_AddNumberToObject(patient, "preop_dm", neg ? 0 : 1);
		if (has_word(sent, "died") || has_word(sent, "death") || has_word(sent, "expired") || strstr(sent, "사망"))
			cJSON_AddNumberToObject(outcome, "death_inhosp", neg ? 0 : 1);
		if (has_word(sent, "icu") || strstr(sent, "중환자실"))
			cJSON_AddStringToObject(outcome, "icu", sent);
		/* measurements */
		for (size_t k = 0; k < sizeof kws / sizeof kws[0]; k++) {
			char words[128], *save = NULL, *w;
			snprintf(words, sizeof words, "%s", kws[k].words);
			for (w = strtok_r(words, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
				size_t wl = strlen(w);
				int found = 0;
				for (size_t q = 0; sent[q]; q++) {
					if (!word_at(sent, q, w, wl))
						continue;
					if (!number_after(sent, q + wl, 24, &v, &ve))
						continue;
					found = 1;
					if (!strcmp(kws[k].param, "bp")) {
						if (sent[ve] == '/' && number_after(sent, ve + 1, 2, &v2, &ve)) {
							text_value(st, chart, "sbp", v, cur, ss + q, ss + ve, &nref);
							text_value(st, chart, "dbp", v2, cur, ss + q, ss + ve, &nref);
						} else {
							text_value(st, chart, "sbp", v, cur, ss + q, ss + ve, &nref);
						}
					} else {
						text_value(st, chart, kws[k].param, v, cur, ss + q, ss + ve, &nref);
					}
					break;
				}
				if (found)
					break;
			}
		}
		/* interventions */
		for (size_t k = 0; sent[k]; k++) {
			if (!isalpha((unsigned char)sent[k]) && (unsigned char)sent[k] < 0x80)
				continue;
			if (k > 0 && isalpha((unsigned char)sent[k - 1]))
				continue;
			char word[64];
			size_t wl = 0;
			while (sent[k + wl] && (isalpha((unsigned char)sent[k + wl]) || (unsigned char)sent[k + wl] >= 0x80) &&
			       wl < sizeof word - 1) {
				word[wl] = sent[k + wl];
				wl++;
			}
			word[wl] = 0;
			const char *cls = crit_drug_class(word);
			if (wl < 3 || !strcmp(cls, "other")) {
				k += wl ? wl - 1 : 0;
				continue;
			}
			char ref[32], text[200], hm[8];
			snprintf(ref, sizeof ref, "text-med-%d", nmed++);
			cJSON *m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "drug", word);
			cJSON_AddStringToObject(m, "class", cls);
			if (number_after(sent, k + wl, 12, &v, &ve))
				cJSON_AddNumberToObject(m, "dose", v);
			cJSON_AddNumberToObject(m, "ts", (double)cur);
			cJSON_AddStringToObject(m, "t", cur >= 0 ? crit_time_hm(cur, hm, sizeof hm) : "");
			cJSON_AddStringToObject(m, "ref", ref);
			snprintf(text, sizeof text, "%s%s%s", word, cur >= 0 ? " at " : "", cur >= 0 ? hm : "");
			cJSON_AddStringToObject(m, "text", text);
			cJSON_AddNumberToObject(m, "start", (double)(ss + k));
			cJSON_AddNumberToObject(m, "end", (double)(ss + k + wl));
			cJSON_AddItemToArray(procs, m);
			add_event(cJSON_GetObjectItem(chart, "events"), cur, "medication", word, text, ref, NULL);
			k += wl - 1;
		}
		free(sent);
		i = t[e] ? e + 1 : e;
	}
}

/* ---- the node ---- */

/* A compact view of the chart for prompts (no per-point series). */
static cJSON *chart_brief(const cJSON *chart)
{
	cJSON *b = cJSON_CreateObject();
	static const char *keys[] = { "source", "caseid", "patient", "operation", "outcome", "times",
	                              "diagnoses", "findings", "procedures_performed", "notes" };

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		const cJSON *v = cJSON_GetObjectItem(chart, keys[i]);
		if (v)
			cJSON_AddItemToObject(b, keys[i], cJSON_Duplicate(v, 1));
	}
	return b;
}

enum err crit_chart_structurer(struct crit_state *st)
{
	double t0 = crit_now_ms();
	char err[512] = "";
	enum err rc = OK;
	cJSON *chart = cJSON_CreateObject();

	if (!st->ranges)
		st->ranges = crit_ranges_load(st->metadata_file);
	if (st->caseid > 0) {
		rc = from_db(st, chart, err, sizeof err);
		if (rc != OK) {
			cJSON_Delete(chart);
			crit_step(st, "node", "chart_structurer", "error", err, NULL, NULL, NULL, crit_now_ms() - t0, 0);
			return rc;
		}
	} else if (st->text && st->text[0]) {
		from_text(st, chart);
		cJSON_AddStringToObject(chart, "text", st->text);
	} else {
		cJSON_Delete(chart);
		crit_step(st, "node", "chart_structurer", "error", "no case and no text", NULL, NULL, NULL, 0, 0);
		return ERR_INPUT;
	}
	finish_chart(chart);
	st->structured_chart = chart;

	/* with an LLM: its own structuring of the chart, kept beside the deterministic one */
	char *prompt = NULL, *raw = NULL;
	cJSON *ans = NULL;
	int used = 0;
	if (st->llm) {
		cJSON *payload = chart_brief(chart);
		if (st->text)
			cJSON_AddStringToObject(payload, "chart_text", st->text);
		if (crit_llm_ask(st, "chart_structurer", payload, &ans, &prompt, &raw) == OK) {
			cJSON_AddItemToObject(chart, "llm", ans);
			used = 1;
		}
		cJSON_Delete(payload);
	}
	cJSON *out = chart_brief(chart);
	if (used)
		cJSON_AddItemToObject(out, "llm", cJSON_Duplicate(cJSON_GetObjectItem(chart, "llm"), 1));
	crit_step(st, "node", "chart_structurer", st->llm && !used ? "degraded" : "ok",
	          st->llm && !used ? "LLM call failed; deterministic chart kept" : NULL, out, prompt, raw,
	          crit_now_ms() - t0, used);
	cJSON_Delete(out);
	free(prompt);
	free(raw);
	return OK;
}
