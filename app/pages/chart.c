/* chart.c: SVG line and bar charts drawn in C with presentation attributes only (CSP-safe, no script). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "pages/chart.h"

#define W 720
#define H 300
#define ML 64   /* left margin for the value axis */
#define MB 56   /* bottom margin for labels */
#define MT 16
#define MR 16
#define MAXPTS 500
#define MAXBARS 40

static int type_is(const cJSON *col, const char *const *names)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(col, "type");

	if (!cJSON_IsString(t))
		return 0;
	for (; *names; names++)
		if (strstr(t->valuestring, *names))
			return 1;
	return 0;
}

static const char *const numeric[] = {"number", "int", "numeric", "float", "double", "real", "decimal", "money", NULL};
static const char *const temporal[] = {"timestamp", "date", "time", NULL};

static double num(const cJSON *v, int *ok)
{
	char *e;
	double d;

	*ok = 0;
	if (cJSON_IsNumber(v)) {
		*ok = 1;
		return v->valuedouble;
	}
	if (!cJSON_IsString(v))
		return 0;
	d = strtod(v->valuestring, &e);
	*ok = e != v->valuestring && !*e && isfinite(d);
	return d;
}

static const char *label(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v)) {
		snprintf(buf, n, "%g", v->valuedouble);
		return buf;
	}
	return "NULL";
}

/* Short axis label: at most 16 characters (bytes, cut at a UTF-8 boundary). */
static void put_label(struct sb *out, const char *s)
{
	char tmp[64];
	size_t n = strlen(s);

	/* midnight timestamps read better as dates */
	if (n == 19 && !strcmp(s + 10, " 00:00:00"))
		n = 10;

	if (n > 16) {
		n = 16;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	sb_html(out, tmp);
	if (n < strlen(s) && strlen(s) > 16)
		sb_puts(out, "…");
}

static void axis(struct sb *out, double lo, double hi)
{
	for (int i = 0; i <= 4; i++) {
		double v = lo + (hi - lo) * i / 4;
		double y = H - MB - (double)(H - MB - MT) * i / 4;

		sb_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e3e6ea\"/>", ML, y, W - MR, y);
		sb_printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"11\" fill=\"#555\">%.4g</text>",
		          ML - 6, y + 4, v);
	}
}

int chart_svg(struct sb *out, const cJSON *columns, const cJSON *rows, const char **kind)
{
	int ncol = cJSON_GetArraySize(columns), nrow = cJSON_GetArraySize(rows);
	int xc = -1, yc = -1, line = 0, n = 0, ok;
	double lo = 0, hi = 0;
	const cJSON *col, *row;
	char buf[64];

	if (ncol < 2 || nrow < 2)
		return 0;
	/* x: the first temporal column (line), else the first non-numeric one (bars) */
	for (int i = 0; i < ncol; i++) {
		col = cJSON_GetArrayItem(columns, i);
		if (xc < 0 && type_is(col, temporal)) {
			xc = i;
			line = 1;
		}
	}
	for (int i = 0; i < ncol && xc < 0; i++)
		if (!type_is(cJSON_GetArrayItem(columns, i), numeric))
			xc = i;
	for (int i = 0; i < ncol; i++)
		if (i != xc && type_is(cJSON_GetArrayItem(columns, i), numeric)) {
			yc = i;
			break;
		}
	if (xc < 0 || yc < 0)
		return 0;
	if (!line && nrow > MAXBARS)
		return 0;            /* too many groups to read as bars */
	cJSON_ArrayForEach(row, rows) {
		double v = num(cJSON_GetArrayItem(row, yc), &ok);

		if (!ok)
			continue;
		if (n == 0 || v < lo) lo = v;
		if (n == 0 || v > hi) hi = v;
		if (++n >= MAXPTS)
			break;
	}
	if (n < 2)
		return 0;
	if (lo > 0 && !line)
		lo = 0;              /* bars start at zero */
	if (hi == lo)
		hi = lo + 1;
	*kind = line ? "line" : "bar";
	sb_printf(out, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">", W, H);
	sb_puts(out, "<title>");
	sb_html(out, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(columns, yc), "name")));
	sb_puts(out, "</title>");
	axis(out, lo, hi);
	{
		double pw = (double)(W - ML - MR), ph = (double)(H - MB - MT);
		int i = 0, every = n > 10 ? (n + 9) / 10 : 1;

		if (line)
			sb_puts(out, "<polyline fill=\"none\" stroke=\"#2b6cb0\" stroke-width=\"2\" points=\"");
		cJSON_ArrayForEach(row, rows) {
			double v = num(cJSON_GetArrayItem(row, yc), &ok), x, y;

			if (!ok)
				continue;
			if (i >= n)
				break;
			y = MT + ph * (1 - (v - lo) / (hi - lo));
			if (line) {
				x = ML + (n == 1 ? 0 : pw * i / (n - 1));
				sb_printf(out, "%.1f,%.1f ", x, y);
			} else {
				double bw = pw / n;

				x = ML + bw * i;
				sb_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2b6cb0\">"
				          "<title>", x + bw * 0.1, y, bw * 0.8, MT + ph - y);
				sb_html(out, label(cJSON_GetArrayItem(row, xc), buf, sizeof buf));
				sb_printf(out, ": %.6g</title></rect>", v);
			}
			i++;
		}
		if (line)
			sb_puts(out, "\"/>");
		/* x labels, thinned to about ten */
		i = 0;
		cJSON_ArrayForEach(row, rows) {
			double x;

			if (i >= n)
				break;
			if (i % every == 0) {
				x = line ? ML + (n == 1 ? 0 : pw * i / (n - 1)) : ML + pw / n * (i + 0.5);
				sb_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\" "
				          "transform=\"rotate(-30 %.1f %d)\">", x, H - MB + 14, x, H - MB + 14);
				put_label(out, label(cJSON_GetArrayItem(row, xc), buf, sizeof buf));
				sb_puts(out, "</text>");
			}
			i++;
		}
	}
	sb_puts(out, "</svg>");
	return 1;
}
