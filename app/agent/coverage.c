/* coverage.c: every word accounted for: the SQL's parse tree read for where each column is compared, grouped and aggregated, then held against the question's reading (issue 26; docs/coverage.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cjson/cJSON.h>
#include "agent/coverage.h"
#include "sql/pgtree.h"
#include "util/sb.h"

#define F_WHERE 1u   /* under a WHERE, a JOIN's ON or a HAVING */
#define F_AGG 2u     /* inside an aggregate's arguments or its FILTER */
#define F_OUT 4u     /* in a SELECT's target list, outside a window's OVER: an output */

#define NAMELEN 64
#define LITLEN 160
#define MAXREF 256
#define MAXCMP 128
#define MAXLIT 96
#define MAXGRP 24

/* What the statement does with its columns and literals. */
struct facts {
	struct { char col[NAMELEN]; unsigned flags; } ref[MAXREF];
	int nref;
	struct { char col[NAMELEN]; char lit[LITLEN]; unsigned flags; } cmp[MAXCMP];
	int ncmp;
	char lit[MAXLIT][LITLEN];      /* every literal, as text */
	int nlit;
	char group[MAXGRP][NAMELEN];   /* columns under any GROUP BY (bands included) */
	int ngroup;
	char top_group[MAXGRP][NAMELEN];  /* ... under the outermost SELECT's GROUP BY */
	int ntop_group;
	char shown[MAXGRP * 2][NAMELEN];  /* columns of the outermost target list and ORDER BY */
	int nshown;
	int aggregates;                /* any aggregate call */
	int time_grouped;              /* a GROUP BY buckets a time (date_trunc, date_part, ...) */
	int measures;                  /* aggregate calls that are outputs of some SELECT (not inside a
	                                * window's OVER, nor inside another aggregate) */
	char table[MAXGRP][NAMELEN];   /* tables read (FROM, JOIN, subqueries) */
	int ntable;
	char paired[MAXGRP][NAMELEN];  /* columns compared with another column (l.dt < c.opstart) */
	int npaired;
	int share;                     /* a division or an average anywhere: a share may be computed */
	char count_one[NAMELEN];       /* a column counted DISTINCT in a SELECT that groups by it: every
	                                * count is 1 ("" none) */
	int ordered;                   /* an ORDER BY or a window function somewhere */
	int agg_selects;               /* SELECTs that output an aggregate (two: an extreme of a grouped
	                                * subquery's aggregates) */
};

static const char *const agg_names[] = {
	"count", "sum", "avg", "min", "max", "bool_and", "bool_or", "every", "stddev", "stddev_pop", "stddev_samp",
	"variance", "var_pop", "var_samp", "percentile_cont", "percentile_disc", "mode", "array_agg", "string_agg",
	"json_agg", "jsonb_agg", "median", NULL};

static int is_agg(const char *name)
{
	for (int i = 0; agg_names[i]; i++)
		if (!strcasecmp(agg_names[i], name))
			return 1;
	return 0;
}

/* gather: the column names and literals of a subtree, not entering subqueries */
struct bag { const char *col[16]; int ncol; char lit[16][LITLEN]; int nlit; };

static void gather(const cJSON *n, struct bag *b)
{
	const char *type;
	const cJSON *bd = pgt_body(n, &type), *e;
	if (bd && !strcmp(type, "SelectStmt"))
		return;
	if (bd && !strcmp(type, "ColumnRef")) {
		const char *c = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(bd, "fields"));
		if (c && b->ncol < 16)
			b->col[b->ncol++] = c;
		return;
	}
	if (bd && !strcmp(type, "A_Const")) {
		if (b->nlit < 16 && pgt_const_text(bd, b->lit[b->nlit], LITLEN))
			b->nlit++;
		return;
	}
	if (cJSON_IsArray(n) || cJSON_IsObject(n))
		cJSON_ArrayForEach(e, n)
			gather(e, b);
}

static void add_ref(struct facts *f, const char *col, unsigned flags)
{
	if (f->nref < MAXREF) {
		snprintf(f->ref[f->nref].col, NAMELEN, "%s", col);
		f->ref[f->nref++].flags = flags & (F_WHERE | F_AGG);
	}
}

