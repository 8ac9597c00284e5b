/* test_chart.c: the chart kind chosen per result shape, round ticks, identifiers never on an axis, legends, time order, escaping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include "pages/chart.h"

/* kind_of: the kind chart_choose picks for columns and rows given as JSON */
static enum chart_kind kind_of(const char *cols_json, const char *rows_json, struct chart_pick *p)
{
	cJSON *cj = cJSON_Parse(cols_json), *rj = cJSON_Parse(rows_json), *c;
	struct chart_col cols[CHART_MAXCOLS];
	int n = 0;
	enum chart_kind k;

	assert_non_null(cj);
	assert_non_null(rj);
	cJSON_ArrayForEach(c, cj) {
		memset(&cols[n], 0, sizeof cols[n]);
		cols[n].name = strdup(cJSON_GetObjectItem(c, "name")->valuestring);
		cols[n].type = strdup(cJSON_GetObjectItem(c, "type")->valuestring);
		n++;
	}
	chart_roles(cols, n);
	k = chart_choose(cols, n, rj, p);
	for (int i = 0; i < n; i++) {
		free((char *)cols[i].name);
		free((char *)cols[i].type);
	}
	cJSON_Delete(cj);
	cJSON_Delete(rj);
	return k;
}

static char *svg_of(const char *cols_json, const char *rows_json, const char **kind)
{
	cJSON *cj = cJSON_Parse(cols_json), *rj = cJSON_Parse(rows_json);
	struct sb s = SB_INIT;
	char *out = NULL;

	if (chart_svg(&s, cj, rj, NULL, kind))
		out = strdup(sb_cstr(&s));
	sb_free(&s);
	cJSON_Delete(cj);
	cJSON_Delete(rj);
	return out;
}

#define DEPT_SEX_COLS "[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"sex\",\"type\":\"text\"},{\"name\":\"count\",\"type\":\"number\"}]"
#define DEPT_SEX_ROWS "[[\"General surgery\",\"F\",2639],[\"Gynecology\",\"F\",502],[\"Thoracic surgery\",\"F\",335]," \
	"[\"Urology\",\"F\",79],[\"General surgery\",\"M\",2200],[\"Thoracic surgery\",\"M\",311],[\"Urology\",\"M\",322]]"

