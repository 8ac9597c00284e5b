/* planner_sql.c: the planner's SQL tree and the one function that prints it as PostgreSQL. */
#include <ctype.h>
#include <string.h>
#include "agent/planner_int.h"

static struct sexpr *mk(struct arena *a, enum sx k)
{
	struct sexpr *e = arena_alloc(a, sizeof *e);
	if (e)
		e->kind = k;
	return e;
}

static struct sexpr *mk2(struct arena *a, enum sx k, const char *op, struct sexpr *l, struct sexpr *r)
{
	struct sexpr *e = mk(a, k);
	if (!e)
		return NULL;
	e->a = op;
	e->args = arena_alloc(a, 2 * sizeof *e->args);
	if (!e->args)
		return NULL;
	e->args[0] = l;
	e->args[1] = r;
	e->nargs = r ? 2 : 1;
	return e;
}

struct sexpr *sx_col(struct arena *a, const char *alias, const char *col)
{
	struct sexpr *e = mk(a, SX_COL);
	if (e) {
		e->a = alias;
		e->b = col;
	}
	return e;
}

struct sexpr *sx_lit(struct arena *a, const char *text)
{
	struct sexpr *e = mk(a, SX_LIT);
	if (e)
		e->a = text;
	return e;
}

struct sexpr *sx_num(struct arena *a, const char *text)
{
	struct sexpr *e = mk(a, SX_NUM);
	if (e)
		e->a = text;
	return e;
}

struct sexpr *sx_ts(struct arena *a, const char *ts)
{
	struct sexpr *e = mk(a, SX_TS);
	if (e)
		e->a = ts;
	return e;
}

struct sexpr *sx_star(struct arena *a) { return mk(a, SX_STAR); }

struct sexpr *sx_cast(struct arena *a, struct sexpr *x, const char *type)
{
	struct sexpr *e = mk2(a, SX_CAST, NULL, x, NULL);
	if (e)
		e->b = type;
	return e;
}

struct sexpr *sx_agg(struct arena *a, const char *fn, int distinct, struct sexpr *arg)
{
	struct sexpr *e = mk2(a, SX_AGG, fn, arg, NULL);
	if (e)
		e->distinct = distinct;
	return e;
}

struct sexpr *sx_func(struct arena *a, const char *fn, struct sexpr *x, struct sexpr *y)
{
	return mk2(a, SX_FUNC, fn, x, y);
}

struct sexpr *sx_cmp(struct arena *a, const char *op, struct sexpr *l, struct sexpr *r)
{
	return mk2(a, SX_CMP, op, l, r);
}

struct sexpr *sx_arith(struct arena *a, const char *op, struct sexpr *l, struct sexpr *r)
{
	return mk2(a, SX_ARITH, op, l, r);
}

struct sexpr *sx_and(struct arena *a, struct sexpr *l, struct sexpr *r)
{
	return mk2(a, SX_AND, NULL, l, r);
}

struct sexpr *sx_in_sub(struct arena *a, struct sexpr *l, struct squery *q)
{
	struct sexpr *e = mk2(a, SX_IN_SUB, NULL, l, NULL);
	if (e)
		e->sub = q;
	return e;
}

struct sexpr *sx_subq(struct arena *a, struct squery *q)
{
	struct sexpr *e = mk(a, SX_SUBQ);
	if (e)
		e->sub = q;
	return e;
}

struct sexpr *sx_in_list(struct arena *a, struct sexpr *l, struct sexpr **v, int n)
{
	struct sexpr *e = mk(a, SX_IN_LIST);
	if (!e || !(e->args = arena_alloc(a, (size_t)(n + 1) * sizeof *e->args)))
		return NULL;
	e->args[0] = l;
	memcpy(e->args + 1, v, (size_t)n * sizeof *v);
	e->nargs = n + 1;
	return e;
}

struct sexpr *sx_null(struct arena *a, struct sexpr *l, int notnull)
{
	return mk2(a, notnull ? SX_NOTNULL : SX_ISNULL, NULL, l, NULL);
}

struct sexpr *sx_interval_sub(struct arena *a, struct sexpr *ts, const char *interval)
{
	return mk2(a, SX_INTERVAL_SUB, interval, ts, NULL);
}

/* identifiers are quoted only when they need it (catalog names, never user text) */
static void ident(struct sb *sb, const char *s)
{
	int plain = (*s >= 'a' && *s <= 'z') || *s == '_';
	for (const char *p = s; *p && plain; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			plain = 0;
	if (plain) {
		sb_puts(sb, s);
		return;
	}
	sb_putc(sb, '"');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			sb_putc(sb, '"');
		sb_putc(sb, *p);
	}
	sb_putc(sb, '"');
}

