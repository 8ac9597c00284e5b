/* chart_line.c: timelines: one line per measure in time order, one panel per unit (small multiples). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pages/chart_int.h"
#include "util/i18n.h"

#define MAXPANELS 6

struct pt { double t, v; };
struct series {
	char name[128];
	const char *unit;
	const char *sql;         /* the column's SQL name when each measure is a column, else NULL */
	struct pt *p;
	int n, cap;
	int panel;
};

/* parse_time: "YYYY-MM-DD[ T]HH:MM[:SS[.fff]]", "YYYY-MM-DD" or "HH:MM[:SS]" as seconds (UTC) */
static int parse_time(const char *s, double *out)
{
	struct tm tm = {0};
	int y, mo, da, h = 0, mi = 0, n = 0;
	double sec = 0;

	if (!s)
		return 0;
	if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &da, &n) == 3) {
		const char *r = s + n;
		if (*r == ' ' || *r == 'T')
			sscanf(r + 1, "%2d:%2d:%lf", &h, &mi, &sec);
		tm.tm_year = y - 1900, tm.tm_mon = mo - 1, tm.tm_mday = da;
		tm.tm_hour = h, tm.tm_min = mi;
		*out = (double)timegm(&tm) + sec;
		return 1;
	}
	if (sscanf(s, "%2d:%2d:%lf", &h, &mi, &sec) >= 2) {
		*out = h * 3600.0 + mi * 60.0 + sec;
		return 1;
	}
	return 0;
}

static int by_t(const void *a, const void *b)
{
	const struct pt *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int by_points(const void *a, const void *b)
{
	return ((const struct series *)b)->n - ((const struct series *)a)->n;
}

static struct series *series_get(struct series **sv, int *ns, int *cap, const char *name)
{
	for (int i = 0; i < *ns; i++)
		if (!strcmp((*sv)[i].name, name))
			return &(*sv)[i];
	if (*ns == *cap) {
		int nc = *cap ? *cap * 2 : 8;
		struct series *t = realloc(*sv, (size_t)nc * sizeof *t);
		if (!t)
			return NULL;
		*sv = t;
		*cap = nc;
	}
	memset(&(*sv)[*ns], 0, sizeof **sv);
	snprintf((*sv)[*ns].name, sizeof (*sv)[*ns].name, "%s", name);
	return &(*sv)[(*ns)++];
}

static int add_pt(struct series *s, double t, double v)
{
	if (s->n == s->cap) {
		int nc = s->cap ? s->cap * 2 : 32;
		struct pt *p = realloc(s->p, (size_t)nc * sizeof *p);
		if (!p)
			return 0;
		s->p = p;
		s->cap = nc;
	}
	s->p[s->n++] = (struct pt){t, v};
	return 1;
}

/* time ticks: a step people count in (minutes, hours, days), about target of them */
static double time_step(double span, int target)
{
	static const double steps[] = {60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
	                               2 * 86400, 7 * 86400, 14 * 86400, 30 * 86400, 91 * 86400, 365 * 86400};
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
		if (span / steps[i] <= target)
			return steps[i];
	return 365 * 86400.0 * ceil(span / (365 * 86400.0) / target);
}

static void time_label(char *buf, size_t n, double t, double step, int multi_day, int has_date)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	if (!has_date)
		strftime(buf, n, "%H:%M", &tm);
	else if (step >= 28 * 86400)
		strftime(buf, n, "%Y-%m-%d", &tm);
	else if (step >= 86400)
		strftime(buf, n, "%m-%d", &tm);
	else if (multi_day && tm.tm_hour == 0 && tm.tm_min == 0)
		strftime(buf, n, "%m-%d", &tm);
	else
		strftime(buf, n, "%H:%M", &tm);
}

/* panel_key: series of one unit share a panel; without a unit, series of one order of magnitude */
static void panel_key(const struct series *s, char *buf, size_t n)
{
	double mx = 0;

	if (s->unit && *s->unit) {
		snprintf(buf, n, "u:%s", s->unit);
		return;
	}
	for (int i = 0; i < s->n; i++)
		if (fabs(s->p[i].v) > mx)
			mx = fabs(s->p[i].v);
	snprintf(buf, n, "m:%d", mx > 0 ? (int)floor(log10(mx)) : 0);
}

