/* chart.c: which chart fits a result (one decision from its columns' roles), the table of kinds, and what every kind shares (ticks, labels, colours, the <svg>). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include "pages/chart_int.h"
#include "util/i18n.h"

/* The declared kinds: adding one is a file with its draw function and a row here. */
static const struct chart_kind_def kinds[CHART_NKINDS] = {
	[CHART_NONE] = {CHART_NONE, "none", NULL},
	[CHART_BAR] = {CHART_BAR, "bar", chart_draw_bar},
	[CHART_GROUPED_BAR] = {CHART_GROUPED_BAR, "grouped-bar", chart_draw_grouped},
	[CHART_LINE] = {CHART_LINE, "line", chart_draw_line},
};

const char *chart_kind_name(enum chart_kind k)
{
	return k > CHART_NONE && k < CHART_NKINDS ? kinds[k].name : "none";
}

/* ---- roles ---- */

static int ends(const char *s, size_t l, const char *suf)
{
	size_t n = strlen(suf);
	return l > n && !strcasecmp(s + l - n, suf);
}

int chart_is_identifier(const char *name)
{
	size_t l = name ? strlen(name) : 0;

	if (!l)
		return 0;
	/* the name rules of catalog.c's is_idlike, without its "_cd"/"_code" (a department code is a
	 * category people group by, not a person or a case) */
	return !strcasecmp(name, "id") || ends(name, l, "id") || ends(name, l, "_no") || ends(name, l, "_key") ||
	       ends(name, l, "_uuid") || ends(name, l, "_mrn") || !strcasecmp(name, "mrn");
}

static int type_has(const char *t, const char *const *names)
{
	if (!t)
		return 0;
	for (; *names; names++)
		if (strcasestr(t, *names))
			return 1;
	return 0;
}

static const char *const numeric_t[] = {"number", "int", "numeric", "float", "double", "real", "decimal", "money", NULL};
static const char *const temporal_t[] = {"datetime", "timestamp", "date", "time", NULL};

void chart_roles(struct chart_col *cols, int ncols)
{
	for (int i = 0; i < ncols; i++) {
		struct chart_col *c = &cols[i];

		if (c->identifier || chart_is_identifier(c->name))
			c->role = ROLE_ID;
		else if (type_has(c->type, temporal_t) && !strcasestr(c->type, "interval"))
			c->role = ROLE_TIME;
		else if (type_has(c->type, numeric_t))
			c->role = ROLE_MEASURE;
		else
			c->role = ROLE_LABEL;
	}
}

/* ---- choosing ---- */

/* distinct: how many different texts column c holds (counting stops above cap) */
static int distinct(const cJSON *rows, int c, int cap)
{
	int n = 0, nrow = cJSON_GetArraySize(rows);
	const cJSON **seen = calloc((size_t)cap + 1, sizeof *seen);
	char b1[64], b2[64];

	if (!seen)
		return cap + 1;
	for (int i = 0; i < nrow && n <= cap; i++) {
		const cJSON *v = cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), c);
		const char *t = chart_text(v, b1, sizeof b1);
		int k = 0;

		for (; k < n; k++)
			if (!strcmp(chart_text(seen[k], b2, sizeof b2), t))
				break;
		if (k == n && n <= cap)
			seen[n++] = v;
	}
	free(seen);
	return n;
}

/* pairs_unique: each (a, b) pair appears at most once (a result grouped by both) */
static int pairs_unique(const cJSON *rows, int a, int b)
{
	int nrow = cJSON_GetArraySize(rows);
	char x1[64], y1[64], x2[64], y2[64];

	for (int i = 0; i < nrow; i++) {
		const cJSON *ri = cJSON_GetArrayItem(rows, i);
		const char *ai = chart_text(cJSON_GetArrayItem(ri, a), x1, sizeof x1);
		const char *bi = chart_text(cJSON_GetArrayItem(ri, b), y1, sizeof y1);

		for (int k = 0; k < i; k++) {
			const cJSON *rk = cJSON_GetArrayItem(rows, k);

			if (!strcmp(ai, chart_text(cJSON_GetArrayItem(rk, a), x2, sizeof x2)) &&
			    !strcmp(bi, chart_text(cJSON_GetArrayItem(rk, b), y2, sizeof y2)))
				return 0;
		}
	}
	return 1;
}

/* integral_distinct: column c holds whole numbers, each once (a numeric category: ASA 1..6, year) */
static int integral_distinct(const cJSON *rows, int c)
{
	int nrow = cJSON_GetArraySize(rows), ok;

	for (int i = 0; i < nrow; i++) {
		double v = chart_num(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), c), &ok);
		if (!ok || v != floor(v) || fabs(v) > 1e6)
			return 0;
	}
	return distinct(rows, c, nrow) == nrow;
}

