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

/* band: the height of one category's row; ns series share it */
static int band_h(int ns)
{
	return ns > 1 ? ns * 12 + 10 : 26;
}

/* panel_h: the height of a panel of nc categories: bars, tick labels, axis title */
static int panel_h(int nc, int ns)
{
	return nc * band_h(ns) + 20 + 22;
}

/* panel: from y = top, nc categories of ns series (values v[vi..vi+ns-1], names sname) as horizontal
 * bars on one value axis titled by the nm measure columns mcs and unit; returns the height used */
static int panel(struct chart_draw *d, struct cat *c, int nc, const char (*sname)[128], int ns, int vi,
                 const struct chart_col *const *mcs, int nm, const char *unit, int top)
{
	double lo = 0, hi = 0, first, step, maxlab = 0;
	int n, dec, font = CHART_FONT, band = band_h(ns), barh = ns > 1 ? 11 : 18, lw, x0, x1;
	char buf[64];
	struct sb *o = d->out;

	for (int i = 0; i < nc; i++)
		for (int s = 0; s < ns; s++)
			if (c[i].has[vi + s]) {
				if (c[i].v[vi + s] < lo) lo = c[i].v[vi + s];
				if (c[i].v[vi + s] > hi) hi = c[i].v[vi + s];
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
	/* value axis: gridlines and round ticks */
	for (int t = 0; t < n; t++) {
		double v = first + step * t, x = x0 + (x1 - x0) * (v - lo) / (hi - lo);

		sb_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>", x, top, x,
		          top + nc * band, fabs(v) < step / 2 ? "#888" : "#e3e6ea");
		sb_printf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"#555\">%s</text>",
		          x, top + nc * band + 14, font - 1, chart_fmt(buf, sizeof buf, v, dec));
	}
	/* the axis title: the measures as the table's headers name them, the unit, their SQL names on hover */
	sb_printf(o, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"#222\">",
	          (x0 + x1) / 2, top + nc * band + 34, font);
	if (nm == 1) {
		chart_col_title(o, mcs[0], unit);
	} else {
		struct sb t = SB_INIT, q = SB_INIT;

		for (int m = 0; m < nm; m++) {
			sb_puts(&t, m ? ", " : "");
			sb_puts(&t, CTITLE(mcs[m]));
			sb_puts(&q, m ? ", " : "");
			sb_puts(&q, mcs[m]->name);
		}
		chart_label(o, sb_cstr(&t), x1 - x0, font);
		if (unit && *unit) {
			sb_puts(o, " (");
			sb_html(o, unit);
			sb_puts(o, ")");
		}
		sb_puts(o, "<title>");
		sb_html(o, strcmp(sb_cstr(&t), sb_cstr(&q)) ? sb_cstr(&q) : sb_cstr(&t));
		sb_puts(o, "</title>");
		sb_free(&t);
		sb_free(&q);
	}
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
			double v = c[i].v[vi + s], vx, bx, by = y + (band - ns * barh) / 2.0 + s * barh;

			if (!c[i].has[vi + s])
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
	return panel_h(nc, ns);
}

/* legend_height: the height the legend of names takes, measured by drawing it into a scratch builder */
static int legend_height(struct chart_draw *d, const char *const *names, int n)
{
	struct sb scratch = SB_INIT, *keep = d->out;
	int h;

	d->out = &scratch;
	h = chart_legend(d, names, n, 0, 0);
	d->out = keep;
	sb_free(&scratch);
	return h;
}

/* draw: nc categories of ns series (names) of the first measure, bars horizontal, one axis */
static int draw(struct chart_draw *d, struct cat *c, int nc, const char (*sname)[128], int ns)
{
	const struct chart_col *mc = &d->cols[d->pick->measures[0]], *xc = &d->cols[d->pick->x];
	int legend_h = 0, top = 8;
	char title[512];
	const char *names[CHART_MAXSERIES];
	struct sb *o = d->out;

	snprintf(title, sizeof title, "%s: %s", CTITLE(mc), CTITLE(xc));
	if (ns > 1) {
		for (int s = 0; s < ns; s++)
			names[s] = sname[s];
		legend_h = legend_height(d, names, ns);
	}
	chart_svg_open(d, top + legend_h + (legend_h ? 6 : 0) + panel_h(nc, ns), title);
	if (ns > 1) {
		sb_puts(o, "<g class=\"legend\">");
		chart_legend(d, names, ns, top, 0);
		sb_puts(o, "</g>");
		top += legend_h + 6;
	}
	panel(d, c, nc, sname, ns, 0, &mc, 1, mc->unit, top);
	chart_svg_close(d);
	return 1;
}