int chart_draw_line(struct chart_draw *d)
{
	const struct chart_pick *pk = d->pick;
	int nrow = cJSON_GetArraySize(d->rows), ns = 0, cap = 0, shown, np = 0, ok, r = 0, dropped = 0;
	struct series *sv = NULL;
	char keys[MAXPANELS][96], buf[160], ent[128] = "", title[256];
	double t0 = 0, t1 = 0;
	int have_t = 0, nent = 0, kent = 0, has_date = 0;
	struct sb *o = d->out;
	const char *names[CHART_MAXSERIES];

	/* the entity drawn: the one asked for (chart_opts.entity, kept in range by chart_draw_cols);
	 * the note says which, and of how many */
	if (pk->entity >= 0 && nrow > 0) {
		struct chart_entity *ev = calloc(CHART_MAXENTITIES, sizeof *ev);

		if (!ev)
			goto out;
		nent = chart_entities(d->rows, pk->entity, ev, CHART_MAXENTITIES);
		kent = d->o->entity >= 0 && d->o->entity < nent && d->o->entity < CHART_MAXENTITIES ? d->o->entity : 0;
		snprintf(ent, sizeof ent, "%s", ev[kent].value);
		free(ev);
	}
	for (int i = 0; i < nrow; i++) {
		const cJSON *row = cJSON_GetArrayItem(d->rows, i);
		const char *ts = cJSON_GetStringValue(cJSON_GetArrayItem(row, pk->x));
		double t;

		if (pk->entity >= 0 && strncmp(chart_text(cJSON_GetArrayItem(row, pk->entity), buf, sizeof buf), ent, 63))
			continue;
		if (!parse_time(ts, &t))
			continue;
		has_date |= ts[4] == '-';
		for (int m = 0; m < pk->nmeasures; m++) {
			double v = chart_num(cJSON_GetArrayItem(row, pk->measures[m]), &ok);
			const struct chart_col *mc = &d->cols[pk->measures[m]];
			struct series *s;

			if (!ok)
				continue;
			if (pk->series >= 0) {
				const char *nm = chart_text(cJSON_GetArrayItem(row, pk->series), buf, sizeof buf);
				if (!(s = series_get(&sv, &ns, &cap, nm)))
					goto out;
				if (!s->unit && d->o->unit_of)
					s->unit = d->o->unit_of(d->o->unit_ctx, nm);
			} else {
				if (!(s = series_get(&sv, &ns, &cap, CTITLE(mc))))
					goto out;
				s->unit = mc->unit;
				s->sql = mc->name;
			}
			if (!add_pt(s, t, v))
				goto out;
			if (!have_t || t < t0) t0 = t;
			if (!have_t || t > t1) t1 = t;
			have_t = 1;
		}
	}
	if (!ns)
		goto out;
	/* the series with most points when there are more than colours; the legend keeps their first order */
	shown = ns;
	if (ns > CHART_MAXSERIES) {
		for (int i = 0; i < ns; i++)
			sv[i].panel = i;     /* remember the order */
		qsort(sv, (size_t)ns, sizeof *sv, by_points);
		for (int i = CHART_MAXSERIES; i < ns; i++)
			free(sv[i].p), sv[i].p = NULL;
		dropped = ns - CHART_MAXSERIES;
		shown = CHART_MAXSERIES;
		for (int i = 1; i < shown; i++)          /* back to first appearance: insertion sort */
			for (int k = i; k > 0 && sv[k - 1].panel > sv[k].panel; k--) {
				struct series x = sv[k];
				sv[k] = sv[k - 1], sv[k - 1] = x;
			}
	}
	/* time order, whatever order the rows came in */
	for (int i = 0; i < shown; i++)
		qsort(sv[i].p, (size_t)sv[i].n, sizeof *sv[i].p, by_t);
	for (int i = 0; i < shown; i++) {
		char k[96];
		int p = 0;

		panel_key(&sv[i], k, sizeof k);
		while (p < np && strcmp(keys[p], k))
			p++;
		if (p == np) {
			if (np == MAXPANELS) {
				p = np - 1;      /* more units than panels: the rest share the last */
			} else {
				snprintf(keys[np], sizeof keys[np], "%s", k);
				np++;
			}
		}
		sv[i].panel = p;
	}
	if (t1 <= t0) {
		t0 -= 1800;
		t1 += 1800;
	}
	{
		int font = CHART_FONT, ml = d->narrow ? 44 : 56, mr = 12, ph = d->narrow ? 110 : 130, ptitle = 26;
		int legend_h, note_h = 0, top = 8, height, x0 = ml, x1 = d->w - mr;
		double tstep = time_step(t1 - t0, d->narrow ? 3 : 6), tfirst = ceil(t0 / tstep) * tstep;
		int multi_day = t1 - t0 > 86400 || floor(t0 / 86400) != floor(t1 / 86400);
		struct sb scratch = SB_INIT, *keep = d->out;

		for (int i = 0; i < shown; i++)
			names[i] = sv[i].name;
		d->out = &scratch;
		legend_h = chart_legend(d, names, shown, 0, 1);
		d->out = keep;
		sb_free(&scratch);
		if (ent[0] || dropped)
			note_h = font + 8;
		height = top + note_h + legend_h + 6 + np * (ph + ptitle + 8) + 18 + 20;
		snprintf(title, sizeof title, "%s", CTITLE(&d->cols[pk->x]));
		chart_svg_open(d, height, title);
		if (note_h) {
			struct sb note = SB_INIT;
			char nb[24], kb[24], sb1[24], sb2[24];

			if (ent[0]) {
				/* the entity column as the table's header names it ("환자 번호 100001 (2 / 3)") */
				snprintf(nb, sizeof nb, "%d", nent);
				snprintf(kb, sizeof kb, "%d", kent + 1);
				i18n_format(&note, d->o->lang ? d->o->lang : "en",
				            chart_entity_is_person(d->cols[pk->entity].name) ? "chart.note_person" : "chart.note_entity",
				            (const char *[]){"name", CTITLE(&d->cols[pk->entity]), "value", ent, "k", kb, "n", nb, NULL});
			}
			if (dropped) {
				snprintf(sb1, sizeof sb1, "%d", shown);
				snprintf(sb2, sizeof sb2, "%d", ns);
				if (ent[0])
					sb_puts(&note, " · ");
				i18n_format(&note, d->o->lang ? d->o->lang : "en", "chart.note_series",
				            (const char *[]){"shown", sb1, "n", sb2, NULL});
			}
			sb_printf(o, "<text class=\"note\" data-entity=\"%d\" data-entities=\"%d\" x=\"8\" y=\"%d\" "
			          "font-size=\"%d\" fill=\"#555\">", ent[0] ? kent + 1 : 0, ent[0] ? nent : 0, top + font, font - 1);
			chart_label(o, sb_cstr(&note), d->w - 16, font - 1);
			sb_puts(o, "</text>");
			sb_free(&note);
			top += note_h;
		}
		sb_puts(o, "<g class=\"legend\">");
		chart_legend(d, names, shown, top, 1);
		sb_puts(o, "</g>");
		top += legend_h + 6;
		for (int p = 0; p < np; p++) {
			int py = top + p * (ph + ptitle + 8) + ptitle, n, dec;
			double lo = 0, hi = 0, first, step;
			int any = 0;
			struct sb pt = SB_INIT, sqln = SB_INIT;
			const char *unit = NULL;
			int cut;

			/* the panel's title: its measures (as the table's headers name them) and their unit;
			 * their SQL names on hover */
			for (int i = 0; i < shown; i++)
				if (sv[i].panel == p) {
					if (pt.len)
						sb_puts(&pt, ", ");
					sb_puts(&pt, sv[i].name);
					if (sv[i].sql && strcmp(sv[i].sql, sv[i].name)) {
						if (sqln.len)
							sb_puts(&sqln, ", ");
						sb_puts(&sqln, sv[i].sql);
					}
					unit = sv[i].unit;
					for (int k = 0; k < sv[i].n; k++) {
						double v = sv[i].p[k].v;
						if (!any || v < lo) lo = v;
						if (!any || v > hi) hi = v;
						any = 1;
					}
				}
			if (keys[p][0] != 'u')
				unit = NULL;
			sb_printf(o, "<g class=\"panel\" data-unit=\"");
			sb_html(o, unit ? unit : "");
			sb_printf(o, "\"><text class=\"axis-title\" x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"#222\">", 8, py - 12, font);
			cut = chart_label(o, sb_cstr(&pt), d->w * 0.6, font);
			if (unit) {
				sb_puts(o, " (");
				sb_html(o, unit);
				sb_puts(o, ")");
			}
			if (cut || sqln.len) {
				sb_puts(o, "<title>");
				if (cut)
					sb_html(o, sb_cstr(&pt));
				if (cut && sqln.len)
					sb_puts(o, " — ");
				sb_html(o, sb_cstr(&sqln));
				sb_puts(o, "</title>");
			}
			sb_puts(o, "</text>");
			sb_free(&sqln);
			sb_free(&pt);
			dec = chart_nice_ticks(lo, hi, d->narrow ? 3 : 4, &first, &step, &n);
			lo = first;
			hi = first + step * (n - 1);
			for (int t = 0; t < n; t++) {
				double v = first + step * t, y = py + ph - ph * (v - lo) / (hi - lo);
				sb_printf(o, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e3e6ea\"/>", x0, y, x1, y);
				sb_printf(o, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" font-size=\"%d\" fill=\"#555\">%s</text>",
				          x0 - 4, y + 4, font - 1, chart_fmt(buf, sizeof buf, v, dec));
			}
			/* time gridlines in every panel, their labels under the last */
			for (double t = tfirst; t <= t1 + 1e-6; t += tstep) {
				double x = x0 + (x1 - x0) * (t - t0) / (t1 - t0);
				sb_printf(o, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eef0f2\"/>", x, py, x, py + ph);
				if (p == np - 1) {
					time_label(buf, sizeof buf, t, tstep, multi_day, has_date);
					sb_printf(o, "<text class=\"time-tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"#555\">%s</text>",
					          x, py + ph + 14, font - 1, buf);
				}
			}
			for (int i = 0; i < shown; i++) {
				if (sv[i].panel != p)
					continue;
				sb_puts(o, "<polyline class=\"series\" data-series=\"");
				sb_html(o, sv[i].name);
				sb_printf(o, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", chart_color(i));
				for (int k = 0; k < sv[i].n; k++)
					sb_printf(o, "%.1f,%.1f ", x0 + (x1 - x0) * (sv[i].p[k].t - t0) / (t1 - t0),
					          py + ph - ph * (sv[i].p[k].v - lo) / (hi - lo));
				sb_puts(o, "\"/>");
				/* dots where there are few points (one lab result is a dot, not an invisible line) */
				if (sv[i].n <= 60)
					for (int k = 0; k < sv[i].n; k++) {
						time_t tt = (time_t)sv[i].p[k].t;
						struct tm tm;
						char when[32];

						gmtime_r(&tt, &tm);
						strftime(when, sizeof when, has_date ? "%Y-%m-%d %H:%M" : "%H:%M", &tm);
						sb_printf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>",
						          x0 + (x1 - x0) * (sv[i].p[k].t - t0) / (t1 - t0),
						          py + ph - ph * (sv[i].p[k].v - lo) / (hi - lo), sv[i].n == 1 ? 4 : 2,
						          chart_color(i));
						sb_html(o, sv[i].name);
						sb_printf(o, " %s: %s</title></circle>", when,
						          chart_fmt(buf, sizeof buf, sv[i].p[k].v, sv[i].p[k].v == floor(sv[i].p[k].v) ? 0 : 2));
					}
			}
			sb_puts(o, "</g>");
		}
		sb_printf(o, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"%d\" fill=\"#222\">",
		          (x0 + x1) / 2, height - 6, font);
		chart_col_title(o, &d->cols[pk->x], NULL);
		sb_puts(o, "</text>");
		chart_svg_close(d);
		r = 1;
	}
out:
	for (int i = 0; i < ns; i++)
		free(sv[i].p);
	free(sv);
	return r;
}
