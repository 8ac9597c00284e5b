/* planner_bind.c: links and numbers of a question bound to the frame: comparisons, concepts, filters, groups. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* numeric comparisons: a number next to a comparison word, bound to the nearest numeric column */
int pf_comparisons(struct planner *p)
{
	struct frame *f = &p->f;
	for (int i = 0; i < p->tk.n; i++) {
		struct ptok *t = &p->tk.v[i];
		enum role op = R_NONE;
		int num = -1, num2 = -1;
		if (t->kind == TK_NUM && t->unit == 'D' && !t->used) {
			op = R_BETWEEN;   /* "patients in their 20s": a decade of age */
			num = i;
		} else if (t->kind == TK_NUM && !t->used && i + 2 < p->tk.n && !strcmp(p->tk.v[i + 1].text, "or") &&
		           (p->tk.v[i + 2].role == R_GT || p->tk.v[i + 2].role == R_LT)) {
			op = p->tk.v[i + 2].role == R_GT ? R_GE : R_LE;   /* "60 or above" */
			num = i;
			p->tk.v[i + 1].used = p->tk.v[i + 2].used = 1;
		} else if (t->kind == TK_NUM && t->cmp && !t->used) {
			op = t->cmp;
			num = i;
		} else if ((t->role == R_GT || t->role == R_LT || t->role == R_GE || t->role == R_LE || t->role == R_BETWEEN) &&
		           !t->used) {
			/* "greater than or equal to", "at least", "more than" */
			int j = i + 1;
			while (j < p->tk.n && p->tk.v[j].kind == TK_WORD && (p->tk.v[j].role == R_STOP || planner_lex_generic(p->tk.v[j].stem) ||
			                                                     p->tk.v[j].role == R_GE) && j < i + 4)
				j++;
			if (j < p->tk.n && p->tk.v[j].kind == TK_NUM) {
				op = t->role;
				num = j;
				if (op == R_BETWEEN && j + 2 < p->tk.n && p->tk.v[j + 1].role == R_AND && p->tk.v[j + 2].kind == TK_NUM)
					num2 = j + 2;
			} else if (i > 0 && p->tk.v[i - 1].kind == TK_NUM && !p->tk.v[i - 1].used && p->tk.v[i].hangul) {
				op = t->role;   /* 65 이상 */
				num = i - 1;
			} else if (op == R_NONE && (t->role == R_GT || t->role == R_LT) && !t->hangul) {
				/* "greater than that first measured": a comparison between two values */
				int k = i + 1;
				while (k < p->tk.n && (p->tk.v[k].role == R_STOP || !strcmp(p->tk.v[k].text, "than")))
					k++;
				if (k < p->tk.n && (!strcmp(p->tk.v[k].text, "that") || !strcmp(p->tk.v[k].text, "the")))
					return pf_decline(p, "%s", "comparing two measurements with each other is not a shape the offline planner builds");
				continue;
			} else {
				continue;
			}
		} else {
			continue;
		}
		/* the column: "age" for ages and older/younger; else the nearest linked numeric column */
		int col = -1;
		struct ptok *n = &p->tk.v[num];
		if (n->unit == 'a' || n->unit == 'D' || !strcmp(t->text, "older") ||
		    (num == i && i + 2 < p->tk.n && (!strcmp(p->tk.v[i + 2].text, "older") || !strcmp(p->tk.v[i + 2].text, "younger"))) ||
		    (num > 0 && (!strcmp(p->tk.v[num - 1].text, "aged") || !strcmp(p->tk.v[num - 1].text, "age"))) || !strcmp(t->text, "younger") || !strcmp(t->stem, "ag")) {
			double sc;
			col = planner_link_term(&p->a, p->s, "age", p->r, p->banned, 0.9, &sc);
		}
		int bestd = 99;
		for (int l = 0; l < p->pl.n && col >= 0; l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == col)
				p->pl.v[l].role = 1;   /* "aged": the age column of the comparison */
		for (int l = 0; l < p->pl.n && col < 0; l++) {
			struct plink_item *it = &p->pl.v[l];
			if (it->kind != PL_COLUMN || p->s->c[it->cols[0]].type != PT_NUM)
				continue;
			int d = it->t1 <= i ? i - it->t1 : it->t0 - num;
			if (d < 0)
				d = -d;
			if (d < bestd) {
				bestd = d;
				col = it->cols[0];
			}
		}
		for (int l = 0; l < p->pl.n && col >= 0; l++)
			if (p->pl.v[l].kind == PL_COLUMN && p->pl.v[l].cols[0] == col)
				p->pl.v[l].role = 1;
		/* no column named: the fact table's measure ("potassium over 5.5"), resolved once the
		 * table is chosen (col -1 until then) */
		if (f->ncond >= MAXF)
			continue;
		const char *ops = op == R_GT ? ">" : op == R_LT ? "<" : op == R_GE ? ">=" : op == R_LE ? "<=" : "BETWEEN";
		f->cond[f->ncond].col = col;
		f->cond[f->ncond].op = ops;
		f->cond[f->ncond].lit = pf_numtext(p, n->num);
		f->cond[f->ncond].num = 1;
		f->cond[f->ncond].lit2 = num2 >= 0 ? pf_numtext(p, p->tk.v[num2].num) : NULL;
		if (n->unit == 'D')
			f->cond[f->ncond].lit2 = pf_numtext(p, n->num + 9);
		f->ncond++;
		t->used = 1;
		n->used = 1;
		if (num2 >= 0) {
			p->tk.v[num2].used = 1;
			p->tk.v[num2 - 1].used = 1;
		}
		if (col >= 0)
			pf_decide(p, pf_span_text(p, i < num ? i : num, (num2 >= 0 ? num2 : (num > i ? num : i)) + 1), "filter",
			       arena_printf(&p->a, "%s %s %s", pf_cfq(p, col), ops, n->text), "numeric comparison", 1);
		else
			f->cond[f->ncond - 1].lit2 = f->cond[f->ncond - 1].lit2 ? f->cond[f->ncond - 1].lit2 : NULL;
	}
	return 0;
}

/* the normal range of a measure: the catalog's metadata first, the lexicon's default otherwise */
void pf_concept_range(struct planner *p, int col, const char *value, double *lo, double *hi, const char **src)
{
	*src = "textbook default range";
	if (!value && p->s->c[col].has_range) {
		*lo = p->s->c[col].lo;
		*hi = p->s->c[col].hi;
		*src = "normal range from the catalog metadata";
	}
	for (int k = 0; value && k < p->s->nvr; k++)
		if (!strcmp(p->s->vr[k].value, value)) {
			*lo = p->s->vr[k].lo;
			*hi = p->s->vr[k].hi;
			*src = "normal range of the value from the catalog metadata";
		}
	for (int k = 0; p->r && k < p->r->ncolumns; k++) {
		const struct ret_column *rc = &p->r->columns[k];
		if (rc->has_range && !strcmp(rc->name, p->s->c[col].name) && !strcmp(rc->table, pf_tname(p, col)) && !value) {
			*lo = rc->range_lo;
			*hi = rc->range_hi;
			*src = "normal range from the catalog metadata";
		}
	}
}
