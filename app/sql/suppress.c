/* suppress.c: the small-cell rewrite (aggregate level, exports for release): refuse rows that are not aggregates, count each group's distinct patients (issue 16 item 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include <pg_query.h>
#include "sql/suppress.h"
#include "util/sb.h"

/* Aggregate functions by name (a call with FILTER, DISTINCT, * or WITHIN GROUP is one too). */
static const char *const aggs[] = {
	"count", "sum", "avg", "min", "max", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop",
	"var_samp", "percentile_cont", "percentile_disc", "mode", "array_agg", "string_agg", "bool_and",
	"bool_or", "every", "corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count",
	"regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy", "json_agg",
	"jsonb_agg", "json_object_agg", "jsonb_object_agg", "bit_and", "bit_or", "bit_xor", NULL,
};

/* Aggregates whose result lists the rows' own values: a group of 500 patients still hands out each
 * one's value, so they are no aggregate result here (docs/privacy.md). */
static const char *const row_aggs[] = {
	"array_agg", "string_agg", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg", "xmlagg",
	"json_arrayagg", "json_objectagg", NULL,
};

static cJSON *get(const cJSON *o, const char *k)
{
	return o ? cJSON_GetObjectItemCaseSensitive(o, k) : NULL;
}

/* call_name: the last part of a FuncCall's name ("pg_catalog.string_agg" -> "string_agg"), or NULL */
static const char *call_name(const cJSON *fc)
{
	const cJSON *last = NULL, *n;

	cJSON_ArrayForEach(n, get(fc, "funcname"))
		last = n;
	return last ? cJSON_GetStringValue(get(get(last, "String"), "sval")) : NULL;
}

/* row_agg: the name of a row-listing aggregate called anywhere in node (subqueries included), or NULL */
static const char *row_agg(const cJSON *node)
{
	const cJSON *c;
	const char *hit;

	if (!node)
		return NULL;
	if (cJSON_IsObject(node) && get(node, "FuncCall")) {
		const char *name = call_name(get(node, "FuncCall"));

		for (int i = 0; name && row_aggs[i]; i++)
			if (!strcasecmp(name, row_aggs[i]))
				return row_aggs[i];
	}
	if (cJSON_IsObject(node) || cJSON_IsArray(node))
		cJSON_ArrayForEach(c, node)
			if ((hit = row_agg(c)))
				return hit;
	return NULL;
}

/* is_agg_call: a FuncCall node that aggregates (not a window function) */
static int is_agg_call(const cJSON *fc)
{
	const char *name;

	if (get(fc, "over"))
		return 0;
	if (cJSON_IsTrue(get(fc, "agg_star")) || cJSON_IsTrue(get(fc, "agg_distinct")) ||
	    cJSON_IsTrue(get(fc, "agg_within_group")) || get(fc, "agg_filter"))
		return 1;
	name = call_name(fc);
	for (int i = 0; name && aggs[i]; i++)
		if (!strcasecmp(name, aggs[i]))
			return 1;
	return 0;
}

/* has_agg: an aggregate call anywhere in node, not inside a subquery (its own level) */
static int has_agg(const cJSON *node)
{
	const cJSON *c;

	if (!node)
		return 0;
	if (cJSON_IsObject(node)) {
		if (get(node, "SubLink") || get(node, "SelectStmt"))
			return 0;
		if (get(node, "FuncCall") && is_agg_call(get(node, "FuncCall")))
			return 1;
	}
	if (cJSON_IsObject(node) || cJSON_IsArray(node))
		cJSON_ArrayForEach(c, node)
			if (has_agg(c))
				return 1;
	return 0;
}

/* find_key: the first FROM table (RangeVar, through joins) with a patient key; its qualifier
 * (alias or name) and the key into qual / key */
static int find_key(const cJSON *from, const char *const *keys, int nkeys,
                    int (*has_col)(void *, const char *, const char *), void *ctx,
                    char *qual, size_t nq, char *key, size_t nk)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, from) {
		const cJSON *rv = get(it, "RangeVar"), *j = get(it, "JoinExpr");

		if (rv) {
			const char *rel = cJSON_GetStringValue(get(rv, "relname"));
			const char *al = cJSON_GetStringValue(get(get(get(rv, "alias"), "Alias"), "aliasname"));

			if (!al)
				al = cJSON_GetStringValue(get(get(rv, "alias"), "aliasname"));
			for (int k = 0; rel && k < nkeys; k++)
				if (has_col(ctx, rel, keys[k])) {
					snprintf(qual, nq, "%s", al ? al : rel);
					snprintf(key, nk, "%s", keys[k]);
					return 1;
				}
		} else if (j) {
			cJSON *pair = cJSON_CreateArray();
			int found;

			/* the two sides of the join, searched in order (references, not copies) */
			cJSON_AddItemReferenceToArray(pair, get(j, "larg"));
			cJSON_AddItemReferenceToArray(pair, get(j, "rarg"));
			found = find_key(pair, keys, nkeys, has_col, ctx, qual, nq, key, nk);
			cJSON_Delete(pair);
			if (found)
				return 1;
		}
	}
	return 0;
}

/* quote_ident: name in double quotes, inner quotes doubled (heap; NULL on no memory) */
static char *quote_ident(const char *name)
{
	struct sb s = SB_INIT;

	sb_putc(&s, '"');
	for (; *name; name++) {
		if (*name == '"')
			sb_putc(&s, '"');
		sb_putc(&s, *name);
	}
	sb_putc(&s, '"');
	return sb_ok(&s) ? sb_steal(&s) : (sb_free(&s), NULL);
}

