/* planner_fact.c: the fact table: the table where the question's linked things meet. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* link_scores: each link votes for the table it names (a stored value also for the tables that
 * reference it and hold it); the visit, the numbered row and the entity's own table add theirs */
static void link_scores(struct planner *p, double *sc, int nt)
{
	struct frame *f = &p->f;
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (it->kind == PL_VALUE) {
			for (int c = 0; c < it->ncols; c++) {
				int t = p->s->c[it->cols[c]].table;
				sc[t] += 3.0 / it->ncols;
				for (int ti = 0; ti < nt; ti++)
					if (ti != t && pf_dict_reaches(p, it->cols[c], it->vals[c], it->contains, ti, NULL))
						sc[ti] += 2.5 / it->ncols;
			}
		} else if (it->kind == PL_COLUMN) {
			int weak = p->tk.v[it->t0].role == R_VALUE || it->role == 1;
			sc[p->s->c[it->cols[0]].table] += (weak ? 0.5 : 2) * it->score;
		} else if (it->kind == PL_TABLE) {
			sc[it->table] += 2.5 * it->score;
		} else if (it->kind == PL_CONCEPT && it->con >= 0) {
			const struct pconcept *pc = &p->s->con[it->con];
			for (int k = 0; k < pc->nc; k++)
				sc[p->s->c[pc->c[k].col].table] += 3.0 / pc->nc;
		} else if (it->kind == PL_CONCEPT) {
			double s2;
			int c = planner_link_term(&p->a, p->s, it->measure, p->r, p->banned, 0.75, &s2);
			if (c >= 0)
				sc[p->s->c[c].table] += 3;
		}
	}
	if (f->visit_mention >= 0 && f->visit_mention < nt)
		sc[f->visit_mention] += 2;
	if (f->dur_days && f->dur_start >= 0)
		sc[p->s->c[f->dur_start].table] += 3;   /* a length of stay: the stays' table */
	if (f->entity_key >= 0)
		sc[p->s->c[f->entity_key].table] += 0.5;
	/* "female patients": when the entity's own table (named like it) holds a linked thing, it is the home */
	for (int ti = 0; ti < nt && f->entity_word && !f->entity_val; ti++)
		if (sc[ti] > 0 && pf_entity_names_table(p, ti))
			sc[ti] += 2;
}

/* adjust_scores: banned tables out; a numbered patient must be reachable, a question about time
 * needs a time column; the retrieval's ranking breaks ties */
static void adjust_scores(struct planner *p, double *sc, double *tb, int nt, int wants_time)
{
	struct frame *f = &p->f;
	for (int ti = 0; ti < nt; ti++) {
		if (p->banned && p->banned[ti]) {
			sc[ti] = -100;
			continue;
		}
		if (sc[ti] <= 0)
			continue;
		if (f->entity_col && f->entity_val && pf_col_in(p, ti, f->entity_col) >= 0)
			sc[ti] += 0.5;
		if (f->entity_col && f->entity_val && f->entity_key < 0 && pf_col_in_loose(p, ti, f->entity_col) < 0) {
			/* "patient 123" must be applicable: the table or one it reaches carries the key */
			int reach = 0;
			for (int tj = 0; tj < nt && !reach; tj++) {
				int e[4];
				reach = pf_col_in_loose(p, tj, f->entity_col) >= 0 && pf_path(p, ti, tj, e, 3) >= 0;
			}
			if (!reach)
				sc[ti] -= 3;
		}
		if (wants_time && pf_time_col(p, ti) < 0)
			sc[ti] -= 2;
		/* patients are counted or listed: a dictionary (no patient, case or encounter column) is
		 * where a named thing is spelled, not where the patients are */
		if (f->entity_word && !pf_holds_entity(p, ti))
			sc[ti] -= 2.5;
		/* the retrieval's ranking: a small tie-breaker */
		for (int k = 0; p->r && k < p->r->ntables; k++)
			if (!strcmp(p->r->tables[k].name, p->s->t[ti].name))
				tb[ti] += 0.1 * (10 - k) / 10.0;
	}
}