static void add_name(char (*list)[NAMELEN], int *n, int max, const char *col)
{
	for (int i = 0; i < *n; i++)
		if (!strcasecmp(list[i], col))
			return;
	if (*n < max)
		snprintf(list[(*n)++], NAMELEN, "%s", col);
}

/* comparison: an expression's columns on one side paired with the literals on the other */
static void comparison(const cJSON *e, unsigned flags, struct facts *f)
{
	struct bag l = {0}, r = {0};
	gather(cJSON_GetObjectItemCaseSensitive(e, "lexpr"), &l);
	gather(cJSON_GetObjectItemCaseSensitive(e, "rexpr"), &r);
	for (int side = 0; l.ncol && r.ncol && side < 2; side++)
		for (int i = 0; i < (side ? r.ncol : l.ncol); i++)
			add_name(f->paired, &f->npaired, MAXGRP, side ? r.col[i] : l.col[i]);
	for (int side = 0; side < 2; side++) {
		const struct bag *c = side ? &r : &l, *v = side ? &l : &r;
		for (int i = 0; i < c->ncol; i++)
			for (int k = 0; k < v->nlit && f->ncmp < MAXCMP; k++) {
				snprintf(f->cmp[f->ncmp].col, NAMELEN, "%s", c->col[i]);
				snprintf(f->cmp[f->ncmp].lit, LITLEN, "%s", v->lit[k]);
				f->cmp[f->ncmp++].flags = flags & (F_WHERE | F_AGG);
			}
	}
}

static void walk(const cJSON *n, unsigned flags, struct facts *f, int top);

/* time_func: the expression buckets a time (date_trunc, date_part, extract, to_char, date_bin, a
 * cast to date), not entering subqueries */
static int time_func(const cJSON *n)
{
	const char *type;
	const cJSON *bd, *e;
	if (!n)
		return 0;
	if (cJSON_IsArray(n)) {
		cJSON_ArrayForEach(e, n)
			if (time_func(e))
				return 1;
		return 0;
	}
	if (!cJSON_IsObject(n))
		return 0;
	if (!(bd = pgt_body(n, &type))) {
		cJSON_ArrayForEach(e, n)
			if (time_func(e))
				return 1;
		return 0;
	}
	if (!strcmp(type, "SelectStmt"))
		return 0;
	if (!strcmp(type, "FuncCall")) {
		static const char *const fn[] = {"date_trunc", "date_part", "extract", "to_char", "date_bin", "date", NULL};
		const char *name = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(bd, "funcname"));
		for (int i = 0; name && fn[i]; i++)
			if (!strcasecmp(name, fn[i]))
				return 1;
	}
	if (!strcmp(type, "TypeCast")) {
		const cJSON *tn = cJSON_GetObjectItemCaseSensitive(bd, "typeName");
		const cJSON *tb = tn ? pgt_body(tn, &type) : NULL;
		const char *t = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(tb ? tb : tn, "names"));
		if (t && !strcasecmp(t, "date"))
			return 1;
	}
	cJSON_ArrayForEach(e, bd)
		if (time_func(e))
			return 1;
	return 0;
}

/* group_item: the columns one GROUP BY item stands for (a position or an output name resolved
 * through the target list) */
static void group_item(const cJSON *g, const cJSON *targets, struct facts *f, int top)
{
	const char *type;
	const cJSON *bd = pgt_body(g, &type);
	const cJSON *use = g;
	if (bd && !strcmp(type, "A_Const")) {
		char t[32];
		if (pgt_const_text(bd, t, sizeof t)) {
			int pos = atoi(t);
			const cJSON *rt = cJSON_GetArrayItem(targets, pos - 1);
			const cJSON *rb = rt ? pgt_body(rt, &type) : NULL;
			if (rb)
				use = cJSON_GetObjectItemCaseSensitive(rb, "val");
		}
	} else if (bd && !strcmp(type, "ColumnRef")) {
		const cJSON *fields = cJSON_GetObjectItemCaseSensitive(bd, "fields");
		const char *c = pgt_last_sval(fields);
		const cJSON *rt;
		if (c && cJSON_GetArraySize(fields) == 1)
			cJSON_ArrayForEach(rt, targets) {
				const cJSON *rb = pgt_body(rt, &type);
				const cJSON *nm = rb ? cJSON_GetObjectItemCaseSensitive(rb, "name") : NULL;
				if (cJSON_IsString(nm) && !strcasecmp(nm->valuestring, c)) {
					use = cJSON_GetObjectItemCaseSensitive(rb, "val");
					add_name(f->group, &f->ngroup, MAXGRP, c);
				}
			}
	}
	struct bag b = {0};
	f->time_grouped |= time_func(use);
	gather(use, &b);
	for (int i = 0; i < b.ncol; i++) {
		add_name(f->group, &f->ngroup, MAXGRP, b.col[i]);
		if (top)
			add_name(f->top_group, &f->ntop_group, MAXGRP, b.col[i]);
	}
}

