/* planner_form.c: the offline planner's plans at the aggregate access level, written in the safe aggregate form the executor accepts there (issue 27; docs/privacy.md, "The planner at the aggregate level"). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "agent/planner_front.h"
#include "sql/exec.h"
#include "util/conf.h"

/* form_decline: the one reason the form's declines give, what saying what the question asks for
 * instead of groups (conf/i18n/ko.decline.tsv reads it in Korean); -1 */
static int form_decline(struct planner *p, const char *what)
{
	return pf_decline(p, "at the aggregate access level only counts and summaries of groups of patients are shown, "
	                     "not %s; ask for a count, an average or a rate, by a category, a month or an age band", what);
}

/* is_key: name is one of conf suppress_patient_keys (a comma- or space-separated list), compared
 * without case */
static int is_key(const char *name)
{
	const char *s = conf_get("suppress_patient_keys");
	size_t n = strlen(name);
	while (s && *s) {
		while (*s == ',' || isspace((unsigned char)*s))
			s++;
		size_t w = strcspn(s, ", \t");
		if (w && w == n && !strncasecmp(s, name, n))
			return 1;
		s += w;
	}
	return 0;
}

/* table_keyed: table ti has a patient-key column */
static int table_keyed(const struct planner *p, int ti)
{
	for (int c = 0; c < p->s->nc; c++)
		if (p->s->c[c].table == ti && is_key(p->s->c[c].name))
			return 1;
	return 0;
}

int pf_form_key(struct planner *p)
{
	const struct frame *f = &p->f;
	if (f->fact < 0 || table_keyed(p, f->fact))
		return 0;
	for (int i = 0; i < f->nneed; i++)
		if (table_keyed(p, f->need[i]))
			return 0;
	/* the nearest keyed table, walking only towards the referenced side (pf_path) */
	int best = -1, best_n = 99;
	for (int t = 0; t < p->s->nt; t++) {
		int e[4], n;
		if (t == f->fact || (p->banned && p->banned[t]) || !table_keyed(p, t))
			continue;
		n = pf_path(p, f->fact, t, e, 3);
		if (n > 0 && n < best_n) {
			best = t;
			best_n = n;
		}
	}
	if (best < 0)
		return pf_decline(p, "at the aggregate access level each group's patients are counted, and no table with a "
		                     "patient key joins to %s", p->s->t[f->fact].name);
	pf_need(p, best);
	pf_decide(p, "", "join", p->s->t[best].name, "the aggregate access level counts each group's patients", 1);
	return 0;
}

/* ident_col: e is a column naming a patient, a case or an encounter */
static int ident_col(const struct planner *p, const struct sexpr *e)
{
	if (!e || e->kind != SX_COL || !e->b)
		return 0;
	if (is_key(e->b))
		return 1;
	for (int k = 0; k < ENT_NKINDS; k++) {
		const char *c = planner_ent_column(p->s, k);
		if (c && !strcasecmp(c, e->b))
			return 1;
	}
	return 0;
}

/* What an expression holds that the form does not take outside an aggregate. */
enum form_use { USE_NONE, USE_IDENT, USE_SUBQUERY };

/* form_use: what of that e holds; in_agg: e is the argument of an aggregate (an identifier counted
 * there is what the form expects) */
static enum form_use form_use(const struct planner *p, const struct sexpr *e, int in_agg)
{
	if (!e)
		return USE_NONE;
	if (e->kind == SX_SUBQ || e->kind == SX_IN_SUB || e->sub)
		return USE_SUBQUERY;
	if (!in_agg && ident_col(p, e))
		return USE_IDENT;
	for (int i = 0; i < e->nargs; i++) {
		enum form_use u = form_use(p, e->args[i], in_agg || e->kind == SX_AGG);
		if (u != USE_NONE)
			return u;
	}
	return USE_NONE;
}

/* has_agg: e computes an aggregate */
static int has_agg(const struct sexpr *e)
{
	if (!e)
		return 0;
	if (e->kind == SX_AGG)
		return 1;
	for (int i = 0; i < e->nargs; i++)
		if (has_agg(e->args[i]))
			return 1;
	return 0;
}

/* unrank: the ranking's DENSE_RANK() <= n in a wrapping SELECT becomes ORDER BY its measure and
 * FETCH FIRST n ROWS WITH TIES: the first n groups and those tied with the last (docs/privacy.md) */
static void unrank(struct squery *q)
{
	for (int i = 0; i < q->nsel; i++) {
		struct sexpr *e = q->sel[i].e;
		if (!e || e->kind != SX_WIN_DENSE || !e->nargs)
			continue;
		q->order[0] = (struct sorder){.e = e->args[0], .desc = !e->distinct};
		q->norder = 1;
		memmove(&q->sel[i], &q->sel[i + 1], (size_t)(q->nsel - i - 1) * sizeof q->sel[0]);
		q->nsel--;
		break;
	}
	q->limit = q->rank_n;
	q->ties = 1;
	q->rank_n = 0;
}

int pf_form_finish(struct planner *p, struct squery *q)
{
	/* a patient or case named (케이스 5의 ...) is said first: it is why the question cannot be asked */
	if (p->f.multi && p->f.tl.key_val)
		return form_decline(p, "a single patient or case");
	for (int i = 0; i < q->nwhere; i++)
		if (form_use(p, q->where[i], 0) == USE_IDENT)
			return form_decline(p, "a single patient or case");
	if (p->f.multi || q->nsetq)
		return form_decline(p, "rows of single patients over time");
	if (q->exists_wrap)
		return form_decline(p, "whether a row exists");
	if (q->count_wrap)
		return form_decline(p, "a count of groups");
	if (!q->from)
		return form_decline(p, "a difference of two results");
	for (int i = 0; i < q->nwhere; i++)
		if (form_use(p, q->where[i], 0) == USE_SUBQUERY)
			return form_decline(p, "a result computed from another query");
	if (q->rank_n > 0)
		unrank(q);
	int agg = 0;
	for (int i = 0; i < q->nsel; i++) {
		agg |= has_agg(q->sel[i].e);
		if (form_use(p, q->sel[i].e, 0) == USE_SUBQUERY)
			return form_decline(p, "a result computed from another query");
	}
	if (!agg)
		return form_decline(p, "rows");
	for (int i = 0; i < q->ngroup; i++)
		if (form_use(p, q->group[i], 0) == USE_IDENT)
			return form_decline(p, "a result per patient or per case");
	return 0;
}
