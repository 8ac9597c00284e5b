/* report_render.c: a critique report as HTML: template data, the server-rendered SVG timeline, standalone file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "critique/critique.h"
#include "pages/report.h"
#include "util/conf.h"
#include "util/tpl.h"

/* ---- SVG timeline ---- */

#define SVG_W 960
#define LEFT 120
#define RIGHT 16
#define PANEL_H 54
#define PANEL_GAP 10
#define TOP 30

static double xpos(double t, double t0, double t1)
{
	double w = SVG_W - LEFT - RIGHT;
	return t1 > t0 ? LEFT + (t - t0) / (t1 - t0) * w : LEFT + w / 2;
}

static int plottable(const cJSON *s, double t0, double t1)
{
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points"))
		if (crit_num(p, "ts", -1) >= t0 && crit_num(p, "ts", -1) <= t1)
			return 1;
	return 0;
}

/* widen: grow the window [t0, t1] to include t (negative: no time); *have says it is set. */
static void widen(double t, double *t0, double *t1, int *have)
{
	if (t < 0)
		return;
	if (!*have || t < *t0)
		*t0 = t;
	if (!*have || t > *t1)
		*t1 = t;
	*have = 1;
}

void report_svg(struct sb *out, const cJSON *report, const char *lang)
{
	int ko = lang && !strcmp(lang, "ko");
	const cJSON *chart = cJSON_GetObjectItem(report, "structured_chart");
	const cJSON *series = cJSON_GetObjectItem(chart, "series"), *s, *p, *m, *g;
	const cJSON *gaps = cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
	        cJSON_GetObjectItem(report, "critique"), "preprocessing"), "record_gaps"), "gaps");
	double t0 = 0, t1 = 0;
	int have = 0, np = 0;
	char hm[8];

	/* The window: the vital signs' span (the operation) widened by 30 min, so that preoperative
	 * and postoperative labs do not squeeze it; without vitals, every timed point. */
	for (int pass = 0; pass < 2 && !have; pass++)
		cJSON_ArrayForEach(s, series) {
			const char *tb = crit_str(s, "table");
			if (pass == 0 && (!tb || strstr(tb, "lab")))
				continue;
			cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points"))
				widen(crit_num(p, "ts", -1), &t0, &t1, &have);
		}
	if (!have)
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "procedures_performed"))
			widen(crit_num(m, "ts", -1), &t0, &t1, &have);
	if (have) {
		t0 -= 1800;
		t1 += 1800;
	}
	int outside = 0;
	cJSON_ArrayForEach(s, series) {
		int in = 0;
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points")) {
			double t = crit_num(p, "ts", -1);
			if (t >= t0 && t <= t1)
				in = 1;
			else
				outside++;
		}
		np += in;
	}
	if (!have || np == 0) {
		sb_puts(out, ko ? "<p class=\"muted\">그릴 시각 있는 값이 없습니다.</p>"
		             : "<p class=\"muted\">No timed values to draw.</p>");
		return;
	}
	int h = TOP + np * (PANEL_H + PANEL_GAP) + 24;
	sb_printf(out, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
	          "width=\"100%%\" role=\"img\" aria-label=\"timeline of vitals and labs\">", SVG_W, h);
	sb_printf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>", SVG_W, h);
	/* record gaps, shaded through every panel */
	cJSON_ArrayForEach(g, gaps) {
		double x0 = xpos(crit_num(g, "start_ts", 0), t0, t1), x1 = xpos(crit_num(g, "end_ts", 0), t0, t1);
		sb_printf(out, "<rect class=\"gap\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#bbb\" "
		          "fill-opacity=\"0.35\"><title>", x0, TOP - 6, x1 - x0, h - TOP - 18);
		sb_html(out, crit_str(g, "text"));
		sb_puts(out, "</title></rect>");
	}
	/* medication ticks along the top */
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(chart, "procedures_performed")) {
		double t = crit_num(m, "ts", -1);
		if (t < t0 || t > t1)
			continue;
		double x = xpos(t, t0, t1);
		int vaso = !strcmp(crit_str(m, "class") ? crit_str(m, "class") : "", "vasopressor");
		sb_printf(out, "<a href=\"#row-");
		sb_html(out, crit_str(m, "ref"));
		sb_printf(out, "\"><path class=\"med\" d=\"M%.1f %d l-4 -8 h8 z\" fill=\"%s\"><title>", x, TOP - 4,
		          vaso ? "#b42318" : "#2b6cb0");
		sb_html(out, crit_str(m, "text"));
		sb_puts(out, "</title></path></a>");
	}
	sb_printf(out, "<text x=\"4\" y=\"%d\" font-size=\"10\" fill=\"#555\">%s</text>", TOP - 6,
	          ko ? "투약" : "medications");
	/* one panel per series */
	int k = 0;
	cJSON_ArrayForEach(s, series) {
		if (!plottable(s, t0, t1))
			continue;
		int y = TOP + k * (PANEL_H + PANEL_GAP);
		double lo = crit_num(s, "lo", NAN), hi = crit_num(s, "hi", NAN), vmin = 0, vmax = 0;
		int first = 1;
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points")) {
			double v = crit_num(p, "v", 0);
			if (crit_num(p, "ts", -1) < t0 || crit_num(p, "ts", -1) > t1)
				continue;
			if (first || v < vmin)
				vmin = v;
			if (first || v > vmax)
				vmax = v;
			first = 0;
		}
		if (!isnan(lo)) {
			vmin = fmin(vmin, lo);
			vmax = fmax(vmax, hi);
		}
		double pad = (vmax - vmin) * 0.08 + 1e-9;
		vmin -= pad;
		vmax += pad;
