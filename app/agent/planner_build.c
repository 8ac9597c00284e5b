/* planner_build.c: the frame becomes a SQL tree: filters, projection, aggregate or ranking, joins. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* expr_refs: whether e mentions table t, and whether it mentions any other table */
static void expr_refs(const struct sexpr *e, const char *t, int *has_t, int *has_other)
{
	if (!e)
		return;
	if (e->kind == SX_COL && e->a) {
		if (!strcmp(e->a, t))
			*has_t = 1;
		else
			*has_other = 1;
	}
	for (int i = 0; i < e->nargs; i++)
		expr_refs(e->args[i], t, has_t, has_other);
}

static int mentions(const struct sexpr *e, const char *t)
{
	int ht = 0, ho = 0;
	expr_refs(e, t, &ht, &ho);
	return ht;
}

/* semi_join: table ti is another event table of the same patient or stay (labs and vitals both
 * reference the case): its conditions become fact.key IN (SELECT key FROM ti WHERE ...), so
 * rows are not multiplied.  0 done, -1 when ti shares no patient or stay key with the fact table
 * or anything but a condition is asked of it. */
static int semi_join(struct planner *p, struct squery *q, int ti)
{
	const char *t = p->s->t[ti].name;
	int kf = -1, kt = -1;
	/* the parent is a patient or a stay: two concept ids that reference one dictionary are no
	 * shared parent (a condition's concept is not a measurement's) */
	if (!pf_shared_key(p, ti, &kf, &kt))
		return -1;
	for (int i = 0; i < q->nsel; i++)
		if (mentions(q->sel[i].e, t))
			return -1;
	for (int i = 0; i < q->ngroup; i++)
		if (mentions(q->group[i], t))
			return -1;
	for (int i = 0; i < q->norder; i++)
		if (mentions(q->order[i].e, t))
			return -1;
	if (mentions(q->having, t))
		return -1;
	struct squery *sub = arena_alloc(&p->a, sizeof *sub);
	if (!sub)
		return -1;
	memset(sub, 0, sizeof *sub);
	sub->from = sub->alias = t;
	sub->sel[sub->nsel++].e = pf_col(p, kt);
	for (int i = 0; i < q->nwhere; i++) {
		int ht = 0, ho = 0;
		expr_refs(q->where[i], t, &ht, &ho);
		if (!ht)
			continue;
		if (ho || sub->nwhere >= 24)
			return -1;
		sub->where[sub->nwhere++] = q->where[i];
		q->where[i--] = q->where[--q->nwhere];
	}
	if (!sub->nwhere || q->nwhere >= 24)
		return -1;
	q->where[q->nwhere++] = sx_in_sub(&p->a, pf_col(p, kf), sub);
	pf_decide(p, "", "join", arena_printf(&p->a, "%s IN (SELECT %s FROM %s WHERE ...)", pf_cfq(p, kf), pf_cfq(p, kt), t),
	       "another event table of the same parent: a condition on it, without multiplying rows", 1);
	return 0;
}

/* time_after: token i (first, last) is followed by a unit of time ("the first day of this year", "on
 * the last day of the stay", "first time"): a part of a time, not the first of each */
static int time_after(const struct planner *p, int i)
{
	static const char *const w[] = {"day", "days", "week", "weeks", "month", "months", "year", "years", "hour", "hours",
	                                "time", "times", "날", "일", "주", "달", "해", NULL};
	if (i + 1 >= p->tk.n)
		return 0;
	const struct ptok *t = &p->tk.v[i + 1];
	return t->role == R_UNIT || t->role == R_BUCKET || planner_in_list(w, t->text) || planner_in_list(w, t->stem);
}

/* and_between: the values of column col the question names are joined by "and" (and, 및,
 * 그리고, a value written with 과/와/랑/하고) and no "or" (or, 또는, 혹은, 이나) is said */
static int and_between(struct planner *p, int col)
{
	static const char *const ands[] = {"and", "및", "그리고", NULL}, *const ors[] = {"or", "또는", "혹은", NULL};
	static const char *const tails[] = {"과", "와", "랑", "하고", NULL};
	int t0 = -1, t1 = -1, and = 0;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_VALUE || it->bound != col + 1)
			continue;
		t0 = t0 < 0 || it->t0 < t0 ? it->t0 : t0;
		t1 = it->t1 > t1 ? it->t1 : t1;
	}
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		for (int k = 0; ors[k]; k++)
			if (!strcmp(t->text, ors[k]) || (t->hangul && planner_ends_with(t->raw, "이나")))
				return 0;
		for (int k = 0; ands[k] && i > t0 && i < t1; k++)
			and |= !strcmp(t->text, ands[k]);
		for (int k = 0; tails[k] && t->hangul && i >= t0 && i < t1 - 1; k++)
			and |= strcmp(t->raw, t->text) && planner_ends_with(t->raw, tails[k]);
	}
	return and;
}

/* value_cond: col = 'val', or col ILIKE '%val%' for a part of stored labels */
static struct sexpr *value_cond(struct planner *p, int col, const char *val, int contains)
{
	return contains ? sx_cmp(&p->a, "ILIKE", pf_col(p, col), sx_lit(&p->a, arena_printf(&p->a, "%%%s%%", val)))
	                : sx_cmp(&p->a, "=", pf_col(p, col), sx_lit(&p->a, val));
}

/* add_semi: the values reached through another event table of the same patient or stay:
 * fact.key IN (SELECT ev.key FROM ev JOIN dict ON ... WHERE dict.col = 'v'); 0 or -1 declined */
static int add_semi(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	for (int i = 0; i < f->nsemi; i++) {
		int kf = -1, kt = -1, ev = f->semi[i].event, done = 0;
		for (int j = 0; j < i; j++)
			done |= f->semi[j].event == ev;
		if (done)
			continue;   /* one subquery per event table, with all its conditions */
		struct squery *sub = arena_alloc(&p->a, sizeof *sub);
		if (!sub || !pf_semi_keys(p, ev, &kf, &kt) || q->nwhere >= 24)
			return pf_decline(p, "%s", "a value of another event table could not be joined");
		memset(sub, 0, sizeof *sub);
		sub->from = sub->alias = p->s->t[ev].name;
		sub->sel[sub->nsel++].e = pf_col(p, kt);
		for (int j = i; j < f->nsemi; j++) {
			int col = f->semi[j].col, jt = p->s->c[col].table, have = jt == ev;
			if (f->semi[j].event != ev)
				continue;
			for (int k = 0; k < sub->njoins; k++)
				have |= !strcmp(sub->joins[k].table, p->s->t[jt].name);
			if (!have && f->semi[j].edge >= 0 && sub->njoins < 6) {
				const struct pfk *e = &p->s->fk[f->semi[j].edge];
				sub->joins[sub->njoins].table = sub->joins[sub->njoins].alias = p->s->t[jt].name;
				sub->joins[sub->njoins++].on = sx_cmp(&p->a, "=", pf_col(p, e->from), pf_col(p, e->to));
			}
			sub->where[sub->nwhere++] = value_cond(p, col, f->semi[j].val, f->semi[j].contains);
		}
		q->where[q->nwhere++] = sx_in_sub(&p->a, pf_col(p, kf), sub);
		pf_decide(p, "", "join", arena_printf(&p->a, "%s IN (SELECT %s FROM %s WHERE ...)", pf_cfq(p, kf), pf_cfq(p, kt),
		                                      p->s->t[ev].name),
		          "the patient or stay had the named things in another event table", 1);
	}
	return 0;
}

/* age_expr: the age in whole years at the question's "now" of birth-date column col */
static struct sexpr *age_expr(struct planner *p, int col)
{
	const struct tm *t = &p->now;
	const char *now = arena_printf(&p->a, "%04d-%02d-%02d %02d:%02d:%02d", t->tm_year + 1900, t->tm_mon + 1, t->tm_mday,
	                               t->tm_hour, t->tm_min, t->tm_sec);
	return sx_func(&p->a, "date_part", sx_lit(&p->a, "year"), sx_func(&p->a, "AGE", sx_ts(&p->a, now), pf_col(p, col)));
}