/* value_apart: value link it has no candidate that table m holds or reaches by keys, and one that
 * a table sharing a patient or stay with m holds or reaches */
static int value_apart(struct planner *p, const struct plink_item *it, int m)
{
	int shared = 0;
	for (int c = 0; c < it->ncols; c++) {
		int t = p->s->c[it->cols[c]].table, e[4];
		if (t == m || pf_path(p, m, t, e, 3) >= 0)
			return 0;
		if (pf_shared_key_of(p, m, t, NULL, NULL))
			shared = 1;
		for (int ti = 0; ti < p->s->nt && !shared; ti++)
			shared = ti != m && pf_shared_key_of(p, m, ti, NULL, NULL) &&
			         pf_dict_reaches(p, it->cols[c], it->vals[c], it->contains, ti, NULL);
	}
	return shared;
}

/* apart_measure_scores: an aggregate of a named numeric column whose table reaches none of the
 * named values by keys but shares a patient or stay with the tables that hold them ("the total
 * cost of visits that included a phosphate test"): the column's table is the fact and the values
 * are conditions on the same patient or stay (semi-joins); the values' table could not reach the
 * measure at all.  docs/architecture.md, "Per-entity totals". */
static void apart_measure_scores(struct planner *p, double *sc, int nt)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_COLUMN || p->s->c[it->cols[0]].type != PT_NUM || it->role == 1 ||
		    pf_is_keyish(p, it->cols[0]) || p->tk.v[it->t0].role == R_VALUE)
			continue;
		int m = p->s->c[it->cols[0]].table, nval = 0, apart = 1;
		for (int k = 0; k < p->pl.n && apart; k++) {
			const struct plink_item *o = &p->pl.v[k];
			if (o->kind == PL_VALUE) {
				nval++;
				apart = value_apart(p, o, m);
			} else if (o->kind == PL_TABLE && o->table != m) {
				int e[4];
				apart = pf_path(p, m, o->table, e, 3) < 0 && pf_shared_key_of(p, m, o->table, NULL, NULL);
				if (!apart)   /* the visit table itself ("hospital visits"): reached by its key */
					apart = o->table == p->f.visit_mention;
			} else if (o->kind == PL_CONCEPT) {
				apart = 0;
			}
		}
		if (nval && apart && m < nt)
			sc[m] += 4;
	}
}

/* measure_scores: an aggregate, a concept or a number compared is taken over a measured value:
 * the table of a named numeric column, or the one that measures a named value or dictionary
 * value; comparisons name their columns' tables too */
static void measure_scores(struct planner *p, double *sc, int nt)
{
	struct frame *f = &p->f;
	/* an average/sum/min/max is taken over the fact table's own measure: the table of a named
	 * numeric column, or one with a measured value when a value of it is named */
	int aggw = 0;
	for (int i = 0; i < p->tk.n; i++)
		if (!p->tk.v[i].used && (p->tk.v[i].role == R_AVG || p->tk.v[i].role == R_SUM || p->tk.v[i].role == R_MAX ||
		                         p->tk.v[i].role == R_MIN))
			aggw = 1;
	/* a list that names an item and a condition ("저혈압 환자의 칼륨"): the item's measurements are
	 * what is shown, the condition holds elsewhere; */
	int concept = 0;
	for (int l = 0; l < p->pl.n; l++)
		concept |= p->pl.v[l].kind == PL_CONCEPT;
	/* so is a number compared with no column named ("크레아티닌 2.0 이상"): the item's measure */
	for (int i = 0; i < f->ncond; i++)
		concept |= f->cond[i].col < 0;
	for (int l = 0; (aggw || concept) && l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		if (aggw && it->kind == PL_COLUMN && p->s->c[it->cols[0]].type == PT_NUM && it->role != 1 &&
		    !pf_is_keyish(p, it->cols[0]) && p->tk.v[it->t0].role != R_VALUE)
			sc[p->s->c[it->cols[0]].table] += 2;
		else if (it->kind == PL_VALUE)
			for (int c = 0; c < it->ncols; c++) {
				if (pf_measure_col(p, p->s->c[it->cols[c]].table) >= 0)
					sc[p->s->c[it->cols[c]].table] += 1.5 / it->ncols;
				/* a dictionary's value (a concept name, a lab test's name: a table that holds no
				 * patient, case or encounter identifier): the table that references it and measures */
				for (int ti = 0; ti < nt && !pf_holds_entity(p, p->s->c[it->cols[c]].table); ti++)
					if (ti != p->s->c[it->cols[c]].table && pf_measure_col(p, ti) >= 0 &&
					    pf_dict_reaches(p, it->cols[c], it->vals[c], it->contains, ti, NULL))
						sc[ti] += 1.5 / it->ncols;
			}
	}
	if (aggw)
		apart_measure_scores(p, sc, nt);
	/* comparisons name columns too */
	for (int i = 0; i < f->ncond; i++)
		if (f->cond[i].col >= 0)
			sc[p->s->c[f->cond[i].col].table] += 1.5;
}

