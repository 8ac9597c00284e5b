/* test_chart.c: the chart kind chosen per result shape, round ticks, identifiers never on an axis, legends, time order, escaping, the patient a timeline draws, bars of several measures, translated titles. */
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
	assert_non_null(strstr(svg, ">평균 나이 (years)<title>avg</title></text>"));
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

/* count: how many times needle occurs in hay */
static int count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static char *svg_opts(const char *cols_json, const char *rows_json, const struct chart_opts *o)
{
	cJSON *cj = cJSON_Parse(cols_json), *rj = cJSON_Parse(rows_json);
	struct sb s = SB_INIT;
	char *out = NULL;

	if (chart_svg(&s, cj, rj, o, NULL))
		out = strdup(sb_cstr(&s));
	sb_free(&s);
	cJSON_Delete(cj);
	cJSON_Delete(rj);
	return out;
}

#define PP_COLS "[{\"name\":\"subjectid\",\"type\":\"number\",\"label\":\"환자 번호\"},{\"name\":\"dt\",\"type\":\"datetime\"}," \
	"{\"name\":\"sbp\",\"type\":\"number\"},{\"name\":\"hr\",\"type\":\"number\"}]"
/* three patients, the second with an sbp of 177 and an hr of 155 nobody else has */
#define PP_ROWS "[[100001,\"2025-12-31 09:00:00\",120,80],[100002,\"2025-12-31 08:00:00\",177,155]," \
	"[100001,\"2025-12-31 08:30:00\",100,70],[100003,\"2025-12-31 07:00:00\",130,90],[100002,\"2025-12-31 10:00:00\",170,150]]"

static void test_timeline_entity_chosen(void **st)
{
	cJSON *rj = cJSON_Parse(PP_ROWS);
	struct chart_entity ev[4];
	struct chart_opts o = {.lang = "en"};
	char *svg;

	(void)st;
	/* the patients in order of first appearance, with their rows */
	assert_int_equal(chart_entities(rj, 0, ev, 4), 3);
	assert_string_equal(ev[0].value, "100001");
	assert_int_equal(ev[0].rows, 2);
	assert_string_equal(ev[1].value, "100002");
	assert_int_equal(ev[1].rows, 2);
	assert_string_equal(ev[2].value, "100003");
	assert_int_equal(ev[2].rows, 1);
	assert_int_equal(chart_entities(rj, 0, ev, 1), 3);     /* fewer listed, all counted */
	cJSON_Delete(rj);
	/* the page parameter: the k-th of n, anything else the first, never an error */
	assert_int_equal(chart_entity_param("2", 3), 1);
	assert_int_equal(chart_entity_param("3", 3), 2);
	assert_int_equal(chart_entity_param("+2", 3), 1);
	assert_int_equal(chart_entity_param("002", 3), 1);
	assert_int_equal(chart_entity_param("4", 3), 0);
	assert_int_equal(chart_entity_param("0", 3), 0);
	assert_int_equal(chart_entity_param("-1", 3), 0);
	assert_int_equal(chart_entity_param("100002", 3), 0);   /* an identifier is not an index */
	assert_int_equal(chart_entity_param("abc", 3), 0);
	assert_int_equal(chart_entity_param("2 OR 1=1", 3), 0);
	assert_int_equal(chart_entity_param("", 3), 0);
	assert_int_equal(chart_entity_param(NULL, 3), 0);
	assert_int_equal(chart_entity_param("0000000000000000000000000000000000000000000000000002", 3), 0);
	/* by default the first patient: its values, not the second's */
	svg = svg_opts(PP_COLS, PP_ROWS, &o);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "data-entity=\"1\" data-entities=\"3\""));
	assert_non_null(strstr(svg, "Showing 환자 번호 100001 (1 of 3)"));
	assert_null(strstr(svg, ": 177</title>"));
	free(svg);
	/* the second asked for: its measures, and the note names it */
	o.entity = 1;
	svg = svg_opts(PP_COLS, PP_ROWS, &o);
	assert_non_null(svg);
	assert_int_equal(count(svg, "data-entity=\"2\" data-entities=\"3\""), 2);   /* both drawings */
	assert_non_null(strstr(svg, "Showing 환자 번호 100002 (2 of 3)"));
	assert_non_null(strstr(svg, ": 177</title>"));
	assert_non_null(strstr(svg, ": 155</title>"));
	assert_null(strstr(svg, ": 120</title>"));
	assert_null(strstr(svg, "100001"));
	free(svg);
	/* in Korean */
	o.lang = "ko";
	o.entity = 2;
	svg = svg_opts(PP_COLS, PP_ROWS, &o);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "환자 번호 100003만 표시 (3명 중 3번째)"));    /* people are counted with 명 */
	free(svg);
	svg = svg_opts("[{\"name\":\"caseid\",\"type\":\"number\",\"label\":\"케이스 번호\"},{\"name\":\"dt\",\"type\":\"datetime\"},"
	               "{\"name\":\"sbp\",\"type\":\"number\"},{\"name\":\"hr\",\"type\":\"number\"}]", PP_ROWS, &o);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "케이스 번호 100003만 표시 (3개 중 3번째)"));   /* cases with 개 */
	free(svg);
	assert_true(chart_entity_is_person("subjectid"));
	assert_true(chart_entity_is_person("patient_no"));
	assert_false(chart_entity_is_person("caseid"));
	assert_false(chart_entity_is_person("hadm_id"));
	/* out of range: the first, as without a choice */
	o.lang = "en";
	o.entity = 7;
	svg = svg_opts(PP_COLS, PP_ROWS, &o);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "data-entity=\"1\" data-entities=\"3\""));
	free(svg);
	o.entity = -3;
	svg = svg_opts(PP_COLS, PP_ROWS, &o);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "(1 of 3)"));
	free(svg);
}

