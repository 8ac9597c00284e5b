/* planner_together.c: things of one column given together (drugs prescribed at the same time, one
 * after another in the same month or the same visit): read from the words by pf_together_words,
 * built by pf_together_where as a condition on the fact's rows (docs/coverage.md, "Together"). */
#include <string.h>
#include "agent/planner_front.h"

static int is(const struct planner *p, int i, const char *w)
{
	return i >= 0 && i < p->tk.n && !strcmp(p->tk.v[i].text, w);
}

static void use(struct planner *p, int i)
{
	if (i >= 0 && i < p->tk.n) {
		p->tk.v[i].used = 1;
		p->tk.v[i].role = R_STOP;
	}
}

/* a word of role role (conf/lexicon/phrases.tsv) at or after token from, or -1 */
static int find_role_word(const struct planner *p, const char *role, int from)
{
	for (int i = from; i < p->tk.n; i++)
		if (planner_in_list(planner_lex_phrases(role), p->tk.v[i].text))
			return i;
	return -1;
}

int pf_together_words(struct planner *p)
{
	struct frame *f = &p->f;
	for (int i = 0; i + 1 < p->tk.n && !f->together; i++) {
		if (!is(p, i, "same"))
			continue;
		if (is(p, i + 1, "time")) {
			/* "A and B at the same time", "drugs prescribed at the same time" */
			f->together = TOG_SAME_TIME;
			use(p, i), use(p, i + 1);
		} else if (is(p, i + 1, "month") || is(p, i + 1, "day")) {
			/* "in the same month after they were prescribed X": X first, then the others */
			int after = find_role_word(p, "together_after", 0);
			if (after < 0)
				return 0;
			f->together = is(p, i + 1, "month") ? TOG_AFTER_SAME_MONTH : TOG_AFTER_SAME_DAY;
			use(p, i), use(p, i + 1), use(p, after);
		} else {
			/* "previously in the same (hospital) visit" */
			int v = is(p, i + 1, "hospital") ? i + 2 : i + 1;
			if (v >= p->tk.n || !pf_is_visit_word(&p->tk.v[v]))
				return 0;
			int before = find_role_word(p, "together_before", 0), after = find_role_word(p, "together_after", 0);
			if (before < 0 && after < 0)
				return 0;
			f->together = TOG_AFTER_SAME_VISIT;
			for (int k = i; k <= v; k++)
				use(p, k);
			use(p, before), use(p, after);
			if (f->visit_mention >= 0 && f->episode < 0)
				f->visit_mention = -1;   /* the visit relates the two prescriptions, it is no filter */
		}
		/* "patients also prescribed X": the also of the pair */
		for (int k = 0; k < p->tk.n; k++)
			if (is(p, k, "also"))
				use(p, k);
	}
	return 0;
}

/* the named things' column: a value list of the fact table's own text column */
static int value_list(const struct planner *p)
{
	const struct frame *f = &p->f;
	for (int k = 0; k < f->nin; k++)
		if (p->s->c[f->in[k].col].table == f->fact && !f->in[k].contains)
			return k;
	return -1;
}

