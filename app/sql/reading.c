/* reading.c: what a SQL statement computes, read off its parse tree (sql/reading.h; docs/coverage.md, "The reading said back"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "sql/pgtree.h"
#include "sql/reading.h"

static const char *const aggs[] = {"count", "avg", "sum", "min", "max", "percentile_cont", "percentile_disc",
                                   "stddev", "stddev_samp", "variance", "mode", NULL};

static int agg_name(const char *fn)
{
	for (int i = 0; fn && aggs[i]; i++)
		if (!strcasecmp(fn, aggs[i]))
			return 1;
	return 0;
}

/* unwrap: a TypeCast's argument (age::int, CAST(x AS numeric)), repeatedly */
static const cJSON *unwrap(const cJSON *n)
{
	const char *type;
	const cJSON *b;
	while ((b = pgt_body(n, &type)) && !strcmp(type, "TypeCast"))
		n = cJSON_GetObjectItemCaseSensitive(b, "arg");
	return n;
}

/* column_of: the column name a (cast) column reference names, or NULL */
static const char *column_of(const cJSON *n)
{
	const char *type;
	const cJSON *b = pgt_body(unwrap(n), &type);
	return b && !strcmp(type, "ColumnRef") ? pgt_last_sval(cJSON_GetObjectItemCaseSensitive(b, "fields")) : NULL;
}

/* literal_of: a (cast) constant's text into out: 'F', 65, TIMESTAMP '2025-01-01'; 0 when n is none */
static int literal_of(const cJSON *n, char *out, size_t cap)
{
	const char *type;
	const cJSON *b = pgt_body(unwrap(n), &type);
	return b && !strcmp(type, "A_Const") && pgt_const_text(b, out, cap);
}

/* flip: the operator read with its sides swapped (5 < x is x > 5) */
static const char *flip(const char *op)
{
	return !strcmp(op, "<") ? ">" : !strcmp(op, ">") ? "<" : !strcmp(op, "<=") ? ">=" : !strcmp(op, ">=") ? "<=" : op;
}

/* list_text: the constants of a List node joined by ", "; 0 when one is no constant */
static int list_text(const cJSON *n, char *out, size_t cap)
{
	const char *type;
	const cJSON *b = pgt_body(n, &type), *e;
	size_t len = 0;
	out[0] = 0;
	if (!b || strcmp(type, "List"))
		return 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "items")) {
		char v[RD_VAL];
		if (!literal_of(e, v, sizeof v))
			return 0;
		len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", len ? ", " : "", v);
	}
	return len > 0;
}

/* condition: one A_Expr / NullTest read as column op value into c; 0 when it is another shape */
static int condition(const cJSON *n, struct rd_cond *c)
{
	const char *type;
	const cJSON *b = pgt_body(n, &type);
	memset(c, 0, sizeof *c);
	if (!b)
		return 0;
	if (!strcmp(type, "NullTest")) {
		const char *col = column_of(cJSON_GetObjectItemCaseSensitive(b, "arg"));
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "nulltesttype");
		if (!col)
			return 0;
		snprintf(c->col, sizeof c->col, "%s", col);
		snprintf(c->op, sizeof c->op, "%s", cJSON_IsString(t) && !strcmp(t->valuestring, "IS_NOT_NULL") ? "is not null" : "is null");
		return 1;
	}
	if (strcmp(type, "A_Expr"))
		return 0;
	const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "kind"));
	const char *op = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(b, "name"));
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(b, "lexpr"), *r = cJSON_GetObjectItemCaseSensitive(b, "rexpr");
	const char *col = column_of(l);
	int swapped = 0;
	if (!col && (col = column_of(r))) {
		const cJSON *t = l;
		l = r, r = t, swapped = 1;
	}
	if (!col || !kind || !op)
		return 0;
	snprintf(c->col, sizeof c->col, "%s", col);
	if (!strcmp(kind, "AEXPR_OP")) {
		if (!literal_of(r, c->val, sizeof c->val))
			return 0;
		snprintf(c->op, sizeof c->op, "%s", swapped ? flip(op) : op);
		return 1;
	}
	if (!strcmp(kind, "AEXPR_IN")) {
		snprintf(c->op, sizeof c->op, "%s", !strcmp(op, "<>") ? "not in" : "in");
		return list_text(r, c->val, sizeof c->val);
	}
	if (!strcmp(kind, "AEXPR_LIKE") || !strcmp(kind, "AEXPR_ILIKE")) {
		snprintf(c->op, sizeof c->op, "%s", !strcmp(kind, "AEXPR_LIKE") ? "like" : "ilike");
		return literal_of(r, c->val, sizeof c->val);
	}
	if (!strcmp(kind, "AEXPR_BETWEEN")) {
		char lo[RD_VAL / 2 - 4], hi[RD_VAL / 2 - 4];
		const cJSON *items = cJSON_GetObjectItemCaseSensitive(pgt_body(r, &type), "items");
		if (cJSON_GetArraySize(items) != 2 || !literal_of(cJSON_GetArrayItem(items, 0), lo, sizeof lo) ||
		    !literal_of(cJSON_GetArrayItem(items, 1), hi, sizeof hi))
			return 0;
		snprintf(c->op, sizeof c->op, "between");
		snprintf(c->val, sizeof c->val, "%s and %s", lo, hi);
		return 1;
	}
	return 0;
}