/* pick_of: chart_choose's pick with units from the columns JSON */
static int panels_of(const char *cols_json, const char *rows_json, struct chart_pick *p)
{
	cJSON *cj = cJSON_Parse(cols_json), *rj = cJSON_Parse(rows_json), *c;
	struct chart_col cols[CHART_MAXCOLS];
	int n = 0, r = -1;

	cJSON_ArrayForEach(c, cj) {
		memset(&cols[n], 0, sizeof cols[n]);
		cols[n].name = cJSON_GetObjectItem(c, "name")->valuestring;
		cols[n].type = cJSON_GetObjectItem(c, "type")->valuestring;
		cols[n].unit = cJSON_GetStringValue(cJSON_GetObjectItem(c, "unit"));
		n++;
	}
	chart_roles(cols, n);
	if (chart_choose(cols, n, rj, p) == CHART_BAR)
		r = chart_bar_panels(cols, p, rj);
	cJSON_Delete(cj);
	cJSON_Delete(rj);
	return r;
}

#define CNT_AVG_COLS "[{\"name\":\"department\",\"type\":\"text\",\"label\":\"진료과\"},{\"name\":\"n\",\"type\":\"number\",\"label\":\"케이스 수\"}," \
	"{\"name\":\"avg_age\",\"type\":\"number\",\"unit\":\"years\",\"label\":\"평균 나이\"}]"
#define CNT_AVG_ROWS "[[\"Urology\",400,61.5],[\"General surgery\",4839,55.2],[\"Gynecology\",502,44.1]]"
#define TWO_CNT_COLS "[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"cases\",\"type\":\"number\",\"label\":\"Cases\"}," \
	"{\"name\":\"patients\",\"type\":\"number\",\"label\":\"Patients\"}]"
#define TWO_CNT_ROWS "[[\"Urology\",400,380],[\"General surgery\",4839,4500],[\"Gynecology\",502,470]]"

static void test_bars_of_several_measures(void **st)
{
	struct chart_pick p;
	char *svg;
	const char *kind = NULL, *a, *b;

	(void)st;
	/* every measure is picked; a count and an average (another unit): a panel each */
	assert_int_equal(panels_of(CNT_AVG_COLS, CNT_AVG_ROWS, &p), 2);
	assert_int_equal(p.nmeasures, 2);
	assert_int_equal(p.measures[0], 1);
	assert_int_equal(p.measures[1], 2);
	/* two counts of one scale: one axis, grouped */
	assert_int_equal(panels_of(TWO_CNT_COLS, TWO_CNT_ROWS, &p), 1);
	/* two counts a hundred times apart: a panel each, else the small one's bars vanish */
	assert_int_equal(panels_of(TWO_CNT_COLS, "[[\"a\",4000,3],[\"b\",5000,4],[\"c\",3000,2]]", &p), 2);
	/* one measure: as before */
	assert_int_equal(panels_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\"}]",
	                           "[[\"a\",1.5],[\"b\",2]]", &p), 1);
	assert_int_equal(p.nmeasures, 1);
	/* (asa, count, avg): the measures after the numeric category */
	assert_int_equal(panels_of("[{\"name\":\"asa\",\"type\":\"number\"},{\"name\":\"n\",\"type\":\"number\"},{\"name\":\"los\",\"type\":\"number\",\"unit\":\"days\"}]",
	                           "[[1,10,2.5],[2,40,3.1],[3,30,6.2]]", &p), 2);
	assert_int_equal(p.x, 0);
	assert_int_equal(p.nmeasures, 2);

	/* the panels drawn: two per drawing, each titled by its header and unit, categories in one order */
	svg = svg_of(CNT_AVG_COLS, CNT_AVG_ROWS, &kind);
	assert_non_null(svg);
	assert_string_equal(kind, "bar");
	assert_int_equal(count(svg, "class=\"bar-panel\" data-measures=\"1\""), 4);
	assert_int_equal(count(svg, "class=\"legend-item\""), 0);
	assert_non_null(strstr(svg, ">케이스 수<title>n</title></text>"));
	assert_non_null(strstr(svg, ">평균 나이 (years)<title>avg_age</title></text>"));
	assert_int_equal(count(svg, "<rect class=\"bar\""), 12);     /* 3 departments x 2 measures x 2 drawings */
	a = strstr(svg, "data-label=\"General surgery\"");
	b = strstr(svg, "data-label=\"Gynecology\"");
	assert_true(a && b && a < b && b < strstr(svg, "data-label=\"Urology\""));   /* by the count, in both panels */
	a = strstr(strstr(svg, ">평균 나이"), "data-label=\"General surgery\"");
	assert_true(a && a < strstr(strstr(svg, ">평균 나이"), "data-label=\"Urology\""));
	free(svg);

	/* grouped: one panel with both measures, a legend of their headers */
	svg = svg_of(TWO_CNT_COLS, TWO_CNT_ROWS, &kind);
	assert_non_null(svg);
	assert_int_equal(count(svg, "class=\"bar-panel\" data-measures=\"2\""), 2);
	assert_int_equal(count(svg, "class=\"legend-item\" data-name=\"Cases\""), 2);
	assert_int_equal(count(svg, "class=\"legend-item\" data-name=\"Patients\""), 2);
	assert_int_equal(count(svg, "data-series=\"1\""), 6);
	assert_non_null(strstr(svg, ">Cases, Patients<title>cases, patients</title></text>"));
	free(svg);

	/* one measure keeps its drawing: no panel, no legend */
	svg = svg_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"avg\",\"type\":\"number\"}]", "[[\"a\",1.5],[\"b\",2]]", NULL);
	assert_non_null(svg);
	assert_null(strstr(svg, "bar-panel"));
	assert_null(strstr(svg, "legend"));
	assert_non_null(strstr(svg, ">avg</text>"));
	free(svg);
}

