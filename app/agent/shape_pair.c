/* shape_pair.c: question shape "two values of one measure, combined": the change between two
 * values ("the change of weight last measured compared to the first value"), a comparison of two
 * values ("is the second calcium less than the first"), and the time elapsed since a value was
 * taken ("how many hours since the first potassium test").  docs/architecture.md, "Question
 * shapes". */
#include <string.h>
#include "agent/planner_front.h"

/* words that ask for the difference between two values */
static int change_word(const struct ptok *t)
{
	static const char *const w[] = {"change", "changes", "changed", "difference", "differ", "differs", "shift",
	                                "shifts", "minus", "차이", "변화량", NULL};
	return planner_in_list(w, t->text);
}

/* words that say the time asked for runs up to now: "since", "elapsed", "passed", "has it been",
 * "gone by", "how many hours ago" */
static int since_word(const struct ptok *t)
{
	static const char *const w[] = {"since", "elapsed", "passed", "been", "gone", "ago", NULL};
	return planner_in_list(w, t->text);
}

/* an ordinal at token i: "first", "last", "second" (offset 1), "second to last" / "second last"
 * (latest first, offset 1); the number of tokens it spans, 0 when none */
static int ordinal_at(struct planner *p, int i, int *dir, int *off)
{
	const struct ptok *t = &p->tk.v[i];
	if (t->used || t->kind != TK_WORD)
		return 0;
	if (!strcmp(t->text, "second") || !strcmp(t->text, "두번째")) {
		if (i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "to") && p->tk.v[i + 2].role == R_LAST) {
			*dir = -1, *off = 1;
			return 3;
		}
		if (i + 4 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "-") && !strcmp(p->tk.v[i + 2].text, "to") &&
		    !strcmp(p->tk.v[i + 3].text, "-") && p->tk.v[i + 4].role == R_LAST) {
			*dir = -1, *off = 1;   /* second-to-last */
			return 5;
		}
		if (i + 1 < p->tk.n && p->tk.v[i + 1].role == R_LAST) {
			*dir = -1, *off = 1;
			return 2;
		}
		*dir = 1, *off = 1;
		return 1;
	}
	if (t->role == R_FIRST || t->role == R_LAST) {
		*dir = t->role == R_FIRST ? 1 : -1, *off = 0;
		return 1;
	}
	return 0;
}

/* word w is one of the two tokens before token i ("from the first") */
static int preceded_by(struct planner *p, int i, const char *w)
{
	return (i >= 1 && !strcmp(p->tk.v[i - 1].text, w)) || (i >= 2 && !strcmp(p->tk.v[i - 2].text, w));
}

/* "compared to" comes just before token i (two or three tokens back: "compared to the first"):
 * then the "to" is the comparison's, not the end of "from A to B" */
static int compared_to(struct planner *p, int i)
{
	for (int k = i - 3; k < i - 1; k++)
		if (k >= 0 && !strncmp(p->tk.v[k].text, "compar", 6) && !strcmp(p->tk.v[k + 1].text, "to"))
			return 1;
	return 0;
}

/* the comparison word of "is A less than B": a bare less/greater/lower/higher followed by "than"
 * and no number; its token, or -1 */
static int value_comparison(struct planner *p)
{
	for (int i = 0; i + 1 < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->used || t->hangul || (t->role != R_LT && t->role != R_GT) || strcmp(p->tk.v[i + 1].text, "than"))
			continue;
		int k = i + 2;
		while (k < p->tk.n && (p->tk.v[k].role == R_STOP || planner_lex_generic(p->tk.v[k].stem)))
			k++;
		if (k < p->tk.n && p->tk.v[k].kind == TK_NUM)
			continue;   /* "less than 90": a threshold, not another value */
		return i;
	}
	return -1;
}