static void test_kind_per_shape(void **st)
{
	struct chart_pick p;

	(void)st;
	/* one grouping: bars */
	assert_int_equal(kind_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\"}]",
	                         "[[\"a\",1.5],[\"b\",2],[\"c\",3]]", &p), CHART_BAR);
	assert_int_equal(p.x, 0);
	assert_int_equal(p.measures[0], 1);
	/* two groupings: grouped bars, the column with fewer values is the legend */
	assert_int_equal(kind_of(DEPT_SEX_COLS, DEPT_SEX_ROWS, &p), CHART_GROUPED_BAR);
	assert_int_equal(p.x, 0);
	assert_int_equal(p.series, 1);
	/* the same with sex first */
	assert_int_equal(kind_of("[{\"name\":\"sex\",\"type\":\"text\"},{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"n\",\"type\":\"number\"}]",
	                         "[[\"F\",\"a\",1],[\"F\",\"b\",2],[\"F\",\"c\",3],[\"M\",\"a\",4],[\"M\",\"b\",5]]", &p), CHART_GROUPED_BAR);
	assert_int_equal(p.x, 1);
	assert_int_equal(p.series, 0);
	/* a timeline, wide: every measure a line */
	assert_int_equal(kind_of("[{\"name\":\"dt\",\"type\":\"datetime\"},{\"name\":\"sbp\",\"type\":\"number\"},{\"name\":\"hr\",\"type\":\"number\"}]",
	                         "[[\"2025-01-01 10:00:00\",120,80],[\"2025-01-01 09:00:00\",110,70]]", &p), CHART_LINE);
	assert_int_equal(p.nmeasures, 2);
	assert_int_equal(p.series, -1);
	/* a timeline, long: series named by the label column with most names */
	assert_int_equal(kind_of("[{\"name\":\"caseid\",\"type\":\"number\"},{\"name\":\"event_time\",\"type\":\"datetime\"},{\"name\":\"source\",\"type\":\"text\"},"
	                         "{\"name\":\"measure\",\"type\":\"text\"},{\"name\":\"value\",\"type\":\"number\"}]",
	                         "[[3,\"2025-05-20 17:02:00\",\"lab\",\"k\",3.5],[3,\"2025-05-21 15:30:17\",\"vital\",\"hr\",63],"
	                         "[3,\"2025-05-21 15:35:00\",\"vital\",\"sbp\",120]]", &p), CHART_LINE);
	assert_int_equal(p.series, 3);
	assert_int_equal(p.nmeasures, 1);
	assert_int_equal(p.measures[0], 4);
	/* as many sources as measures (heart rate and potassium): the measure names, beside the value */
	assert_int_equal(kind_of("[{\"name\":\"caseid\",\"type\":\"number\"},{\"name\":\"event_time\",\"type\":\"datetime\"},{\"name\":\"source\",\"type\":\"text\"},"
	                         "{\"name\":\"measure\",\"type\":\"text\"},{\"name\":\"value\",\"type\":\"number\"}]",
	                         "[[3,\"2025-05-20 17:02:00\",\"lab\",\"k\",3.5],[3,\"2025-05-21 15:30:17\",\"vital\",\"hr\",63]]", &p), CHART_LINE);
	assert_int_equal(p.series, 3);
	/* a numeric category (ASA 1..4) keeps its order */
	assert_int_equal(kind_of("[{\"name\":\"asa\",\"type\":\"number\"},{\"name\":\"count\",\"type\":\"number\"}]",
	                         "[[1,10],[2,40],[3,30],[4,2]]", &p), CHART_BAR);
	assert_int_equal(p.ordinal, 1);
	/* months written as text keep their order too; departments are sorted */
	assert_int_equal(kind_of("[{\"name\":\"month\",\"type\":\"text\"},{\"name\":\"count\",\"type\":\"number\"}]",
	                         "[[\"2025-01\",10],[\"2025-02\",40],[\"2025-03\",30]]", &p), CHART_BAR);
	assert_int_equal(p.ordinal, 1);
	assert_int_equal(kind_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"count\",\"type\":\"number\"}]",
	                         "[[\"Urology\",10],[\"2025 ward\",40]]", &p), CHART_BAR);
	assert_int_equal(p.ordinal, 0);
	/* no chart: a single value, a plain list, a list of texts, too many groupings */
	assert_int_equal(kind_of("[{\"name\":\"count\",\"type\":\"number\"}]", "[[42]]", &p), CHART_NONE);
	assert_int_equal(kind_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\"}]",
	                         "[[\"a\",1.5]]", &p), CHART_NONE);
	assert_int_equal(kind_of("[{\"name\":\"opname\",\"type\":\"text\"}]", "[[\"a\"],[\"b\"]]", &p), CHART_NONE);
	assert_int_equal(kind_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"age\",\"type\":\"number\"}]",
	                         "[[\"a\",50],[\"a\",61],[\"b\",70]]", &p), CHART_NONE);   /* rows, not groups */
	assert_int_equal(kind_of("[{\"name\":\"opstart\",\"type\":\"datetime\"}]", "[[\"2025-01-01 10:00:00\"],[\"2025-01-02 10:00:00\"]]", &p),
	                 CHART_NONE);
	assert_string_equal(chart_kind_name(CHART_GROUPED_BAR), "grouped-bar");
	assert_string_equal(chart_kind_name(CHART_NONE), "none");
}