/* typed_join: join table ti to the fact table by a typed link (struct ptlink) between them, the
 * type column's value in the ON clause: JOIN cost ON cost.event_id = labevents.row_id AND
 * cost.event_type = 'labevents'; 0, or -1 when no link joins the two */
static int typed_join(struct planner *p, struct squery *q, int ti, int *joined)
{
	struct frame *f = &p->f;
	for (int k = 0; k < p->s->ntl; k++) {
		const struct ptlink *l = &p->s->tl[k];
		int from = p->s->c[l->id_col].table;
		if (!((from == f->fact && l->table == ti) || (from == ti && l->table == f->fact)) || q->njoins >= 6)
			continue;
		q->joins[q->njoins].table = q->joins[q->njoins].alias = p->s->t[ti].name;
		q->joins[q->njoins++].on = sx_and(&p->a, sx_cmp(&p->a, "=", pf_col(p, l->id_col), pf_col(p, l->key)),
		                                  sx_cmp(&p->a, "=", pf_col(p, l->type_col), sx_lit(&p->a, l->value)));
		joined[ti] = 1;
		pf_decide(p, "", "join", arena_printf(&p->a, "%s = %s AND %s = '%s'", pf_cfq(p, l->id_col), pf_cfq(p, l->key),
		                                      pf_cfq(p, l->type_col), l->value),
		          "a typed link: the type column names the table the id points into", 1);
		return 0;
	}
	return -1;
}

/* abbreviates: the first part of column name nm (before '_', three letters or more) is word w
 * shortened, its letters in order and the first the same (dept for department) */
static int abbreviates(const char *nm, const char *w)
{
	size_t n = strcspn(nm, "_");
	if (n < 3 || n >= strlen(w) || nm[0] != w[0])
		return 0;
	for (size_t i = 0, j = 0; i < n; i++, j++) {
		while (w[j] && w[j] != nm[i])
			j++;
		if (!w[j])
			return 0;
	}
	return 1;
}

/* key_said: how many words of the question (two letters or more) the key column's name or
 * comment contains ("입원 진료과 코드" holds 진료과 and 입원) */
static int key_said(struct planner *p, int col)
{
	const char *nm = p->s->c[col].name, *cm = p->s->c[col].comment ? p->s->c[col].comment : "";
	int n = 0;
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_WORD || strlen(t->text) < (t->hangul ? 6u : 3u))
			continue;
		if (strstr(cm, t->text) || strstr(nm, t->text) || (t->stem && strlen(t->stem) >= 3 && strstr(nm, t->stem)) ||
		    (!t->hangul && abbreviates(nm, t->text)))
			n++;
	}
	return n;
}

/* pf_pick_key: contract in planner_front.h (docs/coverage.md, "Two keys into one table") */
int pf_pick_key(struct planner *p, int k, int *other_key)
{
	const struct pfk *fk = p->s->fk;
	int ft = p->s->c[fk[k].from].table, tt = p->s->c[fk[k].to].table;
	int best = k, best_n = -1, tie = 0, twins = 0;
	for (int j = 0; j < p->s->nfk; j++) {
		if (p->s->c[fk[j].from].table != ft || p->s->c[fk[j].to].table != tt)
			continue;
		if (j != k && fk[j].from == fk[k].from)
			continue;   /* the same key, found twice (declared and inferred) */
		if (j != k) {
			twins++;
			*other_key = fk[j].from;
		}
		int n = key_said(p, fk[j].from);
		if (n > best_n) {
			best = j;
			best_n = n;
			tie = 0;
		} else if (n == best_n)
			tie = 1;
	}
	if (!twins)
		return k;
	return tie ? -1 : best;
}

/* join every needed table along the shortest key path from the fact table */
static int add_joins(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	int joined[256] = {0};
	joined[f->fact] = 1;
	for (int i = 0; i < f->nneed; i++) {
		int e[4], n = pf_path(p, f->fact, f->need[i], e, 3);
		if (n < 0 && semi_join(p, q, f->need[i]) == 0)
			continue;
		if (n < 0 && !joined[f->need[i]] && typed_join(p, q, f->need[i], joined) == 0)
			continue;
		if (n < 0 && joined[f->need[i]])
			continue;
		if (n < 0)
			return pf_decline(p, "no join path from %s to the other table it needs", p->s->t[f->fact].name);
		/* edges are listed from the target back to the fact table: walk them forward */
		int cur = f->fact;
		for (int k = n - 1; k >= 0; k--) {
			int a = p->s->fk[e[k]].from, b = p->s->fk[e[k]].to;
			int other = p->s->c[a].table == cur ? p->s->c[b].table : p->s->c[a].table;
			if (!joined[other] && (!p->via || p->via[other] < 0)) {
				int other_key = -1, pk = pf_pick_key(p, e[k], &other_key);
				if (pk < 0)
					return pf_decline(p, "%s: two keys of one table lead to the same table, and the question does not "
					                     "say which to join by",
					                  arena_printf(&p->a, "%s / %s", pf_cfq(p, a), pf_cfq(p, other_key)));
				a = p->s->fk[pk].from;
				b = p->s->fk[pk].to;
			}
			if (!joined[other]) {
				if (q->njoins >= 6)
					return pf_decline(p, "%s", "too many joins");
				q->joins[q->njoins].table = p->s->t[other].name;
				q->joins[q->njoins].alias = p->s->t[other].name;
				q->joins[q->njoins].on = sx_cmp(&p->a, "=", pf_col(p, a), pf_col(p, b));
				q->njoins++;
				joined[other] = 1;
				pf_decide(p, "", "join", arena_printf(&p->a, "%s = %s", pf_cfq(p, a), pf_cfq(p, b)),
				       p->s->fk[e[k]].inferred ? "inferred key (same name, unique on one side)" : "declared foreign key", 1);
			}
			cur = other;
		}
	}
	return 0;
}

