/* planner_timeline.c: a timeline over several tables (vitals, labs, drugs): one UNION ALL of long rows. */
#include <string.h>
#include "agent/planner_int.h"

/* One branch under construction: the query and the tables already joined into it. */
struct branch {
	struct squery *q;
	int joined[256];
};

static struct sexpr *col(struct arena *a, const struct psnap *s, int ci)
{
	return sx_col(a, s->t[s->c[ci].table].name, s->c[ci].name);
}

/* reach: join table `to` into the branch along the many-to-one key path from its FROM table;
 * 0, or -1 when there is no such path */
static int reach(struct arena *a, const struct psnap *s, const int *banned, struct branch *b, int from, int to)
{
	int e[4], n;
	if (b->joined[to])
		return 0;
	n = planner_snap_path(s, banned, from, to, e, 3);
	if (n < 0)
		return -1;
	/* the edges run from `to` back to `from`: walk them forward */
	for (int k = n - 1, cur = from; k >= 0; k--) {
		int x = s->fk[e[k]].from, y = s->fk[e[k]].to;
		int other = s->c[x].table == cur ? s->c[y].table : s->c[x].table;
		if (!b->joined[other]) {
			if (b->q->njoins >= 6)
				return -1;
			b->q->joins[b->q->njoins].table = s->t[other].name;
			b->q->joins[b->q->njoins].alias = s->t[other].name;
			b->q->joins[b->q->njoins++].on = sx_cmp(a, "=", col(a, s, x), col(a, s, y));
			b->joined[other] = 1;
		}
		cur = other;
	}
	return 0;
}

/* key_col: the column holding key for rows of table ti: its own, else one of a table it reaches
 * many-to-one (vital_data_table -> clinical_data_table.subjectid); -1 if none */
static int key_col(const struct psnap *s, const int *banned, int ti, const char *key)
{
	int kc = planner_snap_key(s, ti, key), e[4];
	if (kc >= 0 || !key)
		return kc;
	for (int tj = 0; tj < s->nt && s->nt <= 256; tj++) {
		int c = planner_snap_key(s, tj, key);
		if (c >= 0 && tj != ti && planner_snap_path(s, banned, ti, tj, e, 3) >= 0)
			return c;
	}
	return -1;
}

/* ref_col: the column of table t that references column key (observation.encounter_id ->
 * encounter.id), else key itself (reached by a join); -1 never */
static int ref_col(const struct psnap *s, int t, int key)
{
	for (int k = 0; k < s->nfk; k++)
		if (s->fk[k].to == key && s->c[s->fk[k].from].table == t)
			return s->fk[k].from;
	return key;
}