static void test_identifiers_never_on_axis(void **st)
{
	struct chart_pick p;
	char *svg;
	const char *kind = NULL;

	(void)st;
	assert_true(chart_is_identifier("subjectid"));
	assert_true(chart_is_identifier("caseid"));
	assert_true(chart_is_identifier("hadm_id"));
	assert_true(chart_is_identifier("patient_no"));
	assert_true(chart_is_identifier("ID"));
	assert_false(chart_is_identifier("dept_cd"));
	assert_false(chart_is_identifier("department"));
	assert_false(chart_is_identifier("avg"));
	/* the 24-hour timeline of issue 15: subjectid was drawn as the value */
	assert_int_equal(kind_of("[{\"name\":\"subjectid\",\"type\":\"number\"},{\"name\":\"dt\",\"type\":\"datetime\"},{\"name\":\"sbp\",\"type\":\"number\"}]",
	                         "[[100001,\"2025-12-31 09:00:00\",120],[100002,\"2025-12-31 08:00:00\",110],[100001,\"2025-12-31 08:30:00\",100]]",
	                         &p), CHART_LINE);
	assert_int_equal(p.nmeasures, 1);
	assert_int_equal(p.measures[0], 2);
	assert_int_equal(p.entity, 0);
	/* a list keyed by patient: no bars of patients */
	assert_int_equal(kind_of("[{\"name\":\"subjectid\",\"type\":\"number\"},{\"name\":\"count\",\"type\":\"number\"}]",
	                         "[[100001,3],[100002,1]]", &p), CHART_NONE);
	assert_int_equal(kind_of("[{\"name\":\"caseid\",\"type\":\"number\"},{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"age\",\"type\":\"number\"}]",
	                         "[[1,\"a\",50],[2,\"b\",61]]", &p), CHART_NONE);
	/* ...and the drawing never names it on an axis or as a series */
	svg = svg_of("[{\"name\":\"subjectid\",\"type\":\"number\"},{\"name\":\"dt\",\"type\":\"datetime\"},{\"name\":\"sbp\",\"type\":\"number\"}]",
	             "[[100001,\"2025-12-31 09:00:00\",120],[100002,\"2025-12-31 08:00:00\",110],[100001,\"2025-12-31 08:30:00\",100]]", &kind);
	assert_non_null(svg);
	assert_string_equal(kind, "line");
	assert_null(strstr(svg, "data-series=\"subjectid\""));
	assert_null(strstr(svg, ">1e+05"));
	assert_null(strstr(svg, "100,00"));     /* no tick in the hundred thousands */
	assert_non_null(strstr(svg, "data-series=\"sbp\""));
	free(svg);
}

/* is_round: v is a whole multiple of step, and step is 1, 2 or 5 x 10^k */
static int is_round(double v, double step)
{
	double m = step / pow(10, floor(log10(step) + 1e-9)), q = v / step;
	return (fabs(m - 1) < 1e-9 || fabs(m - 2) < 1e-9 || fabs(m - 5) < 1e-9) && fabs(q - round(q)) < 1e-6;
}

static void test_ticks_round(void **st)
{
	static const double ranges[][2] = {{29.63, 59.27}, {0, 59.27}, {0, 4839}, {36.1, 37.9}, {97, 100}, {0.82, 14.5},
	                                   {-3.2, 7.7}, {100000, 101700}, {5, 5}, {0, 0}, {0.001, 0.0042}};
	double first, step;
	int n, dec;
	char *svg;
	const char *p;

	(void)st;
	for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
		dec = chart_nice_ticks(ranges[i][0], ranges[i][1], 5, &first, &step, &n);
		assert_true(is_round(first, step));
		assert_true(first <= ranges[i][0] + 1e-9);
		assert_true(first + step * (n - 1) >= ranges[i][1] - 1e-9);
		assert_in_range(n, 2, 11);
		assert_in_range(dec, 0, 4);
	}
	dec = chart_nice_ticks(29.63, 59.27, 4, &first, &step, &n);
	assert_true(step == 10);
	assert_int_equal(dec, 0);
	/* the labels drawn are round too: no 59.27 / 44.45 / 29.63 */
	svg = svg_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\"}]",
	             "[[\"a\",59.27],[\"b\",29.63],[\"c\",44.45]]", NULL);
	assert_non_null(svg);
	for (p = svg; (p = strstr(p, "class=\"tick\"")); p++) {
		const char *t = strchr(p, '>') + 1;
		double v = strtod(t, NULL);
		assert_true(v == 0 || fmod(v, 10) == 0);
	}
	assert_null(strstr(svg, ">44.45<"));
	free(svg);
}

