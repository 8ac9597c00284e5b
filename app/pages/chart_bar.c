/* chart_bar.c: horizontal bars: sorted bars for one grouping, grouped bars with a legend for two. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pages/chart_int.h"

struct cat {
	char name[256];
	double v[CHART_MAXSERIES];   /* per series (one for plain bars) */
	int has[CHART_MAXSERIES];
	double key;                  /* sort key: the value, or the total over series */
	int order;                   /* first appearance */
};

static int by_key(const void *a, const void *b)
{
	const struct cat *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return x->order - y->order;
}

static int by_order(const void *a, const void *b)
{
	return ((const struct cat *)a)->order - ((const struct cat *)b)->order;
}

static int find(struct cat *c, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return i;
	return -1;
}

/* value labels: about three significant digits, whole numbers as they are */
static int value_decimals(double v)
{
	double a = fabs(v);
	if (v == floor(v))
		return 0;
	return a >= 100 ? 0 : a >= 10 ? 1 : 2;
}

/* draw: nc categories of ns series (names), bars horizontal */
static int draw(struct chart_draw *d, struct cat *c, int nc, const char (*sname)[128], int ns)
{
	const struct chart_col *mc = &d->cols[d->pick->measures[0]], *xc = &d->cols[d->pick->x];
	double lo = 0, hi = 0, first, step, maxlab = 0;
	int n, dec, font = CHART_FONT, legend_h = 0, top, band, barh, height, lw, x0, x1;
	char buf[64], title[512];
	const char *names[CHART_MAXSERIES];
	struct sb *o = d->out;

	for (int i = 0; i < nc; i++)
		for (int s = 0; s < ns; s++)
			if (c[i].has[s]) {
				if (c[i].v[s] < lo) lo = c[i].v[s];
				if (c[i].v[s] > hi) hi = c[i].v[s];
			}
	for (int i = 0; i < nc; i++) {
		double w = chart_text_px(c[i].name, font);
		if (w > maxlab) maxlab = w;
	}
	/* the category labels take what they need, up to a third of the width (longer ones are cut) */
	lw = (int)fmin(maxlab + 10, d->w * (d->narrow ? 0.36 : 0.30));
	x0 = lw + 4;
	x1 = d->w - (d->narrow ? 44 : 60);      /* room for the value at a bar's end */
	/* as many round ticks as their labels leave room for */
	for (int target = d->narrow ? 4 : 6;; target--) {
		double widest = 0;

		dec = chart_nice_ticks(lo, hi, target, &first, &step, &n);
		for (int t = 0; t < n; t++) {
			double w = chart_text_px(chart_fmt(buf, sizeof buf, first + step * t, dec), font - 1);
			if (w > widest) widest = w;
		}
		if (target <= 2 || (n - 1) * (widest + 10) <= x1 - x0)
			break;
	}
	lo = first;
	hi = first + step * (n - 1);
	band = ns > 1 ? ns * 12 + 10 : 26;
	barh = ns > 1 ? 11 : 18;
	snprintf(title, sizeof title, "%s: %s", CTITLE(mc), CTITLE(xc));
	top = 8;
	/* measure the legend first by drawing it into a scratch builder */
	if (ns > 1) {
		struct sb scratch = SB_INIT;
		struct sb *keep = d->out;

		for (int s = 0; s < ns; s++)
			names[s] = sname[s];
		d->out = &scratch;
		legend_h = chart_legend(d, names, ns, 0, 0);
		d->out = keep;
		sb_free(&scratch);
	}
	height = top + legend_h + (legend_h ? 6 : 0) + nc * band + 20 + 22;
	chart_svg_open(d, height, title);
	if (ns > 1) {
		sb_puts(o, "<g class=\"legend\">");
		chart_legend(d, names, ns, top, 0);
		sb_puts(o, "</g>");
		top += legend_h + 6;
	}
	/* value axis: gridlines and round ticks */
	for (int t = 0; t < n; t++) {
		double v = first + step * t, x = x0 + (x1 - x0) * (v - lo) / (hi - lo);

		sb_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>", x, top, x,
		          top + nc * band, fabs(v) < step / 2 ? "#888" : "#e3e6ea");
		sb_printf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"#555\">%s</text>",
		          x, top + nc * band + 14, font - 1, chart_fmt(buf, sizeof buf, v, dec));
	}
	sb_printf(o, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"#222\">",
	          (x0 + x1) / 2, top + nc * band + 34, font);
	chart_axis_title(o, CTITLE(mc), mc->unit);
	sb_puts(o, "</text>");
	/* the bars */
	for (int i = 0; i < nc; i++) {
		int y = top + i * band;
		double zx = x0 + (x1 - x0) * (0 - lo) / (hi - lo);

		sb_puts(o, "<g class=\"cat\" data-label=\"");
		sb_html(o, c[i].name);
		sb_puts(o, "\">");
		sb_printf(o, "<text class=\"cat-label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%d\" fill=\"#222\">",
		          lw, y + band / 2.0 + 4, font);
		if (chart_label(o, c[i].name, lw - 4, font)) {
			sb_puts(o, "<title>");
			sb_html(o, c[i].name);
			sb_puts(o, "</title>");
		}
		sb_puts(o, "</text>");
		for (int s = 0; s < ns; s++) {
			double v = c[i].v[s], vx, bx, by = y + (band - ns * barh) / 2.0 + s * barh;

			if (!c[i].has[s])
				continue;
			vx = x0 + (x1 - x0) * (v - lo) / (hi - lo);
			bx = v < 0 ? vx : zx;
			sb_printf(o, "<rect class=\"bar\" data-series=\"%d\" data-value=\"%.10g\" x=\"%.1f\" y=\"%.1f\" "
			          "width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>", s, v, bx, by, fabs(vx - zx),
			          barh - (ns > 1 ? 1 : 4), chart_color(ns > 1 ? s : 0));
			sb_html(o, c[i].name);
			if (ns > 1) {
				sb_puts(o, " · ");
				sb_html(o, sname[s]);
			}
			sb_printf(o, ": %s</title></rect>", chart_fmt(buf, sizeof buf, v, value_decimals(v) + 1));
			sb_printf(o, "<text class=\"value\" x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" fill=\"#333\"%s>%s</text>",
			          v < 0 ? vx - 3 : vx + 3, by + (barh - (ns > 1 ? 1 : 4)) / 2.0 + 4, ns > 1 ? font - 2 : font - 1,
			          v < 0 ? " text-anchor=\"end\"" : "", chart_fmt(buf, sizeof buf, v, value_decimals(v)));
		}
		sb_puts(o, "</g>");
	}
	chart_svg_close(d);
	return 1;
}