static void add_filter(struct sql_reading *o, const struct rd_cond *c)
{
	for (int i = 0; i < o->nfilter; i++)
		if (!strcmp(o->filter[i].col, c->col) && !strcmp(o->filter[i].op, c->op) && !strcmp(o->filter[i].val, c->val))
			return;   /* the same condition in another arm of a UNION */
	if (o->nfilter < RD_MAXF)
		o->filter[o->nfilter++] = *c;
}

/* where: the WHERE's AND-ed conditions into o->filter; an unreadable one clears o->complete.
 * "x IS NOT NULL" is the plumbing of a timeline, not the analyst's condition: left out */
static void where(const cJSON *n, struct sql_reading *o)
{
	const char *type;
	const cJSON *b = pgt_body(n, &type), *e;
	struct rd_cond c;
	if (!b)
		return;
	if (!strcmp(type, "BoolExpr")) {
		const char *bo = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "boolop"));
		if (bo && !strcmp(bo, "AND_EXPR")) {
			cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "args"))
				where(e, o);
			return;
		}
	}
	if (condition(n, &c)) {
		if (strcmp(c.op, "is not null"))
			add_filter(o, &c);
		return;
	}
	/* a join condition written in the WHERE (a.k = b.k) says nothing to the analyst */
	if (!strcmp(type, "A_Expr") && column_of(cJSON_GetObjectItemCaseSensitive(b, "lexpr")) &&
	    column_of(cJSON_GetObjectItemCaseSensitive(b, "rexpr")))
		return;
	o->complete = 0;
}

/* numerator: the condition(s) a share counts: AVG(CAST(cond AS int)), count(*) FILTER (WHERE cond) */
static void numerator(const cJSON *n, struct sql_reading *o)
{
	const char *type;
	const cJSON *b = pgt_body(unwrap(n), &type), *e;
	struct rd_cond c;
	if (!b)
		return;
	if (!strcmp(type, "BoolExpr")) {
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "args"))
			numerator(e, o);
		return;
	}
	if (condition(unwrap(n), &c) && o->nnum < 4)
		o->num[o->nnum++] = c;
}

static const cJSON *find_agg(const cJSON *n);

/* pivot: two or more select items that are each an aggregate with a FILTER of one equality on
 * the same column: one output column per value, read as such and not as a share */
static void pivot(const cJSON *targets, struct sql_reading *o)
{
	const cJSON *e;
	int n = 0;
	char col[RD_NAME] = "", vals[4][RD_VAL] = {{0}};
	cJSON_ArrayForEach(e, targets) {
		const char *type;
		const cJSON *rt = pgt_body(e, &type);
		const cJSON *v = rt ? cJSON_GetObjectItemCaseSensitive(rt, "val") : NULL;
		const cJSON *a = v ? find_agg(v) : NULL;
		const cJSON *f = a ? cJSON_GetObjectItemCaseSensitive(a, "agg_filter") : NULL;
		if (!f)
			continue;
		struct sql_reading one;
		memset(&one, 0, sizeof one);
		numerator(f, &one);
		if (one.nnum != 1 || strcmp(one.num[0].op, "=") || (col[0] && strcmp(col, one.num[0].col)) || n >= 4)
			return;
		snprintf(col, sizeof col, "%s", one.num[0].col);
		snprintf(vals[n++], RD_VAL, "%s", one.num[0].val);
	}
	if (n < 2)
		return;
	snprintf(o->pivot_col, sizeof o->pivot_col, "%s", col);
	memcpy(o->pivot_val, vals, sizeof o->pivot_val);
	o->npivot = n;
	o->rate = 0;
	o->nnum = 0;
}