/* the visit restriction: fact.key IN (SELECT key FROM visit WHERE entity = N ... ORDER BY start LIMIT 1) */
static int add_visit(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	if (f->episode < 0)
		return 0;
	const struct ptab *v = &p->s->t[f->episode];
	int key = -1, fkey = -1;
	for (int ci = v->c0; ci < v->c0 + v->nc && key < 0; ci++) {
		if (!p->s->c[ci].unique || strcmp(p->s->c[ci].name, "row_id") == 0)
			continue;
		if (f->fact == f->episode) {
			key = ci;
			fkey = ci;
			break;
		}
		int fc = pf_col_in(p, f->fact, p->s->c[ci].name);
		if (fc >= 0) {
			key = ci;
			fkey = fc;
		}
	}
	/* the fact table does not carry the visit key, but a table its key points into does (a
	 * vital sign of an ICU episode, the episode of a hospital stay): the fact's rows of that
	 * table's rows of the visit, fact.ptr IN (SELECT mid.key FROM mid WHERE mid.visit IN (...));
	 * a join of the visit table would go by whatever path joins it, the patient's key among them */
	int ptr = -1, ptr_to = -1;   /* fact column pointing into mid, and the column it points to */
	for (int k = 0; key < 0 && k < p->s->nfk; k++) {
		int mid = p->s->c[p->s->fk[k].to].table;
		if (p->s->c[p->s->fk[k].from].table != f->fact || mid == f->episode || mid == f->fact)
			continue;
		for (int ci = v->c0; ci < v->c0 + v->nc && key < 0; ci++) {
			int mc = p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id") ? pf_col_in(p, mid, p->s->c[ci].name) : -1;
			if (mc < 0)
				continue;
			key = ci;
			fkey = mc;
			ptr = p->s->fk[k].from;
			ptr_to = p->s->fk[k].to;
		}
	}
	if (key < 0) {
		/* the fact table does not carry the visit key: join through it */
		for (int ci = v->c0; ci < v->c0 + v->nc && key < 0; ci++)
			if (p->s->c[ci].unique && strcmp(p->s->c[ci].name, "row_id"))
				key = ci;
		if (key < 0)
			return pf_decline(p, "the visit table %s has no key", v->name);
		pf_need(p, f->episode);
		fkey = key;
	}
	int start = -1, end = -1;
	for (int ci = v->c0; ci < v->c0 + v->nc; ci++) {
		if (p->s->c[ci].type != PT_TIME)
			continue;
		if (start < 0)
			start = ci;
		else if (end < 0)
			end = ci;
	}
	struct squery *sq = arena_alloc(&p->a, sizeof *sq);
	if (!sq)
		return -1;
	sq->from = v->name;
	sq->alias = v->name;
	sq->sel[sq->nsel++].e = pf_col(p, key);
	int ec = pf_col_in(p, f->episode, f->entity_col);
	if (ec < 0 || !f->entity_val)
		return pf_decline(p, "%s", "a first/last visit needs a patient");
	sq->where[sq->nwhere++] = sx_cmp(&p->a, "=", pf_col(p, ec), sx_num(&p->a, f->entity_val));
	if (f->episode_which == 2) {
		sq->where[sq->nwhere++] = sx_null(&p->a, pf_col(p, end), 0);
	} else {
		sq->where[sq->nwhere++] = sx_null(&p->a, pf_col(p, end), 1);
		sq->order[sq->norder].e = pf_col(p, start);
		sq->order[sq->norder++].desc = f->episode_which < 0;
		sq->limit = 1;
	}
	if (ptr >= 0) {
		struct squery *mq = arena_alloc(&p->a, sizeof *mq);
		if (!mq)
			return -1;
		mq->from = mq->alias = p->s->t[p->s->c[ptr_to].table].name;
		mq->sel[mq->nsel++].e = pf_col(p, ptr_to);
		mq->where[mq->nwhere++] = sx_in_sub(&p->a, pf_col(p, fkey), sq);
		pf_decide(p, "", "visit", pf_cfq(p, fkey), "the visit reached through the table the fact's key points into", 0.9);
		q->where[q->nwhere++] = sx_in_sub(&p->a, pf_col(p, ptr), mq);
		return 0;
	}
	q->where[q->nwhere++] = sx_in_sub(&p->a, pf_col(p, fkey), sq);
	return 0;
}

/* cond_rhs: the right side of condition i: a number, a text literal, or another column (a
 * reference range's limit, whose table the query then needs) */
static struct sexpr *cond_rhs(struct planner *p, int i)
{
	struct frame *f = &p->f;
	if (f->cond[i].num == 5) {
		pf_need(p, p->s->c[f->cond[i].col2].table);
		return pf_col(p, f->cond[i].col2);
	}
	return f->cond[i].num ? sx_num(&p->a, f->cond[i].lit) : sx_lit(&p->a, f->cond[i].lit);
}

/* a metadata literal is printed as written: only numbers, quoted strings and lists of them */
static int lit_ok(const char *s)
{
	int inq = 0;
	for (; *s; s++) {
		if (*s == '\'') {
			inq = !inq;
			continue;
		}
		if (inq)
			continue;
		if (!strchr("0123456789.-+ (),", *s))
			return 0;
	}
	return !inq;
}

/* entity_ref: the entity's column in the fact table, else in the first table that has it (joined:
 * needed); -1 when no table has it */
static int entity_ref(struct planner *p)
{
	int ec = pf_col_in(p, p->f.fact, p->f.entity_col);
	/* else a table already joined that holds it, else the nearest one by keys (the vital sign's
	 * operation, not a lab table three keys away that also holds the patient number) */
	for (int i = 0; i < p->f.nneed && ec < 0; i++)
		ec = pf_col_in(p, p->f.need[i], p->f.entity_col);
	int best = -1, best_n = 99;
	for (int ti = 0; ti < p->s->nt && ec < 0; ti++) {
		int e[4], n;
		if (pf_col_in(p, ti, p->f.entity_col) >= 0 && (n = pf_path(p, p->f.fact, ti, e, 3)) >= 0 && n < best_n)
			best = ti, best_n = n;
	}
	for (int ti = 0; ti < p->s->nt && ec < 0; ti++)
		if (best < 0 || ti == best)
			if ((ec = pf_col_in(p, ti, p->f.entity_col)) >= 0)
				pf_need(p, ti);
	return ec;
}

/* pick_pivot: "admissions of men and women by ward": values that are every value their column
 * holds filter nothing; each is asked for apart, so each becomes a column of the aggregate
 * (docs/coverage.md, "Values named together") */
static void pick_pivot(struct planner *p)
{
	struct frame *f = &p->f;
	if (!f->agg || !strcmp(f->agg, "RATE") || f->bucket || f->nagg2 || f->pivot >= 0)
		return;
	/* a column per value only when columns are asked for ("남자 건수, 여자 건수 두 칸으로",
	 * conf/lexicon/phrases.tsv role as_columns); else the column is one more grouping, after
	 * those named (진료과 × 성별) */
	const char *const *cw = planner_lex_phrases("as_columns");
	int columns = 0;
	for (int i = 0; cw && i < p->tk.n; i++)
		columns |= planner_in_list(cw, p->tk.v[i].text) || (p->tk.v[i].raw && planner_in_list(cw, p->tk.v[i].raw));
	/* "highest hemoglobin and highest hematocrit": two measured items named by the label of the
	 * rows measured; one MAX over both mixes two measurements, so each is a column */
	int via, label = pf_label_col(p, f->fact, &via);
	int measure_agg = strcmp(f->agg, "COUNT") != 0;
	for (int k = 0; k < f->nin && f->pivot < 0; k++) {
		int col = f->in[k].col, grouped = 0;
		for (int g = 0; g < f->ngroup; g++)
			grouped |= f->group[g] == col;
		if (f->in[k].n >= 2 && !f->in[k].contains && !grouped && measure_agg && col == label) {
			f->pivot = k;   /* (pivot_grouped stays 0: a column each) */
			continue;
		}
		if (f->in[k].n >= 2 && !f->in[k].contains && !grouped && p->s->c[col].nvalues >= 2 &&
		    f->in[k].n >= p->s->c[col].nvalues && (columns || f->ngroup < 3)) {
			f->pivot = k;
			f->pivot_grouped = !columns;
			if (!columns)
				f->group[f->ngroup++] = col;
		}
	}
}

/* birth_col: column ci holds a date of birth (birth_datetime, brth_dt, dob; 생년월일 in its comment) */
static int birth_col(const struct planner *p, int ci)
{
	const struct pcol *c = &p->s->c[ci];
	return strstr(c->name, "birth") || strstr(c->name, "brth") || !strcmp(c->name, "dob") ||
	       (c->comment && (strstr(c->comment, "생년월일") || strstr(c->comment, "출생") || strcasestr(c->comment, "birth")));
}

/* birth_said: the question speaks of birth (conf/lexicon/phrases.tsv, birth_word: born, 출생) */
static int birth_said(const struct planner *p)
{
	const char *const *w = planner_lex_phrases("birth_word");
	for (int i = 0; i < p->tk.n; i++)
		if (planner_in_list(w, p->tk.v[i].text) || planner_in_list(w, p->tk.v[i].stem))
			return 1;
	return 0;
}

/* build_where: the WHERE clause: the numbered entity, stored values (several of one column: IN),
 * comparisons and concepts, the time window, the visit, "currently admitted"; 0 or -1 declined */