/* colref_text: "t.c" or "c" of a ColumnRef node, 0 when n is none */
static int colref_text(const cJSON *n, char *out, size_t len)
{
	const char *type;
	const cJSON *bd = n ? pgt_body(n, &type) : NULL, *fl;
	size_t k = 0;
	if (!bd || strcmp(type, "ColumnRef"))
		return 0;
	out[0] = 0;
	cJSON_ArrayForEach(fl, cJSON_GetObjectItemCaseSensitive(bd, "fields")) {
		const char *t2;
		const cJSON *sv = pgt_body(fl, &t2), *v = sv ? cJSON_GetObjectItemCaseSensitive(sv, "sval") : NULL;
		if (!cJSON_IsString(v))
			return 0;   /* t.* */
		k += (size_t)snprintf(out + k, k < len ? len - k : 0, "%s%s", k ? "." : "", v->valuestring);
	}
	return k > 0 && k < len;
}

/* counted_distinct: in expression n (not entering subqueries), a count(DISTINCT col) whose col is
 * one of the group texts g: that col into f->count_one */
static void counted_distinct(const cJSON *n, char (*g)[NAMELEN], int ng, struct facts *f)
{
	const char *type;
	const cJSON *bd, *e;
	if (!n || f->count_one[0])
		return;
	if (cJSON_IsArray(n)) {
		cJSON_ArrayForEach(e, n)
			counted_distinct(e, g, ng, f);
		return;
	}
	if (!cJSON_IsObject(n))
		return;
	if (!(bd = pgt_body(n, &type))) {
		cJSON_ArrayForEach(e, n)
			counted_distinct(e, g, ng, f);
		return;
	}
	if (!strcmp(type, "SelectStmt") || !strcmp(type, "SubLink"))
		return;
	if (!strcmp(type, "FuncCall")) {
		const char *fn = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(bd, "funcname"));
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(bd, "args");
		char c[NAMELEN];
		if (fn && !strcasecmp(fn, "count") && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(bd, "agg_distinct")) &&
		    cJSON_GetArraySize(args) == 1 && colref_text(args->child, c, sizeof c))
			for (int i = 0; i < ng; i++)
				if (!strcasecmp(g[i], c)) {
					snprintf(f->count_one, NAMELEN, "%s", c);
					return;
				}
	}
	cJSON_ArrayForEach(e, bd)
		counted_distinct(e, g, ng, f);
}

static void walk_select(const cJSON *s, struct facts *f, int top)
{
	if (!s)
		return;
	const cJSON *targets = cJSON_GetObjectItemCaseSensitive(s, "targetList"), *g;
	const cJSON *larg = cJSON_GetObjectItemCaseSensitive(s, "larg");
	if (larg) {   /* a set operation: each arm (a SelectStmt's body itself) a statement of its own */
		walk_select(larg, f, top);
		walk_select(cJSON_GetObjectItemCaseSensitive(s, "rarg"), f, 0);
	}
	int before = f->measures;
	walk(targets, F_OUT, f, 0);
	f->agg_selects += f->measures > before;
	f->ordered |= cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(s, "sortClause")) > 0;
	walk(cJSON_GetObjectItemCaseSensitive(s, "fromClause"), 0, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "whereClause"), F_WHERE, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "havingClause"), F_WHERE, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "withClause"), 0, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "sortClause"), 0, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "limitCount"), 0, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "limitOffset"), 0, f, 0);
	walk(cJSON_GetObjectItemCaseSensitive(s, "distinctClause"), 0, f, 0);
	char gt[MAXGRP][NAMELEN];
	int ngt = 0;
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(s, "groupClause")) {
		group_item(g, targets, f, top);
		walk(g, 0, f, 0);
		if (ngt < MAXGRP && colref_text(g, gt[ngt], NAMELEN))
			ngt++;
	}
	counted_distinct(targets, gt, ngt, f);
	if (top) {
		struct bag b = {0};
		gather(targets, &b);
		gather(cJSON_GetObjectItemCaseSensitive(s, "sortClause"), &b);
		for (int i = 0; i < b.ncol; i++)
			add_name(f->shown, &f->nshown, MAXGRP * 2, b.col[i]);
	}
}