/* An edit of the text: at byte pos, drop del bytes and put ins. */
struct edit { int pos, del; char ins[160]; };

static int by_pos_desc(const void *a, const void *b)
{
	return ((const struct edit *)b)->pos - ((const struct edit *)a)->pos;
}

/* positional: an integer constant directly in a GROUP BY / ORDER BY list moves up by one */
static int positional(const cJSON *list, const char *sql, struct edit *e, int ne, int max)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, list) {
		const cJSON *n = get(it, "SortBy") ? get(get(it, "SortBy"), "node") : it;
		const cJSON *ac = get(n, "A_Const"), *iv = get(get(ac, "ival"), "ival");
		int loc = (int)cJSON_GetNumberValue(get(ac, "location")), len = 0;

		if (!ac || !cJSON_IsNumber(iv) || ne >= max || loc < 0)
			continue;
		while (sql[loc + len] >= '0' && sql[loc + len] <= '9')
			len++;
		if (!len)
			continue;
		e[ne].pos = loc;
		e[ne].del = len;
		snprintf(e[ne].ins, sizeof e[ne].ins, "%d", iv->valueint + 1);
		ne++;
	}
	return ne;
}

enum err suppress_rewrite(const char *sql, const char *const *keys, int nkeys,
                          int (*has_col)(void *ctx, const char *table, const char *col), void *ctx,
                          char **out, char *reason, size_t reasonlen)
{
	PgQueryParseResult pr = pg_query_parse(sql);
	cJSON *root = NULL, *stmts, *sel, *first;
	struct edit e[64];
	char qual[128], key[128], *q1, *q2;
	const char *hit;
	int ne = 0, loc;
	enum err rc = ERR_DENIED;
	struct sb s = SB_INIT;

	*out = NULL;
	reason[0] = 0;
	if (pr.error) {
		snprintf(reason, reasonlen, "%s", pr.error->message);
		rc = ERR_PARSE;
		goto out;
	}
	root = cJSON_Parse(pr.parse_tree);
	stmts = get(root, "stmts");
	sel = get(get(cJSON_GetArrayItem(stmts, 0), "stmt"), "SelectStmt");
	if (cJSON_GetArraySize(stmts) != 1 || !sel) {
		snprintf(reason, reasonlen, "only one SELECT may run");
		goto out;
	}
	if (get(sel, "larg") || get(sel, "valuesLists")) {
		snprintf(reason, reasonlen, "only aggregate results may be read: "
		         "a UNION, INTERSECT, EXCEPT or VALUES at the top is not one; aggregate in a single SELECT");
		goto out;
	}
	if ((hit = row_agg(sel))) {
		snprintf(reason, reasonlen, "only aggregate results may be read: %s lists each row's value, "
		         "whatever the size of the group; count or summarise instead", hit);
		goto out;
	}
	if (!get(sel, "groupClause") && !has_agg(get(sel, "targetList"))) {
		snprintf(reason, reasonlen, "only aggregate results may be read: "
		         "count or summarise the rows (count, avg, sum, min, max ...), by groups with GROUP BY, "
		         "instead of listing them");
		goto out;
	}
	if (!find_key(get(sel, "fromClause"), keys, nkeys, has_col, ctx, qual, sizeof qual, key, sizeof key)) {
		snprintf(reason, reasonlen, "a query must read a table with the patient key "
		         "(%s%s) so that groups of few patients can be suppressed", nkeys ? keys[0] : "none configured",
		         nkeys > 1 ? ", ..." : "");
		goto out;
	}
	first = get(cJSON_GetArrayItem(get(sel, "targetList"), 0), "ResTarget");
	loc = first ? (int)cJSON_GetNumberValue(get(first, "location")) : -1;
	if (loc < 0 || (size_t)loc > strlen(sql)) {
		snprintf(reason, reasonlen, "the select list must name what it computes");
		goto out;
	}
	ne = positional(get(sel, "groupClause"), sql, e, ne, 63);
	ne = positional(get(sel, "sortClause"), sql, e, ne, 63);
	q1 = quote_ident(qual);
	q2 = quote_ident(key);
	e[ne].pos = loc;
	e[ne].del = 0;
	if (!q1 || !q2 || snprintf(e[ne].ins, sizeof e[ne].ins, "count(DISTINCT %s.%s) AS " SUPPRESS_COLUMN ", ",
	                           q1, q2) >= (int)sizeof e[ne].ins) {
		free(q1);
		free(q2);
		snprintf(reason, reasonlen, "the patient key's table name is too long");
		goto out;
	}
	free(q1);
	free(q2);
	ne++;
	/* from the end backwards, so earlier positions stay valid */
	qsort(e, (size_t)ne, sizeof e[0], by_pos_desc);
	sb_puts(&s, sql);
	for (int i = 0; i < ne; i++) {
		struct sb t = SB_INIT;

		sb_append(&t, sb_cstr(&s), (size_t)e[i].pos);
		sb_puts(&t, e[i].ins);
		sb_puts(&t, sb_cstr(&s) + e[i].pos + e[i].del);
		sb_free(&s);
		s = t;
	}
	if (!sb_ok(&s)) {
		rc = ERR_NOMEM;
		goto out;
	}
	*out = sb_steal(&s);
	rc = OK;
out:
	sb_free(&s);
	cJSON_Delete(root);
	pg_query_free_parse_result(pr);
	return rc;
}