/* pf_together_where: the join to the other thing's rows (see planner_front.h) */
int pf_together_where(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	if (!f->together)
		return 0;
	int k = value_list(p);
	const char *ent = planner_ent_column(p->s, ENT_PATIENT);
	int ec = ent ? pf_col_in(p, f->fact, ent) : -1, tc = f->time_col;
	/* no patient column in the fact: its key of the table that holds the patient (the stay), for
	 * what happens at one time or within one stay (a patient is in one stay at a time) */
	for (int e = 0; ec < 0 && ent && f->together != TOG_AFTER_SAME_MONTH && f->together != TOG_AFTER_SAME_DAY &&
	                e < p->s->nfk; e++)
		if (p->s->c[p->s->fk[e].from].table == f->fact && pf_col_in(p, p->s->c[p->s->fk[e].to].table, ent) >= 0)
			ec = p->s->fk[e].from;
	if (k < 0 || ec < 0 || tc < 0 || p->s->c[tc].table != f->fact)
		return pf_decline(p, "%s", "things given together were asked, but which things, whose and when could not be told");
	int col = f->in[k].col;
	const char *other;
	if (f->together == TOG_SAME_TIME && f->in[k].n == 2 && !f->rank_n) {
		other = f->in[k].vals[1];   /* A's rows at a time B was given too */
		f->in[k].n = 1;
	} else if (f->in[k].n == 1 && f->rank_n > 0 && f->rank_col == col) {
		other = f->in[k].vals[0];   /* the others ranked, beside X */
		for (int j = k; j + 1 < f->nin; j++)
			f->in[j] = f->in[j + 1];
		f->nin--;
	} else {
		return pf_decline(p, "%s", "things given together were asked, but not two named things, or one and the things ranked beside it");
	}
	/* a join of the fact table to itself (t1: the other thing's rows): each pair of rows counted,
	 * as the rows given together are (docs/coverage.md, "Together") */
	const char *fact = p->s->t[f->fact].name;
	if (q->njoins >= 6)
		return pf_decline(p, "%s", "too many joins");
	struct sexpr *c1 = sx_col(&p->a, "t1", p->s->c[col].name), *t1 = sx_col(&p->a, "t1", p->s->c[tc].name);
	struct sexpr *on = sx_and(&p->a, sx_cmp(&p->a, "=", sx_col(&p->a, "t1", p->s->c[ec].name), pf_col(p, ec)),
	                          sx_cmp(&p->a, "=", c1, sx_lit(&p->a, other)));
	const char *how;
	if (f->together == TOG_SAME_TIME) {
		on = sx_and(&p->a, on, sx_cmp(&p->a, "=", t1, pf_col(p, tc)));
		how = "given at the same time as";
	} else {
		on = sx_and(&p->a, on, sx_cmp(&p->a, "<", t1, pf_col(p, tc)));
		if (f->together == TOG_AFTER_SAME_VISIT) {
			int e = pf_key_into(p, f->fact, pf_visit_table(p, 0)), vk = e >= 0 ? p->s->fk[e].from : -1;
			if (vk < 0)
				return pf_decline(p, "the same visit was asked, but %s has no key of a visit", fact);
			on = sx_and(&p->a, on, sx_cmp(&p->a, "=", sx_col(&p->a, "t1", p->s->c[vk].name), pf_col(p, vk)));
			how = "given later in the same visit as";
		} else {
			const char *u = f->together == TOG_AFTER_SAME_MONTH ? "month" : "day";
			on = sx_and(&p->a, on, sx_cmp(&p->a, "=", sx_func(&p->a, "date_trunc", sx_lit(&p->a, u), t1),
			                              sx_func(&p->a, "date_trunc", sx_lit(&p->a, u), pf_col(p, tc))));
			how = f->together == TOG_AFTER_SAME_MONTH ? "given later in the same month as" : "given later on the same day as";
		}
		/* the earlier one inside the question's period too */
		if (f->has_win && f->win.from[0])
			on = sx_and(&p->a, on, sx_cmp(&p->a, ">=", t1, sx_ts(&p->a, f->win.from)));
		if (f->has_win && f->win.to[0])
			on = sx_and(&p->a, on, sx_cmp(&p->a, "<", t1, sx_ts(&p->a, f->win.to)));
	}
	q->joins[q->njoins].table = fact;
	q->joins[q->njoins].alias = "t1";
	q->joins[q->njoins++].on = on;
	pf_decide(p, "", "filter", arena_printf(&p->a, "%s %s '%s' (%s)", pf_cfq(p, col), how, other, pf_cfq(p, ec)),
	          "things given together: the rows of the same patient related to the other thing's rows", 1);
	return 0;
}