/* reach_scores: a table from which every directly named thing is reachable (many-to-one) */
static void reach_scores(struct planner *p, double *sc, int nt)
{
	struct frame *f = &p->f;
	/* a table from which every directly named thing is reachable (many-to-one) is a better home;
	 * a value stored in several tables is reached through any of them */
	int grp[PL_MAX + MAXF][4], ngrp[PL_MAX + MAXF], ng = 0;
	for (int l = 0; l < p->pl.n; l++) {
		struct plink_item *it = &p->pl.v[l];
		ngrp[ng] = 0;
		if (it->kind == PL_VALUE || it->kind == PL_COLUMN)
			for (int c = 0; c < it->ncols && c < 4; c++)
				grp[ng][ngrp[ng]++] = p->s->c[it->cols[c]].table;
		else if (it->kind == PL_TABLE)
			grp[ng][ngrp[ng]++] = it->table;
		else if (it->kind == PL_CONCEPT && it->con >= 0 && p->s->con[it->con].nc)
			grp[ng][ngrp[ng]++] = p->s->c[p->s->con[it->con].c[0].col].table;
		if (ngrp[ng])
			ng++;
	}
	for (int i = 0; i < f->ncond; i++)
		if (f->cond[i].col >= 0) {
			grp[ng][0] = p->s->c[f->cond[i].col].table;
			ngrp[ng++] = 1;
		}
	for (int ti = 0; ti < nt; ti++) {
		if (sc[ti] <= 0)
			continue;
		int all = 1;
		for (int g = 0; g < ng && all; g++) {
			int any = 0;
			for (int k = 0; k < ngrp[g] && !any; k++) {
				int e[4];
				any = grp[g][k] == ti || pf_path(p, ti, grp[g][k], e, 3) >= 0;
			}
			all = any;
		}
		if (all)
			sc[ti] += 3;
	}
}

/* pf_choose_fact: the fact table: the one with the best score of the votes above (the
 * retrieval's ranking, then the larger table, breaking a tie), or -1 when no table got any.
 * *tied: -1, or a second table of patients' or stays' rows that the votes put level with it and
 * that neither reaches from the other ("patients with pneumonia" where diagnoses and causes of
 * death both point to the concept: which rows are counted only the question can say) */
int pf_choose_fact(struct planner *p, int wants_time, int *tied)
{
	double sc[256] = {0}, tb[256] = {0};
	int nt = p->s->nt < 256 ? p->s->nt : 256;

	link_scores(p, sc, nt);
	adjust_scores(p, sc, tb, nt, wants_time);
	measure_scores(p, sc, nt);
	reach_scores(p, sc, nt);
	int best = -1;
	if (getenv("ASKQL_PLANNER_DEBUG"))
		for (int ti = 0; ti < nt; ti++)
			if (sc[ti] != 0)
				fprintf(stderr, "planner: fact score %s %.2f\n", p->s->t[ti].name, sc[ti] + tb[ti]);
	for (int ti = 0; ti < nt; ti++) {
		double s = sc[ti] + tb[ti], b = best < 0 ? 0 : sc[best] + tb[best];
		if (sc[ti] > 0 && (best < 0 || s > b || (s == b && p->s->t[ti].rows > p->s->t[best].rows)))
			best = ti;
	}
	*tied = -1;
	for (int ti = 0, e[4]; best >= 0 && ti < nt; ti++)
		if (ti != best && sc[ti] > 0 && fabs(sc[ti] - sc[best]) < 1e-9 && pf_holds_entity(p, ti) &&
		    pf_holds_entity(p, best) && pf_path(p, best, ti, e, 3) < 0 && pf_path(p, ti, best, e, 3) < 0)
			*tied = ti;
	return best;
}