#define YV(v) (y + PANEL_H - ((v) - vmin) / (vmax - vmin) * PANEL_H)
		sb_printf(out, "<g class=\"series\" data-name=\"");
		sb_html(out, crit_str(s, "name"));
		sb_printf(out, "\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#dfe3e8\"/>",
		          LEFT, y, SVG_W - LEFT - RIGHT, PANEL_H);
		if (!isnan(lo))
			sb_printf(out, "<rect class=\"normal\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"#1f7a3d\" "
			          "fill-opacity=\"0.08\"/>", LEFT, YV(hi), SVG_W - LEFT - RIGHT, YV(lo) - YV(hi));
		sb_printf(out, "<text x=\"4\" y=\"%d\" font-size=\"11\" fill=\"#1d2330\">", y + 14);
		sb_html(out, crit_str(s, "name"));
		sb_puts(out, "</text>");
		sb_printf(out, "<text x=\"4\" y=\"%d\" font-size=\"9\" fill=\"#5b6472\">", y + 27);
		if (!isnan(lo))
			sb_printf(out, "%g-%g ", lo, hi);
		sb_html(out, crit_str(s, "unit"));
		sb_puts(out, "</text>");
		/* the line, broken at points without a time */
		sb_puts(out, "<polyline fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"1.2\" points=\"");
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points"))
			if (crit_num(p, "ts", -1) >= t0 && crit_num(p, "ts", -1) <= t1)
				sb_printf(out, "%.1f,%.1f ", xpos(crit_num(p, "ts", 0), t0, t1), YV(crit_num(p, "v", 0)));
		sb_puts(out, "\"/>");
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points")) {
			if (crit_num(p, "ts", -1) < t0 || crit_num(p, "ts", -1) > t1)
				continue;
			const char *flag = crit_str(p, "flag");
			sb_printf(out, "<a href=\"#row-");
			sb_html(out, crit_str(p, "ref"));
			sb_printf(out, "\"><circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\"><title>",
			          flag ? "pt oor" : "pt", xpos(crit_num(p, "ts", 0), t0, t1), YV(crit_num(p, "v", 0)),
			          flag ? "3.6" : "2", flag ? "#b42318" : "#2b6cb0");
			sb_html(out, crit_str(s, "name"));
			sb_printf(out, " %g at %s%s%s", crit_num(p, "v", 0), crit_str(p, "t"), flag ? " (" : "", flag ? flag : "");
			sb_puts(out, flag ? ")</title></circle></a>" : "</title></circle></a>");
		}
		sb_puts(out, "</g>");
#undef YV
		k++;
	}
	/* time axis */
	int ya = TOP + np * (PANEL_H + PANEL_GAP) + 8;
	for (int i = 0; i <= 6; i++) {
		double t = t0 + (t1 - t0) * i / 6.0;
		double x = xpos(t, t0, t1);
		sb_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\" fill=\"#5b6472\">%s</text>",
		          x, ya, crit_time_hm((long long)t, hm, sizeof hm));
	}
	sb_puts(out, "</svg>");
	if (outside && ko)
		sb_printf(out, "<p class=\"muted small\">그래프 구간 밖의 값 %d개 (수술 전후 검사 등)는 구조화 차트에 "
		          "나열되어 있습니다.</p>", outside);
	else if (outside)
		sb_printf(out, "<p class=\"muted small\">%d value(s) outside the plotted window (e.g. pre- and "
		          "postoperative labs) are listed in the structured chart.</p>", outside);
}

/* ---- labels ---- */

