/* restate.c: the reading said back in the analyst's language (pages/restate.h; docs/coverage.md). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "pages/restate.h"
#include "util/i18n.h"

/* name: "성별(sex)" / "Sex (sex)" when the catalog has a header, else the column as written */
static void name(struct sb *out, const char *lang, const char *col, const struct restate_names *nm)
{
	const char *l = nm && nm->label ? nm->label(nm->ctx, col) : NULL;
	if (l && *l && strcasecmp(l, col)) {
		size_t at = out->len;
		sb_printf(out, strcmp(lang, "ko") ? "%s (%s)" : "%s(%s)", l, col);
		/* inside an English sentence: "average age", not "average Age" (BMI, ASA stay) */
		if (strcmp(lang, "ko") && sb_ok(out) && isupper((unsigned char)out->buf[at]) && out->len > at + 1 &&
		    islower((unsigned char)out->buf[at + 1]))
			out->buf[at] = (char)tolower((unsigned char)out->buf[at]);
	} else {
		sb_puts(out, col);
	}
}

/* cond: one condition: "성별(sex) = F", "age ≥ 65", "name is one of k, na" */
static void cond(struct sb *out, const char *lang, const struct rd_cond *c, const struct restate_names *nm)
{
	static const struct { const char *op, *shown; } ops[] = {
		{"=", "="}, {"<>", "≠"}, {"!=", "≠"}, {">=", "≥"}, {"<=", "≤"}, {">", ">"}, {"<", "<"}};
	struct sb col = SB_INIT, val = SB_INIT;
	name(&col, lang, c->col, nm);
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!strcmp(c->op, ops[i].op)) {
			sb_printf(out, "%s %s %s", sb_cstr(&col), ops[i].shown, c->val);
			goto out;
		}
	const char *key = !strcmp(c->op, "in") ? "restate.op.in" : !strcmp(c->op, "not in") ? "restate.op.not_in"
	                : !strcmp(c->op, "like") || !strcmp(c->op, "ilike") ? "restate.op.like"
	                : !strcmp(c->op, "between") ? "restate.op.between" : !strcmp(c->op, "is null") ? "restate.op.is_null"
	                : !strcmp(c->op, "is not null") ? "restate.op.is_not_null" : NULL;
	if (!key) {
		sb_printf(out, "%s %s %s", sb_cstr(&col), c->op, c->val);
		goto out;
	}
	/* a pattern's wildcards are SQL's, not the analyst's; between's "and" is a range */
	for (const char *p = c->val; *p; p++) {
		if ((!strcmp(c->op, "like") || !strcmp(c->op, "ilike")) && *p == '%')
			continue;
		if (!strcmp(c->op, "between") && !strncmp(p, " and ", 5) && !strcmp(lang, "ko")) {
			sb_putc(&val, '~');
			p += 4;
			continue;
		}
		sb_putc(&val, *p);
	}
	i18n_format(out, lang, key, (const char *[]){"col", sb_cstr(&col), "val", sb_cstr(&val), NULL});
out:
	sb_free(&col);
	sb_free(&val);
}

static void conds(struct sb *out, const char *lang, const struct rd_cond *c, int n, const struct restate_names *nm)
{
	for (int i = 0; i < n; i++) {
		if (i)
			sb_puts(out, i18n_get(lang, "restate.and"));
		cond(out, lang, &c[i], nm);
	}
}

static const char *band_key(enum rd_band b)
{
	switch (b) {
	case RD_BAND: return "restate.band.width";
	case RD_YEAR: return "restate.band.year";
	case RD_QUARTER: return "restate.band.quarter";
	case RD_MONTH: return "restate.band.month";
	case RD_MONTH_NO: return "restate.band.month_no";
	case RD_WEEK: return "restate.band.week";
	case RD_DAY: return "restate.band.day";
	case RD_HOUR: return "restate.band.hour";
	case RD_PLAIN: break;
	}
	return NULL;
}

/* measure: what is computed, before groupings and filters */
static void measure(struct sb *out, const char *lang, const struct sql_reading *rd, const struct restate_names *nm)
{
	struct sb col = SB_INIT;
	const char *a = rd->agg;
	if (rd->agg_col[0] && strcmp(rd->agg_col, "*"))
		name(&col, lang, rd->agg_col, nm);
	if (rd->rate) {
		struct sb num = SB_INIT;
		conds(&num, lang, rd->num, rd->nnum, nm);
		sb_free(&col);
		/* the base of the share is what the WHERE keeps: said in the caller's where clause */
		i18n_format(out, lang, "restate.rate", (const char *[]){"num", sb_cstr(&num), NULL});
		sb_free(&num);
		return;
	}
	if (!a[0] && rd->setop) {
		sb_puts(out, i18n_get(lang, "restate.timeline"));
	} else if (!a[0] && rd->ncols) {
		struct sb cs = SB_INIT;
		for (int i = 0; i < rd->ncols; i++) {
			if (i)
				sb_puts(&cs, ", ");
			name(&cs, lang, rd->cols[i], nm);
		}
		i18n_format(out, lang, "restate.rows_of", (const char *[]){"cols", sb_cstr(&cs), NULL});
		sb_free(&cs);
	} else if (!a[0])
		sb_puts(out, i18n_get(lang, "restate.rows"));
	else if (!strcmp(a, "count") && (!col.len || !strcmp(rd->agg_col, "*")))
		sb_puts(out, i18n_get(lang, "restate.count_all"));
	else if (!strcmp(a, "count") && nm && nm->patient_col && !strcasecmp(rd->agg_col, nm->patient_col))
		sb_puts(out, i18n_get(lang, "restate.count_patients"));
	else if (!strcmp(a, "count"))
		i18n_format(out, lang, "restate.count_of", (const char *[]){"col", sb_cstr(&col), NULL});
	else if (!strcmp(a, "avg") || !strcmp(a, "sum") || !strcmp(a, "min") || !strcmp(a, "max")) {
		char key[24];
		snprintf(key, sizeof key, "restate.%s", a);
		i18n_format(out, lang, key, (const char *[]){"col", col.len ? sb_cstr(&col) : "?", NULL});
	} else
		i18n_format(out, lang, "restate.other_agg", (const char *[]){"agg", a, "col", col.len ? sb_cstr(&col) : "?", NULL});
	sb_free(&col);
}