static int build_where(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	const char *fact = p->s->t[f->fact].name;

	/* entity filter, directly or through a join */
	if (f->entity_col && pf_col_in(p, f->fact, f->entity_col) < 0) {
		/* diagnosis_table.subject_id for the patient key subjectid: same entity, other spelling */
		for (int ci = p->s->t[f->fact].c0; ci < p->s->t[f->fact].c0 + p->s->t[f->fact].nc; ci++) {
			char a[128], b[128];
			size_t k = 0;
			for (const char *c = p->s->c[ci].name; *c && k < sizeof a - 1; c++)
				if (*c != '_')
					a[k++] = *c;
			a[k] = 0;
			k = 0;
			for (const char *c = f->entity_col; *c && k < sizeof b - 1; c++)
				if (*c != '_')
					b[k++] = *c;
			b[k] = 0;
			if (!strcmp(a, b))
				f->entity_col = p->s->c[ci].name;
		}
	}
	if (f->entity_val && f->entity_key >= 0) {
		/* a numbered row of another table: join to it (many-to-one) and filter its key */
		pf_need(p, p->s->c[f->entity_key].table);
		q->where[q->nwhere++] = sx_cmp(&p->a, "=", pf_col(p, f->entity_key), sx_num(&p->a, f->entity_val));
	} else if (f->entity_val) {
		int ec = entity_ref(p);
		if (ec < 0)
			return pf_decline(p, "%s", "no table carries the patient/case key");
		q->where[q->nwhere++] = sx_cmp(&p->a, "=", pf_col(p, ec), sx_num(&p->a, f->entity_val));
	}
	/* value filters (several values of one column become IN) */
	for (int i = 0; i < f->nin; i++) {
		pf_need(p, p->s->c[f->in[i].col].table);
		if (i == f->pivot)
			continue;   /* each value is its own column's FILTER */
		if (f->in[i].contains || f->in[i].n == 1) {
			q->where[q->nwhere++] = value_cond(p, f->in[i].col, f->in[i].vals[0], f->in[i].contains);
		} else {
			/* "patients prescribed warfarin and aspirin": each row holds one of them, so the
			 * patients counted either had both or had either; the question does not say which */
			int ec = f->entity_word && f->entity_col ? pf_col_in(p, f->fact, f->entity_col) : -1;
			if (ec >= 0 && !p->s->c[ec].unique && and_between(p, f->in[i].col))
				return pf_decline(p, "%s: one row holds one of them, so the patients (or stays) with both and those with "
				                     "either are different counts; the question does not say which",
				                  arena_printf(&p->a, "'%s' and '%s' (%s)", f->in[i].vals[0], f->in[i].vals[1],
				                               pf_cfq(p, f->in[i].col)));
			struct sexpr *v[8];
			for (int k = 0; k < f->in[i].n; k++)
				v[k] = sx_lit(&p->a, f->in[i].vals[k]);
			q->where[q->nwhere++] = sx_in_list(&p->a, pf_col(p, f->in[i].col), v, f->in[i].n);
		}
	}
	for (int i = 0; i < f->ncond && q->nwhere < 22; i++) {
		pf_need(p, p->s->c[f->cond[i].col].table);
		if (f->rate_n && i >= f->rate_from && i < f->rate_from + f->rate_n)
			continue;   /* the rate's numerator: in the projection, not a filter */
		int again = 0;   /* the part named again ("mortality rate (deaths / cases)"): not the base,
		                  * or every share would be 100% */
		for (int k = f->rate_from; f->rate_n && k < f->rate_from + f->rate_n; k++)
			again |= f->cond[k].col == f->cond[i].col;
		if (again)
			continue;
		struct sexpr *lhs = f->cond[i].num == 4 ? age_expr(p, f->cond[i].col) : pf_col(p, f->cond[i].col);
		if (f->cond[i].num == 2) {
			q->where[q->nwhere++] = sx_null(&p->a, lhs, 1);
			continue;
		}
		struct sexpr *rhs = cond_rhs(p, i);
		if (f->cond[i].num == 3 && !lit_ok(f->cond[i].lit))
			return pf_decline(p, "%s", "a concept's definition in the metadata is not a simple condition");
		if (!strcmp(f->cond[i].op, "BETWEEN")) {
			q->where[q->nwhere++] = sx_cmp(&p->a, ">=", lhs, rhs);
			/* (both bounds on the same side: the age at "now" of a birth date, not the date) */
			struct sexpr *lhs2 = f->cond[i].num == 4 ? age_expr(p, f->cond[i].col) : pf_col(p, f->cond[i].col);
			q->where[q->nwhere++] = sx_cmp(&p->a, "<=", lhs2, sx_num(&p->a, f->cond[i].lit2));
		} else {
			q->where[q->nwhere++] = sx_cmp(&p->a, f->cond[i].op, lhs, rhs);
		}
	}
	if (f->has_win) {
		if (f->time_col < 0)
			return pf_decline(p, "the question has a time window but %s has no time column", fact);
		/* "2025년 남자 환자 수" on a table whose one time is the birth date: those born in 2025 */
		if (birth_col(p, f->time_col) && !birth_said(p))
			return pf_decline(p, "the question's time window would fall on %s, a date of birth; which dates it means could "
			                     "not be told", pf_cfq(p, f->time_col));
		pf_need(p, p->s->c[f->time_col].table);
		if (f->win.from[0] && f->win.to[0])
			q->win_where = q->nwhere + 1;
		if (f->win.from[0])
			q->where[q->nwhere++] = sx_cmp(&p->a, ">=", pf_col(p, f->time_col), sx_ts(&p->a, f->win.from));
		if (f->win.to[0])
			q->where[q->nwhere++] = sx_cmp(&p->a, "<", pf_col(p, f->time_col), sx_ts(&p->a, f->win.to));
	}
	if (add_visit(p, q) < 0)
		return -1;
	for (int i = 0; i < p->tk.n && !f->current_all && !f->entity_val; i++)
		if (p->tk.v[i].role == R_CURRENT && !p->tk.v[i].used && f->fact >= 0 &&
		    (f->visit_mention == f->fact || pf_stay_table(p) == f->fact || pf_visit_table(p, 1) == f->fact)) {
			/* "patients currently admitted", "currently in the ICU": the stay named has not ended */
			f->visit_mention = f->fact;
			f->current_all = 1;
			p->tk.v[i].used = 1;
		}
	for (int i = 0; i < p->tk.n && !f->current_all && !f->entity_val && f->episode < 0; i++)
		if (p->tk.v[i].role == R_CURRENT && !p->tk.v[i].used)
			return pf_decline(p, "the question asks what is so '%s', but the plan's table records no stay that is still "
			                     "open", p->tk.v[i].text);
	if (f->current_all) {
		/* the end time of the visit table is empty */
		const struct ptab *v = &p->s->t[f->visit_mention];
		int end = -1, nt = 0;
		for (int ci = v->c0; ci < v->c0 + v->nc; ci++)
			if (p->s->c[ci].type == PT_TIME && ++nt == 2)
				end = ci;
		if (end < 0)
			return pf_decline(p, "%s", "the visit table has no end time");
		pf_need(p, f->visit_mention);
		q->where[q->nwhere++] = sx_null(&p->a, pf_col(p, end), 0);
	}

	return 0;
}

/* build_ranking: the ranked label, DENSE_RANK over its count (or the aggregate of the measure),
 * and the count itself beside it */