/* The report's headings in English and Korean (the findings themselves are generated text). */
static const struct { const char *key, *en, *ko; } labels[] = {
	{"report_title", "Critique report", "검토 보고서"},
	{"summary", "Summary", "요약"},
	{"chart", "Structured chart", "구조화 차트"},
	{"patient", "Patient", "환자"},
	{"operation", "Operation", "수술"},
	{"times", "Times", "시간"},
	{"outcome", "Outcome", "결과"},
	{"coded", "Coded diagnoses of the patient", "환자의 진단 코드"},
	{"note", "note", "참고"},
	{"chart_text", "Chart text", "차트 원문"},
	{"findings", "Abnormal findings", "이상 소견"},
	{"no_findings", "No value outside its normal range.", "정상 범위를 벗어난 값이 없습니다."},
	{"no_values", "The chart holds no measured values.", "차트에 측정값이 없습니다."},
	{"minor", "Minor deviations not raised", "제기하지 않은 경미한 편차"},
	{"vitals", "Vital signs", "활력징후"},
	{"records", "records", "건"},
	{"labs", "Labs and measured values", "검사 및 측정값"},
	{"meds", "Medications and interventions", "투약 및 처치"},
	{"time", "time", "시각"},
	{"name", "name", "이름"},
	{"value", "value", "값"},
	{"unit", "unit", "단위"},
	{"given", "given", "투여"},
	{"class", "class", "분류"},
	{"spans", "Evidence spans", "근거 구간"},
	{"llm_struct", "LLM structuring", "LLM 구조화"},
	{"answer", "answer", "응답"},
	{"timeline", "Timeline", "타임라인"},
	{"legend", "Green band: normal range. Red dots: out of range. Grey: record gaps. Triangles: medications (red: vasopressors).", "초록 띠: 정상 범위. 빨간 점: 범위 이탈. 회색: 기록 공백. 삼각형: 투약 (빨강: 승압제)."},
	{"analysis", "Diagnosis and treatment analysis", "진단·치료 분석"},
	{"diagnosis", "Diagnosis", "진단"},
	{"treatment", "Treatment", "치료"},
	{"documentation", "Documentation", "기록"},
	{"no_response", "No abnormal finding called for a response.", "대응이 필요한 이상 소견이 없습니다."},
	{"interventions", "Interventions given (intervention_checker)", "시행된 처치 (intervention_checker)"},
	{"critique", "Critique", "검토 의견"},
	{"tools_selected", "tools selected", "선택된 도구"},
	{"none", "none", "없음"},
	{"evidence", "evidence", "근거"},
	{"rows", "rows", "행"},
	{"knowledge", "knowledge", "지식"},
	{"llm_critique", "LLM critique", "LLM 검토 의견"},
	{"evidence_kb", "Evidence (knowledge base)", "근거 (지식 베이스)"},
	{"queries", "queries", "검색어"},
	{"second_pass", "2nd pass", "2차 검색"},
	{"remote", "remote literature", "원격 문헌"},
	{"score", "score", "점수"},
	{"no_kb", "No knowledge-base passage matched.", "일치하는 지식 베이스 문단이 없습니다."},
	{"llm_second", "LLM (2nd pass)", "LLM (2차 검색)"},
	{"risk", "Risk factors", "위험 인자"},
	{"not_run", "Not run", "실행 안 됨"},
	{"process", "Process contributors", "프로세스 기여 요인"},
	{"verifier", "Verifier: similar cases", "검증: 유사 케이스"},
	{"case", "case", "케이스"},
	{"age", "age", "나이"},
	{"sex", "sex", "성별"},
	{"dx", "dx", "진단"},
	{"match", "match", "일치 기준"},
	{"min_sbp", "min SBP", "최저 SBP"},
	{"max_lac", "max lactate", "최고 젖산"},
	{"vaso", "vasopressor doses", "승압제 투여"},
	{"death", "death", "사망"},
	{"icu", "ICU days", "ICU 일수"},
	{"alternatives", "Alternative explanations and uncertainties", "대안 설명과 불확실성"},
	{"uncertainties", "Uncertainties", "불확실성"},
	{"nodes", "Nodes and tools", "노드와 도구"},
	{"kind", "kind", "종류"},
	{"status", "status", "상태"},
	{"why", "why", "사유"},
	{"yes", "yes", "예"},
	{"all_reports", "All reports", "모든 보고서"},
	{"dl_html", "Download HTML", "HTML 내려받기"},
	{"dl_json", "Download JSON", "JSON 내려받기"},
	{"run", "Run", "실행"},
	{"reports", "Critique reports", "검토 보고서"},
	{"new", "New critique", "새 검토"},
	{"case_id", "Case id", "케이스 번호"},
	{"or_text", "or chart text (Korean or English)", "또는 차트 원문 (한국어 또는 영어)"},
	{"submit", "Run critique", "검토 실행"},
	{"report", "report", "보고서"},
	{"created", "created", "생성"},
	{"no_reports", "No reports yet.", "아직 보고서가 없습니다."},
	{"previous", "previous", "이전"},
	{"next", "next", "다음"},
};

cJSON *report_labels(const char *lang)
{
	cJSON *l = cJSON_CreateObject();
	int ko = lang && !strcmp(lang, "ko");

	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		cJSON_AddStringToObject(l, labels[i].key, ko ? labels[i].ko : labels[i].en);
	return l;
}

/* ---- template data ---- */

static void kv(cJSON *arr, const char *k, const cJSON *v)
{
	char buf[64];
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "k", k);
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(o, "v", v->valuestring);
	else if (cJSON_IsNumber(v)) {
		snprintf(buf, sizeof buf, "%g", v->valuedouble);
		cJSON_AddStringToObject(o, "v", buf);
	} else
		cJSON_AddStringToObject(o, "v", "");
	cJSON_AddItemToArray(arr, o);
}

static cJSON *kv_rows(const cJSON *obj)
{
	cJSON *arr = cJSON_CreateArray();
	const cJSON *c;

	cJSON_ArrayForEach(c, obj)
		if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
			kv(arr, c->string, c);
	return arr;
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(crit_str(*(cJSON *const *)a, "v"), crit_str(*(cJSON *const *)b, "v"));
}

static void sort_kv(cJSON *arr)
{
	int n = cJSON_GetArraySize(arr), i = 0;
	cJSON **v = n > 1 ? calloc((size_t)n, sizeof *v) : NULL, *c;

	if (!v)
		return;
	while ((c = cJSON_DetachItemFromArray(arr, 0)) != NULL)
		v[i++] = c;
	qsort(v, (size_t)n, sizeof *v, cmp_kv);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, v[i]);
	free(v);
}

/* Rows in time order: by "ts" (seconds; a row without a time, ts < 0, first), ties kept in the
 * order given.  Series are walked one after another, so without this a record whose first
 * column is empty lands after later records (10:55:21 after 11:30:49). */
struct ts_row { double ts; int i; cJSON *row; };

static int cmp_ts_row(const void *a, const void *b)
{
	const struct ts_row *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i - y->i;
}