static void test_grouped_bars_legend(void **st)
{
	const char *kind = NULL;
	char *svg = svg_of(DEPT_SEX_COLS, DEPT_SEX_ROWS, &kind);
	const char *p;
	int gs = 0;

	(void)st;
	assert_non_null(svg);
	assert_string_equal(kind, "grouped-bar");
	assert_non_null(strstr(svg, "class=\"legend-item\" data-name=\"F\""));
	assert_non_null(strstr(svg, "class=\"legend-item\" data-name=\"M\""));
	/* each department once per drawing (two drawings: wide and narrow) */
	for (p = svg; (p = strstr(p, "data-label=\"General surgery\"")); p++)
		gs++;
	assert_int_equal(gs, 2);
	/* categories by total, largest first */
	assert_true(strstr(svg, "data-label=\"General surgery\"") < strstr(svg, "data-label=\"Thoracic surgery\""));
	assert_true(strstr(svg, "data-label=\"Thoracic surgery\"") < strstr(svg, "data-label=\"Gynecology\""));
	assert_true(strstr(svg, "data-label=\"Gynecology\"") < strstr(svg, "data-label=\"Urology\""));
	assert_non_null(strstr(svg, "chart-wide"));
	assert_non_null(strstr(svg, "chart-narrow"));
	free(svg);
}

static void test_bars_sorted(void **st)
{
	char *svg = svg_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\",\"unit\":\"years\"}]",
	                   "[[\"General surgery\",58.19],[\"Urology\",59.27],[\"Thoracic surgery\",57.6],[\"Gynecology\",56.9]]", NULL);

	(void)st;
	assert_non_null(svg);
	assert_true(strstr(svg, "data-label=\"Urology\"") < strstr(svg, "data-label=\"General surgery\""));
	assert_true(strstr(svg, "data-label=\"General surgery\"") < strstr(svg, "data-label=\"Thoracic surgery\""));
	assert_true(strstr(svg, "data-label=\"Thoracic surgery\"") < strstr(svg, "data-label=\"Gynecology\""));
	/* the axis title carries the unit */
	assert_non_null(strstr(svg, ">avg (years)</text>"));
	free(svg);
	/* a column's label, when the result carries one, names the axis */
	svg = svg_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\",\"unit\":\"years\",\"label\":\"평균 나이\"}]",
	             "[[\"a\",1],[\"b\",2]]", NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, ">평균 나이 (years)</text>"));
	free(svg);
}

/* xs_ordered: every polyline's x coordinates never go back */
static int xs_ordered(const char *svg)
{
	const char *p = svg;
	int lines = 0;

	while ((p = strstr(p, "points=\""))) {
		double last = -1;
		p += 8;
		while (*p && *p != '"') {
			char *e;
			double x = strtod(p, &e);
			if (e == p)
				break;
			if (x < last)
				return 0;
			last = x;
			p = strchr(e, ' ');
			if (!p)
				return 0;
			p++;
		}
		lines++;
	}
	return lines;
}

static void test_timeline_time_ordered(void **st)
{
	const char *kind = NULL;
	/* rows out of time order, as a UNION of vitals and labs returns them */
	char *svg = svg_of("[{\"name\":\"event_time\",\"type\":\"datetime\"},{\"name\":\"measure\",\"type\":\"text\"},{\"name\":\"value\",\"type\":\"number\"}]",
	                   "[[\"2025-05-21 15:30:17\",\"hr\",63],[\"2025-05-21 11:30:49\",\"hr\",70],[\"2025-05-21 10:55:21\",\"hr\",66],"
	                   "[\"2025-05-20 17:02:00\",\"k\",3.5],[\"2025-05-21 12:00:00\",\"k\",4.1],[\"2025-05-21 13:00:00\",\"hr\",90]]", &kind);

	(void)st;
	assert_non_null(svg);
	assert_string_equal(kind, "line");
	assert_int_equal(xs_ordered(svg), 4);    /* hr and k, in each of the two drawings */
	assert_non_null(strstr(svg, "data-series=\"hr\""));
	assert_non_null(strstr(svg, "data-series=\"k\""));
	assert_non_null(strstr(svg, "class=\"legend-item\" data-name=\"k\""));
	free(svg);
}