static void build_ranking(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	pf_need(p, p->s->c[f->rank_col].table);
	q->sel[q->nsel].e = pf_col(p, f->rank_col);
	q->sel[q->nsel++].as = p->s->c[f->rank_col].name;
	/* what ranks: the aggregate of the measure, the number of distinct entities (the most
	 * patients), else the number of rows */
	int ek = !f->rank_entity ? -1 : f->rank_entity_col >= 0 ? f->rank_entity_col : pf_col_in(p, f->fact, f->entity_col);
	struct sexpr *cnt = f->rank_agg ? sx_agg(&p->a, f->rank_agg, 0, pf_col(p, f->measure))
	                  : ek >= 0 ? sx_agg(&p->a, "COUNT", 1, pf_col(p, ek))
	                            : sx_agg(&p->a, "COUNT", 0, sx_star(&p->a));
	if (f->rank_agg)
		pf_need(p, p->s->c[f->measure].table);
	struct sexpr *dr = sx_agg(&p->a, "DENSE_RANK", 0, NULL);
	dr->kind = SX_WIN_DENSE;
	dr->distinct = f->rank_asc;   /* printed as ASC */
	dr->args[0] = cnt;
	q->sel[q->nsel].e = dr;
	q->sel[q->nsel++].as = "rnk";
	/* the ranking's measure is shown beside each item (top 5 departments and their counts) */
	q->sel[q->nsel].e = cnt;
	char *mas = f->rank_agg ? arena_printf(&p->a, "%s_%s", f->rank_agg, p->s->c[f->measure].name) : NULL;
	for (char *c = mas; c && *c; c++)
		*c = (char)tolower((unsigned char)*c);
	q->sel[q->nsel++].as = mas ? mas : "count";
	q->group[q->ngroup++] = pf_col(p, f->rank_col);
	/* an item with no label (a transfer with no care unit, a culture with no organism) is none of
	 * the items asked for: it does not take a place in the ranking */
	if (q->nwhere < (int)(sizeof q->where / sizeof q->where[0]))
		q->where[q->nwhere++] = sx_null(&p->a, pf_col(p, f->rank_col), 1);
	if (f->rank_key >= 0)
		q->group[q->ngroup++] = pf_col(p, f->rank_key);   /* one rank per item, not per label text */
	q->rank_n = f->rank_n;
}

/* pf_dur_name: the unit a duration is given in, as its column is named: said ("in hours"), else the
 * shape's own (days for stays, minutes for start and end times) */
const char *pf_dur_name(const struct frame *f)
{
	return f->dur_unit == 'h' ? "hours" : f->dur_unit == 'd' ? "days" : f->dur_unit == 's' ? "seconds"
	     : f->dur_unit == 'i' ? "minutes" : f->dur_days ? "days" : "minutes";
}

/* duration_expr: the frame's duration: a length of stay in days between the dates (dur_days 1),
 * the time of a stay in days with their fraction (2), else minutes; in the unit said (dur_unit) when one was */
static struct sexpr *duration_expr(struct planner *p)
{
	struct frame *f = &p->f;
	/* "in hours": the time between them in that unit, with its fraction (as timestamps: a date
	 * minus a date is a whole number of days); "in days" of a stay's dates stays the dates' difference */
	if (f->dur_unit && !(f->dur_unit == 'd' && f->dur_days == 1)) {
		const char *div = f->dur_unit == 'h' ? "3600" : f->dur_unit == 'd' ? "86400" : f->dur_unit == 's' ? "1" : "60";
		return sx_arith(&p->a, "/", sx_func(&p->a, "date_part", sx_lit(&p->a, "epoch"),
		                                    sx_arith(&p->a, "-", sx_cast(&p->a, pf_col(p, f->dur_end), "timestamp"),
		                                             sx_cast(&p->a, pf_col(p, f->dur_start), "timestamp"))),
		                sx_num(&p->a, div));
	}
	if (f->dur_days == 1)
		return sx_arith(&p->a, "-", sx_cast(&p->a, pf_col(p, f->dur_end), "date"), sx_cast(&p->a, pf_col(p, f->dur_start), "date"));
	return sx_arith(&p->a, "/", sx_func(&p->a, "date_part", sx_lit(&p->a, "epoch"),
	                                    sx_arith(&p->a, "-", pf_col(p, f->dur_end), pf_col(p, f->dur_start))),
	                sx_num(&p->a, f->dur_days == 2 ? "86400" : "60"));
}

/* agg_item: one aggregate as a select item named like it (avg, count, avg_minutes): COUNT of the
 * counted entity (DISTINCT) or of rows, else of the measure or of the duration in minutes */
static void agg_item(struct planner *p, struct squery *q, const char *agg)
{
	struct frame *f = &p->f;
	struct sexpr *arg;
	int distinct = 0;
	if (!strcmp(agg, "COUNT") && (f->count_entity || (f->nagg2 && f->entity_count && f->entity_col))) {
		int ec = entity_ref(p);
		arg = pf_col(p, ec);
		distinct = 1;
	} else if (!strcmp(agg, "COUNT") && f->count_col >= 0) {
		pf_need(p, p->s->c[f->count_col].table);
		arg = pf_col(p, f->count_col);
		distinct = 1;
	} else if (!strcmp(agg, "COUNT")) {
		arg = sx_star(&p->a);
	} else if (f->measure < 0 && f->dur_start >= 0) {
		arg = duration_expr(p);
	} else {
		pf_need(p, p->s->c[f->measure].table);
		arg = f->measure_age ? age_expr(p, f->measure) : pf_col(p, f->measure);
	}
	/* "by ward, men and women": one aggregate per value named, each over its rows (FILTER) */
	int split = f->pivot >= 0 && !f->pivot_grouped, nv = split ? f->in[f->pivot].n : 1;
	for (int v = 0; v < nv && q->nsel < 16; v++) {
		q->sel[q->nsel].e = sx_agg(&p->a, agg, distinct, arg);
		if (split && q->sel[q->nsel].e)
			q->sel[q->nsel].e->filter = value_cond(p, f->in[f->pivot].col, f->in[f->pivot].vals[v], 0);
		if (f->decimals && strcmp(agg, "COUNT"))   /* "1 decimal": ROUND(AVG(x)::numeric, 1) */
			q->sel[q->nsel].e = sx_func(&p->a, "ROUND", sx_cast(&p->a, q->sel[q->nsel].e, "numeric"),
			                            sx_num(&p->a, arena_printf(&p->a, "%d", f->decimals - 1)));
		char *as = f->measure < 0 && f->dur_start >= 0 && strcmp(agg, "COUNT") ? arena_printf(&p->a, "%s_%s", agg, pf_dur_name(f))
		                                                                      : arena_printf(&p->a, "%s", agg);
		if (split)
			as = arena_printf(&p->a, "%s_%s", as, f->in[f->pivot].vals[v]);
		for (char *c = as; c && *c; c++)
			*c = isalnum((unsigned char)*c) || (unsigned char)*c >= 0x80 ? (char)tolower((unsigned char)*c) : '_';
		q->sel[q->nsel++].as = as;
	}
}

/* counts_dictionary: "외래 환자 수" once counted the concept dictionary's rows whose code is OP: a
 * count whose table is a dictionary (other tables reference it, it holds no patient or stay) that
 * the question reaches only through one of its values counts entries, not patients or events */
static int counts_dictionary(struct planner *p)
{
	struct frame *f = &p->f;
	int named = 0;
	if (strcmp(f->agg, "COUNT") || !pf_is_dictionary(p, f->fact))
		return 0;
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		named |= (it->kind == PL_TABLE && it->table == f->fact) ||
		         (it->kind == PL_COLUMN && it->role != 2 && p->s->c[it->cols[0]].table == f->fact);
	}
	/* named, but said to have happened ("how many different drugs were prescribed"): the things
	 * of the rows that point into it, not its entries (conf/lexicon/phrases.tsv, event_verb) */
	const char *const *ev = planner_lex_phrases("event_verb");
	for (int i = 0; i < p->tk.n && named; i++)
		if (planner_in_list(ev, p->tk.v[i].text) || planner_in_list(ev, p->tk.v[i].stem))
			named = 0;
	return !named;
}

/* one_row_each: table t keeps one row per patient, case or stay: the key of one of them is unique in it */
static int one_row_each(struct planner *p, int t)
{
	for (int k = 0; k < ENT_NKINDS; k++) {
		const char *ec = planner_ent_column(p->s, k);
		int ci = ec ? pf_col_in(p, t, ec) : -1;
		if (ci >= 0 && p->s->c[ci].unique)
			return 1;
	}
	return 0;
}