/* string literals: single quotes doubled; standard_conforming_strings is on */
void planner_sql_literal(struct sb *sb, const char *s)
{
	sb_putc(sb, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			sb_putc(sb, '\'');
		sb_putc(sb, *p);
	}
	sb_putc(sb, '\'');
}

static void print_query(struct sb *sb, const struct squery *q);

static void expr(struct sb *sb, const struct sexpr *e)
{
	if (!e) {
		sb_puts(sb, "NULL");
		return;
	}
	switch (e->kind) {
	case SX_COL:
		if (e->a) {
			ident(sb, e->a);
			sb_putc(sb, '.');
		}
		ident(sb, e->b);
		break;
	case SX_LIT:
		planner_sql_literal(sb, e->a);
		break;
	case SX_NUM:
		sb_puts(sb, e->a);
		break;
	case SX_TS:
		sb_puts(sb, "TIMESTAMP ");
		planner_sql_literal(sb, e->a);
		break;
	case SX_STAR:
		sb_putc(sb, '*');
		break;
	case SX_AGG:
	case SX_FUNC:
		sb_puts(sb, e->a);
		sb_putc(sb, '(');
		if (e->distinct)
			sb_puts(sb, "DISTINCT ");
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				sb_puts(sb, ", ");
			expr(sb, e->args[i]);
		}
		sb_putc(sb, ')');
		if (e->filter) {
			sb_puts(sb, " FILTER (WHERE ");
			expr(sb, e->filter);
			sb_putc(sb, ')');
		}
		break;
	case SX_CMP:
	case SX_ARITH:
		if (e->kind == SX_ARITH)
			sb_putc(sb, '(');
		expr(sb, e->args[0]);
		sb_printf(sb, " %s ", e->a);
		expr(sb, e->args[1]);
		if (e->kind == SX_ARITH)
			sb_putc(sb, ')');
		break;
	case SX_AND:
	case SX_OR:
		sb_putc(sb, '(');
		for (int i = 0; i < e->nargs; i++) {
			if (i)
				sb_puts(sb, e->kind == SX_AND ? " AND " : " OR ");
			expr(sb, e->args[i]);
		}
		sb_putc(sb, ')');
		break;
	case SX_IN_LIST:
		expr(sb, e->args[0]);
		sb_puts(sb, " IN (");
		for (int i = 1; i < e->nargs; i++) {
			if (i > 1)
				sb_puts(sb, ", ");
			expr(sb, e->args[i]);
		}
		sb_putc(sb, ')');
		break;
	case SX_IN_SUB:
		expr(sb, e->args[0]);
		sb_puts(sb, " IN (");
		print_query(sb, e->sub);
		sb_putc(sb, ')');
		break;
	case SX_NOTNULL:
	case SX_ISNULL:
		expr(sb, e->args[0]);
		sb_puts(sb, e->kind == SX_NOTNULL ? " IS NOT NULL" : " IS NULL");
		break;
	case SX_INTERVAL_SUB:
		sb_putc(sb, '(');
		expr(sb, e->args[0]);
		sb_puts(sb, " - INTERVAL ");
		planner_sql_literal(sb, e->a);
		sb_putc(sb, ')');
		break;
	case SX_CAST:
		/* the type is the planner's own constant, never question text */
		sb_puts(sb, "CAST(");
		expr(sb, e->args[0]);
		sb_printf(sb, " AS %s)", e->b);
		break;
	case SX_SUBQ:
		sb_putc(sb, '(');
		print_query(sb, e->sub);
		sb_putc(sb, ')');
		break;
	case SX_WIN_DENSE:
		sb_puts(sb, "DENSE_RANK() OVER (ORDER BY ");
		expr(sb, e->args[0]);
		sb_puts(sb, e->distinct ? " ASC)" : " DESC)");
		break;
	}
}

static void print_order_limit(struct sb *sb, const struct squery *q)
{
	for (int i = 0; i < q->norder; i++) {
		sb_puts(sb, i ? ", " : " ORDER BY ");
		expr(sb, q->order[i].e);
		sb_puts(sb, q->order[i].desc ? " DESC" : " ASC");
	}
	if (q->limit > 0 && q->ties && !q->offset)
		sb_printf(sb, " FETCH FIRST %ld ROWS WITH TIES", q->limit);
	else if (q->limit > 0)
		sb_printf(sb, " LIMIT %ld", q->limit);
	if (q->offset > 0)
		sb_printf(sb, " OFFSET %ld", q->offset);
}

