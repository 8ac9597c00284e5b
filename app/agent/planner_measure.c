/* planner_measure.c: measures that are not one column: a rate of a yes/no thing, a duration between two times. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agent/planner_front.h"

/* rate_link: the link item whose span holds the rate word at token i (사망률 -> the in-hospital
 * death concept), when it is a yes/no thing: a metadata concept or a 0/1 column; else -1 */
int pf_rate_link(struct planner *p, int i)
{
	for (int l = 0; l < p->pl.n; l++) {
		const struct plink_item *it = &p->pl.v[l];
		if (i < it->t0 || i >= it->t1)
			continue;
		if (it->kind == PL_CONCEPT && it->con >= 0 && p->s->con[it->con].nc)
			return l;
		if (it->kind == PL_COLUMN && p->s->c[it->cols[0]].flag)
			return l;
	}
	return -1;
}

/* duration_word: "시간" not attached to a number, "duration", "how long", "length", "소요" */
int pf_duration_word(const struct ptok *t)
{
	static const char *const w[] = {"시간", "소요시간", "소요", "duration", "long", "length", NULL};
	if (t->kind != TK_WORD)
		return 0;
	for (int i = 0; w[i]; i++)
		if (!strcmp(t->text, w[i]) || !strcmp(t->stem, w[i]))
			return 1;
	return 0;
}

/* start_end: the part of a time column's name before a start/end suffix, or NULL */
static const char *start_end(struct arena *a, const char *name, int *is_end)
{
	static const char *const st[] = {"_start_time", "_start_dt", "_start", "start", NULL};
	static const char *const en[] = {"_end_time", "_end_dt", "_end", "end", NULL};
	size_t n = strlen(name);
	for (int k = 0; k < 2; k++)
		for (const char *const *x = k ? en : st; *x; x++) {
			size_t l = strlen(*x);
			if (n > l && !strcmp(name + n - l, *x)) {
				*is_end = k;
				return arena_printf(a, "%.*s", (int)(n - l), name);
			}
		}
	return NULL;
}

/* has_word: w occurs in text as a whole word (수술 in "수술 시작", not in "수술실 입실") */
static int has_word(const char *text, const char *w)
{
	size_t n = strlen(w);
	for (const char *h = text ? strstr(text, w) : NULL; h; h = strstr(h + 1, w))
		if ((h == text || h[-1] == ' ' || h[-1] == '(') && (!h[n] || h[n] == ' ' || h[n] == ')' || h[n] == ','))
			return 1;
	return 0;
}

/* how many words of the question appear in a column's name, comment or synonyms */
static int words_in_col(struct planner *p, int ci)
{
	int n = 0;
	const struct pcol *c = &p->s->c[ci];
	for (int i = 0; i < p->tk.n; i++) {
		const struct ptok *t = &p->tk.v[i];
		if (t->kind != TK_WORD || (t->role != R_NONE && t->role != R_ENTITY) || strlen(t->text) < 2 || pf_duration_word(t))
			continue;
		int hit = strstr(c->name, t->stem) || has_word(c->comment, t->text);
		for (int k = 0; !hit && k < c->nsyn; k++)
			hit = has_word(c->syn[k], t->text);
		n += hit;
	}
	return n;
}

/* find_duration: the start/end time columns of one table the question's words name ("수술 시간":
 * opstart and opend, whose synonyms say 수술); 1 found (f->dur_start/dur_end set), 0 not */
int pf_find_duration(struct planner *p)
{
	struct frame *f = &p->f;
	int best = -1, bs = -1, be = -1, tie = 0;
	for (int a = 0; a < p->s->nc; a++) {
		int ea, eb;
		const char *pa;
		if (p->s->c[a].type != PT_TIME || !(pa = start_end(&p->a, p->s->c[a].name, &ea)) || ea)
			continue;
		for (int b = p->s->t[p->s->c[a].table].c0; b < p->s->t[p->s->c[a].table].c0 + p->s->t[p->s->c[a].table].nc; b++) {
			const char *pb;
			if (p->s->c[b].type != PT_TIME || !(pb = start_end(&p->a, p->s->c[b].name, &eb)) || !eb || strcmp(pa, pb))
				continue;
			int sc = words_in_col(p, a) + words_in_col(p, b);
			if (sc > best) {
				best = sc;
				bs = a;
				be = b;
				tie = 0;
			} else if (sc == best) {
				tie = 1;
			}
		}
	}
	if (best <= 0 || tie)
		return 0;
	f->dur_start = bs;
	f->dur_end = be;
	return 1;
}