/* build_aggregate: the aggregate (COUNT, COUNT DISTINCT entity, AVG..., a rate in percent, a
 * duration in minutes) and the summary's further aggregates, ordered and limited for a top N of
 * groups; 0 or -1 declined */
static int build_aggregate(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	if (counts_dictionary(p))
		return pf_decline(p, "the count would be of %s's entries, a dictionary (reached only through a value, or said to have happened); "
		                     "what is counted could not be told", p->s->t[f->fact].name);
	if (!strcmp(f->agg, "RATE")) {
		if (!f->rate_n)
			return pf_decline(p, "%s", "a share was asked, but of what could not be told");
		/* a share among patients chosen through another table (hypertension patients prescribed
		 * amlodipine) is a share of patients, not of the rows here; a share over a dictionary's
		 * rows says nothing of patients */
		if (f->nsemi)
			return pf_decline(p, "%s", "a share among patients chosen through another table is not a shape the offline planner builds");
		if (!pf_holds_entity(p, f->fact))
			return pf_decline(p, "a share over the rows of %s, which holds no patient or stay, is not an answer", p->s->t[f->fact].name);
		/* "수술 중 저혈압 있었던 환자 비율", "percentage of cases with spo2 below 90": a share of
		 * patients or cases over a table of many rows for each (vital signs, lab results) would be
		 * the share of the measurements (docs/coverage.md, "Rates") */
		if (f->entity_word && !one_row_each(p, f->fact))
			return pf_decline(p, "a share of patients or cases over the rows of %s, several for each of them, would be a "
			                     "share of rows; not a shape the offline planner builds", p->s->t[f->fact].name);
		/* the part in a table of many rows per case (a drug given) and the base in another (female
		 * cases): the rows joined are not the cases, so the share would be of rows */
		/* (a base in a dictionary, a ward's name for admissions, joins one row each: that is fine) */
		for (int i = 0; i < f->ncond; i++)
			if ((i < f->rate_from || i >= f->rate_from + f->rate_n) && f->cond[i].col >= 0 && f->rate_n &&
			    p->s->c[f->cond[i].col].table != p->s->c[f->cond[f->rate_from].col].table &&
			    pf_holds_entity(p, p->s->c[f->cond[i].col].table))
				return pf_decline(p, "a share whose base (%s) and part sit in different tables is not a shape the offline planner builds",
				                  pf_cfq(p, f->cond[i].col));
		for (int k = 0; k < f->nin && f->rate_n; k++)
			if (p->s->c[f->in[k].col].table != p->s->c[f->cond[f->rate_from].col].table &&
			    pf_holds_entity(p, p->s->c[f->in[k].col].table))
				return pf_decline(p, "a share whose base (%s) and part sit in different tables is not a shape the offline planner builds",
				                  pf_cfq(p, f->in[k].col));
		/* ROUND(AVG(CAST((numerator) AS int)) * 100, 2): the share in percent */
		struct sexpr *num = NULL;
		for (int i = f->rate_from; i < f->rate_from + f->rate_n; i++) {
			struct sexpr *rhs = cond_rhs(p, i);
			if (f->cond[i].num == 3 && !lit_ok(f->cond[i].lit))
				return pf_decline(p, "%s", "a concept's definition in the metadata is not a simple condition");
			struct sexpr *c = sx_cmp(&p->a, f->cond[i].op, pf_col(p, f->cond[i].col), rhs);
			num = num ? sx_and(&p->a, num, c) : c;
		}
		struct sexpr *r = sx_arith(&p->a, "*", sx_agg(&p->a, "AVG", 0, sx_cast(&p->a, num, "int")),
		                           sx_num(&p->a, "100"));
		q->sel[q->nsel].e = sx_func(&p->a, "ROUND", r, sx_num(&p->a, f->decimals ? arena_printf(&p->a, "%d", f->decimals - 1) : "2"));   /* 12.34 (%) */
		q->sel[q->nsel++].as = "rate_percent";
		/* the two counts beside it: how many of how many (docs/coverage.md, "Rates") */
		q->sel[q->nsel].e = sx_agg(&p->a, "SUM", 0, sx_cast(&p->a, num, "int"));
		q->sel[q->nsel++].as = "numerator";
		q->sel[q->nsel].e = sx_agg(&p->a, "COUNT", 0, sx_star(&p->a));
		q->sel[q->nsel++].as = "denominator";
	} else {
		/* an average or total of an attribute of the one side (a case's ICU days) over rows of the
		 * many side (its medications, its labs) counts each case once per row joined */
		/* (a duration too: "average LOS by department" averaged each stay once per prescription
		 * joined, when LOS also named a drug) */
		int edges[8], mt = f->measure >= 0 ? p->s->c[f->measure].table : f->dur_start >= 0 ? p->s->c[f->dur_start].table : -1;
		/* a breakdown by a column of such a many side (a medication's dose unit for 병동) is no
		 * dimension of what is measured: the word that named it is said */
		for (int g = 0; g < f->ngroup && mt >= 0; g++) {
			int gt = p->s->c[f->group[g]].table;
			if (gt != mt && pf_path(p, gt, mt, edges, 4) > 0) {
				const char *w = pf_cfq(p, f->group[g]);
				for (int l = 0; l < p->pl.n; l++)
					if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == f->group[g])
						w = arena_printf(&p->a, "'%s' (%s)", pf_span_text(p, p->pl.v[l].t0, p->pl.v[l].t1), pf_cfq(p, f->group[g]));
				return pf_decline(p, "the breakdown %s is not a dimension of what is measured: the database has no such "
				                     "grouping for it", w);
			}
		}
		/* (for a duration, only where the rows read say nothing of their own: a main diagnosis
		 * filtered is one row per stay, and was answered right) */
		int says = 0;
		for (int i = 0; i < f->ncond && !says; i++)
			says = f->cond[i].col >= 0 && p->s->c[f->cond[i].col].table == f->fact;
		for (int i = 0; i < f->nin && !says; i++)
			says = p->s->c[f->in[i].col].table == f->fact;
		for (int g = 0; g < f->ngroup && !says; g++)
			says = p->s->c[f->group[g]].table == f->fact;
		if ((!strcmp(f->agg, "AVG") || !strcmp(f->agg, "SUM")) && mt >= 0 && mt != f->fact &&
		    (f->measure >= 0 || !says) && pf_path(p, f->fact, mt, edges, 4) > 0)
			return pf_decline(p, "an average or total of %s over the rows of another table (each counted once per row "
			                     "joined) is not a shape the offline planner builds",
			                  arena_printf(&p->a, "%s (%s)", pf_cfq(p, f->measure >= 0 ? f->measure : f->dur_start),
			                               p->s->t[f->fact].name));
		/* "수술별 건수", "수술별 평균 나이" read as per case: the rows of a table grouped by its own
		 * unique key are one in every group (a count of 1, an average of one value) */
		for (int g = 0; g < f->ngroup; g++)
			if (p->s->c[f->group[g]].table == f->fact && p->s->c[f->group[g]].unique && f->nagg2 == 0)
				return pf_decline(p, "a count or average per %s, a key of its own table, is over one row each; what is asked per it "
				                     "could not be told", pf_cfq(p, f->group[g]));
		agg_item(p, q, f->agg);
	}
	/* "상위 5개를 진료과별로", "top 5 drugs by department": the top N within each group, or the top N
	 * pairs? The pairs would be built; the other reading is as likely, so it is asked */
	int ndistinct = 0;
	for (int g = 0; g < f->ngroup; g++) {
		int seen = 0;
		for (int h = 0; h < g; h++)
			seen |= f->group[h] == f->group[g];
		ndistinct += !seen;
	}
	if (ndistinct >= 2 && f->order && f->limit > 0)
		return pf_decline(p, "%s", "a top N over a breakdown in two ways (the top N within each group, or of the pairs) "
		                           "could not be told apart");
	if (f->ngroup && f->order) {
		/* (a rate's groups are ranked by the rate, never by its denominator, the last item shown:
		 * "진료과별 사망률 상위 3개" ranked the departments by their admissions) */
		int by = q->nsel - 1;
		for (int i = 0; f->agg && !strcmp(f->agg, "RATE") && i < q->nsel; i++)
			if (q->sel[i].as && !strcmp(q->sel[i].as, "rate_percent"))
				by = i;
		q->order[q->norder].e = q->sel[by].e;
		q->order[q->norder++].desc = f->order < 0;
		q->limit = f->limit;
	}
	for (int i = 0; i < f->nagg2 && q->nsel < 16; i++)
		agg_item(p, q, f->agg2[i]);
	return 0;
}