static void print_query(struct sb *sb, const struct squery *q)
{
	if (q->nsetq) {
		/* a set operation: branches with their own ORDER BY/LIMIT go in parentheses */
		for (int i = 0; i < q->nsetq; i++) {
			const struct squery *b = q->setq[i];
			int paren = b->norder || b->limit || b->nsetq;
			if (i)
				sb_printf(sb, " %s ", q->setop ? q->setop : "UNION ALL");
			if (paren)
				sb_putc(sb, '(');
			print_query(sb, b);
			if (paren)
				sb_putc(sb, ')');
		}
		print_order_limit(sb, q);
		return;
	}
	sb_puts(sb, "SELECT ");
	if (q->distinct)
		sb_puts(sb, "DISTINCT ");
	for (int i = 0; i < q->nsel; i++) {
		if (i)
			sb_puts(sb, ", ");
		expr(sb, q->sel[i].e);
		if (q->sel[i].as) {
			sb_puts(sb, " AS ");
			ident(sb, q->sel[i].as);
		}
	}
	if (!q->from)
		return;   /* SELECT of scalar subqueries only: (SELECT ...) - (SELECT ...) */
	sb_puts(sb, " FROM ");
	ident(sb, q->from);
	if (q->alias && strcmp(q->alias, q->from)) {
		sb_putc(sb, ' ');
		ident(sb, q->alias);
	}
	for (int i = 0; i < q->njoins; i++) {
		sb_puts(sb, " JOIN ");
		ident(sb, q->joins[i].table);
		if (strcmp(q->joins[i].alias, q->joins[i].table)) {
			sb_putc(sb, ' ');
			ident(sb, q->joins[i].alias);
		}
		sb_puts(sb, " ON ");
		expr(sb, q->joins[i].on);
	}
	for (int i = 0; i < q->nwhere; i++) {
		sb_puts(sb, i ? " AND " : " WHERE ");
		expr(sb, q->where[i]);
	}
	for (int i = 0; i < q->ngroup; i++) {
		sb_puts(sb, i ? ", " : " GROUP BY ");
		expr(sb, q->group[i]);
	}
	if (q->having) {
		sb_puts(sb, " HAVING ");
		expr(sb, q->having);
	}
	print_order_limit(sb, q);
}

/* planner_sql_print: q as one PostgreSQL SELECT.  Ranking queries are wrapped so that ties
 * are kept (DENSE_RANK <= n), existence questions become SELECT COUNT(*) > 0. */
void planner_sql_print(struct sb *sb, const struct squery *q)
{
	if (q->exists_wrap) {
		sb_puts(sb, "SELECT COUNT(*) > 0 AS answer FROM (");
		print_query(sb, q);
		sb_puts(sb, ") AS t");
		return;
	}
	if (q->count_wrap) {
		sb_puts(sb, "SELECT COUNT(*) AS count FROM (");
		print_query(sb, q);
		sb_puts(sb, ") AS t");
		return;
	}
	if (q->wrap_agg) {
		char as[16];
		size_t i = 0;
		for (; q->wrap_agg[i] && i + 1 < sizeof as; i++)
			as[i] = (char)tolower((unsigned char)q->wrap_agg[i]);
		as[i] = 0;
		sb_printf(sb, "SELECT %s(total) AS ", q->wrap_agg);
		ident(sb, as);
		sb_puts(sb, " FROM (");
		print_query(sb, q);
		sb_puts(sb, ") AS t");
		return;
	}
	if (q->rank_n > 0) {
		sb_puts(sb, "SELECT ");
		for (int i = 0, k = 0; i < q->nsel; i++) {
			if (q->sel[i].as && !strcmp(q->sel[i].as, "rnk"))
				continue;
			if (k++)
				sb_puts(sb, ", ");
			ident(sb, q->sel[i].as ? q->sel[i].as : q->sel[i].e->b);
		}
		sb_puts(sb, " FROM (");
		print_query(sb, q);
		sb_printf(sb, ") AS t WHERE rnk <= %ld ORDER BY rnk", q->rank_n);
		return;
	}
	print_query(sb, q);
}

int planner_sql_names(const char *sql, const char *name, int icase)
{
	size_t n = strlen(name);
	for (const char *h = icase ? strcasestr(sql, name) : strstr(sql, name); h;
	     h = icase ? strcasestr(h + 1, name) : strstr(h + 1, name)) {
		char b = h > sql ? h[-1] : ' ', e = h[n];
		if (!(isalnum((unsigned char)b) || b == '_') && !(isalnum((unsigned char)e) || e == '_'))
			return 1;
	}
	return 0;
}