/* dated: every value of column c begins like a date or a month written as text (2025-01, 2025-01-31) */
static int dated(const cJSON *rows, int c)
{
	int nrow = cJSON_GetArraySize(rows);

	for (int i = 0; i < nrow; i++) {
		const char *t = cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), c));
		if (!t || strlen(t) < 7 || strspn(t, "0123456789") != 4 || t[4] != '-' || strspn(t + 5, "0123456789") < 2)
			return 0;
	}
	return 1;
}

enum chart_kind chart_choose(const struct chart_col *cols, int ncols, const cJSON *rows, struct chart_pick *pick)
{
	struct chart_pick p = {.kind = CHART_NONE, .x = -1, .series = -1, .entity = -1};
	int time[CHART_MAXCOLS], lab[CHART_MAXCOLS], mea[CHART_MAXCOLS], ids[CHART_MAXCOLS];
	int nt = 0, nl = 0, nm = 0, ni = 0, nrow = cJSON_GetArraySize(rows);

	if (ncols > CHART_MAXCOLS || nrow < 2)
		goto out;    /* a single value or nothing: the answer says it better than a chart */
	for (int i = 0; i < ncols; i++)
		switch (cols[i].role) {
		case ROLE_TIME: time[nt++] = i; break;
		case ROLE_LABEL: lab[nl++] = i; break;
		case ROLE_MEASURE: mea[nm++] = i; break;
		case ROLE_ID: ids[ni++] = i; break;
		}
	if (nm == 0)
		goto out;    /* nothing to measure: a list */
	if (nt > 0) {
		/* a timeline: one line per measure; a long result (time, name, value) has its measures
		 * named in a label column, the one with the most different names (source, measure, value: measure) */
		p.x = time[0];
		if (nm == 1 && nl > 0) {
			int best = -1;
			for (int k = 0; k < nl; k++) {
				int d = distinct(rows, lab[k], 64);
				if (d >= best)     /* a tie goes to the later column, the one beside the value */
					best = d, p.series = lab[k];
			}
		}
		for (int k = 0; k < nm && p.nmeasures < CHART_MAXMEASURES; k++)
			p.measures[p.nmeasures++] = mea[k];
		/* several patients or cases: one of them is drawn (their ids are never a series) */
		for (int k = 0; k < ni && p.entity < 0; k++)
			if (distinct(rows, ids[k], 1) > 1)
				p.entity = ids[k];
		p.kind = CHART_LINE;
		goto out;
	}
	/* bars: rows must be groups, not entities */
	for (int k = 0; k < ni; k++)
		if (distinct(rows, ids[k], 1) > 1)
			goto out;
	if (nl == 0) {
		/* (asa, count): a whole-number first column, each value once, is the category */
		if (nm >= 2 && mea[0] == 0 && nrow <= CHART_MAXBARS && integral_distinct(rows, mea[0])) {
			p.x = mea[0];
			p.ordinal = 1;
			for (int k = 1; k < nm && p.nmeasures < CHART_MAXSERIES; k++)
				p.measures[p.nmeasures++] = mea[k];
			p.kind = CHART_BAR;
		}
		goto out;
	}
	if (nl == 1) {
		if (nrow > CHART_MAXBARS || distinct(rows, lab[0], nrow) != nrow)
			goto out;    /* too many to read, or the label repeats: a list, not a grouping */
		p.x = lab[0];
		/* every measure is drawn (count and average per department): chart_bar.c groups them or
		 * gives each a panel */
		for (int k = 0; k < nm && p.nmeasures < CHART_MAXSERIES; k++)
			p.measures[p.nmeasures++] = mea[k];
		p.ordinal = dated(rows, lab[0]);    /* months as text ('2025-01') keep their order */
		p.kind = CHART_BAR;
		goto out;
	}
	if (nl == 2) {
		int da = distinct(rows, lab[0], CHART_MAXBARS), db = distinct(rows, lab[1], CHART_MAXBARS);
		/* the column with fewer values is the legend: departments along the axis, sexes in colour */
		int cat = da >= db ? lab[0] : lab[1], ser = da >= db ? lab[1] : lab[0];
		int dc = da >= db ? da : db, ds = da >= db ? db : da;

		if (dc > CHART_MAXBARS || ds > CHART_MAXSERIES || ds < 2 || !pairs_unique(rows, lab[0], lab[1]))
			goto out;
		p.x = cat;
		p.series = ser;
		p.measures[p.nmeasures++] = mea[0];
		p.kind = CHART_GROUPED_BAR;
	}
out:
	if (pick)
		*pick = p;
	return p.kind;
}