/* build_entity_total: one figure per stay or patient (the measure's SUM, or the rows counted),
 * grouped by its key, and the aggregate asked taken over those figures (q->wrap_agg) */
static void build_entity_total(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	q->sel[q->nsel].e = f->total_rows ? sx_agg(&p->a, "COUNT", 0, sx_star(&p->a)) : sx_agg(&p->a, "SUM", 0, pf_col(p, f->measure));
	q->sel[q->nsel++].as = "total";
	q->group[q->ngroup++] = pf_col(p, f->entity_total);
	if (f->having_op)   /* "among patients with at least 2 visits": counted, kept when enough */
		q->having = sx_cmp(&p->a, f->having_op, sx_agg(&p->a, "COUNT", 0, sx_star(&p->a)), sx_num(&p->a, f->having_n));
	q->wrap_agg = f->agg;
}

/* build_rows: the projected columns, in order (the leading entity, then time or first/last);
 * 0 or -1 declined when there is nothing to show */
static int build_rows(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	for (int i = 0; i < f->nproj && !(f->dur_start >= 0 && f->dur_days == 2); i++) {
		pf_need(p, p->s->c[f->proj[i]].table);
		q->sel[q->nsel++].e = pf_col(p, f->proj[i]);
	}
	if (!q->nsel && f->dur_start >= 0 && f->dur_days == 2) {
		/* "how long was her last ICU stay": the stay's duration, each stay that is left */
		q->sel[q->nsel].e = duration_expr(p);
		q->sel[q->nsel++].as = pf_dur_name(f);
		q->where[q->nwhere++] = sx_null(&p->a, pf_col(p, f->dur_end), 1);
	}
	if (!q->nsel)
		return pf_decline(p, "%s", "what to show could not be told");
	q->distinct = f->distinct;
	for (int i = 0; i < f->nlead && q->norder < 3; i++) {
		q->order[q->norder].e = pf_col(p, f->lead[i]);
		q->order[q->norder++].desc = 0;
	}
	if (f->order && f->order_col >= 0) {
		pf_need(p, p->s->c[f->order_col].table);
		q->order[q->norder].e = pf_col(p, f->order_col);
		q->order[q->norder++].desc = f->order < 0;
		if (f->order2) {
			q->order[q->norder].e = pf_col(p, f->order2_col);
			q->order[q->norder++].desc = f->order2 < 0;
			q->where[q->nwhere++] = sx_null(&p->a, pf_col(p, f->order_col), 1);
		}
		q->limit = f->limit;
		q->offset = f->offset;
		/* the last one: PostgreSQL sorts a missing time first when descending; a row without the
		 * time is not the last of anything */
		if (f->order < 0 && f->limit && !f->order2)
			q->where[q->nwhere++] = sx_null(&p->a, pf_col(p, f->order_col), 1);
		if (f->ties && f->limit == 1 && !f->offset && !f->order2) {
			/* each name once, with the time it shares (DISTINCT needs what it is ordered by) */
			q->sel[q->nsel++].e = pf_col(p, f->order_col);
			q->distinct = 1;
			q->ties = 1;
		}
		/* the first X found: a row that has an X */
		if (f->nproj == 1 && f->proj[0] != f->order_col && !f->order2)
			q->where[q->nwhere++] = sx_null(&p->a, pf_col(p, f->proj[0]), 1);
	}
	return 0;
}

/* build the squery from the frame */
/* ranges_meet: -1 (declined) when two comparisons of one column with numbers leave no value
 * between them ("elderly (>=80) cases with Hb < 8" read as result >= 80 AND result < 8: a number
 * meant for another column was given to this one) */
static int ranges_meet(struct planner *p)
{
	const struct frame *f = &p->f;
	for (int i = 0; i < f->ncond; i++)
		for (int j = 0; j < f->ncond; j++) {
			const char *lo = f->cond[i].op, *hi = f->cond[j].op;
			if (i == j || f->cond[i].col != f->cond[j].col || f->cond[i].num != 1 || f->cond[j].num != 1 ||
			    !lo || !hi || lo[0] != '>' || hi[0] != '<' || !f->cond[i].lit || !f->cond[j].lit)
				continue;
			char *e1, *e2;
			double l = strtod(f->cond[i].lit, &e1), u = strtod(f->cond[j].lit, &e2);
			if (*e1 || *e2 || e1 == f->cond[i].lit || e2 == f->cond[j].lit)
				continue;
			if (l > u || (l == u && (!lo[1] || !hi[1])))
				return pf_decline(p, "two numbers compared with one column leave no value between them (%s); one of them "
				                     "is likely of another thing",
				                  arena_printf(&p->a, "%s %s %s and %s %s", pf_cfq(p, f->cond[i].col), lo, f->cond[i].lit, hi,
				                               f->cond[j].lit));
		}
	return 0;
}

/* codes_beside_labels: a breakdown shown by a dictionary's label, and the code of the same
 * dictionary named too (a key column, said with code/코드): "number of prescriptions by drug code"
 * is by the fact table's key instead of the label; "상병별 진단 건수 (상병코드, 한글명)", where a
 * word names the label column as well, is by both, the code first */
static void codes_beside_labels(struct planner *p)
{
	struct frame *f = &p->f;
	for (int l = 0; l < p->pl.n && f->ngroup < 3; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (it->kind != PL_COLUMN || it->role != 0 || !pf_is_keyish(p, it->cols[0]) || !pf_says_code(p, it->t0, it->t1))
			continue;
		int col = it->cols[0], dt = -1, key = -1, n = 0;
		for (int k = 0; k < p->s->nfk; k++) {
			const struct pfk *e = &p->s->fk[k];
			if (p->s->c[e->from].table != f->fact || (e->from != col && e->to != col))
				continue;
			dt = p->s->c[e->to].table;
			key = e->from;
			n++;
		}
		int have = 0;
		for (int g = 0; g < f->ngroup; g++)
			have |= f->group[g] == key;
		if (n != 1 || have)
			continue;
		for (int g = 0; g < f->ngroup; g++) {
			if (p->s->c[f->group[g]].table != dt || pf_is_keyish(p, f->group[g]))
				continue;
			int label_said = 0;
			for (int m = 0; m < p->pl.n; m++)
				label_said |= p->pl.v[m].kind == PL_COLUMN && p->pl.v[m].cols[0] == f->group[g];
			if (!label_said) {
				f->group[g] = key;
				f->group_src[g] = key + 1;
				pf_decide(p, pf_span_text(p, it->t0, it->t1), "group", pf_cfq(p, key), "the codes named, not their labels", 1);
				break;
			}
			for (int k = f->ngroup; k > g; k--) {
				f->group[k] = f->group[k - 1];
				f->group_src[k] = f->group_src[k - 1];
			}
			f->group[g] = key;
			f->group_src[g] = key + 1;
			f->ngroup++;
			pf_decide(p, pf_span_text(p, it->t0, it->t1), "group", pf_cfq(p, key), "the code named beside its label", 1);
			break;
		}
	}
}