int pf_pair_words(struct planner *p)
{
	struct frame *f = &p->f;
	struct ordinal { int tok, n, dir, off; } ord[3] = {{0}};
	int nord = 0, change = -1, cmp = value_comparison(p), how = -1, unit = 0, since = 0;
	for (int i = 0; i < p->tk.n; i++) {
		int d, o, n = ordinal_at(p, i, &d, &o);
		if (n) {
			if (nord < 3)
				ord[nord].tok = i, ord[nord].n = n, ord[nord].dir = d, ord[nord].off = o;
			nord++;
			i += n - 1;
			continue;
		}
		const struct ptok *t = &p->tk.v[i];
		if (!t->used && change_word(t) && change < 0)
			change = i;
		if (!t->used && since_word(t))
			since = 1;
		/* "how many hours", "what number of days", a question opening "Hours since ...": the unit
		 * asked for */
		if (t->role == R_UNIT && (t->unitv == 'h' || t->unitv == 'd') && how < 0 &&
		    ((i >= 2 && p->tk.v[i - 2].role == R_HOW && p->tk.v[i - 1].role == R_MANY) ||
		     (i >= 3 && !strcmp(p->tk.v[i - 2].text, "number") && !strcmp(p->tk.v[i - 1].text, "of")) ||
		     (i == 0 && p->tk.n > 1 && (!strcmp(p->tk.v[1].text, "since") || !strcmp(p->tk.v[1].text, "ago")))))
			how = i, unit = t->unitv;
	}
	if (how >= 0 && since && nord <= 1 && change < 0 && cmp < 0) {
		f->pair = 'e';
		f->pair_unit = unit;
		for (int k = how >= 2 ? how - 2 : 0; k <= how; k++)
			p->tk.v[k].used = 1;
		for (int i = 0; i < p->tk.n; i++)
			if (since_word(&p->tk.v[i]))
				p->tk.v[i].used = 1;
		/* "since the admission to the ICU": the latest one, unless an ordinal says which */
		f->pick[0].dir = -1, f->pick[0].off = 0;
	} else if ((change >= 0 || cmp >= 0) && (nord == 2 || (nord == 0 && f->win.at2_from[0]))) {
		/* two ordinals ("the last value compared to the first"), or two instants ("measured at
		 * T1 compared to the value measured at T2": the window holds T1, win.at2_* T2) */
		f->pair = change >= 0 ? 'd' : p->tk.v[cmp].role == R_LT ? '<' : '>';
		if (change >= 0)
			p->tk.v[change].used = 1;
		if (cmp >= 0)
			p->tk.v[cmp].used = p->tk.v[cmp + 1].used = 1;
		for (int i = 0; i < p->tk.n; i++) {
			struct ptok *t = &p->tk.v[i];
			if (!strncmp(t->text, "compar", 6) || !strcmp(t->text, "versus") || !strcmp(t->text, "vs") ||
			    t->role == R_HOW || t->role == R_MANY)
				t->used = 1;
		}
	} else {
		return 0;
	}
	/* "the change from the first value to the last", "between the first and the last
	 * measurement": the later minus the earlier, as "the change of the last value compared to the
	 * first" is */
	/* ... and "between A and B", in either order ("the difference between the last and the first"):
	 * the later minus the earlier */
	int later1 = nord >= 2 &&
	             (ord[1].dir < 0 ? 1000 - ord[1].off : ord[1].off) > (ord[0].dir < 0 ? 1000 - ord[0].off : ord[0].off);
	if (f->pair == 'd' && nord >= 2 && ((preceded_by(p, ord[0].tok, "from") && preceded_by(p, ord[1].tok, "to") &&
	                        !compared_to(p, ord[1].tok)) ||
	                       (preceded_by(p, ord[0].tok, "between") && preceded_by(p, ord[1].tok, "and") && later1))) {
		struct ordinal first = ord[0];
		ord[0] = ord[1];
		ord[1] = first;
	}
	if (nord == 0)
		for (int k = 0; k < 2; k++)
			f->pick[k].dir = 1, f->pick[k].off = 0;
	for (int k = 0; k < nord && k < 2; k++) {
		f->pick[k].dir = ord[k].dir;
		f->pick[k].off = ord[k].off;
		for (int j = ord[k].tok; j < ord[k].tok + ord[k].n; j++)
			p->tk.v[j].used = 1;
	}
	pf_decide(p, "", "intent",
	          f->pair == 'e' ? "time elapsed since a value" : f->pair == 'd' ? "change between two values"
	                                                       : "comparison of two values",
	          "two picks of one measure by time order", 1);
	return 0;
}