static const char *units(void *ctx, const char *m)
{
	(void)ctx;
	return !strcmp(m, "k") ? "mmol/L" : !strcmp(m, "hr") ? "bpm" : !strcmp(m, "sbp") || !strcmp(m, "dbp") ? "mmHg" : NULL;
}

static void test_small_multiples_by_unit(void **st)
{
	cJSON *cj = cJSON_Parse("[{\"name\":\"dt\",\"type\":\"datetime\"},{\"name\":\"name\",\"type\":\"text\"},{\"name\":\"v\",\"type\":\"number\"}]");
	cJSON *rj = cJSON_Parse("[[\"2025-01-01 10:00:00\",\"sbp\",120],[\"2025-01-01 10:00:00\",\"dbp\",70],[\"2025-01-01 10:00:00\",\"hr\",80],"
	                        "[\"2025-01-01 10:05:00\",\"sbp\",110],[\"2025-01-01 10:05:00\",\"dbp\",60],[\"2025-01-01 10:05:00\",\"k\",4.2]]");
	struct chart_opts o = {.lang = "en", .unit_of = units};
	struct sb s = SB_INIT;
	const char *p;
	int panels = 0;

	(void)st;
	assert_int_equal(chart_svg(&s, cj, rj, &o, NULL), 1);
	for (p = sb_cstr(&s); (p = strstr(p, "class=\"panel\"")); p++)
		panels++;
	assert_int_equal(panels, 6);              /* mmHg, bpm, mmol/L; twice */
	assert_non_null(strstr(sb_cstr(&s), "data-unit=\"mmHg\""));
	assert_non_null(strstr(sb_cstr(&s), "data-unit=\"mmol/L\""));
	assert_non_null(strstr(sb_cstr(&s), "sbp, dbp (mmHg)"));
	sb_free(&s);
	cJSON_Delete(cj);
	cJSON_Delete(rj);
}

static void test_svg_escapes_and_truncates(void **st)
{
	const char *kind = NULL;
	char *svg = svg_of("[{\"name\":\"<img src=x onerror=alert(1)>\",\"type\":\"text\"},{\"name\":\"n&m\",\"type\":\"number\",\"unit\":\"<u>\"}]",
	                   "[[\"<script>alert(1)</script>\",3],[\"a \\\"quoted\\\" 'label'\",5],"
	                   "[\"A very long department name that cannot fit beside its bar on a phone\",2]]", &kind);

	(void)st;
	assert_non_null(svg);
	assert_null(strstr(svg, "<script>"));
	assert_null(strstr(svg, "<img"));
	assert_null(strstr(svg, "<u>"));
	assert_non_null(strstr(svg, "&lt;script&gt;"));
	assert_non_null(strstr(svg, "n&amp;m (&lt;u&gt;)"));
	assert_non_null(strstr(svg, "&quot;quoted&quot; &#39;label&#39;"));
	/* the long label is cut with an ellipsis and kept whole in its <title> */
	assert_non_null(strstr(svg, "…<title>A very long department name that cannot fit beside its bar on a phone</title>"));
	free(svg);
}

static void test_no_chart_no_frame(void **st)
{
	struct sb s = SB_INIT;
	cJSON *cj = cJSON_Parse("[{\"name\":\"count\",\"type\":\"number\"}]"), *rj = cJSON_Parse("[[5]]");
	const char *kind = NULL;

	(void)st;
	assert_int_equal(chart_svg(&s, cj, rj, NULL, &kind), 0);
	assert_int_equal(s.len, 0);
	assert_null(kind);
	sb_free(&s);
	cJSON_Delete(cj);
	cJSON_Delete(rj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_per_shape),       cmocka_unit_test(test_identifiers_never_on_axis),
		cmocka_unit_test(test_ticks_round),          cmocka_unit_test(test_grouped_bars_legend),
		cmocka_unit_test(test_bars_sorted),          cmocka_unit_test(test_timeline_time_ordered),
		cmocka_unit_test(test_small_multiples_by_unit), cmocka_unit_test(test_svg_escapes_and_truncates),
		cmocka_unit_test(test_no_chart_no_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
