/* chart_catalog.c: what the target's catalog knows of a chart's columns: units for axis titles and which columns identify entities. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include "catalog/catalog_int.h"
#include "pages/chart_int.h"
#include "store/db.h"

static int ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* has_word: w occurs in [s, e) as a whole identifier */
static int has_word(const char *s, const char *e, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = s; p + n <= e; p++)
		if (!strncasecmp(p, w, n) && (p == s || !ident_char(p[-1])) && (p + n == e || !ident_char(p[n])))
			return 1;
	return 0;
}

/* alias_expr: the select-list expression of "expr AS alias" in sql, as [*s, *e); 0 when absent */
static int alias_expr(const char *sql, const char *alias, const char **s, const char **e)
{
	size_t n = strlen(alias);

	for (const char *p = sql; (p = strcasestr(p, " as ")); p += 4) {
		const char *a = p + 4, *q;
		int depth = 0;

		if (*a == '"')
			a++;
		if (strncasecmp(a, alias, n) || ident_char(a[n]))
			continue;
		/* back to the item's start: a comma or SELECT outside parentheses */
		for (q = p; q > sql; q--) {
			if (*q == ')')
				depth++;
			else if (*q == '(')
				depth--;
			if (depth < 0)
				break;
			if (depth == 0 && *q == ',')
				break;
			if (depth == 0 && q - sql >= 6 && !strncasecmp(q - 6, "select", 6) && (q - 6 == sql || !ident_char(q[-7])))
				break;
		}
		*s = q + 1;
		*e = p;
		return 1;
	}
	return 0;
}

void chart_catalog_cols(struct catalog *cat, const char *sql, struct chart_col *cols, int ncols)
{
	struct cat_ref refs[64];
	int nref, parsed;

	if (!cat || !sql)
		return;
	nref = catalog_sql_refs(cat, sql, refs, 64, &parsed);
	for (int i = 0; i < ncols; i++) {
		const char *s = NULL, *e = NULL, *unit = NULL;
		int direct = -1, units = 0, bare = 0;
		char q[300];

		/* a column shown as it is stored (vital_data_table.sbp, or t.sbp AS sbp) */
		if (alias_expr(sql, cols[i].name, &s, &e)) {
			const char *p = s;
			while (p < e && (ident_char(*p) || *p == '.' || *p == '"' || isspace((unsigned char)*p)))
				p++;
			bare = p == e;
		}
		for (int k = 0; k < nref && direct < 0 && (!s || bare); k++)
			if (refs[k].column && (s ? has_word(s, e, refs[k].column) : !strcmp(refs[k].column, cols[i].name))) {
				snprintf(q, sizeof q, "%s.%s", refs[k].table, refs[k].column);
				direct = cat_find_column(cat, q);
			}
		if (direct >= 0) {
			const struct cat_column *c = &cat->columns[direct];
			if (!cols[i].unit && c->unit && *c->unit)
				cols[i].unit = c->unit;
			if (c->numeric && (c->is_pk || c->idlike) && !c->is_flag)
				cols[i].identifier = 1;
			continue;
		}
		if (!s)
			continue;
		/* an alias: AVG(clinical_data_table.age) AS avg has age's unit; a count has none */
		while (s < e && isspace((unsigned char)*s))
			s++;
		if (!strncasecmp(s, "count", 5))
			continue;
		for (int k = 0; k < nref; k++) {
			int ci;
			if (!refs[k].column || !has_word(s, e, refs[k].column))
				continue;
			snprintf(q, sizeof q, "%s.%s", refs[k].table, refs[k].column);
			if ((ci = cat_find_column(cat, q)) < 0)
				continue;
			if (!cat->columns[ci].unit || !*cat->columns[ci].unit) {
				units = 2;     /* a unitless column in the expression: say nothing */
				break;
			}
			if (!unit || strcmp(unit, cat->columns[ci].unit))
				units++;
			unit = cat->columns[ci].unit;
		}
		if (units == 1 && !cols[i].unit)
			cols[i].unit = unit;
		if (!strncasecmp(s, "cast(", 5) || units == 1) {
			/* CAST(x AS numeric) AS value: x's identity carries over */
			for (int k = 0; k < nref; k++) {
				int ci;
				if (!refs[k].column || !has_word(s, e, refs[k].column))
					continue;
				snprintf(q, sizeof q, "%s.%s", refs[k].table, refs[k].column);
				if ((ci = cat_find_column(cat, q)) >= 0 && cat->columns[ci].numeric && !strncasecmp(s, "cast(", 5) &&
				    (cat->columns[ci].is_pk || cat->columns[ci].idlike))
					cols[i].identifier = 1;
			}
		}
	}
}

const char *chart_catalog_unit(void *ctx, const char *measure)
{
	const struct catalog *c = ctx;
	const char *unit = NULL;

	if (!c || !measure)
		return NULL;
	for (int i = 0; i < c->nvalues; i++)
		if (c->values[i].unit && *c->values[i].unit && !strcmp(c->values[i].value, measure))
			return c->values[i].unit;
	/* a measure named after a column ('sbp' in a long vitals timeline): its unit, when only one */
	for (int i = 0; i < c->ncolumns; i++)
		if (c->columns[i].unit && *c->columns[i].unit && !strcmp(c->columns[i].name, measure)) {
			if (unit && strcmp(unit, c->columns[i].unit))
				return NULL;
			unit = c->columns[i].unit;
		}
	return unit;
}

int chart_for_run(struct sb *out, const cJSON *columns, const cJSON *rows, const char *target, const char *sql,
                  const char *lang, int entity, struct chart_info *info)
{
	struct chart_col cols[CHART_MAXCOLS];
	struct catalog *cat = NULL;
	char err[200];
	int n = cJSON_IsArray(columns) ? chart_parse_cols(columns, cols) : -1;
	struct chart_opts o = {.lang = lang, .entity = entity};
	PGconn *app;

	if (n < 2)
		return 0;
	/* without a catalog the chart is still drawn, from the columns' names and types alone */
	if (target && *target && (app = db_app()) && (cat = catalog_get(app, target, err, sizeof err))) {
		chart_catalog_cols(cat, sql, cols, n);
		o.unit_of = chart_catalog_unit;
		o.unit_ctx = cat;
	}
	return chart_draw_cols(out, cols, n, rows, &o, info);
}