static void walk(const cJSON *n, unsigned flags, struct facts *f, int top)
{
	const char *type;
	const cJSON *bd, *e;
	if (!n)
		return;
	if (cJSON_IsArray(n)) {
		cJSON_ArrayForEach(e, n)
			walk(e, flags, f, 0);
		return;
	}
	if (!cJSON_IsObject(n))
		return;
	if (!(bd = pgt_body(n, &type))) {
		cJSON_ArrayForEach(e, n)
			walk(e, flags, f, 0);
		return;
	}
	if (!strcmp(type, "SelectStmt")) {
		walk_select(bd, f, top);
		return;
	}
	if (!strcmp(type, "ColumnRef")) {
		const char *c = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(bd, "fields"));
		if (c)
			add_ref(f, c, flags);
		return;
	}
	if (!strcmp(type, "A_Const")) {
		if (f->nlit < MAXLIT && pgt_const_text(bd, f->lit[f->nlit], LITLEN))
			f->nlit++;
		return;
	}
	if (!strcmp(type, "FuncCall")) {
		const char *fn = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(bd, "funcname"));
		unsigned inner = flags;
		if (fn && is_agg(fn) && !cJSON_GetObjectItemCaseSensitive(bd, "over")) {
			f->measures += (flags & (F_OUT | F_AGG)) == F_OUT;
			inner |= F_AGG;
			f->aggregates = 1;
		}
		if (cJSON_GetObjectItemCaseSensitive(bd, "over")) {
			inner &= ~F_OUT;   /* (RANK() OVER (ORDER BY COUNT(*)): the count is an order, not an output) */
			f->ordered = 1;
		}
		if (fn && !strcasecmp(fn, "avg"))
			f->share = 1;
		cJSON_ArrayForEach(e, bd)
			walk(e, inner, f, 0);
		return;
	}
	if (!strcmp(type, "RangeVar")) {
		const cJSON *rel = cJSON_GetObjectItemCaseSensitive(bd, "relname");
		if (cJSON_IsString(rel))
			add_name(f->table, &f->ntable, MAXGRP, rel->valuestring);
		return;
	}
	if (!strcmp(type, "A_Expr")) {
		comparison(bd, flags, f);
		if (!strcmp(pgt_last_sval(cJSON_GetObjectItemCaseSensitive(bd, "name")) ?: "", "/"))
			f->share = 1;
	}
	if (!strcmp(type, "JoinExpr")) {
		walk(cJSON_GetObjectItemCaseSensitive(bd, "larg"), flags, f, 0);
		walk(cJSON_GetObjectItemCaseSensitive(bd, "rarg"), flags, f, 0);
		walk(cJSON_GetObjectItemCaseSensitive(bd, "quals"), flags | F_WHERE, f, 0);
		return;
	}
	cJSON_ArrayForEach(e, bd)
		walk(e, flags, f, 0);
}

/* ---- the checks ---- */

static int col_in(const struct cov_item *it, const char *col)
{
	for (int i = 0; i < it->ncolumns; i++)
		if (it->columns[i] && !strcasecmp(it->columns[i], col))
			return 1;
	return 0;
}

static int lit_matches(const struct cov_item *it, const char *lit)
{
	for (int i = 0; i < it->nvalues; i++) {
		if (!it->values[i])
			continue;
		if (!strcasecmp(it->values[i], lit) || (it->contains && strcasestr(lit, it->values[i])))
			return 1;
	}
	return 0;
}

/* uses: how often the statement compares (or, for an item without values, refers to) the item's
 * column with flags set in `want`: want 0 counts every use */