void report_sort_by_time(cJSON *arr)
{
	int n = cJSON_GetArraySize(arr), i = 0;
	struct ts_row *v = n > 1 ? calloc((size_t)n, sizeof *v) : NULL;
	cJSON *c;

	if (!v)
		return;
	while ((c = cJSON_DetachItemFromArray(arr, 0)) != NULL) {
		v[i] = (struct ts_row){ crit_num(c, "ts", -1), i, c };
		i++;
	}
	qsort(v, (size_t)n, sizeof *v, cmp_ts_row);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, v[i].row);
	free(v);
}

/* An LLM answer for display: its summary/text and the whole object pretty-printed. */
static void llm_into(cJSON *dst, const cJSON *sec)
{
	const cJSON *l = cJSON_GetObjectItem(sec, "llm");

	if (!l)
		return;
	cJSON *o = cJSON_AddObjectToObject(dst, "llm");
	const char *t = crit_str(l, "summary");
	if (!t)
		t = crit_str(l, "text");
	cJSON_AddStringToObject(o, "summary", t ? t : "");
	char *pj = cJSON_Print(l);
	cJSON_AddStringToObject(o, "json", pj ? pj : "");
	free(pj);
}

static void href_for(char *buf, size_t n, const cJSON *span)
{
	if (cJSON_GetObjectItem(span, "start"))
		snprintf(buf, n, "#span-%s", crit_str(span, "id"));
	else if (crit_str(span, "ref"))
		snprintf(buf, n, "#row-%s", crit_str(span, "ref"));
	else
		snprintf(buf, n, "#chart");
}

static const cJSON *find_by(const cJSON *arr, const char *key, const char *val)
{
	const cJSON *x;
	cJSON_ArrayForEach(x, arr)
		if (val && crit_str(x, key) && !strcmp(crit_str(x, key), val))
			return x;
	return NULL;
}

/* Rows of the structured chart: vitals (one per record), labs, medications, each with an anchor. */
static void chart_rows(cJSON *v, const cJSON *chart, const char *lang)
{
	const cJSON *series = cJSON_GetObjectItem(chart, "series"), *s, *p;
	cJSON *vit = cJSON_AddArrayToObject(v, "vital_rows"), *labs = cJSON_AddArrayToObject(v, "lab_rows");
	cJSON *cols = cJSON_AddArrayToObject(v, "vital_cols");
	char buf[64];

	cJSON_ArrayForEach(s, series) {
		const char *tb = crit_str(s, "table");
		int is_lab = tb && (strstr(tb, "lab") != NULL);
		if (!is_lab)
			cJSON_AddItemToArray(cols, cJSON_CreateString(crit_str(s, "name")));
		cJSON_ArrayForEach(p, cJSON_GetObjectItem(s, "points")) {
			const char *ref = crit_str(p, "ref");
			if (is_lab || (tb && !strcmp(tb, "text"))) {
				cJSON *o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "anchor", ref);
				cJSON_AddStringToObject(o, "t", crit_str(p, "dt") ? crit_str(p, "dt") : crit_str(p, "t"));
				cJSON_AddNumberToObject(o, "ts", crit_num(p, "ts", -1));
				cJSON_AddStringToObject(o, "name", crit_str(s, "name"));
				snprintf(buf, sizeof buf, "%g", crit_num(p, "v", 0));
				cJSON_AddStringToObject(o, "value", buf);
				cJSON_AddStringToObject(o, "unit", crit_str(s, "unit") ? crit_str(s, "unit") : "");
				if (crit_str(p, "flag"))
					cJSON_AddStringToObject(o, "flag", crit_str(p, "flag"));
				cJSON_AddItemToArray(labs, o);
				continue;
			}
			cJSON *row = (cJSON *)find_by(vit, "anchor", ref);
			if (!row) {
				row = cJSON_CreateObject();
				cJSON_AddStringToObject(row, "anchor", ref);
				cJSON_AddStringToObject(row, "t", crit_str(p, "dt") ? crit_str(p, "dt") : crit_str(p, "t"));
				cJSON_AddNumberToObject(row, "ts", crit_num(p, "ts", -1));
				cJSON_AddArrayToObject(row, "cells");
				cJSON_AddItemToArray(vit, row);
			}
		}
	}
	/* fill the cells column by column (a NULL value leaves the cell empty) */
	cJSON *row;
	cJSON_ArrayForEach(row, vit) {
		const cJSON *c;
		cJSON_ArrayForEach(c, cols) {
			cJSON *cell = cJSON_CreateObject();
			cJSON_AddStringToObject(cell, "v", "");
			const cJSON *ser = find_by(series, "name", c->valuestring);
			cJSON_ArrayForEach(p, cJSON_GetObjectItem(ser, "points"))
				if (!strcmp(crit_str(p, "ref"), crit_str(row, "anchor"))) {
					snprintf(buf, sizeof buf, "%g", crit_num(p, "v", 0));
					cJSON_ReplaceItemInObject(cell, "v", cJSON_CreateString(buf));
					if (crit_str(p, "flag"))
						cJSON_AddStringToObject(cell, "flag", crit_str(p, "flag"));
					break;
				}
			cJSON_AddItemToArray(cJSON_GetObjectItem(row, "cells"), cell);
		}
	}
	cJSON *meds = cJSON_AddArrayToObject(v, "med_rows"), *x;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(chart, "procedures_performed")) {
		cJSON *o = cJSON_CreateObject();
		const char *cls = crit_str(x, "class") ? crit_str(x, "class") : "other";
		cJSON_AddStringToObject(o, "anchor", crit_str(x, "ref"));
		cJSON_AddStringToObject(o, "t", crit_str(x, "dt") ? crit_str(x, "dt") : crit_str(x, "t"));
		cJSON_AddNumberToObject(o, "ts", crit_num(x, "ts", -1));
		cJSON_AddStringToObject(o, "text", crit_str(x, "text"));
		cJSON_AddStringToObject(o, "class", cls);
		cJSON_AddStringToObject(o, "class_label", crit_drug_class_label(cls, lang));
		cJSON_AddStringToObject(o, "atc", crit_drugs_atc(crit_drugs_get(), cls));
		cJSON_AddItemToArray(meds, o);
	}
	report_sort_by_time(vit);
	report_sort_by_time(labs);
	report_sort_by_time(meds);
}