/* ---- ticks and numbers ---- */

int chart_nice_ticks(double lo, double hi, int target, double *first, double *step, int *n)
{
	double raw, mag, f, nf, last;

	if (target < 2)
		target = 2;
	if (!isfinite(lo) || !isfinite(hi))
		lo = 0, hi = 1;
	if (hi < lo) {
		double t = lo;
		lo = hi, hi = t;
	}
	if (hi == lo) {
		/* one value: a range around it */
		double d = lo == 0 ? 1 : fabs(lo) * 0.1;
		lo -= d, hi += d;
	}
	raw = (hi - lo) / target;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	nf = f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10;
	*step = nf * mag;
	*first = floor(lo / *step + 1e-9) * *step;
	last = ceil(hi / *step - 1e-9) * *step;
	*n = (int)lround((last - *first) / *step) + 1;
	if (*n < 2)
		*n = 2;
	{
		int dec = (int)-floor(log10(*step) + 1e-9);
		return dec > 0 ? dec : 0;
	}
}

const char *chart_fmt(char *buf, size_t n, double v, int decimals)
{
	char tmp[64], *dot;
	size_t len, intlen, o = 0;
	int neg;

	if (fabs(v) < 0.5 * pow(10, -decimals))
		v = 0;     /* no "-0" */
	snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
	neg = tmp[0] == '-';
	len = strlen(tmp);
	dot = strchr(tmp, '.');
	intlen = (dot ? (size_t)(dot - tmp) : len) - (size_t)neg;
	if (neg && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < intlen && o + 2 < n; i++) {
		if (i > 0 && (intlen - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[neg + i];
	}
	for (size_t i = neg + intlen; i < len && o + 1 < n; i++)
		buf[o++] = tmp[i];
	buf[o] = '\0';
	return buf;
}

/* ---- cells ---- */

double chart_num(const cJSON *v, int *ok)
{
	char *e;
	double d;

	*ok = 0;
	if (cJSON_IsNumber(v)) {
		*ok = isfinite(v->valuedouble);
		return v->valuedouble;
	}
	if (!cJSON_IsString(v) || !*v->valuestring)
		return 0;
	d = strtod(v->valuestring, &e);
	*ok = e != v->valuestring && !*e && isfinite(d);
	return d;
}

const char *chart_text(const cJSON *v, char *buf, size_t n)
{
	if (cJSON_IsString(v))
		return v->valuestring;
	if (cJSON_IsNumber(v)) {
		if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
			snprintf(buf, n, "%.0f", v->valuedouble);
		else
			snprintf(buf, n, "%g", v->valuedouble);
		return buf;
	}
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v) ? "true" : "false";
	return "NULL";
}

/* ---- labels ---- */

static unsigned cp_at(const unsigned char *s, int *len)
{
	if (s[0] < 0x80) { *len = 1; return s[0]; }
	if ((s[0] & 0xe0) == 0xc0 && s[1]) { *len = 2; return ((s[0] & 0x1fu) << 6) | (s[1] & 0x3fu); }
	if ((s[0] & 0xf0) == 0xe0 && s[1] && s[2]) {
		*len = 3;
		return ((s[0] & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
	}
	if ((s[0] & 0xf8) == 0xf0 && s[1] && s[2] && s[3]) { *len = 4; return 0x10000; }
	*len = 1;
	return '?';
}

static double cp_em(unsigned c)
{
	/* Hangul, CJK and full-width forms are about one em wide; Latin text about 0.6 */
	if ((c >= 0x1100 && c <= 0x11ff) || (c >= 0x2e80 && c <= 0xa4cf) || (c >= 0xac00 && c <= 0xd7af) ||
	    (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef) || c >= 0x10000)
		return 1.0;
	return c == ' ' ? 0.3 : 0.6;
}

double chart_text_px(const char *s, double px)
{
	double w = 0;
	int len;

	for (const unsigned char *p = (const unsigned char *)s; p && *p; p += len)
		w += cp_em(cp_at(p, &len));
	return w * px;
}

int chart_label(struct sb *out, const char *s, double max_px, double px)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	double w = 0, ell = 0.6 * px;
	char tmp[512];
	size_t cut = 0;
	int len;

	if (chart_text_px((const char *)p, px) <= max_px) {
		sb_html(out, (const char *)p);
		return 0;
	}
	for (; *p; p += len) {
		double cw = cp_em(cp_at(p, &len)) * px;
		if (w + cw + ell > max_px || cut + (size_t)len >= sizeof tmp)
			break;
		w += cw;
		cut += (size_t)len;
	}
	memcpy(tmp, s, cut);
	tmp[cut] = '\0';
	sb_html(out, tmp);
	sb_puts(out, "…");
	return 1;
}

void chart_axis_title(struct sb *out, const char *name, const char *unit)
{
	sb_html(out, name ? name : "");
	if (unit && *unit) {
		sb_puts(out, " (");
		sb_html(out, unit);
		sb_puts(out, ")");
	}
}

const char *chart_color(int i)
{
	/* Okabe & Ito, "Color Universal Design" (2008), without the yellow that vanishes on white */
	static const char *const pal[CHART_MAXSERIES] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
	                                                 "#E69F00", "#56B4E9", "#000000", "#999999"};
	return pal[(i % CHART_MAXSERIES + CHART_MAXSERIES) % CHART_MAXSERIES];
}

const char *chart_t(const struct chart_draw *d, const char *key)
{
	return i18n_get(d->o && d->o->lang ? d->o->lang : "en", key);
}

void chart_svg_open(struct chart_draw *d, int h, const char *title)
{
	sb_printf(d->out, "<svg class=\"chart %s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
	          "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"system-ui, sans-serif\"><title>",
	          d->narrow ? "chart-narrow" : "chart-wide", d->w, h, d->w, h);
	sb_html(d->out, title);
	sb_puts(d->out, "</title>");
}

void chart_svg_close(struct chart_draw *d)
{
	sb_puts(d->out, "</svg>");
}

int chart_legend(struct chart_draw *d, const char *const *names, int n, int y, int dashed)
{
	int x = 8, row = 0, lh = CHART_FONT + 8;
	double maxw = d->narrow ? 150 : 220;

	for (int i = 0; i < n; i++) {
		double tw = chart_text_px(names[i], CHART_FONT);
		int iw = 18 + (int)(tw < maxw ? tw : maxw) + 14;

		if (x > 8 && x + iw > d->w - 8)
			x = 8, row++;
		sb_printf(d->out, "<g class=\"legend-item\" data-name=\"");
		sb_html(d->out, names[i]);
		sb_puts(d->out, "\">");
		if (dashed)
			sb_printf(d->out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"3\"/>",
			          x, y + row * lh + 6, x + 14, y + row * lh + 6, chart_color(i));
		else
			sb_printf(d->out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", x,
			          y + row * lh, chart_color(i));
		sb_printf(d->out, "<text x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"#222\">", x + 18, y + row * lh + 10,
		          CHART_FONT);
		if (chart_label(d->out, names[i], maxw, CHART_FONT)) {
			sb_puts(d->out, "<title>");
			sb_html(d->out, names[i]);
			sb_puts(d->out, "</title>");
		}
		sb_puts(d->out, "</text></g>");
		x += iw;
	}
	return n ? (row + 1) * lh : 0;
}

/* ---- the entry points ---- */

int chart_parse_cols(const cJSON *columns, struct chart_col *cols)
{
	int n = 0;
	const cJSON *c;

	cJSON_ArrayForEach(c, columns) {
		const cJSON *id;

		if (n >= CHART_MAXCOLS)
			return -1;
		memset(&cols[n], 0, sizeof cols[n]);
		if (cJSON_IsString(c)) {
			cols[n].name = c->valuestring;
		} else {
			cols[n].name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "name"));
			cols[n].type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "type"));
			cols[n].unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "unit"));
			cols[n].title = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "label"));
			id = cJSON_GetObjectItemCaseSensitive(c, "identifier");
			cols[n].identifier = cJSON_IsTrue(id);
		}
		if (!cols[n].name)
			cols[n].name = "?";
		if (!cols[n].title || !*cols[n].title)
			cols[n].title = cols[n].name;
		n++;
	}
	return n;
}