static int uses(const struct facts *f, const struct cov_item *it, unsigned want, int exact_flags)
{
	int n = 0;
	if (it->nvalues) {
		for (int i = 0; i < f->ncmp; i++)
			if (col_in(it, f->cmp[i].col) && lit_matches(it, f->cmp[i].lit) &&
			    (!want || (exact_flags ? f->cmp[i].flags == want : (f->cmp[i].flags & want))))
				n++;
	} else {
		for (int i = 0; i < f->nref; i++)
			if (col_in(it, f->ref[i].col) && (!want || (exact_flags ? f->ref[i].flags == want : (f->ref[i].flags & want))))
				n++;
	}
	return n;
}

static int in_names(const char (*list)[NAMELEN], int n, const struct cov_item *it)
{
	for (int i = 0; i < n; i++)
		if (col_in(it, list[i]))
			return 1;
	return 0;
}

/* lit_is_number: the literal is the number num written out ("30", "30.0") */
static int lit_is_number(const char *lit, double num)
{
	char *end;
	double v = strtod(lit, &end);
	return end != lit && !*end && fabs(v - num) <= 1e-9 * (fabs(num) + 1);
}

/* number_used: a literal of that value, or a string literal that writes it ("interval '3 days'") */
static int number_used(const struct facts *f, double num)
{
	char txt[64];
	snprintf(txt, sizeof txt, "%g", num);
	for (int i = 0; i < f->nlit; i++) {
		if (lit_is_number(f->lit[i], num))
			return 1;
		/* a number of the question written inside a text literal: a date, an interval */
		const char *hit = strstr(f->lit[i], txt);
		size_t tl = strlen(txt);
		if (hit && (hit == f->lit[i] || !(hit[-1] >= '0' && hit[-1] <= '9')) && !(hit[tl] >= '0' && hit[tl] <= '9'))
			return 1;
	}
	return 0;
}

/* number_compared: the number is compared with one of the item's columns ("bmi > 30", "30 <= bmi",
 * "bmi BETWEEN 30 AND 40") */
static int number_compared(const struct facts *f, const struct cov_item *it)
{
	for (int i = 0; i < f->ncmp; i++)
		if (col_in(it, f->cmp[i].col) && lit_is_number(f->cmp[i].lit, it->num))
			return 1;
	return 0;
}

/* table_read: the statement reads table (NULL: no) */
static int table_read(const struct facts *f, const char *table)
{
	for (int k = 0; table && k < f->ntable; k++)
		if (!strcasecmp(f->table[k], table))
			return 1;
	return 0;
}

static int add_finding(struct cov_finding *out, int max, int *n, enum cov_drop d, int item, const char *col)
{
	if (*n < max)
		out[(*n)++] = (struct cov_finding){.drop = d, .item = item, .column = col};
	return 1;
}

enum err coverage_check(const struct cov_reading *r, const char *sql, struct cov_finding *out, int max, int *nfound)
{
	if (!r || !sql || !out || !nfound)
		return ERR_INPUT;
	*nfound = 0;
	const cJSON *stmt;
	cJSON *root = pgt_parse_one(sql, &stmt);
	if (!root)
		return ERR_PARSE;
	const cJSON *stmts = cJSON_GetObjectItemCaseSensitive(root, "stmts");
	struct facts *f = calloc(1, sizeof *f);
	if (!f) {
		cJSON_Delete(root);
		return ERR_NOMEM;
	}
	walk(cJSON_GetObjectItemCaseSensitive(stmts->child, "stmt"), 0, f, 1);