/* pf_fact: the fact table of the question (else the home of the entity it names: "how many
 * patients"), with its time column and measure; 0, or -1 declined when nothing names a table */
int pf_fact(struct planner *p, const struct cues *c)
{
	struct frame *f = &p->f;

	int tied;
	f->fact = pf_choose_fact(p, c->wants_time, &tied);
	if (tied >= 0)
		return pf_decline(p, "the question's words fit two tables of different rows equally well (%s); which rows are "
		                     "meant could not be told",
		                  arena_printf(&p->a, "%s, %s", p->s->t[f->fact].name, p->s->t[tied].name));
	if (f->fact < 0 && f->entity_word) {
		/* "how many patients": a table named like the entity word ("patient", "patients") */
		for (int ti = 0; ti < p->s->nt && f->fact < 0; ti++)
			if (pf_entity_names_table(p, ti) && (!p->banned || !p->banned[ti]))
				f->fact = ti;
		if (f->fact >= 0 && pf_col_in(p, f->fact, f->entity_col) < 0) {
			/* its own key is the entity */
			for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
				if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id")) {
					f->entity_col = p->s->c[ci].name;
					break;
				}
		}
	}
	if (f->fact < 0 && f->entity_col && (!c->wants_time || pf_entity_home_timed(p))) {
		/* only the entity is named ("how many patients"): its home table, where the key is unique,
		 * else the smallest table that has it */
		for (int ti = 0; ti < p->s->nt; ti++) {
			int ec = pf_col_in(p, ti, f->entity_col);
			if (ec < 0 || (p->banned && p->banned[ti]))
				continue;
			if (f->fact < 0 || p->s->c[ec].unique ||
			    (!p->s->c[pf_col_in(p, f->fact, f->entity_col)].unique && p->s->t[ti].rows < p->s->t[f->fact].rows))
				f->fact = ti;
		}
	}
	if (f->fact < 0 && f->episode >= 0 && c->when && f->episode_which != 2 && f->entity_val) {
		/* "when was patient 7's last hospital visit (since a year ago)": the visits themselves, the
		 * last of them by their start in the period asked, not the last ended one then windowed */
		f->fact = f->episode;
		f->episode = -1;
		for (int i = 0; i < p->tk.n; i++)
			if ((p->tk.v[i].role == R_FIRST || p->tk.v[i].role == R_LAST) && p->tk.v[i].used &&
			    i + 1 < p->tk.n && (pf_is_visit_word(&p->tk.v[i + 1]) || !strcmp(p->tk.v[i + 1].text, "hospital")))
				p->tk.v[i].used = 0;
		pf_decide(p, "", "fact_table", p->s->t[f->fact].name, "when was the first/last visit: the visits, ordered by their start", 1);
	}
	if (f->fact < 0)
		return pf_decline(p, "%s", "nothing in the question names a table, column or stored value");
	if (f->entity_col && pf_entity_names_table(p, f->fact) && pf_col_in(p, f->fact, f->entity_col) < 0) {
		/* the entity's own table: its key is the entity */
		for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++)
			if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id")) {
				f->entity_col = p->s->c[ci].name;
				break;
			}
	}
	pf_decide(p, "", "fact_table", p->s->t[f->fact].name, "where the linked values and columns meet", 1);
	f->time_col = pf_time_col(p, f->fact);
	if (!f->measure_age)
		f->measure = pf_measure_col(p, f->fact);
	else if (p->s->c[f->measure].table != f->fact)
		/* an average age over stays or results: at the event or today? the question does not say */
		return pf_decline(p, "%s", "an age over events (at the event or today) is not a shape the offline planner builds");
	return 0;
}