/* find_agg: the first aggregate call in a select-list expression (not inside a subquery) */
static const cJSON *find_agg(const cJSON *n)
{
	const char *type;
	const cJSON *b = pgt_body(n, &type), *e, *hit;
	if (b && !strcmp(type, "SelectStmt"))
		return NULL;
	if (b && !strcmp(type, "FuncCall") && agg_name(pgt_last_sval(cJSON_GetObjectItemCaseSensitive(b, "funcname"))))
		return b;
	if (cJSON_IsArray(n) || cJSON_IsObject(n))
		cJSON_ArrayForEach(e, n)
			if ((hit = find_agg(e)))
				return hit;
	return NULL;
}

/* int_of: a (cast) whole constant's value, 0 when n is none */
static int int_of(const cJSON *n)
{
	char v[16];
	return literal_of(n, v, sizeof v) ? atoi(v) : 0;
}

/* band_width: floor(col / w) * w (either side of the product): the column and *w; else NULL */
static const char *band_width(const cJSON *mul, int *w)
{
	const char *type, *op = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(mul, "name"));
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(mul, "lexpr"), *r = cJSON_GetObjectItemCaseSensitive(mul, "rexpr");
	if (!op || strcmp(op, "*"))
		return NULL;
	*w = int_of(r) ? int_of(r) : int_of(l);
	const cJSON *fl = int_of(r) ? l : int_of(l) ? r : NULL;
	const cJSON *fb = fl ? pgt_body(unwrap(fl), &type) : NULL;
	/* (age / 10) * 10 with integer division, or floor(age / 10) * 10 */
	if (fb && !strcmp(type, "FuncCall")) {
		const char *fn = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(fb, "funcname"));
		if (!fn || strcasecmp(fn, "floor"))
			return NULL;
		fb = pgt_body(unwrap(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(fb, "args"), 0)), &type);
	}
	const char *dop = fb && !strcmp(type, "A_Expr") ? pgt_last_sval(cJSON_GetObjectItemCaseSensitive(fb, "name")) : NULL;
	if (!dop || strcmp(dop, "/") || int_of(cJSON_GetObjectItemCaseSensitive(fb, "rexpr")) != *w)
		return NULL;
	return column_of(cJSON_GetObjectItemCaseSensitive(fb, "lexpr"));
}

/* band_of: a GROUP BY expression as a column and its band */
static int band_of(const cJSON *n, struct rd_group *g)
{
	const char *type;
	const cJSON *b = pgt_body(unwrap(n), &type);
	const char *col;
	memset(g, 0, sizeof *g);
	if ((col = column_of(n))) {
		snprintf(g->col, sizeof g->col, "%s", col);
		return 1;
	}
	if (!b)
		return 0;
	if (!strcmp(type, "FuncCall")) {
		const char *fn = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(b, "funcname"));
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(b, "args");
		char unit[32] = "";
		if (fn && (!strcasecmp(fn, "date_trunc") || !strcasecmp(fn, "date_part") || !strcasecmp(fn, "extract")) &&
		    cJSON_GetArraySize(args) == 2 && literal_of(cJSON_GetArrayItem(args, 0), unit, sizeof unit) &&
		    (col = column_of(cJSON_GetArrayItem(args, 1)))) {
			int part = strcasecmp(fn, "date_trunc") != 0;
			snprintf(g->col, sizeof g->col, "%s", col);
			g->band = !strcasecmp(unit, "year") ? RD_YEAR : !strcasecmp(unit, "quarter") ? RD_QUARTER
			        : !strcasecmp(unit, "month") ? (part ? RD_MONTH_NO : RD_MONTH) : !strcasecmp(unit, "week") ? RD_WEEK
			        : !strcasecmp(unit, "day") ? RD_DAY : !strcasecmp(unit, "hour") ? RD_HOUR : RD_PLAIN;
			return 1;
		}
	}
	int w = 0;
	if (!strcmp(type, "A_Expr") && (col = band_width(b, &w)) && w > 0) {
		snprintf(g->col, sizeof g->col, "%s", col);
		g->band = RD_BAND;
		g->width = w;
		return 1;
	}
	return 0;
}