	for (int i = 0; i < r->n; i++) {
		const struct cov_item *it = &r->v[i];
		switch (it->need) {
		case COV_VALUE:
			if (!uses(f, it, 0, 0) && !table_read(f, it->table)) {
				/* two values of one column and that column grouped: both are shown, each its group */
				int sibling = 0;
				for (int k = 0; k < r->n; k++)
					if (k != i && r->v[k].need == COV_VALUE && r->v[k].ncolumns && col_in(it, r->v[k].columns[0]))
						sibling = 1;
				/* ... or shown ("recorded as male or female?": the column is the answer) */
				if (!(sibling && (in_names((const char (*)[NAMELEN])f->group, f->ngroup, it) ||
				                  in_names((const char (*)[NAMELEN])f->shown, f->nshown, it))))
					add_finding(out, max, nfound, DROP_VALUE, i, NULL);
			}
			break;
		case COV_COLUMN:
			if (!uses(f, it, 0, 0) && !table_read(f, it->table))
				add_finding(out, max, nfound, DROP_COLUMN, i, NULL);
			break;
		case COV_GROUP:
			if (!in_names((const char (*)[NAMELEN])f->group, f->ngroup, it) &&
			    !(!f->aggregates && in_names((const char (*)[NAMELEN])f->shown, f->nshown, it)))
				add_finding(out, max, nfound, DROP_GROUP, i, NULL);
			break;
		case COV_NUMBER:
			if (!number_used(f, it->num))
				add_finding(out, max, nfound, DROP_NUMBER, i, NULL);
			else if (it->ncolumns && !number_compared(f, it))
				add_finding(out, max, nfound, DROP_NUMBER_COLUMN, i, NULL);
			break;
		case COV_RATE_BASE: {
			int w = uses(f, it, F_WHERE, 0), a = uses(f, it, F_AGG, 0);
			if (!w && !a)
				add_finding(out, max, nfound, DROP_VALUE, i, NULL);
			else if (!w)
				add_finding(out, max, nfound, DROP_DENOMINATOR, i, NULL);
			break;
		}
		case COV_WINDOW:
			if (!in_names((const char (*)[NAMELEN])f->paired, f->npaired, it))
				add_finding(out, max, nfound, DROP_WINDOW, i, NULL);
			break;
		case COV_SHARE:
			if (!f->share)
				add_finding(out, max, nfound, DROP_SHARE, i, NULL);
			break;
		case COV_BUCKET:
			if (f->aggregates && !f->time_grouped)
				add_finding(out, max, nfound, DROP_BUCKET, i, NULL);
			break;
		case COV_RANK:
			if (!f->ordered && f->agg_selects < 2)
				add_finding(out, max, nfound, DROP_RANK, i, NULL);
			break;
		case COV_MEASURES:
			if (f->measures < (int)it->num && *nfound < max) {
				add_finding(out, max, nfound, DROP_MEASURES, i, NULL);
				out[*nfound - 1].computed = f->measures;
			}
			break;
		case COV_RATE_PART: {
			int w = uses(f, it, F_WHERE, 0), a = uses(f, it, F_AGG, 0), wb = -1;
			for (int k = 0; k < r->n; k++)
				if (r->v[k].need == COV_RATE_BASE) {
					int x = uses(f, &r->v[k], F_WHERE, 0);
					wb = wb < 0 || x < wb ? x : wb;
				}
			if (!w && !a)
				add_finding(out, max, nfound, DROP_VALUE, i, NULL);
			else if (!a && f->share && wb < 0) {
				/* no base named, and the part only filters: the share is of something else */
				int dup = 0;
				for (int k = 0; k < *nfound; k++)
					dup |= out[k].drop == DROP_DENOMINATOR;
				if (!dup)
					add_finding(out, max, nfound, DROP_DENOMINATOR, i, NULL);
			} else if (!a && wb >= 0 && w >= wb) {
				/* the part filters every row the base does: the share is of B, not of A */
				int dup = 0;
				for (int k = 0; k < *nfound; k++)
					dup |= out[k].drop == DROP_DENOMINATOR;
				if (!dup)
					add_finding(out, max, nfound, DROP_DENOMINATOR, i, NULL);
			}
			break;
		}
		}
	}
	/* a share of what is already filtered ("mortality rate ... WHERE death = 1"): 100% or 0% by
	 * construction, whatever the question's words */
	for (int i = 0; i < f->ncmp; i++)
		for (int k = 0; (f->cmp[i].flags & F_AGG) && k < f->ncmp; k++)
			if (f->cmp[k].flags == F_WHERE && !strcasecmp(f->cmp[k].col, f->cmp[i].col) &&
			    !strcmp(f->cmp[k].lit, f->cmp[i].lit)) {
				int dup = 0;
				for (int x = 0; x < *nfound; x++)
					dup |= out[x].drop == DROP_DENOMINATOR;
				if (!dup)
					add_finding(out, max, nfound, DROP_DENOMINATOR, -1, f->cmp[i].col);
			}
	if (f->count_one[0] && *nfound < max) {
		add_finding(out, max, nfound, DROP_COUNT_ONE, -1, NULL);
		snprintf(out[*nfound - 1].counted, sizeof out[*nfound - 1].counted, "%s", f->count_one);
	}
	if (!r->entity_grouping_asked && f->aggregates)
		for (int k = 0; k < r->nkeys; k++)
			for (int g = 0; g < f->ntop_group; g++)
				if (r->entity_keys[k] && !strcasecmp(r->entity_keys[k], f->top_group[g]))
					add_finding(out, max, nfound, DROP_ENTITY_GROUPED, -1, r->entity_keys[k]);
	free(f);
	cJSON_Delete(root);
	return OK;
}

