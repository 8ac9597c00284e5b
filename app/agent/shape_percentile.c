/* shape_percentile.c: question shape "the percentile of a value": where one value of a measurement
 * ranks among all its values, among patients of the same age as a named patient at a visit ("the
 * percentile of 29.0 in a urea nitrogen test among patients of the same age as patient 7 on the last
 * hospital visit").  The share of the other values below it: COUNT(value < v) / (COUNT(*) - 1), the
 * percent rank a row holding v has; no row holding v, no answer.  docs/coverage.md, "Percentiles". */
#include <string.h>
#include "agent/planner_front.h"

/* pf_percentile_words: "percentile (rank) of V", "V ... percentile": marks the words and keeps the
 * value (called by pf_screen before it declines words no shape builds); 0 */
int pf_percentile_words(struct planner *p)
{
	struct frame *f = &p->f;
	int w = -1, v = -1;
	for (int i = 0; i < p->tk.n && w < 0; i++)
		if (!strcmp(p->tk.v[i].text, "percentile") || !strcmp(p->tk.v[i].text, "percentiles"))
			w = i;
	if (w < 0)
		return 0;
	/* the value: a plain number not yet read (not a patient's number, a date or a count) */
	for (int i = 0; i < p->tk.n && v < 0; i++)
		if (p->tk.v[i].kind == TK_NUM && !p->tk.v[i].used && p->tk.v[i].role == R_NONE && !p->tk.v[i].unitv)
			v = i;
	if (v < 0)
		return 0;
	f->pct_value = p->tk.v[v].text;
	p->tk.v[w].used = p->tk.v[v].used = 1;
	p->tk.v[w].role = R_STOP;
	if (w + 1 < p->tk.n && !strcmp(p->tk.v[w + 1].text, "rank"))
		p->tk.v[w + 1].used = 1;
	/* "of the same age as patient 7": the population, read when the SQL is built */
	for (int i = 0; i + 2 < p->tk.n; i++)
		if (!strcmp(p->tk.v[i].text, "same") && pf_age_word(&p->tk.v[i + 1]) && !strcmp(p->tk.v[i + 2].text, "as")) {
			f->pct_same_age = 1;
			p->tk.v[i].used = p->tk.v[i + 1].used = p->tk.v[i + 2].used = 1;
			p->tk.v[i].role = R_STOP;
		}
	return 0;
}

static int match(struct planner *p, const struct cues *c)
{
	(void)c;
	return p->f.pct_value != NULL;
}

static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	(void)c;
	/* "the same age as": the age only picks the patients; the measurement is the fact's own */
	if (f->pct_same_age && (f->measure < 0 || pf_age_col_is(p, f->measure) || p->s->c[f->measure].table != f->fact))
		f->measure = pf_measure_col(p, f->fact);
	if (f->measure < 0 || f->agg || f->ngroup || f->rank_n || f->bucket)
		return pf_decline(p, "%s", "a percentile was asked, but of which measurement could not be told");
	if (f->entity_val && !f->pct_same_age)
		return pf_decline(p, "%s", "a percentile among one patient's own values is not a shape the offline planner builds");
	f->nproj = 0;
	pf_decide(p, f->pct_value, "aggregate",
	          arena_printf(&p->a, "percent rank of %s among %s", f->pct_value, pf_cfq(p, f->measure)),
	          "the share of the other values below it", 1);
	return 0;
}

/* pf_percentile_build: the select and the population of a percentile frame, after the WHERE of
 * its measurement was built without the named patient (entity: that patient, episode: the visit
 * whose age is meant; see planner_build.c); 0 or -1 declined */
int pf_percentile_build(struct planner *p, struct squery *q, const char *entity, int episode, int which)
{
	struct frame *f = &p->f;
	struct sexpr *m = pf_col(p, f->measure), *v = sx_num(&p->a, f->pct_value);
	struct sexpr *below = sx_agg(&p->a, "COUNT", 0, sx_star(&p->a)), *at = sx_agg(&p->a, "COUNT", 0, sx_star(&p->a));
	if (!below || !at)
		return pf_decline(p, "%s", "out of memory");
	below->filter = sx_cmp(&p->a, "<", m, v);
	at->filter = sx_cmp(&p->a, "=", m, v);
	q->sel[q->nsel].e = sx_arith(&p->a, "/", sx_cast(&p->a, below, "numeric"),
	                             sx_func(&p->a, "NULLIF", sx_arith(&p->a, "-", sx_agg(&p->a, "COUNT", 0, sx_star(&p->a)),
	                                                                  sx_num(&p->a, "1")), sx_num(&p->a, "0")));
	q->sel[q->nsel++].as = "percentile";
	q->having = sx_cmp(&p->a, ">", at, sx_num(&p->a, "0"));
	if (!f->pct_same_age)
		return 0;
	/* the visits of patients of the same age as the named one at the visit named */
	int vt = episode >= 0 ? episode : pf_visit_table(p, 0), fb;
	int age = vt >= 0 ? pf_age_col(p, &fb) : -1;
	const char *ent = f->entity_col;
	int ec = vt >= 0 && ent ? pf_col_in(p, vt, ent) : -1, e = pf_key_into(p, f->fact, vt), start = -1, end = -1;
	int fkey = e >= 0 ? p->s->fk[e].from : -1, key = e >= 0 ? p->s->fk[e].to : -1;
	for (int ci = vt >= 0 ? p->s->t[vt].c0 : 0; vt >= 0 && ci < p->s->t[vt].c0 + p->s->t[vt].nc; ci++)
		if (p->s->c[ci].type == PT_TIME && start < 0)
			start = ci;
		else if (p->s->c[ci].type == PT_TIME && end < 0)
			end = ci;
	if (!entity || age < 0 || fb || p->s->c[age].table != vt || ec < 0 || fkey < 0 || start < 0 || end < 0)
		return pf_decline(p, "%s", "the same age as a patient was asked, but the visit table with the age could not be told");
	struct squery *who = arena_alloc(&p->a, sizeof *who), *same = arena_alloc(&p->a, sizeof *same);
	if (!who || !same)
		return pf_decline(p, "%s", "out of memory");
	memset(who, 0, sizeof *who);
	memset(same, 0, sizeof *same);
	who->from = who->alias = same->from = same->alias = p->s->t[vt].name;
	who->sel[who->nsel++].e = pf_col(p, age);
	who->where[who->nwhere++] = sx_cmp(&p->a, "=", pf_col(p, ec), sx_num(&p->a, entity));
	if (which == 2) {
		who->where[who->nwhere++] = sx_null(&p->a, pf_col(p, end), 0);
	} else if (which) {
		who->where[who->nwhere++] = sx_null(&p->a, pf_col(p, end), 1);
		who->order[who->norder].e = pf_col(p, start);
		who->order[who->norder++].desc = which < 0;
	}
	who->limit = 1;
	same->sel[same->nsel++].e = pf_col(p, key);
	same->where[same->nwhere++] = sx_cmp(&p->a, "=", pf_col(p, age), sx_subq(&p->a, who));
	q->where[q->nwhere++] = sx_in_sub(&p->a, pf_col(p, fkey), same);
	pf_decide(p, "", "filter", arena_printf(&p->a, "%s IN (visits where %s = that of %s %s)", pf_cfq(p, fkey), pf_cfq(p, age),
	                                        ent, entity),
	          "patients of the same age as the one named, at the visit named", 1);
	return 0;
}

const struct shape shape_percentile = {"percentile", STAGE_MEASURE, match, frame, 0.8};