/* from_item: a FROM entry: its table named, a join's conditions read as filters */
static void from_item(const cJSON *n, struct sql_reading *o)
{
	const char *type;
	const cJSON *b = pgt_body(n, &type);
	if (!b)
		return;
	if (!strcmp(type, "JoinExpr")) {
		from_item(cJSON_GetObjectItemCaseSensitive(b, "larg"), o);
		from_item(cJSON_GetObjectItemCaseSensitive(b, "rarg"), o);
		where(cJSON_GetObjectItemCaseSensitive(b, "quals"), o);
	} else if (!strcmp(type, "RangeVar")) {
		const char *rel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "relname"));
		int seen = 0;
		for (int i = 0; rel && i < o->ntables; i++)
			seen |= !strcmp(o->tables[i], rel);
		if (rel && !seen && o->ntables < 8)
			snprintf(o->tables[o->ntables++], RD_NAME, "%s", rel);
	} else if (!strcmp(type, "RangeSubselect")) {
		o->complete = 0;   /* a subquery in FROM: its own filters are not said back */
	}
}

/* rank_limit: n when outer's only condition is "r <= n" (or "r < n+1") on a column inner makes
 * with a window function (dense_rank() OVER ...): a top n; else 0 */
static long rank_limit(const cJSON *outer, const cJSON *inner)
{
	struct rd_cond c;
	const char *type;
	const cJSON *e;
	if (!condition(cJSON_GetObjectItemCaseSensitive(outer, "whereClause"), &c) || (strcmp(c.op, "<=") && strcmp(c.op, "<")))
		return 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(inner, "targetList")) {
		const cJSON *rt = pgt_body(e, &type);
		const char *nm = rt ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rt, "name")) : NULL;
		const cJSON *fb = rt ? pgt_body(cJSON_GetObjectItemCaseSensitive(rt, "val"), &type) : NULL;
		if (nm && !strcasecmp(nm, c.col) && fb && !strcmp(type, "FuncCall") && cJSON_GetObjectItemCaseSensitive(fb, "over"))
			return atol(c.val) - (strcmp(c.op, "<") ? 0 : 1);
	}
	return 0;
}