int chart_draw_cols(struct sb *out, struct chart_col *cols, int ncols, const cJSON *rows,
                     const struct chart_opts *o, struct chart_info *info)
{
	static const struct chart_opts none = {0};
	struct chart_pick p;
	struct chart_opts oo = o ? *o : none;
	struct sb tmp = SB_INIT;
	int ok = 0, nent = 0;

	if (!cJSON_IsArray(rows) || ncols < 2)
		return 0;
	chart_roles(cols, ncols);
	if (chart_choose(cols, ncols, rows, &p) == CHART_NONE || !kinds[p.kind].draw)
		return 0;
	/* the entity asked for, kept in range, so that the note and the page's chooser agree */
	if (p.entity >= 0) {
		nent = chart_entities(rows, p.entity, NULL, 0);
		if (oo.entity < 0 || oo.entity >= nent || oo.entity >= CHART_MAXENTITIES)
			oo.entity = 0;
	} else {
		oo.entity = 0;
	}
	/* the same chart laid out twice: wide for a desktop, 360 units for a phone (CSS shows one),
	 * so that text stays legible instead of shrinking with the drawing */
	for (int narrow = 0; narrow <= 1; narrow++) {
		struct chart_draw d = {.out = &tmp, .cols = cols, .ncols = ncols, .rows = rows, .pick = &p,
		                       .o = &oo, .w = narrow ? 360 : 720, .narrow = narrow};
		if (!(ok = kinds[p.kind].draw(&d)))
			break;
	}
	if (ok && sb_ok(&tmp)) {
		sb_puts(out, sb_cstr(&tmp));
		if (info) {
			info->kind = kinds[p.kind].name;
			info->entity_col = p.entity;
			info->entity = oo.entity;
			info->nentities = nent;
			info->entity_title = p.entity >= 0 ? CTITLE(&cols[p.entity]) : NULL;
			info->entity_name = p.entity >= 0 ? cols[p.entity].name : NULL;
		}
	} else {
		ok = 0;
	}
	sb_free(&tmp);
	return ok;
}