const char *coverage_drop_name(enum cov_drop d)
{
	switch (d) {
	case DROP_NONE: return "none";
	case DROP_VALUE: return "value";
	case DROP_COLUMN: return "column";
	case DROP_GROUP: return "group";
	case DROP_NUMBER: return "number";
	case DROP_DENOMINATOR: return "denominator";
	case DROP_ENTITY_GROUPED: return "identifier_grouped";
	case DROP_WINDOW: return "window";
	case DROP_SHARE: return "share";
	case DROP_COUNT_ONE: return "count_of_one";
	case DROP_MEASURES: return "measures";
	case DROP_NUMBER_COLUMN: return "number_column";
	case DROP_BUCKET: return "time_bucket";
	case DROP_RANK: return "rank";
	}
	return "?";
}

char *coverage_say(const struct cov_reading *r, const struct cov_finding *f, int n)
{
	struct sb sb = SB_INIT;
	for (int i = 0; i < n; i++) {
		const struct cov_item *it = f[i].item >= 0 && f[i].item < r->n ? &r->v[f[i].item] : NULL;
		const char *w = it && it->span ? it->span : "";
		const char *c = it && it->ncolumns ? it->columns[0] : f[i].column ? f[i].column : it && it->table ? it->table : "";
		if (i)
			sb_puts(&sb, "; ");
		switch (f[i].drop) {
		case DROP_VALUE:
			sb_printf(&sb, "the SQL does not filter on '%s' (%s = '%s')", w, c, it && it->nvalues ? it->values[0] : "?");
			break;
		case DROP_COLUMN:
			sb_printf(&sb, "the SQL does not use '%s' (%s)", w, c);
			break;
		case DROP_GROUP:
			sb_printf(&sb, "the SQL does not group by '%s' (%s)", w, c);
			break;
		case DROP_NUMBER:
			sb_printf(&sb, "the SQL does not use the number '%s'", w);
			break;
		case DROP_DENOMINATOR:
			sb_printf(&sb, "the rate's denominator is wrong: '%s' must be the group the share is of (in WHERE), "
			               "and the other condition the part counted", w);
			break;
		case DROP_ENTITY_GROUPED:
			sb_printf(&sb, "the SQL groups by the identifier %s, which the question does not ask per", c);
			break;
		case DROP_WINDOW:
			sb_printf(&sb, "the SQL does not keep to '%s': compare the measured row's time with %s", w, c);
			break;
		case DROP_SHARE:
			sb_printf(&sb, "the question asks for a share ('%s'): the SQL must divide the part by its whole "
			               "(or average a condition), not only count", w);
			break;
		case DROP_COUNT_ONE:
			sb_printf(&sb, "the SQL counts distinct %s per %s: every count is 1; count the rows asked about",
			          f[i].counted, f[i].counted);
			break;
		case DROP_BUCKET:
			sb_printf(&sb, "the question asks per '%s', and the SQL groups by no period of time (date_trunc)", w);
			break;
		case DROP_NUMBER_COLUMN:
			sb_printf(&sb, "the question compares %s with the number '%s', and the SQL compares another column with it", c, w);
			break;
		case DROP_MEASURES:
			sb_printf(&sb, "the question asks for %d measures ('%s'), and the SQL computes %d: compute each one as "
			               "its own output column (a count of all rows and a count with a FILTER, for example)",
			          it ? (int)it->num : 2, w, f[i].computed);
			break;
		case DROP_RANK:
			sb_printf(&sb, "the question asks which has the highest or lowest aggregate ('%s'): the SQL must rank the "
			               "groups by it (GROUP BY the thing ranked, ORDER BY the aggregate), not aggregate all rows", w);
			break;
		case DROP_NONE:
			break;
		}
	}
	return sb_ok(&sb) ? sb_steal(&sb) : (sb_free(&sb), NULL);
}

void coverage_reading_free(struct cov_reading *r)
{
	if (!r)
		return;
	arena_free(&r->a);
	free(r);
}