/* one SELECT of the union: measured column m (wide) or the source's label/value pair (m < 0) */
static struct squery *branch(struct arena *a, const struct psnap *s, const struct ptl_spec *sp,
                             const struct ptl_source *src, int m, const char **why)
{
	struct branch b;
	int t = src->table;
	struct squery *q = arena_alloc(a, sizeof *q);

	if (!q || s->nt > 256) {
		*why = "out of memory";
		return NULL;
	}
	memset(&b, 0, sizeof b);
	b.q = q;
	b.joined[t] = 1;
	q->from = q->alias = s->t[t].name;

	/* the entity key (and the finer one) first: every branch has the same columns */
	const char *keys[2] = {sp->key, sp->key2};
	for (int k = 0; k < 2; k++) {
		if (!keys[k])
			continue;
		int kc = k == 0 && sp->key_ref ? ref_col(s, t, sp->key_ref - 1) : key_col(s, sp->banned, t, keys[k]);
		if (kc < 0 || reach(a, s, sp->banned, &b, t, s->c[kc].table) < 0) {
			*why = arena_printf(a, "%s has no key path to %s", s->t[t].name, keys[k]);
			return NULL;
		}
		q->sel[q->nsel].e = col(a, s, kc);
		q->sel[q->nsel++].as = keys[k];
		if (k == 0 && sp->key_val)
			q->where[q->nwhere++] = sx_cmp(a, "=", col(a, s, kc), sx_num(a, sp->key_val));
	}
	q->sel[q->nsel].e = col(a, s, src->time);
	q->sel[q->nsel++].as = "event_time";
	q->sel[q->nsel].e = sx_lit(a, s->t[t].name);
	q->sel[q->nsel++].as = "source";
	int value;
	if (m >= 0) {
		/* wide: the column's name is the measure */
		q->sel[q->nsel].e = sx_lit(a, s->c[m].name);
		value = m;
	} else {
		if (s->c[src->label].table != t && reach(a, s, sp->banned, &b, t, s->c[src->label].table) < 0) {
			*why = arena_printf(a, "%s cannot reach its labels", s->t[t].name);
			return NULL;
		}
		q->sel[q->nsel].e = col(a, s, src->label);
		value = src->value;
	}
	q->sel[q->nsel++].as = "measure";
	/* one type for every branch (real vitals, double labs, numeric doses) */
	q->sel[q->nsel].e = sx_cast(a, col(a, s, value), "numeric");
	q->sel[q->nsel++].as = "value";

	if (sp->from && *sp->from)
		q->where[q->nwhere++] = sx_cmp(a, ">=", col(a, s, src->time), sx_ts(a, sp->from));
	if (sp->to && *sp->to)
		q->where[q->nwhere++] = sx_cmp(a, "<", col(a, s, src->time), sx_ts(a, sp->to));
	q->where[q->nwhere++] = sx_null(a, col(a, s, value), 1);   /* a missing value is no measurement */
	if (m < 0 && src->nvals == 1) {
		q->where[q->nwhere++] = sx_cmp(a, "=", col(a, s, src->label), sx_lit(a, src->vals[0]));
	} else if (m < 0 && src->nvals > 1) {
		struct sexpr *v[8];
		for (int k = 0; k < src->nvals; k++)
			v[k] = sx_lit(a, src->vals[k]);
		q->where[q->nwhere++] = sx_in_list(a, col(a, s, src->label), v, src->nvals);
	}
	for (int k = 0; k < sp->nflt && q->nwhere < 20; k++) {
		const struct ptl_filter *f = &sp->flt[k];
		if (reach(a, s, sp->banned, &b, t, s->c[f->col].table) < 0) {
			*why = arena_printf(a, "%s cannot reach %s for a filter", s->t[t].name, s->t[s->c[f->col].table].name);
			return NULL;
		}
		if (f->nvals > 1) {
			struct sexpr *v[8];
			for (int x = 0; x < f->nvals; x++)
				v[x] = sx_lit(a, f->vals[x]);
			q->where[q->nwhere++] = sx_in_list(a, col(a, s, f->col), v, f->nvals);
		} else if (f->nvals == 1) {
			q->where[q->nwhere++] = sx_cmp(a, "=", col(a, s, f->col), sx_lit(a, f->vals[0]));
		} else {
			q->where[q->nwhere++] = sx_cmp(a, f->op, col(a, s, f->col), f->num ? sx_num(a, f->lit) : sx_lit(a, f->lit));
		}
	}
	return q;
}

int planner_timeline(struct arena *a, const struct psnap *s, const struct ptl_spec *sp, struct squery *out,
                     const char **why)
{
	int n = 0;
	*why = NULL;
	memset(out, 0, sizeof *out);
	if (sp->nsrc < 1 || !sp->key) {
		*why = "a timeline needs measurements and the entity they belong to";
		return -1;
	}
	for (int i = 0; i < sp->nsrc; i++)
		n += sp->src[i].ncols ? sp->src[i].ncols : 1;
	if (n > 24) {
		*why = "a timeline over so many measured columns is too wide to build";
		return -1;
	}
	out->setq = arena_alloc(a, (size_t)n * sizeof *out->setq);
	if (!out->setq) {
		*why = "out of memory";
		return -1;
	}
	out->setop = "UNION ALL";
	for (int i = 0; i < sp->nsrc; i++) {
		const struct ptl_source *src = &sp->src[i];
		if (src->time < 0 || (!src->ncols && (src->label < 0 || src->value < 0))) {
			*why = arena_printf(a, "%s has no time or no measured value", s->t[src->table].name);
			return -1;
		}
		for (int k = 0; k < (src->ncols ? src->ncols : 1); k++) {
			struct squery *b = branch(a, s, sp, src, src->ncols ? src->cols[k] : -1, why);
			if (!b)
				return -1;
			out->setq[out->nsetq++] = b;
		}
	}
	/* ordered by the output columns: entity, finer key, time, then the measure's name */
	const char *ord[4] = {sp->key, sp->key2, "event_time", "measure"};
	for (int k = 0; k < 4; k++)
		if (ord[k]) {
			out->order[out->norder].e = sx_col(a, NULL, ord[k]);
			out->order[out->norder++].desc = 0;
		}
	return 0;
}