void restate(struct sb *out, const char *lang, const struct sql_reading *rd, const struct restate_names *nm)
{
	if (!lang || strcmp(lang, "ko"))
		lang = "en";
	if (!rd || (!rd->agg[0] && !rd->nfilter && !rd->ngroup && !rd->complete)) {
		sb_puts(out, i18n_get(lang, "restate.unread"));
		return;
	}
	struct sb what = SB_INIT, m = SB_INIT, g = SB_INIT, f = SB_INIT, t = SB_INIT;
	size_t start = out->len;
	if (rd->exists) {
		/* a yes/no: whether the rows it asks about exist */
		conds(&f, lang, rd->filter, rd->nfilter, nm);
		if (f.len)
			i18n_format(out, lang, "restate.exists", (const char *[]){"filters", sb_cstr(&f), NULL});
		else
			sb_puts(out, i18n_get(lang, "restate.exists_any"));
		sb_free(&f);
		return;
	}
	measure(&m, lang, rd, nm);
	for (int i = 0; i < rd->ngroup; i++) {
		struct sb col = SB_INIT;
		name(&col, lang, rd->group[i].col, nm);
		const char *bk = band_key(rd->group[i].band);
		/* a year beside its month is one calendar month: "month of X" once */
		if (rd->group[i].band == RD_YEAR && i + 1 < rd->ngroup && rd->group[i + 1].band == RD_MONTH_NO &&
		    !strcmp(rd->group[i + 1].col, rd->group[i].col)) {
			sb_free(&col);
			continue;
		}
		if (g.len)
			sb_puts(&g, i18n_get(lang, "restate.times"));
		char w[16];
		snprintf(w, sizeof w, "%d", rd->group[i].width);
		if (bk)
			i18n_format(&g, lang, bk, (const char *[]){"col", sb_cstr(&col), "n", w, NULL});
		else
			sb_puts(&g, sb_cstr(&col));
		sb_free(&col);
	}
	if (rd->npivot) {
		/* one output column per value of a column: a dimension too, said with its values */
		struct sb col = SB_INIT, vals = SB_INIT;
		name(&col, lang, rd->pivot_col, nm);
		for (int i = 0; i < rd->npivot; i++)
			sb_printf(&vals, "%s%s", i ? ", " : "", rd->pivot_val[i]);
		if (g.len)
			sb_puts(&g, i18n_get(lang, "restate.times"));
		i18n_format(&g, lang, "restate.pivot", (const char *[]){"col", sb_cstr(&col), "vals", sb_cstr(&vals), NULL});
		sb_free(&col);
		sb_free(&vals);
	}
	if (g.len)
		i18n_format(&what, lang, "restate.by", (const char *[]){"measure", sb_cstr(&m), "groups", sb_cstr(&g), NULL});
	else
		sb_puts(&what, sb_cstr(&m));
	if (rd->nfilter) {
		conds(&f, lang, rd->filter, rd->nfilter, nm);
		if (rd->rate && !g.len) {
			/* a share among the rows the WHERE keeps: that is its base */
			struct sb num = SB_INIT;
			conds(&num, lang, rd->num, rd->nnum, nm);
			sb_reset(&what);
			i18n_format(&what, lang, "restate.rate_among", (const char *[]){"num", sb_cstr(&num), "base", sb_cstr(&f), NULL});
			sb_free(&num);
		} else {
			i18n_format(&t, lang, "restate.where", (const char *[]){"what", sb_cstr(&what), "filters", sb_cstr(&f), NULL});
			sb_reset(&what);
			sb_puts(&what, sb_cstr(&t));
			sb_reset(&t);
		}
	}
	if (rd->limit > 0 && rd->agg[0] && rd->ngroup) {
		char n[24];
		snprintf(n, sizeof n, "%ld", rd->limit);
		i18n_format(&t, lang, "restate.limit", (const char *[]){"what", sb_cstr(&what), "n", n, NULL});
		sb_reset(&what);
		sb_puts(&what, sb_cstr(&t));
		sb_reset(&t);
	}
	if (!rd->complete)
		i18n_format(out, lang, "restate.partial", (const char *[]){"what", sb_cstr(&what), NULL});
	else
		sb_puts(out, sb_cstr(&what));
	if (strcmp(lang, "ko") && sb_ok(out) && out->len > start)
		out->buf[start] = (char)toupper((unsigned char)out->buf[start]);
	sb_free(&what);
	sb_free(&m);
	sb_free(&g);
	sb_free(&f);
	sb_free(&t);
}
