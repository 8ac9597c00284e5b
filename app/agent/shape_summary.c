/* shape_summary.c: question shape "several aggregates of one measure, optionally by group": the
 * lowest, highest and average value, or a count with an average ("2025년 수축기 혈압 최저, 최고,
 * 평균", "성별 환자 수와 평균 나이", "min, max and average sodium"). */
#include <string.h>
#include "agent/planner_front.h"

/* agg_word: t says an aggregate (average, lowest, highest, total) */
static int agg_word(const struct ptok *t)
{
	return t->role == R_AVG || t->role == R_MIN || t->role == R_MAX || t->role == R_SUM;
}

/* korean_and: a Korean word written with 와/과/랑/하고 on it (나이와: "age and") */
static int korean_and(const struct ptok *t)
{
	static const char *const w[] = {"와", "과", "랑", "하고", NULL};
	const char *raw = t->raw ? t->raw : t->text;
	for (int k = 0; t->hangul && w[k]; k++)
		if (planner_ends_with(raw, w[k]) && strlen(raw) > strlen(w[k]))
			return 1;
	return 0;
}

static int match(struct planner *p, const struct cues *c)
{
	return p->f.agg && p->f.nagg2 > 0;
}

/* the first aggregate was bound like any aggregate (pf_bind_measure); the others need the same
 * measure; a ranking over several aggregates is not built; 0 or -1 declined */
static int frame(struct planner *p, struct cues *c)
{
	struct frame *f = &p->f;
	int needs_measure = strcmp(f->agg, "COUNT") != 0;
	for (int i = 0; i < f->nagg2; i++)
		needs_measure |= strcmp(f->agg2[i], "COUNT") != 0;
	if (!strcmp(f->agg, "RATE"))
		return pf_decline(p, "%s", "a rate together with other aggregates is not a shape the offline planner builds");
	if (needs_measure && f->measure < 0 && f->dur_start < 0)
		return pf_decline(p, "%s", "several aggregates were asked for, but no numeric measure was found");
	if (c->ranking || c->most >= 0 || c->top >= 0)
		return pf_decline(p, "%s", "a ranking by several aggregates at once is not a shape the offline planner builds");
	/* "how many lab results per case on average": the count is averaged over the cases, never a
	 * count beside the average of the results' values */
	for (int i = 0; i < p->tk.n; i++)
		if (p->tk.v[i].role == R_AVG && ((i > 0 && !strcmp(p->tk.v[i - 1].text, "on")) || strstr(p->tk.v[i].text, "평균적")))
			return pf_decline(p, "'%s' averages a count over something, which the offline planner does not build",
			                  pf_span_text(p, i > 0 && !strcmp(p->tk.v[i - 1].text, "on") ? i - 1 : i, i + 1));
	/* "intraop lowest MAP average", "최저 혈압 평균": a measure between two aggregate words with no
	 * and/, between is an aggregate of an aggregate (each case's lowest, averaged), never the
	 * lowest and the average of every row side by side */
	for (int a = 0; a < p->tk.n; a++) {
		if (!agg_word(&p->tk.v[a]))
			continue;
		int b = a + 1, measure = 0, joined = 0;
		for (; b < p->tk.n && !agg_word(&p->tk.v[b]); b++) {
			measure |= p->tk.v[b].used && p->tk.v[b].kind == TK_WORD;
			joined |= pf_joiner(&p->tk.v[b]) || !strcmp(p->tk.v[b].text, "or") || !strcmp(p->tk.v[b].text, "또는") ||
			          korean_and(&p->tk.v[b]);
		}
		if (b < p->tk.n && measure && !joined && b - a <= 4 && p->tk.v[b].role == R_AVG && p->tk.v[a].role != R_AVG)
			return pf_decline(p, "'%s' is an aggregate of an aggregate (each one's lowest, highest or total, then "
			                     "averaged), which the offline planner does not build", pf_span_text(p, a, b + 1));
	}
	/* "최저 최고 평균 혈압" kept the lowest and the highest and dropped the average: every aggregate
	 * word is one of the aggregates, or the question is declined naming the one left out */
	int nwords = 0, last = -1;
	for (int i = 0; i < p->tk.n; i++)
		if (agg_word(&p->tk.v[i]) && p->tk.v[i].role != R_SUM && !p->tk.v[i].used)   /* (평균 혈압: a measure's own
		                                                                              * name; "overall" is no aggregate) */
			nwords++, last = i;
	if (nwords > 1 + f->nagg2)
		return pf_decline(p, "the question names %s, which the plan does not use",
		                  arena_printf(&p->a, "'%s' (%d aggregate words, %d aggregates)", p->tk.v[last].text, nwords,
		                               1 + f->nagg2));
	if (f->bucket == 0 && f->nproj)
		return pf_decline(p, "the question names '%s' next to several aggregates, and how they combine could not be told",
		                  p->s->c[f->proj[0]].name);
	struct sb what = SB_INIT;
	sb_init_arena(&what, &p->a);
	sb_puts(&what, f->agg);
	for (int i = 0; i < f->nagg2; i++)
		sb_printf(&what, ", %s", f->agg2[i]);
	pf_decide(p, "", "aggregate", sb_ok(&what) ? sb_cstr(&what) : "several",
	          f->measure >= 0 ? pf_cfq(p, f->measure) : "of rows or the counted entity", 1);
	return 0;
}

const struct shape shape_summary = {"summary", STAGE_MEASURE, match, frame, 0.9};