static void test_titles_are_headers(void **st)
{
	/* a wide timeline with the table's headers: legends and panel titles use them, the SQL names on hover */
	char *svg = svg_of("[{\"name\":\"dt\",\"type\":\"datetime\",\"label\":\"측정 시각\"},"
	                   "{\"name\":\"sbp\",\"type\":\"number\",\"unit\":\"mmHg\",\"label\":\"수축기 혈압\"},"
	                   "{\"name\":\"dbp\",\"type\":\"number\",\"unit\":\"mmHg\",\"label\":\"이완기 혈압\"}]",
	                   "[[\"2025-01-01 10:00:00\",120,80],[\"2025-01-01 09:00:00\",110,70]]", NULL);

	(void)st;
	assert_non_null(svg);
	assert_non_null(strstr(svg, "class=\"legend-item\" data-name=\"수축기 혈압\""));
	assert_non_null(strstr(svg, "data-series=\"이완기 혈압\""));
	assert_non_null(strstr(svg, ">수축기 혈압, 이완기 혈압 (mmHg)<title>sbp, dbp</title></text>"));
	assert_non_null(strstr(svg, ">측정 시각<title>dt</title></text>"));
	assert_null(strstr(svg, "data-name=\"sbp\""));
	assert_null(strstr(svg, ">sbp ("));
	free(svg);
	/* without labels: the SQL names, and no hover title repeating them */
	svg = svg_of("[{\"name\":\"dt\",\"type\":\"datetime\"},{\"name\":\"sbp\",\"type\":\"number\",\"unit\":\"mmHg\"}]",
	             "[[\"2025-01-01 10:00:00\",120],[\"2025-01-01 09:00:00\",110]]", NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, ">sbp (mmHg)</text>"));
	assert_non_null(strstr(svg, ">dt</text>"));
	free(svg);
	/* a bar's axis, escaped, the SQL name on hover */
	svg = svg_of("[{\"name\":\"department\",\"type\":\"text\"},{\"name\":\"a<b\",\"type\":\"number\",\"label\":\"A & B\"}]",
	             "[[\"a\",1],[\"b\",2]]", NULL);
	assert_non_null(svg);
	assert_non_null(strstr(svg, ">A &amp; B<title>a&lt;b</title></text>"));
	free(svg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_per_shape),       cmocka_unit_test(test_identifiers_never_on_axis),
		cmocka_unit_test(test_ticks_round),          cmocka_unit_test(test_grouped_bars_legend),
		cmocka_unit_test(test_bars_sorted),          cmocka_unit_test(test_timeline_time_ordered),
		cmocka_unit_test(test_small_multiples_by_unit), cmocka_unit_test(test_svg_escapes_and_truncates),
		cmocka_unit_test(test_no_chart_no_frame),   cmocka_unit_test(test_timeline_entity_chosen),
		cmocka_unit_test(test_bars_of_several_measures), cmocka_unit_test(test_titles_are_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