static void read_select(const cJSON *s, struct sql_reading *o)
{
	const cJSON *larg = cJSON_GetObjectItemCaseSensitive(s, "larg"), *e;
	const char *type;
	if (larg) {
		o->setop = 1;
		read_select(larg, o);
		read_select(cJSON_GetObjectItemCaseSensitive(s, "rarg"), o);
		return;
	}
	const cJSON *targets = cJSON_GetObjectItemCaseSensitive(s, "targetList");
	/* SELECT COUNT(*) > 0 FROM (q) x: a yes/no about q's rows */
	const cJSON *from = cJSON_GetObjectItemCaseSensitive(s, "fromClause");
	const cJSON *t0 = pgt_body(cJSON_GetArrayItem(targets, 0), &type);
	const cJSON *v0 = t0 ? pgt_body(cJSON_GetObjectItemCaseSensitive(t0, "val"), &type) : NULL;
	const cJSON *sub = cJSON_GetArraySize(from) == 1 ? pgt_body(cJSON_GetArrayItem(from, 0), &type) : NULL;
	if (sub && !strcmp(type, "RangeSubselect") && v0 && cJSON_GetArraySize(targets) == 1 &&
	    !cJSON_GetObjectItemCaseSensitive(s, "whereClause") &&
	    pgt_last_sval(cJSON_GetObjectItemCaseSensitive(v0, "name")) &&
	    !strcmp(pgt_last_sval(cJSON_GetObjectItemCaseSensitive(v0, "name")), ">") && find_agg(v0)) {
		const cJSON *inner = pgt_body(cJSON_GetObjectItemCaseSensitive(sub, "subquery"), &type);
		if (inner && !strcmp(type, "SelectStmt")) {
			o->exists = 1;
			read_select(inner, o);
			o->agg[0] = 0;
			o->ngroup = 0;
			return;
		}
	}
	/* SELECT cols FROM (q with a rank) x WHERE rnk <= n: the top n of q */
	if (sub && !strcmp(type, "RangeSubselect") && cJSON_GetArraySize(from) == 1) {
		const cJSON *inner = pgt_body(cJSON_GetObjectItemCaseSensitive(sub, "subquery"), &type);
		long n = 0;
		if (inner && !strcmp(type, "SelectStmt") && (n = rank_limit(s, inner)) > 0) {
			read_select(inner, o);
			o->limit = n;
			return;
		}
	}
	where(cJSON_GetObjectItemCaseSensitive(s, "whereClause"), o);
	/* join conditions that filter (JOIN ... ON a.k = b.k AND c.x = 'v') */
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "fromClause"))
		from_item(e, o);
	for (const cJSON *t = targets ? targets->child : NULL; t && o->ncols < 4 && !o->ncols_done; t = t->next) {
		const cJSON *tb = pgt_body(t, &type);
		const char *c = tb ? column_of(cJSON_GetObjectItemCaseSensitive(tb, "val")) : NULL;
		if (c)
			snprintf(o->cols[o->ncols++], RD_NAME, "%s", c);
	}
	o->ncols_done = 1;
	if (!o->agg[0]) {
		const cJSON *a = find_agg(targets);
		if (a) {
			const char *fn = pgt_last_sval(cJSON_GetObjectItemCaseSensitive(a, "funcname"));
			const cJSON *args = cJSON_GetObjectItemCaseSensitive(a, "args");
			const cJSON *filter = cJSON_GetObjectItemCaseSensitive(a, "agg_filter");
			snprintf(o->agg, sizeof o->agg, "%s", fn);
			for (char *p = o->agg; *p; p++)
				*p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
			o->agg_distinct = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "agg_distinct"));
			const char *col = cJSON_GetArraySize(args) == 1 ? column_of(cJSON_GetArrayItem(args, 0)) : NULL;
			snprintf(o->agg_col, sizeof o->agg_col, "%s", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "agg_star")) ? "*" : col ? col : "");
			/* a share: AVG of a condition cast to a number, or a count with a FILTER */
			if (!strcasecmp(fn, "avg") && cJSON_GetArraySize(args) == 1 && !col) {
				numerator(cJSON_GetArrayItem(args, 0), o);
				o->rate = o->nnum > 0;
			} else if (filter) {
				numerator(filter, o);
				o->rate = o->nnum > 0;
			}
		}
	}
	pivot(targets, o);
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(s, "groupClause")) {
		struct rd_group g;
		const cJSON *item = e;
		char pos[16];
		if (literal_of(e, pos, sizeof pos)) {   /* GROUP BY 1 */
			const cJSON *rt = pgt_body(cJSON_GetArrayItem(targets, atoi(pos) - 1), &type);
			item = rt ? cJSON_GetObjectItemCaseSensitive(rt, "val") : NULL;
		}
		if (item && band_of(item, &g) && o->ngroup < RD_MAXG)
			o->group[o->ngroup++] = g;
	}
	char lim[32];
	if (!o->limit && literal_of(cJSON_GetObjectItemCaseSensitive(s, "limitCount"), lim, sizeof lim))
		o->limit = atol(lim);
}

enum err sql_reading_of(const char *sql, struct sql_reading *out)
{
	if (!out)
		return ERR_INPUT;
	memset(out, 0, sizeof *out);
	out->complete = 1;
	if (!sql)
		return ERR_INPUT;
	const cJSON *stmt;
	cJSON *root = pgt_parse_one(sql, &stmt);
	if (!root || !stmt) {
		cJSON_Delete(root);
		out->complete = 0;
		return ERR_PARSE;
	}
	read_select(stmt, out);
	cJSON_Delete(root);
	return OK;
}