int chart_svg(struct sb *out, const cJSON *columns, const cJSON *rows, const struct chart_opts *o, const char **kind)
{
	struct chart_col cols[CHART_MAXCOLS];
	int n = cJSON_IsArray(columns) ? chart_parse_cols(columns, cols) : -1;

	struct chart_info info = {0};
	int r = n < 0 ? 0 : chart_draw_cols(out, cols, n, rows, o, &info);

	if (r && kind)
		*kind = info.kind;
	return r;
}

/* ---- entities (patients, cases) of a timeline ---- */

int chart_entities(const cJSON *rows, int col, struct chart_entity *out, int max)
{
	int nrow = cJSON_GetArraySize(rows), n = 0, cap = 64;
	char (*seen)[64] = malloc((size_t)cap * sizeof *seen);
	int *cnt = malloc((size_t)cap * sizeof *cnt);
	char buf[64];

	if (!seen || !cnt)
		goto out;
	for (int i = 0; i < nrow; i++) {
		const char *v = chart_text(cJSON_GetArrayItem(cJSON_GetArrayItem(rows, i), col), buf, sizeof buf);
		int k = 0;

		for (; k < n; k++)
			if (!strncmp(seen[k], v, sizeof seen[k] - 1))
				break;
		if (k == n) {
			if (n == cap) {
				void *a = realloc(seen, (size_t)cap * 2 * sizeof *seen), *b;
				if (a)
					seen = a;
				b = a ? realloc(cnt, (size_t)cap * 2 * sizeof *cnt) : NULL;
				if (!b)
					goto out;
				cnt = b;
				cap *= 2;
			}
			snprintf(seen[n], sizeof seen[n], "%s", v);
			cnt[n++] = 0;
		}
		cnt[k]++;
	}
	for (int k = 0; out && k < n && k < max; k++) {
		snprintf(out[k].value, sizeof out[k].value, "%s", seen[k]);
		out[k].rows = cnt[k];
	}
out:
	free(seen);
	free(cnt);
	return n;
}

int chart_entity_is_person(const char *name)
{
	return name && (strcasestr(name, "subject") || strcasestr(name, "patient") || strcasestr(name, "person") ||
	                strcasestr(name, "mrn"));
}

int chart_entity_param(const char *v, int n)
{
	long k = 0;
	size_t len;

	if (!v)
		return 0;
	if (*v == '+')
		v++;
	len = strlen(v);
	/* digits only, and few of them: anything else is the default, never an error */
	if (!len || len > 9 || strspn(v, "0123456789") != len)
		return 0;
	k = strtol(v, NULL, 10);
	return k >= 1 && k <= n && k <= CHART_MAXENTITIES ? (int)k - 1 : 0;
}

void chart_col_title(struct sb *out, const struct chart_col *c, const char *unit)
{
	sb_html(out, CTITLE(c));
	if (unit && *unit) {
		sb_puts(out, " (");
		sb_html(out, unit);
		sb_puts(out, ")");
	}
	/* the SQL name on hover, when the title is a translated header */
	if (c->name && strcmp(c->name, CTITLE(c))) {
		sb_puts(out, "<title>");
		sb_html(out, c->name);
		sb_puts(out, "</title>");
	}
}