int chart_draw_bar(struct chart_draw *d)
{
	int nrow = cJSON_GetArraySize(d->rows), nc = 0, ok, m = d->pick->measures[0];
	struct cat *c = calloc((size_t)nrow + 1, sizeof *c);
	static const char one[1][128] = {""};
	char buf[64];
	int r = 0;

	if (!c)
		return 0;
	for (int i = 0; i < nrow; i++) {
		const cJSON *row = cJSON_GetArrayItem(d->rows, i);
		double v = chart_num(cJSON_GetArrayItem(row, m), &ok);

		if (!ok)
			continue;
		snprintf(c[nc].name, sizeof c[nc].name, "%s", chart_text(cJSON_GetArrayItem(row, d->pick->x), buf, sizeof buf));
		c[nc].v[0] = c[nc].key = v;
		c[nc].has[0] = 1;
		c[nc].order = nc;
		nc++;
	}
	if (nc >= 2) {
		/* one grouping reads best largest first; a numeric category (ASA 1, 2, 3) keeps its order */
		qsort(c, (size_t)nc, sizeof *c, d->pick->ordinal ? by_order : by_key);
		r = draw(d, c, nc, one, 1);
	}
	free(c);
	return r;
}

int chart_draw_grouped(struct chart_draw *d)
{
	int nrow = cJSON_GetArraySize(d->rows), nc = 0, ns = 0, ok, m = d->pick->measures[0];
	struct cat *c = calloc((size_t)nrow + 1, sizeof *c);
	char (*sname)[128] = calloc(CHART_MAXSERIES, 128);
	char buf[64];
	int r = 0;

	if (!c || !sname)
		goto out;
	for (int i = 0; i < nrow; i++) {
		const cJSON *row = cJSON_GetArrayItem(d->rows, i);
		double v = chart_num(cJSON_GetArrayItem(row, m), &ok);
		const char *cn, *sn;
		int ci, si = -1;

		if (!ok)
			continue;
		cn = chart_text(cJSON_GetArrayItem(row, d->pick->x), buf, sizeof buf);
		if ((ci = find(c, nc, cn)) < 0) {
			ci = nc++;
			snprintf(c[ci].name, sizeof c[ci].name, "%s", cn);
			c[ci].order = ci;
		}
		sn = chart_text(cJSON_GetArrayItem(row, d->pick->series), buf, sizeof buf);
		for (int s = 0; s < ns; s++)
			if (!strcmp(sname[s], sn))
				si = s;
		if (si < 0) {
			if (ns >= CHART_MAXSERIES)
				continue;
			si = ns++;
			snprintf(sname[si], 128, "%s", sn);
		}
		c[ci].v[si] = v;
		c[ci].has[si] = 1;
		c[ci].key += v;
	}
	if (nc >= 1 && ns >= 2) {
		/* categories by their total, largest first; the series keep the order they came in */
		qsort(c, (size_t)nc, sizeof *c, by_key);
		r = draw(d, c, nc, (const char (*)[128])sname, ns);
	}
out:
	free(c);
	free(sname);
	return r;
}
