/* shape_entity_total.c: question shape "an aggregate of per-stay or per-patient totals": the
 * total of a measure (or the number of rows) for each hospital stay or patient, then the average,
 * largest or smallest of those totals ("the maximum total cost of a hospital visit that included a
 * phenytoin test", "입원당 평균 총 진료비").  docs/architecture.md, "Per-entity totals". */
#include <string.h>
#include "agent/planner_front.h"

/* total_tok: the unused word that asks for a total (total, overall, 총, 합계), not the aggregate
 * word itself; -1 none */
static int total_tok(struct planner *p, const struct cues *c)
{
	for (int i = 0; i < p->tk.n; i++)
		if (i != c->ag && p->tk.v[i].role == R_SUM && !p->tk.v[i].used)
			return i;
	return -1;
}

/* entity_kind: whose totals: the stays when the question names a visit or stay table, else the
 * patients when a patient word is said (not a numbered one); -1 neither */
static int entity_kind(struct planner *p)
{
	int per = pf_per_entity(p);
	if (per >= 0)
		return per;   /* the one said per */
	if (p->f.visit_mention >= 0)
		return ENT_ENCOUNTER;
	if (p->f.entity_val)
		return -1;
	for (int i = 0; i < p->tk.n; i++)
		if (pf_tok_ent(&p->tk.v[i]) == ENT_PATIENT)
			return ENT_PATIENT;
	return -1;
}

static int match(struct planner *p, const struct cues *c)
{
	const struct frame *f = &p->f;
	if (!f->agg || (strcmp(f->agg, "AVG") && strcmp(f->agg, "MAX") && strcmp(f->agg, "MIN")))
		return 0;
	if (f->total_rows)
		return 1;   /* "average number of tests per admission": read with the measure */
	return f->measure >= 0 && f->dur_start < 0 && !f->measure_age && p->s->c[f->measure].type == PT_NUM &&
	       total_tok(p, c) >= 0 && entity_kind(p) >= 0;
}

static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	int kind = entity_kind(p), kc = -1;
	if (kind == ENT_ENCOUNTER) {
		/* the stays: the fact table's key into the visit table the question names (not the
		 * visits' own table: one row each, and its references to itself are other visits) */
		int k = f->visit_mention != f->fact ? pf_key_into(p, f->fact, f->visit_mention) : -1;
		kc = k >= 0 ? p->s->fk[k].from : -1;
	} else if (kind == ENT_PATIENT) {
		const char *name = planner_ent_column(p->s, kind);
		kc = name ? pf_col_in(p, f->fact, name) : -1;
	}
	if (kc < 0)
		return pf_decline(p, "a total per stay or patient was asked, but %s has no key of one", p->s->t[f->fact].name);
	/* "per patient" bound as a breakdown by the patient's key: it is the key the totals are of */
	/* ("환자당": the entity grouping, whichever key the counted rows gave it) */
	for (int g = 0; g < f->ngroup; g++)
		if (f->group[g] == kc || (f->entity_group && f->entity_col && !strcmp(p->s->c[f->group[g]].name, f->entity_col))) {
			for (int k = g; k + 1 < f->ngroup; k++)
				f->group[k] = f->group[k + 1];
			f->ngroup--, g--;
		}
	/* "평균 수술 건수": the count word is the figure per patient, not a second aggregate */
	if (f->total_rows && f->nagg2 == 1 && !strcmp(f->agg2[0], "COUNT"))
		f->nagg2 = 0;
	/* one figure per stay inside a breakdown (by ward, per month) is not built: said, not guessed */
	if (f->ngroup || f->bucket || f->nagg2 || f->rank_n)
		return pf_decline(p, "%s", "a total per stay or patient within a breakdown is not a shape the offline planner builds");
	/* "among patients with at least 2 visits": the same rows counted, kept when enough */
	if (f->having_op && !f->total_rows)
		return pf_decline(p, "%s", "a total per stay or patient among those with N or more rows is not a shape the offline planner builds");
	int t = total_tok(p, c);
	if (t >= 0)
		p->tk.v[t].used = 1;
	f->entity_total = kc;
	f->nproj = 0;
	pf_decide(p, t >= 0 ? p->tk.v[t].text : "", "aggregate",
	          arena_printf(&p->a, "%s of %s per %s", f->agg, f->total_rows ? "COUNT(*)" : arena_printf(&p->a, "SUM(%s)", pf_cfq(p, f->measure)),
	                       pf_cfq(p, kc)),
	          "one total per stay or patient, then the aggregate asked over those totals", 1);
	return 0;
}

const struct shape shape_entity_total = {"entity_total", STAGE_MEASURE, match, frame, 0.8};
