/* shape_having.c: question shape "patients (or stays) with N or more of something": the rows of
 * the fact table counted per patient or stay and compared with N ("which patients were admitted 3
 * or more times, with their number of admissions", "how many patients had at least 2 potassium
 * results").  docs/architecture.md, "Question shapes". */
#include <string.h>
#include "agent/planner_front.h"

static int match(struct planner *p, const struct cues *c)
{
	/* ("among patients with at least one visit, the average number of visits per patient": the
	 * counts are averaged, shape_entity_total.c) */
	return p->f.having_op != NULL && !p->f.total_rows;
}

/* the entity kind counted per: the entity the count word is attached to (수술 3번 이상 받은 환자
 * 수: patients), else the question's first entity word (patients, cases), else the patient */
static int f_entity_kind(struct planner *p)
{
	int k0 = p->f.entity_word ? planner_ent_word(p->f.entity_word) : -1;
	if (k0 >= 0 && planner_ent_column(p->s, k0))
		return k0;
	for (int i = 0; i < p->tk.n; i++) {
		int k = pf_tok_ent(&p->tk.v[i]);
		if (k >= 0 && planner_ent_column(p->s, k))
			return k;
	}
	return ENT_PATIENT;
}

/* the entity counted per: a stay when the question's entity word is an encounter (admissions with
 * at least two results), else the patient; its column in the fact table, or -1 */
static int per_entity(struct planner *p)
{
	int kind = f_entity_kind(p);
	const char *name = planner_ent_column(p->s, kind);
	return name ? pf_col_in(p, p->f.fact, name) : -1;
}

/* which_column: "Which clinics had more than 120 visits": a name column linked within three words
 * after "which" (not the patients' or a stay's), whose values are what is counted per; or -1 */
static int which_column(struct planner *p)
{
	for (int i = 0; i < p->tk.n; i++) {
		if (p->tk.v[i].role != R_WHICH)
			continue;
		for (int l = 0; l < p->pl.n; l++) {
			const struct plink_item *it = &p->pl.v[l];
			if (it->kind == PL_COLUMN && it->t0 > i && it->t0 <= i + 3 && p->s->c[it->cols[0]].type == PT_TEXT &&
			    !pf_is_keyish(p, it->cols[0]) && pf_tok_ent(&p->tk.v[it->t0]) < 0)
				return it->cols[0];
			/* "which lab tests were done more than 1000 times": the table's rows named by the
			 * dictionary label they reference (labevents -> d_labitems.label) */
			int via;
			if (it->kind == PL_TABLE && it->t0 > i && it->t0 <= i + 3 && it->table == p->f.fact &&
			    pf_tok_ent(&p->tk.v[it->t0]) < 0) {
				int lc = pf_label_col(p, it->table, &via);
				if (lc >= 0 && via >= 0)
					return lc;
			}
		}
	}
	return -1;
}

static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	/* the rows counted must be the fact table's own: a value reached through another event table
	 * ("admitted" as a visit kind while the fact is the diagnoses) leaves unclear what is counted */
	if (f->nsemi)
		return pf_decline(p, "%s", "a number of times per patient was asked, but which rows to count could not be told");
	/* "two or more ICU stays within a hospital visit" asked of the visits: the stays named after
	 * the number are other rows than the ones the plan would count */
	for (int i = 1; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		int icu = !strcmp(p->tk.v[i - 1].text, "icu") || !strcmp(p->tk.v[i - 1].text, "중환자실");
		int vt = pf_is_visit_word(t) ? pf_visit_table(p, icu) : -1, num = 0;
		for (int k = i - 1; k >= 0 && k >= i - 5; k--)   /* (two or more ICU stays) */
			num |= p->tk.v[k].kind == TK_NUM;
		if (vt >= 0 && vt != f->fact && num)
			return pf_decline(p, "the question counts '%s', which are not the rows of the table the plan counts",
			                  pf_span_text(p, icu ? i - 1 : i, i + 1));
	}
	/* per a group the question names ("진료과별", "by clinic", "which clinics"), else per patient or stay */
	int ec = f->ngroup == 1 ? f->group[0] : which_column(p);
	/* "what drug was patient 7 prescribed two times": one patient's rows, counted per the thing asked */
	for (int l = 0; ec < 0 && f->entity_val && l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind == PL_COLUMN && p->s->c[it->cols[0]].table == f->fact && p->s->c[it->cols[0]].type == PT_TEXT &&
		    !pf_is_keyish(p, it->cols[0]))
			ec = it->cols[0];
	}
	if (ec < 0 && f->entity_val && !strcmp(f->having_op, "="))
		return pf_decline(p, "%s", "a number of times of one patient was asked, but of what could not be told");
	/* "which organisms were reported in 40 results": an empty name is no organism */
	if (ec >= 0 && f->ngroup != 1 && f->ncond < MAXF)
		pf_cond_not_null(f, ec);
	if (ec < 0)
		ec = per_entity(p);
	if (ec < 0)
		return pf_decline(p, "a number of times per patient was asked, but %s has no patient column", p->s->t[f->fact].name);
	/* "how many patients ...": the patients counted; else listed with their count */
	/* ("the insurance listed as other": a participle, not a request for a list) */
	int list = 0;
	for (int i = 0; i < p->tk.n; i++)
		list |= p->tk.v[i].role == R_LIST && strcmp(p->tk.v[i].text, "listed");
	f->having_count = (c->how_many || f->count_entity) && !pf_has_role(p, R_WHICH) && !list;
	pf_frame_clear(f);
	f->agg = "COUNT";
	f->measure = -1;
	f->dur_start = -1;
	f->group[f->ngroup++] = ec;
	f->order = 0;
	return 0;
}

const struct shape shape_having = {"having", STAGE_MEASURE, match, frame, 0.8};