/* Pasted text cut into plain and marked pieces at the evidence spans (non-overlapping, in order). */
static void text_pieces(cJSON *v, const cJSON *chart)
{
	const char *t = crit_str(chart, "text");
	const cJSON *sp;
	cJSON *pieces;
	size_t pos = 0, len;

	if (!t)
		return;
	len = strlen(t);
	pieces = cJSON_AddArrayToObject(v, "text_pieces");
	for (;;) {
		const cJSON *best = NULL;
		cJSON_ArrayForEach(sp, cJSON_GetObjectItem(chart, "evidence_spans")) {
			double s = crit_num(sp, "start", -1), e = crit_num(sp, "end", -1);
			if (s < (double)pos || e <= s || e > (double)len)
				continue;
			if (!best || s < crit_num(best, "start", 0))
				best = sp;
		}
		size_t s = best ? (size_t)crit_num(best, "start", 0) : len;
		if (s > pos) {
			cJSON *o = cJSON_CreateObject();
			char *piece = strndup(t + pos, s - pos);
			cJSON_AddStringToObject(o, "text", piece);
			free(piece);
			cJSON_AddItemToArray(pieces, o);
		}
		if (!best)
			break;
		size_t e = (size_t)crit_num(best, "end", 0);
		cJSON *o = cJSON_CreateObject();
		char *piece = strndup(t + s, e - s);
		cJSON_AddStringToObject(o, "text", piece);
		free(piece);
		cJSON_AddStringToObject(o, "span", crit_str(best, "id"));
		cJSON_AddItemToArray(pieces, o);
		pos = e;
	}
}

static cJSON *node_status(const cJSON *nodes, const char *name)
{
	const cJSON *n;
	cJSON *o = cJSON_CreateObject();

	cJSON_ArrayForEach(n, nodes)
		if (!strcmp(crit_str(n, "name"), name)) {
			cJSON_AddStringToObject(o, "status", crit_str(n, "status"));
			if (crit_str(n, "reason"))
				cJSON_AddStringToObject(o, "reason", crit_str(n, "reason"));
		}
	return o;
}

/* The reader's language: every "X_ko" sentence replaces its "X" (crit_say) in a Korean view, and
 * goes in any other. */
static void pick_lang(cJSON *o, int ko)
{
	cJSON *c;

	for (c = o ? o->child : NULL; c; ) {
		size_t l = c->string ? strlen(c->string) : 0;
		if (l > 3 && l < 64 && !strcmp(c->string + l - 3, "_ko") && cJSON_IsString(c)) {
			char base[64];
			snprintf(base, sizeof base, "%.*s", (int)(l - 3), c->string);
			if (ko && cJSON_GetObjectItemCaseSensitive(o, base))
				cJSON_ReplaceItemInObjectCaseSensitive(o, base, cJSON_CreateString(c->valuestring));
			cJSON_DeleteItemFromObjectCaseSensitive(o, c->string);
			c = o->child;   /* the list changed: start again (no recursion in this loop) */
			continue;
		}
		c = c->next;
	}
	for (c = o ? o->child : NULL; c; c = c->next)
		if (cJSON_IsObject(c) || cJSON_IsArray(c))
			pick_lang(c, ko);
}