int chart_bar_panels(const struct chart_col *cols, const struct chart_pick *p, const cJSON *rows)
{
	int nrow = cJSON_GetArraySize(rows), ok;
	double lo = 0, hi = 0;

	if (p->nmeasures <= 1)
		return p->nmeasures;
	for (int m = 0; m < p->nmeasures; m++) {
		const char *u0 = cols[p->measures[0]].unit, *u = cols[p->measures[m]].unit;
		double mx = 0;

		/* one unit: both the same text, or neither known (two counts) */
		if ((u0 && *u0) != (u && *u) || (u0 && *u0 && strcmp(u0, u)))
			return p->nmeasures;
		for (int i = 0; i < nrow; i++) {
			double v = chart_num(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), p->measures[m]), &ok);
			if (ok && fabs(v) > mx)
				mx = fabs(v);
		}
		if (!m || mx < lo) lo = mx;
		if (!m || mx > hi) hi = mx;
	}
	/* one scale: the largest values within a factor of ten (else the smaller measure's bars vanish) */
	return lo > 0 && hi / lo <= 10 ? 1 : p->nmeasures;
}

/* draw_measures: several measures per category: grouped bars with a legend on one axis when they
 * share a unit and scale, else one panel per measure, all in the first measure's order */
static int draw_measures(struct chart_draw *d, struct cat *c, int nc)
{
	const struct chart_pick *pk = d->pick;
	const struct chart_col *mcs[CHART_MAXSERIES], *xc = &d->cols[pk->x];
	char (*sname)[128] = calloc(CHART_MAXSERIES, 128), title[512];
	const char *names[CHART_MAXSERIES];
	int nm = pk->nmeasures, npanel = chart_bar_panels(d->cols, pk, d->rows), top = 8, legend_h = 0, height;
	struct sb *o = d->out;

	if (!sname)
		return 0;
	for (int m = 0; m < nm; m++) {
		mcs[m] = &d->cols[pk->measures[m]];
		snprintf(sname[m], 128, "%s", CTITLE(mcs[m]));
		names[m] = sname[m];
	}
	snprintf(title, sizeof title, "%s: %s", sname[0], CTITLE(xc));
	for (int m = 1; m < nm; m++)
		snprintf(title + strlen(title), sizeof title - strlen(title), m == 1 ? " · %s" : ", %s", sname[m]);
	if (npanel == 1) {
		legend_h = legend_height(d, names, nm);
		height = top + legend_h + 6 + panel_h(nc, nm);
		chart_svg_open(d, height, title);
		sb_puts(o, "<g class=\"legend\">");
		chart_legend(d, names, nm, top, 0);
		sb_puts(o, "</g>");
		top += legend_h + 6;
		sb_puts(o, "<g class=\"bar-panel\" data-measures=\"");
		sb_printf(o, "%d\">", nm);
		panel(d, c, nc, (const char (*)[128])sname, nm, 0, mcs, nm, mcs[0]->unit, top);
		sb_puts(o, "</g>");
	} else {
		/* small multiples: each panel its own axis; the title above each panel names its measure */
		height = top;
		for (int m = 0; m < nm; m++)
			height += 20 + panel_h(nc, 1) + 10;
		chart_svg_open(d, height, title);
		for (int m = 0; m < nm; m++) {
			sb_printf(o, "<g class=\"bar-panel\" data-measures=\"1\"><text class=\"panel-title\" x=\"8\" y=\"%d\" "
			          "font-size=\"%d\" font-weight=\"600\" fill=\"#222\">", top + CHART_FONT, CHART_FONT);
			chart_col_title(o, mcs[m], mcs[m]->unit);
			sb_puts(o, "</text>");
			top += 20;
			top += panel(d, c, nc, (const char (*)[128])sname + m, 1, m, &mcs[m], 1, mcs[m]->unit, top) + 10;
			sb_puts(o, "</g>");
		}
	}
	chart_svg_close(d);
	free(sname);
	return 1;
}

int chart_draw_bar(struct chart_draw *d)
{
	int nrow = cJSON_GetArraySize(d->rows), nc = 0, ok, nm = d->pick->nmeasures;
	struct cat *c = calloc((size_t)nrow + 1, sizeof *c);
	static const char one[1][128] = {""};
	char buf[64];
	int r = 0;

	if (!c)
		return 0;
	for (int i = 0; i < nrow; i++) {
		const cJSON *row = cJSON_GetArrayItem(d->rows, i);
		int any = 0;

		/* a category is drawn when one of its measures is a number */
		for (int m = 0; m < nm && m < CHART_MAXSERIES; m++) {
			double v = chart_num(cJSON_GetArrayItem(row, d->pick->measures[m]), &ok);

			if (!ok)
				continue;
			c[nc].v[m] = v;
			c[nc].has[m] = 1;
			any = 1;
		}
		if (!any || (nm == 1 && !c[nc].has[0])) {
			memset(&c[nc], 0, sizeof c[nc]);
			continue;
		}
		snprintf(c[nc].name, sizeof c[nc].name, "%s", chart_text(cJSON_GetArrayItem(row, d->pick->x), buf, sizeof buf));
		c[nc].key = c[nc].has[0] ? c[nc].v[0] : -HUGE_VAL;
		c[nc].order = nc;
		nc++;
	}
	if (nc >= 2) {
		/* one grouping reads best largest first (by the first measure); a numeric category (ASA 1, 2, 3)
		 * keeps its order */
		qsort(c, (size_t)nc, sizeof *c, d->pick->ordinal ? by_order : by_key);
		r = nm > 1 ? draw_measures(d, c, nc) : draw(d, c, nc, one, 1);
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