static int match(struct planner *p, const struct cues *c)
{
	return p->f.pair != 0;
}

/* the first pick as one row: the measure (or, for the time elapsed, the time) of the row at that
 * place in time order */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	if (f->time_col < 0)
		return pf_decline(p, "two values in time order were asked for, but %s has no time column",
		                  p->s->t[f->fact].name);
	if (f->pair != 'e' && f->measure < 0)
		return pf_decline(p, "the change or comparison of a value was asked for, but %s has no numeric measure",
		                  p->s->t[f->fact].name);
	pf_frame_clear(f);
	f->proj[f->nproj++] = f->pair == 'e' ? f->time_col : f->measure;
	f->order = f->pick[0].dir;
	f->order_col = f->time_col;
	f->order2 = 0;
	f->limit = 1;
	f->offset = f->pick[0].off;
	return 0;
}

int pf_pair_wrap(struct planner *p, struct squery *q)
{
	struct frame *f = &p->f;
	struct squery *a = arena_alloc(&p->a, sizeof *a), *b = NULL;
	struct sexpr *e;
	const char *as;
	if (!a)
		return pf_decline(p, "%s", "out of memory");
	*a = *q;
	if (f->pair == 'e') {
		char now[32];
		strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S", &p->now);
		/* date_part('epoch', now - t) / 3600 or 86400: hours or days, with their fraction */
		e = sx_arith(&p->a, "/",
		             sx_func(&p->a, "date_part", sx_lit(&p->a, "epoch"),
		                     sx_arith(&p->a, "-", sx_ts(&p->a, arena_strdup(&p->a, now)), sx_subq(&p->a, a))),
		             sx_num(&p->a, f->pair_unit == 'h' ? "3600" : "86400"));
		as = f->pair_unit == 'h' ? "hours" : "days";
	} else {
		if (!(b = arena_alloc(&p->a, sizeof *b)))
			return pf_decline(p, "%s", "out of memory");
		*b = *q;
		/* the second pick: the same rows, its own order and place, or the same rows at the
		 * second instant (the builder put the window's two bounds at where[win_where - 1]) */
		b->order[b->norder - 1].desc = f->pick[1].dir < 0;
		b->offset = f->pick[1].off;
		if (f->win.at2_from[0]) {
			if (!q->win_where || q->win_where + 1 > q->nwhere)
				return pf_decline(p, "%s", "two instants were named, but the query has no time window to move");
			b->where[q->win_where - 1] = sx_cmp(&p->a, ">=", pf_col(p, f->time_col), sx_ts(&p->a, f->win.at2_from));
			b->where[q->win_where] = sx_cmp(&p->a, "<", pf_col(p, f->time_col), sx_ts(&p->a, f->win.at2_to));
		}
		e = f->pair == 'd' ? sx_arith(&p->a, "-", sx_subq(&p->a, a), sx_subq(&p->a, b))
		                   : sx_cmp(&p->a, f->pair == '<' ? "<" : ">", sx_subq(&p->a, a), sx_subq(&p->a, b));
		as = f->pair == 'd' ? "change" : "answer";
	}
	if (!e)
		return pf_decline(p, "%s", "out of memory");
	memset(q, 0, sizeof *q);
	q->sel[0].e = e;
	q->sel[0].as = as;
	q->nsel = 1;
	return 0;
}

const struct shape shape_pair = {"pair", STAGE_MEASURE, match, frame, 0.85};