cJSON *report_view(const cJSON *report, const char *lang)
{
	cJSON *rr = cJSON_Duplicate(report, 1);
	const cJSON *r = rr;
	cJSON *v = cJSON_CreateObject();

	pick_lang(rr, lang && !strcmp(lang, "ko"));
	const cJSON *chart = cJSON_GetObjectItem(r, "structured_chart"), *x, *y;
	const cJSON *spans = cJSON_GetObjectItem(chart, "evidence_spans");
	const cJSON *ev = cJSON_GetObjectItem(r, "evidence"), *ev2 = cJSON_GetObjectItem(r, "evidence_2nd");
	char buf[256];
	struct sb svg = SB_INIT;

	cJSON_AddItemToObject(v, "L", report_labels(lang));
	cJSON_AddStringToObject(v, "lang", lang && !strcmp(lang, "ko") ? "ko" : "en");
	cJSON_AddStringToObject(v, "case_ref", crit_str(r, "case_ref") ? crit_str(r, "case_ref") : "");
	cJSON_AddStringToObject(v, "summary", crit_str(r, "summary") ? crit_str(r, "summary") : "");
	cJSON_AddStringToObject(v, "mode", crit_str(r, "mode") ? crit_str(r, "mode") : "");
	cJSON_AddNumberToObject(v, "run_id", crit_num(r, "run_id", 0));
	cJSON_AddNumberToObject(v, "report_id", crit_num(r, "report_id", 0));
	report_svg(&svg, r, lang);
	cJSON_AddStringToObject(v, "svg", sb_cstr(&svg));
	sb_free(&svg);

	/* structured chart */
	cJSON *c = cJSON_AddObjectToObject(v, "chart");
	cJSON_AddStringToObject(c, "source", crit_str(chart, "source") ? crit_str(chart, "source") : "");
	cJSON_AddItemToObject(c, "patient", kv_rows(cJSON_GetObjectItem(chart, "patient")));
	cJSON_AddItemToObject(c, "operation", kv_rows(cJSON_GetObjectItem(chart, "operation")));
	cJSON *times = kv_rows(cJSON_GetObjectItem(chart, "times"));
	/* in time order (the values are timestamps, which sort as text) */
	sort_kv(times);
	cJSON_AddItemToObject(c, "times", times);
	cJSON_AddItemToObject(c, "outcome", kv_rows(cJSON_GetObjectItem(chart, "outcome")));
	cJSON_AddItemToObject(c, "notes", cJSON_Duplicate(cJSON_GetObjectItem(chart, "notes"), 1));
	cJSON_AddItemToObject(c, "diagnoses", cJSON_Duplicate(cJSON_GetObjectItem(chart, "diagnoses"), 1));
	cJSON_AddBoolToObject(c, "has_diagnoses", cJSON_GetArraySize(cJSON_GetObjectItem(chart, "diagnoses")) > 0);
	chart_rows(c, chart, lang);
	text_pieces(c, chart);
	llm_into(c, chart);

	cJSON *fs = cJSON_AddArrayToObject(v, "findings");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(chart, "findings")) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", crit_str(x, "id"));
		cJSON_AddStringToObject(o, "text", crit_str(x, "text"));
		href_for(buf, sizeof buf, find_by(spans, "id", crit_str(x, "span")));
		cJSON_AddStringToObject(o, "href", buf);
		cJSON_AddItemToArray(fs, o);
	}
	cJSON *minor = cJSON_AddArrayToObject(v, "minor");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(chart, "minor_deviations")) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "text", crit_str(x, "text"));
		cJSON_AddStringToObject(o, "why", crit_str(x, "why_minor"));
		cJSON_AddItemToArray(minor, o);
	}
	cJSON_AddNumberToObject(v, "minor_count", cJSON_GetArraySize(minor));
	cJSON_AddBoolToObject(v, "has_findings", cJSON_GetArraySize(fs) > 0);
	cJSON_AddBoolToObject(v, "has_values", crit_chart_values(chart) > 0);
	cJSON_AddBoolToObject(v, "has_minor", cJSON_GetArraySize(minor) > 0);
	static const char *kvs[] = { "patient", "operation", "times", "outcome" };
	for (size_t i = 0; i < 4; i++) {
		char hk[32];
		snprintf(hk, sizeof hk, "has_%s", kvs[i]);
		cJSON_AddBoolToObject(c, hk, cJSON_GetArraySize(cJSON_GetObjectItem(c, kvs[i])) > 0);
	}
	cJSON_AddBoolToObject(c, "has_text", cJSON_GetArraySize(cJSON_GetObjectItem(c, "text_pieces")) > 0);
	cJSON_AddNumberToObject(c, "vital_count", cJSON_GetArraySize(cJSON_GetObjectItem(c, "vital_rows")));
	cJSON *sv = cJSON_AddArrayToObject(v, "spans");
	cJSON_ArrayForEach(x, spans) {
		cJSON *o = cJSON_Duplicate(x, 1);
		href_for(buf, sizeof buf, x);
		cJSON_AddStringToObject(o, "href", buf);
		cJSON_AddItemToArray(sv, o);
	}

	/* knowledge */
	cJSON *kn = cJSON_AddArrayToObject(v, "knowledge");
	for (int pass = 0; pass < 2; pass++) {
		const cJSON *items = cJSON_GetObjectItem(pass ? ev2 : ev, "items");
		cJSON_ArrayForEach(x, items)
			cJSON_AddItemToArray(kn, cJSON_Duplicate(x, 1));
	}
	cJSON *evv = cJSON_AddObjectToObject(v, "evidence");
	cJSON_AddItemToObject(evv, "queries", cJSON_Duplicate(cJSON_GetObjectItem(ev, "queries"), 1));
	cJSON_AddItemToObject(evv, "queries_2nd", cJSON_Duplicate(cJSON_GetObjectItem(ev2, "queries"), 1));
	const cJSON *rem = cJSON_GetObjectItem(ev, "remote");
	snprintf(buf, sizeof buf, "%s%s%s", crit_str(rem, "status") ? crit_str(rem, "status") : "off",
	         crit_str(rem, "error") || crit_str(rem, "reason") ? ": " : "",
	         crit_str(rem, "error") ? crit_str(rem, "error") : crit_str(rem, "reason") ? crit_str(rem, "reason") : "");
	cJSON_AddStringToObject(evv, "remote", buf);
	cJSON_AddItemToObject(evv, "remote_items", cJSON_Duplicate(cJSON_GetObjectItem(rem, "items"), 1));
	cJSON_AddBoolToObject(evv, "has_remote_items", cJSON_GetArraySize(cJSON_GetObjectItem(rem, "items")) > 0);
	llm_into(evv, ev);
	cJSON *ev2v = cJSON_AddObjectToObject(v, "evidence_2nd");
	llm_into(ev2v, ev2);

	/* diagnosis and treatment */
	const cJSON *da = cJSON_GetObjectItem(r, "diagnosis_analysis"), *ta = cJSON_GetObjectItem(r, "treatment_analysis");
	cJSON *dv = cJSON_AddObjectToObject(v, "diagnosis");
	cJSON_AddStringToObject(dv, "summary", crit_str(da, "summary") ? crit_str(da, "summary") : "");
	cJSON_AddItemToObject(dv, "observations", cJSON_Duplicate(cJSON_GetObjectItem(da, "observations"), 1));
	cJSON_AddItemToObject(dv, "inconsistencies", cJSON_Duplicate(cJSON_GetObjectItem(da, "inconsistencies"), 1));
	if (!cJSON_GetObjectItem(da, "llm"))
		cJSON_AddStringToObject(dv, "offline_note", crit_str(da, "offline_note") ? crit_str(da, "offline_note") : "");
	llm_into(dv, da);
	cJSON *tv = cJSON_AddObjectToObject(v, "treatment");
	cJSON_AddItemToObject(tv, "responses", cJSON_Duplicate(cJSON_GetObjectItem(ta, "responses"), 1));
	if (!cJSON_GetObjectItem(ta, "llm"))
		cJSON_AddStringToObject(tv, "offline_note", crit_str(ta, "offline_note") ? crit_str(ta, "offline_note") : "");
	llm_into(tv, ta);
	const cJSON *ic = cJSON_GetObjectItem(r, "intervention_coverage");
	cJSON *iv = cJSON_AddObjectToObject(v, "interventions");
	cJSON_AddItemToObject(iv, "reconciled", cJSON_Duplicate(cJSON_GetObjectItem(ic, "reconciled"), 1));
	llm_into(iv, ic);

	/* critique points with their evidence links */
	const cJSON *crit = cJSON_GetObjectItem(r, "critique");
	cJSON *cv = cJSON_AddObjectToObject(v, "critique");
	cJSON_AddStringToObject(cv, "summary", crit_str(crit, "summary") ? crit_str(crit, "summary") : "");
	cJSON_AddItemToObject(cv, "selected_tools", cJSON_Duplicate(cJSON_GetObjectItem(crit, "selected_tools"), 1));
	llm_into(cv, crit);
	cJSON *pts = cJSON_AddArrayToObject(cv, "points");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(crit, "points")) {
		cJSON *o = cJSON_CreateObject(), *e = cJSON_AddArrayToObject(o, "evidence");
		cJSON *refs = cJSON_AddArrayToObject(o, "refs"), *k = cJSON_AddArrayToObject(o, "knowledge");
		cJSON_AddStringToObject(o, "id", crit_str(x, "id"));
		/* the finding's parameter, so that a reader (and a test) sees which topic the point is on */
		const cJSON *fd = find_by(cJSON_GetObjectItem(chart, "findings"), "id", crit_str(x, "finding"));
		cJSON_AddStringToObject(o, "param", crit_str(fd, "param") ? crit_str(fd, "param") : "");
		cJSON_AddStringToObject(o, "category", crit_str(x, "category"));
		cJSON_AddStringToObject(o, "severity", crit_str(x, "severity"));
		cJSON_AddStringToObject(o, "text", crit_str(x, "text"));
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "evidence")) {
			const cJSON *sp = find_by(spans, "id", y->valuestring);
			cJSON *eo = cJSON_CreateObject();
			cJSON_AddStringToObject(eo, "id", y->valuestring);
			cJSON_AddStringToObject(eo, "quote", crit_str(sp, "quote") ? crit_str(sp, "quote") : "");
			href_for(buf, sizeof buf, sp);
			cJSON_AddStringToObject(eo, "href", buf);
			cJSON_AddItemToArray(e, eo);
		}
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "refs")) {
			cJSON *ro = cJSON_CreateObject();
			cJSON_AddStringToObject(ro, "ref", y->valuestring);
			snprintf(buf, sizeof buf, "#row-%s", y->valuestring);
			cJSON_AddStringToObject(ro, "href", buf);
			cJSON_AddItemToArray(refs, ro);
		}
		cJSON_ArrayForEach(y, cJSON_GetObjectItem(x, "knowledge")) {
			const cJSON *it = NULL;
			for (int pass = 0; pass < 2 && !it; pass++)
				it = find_by(cJSON_GetObjectItem(pass ? ev2 : ev, "items"), "id", y->valuestring);
			cJSON *ko = cJSON_CreateObject();
			cJSON_AddStringToObject(ko, "id", y->valuestring);
			cJSON_AddStringToObject(ko, "source", crit_str(it, "source") ? crit_str(it, "source") : "");
			cJSON_AddNumberToObject(ko, "score", crit_num(it, "score", 0));
			cJSON_AddItemToArray(k, ko);
		}
		cJSON_AddBoolToObject(o, "has_evidence", cJSON_GetArraySize(e) > 0);
		cJSON_AddBoolToObject(o, "has_refs", cJSON_GetArraySize(refs) > 0);
		cJSON_AddBoolToObject(o, "has_knowledge", cJSON_GetArraySize(k) > 0);
		cJSON_AddItemToArray(pts, o);
	}

	/* conditional agents */
	const cJSON *nodes = cJSON_GetObjectItem(r, "nodes");
	const cJSON *rf = cJSON_GetObjectItem(r, "risk_factor_analysis"), *pc = cJSON_GetObjectItem(r, "process_contributor_analysis");
	cJSON *rv = node_status(nodes, "risk_factor");
	if (cJSON_IsObject(rf)) {
		cJSON_AddItemToObject(rv, "factors", cJSON_Duplicate(cJSON_GetObjectItem(rf, "factors"), 1));
		if (crit_str(rf, "outcome"))
			cJSON_AddStringToObject(rv, "outcome", crit_str(rf, "outcome"));
		llm_into(rv, rf);
	}
	cJSON_AddItemToObject(v, "risk", rv);
	cJSON *pv = node_status(nodes, "process_contributor");
	if (cJSON_IsObject(pc)) {
		cJSON_AddItemToObject(pv, "contributors", cJSON_Duplicate(cJSON_GetObjectItem(pc, "contributors"), 1));
		if (crit_str(pc, "summary"))
			cJSON_AddStringToObject(pv, "summary", crit_str(pc, "summary"));
		llm_into(pv, pc);
	}
	cJSON_AddItemToObject(v, "process", pv);

	/* verifier and similar cases */
	const cJSON *sol = cJSON_GetObjectItem(r, "solutions");
	cJSON *so = node_status(nodes, "verifier");
	if (cJSON_IsObject(sol)) {
		cJSON_AddStringToObject(so, "comparison", crit_str(sol, "comparison") ? crit_str(sol, "comparison") : "");
		cJSON_AddItemToObject(so, "items", cJSON_Duplicate(cJSON_GetObjectItem(sol, "solutions"), 1));
		if (crit_str(sol, "note"))
			cJSON_AddStringToObject(so, "note", crit_str(sol, "note"));
		llm_into(so, sol);
	}
	cJSON_AddItemToObject(v, "verifier", so);
	cJSON *sim = cJSON_AddArrayToObject(v, "similar");
	cJSON_AddBoolToObject(v, "has_similar", cJSON_GetArraySize(cJSON_GetObjectItem(r, "similar_cases")) > 0);
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(r, "similar_cases")) {
		cJSON *o = cJSON_CreateObject();
		static const char *keys[] = { "caseid", "age", "sex", "asa", "dx", "match", "min_sbp", "max_lac",
		                              "vasopressor_doses", "death_inhosp", "icu_days" };
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			const cJSON *val = cJSON_GetObjectItem(x, keys[i]);
			cJSON_AddStringToObject(o, keys[i], cJSON_IsString(val) ? val->valuestring : "");
		}
		cJSON_AddItemToArray(sim, o);
	}

	/* alternatives */
	const cJSON *alt = cJSON_GetObjectItem(r, "alternative_explanations");
	cJSON *av = cJSON_AddObjectToObject(v, "alternatives");
	cJSON_AddItemToObject(av, "explanations", cJSON_Duplicate(cJSON_GetObjectItem(alt, "explanations"), 1));
	cJSON_AddItemToObject(av, "uncertainties", cJSON_Duplicate(cJSON_GetObjectItem(alt, "uncertainties"), 1));
	if (crit_str(alt, "offline_note"))
		cJSON_AddStringToObject(av, "offline_note", crit_str(alt, "offline_note"));
	if (crit_str(alt, "summary"))
		cJSON_AddStringToObject(av, "summary", crit_str(alt, "summary"));
	llm_into(av, alt);

	/* nodes ran / skipped */
	cJSON *nv = cJSON_AddArrayToObject(v, "nodes");
	cJSON_ArrayForEach(x, nodes) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", crit_str(x, "name"));
		cJSON_AddStringToObject(o, "kind", crit_str(x, "kind"));
		cJSON_AddStringToObject(o, "status", crit_str(x, "status"));
		cJSON_AddStringToObject(o, "reason", crit_str(x, "reason") ? crit_str(x, "reason") : "");
		snprintf(buf, sizeof buf, "%.1f", crit_num(x, "ms", 0));
		cJSON_AddStringToObject(o, "ms", buf);
		cJSON_AddBoolToObject(o, "llm", cJSON_IsTrue(cJSON_GetObjectItem(x, "llm")));
		cJSON_AddBoolToObject(o, "skipped", !strcmp(crit_str(x, "status"), "skipped"));
		cJSON_AddItemToArray(nv, o);
	}
	cJSON_Delete(rr);
	return v;
}

enum err report_render(struct sb *out, const cJSON *report, int standalone, const char *lang)
{
	char err[256];
	cJSON *v = report_view(report, lang);
	enum err e;

	if (!v)
		return ERR_NOMEM;
	if (standalone) {
		/* the file must open anywhere: the stylesheet goes inline */
		char path[1024];
		struct sb css = SB_INIT;
		snprintf(path, sizeof path, "%s/../static/report.css", conf_get("template_dir"));
		FILE *f = fopen(path, "rb");
		if (f) {
			char buf[4096];
			size_t n;
			while ((n = fread(buf, 1, sizeof buf, f)) > 0)
				sb_append(&css, buf, n);
			fclose(f);
		}
		cJSON_AddStringToObject(v, "css", sb_cstr(&css));
		sb_free(&css);
	}
	e = tpl_render_file(conf_get("template_dir"), standalone ? "report_standalone" : "report_body", v, out,
	                    err, sizeof err);
	cJSON_Delete(v);
	return e;
}