int pf_build(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	if (ranges_meet(p) < 0)
		return -1;
	if (f->multi) {
		const char *why;
		if (planner_timeline(&p->a, p->s, &f->tl, q, &why) < 0)
			return pf_decline(p, "%s", why);
		return 0;
	}
	if (f->nev && pf_event_bind(p) < 0)
		return -1;
	const char *fact = p->s->t[f->fact].name;
	q->from = fact;
	q->alias = fact;

	/* (before the WHERE and the ranking: the other thing given together leaves the value list) */
	if (pf_together_where(p, q) < 0)
		return -1;
	pick_pivot(p);   /* (before the WHERE, which leaves its values out, and the groups it may add to) */
	if (f->pct_value) {
		/* a percentile: the measurement's rows of everyone, the named patient only says whose age */
		const char *ent = f->entity_val;
		int ep = f->episode, which = f->episode_which;
		f->entity_val = NULL;
		f->episode = -1;
		int rc = build_where(p, q);
		f->entity_val = ent;
		f->episode = ep;
		if (rc < 0 || pf_percentile_build(p, q, ent, ep, which) < 0 || add_semi(p, q) < 0 || add_joins(p, q) < 0)
			return -1;
		return 0;
	}
	if (build_where(p, q) < 0)
		return -1;
	if (f->exists) {
		q->sel[q->nsel++].e = sx_num(&p->a, "1");
		q->exists_wrap = 1;
	} else if (f->rank_n > 0) {
		/* "top 3 operations ... in urology" ranked the departments, filtered to one: a ranking over
		 * a column the question fixes to one value is a misreading of what to rank */
		for (int i = 0; i < f->ncond && f->rank_col >= 0; i++)
			if (f->cond[i].col == f->rank_col && f->cond[i].op && !strcmp(f->cond[i].op, "="))
				return pf_decline(p, "the ranking would be over %s, which the question fixes to one value; what to rank could not be told",
				                  p->s->c[f->rank_col].name);
		for (int i = 0; i < f->nin && f->rank_col >= 0; i++)
			if (f->in[i].col == f->rank_col && f->in[i].n == 1)
				return pf_decline(p, "the ranking would be over %s, which the question fixes to one value; what to rank could not be told",
				                  p->s->c[f->rank_col].name);
		build_ranking(p, q);
	} else {
		if (f->bucket) {
			const char *u = f->bucket == 'h' ? "hour" : f->bucket == 'd' ? "day" : f->bucket == 'w' ? "week"
			              : f->bucket == 'm' ? "month" : f->bucket == 'q' ? "quarter" : "year";
			/* each bucket as the instant it starts (date_trunc): a month is a calendar month of its
			 * year ("2025-03"), never a bare 3 that mixes the Marches of several years; it reads as
			 * time in the table, the answer and the chart */
			struct sexpr *b = sx_func(&p->a, "date_trunc", sx_lit(&p->a, u), pf_col(p, f->time_col));
			if (b) {
				/* (a day is shown as its date, 2100-11-23, not as its midnight) */
				q->sel[q->nsel].e = f->bucket == 'd' ? sx_cast(&p->a, b, "date") : b;
				q->sel[q->nsel++].as = u;
				q->group[q->ngroup++] = b;
			}
		}
		codes_beside_labels(p);
		/* "number of prescriptions by name": one total, the names never grouped (name is a word
		 * the linker skips); a count or an aggregate said by name with nothing grouped is declined */
		for (int i = 0; f->agg && !f->ngroup && !f->bucket && !f->age_band && i + 1 < p->tk.n; i++)
			if ((!strcmp(p->tk.v[i].text, "by") || !strcmp(p->tk.v[i].text, "per")) && !p->tk.v[i + 1].used &&
			    pf_name_word(&p->tk.v[i + 1], 0))
				return pf_decline(p, "the question asks per %s, which the plan does not group by",
				                  arena_printf(&p->a, "'%s %s'", p->tk.v[i].text, p->tk.v[i + 1].text));
		/* "first lactate after surgery, average", "last hemoglobin before surgery mean": the first or
		 * last of each, then an aggregate, is not built; never the aggregate of every value */
		for (int i = 0; f->agg && strcmp(f->agg, "COUNT") && !f->entity_val && i < p->tk.n; i++)   /* (one patient
			 * named: "first" and "last" are of the patient's visits, read before) */
			if ((p->tk.v[i].role == R_FIRST || p->tk.v[i].role == R_LAST) && !p->tk.v[i].used && !time_after(p, i))
				return pf_decline(p, "the question asks for '%s' of each, then an aggregate of them, which the offline "
				                     "planner does not build", p->tk.v[i].text);
		/* "admissions per patient with names": grouped by the patients' numbers only */
		if (!f->bucket && !f->age_band && pf_name_unshown(p, f->group, f->ngroup) < 0)
			return -1;
		for (int i = 0; i < f->ngroup; i++) {
			pf_need(p, p->s->c[f->group[i]].table);
			if (f->age_band && f->group[i] == f->band_col) {
				/* bands: 20 for 20-29 (20대) in 10-year bands; the lower bound of each band */
				const char *w = arena_printf(&p->a, "%d", f->band_width ? f->band_width : 10);
				struct sexpr *band = sx_cast(&p->a, sx_arith(&p->a, "*", sx_func(&p->a, "floor", sx_arith(&p->a, "/",
				                             pf_col(p, f->group[i]), sx_num(&p->a, w)), NULL), sx_num(&p->a, w)), "int");
				q->sel[q->nsel].e = band;
				q->sel[q->nsel++].as = pf_age_col_is(p, f->group[i]) ? "age_group" : "band";
				q->group[q->ngroup++] = band;
				continue;
			}
			/* "top 5 patients by bmi" counted the patients of each BMI value: a measure of
			 * fractional values is no breakdown unless banded */
			if (p->s->c[f->group[i]].type == PT_NUM && !p->s->c[f->group[i]].is_int && !p->s->c[f->group[i]].flag &&
			    !pf_is_keyish(p, f->group[i]))
				return pf_decline(p, "%s is a measure of many fractional values: a breakdown by each of them (or a ranking "
				                     "by it) is not a shape the offline planner builds; ask for bands", pf_cfq(p, f->group[i]));
			q->sel[q->nsel++].e = pf_col(p, f->group[i]);
			q->group[q->ngroup++] = pf_col(p, f->group[i]);
		}
		if (f->entity_total >= 0)
			build_entity_total(p, q);
		else if (f->agg ? build_aggregate(p, q) < 0 : build_rows(p, q) < 0)
			return -1;
		/* a series over time or over age bands reads in order: earliest (youngest) first */
		if ((f->bucket || f->age_band) && !q->norder && q->ngroup) {
			int nb = f->bucket ? 1 : 0;   /* the bucket first */
			for (int i = 0; i < nb && q->norder < 6; i++)
				q->order[q->norder++] = (struct sorder){.e = q->group[i], .desc = 0};
			for (int i = 0; f->age_band && i < q->ngroup && q->norder < 6; i++)
				if (q->sel[i].as && (!strcmp(q->sel[i].as, "age_group") || !strcmp(q->sel[i].as, "band")))
					q->order[q->norder++] = (struct sorder){.e = q->group[i], .desc = 0};
		}
		if (f->having_op) {
			q->having = sx_cmp(&p->a, f->having_op, sx_agg(&p->a, "COUNT", 0, sx_star(&p->a)), sx_num(&p->a, f->having_n));
			q->count_wrap = f->having_count;
		}
	}
	if (p->aggregate_form && pf_form_key(p) < 0)
		return -1;
	if (add_semi(p, q) < 0 || add_joins(p, q) < 0)
		return -1;
	return f->pair ? pf_pair_wrap(p, q) : 0;
}
